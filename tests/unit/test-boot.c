/*
 * test-boot.c: boot_hook() and boot_hook_output() (boot.h) with real
 * commands through /bin/sh: the exit status (and 128 + a signal), the
 * FLEETMARK_EXPECT_KERNEL= line (the last one wins, an empty one clears
 * it), the environment passed on, the output echoed line by line, and the
 * output kept for a reason: standard error too, cut to its last
 * BOOT_OUTPUT_MAX bytes; a hook that leaves a process behind holding its
 * output returns all the same, and that process is ended; a hook past its
 * timeout, and one running at a stop, is ended with the processes it
 * started (its process group), none of them left.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "run.h"
#include "tap.h"
#include "xmalloc.h"

int
main(void)
{
	const char *dir = tap_tmpdir("boot");
	char *expect = NULL, *out = NULL, *err = NULL, *path, *echo;
	char *path2;
	size_t len;
	FILE *f;
	pid_t child, shell;
	time_t t0;
	int st = -1;

	/* The status, and the expect line: the last one counts. */
	ok(boot_hook("t", "echo FLEETMARK_EXPECT_KERNEL=one; echo FLEETMARK_EXPECT_KERNEL=two; "
	    "exit 3", 0, NULL, &expect, &st, &err) == 0, "a hook that fails still ran");
	is_int(st, 3, "its exit status");
	is_str(expect, "two", "the last FLEETMARK_EXPECT_KERNEL= line");

	/* An empty one clears what was expected; a line not at the start is no line. */
	ok(boot_hook("t", "echo FLEETMARK_EXPECT_KERNEL=; echo x FLEETMARK_EXPECT_KERNEL=y",
	    0, NULL, &expect, &st, &err) == 0 && st == 0, "a hook that succeeds");
	ok(expect == NULL, "an empty FLEETMARK_EXPECT_KERNEL= clears it");

	/* A CR LF line: the CR is not part of the string. */
	ok(boot_hook("t", "printf 'FLEETMARK_EXPECT_KERNEL=6.7.0-rc1\\r\\n'", 0, NULL, &expect,
	    &st, &err) == 0, "a CR LF line");
	is_str(expect, "6.7.0-rc1", "without its CR");
	free(expect);
	expect = NULL;

	/* Killed by a signal: 128 + the signal. */
	ok(boot_hook("t", "kill -TERM $$", 0, NULL, NULL, &st, &err) == 0, "a hook killed");
	is_int(st, 128 + SIGTERM, "128 + SIGTERM");

	/* The environment is the caller's. */
	setenv("FLEETMARK_SIDE", "B", 1);
	ok(boot_hook_output("t", "echo side=$FLEETMARK_SIDE", 0, NULL, NULL, &out, &st, &err) == 0,
	    "the environment");
	is_str(out, "side=B\n", "FLEETMARK_SIDE passed on");
	free(out);

	/* Echoed line by line, and both streams kept for the reason. */
	path = xasprintf("%s/echo", dir);
	f = fopen(path, "w");
	ok(f != NULL, "the echo file");
	ok(boot_hook_output("t", "echo to-out; echo to-err >&2; exit 1", 0, f, NULL, &out, &st,
	    &err) == 0 && st == 1, "a failing hook with output");
	fclose(f);
	echo = tap_slurp(path, &len);
	/* with the output kept, standard error comes through the same pipe */
	ok(echo != NULL && strcmp(echo, "to-out\nto-err\n") == 0, "both echoed, line by line");
	ok(out != NULL && strstr(out, "to-out") != NULL && strstr(out, "to-err") != NULL,
	    "both streams kept");
	free(echo);
	free(out);
	free(path);

	/* 5000 lines of "NNNNN\n" (6 bytes): the last BOOT_OUTPUT_MAX bytes. */
	ok(boot_hook_output("t", "i=10000; while [ $i -lt 15000 ]; do echo $i; i=$((i+1)); done",
	    0, NULL, NULL, &out, &st, &err) == 0, "a long output");
	is_int(strlen(out), BOOT_OUTPUT_MAX, "cut to BOOT_OUTPUT_MAX bytes");
	ok(strlen(out) >= 6 && strcmp(out + strlen(out) - 6, "14999\n") == 0,
	    "ending with the last line");
	/* 2048 = 341 lines of 6 bytes (14659 to 14999) and the end of 14658 */
	ok(strncmp(out, "8\n", 2) == 0 && strncmp(out + 2, "14659\n", 6) == 0,
	    "starting 2048 bytes before the end");
	free(out);

	/*
	 * A hook that leaves a process behind holding the pipe (a console, a
	 * daemon) still returns once it has exited, and what it left in its
	 * process group is ended; the alarm is the guard against a wait that
	 * never ends, not a measure of time.
	 */
	alarm(120);
	ok(boot_hook_output("t", "sleep 1000 & echo $!; echo started", 0, NULL, NULL, &out,
	    &st, &err) == 0 && st == 0, "a hook with a process left in the background returns");
	alarm(0);
	ok(out != NULL && strstr(out, "\nstarted\n") != NULL, "with what it printed");
	child = out != NULL ? (pid_t)atoi(out) : 0;
	ok(child > 1 && !tap_left(0, child), "... and what it left in its group is ended");
	if (child > 1)
		kill(child, SIGKILL);
	free(out);

	/*
	 * A hook that hangs past its timeout is ended with what it started:
	 * its shell, and the sleeping child that holds its output.
	 */
	out = NULL;
	alarm(120);
	t0 = time(NULL);
	ok(boot_hook_output("side A", "sleep 1000 & echo $!; echo $$; sleep 1000", 500, NULL,
	    NULL, &out, &st, &err) == -1 && err != NULL &&
	    strcmp(err, "side A hook: still running after 0.5 s: ended, with what it "
	    "started") == 0, "a hook past its timeout: -1, saying so");
	alarm(0);
	ok(time(NULL) - t0 < 30, "... ended at its deadline, not at its end");
	is_int(st, 128 + SIGTERM, "... by SIGTERM");
	free(err);
	err = NULL;
	ok(out == NULL, "... and no output handed back");

	/* The same through the echo file: the two pids it printed. */
	path2 = xasprintf("%s/hang", dir);
	f = fopen(path2, "w");
	alarm(120);
	ok(f != NULL && boot_hook("t", "sleep 1000 & echo $!; echo $$; sleep 1000", 300, f,
	    NULL, &st, &err) == -1, "a hook past its timeout, its output echoed");
	alarm(0);
	if (f != NULL)
		fclose(f);
	free(err);
	err = NULL;
	echo = tap_slurp(path2, &len);
	child = echo != NULL ? (pid_t)atoi(echo) : 0;
	shell = echo != NULL && strchr(echo, '\n') != NULL ?
	    (pid_t)atoi(strchr(echo, '\n') + 1) : 0;
	ok(child > 1 && shell > 1 && child != shell, "... which printed its two pids");
	ok(child > 1 && !tap_left(0, child), "... the child that sleeps is gone");
	ok(shell > 1 && !tap_left(0, shell), "... and the hook's shell");
	ok(shell > 1 && !tap_left(shell, 0), "... and nothing is left of its group");
	if (child > 1)
		kill(child, SIGKILL);
	free(echo);
	free(path2);

	/* A last line without its newline is a line. */
	ok(boot_hook("t", "printf 'FLEETMARK_EXPECT_KERNEL=no-newline'", 0, NULL, &expect, &st,
	    &err) == 0, "a last line without a newline");
	is_str(expect, "no-newline", "read as a line");
	free(expect);

	/* Nothing printed: an empty string, not NULL. */
	ok(boot_hook_output("t", "true", 0, NULL, NULL, &out, &st, &err) == 0 && out != NULL &&
	    *out == '\0', "no output: an empty string");
	free(out);

	/* Last, as a stop stays: a stop (^C, SIGTERM) ends a hook as its deadline does. */
	alarm(120);
	run_request_stop();
	ok(boot_hook("t", "sleep 1000", 0, NULL, NULL, &st, &err) == 0 &&
	    st == 128 + SIGTERM, "a stop ends a hook without a timeout: 128 + SIGTERM");
	alarm(0);
	free(err);
	return tap_done();
}
