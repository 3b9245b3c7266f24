/*
 * lat_proc: process creation, lmbench's "fork proc", "exec proc" and
 * "sh proc" columns (Processor, Processes).
 *
 *   fork   fork(); the child _exit()s at once; the parent waits for it.
 *   exec   fork(); the child execve()s a tiny program which exits at once;
 *          the parent waits.  The program is this agent itself in its
 *          `__exit` mode (lmbench execs its own "hello"), or /bin/true
 *          when the agent cannot be exec'd (under qemu-user without
 *          binfmt_misc, say).  A note names the program: a static or a
 *          dynamic binary makes a large difference.
 *   shell  fork(); the child runs /bin/sh -c "PROGRAM" with that program;
 *          the parent waits.
 *
 * Each operation is a whole create-run-reap cycle, reported in
 * microseconds.  The children get an empty environment, so the cost does
 * not depend on how large the caller's environment happens to be, and a
 * standard output on /dev/null, so nothing they might print can reach the
 * wire (lmbench closes it).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "bench.h"
#include "timing.h"
#include "wire.h"

#define SHELL		"/bin/sh"
#define FALLBACK_PROG	"/bin/true"

struct ctx {
	char	*path;		/* what the child execs */
	char	*argv[4];	/* its arguments, NULL-terminated */
	int	 null_fd;	/* becomes the child's standard output */
	int	 err;		/* errno of a failed fork or wait, or 0 */
	int	 bad_status;	/* the child did not exit 0; its status */
};

static char *const no_env[] = { NULL };

/* One create-run-reap cycle; exec 0 means fork and exit only. */
static void
cycle(struct ctx *c, int exec)
{
	int status;
	pid_t pid, w;

	if ((pid = fork()) < 0) {
		c->err = errno;
		return;
	}
	if (pid == 0) {
		if (!exec)
			_exit(0);
		(void)dup2(c->null_fd, 1);
		execve(c->path, c->argv, no_env);
		_exit(127);
	}
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0)
		c->err = errno;
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		c->bad_status = status ? status : -1;
}

static void
do_fork(uint64_t n, void *arg)
{
	struct ctx *c = arg;

	while (n-- && c->err == 0 && c->bad_status == 0)
		cycle(c, 0);
}

static void
do_exec(uint64_t n, void *arg)
{
	struct ctx *c = arg;

	while (n-- && c->err == 0 && c->bad_status == 0)
		cycle(c, 1);
}

/* Quote s for sh in single quotes into buf; -1 when it does not fit. */
static int
sh_quote(char *buf, size_t cap, const char *s)
{
	size_t o = 0;

	if (cap < 3)
		return -1;
	buf[o++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			if (o + 4 >= cap)
				return -1;
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			if (o + 1 >= cap)
				return -1;
			buf[o++] = *s;
		}
	}
	if (o + 2 > cap)
		return -1;
	buf[o++] = '\'';
	buf[o] = '\0';
	return 0;
}

/* Does the cycle work and the child exit 0?  One untimed cycle. */
static int
probe(struct ctx *c, int exec)
{
	c->err = c->bad_status = 0;
	cycle(c, exec);
	return c->err == 0 && c->bad_status == 0 ? 0 : -1;
}

/*
 * Find the tiny program: the agent itself (its `__exit` mode), else
 * /bin/true.  Fills prog (its path) and c->argv for a direct exec.
 */
static int
find_program(struct trial *t, struct ctx *c, char *prog, size_t cap)
{
	static char probe_arg[] = AGENT_EXEC_PROBE;
	ssize_t l;

	if ((l = readlink("/proc/self/exe", prog, cap - 1)) > 0) {
		prog[l] = '\0';
		c->path = c->argv[0] = prog;
		c->argv[1] = probe_arg;
		c->argv[2] = NULL;
		if (access(prog, X_OK) == 0 && probe(c, 1) == 0)
			return 0;
	}
	snprintf(prog, cap, "%s", FALLBACK_PROG);
	c->path = c->argv[0] = prog;
	c->argv[1] = NULL;
	if (access(prog, X_OK) == 0 && probe(c, 1) == 0)
		return 0;
	if (c->err != 0)
		return trial_error(t, WIRE_ERR_BENCH, "fork: %s", strerror(c->err));
	return trial_error(t, WIRE_ERR_UNSUPPORTED,
	    "no program to exec: neither this agent (/proc/self/exe) nor %s runs here",
	    FALLBACK_PROG);
}

static int
run(struct trial *t)
{
	const char *op = trial_str(t, "op");
	struct timing_opts o = { 0, 0, 0 };
	struct ctx c;
	char prog[PATH_MAX], cmd[2 * PATH_MAX + 16];
	static char sh_name[] = "sh", sh_c[] = "-c";
	static char shell_path[] = SHELL;
	int n = trial_samples(t), i, r = 0;
	timing_fn fn = do_exec;
	uint64_t iters;
	double *v = NULL;

	memset(&c, 0, sizeof(c));
	if ((c.null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "open /dev/null: %s",
		    strerror(errno));
	/*
	 * Cap the batch: on slow machines one exec costs tens of ms and a
	 * sample of one operation is already long enough to trust.
	 */
	if (strcmp(op, "fork") == 0) {
		fn = do_fork;
		o.max_iters = 1000;
		if (probe(&c, 0) != 0) {
			r = trial_error(t, WIRE_ERR_BENCH, "fork: %s", c.err ?
			    strerror(c.err) : "the child did not exit 0");
			goto out;
		}
	} else {
		o.max_iters = strcmp(op, "exec") == 0 ? 200 : 100;
		if ((r = find_program(t, &c, prog, sizeof(prog))) != 0)
			goto out;
		if (strcmp(op, "exec") == 0)
			trial_note(t, "exec runs %s%s%s", prog, c.argv[1] ? " " : "",
			    c.argv[1] ? c.argv[1] : "");
		else {
			size_t l;

			if (access(SHELL, X_OK) != 0) {
				r = trial_error(t, WIRE_ERR_UNSUPPORTED, "%s: %s", SHELL,
				    strerror(errno));
				goto out;
			}
			if (sh_quote(cmd, sizeof(cmd), prog) != 0) {
				r = trial_error(t, WIRE_ERR_BENCH, "program path too long: %s", prog);
				goto out;
			}
			if (c.argv[1] != NULL) {
				l = strlen(cmd);
				snprintf(cmd + l, sizeof(cmd) - l, " %s", c.argv[1]);
			}
			c.path = shell_path;
			c.argv[0] = sh_name;
			c.argv[1] = sh_c;
			c.argv[2] = cmd;
			c.argv[3] = NULL;
			if (probe(&c, 1) != 0) {
				r = trial_error(t, WIRE_ERR_UNSUPPORTED, "%s -c %s failed (wait "
				    "status %d)", SHELL, cmd, c.bad_status);
				goto out;
			}
			trial_note(t, "shell runs %s -c %s", SHELL, cmd);
		}
	}

	if ((v = calloc((size_t)n, sizeof(*v))) == NULL) {
		r = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	c.err = c.bad_status = 0;
	iters = timing_measure(t, fn, &c, &o, v, n);
	if (c.err != 0)
		r = trial_error(t, WIRE_ERR_BENCH, "%s: %s", fn == do_fork ? "fork" : "fork/wait",
		    strerror(c.err));
	else if (c.bad_status != 0)
		r = trial_error(t, WIRE_ERR_BENCH, "a child of op=%s did not exit 0 (wait "
		    "status %d)", op, c.bad_status);
	else if (iters == 0)
		r = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring op=%s", op);
	else {
		for (i = 0; i < n; i++)
			v[i] /= 1e3;
		trial_metric(t, "latency", v, n, iters);
	}
out:
	free(v);
	close(c.null_fd);
	return r;
}

static const struct bench_param params[] = {
	{ "op", PARAM_ENUM, "fork", "fork: fork+exit+wait; exec: fork+execve+wait; "
	    "shell: fork+/bin/sh -c+wait", "fork|exec|shell" },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per process created, run and reaped" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_proc, "cost of creating a process: fork, fork+exec, fork+sh -c",
    "lmbench lat_proc (Processes: fork proc, exec proc, sh proc)", params, metrics, run);
