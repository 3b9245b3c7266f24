/*
 * lat_proc: process creation, lmbench's "fork proc", "exec proc" and
 * "sh proc" columns (Processor, Processes).
 *
 *   fork   fork(); the child exit()s at once, through the C library's
 *          exit() as lmbench's does; the parent waits for it.
 *   exec   fork(); the child execve()s a tiny program which exits at once;
 *          the parent waits.
 *   shell  fork(); the child runs /bin/sh -c PROGRAM with that program;
 *          the parent waits.
 *
 * What is exec'd decides these numbers more than anything else.  lmbench
 * execs /tmp/hello, its hello.c (write a line, return from main) built as a
 * small dynamically linked program: the kernel maps it and the dynamic
 * loader, which maps and relocates the C library before main runs.  With
 * image=dynamic (the default) the agent execs the host's `true` (/bin/true
 * or /usr/bin/true) when it is a dynamically linked ELF: the same work, a
 * program of tens of KB with the C library as its only library.  A host
 * without one (a board whose programs are all static, no dynamic loader)
 * execs what there is, and a note says it is statically linked, unlike
 * lmbench's hello.  image=agent execs this agent itself in its `__exit`
 * mode instead (static where the agent is: the cost of exec alone, no
 * loader), the agent's choice before it followed lmbench.  A note always
 * names the program, its size and its linking.
 *
 * What is forked is this process.  lmbench forks its lat_proc, a small
 * dynamically linked program (about 24 mappings); a statically linked
 * agent has fewer mappings to copy and forks faster, which no parameter
 * can change, so a note says so when the agent is static.
 *
 * Each operation is a whole create-run-reap cycle, reported in
 * microseconds.  As lmbench's, the exec'd program gets an empty
 * environment (lmbench passes none to execve()) and the shell the agent's
 * own (lmbench's execlp() passes its caller's), and both a standard
 * output on /dev/null, so nothing they might print can reach the wire
 * (lmbench closes it).
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
#include "facts.h"
#include "timing.h"
#include "wire.h"

#define SHELL		"/bin/sh"

/* The host's small dynamically linked programs, in order of preference. */
static const char *const true_progs[] = { "/bin/true", "/usr/bin/true", NULL };

struct ctx {
	char	*path;		/* what the child execs */
	char	*argv[4];	/* its arguments, NULL-terminated */
	char *const *env;	/* its environment */
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
			exit(0);	/* as lmbench's child: the C library's exit */
		(void)dup2(c->null_fd, 1);
		execve(c->path, c->argv, c->env);
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

/* A word sh takes as it is: lmbench's `sh -c /tmp/hello` quotes nothing. */
static int
sh_plain(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("/._-+", *s) != NULL))
			return 0;
	return 1;
}

/* Does the cycle work and the child exit 0?  One untimed cycle. */
static int
probe(struct ctx *c, int exec)
{
	c->err = c->bad_status = 0;
	cycle(c, exec);
	return c->err == 0 && c->bad_status == 0 ? 0 : -1;
}

/* Point c at prog (argv: prog, then arg when not NULL) if it runs and exits 0. */
static int
try_program(struct ctx *c, char *prog, char *arg)
{
	c->path = c->argv[0] = prog;
	c->env = no_env;
	c->argv[1] = arg;
	c->argv[2] = NULL;
	return access(prog, X_OK) == 0 && probe(c, 1) == 0 ? 0 : -1;
}

/* "dynamically linked, 35 KB" for the note on the program at path. */
static void
describe(const char *path, char *buf, size_t cap)
{
	long long size = -1;
	int dyn = facts_elf_dynamic(path, &size);
	const char *how = dyn == 1 ? "dynamically linked" : dyn == 0 ?
	    "statically linked" : "not an ELF file";

	if (size >= 0)
		snprintf(buf, cap, "%s, %lld KB", how, (size + 1023) / 1024);
	else
		snprintf(buf, cap, "%s", how);
}

/* The agent itself (its `__exit` mode): 0, or -1 when it cannot be exec'd. */
static int
try_agent(struct ctx *c, char *prog, size_t cap)
{
	static char probe_arg[] = AGENT_EXEC_PROBE;
	ssize_t l;

	if ((l = readlink("/proc/self/exe", prog, cap - 1)) <= 0)
		return -1;
	prog[l] = '\0';
	return try_program(c, prog, probe_arg);
}

/*
 * Find the program to exec and note it: for image=dynamic the first
 * dynamically linked `true` that runs, else the first `true` that runs,
 * else the agent; for image=agent the agent, else the first `true`.  Fills
 * prog (its path) and c->argv.  Returns 0 or the value of trial_error().
 */
static int
find_program(struct trial *t, struct ctx *c, char *prog, size_t cap, int agent)
{
	char what[64];
	int i, pass;

	if (agent && try_agent(c, prog, cap) == 0)
		goto found;
	/* pass 0: a dynamically linked true; pass 1: any true */
	for (pass = agent ? 1 : 0; pass < 2; pass++)
		for (i = 0; true_progs[i] != NULL; i++) {
			if (pass == 0 && facts_elf_dynamic(true_progs[i], NULL) != 1)
				continue;
			snprintf(prog, cap, "%s", true_progs[i]);
			if (try_program(c, prog, NULL) == 0)
				goto found;
		}
	if (!agent && try_agent(c, prog, cap) == 0)
		goto found;
	if (c->err != 0)
		return trial_error(t, WIRE_ERR_BENCH, "fork: %s", strerror(c->err));
	return trial_error(t, WIRE_ERR_UNSUPPORTED,
	    "no program to exec: neither %s, %s nor this agent (/proc/self/exe) runs here",
	    true_progs[0], true_progs[1]);
found:
	describe(prog, what, sizeof(what));
	trial_note(t, "exec runs %s%s%s (%s)", prog, c->argv[1] ? " " : "",
	    c->argv[1] ? c->argv[1] : "", what);
	if (facts_elf_dynamic(prog, NULL) != 1)
		trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "%s: lmbench execs a dynamically "
		    "linked hello, which also runs the dynamic loader", agent ?
		    "image=agent execs the agent itself" : "no dynamically linked program to "
		    "exec here");
	else if (agent)
		trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "image=agent execs the agent itself, "
		    "not a small program like lmbench's hello");
	return 0;
}

/* Build c->argv for SHELL -c PROGRAM [ARG] around the program found. */
static int
to_shell(struct trial *t, struct ctx *c, char *cmd, size_t cap)
{
	static char sh_name[] = "sh", sh_c[] = "-c";
	static char shell_path[] = SHELL;
	size_t l;

	if (access(SHELL, X_OK) != 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "%s: %s", SHELL, strerror(errno));
	if (sh_plain(c->path)) {
		if (snprintf(cmd, cap, "%s", c->path) >= (int)cap)
			return trial_error(t, WIRE_ERR_BENCH, "program path too long: %s", c->path);
	} else if (sh_quote(cmd, cap, c->path) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "program path too long: %s", c->path);
	if (c->argv[1] != NULL) {
		l = strlen(cmd);
		snprintf(cmd + l, cap - l, " %s", c->argv[1]);
	}
	c->path = shell_path;
	c->env = environ;
	c->argv[0] = sh_name;
	c->argv[1] = sh_c;
	c->argv[2] = cmd;
	c->argv[3] = NULL;
	if (probe(c, 1) != 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "%s -c %s failed (wait status %d)",
		    SHELL, cmd, c->bad_status);
	trial_note(t, "shell runs %s -c %s with the agent's environment, as lmbench's "
	    "with its caller's", SHELL, cmd);
	return 0;
}

static int
run(struct trial *t)
{
	const char *op = trial_str(t, "op");
	int agent = strcmp(trial_str(t, "image"), "agent") == 0;
	struct timing_opts o = { 0, 0, 0 };
	struct ctx c;
	char prog[PATH_MAX], cmd[2 * PATH_MAX + 16];
	int n = trial_samples(t), i, r = 0;
	timing_fn fn = do_exec;
	uint64_t iters;
	double *v = NULL;

	memset(&c, 0, sizeof(c));
	if ((c.null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "open /dev/null: %s",
		    strerror(errno));
	if (facts_elf_dynamic("/proc/self/exe", NULL) == 0)
		trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "the agent is statically linked: it has "
		    "fewer mappings to copy than lmbench's dynamically linked lat_proc, and "
		    "forks faster");
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
		if ((r = find_program(t, &c, prog, sizeof(prog), agent)) != 0)
			goto out;
		if (strcmp(op, "shell") == 0 && (r = to_shell(t, &c, cmd, sizeof(cmd))) != 0)
			goto out;
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
	{ "image", PARAM_ENUM, "dynamic", "what exec and shell run: dynamic: the host's "
	    "true, dynamically linked, as lmbench's hello; agent: this agent itself",
	    "dynamic|agent" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per process created, run and reaped" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_proc, "cost of creating a process: fork, fork+exec, fork+sh -c",
    "lmbench lat_proc (Processes: fork proc, exec proc, sh proc)", params, metrics, run);
