/*
 * test-proc.c: the process groups of src/proc.c: a child started with
 * proc_fork_group() is ended with everything it started, by
 * proc_group_end() and by proc_groups_end_all(); proc_capture() at its
 * deadline takes the helper's own children with it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "tap.h"

/* A group whose leader is a shell with a child that sleeps; its pid. */
static pid_t
start_tree(void)
{
	pid_t pid = proc_fork_group();

	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "sleep 60 & sleep 60; :", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* The shell's child exists: the tree is whole before it is ended. */
static void
wait_tree(pid_t pgid)
{
	struct timespec ts = { 0, 10 * 1000000L };
	char path[64], buf[256];
	int i;

	for (i = 0; i < 500; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pgid, (int)pgid);
		if ((f = fopen(path, "r")) != NULL) {
			int n = fgets(buf, sizeof(buf), f) != NULL && strchr(buf, ' ') != NULL;

			fclose(f);
			if (n)
				return;
		}
		nanosleep(&ts, NULL);
	}
}

int
main(void)
{
	const char *dir = tap_tmpdir("test-proc");
	char tmp[256], *cmd = NULL;
	char *argv[] = { (char *)"sh", (char *)"-c", NULL, NULL };
	char *out = NULL, *err = NULL;
	size_t len = 0;
	int st = 0, child = 0;
	FILE *f;
	pid_t pid;

	pid = start_tree();
	ok(pid > 0 && getpgid(pid) == pid, "proc_fork_group: the child leads a group of its own");
	wait_tree(pid);
	proc_group_end(pid, 0, &st);
	ok(WIFSIGNALED(st), "proc_group_end: the leader is ended and reaped");
	ok(!tap_left(pid, 0), "... and the child it started with it");

	pid = start_tree();
	wait_tree(pid);
	proc_groups_end_all();
	ok(!tap_left(pid, 0), "proc_groups_end_all: every recorded group is ended");
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	proc_group_del(pid);

	/* A helper that leaves a child of its own, its pid in a file. */
	if (dir == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s/child.pid", dir);
	if (asprintf(&cmd, "sleep 60 & echo $! >%s; exec sleep 60", tmp) < 0)
		return 1;
	argv[2] = cmd;
	ok(proc_capture(argv, 100, 1500, &out, &len, &st, &err) == -1 && err != NULL &&
	    strstr(err, "did not finish in time") != NULL, "proc_capture: a helper past its deadline");
	if ((f = fopen(tmp, "r")) != NULL) {
		if (fscanf(f, "%d", &child) != 1)
			child = 0;
		fclose(f);
	}
	ok(child > 0 && !tap_left(0, child), "... is ended with the child it started");
	unlink(tmp);
	free(cmd);
	free(out);
	free(err);
	return tap_done();
}
