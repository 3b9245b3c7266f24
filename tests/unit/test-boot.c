/*
 * test-boot.c: boot_hook() and boot_hook_output() (boot.h) with real
 * commands through /bin/sh: the exit status (and 128 + a signal), the
 * FLEETMARK_EXPECT_KERNEL= line (the last one wins, an empty one clears
 * it), the environment passed on, the output echoed line by line, and the
 * output kept for a reason: standard error too, cut to its last
 * BOOT_OUTPUT_MAX bytes; a hook that leaves a process behind holding its
 * output returns all the same.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "tap.h"
#include "xmalloc.h"

int
main(void)
{
	const char *dir = tap_tmpdir("boot");
	char *expect = NULL, *out = NULL, *err = NULL, *path, *echo;
	size_t len;
	FILE *f;
	int st = -1;

	/* The status, and the expect line: the last one counts. */
	ok(boot_hook("t", "echo FLEETMARK_EXPECT_KERNEL=one; echo FLEETMARK_EXPECT_KERNEL=two; "
	    "exit 3", NULL, &expect, &st, &err) == 0, "a hook that fails still ran");
	is_int(st, 3, "its exit status");
	is_str(expect, "two", "the last FLEETMARK_EXPECT_KERNEL= line");

	/* An empty one clears what was expected; a line not at the start is no line. */
	ok(boot_hook("t", "echo FLEETMARK_EXPECT_KERNEL=; echo x FLEETMARK_EXPECT_KERNEL=y",
	    NULL, &expect, &st, &err) == 0 && st == 0, "a hook that succeeds");
	ok(expect == NULL, "an empty FLEETMARK_EXPECT_KERNEL= clears it");

	/* A CR LF line: the CR is not part of the string. */
	ok(boot_hook("t", "printf 'FLEETMARK_EXPECT_KERNEL=6.7.0-rc1\\r\\n'", NULL, &expect,
	    &st, &err) == 0, "a CR LF line");
	is_str(expect, "6.7.0-rc1", "without its CR");
	free(expect);
	expect = NULL;

	/* Killed by a signal: 128 + the signal. */
	ok(boot_hook("t", "kill -TERM $$", NULL, NULL, &st, &err) == 0, "a hook killed");
	is_int(st, 128 + SIGTERM, "128 + SIGTERM");

	/* The environment is the caller's. */
	setenv("FLEETMARK_SIDE", "B", 1);
	ok(boot_hook_output("t", "echo side=$FLEETMARK_SIDE", NULL, NULL, &out, &st, &err) == 0,
	    "the environment");
	is_str(out, "side=B\n", "FLEETMARK_SIDE passed on");
	free(out);

	/* Echoed line by line, and both streams kept for the reason. */
	path = xasprintf("%s/echo", dir);
	f = fopen(path, "w");
	ok(f != NULL, "the echo file");
	ok(boot_hook_output("t", "echo to-out; echo to-err >&2; exit 1", f, NULL, &out, &st,
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
	    NULL, NULL, &out, &st, &err) == 0, "a long output");
	is_int(strlen(out), BOOT_OUTPUT_MAX, "cut to BOOT_OUTPUT_MAX bytes");
	ok(strlen(out) >= 6 && strcmp(out + strlen(out) - 6, "14999\n") == 0,
	    "ending with the last line");
	/* 2048 = 341 lines of 6 bytes (14659 to 14999) and the end of 14658 */
	ok(strncmp(out, "8\n", 2) == 0 && strncmp(out + 2, "14659\n", 6) == 0,
	    "starting 2048 bytes before the end");
	free(out);

	/*
	 * A hook that leaves a process behind holding the pipe (a console, a
	 * daemon) still returns once it has exited; the alarm is the guard
	 * against a wait that never ends, not a measure of time.
	 */
	alarm(120);
	ok(boot_hook_output("t", "sleep 1000 & echo $!; echo started", NULL, NULL, &out, &st,
	    &err) == 0 && st == 0, "a hook with a process left in the background returns");
	alarm(0);
	ok(out != NULL && strstr(out, "\nstarted\n") != NULL, "with what it printed");
	if (out != NULL && atoi(out) > 1)
		kill((pid_t)atoi(out), SIGKILL);
	free(out);

	/* A last line without its newline is a line. */
	ok(boot_hook("t", "printf 'FLEETMARK_EXPECT_KERNEL=no-newline'", NULL, &expect, &st,
	    &err) == 0, "a last line without a newline");
	is_str(expect, "no-newline", "read as a line");
	free(expect);

	/* Nothing printed: an empty string, not NULL. */
	ok(boot_hook_output("t", "true", NULL, NULL, &out, &st, &err) == 0 && out != NULL &&
	    *out == '\0', "no output: an empty string");
	free(out);
	free(err);
	return tap_done();
}
