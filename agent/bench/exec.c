/*
 * exec: a shell workload run as N concurrent copies, the way the 2002
 * multi-user script benchmark ran 200 scripts at once on a 24-way box to
 * load the dcache, the page cache and process creation all together.
 *
 * One sample starts `copies` processes of /bin/sh -c COMMAND at once and
 * waits for all of them; it is timed from the first fork to the last exit.
 *   seconds        that elapsed time
 *   runs_per_hour  copies x 3600 / seconds
 * One run before the samples is discarded: it fills the caches the first
 * run would otherwise pay for alone, and it checks the command.
 *
 * The command reaches sh as one argument of execv(), never through a
 * string built here, so whatever it contains ($(...), quotes, `;`,
 * newlines) is interpreted by that sh exactly as written.  Copies run in
 * the trial's scratch directory with stdin and stdout on /dev/null (stdout
 * is the trial's result stream) and stderr in a file per copy there.  A
 * copy that exits non-zero fails the trial with its status and the start
 * of its stderr.  Copies stay in the trial's process group, so the
 * supervisor's kill at the deadline reaches them and whatever they
 * started; each also gets SIGKILL if the trial process dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

#define SHELL		"/bin/sh"
#define MAX_COPIES	10000
#define STDERR_KEEP	200	/* bytes of a failed copy's stderr in the message */

static void
err_name(char *buf, size_t cap, int i)
{
	snprintf(buf, cap, "exec-stderr.%d", i);
}

/* In the child: become one copy of the command, or exit 127. */
static void
copy_exec(const char *command, int i, pid_t trial_pid)
{
	char *argv[4], name[32];
	int fd;

	ipc_die_with(trial_pid, 127);
	err_name(name, sizeof(name), i);
	if ((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 || dup2(fd, 2) < 0)
		_exit(127);
	if (fd != 2)
		close(fd);
	if ((fd = open("/dev/null", O_RDWR)) < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
		_exit(127);
	if (fd > 2)
		close(fd);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = (char *)command;
	argv[3] = NULL;
	execv(SHELL, argv);
	dprintf(2, "exec %s: %s\n", SHELL, strerror(errno));
	_exit(127);
}

/* The first bytes of copy i's stderr, made printable, into buf. */
static void
read_stderr(int i, char *buf, size_t cap)
{
	char name[32];
	ssize_t n;
	size_t k;
	int fd;

	buf[0] = '\0';
	err_name(name, sizeof(name), i);
	if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	for (k = 0; k < (size_t)n; k++)
		if ((unsigned char)buf[k] < 0x20 || buf[k] == 0x7f)
			buf[k] = ' ';
}

/*
 * Run the copies once and wait for all of them.  Returns 0 with the
 * elapsed time in *ns, or the value of trial_error().
 */
static int
run_copies(struct trial *t, const char *command, pid_t *pid, int copies, double *ns)
{
	int i, started, left, status, failed = -1, fstatus = 0, e = 0;
	char errbuf[STDERR_KEEP + 1];
	pid_t self = getpid(), p;
	double t0;

	t0 = timing_now();
	for (started = 0; started < copies; started++) {
		if ((p = fork()) < 0) {
			e = errno;
			break;
		}
		if (p == 0)
			copy_exec(command, started, self);
		pid[started] = p;
	}
	if (e != 0)
		for (i = 0; i < started; i++)
			kill(pid[i], SIGKILL);
	for (left = started; left > 0;) {
		if ((p = waitpid(-1, &status, 0)) < 0) {
			if (errno == EINTR)
				continue;
			break;	/* ECHILD: nothing left to wait for */
		}
		for (i = 0; i < started && pid[i] != p; i++)
			;
		if (i == started)
			continue;	/* not a copy (there are none, but be exact) */
		pid[i] = 0;
		left--;
		if (failed < 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			failed = i;
			fstatus = status;
		}
	}
	*ns = timing_now() - t0;
	if (e != 0)
		return trial_error(t, WIRE_ERR_BENCH, "fork of copy %d of %d: %s", started + 1, copies,
		    strerror(e));
	if (failed < 0)
		return 0;
	read_stderr(failed, errbuf, sizeof(errbuf));
	if (WIFEXITED(fstatus))
		return trial_error(t, WIRE_ERR_BENCH, "copy %d of %d exited with status %d%s%s",
		    failed + 1, copies, WEXITSTATUS(fstatus), errbuf[0] ? "; stderr: " : "", errbuf);
	return trial_error(t, WIRE_ERR_BENCH, "copy %d of %d killed by signal %d (%s)%s%s",
	    failed + 1, copies, WTERMSIG(fstatus), strsignal(WTERMSIG(fstatus)),
	    errbuf[0] ? "; stderr: " : "", errbuf);
}

static void
note_shell(struct trial *t)
{
	char target[256];
	ssize_t n;

	if ((n = readlink(SHELL, target, sizeof(target) - 1)) > 0) {
		target[n] = '\0';
		trial_note(t, "%s is %s", SHELL, target);
	}
}

static int
run(struct trial *t)
{
	const char *command = trial_str(t, "command");
	long long copies = trial_int(t, "copies");
	int n = trial_samples(t), i, rc = 0;
	double *secs = NULL, *rph = NULL, ns;
	char name[32];
	pid_t *pid = NULL;

	if (copies < 1 || copies > MAX_COPIES)
		return trial_error(t, WIRE_ERR_REQUEST, "copies must be 1 to %d", MAX_COPIES);
	if (command[0] == '\0')
		return trial_error(t, WIRE_ERR_BENCH, "command is empty");
	if (access(SHELL, X_OK) != 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "%s: %s", SHELL, strerror(errno));
	pid = calloc((size_t)copies, sizeof(*pid));
	secs = malloc(sizeof(*secs) * (size_t)n);
	rph = malloc(sizeof(*rph) * (size_t)n);
	if (pid == NULL || secs == NULL || rph == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	note_shell(t);
	for (i = -1; i < n; i++) {	/* run -1 warms up */
		if (trial_expired(t)) {
			rc = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached after %d samples",
			    i < 0 ? 0 : i);
			goto out;
		}
		if ((rc = run_copies(t, command, pid, (int)copies, &ns)) != 0)
			goto out;
		if (i >= 0) {
			secs[i] = ns / 1e9;
			rph[i] = (double)copies * 3600.0 / secs[i];
		}
	}
	trial_metric(t, "runs_per_hour", rph, n, (uint64_t)copies);
	trial_metric(t, "seconds", secs, n, (uint64_t)copies);
out:
	for (i = 0; pid != NULL && i < copies; i++) {
		err_name(name, sizeof(name), i);
		unlink(name);
	}
	free(pid);
	free(secs);
	free(rph);
	return rc;
}

static const struct bench_param params[] = {
	{ "command", PARAM_STR,
	  "find /usr/include -name '*.h' | xargs cat > /dev/null; ps ax > /dev/null",
	  "shell command each copy runs with /bin/sh -c, in the scratch directory", NULL },
	{ "copies", PARAM_CPUS, "1", "copies run at once", "1..10000" },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "runs_per_hour", "runs/h", 1, "copies x 3600 / seconds" },
	{ "seconds", "s", 0, "time from starting the copies to the last one's exit" },
	{ NULL, NULL, 0, NULL }
};

BENCH(exec, "a shell command run as N concurrent copies, runs per hour",
    "the 2002 multi-user script benchmark (200 scripts on a 24-way ppc64)", params, metrics, run);
