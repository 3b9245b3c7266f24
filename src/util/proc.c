/*
 * proc.c: run a short local helper program, bounded in time and output;
 * the registry of the process groups fleetmark starts, ended at their
 * deadlines and on every way out; the directory of the running executable.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "proc.h"
#include "xmalloc.h"

/* --- process groups ------------------------------------------------------------ */

/*
 * The live groups: a slot is 0 or a pgid.  Plain atomics, no lock, so
 * that a signal handler can walk it while a thread adds a group.
 */
static pid_t groups[PROC_GROUPS_MAX];

int
proc_group_add(pid_t pgid)
{
	size_t i;
	pid_t zero;

	for (i = 0; i < PROC_GROUPS_MAX; i++) {
		zero = 0;
		if (__atomic_compare_exchange_n(&groups[i], &zero, pgid, 0, __ATOMIC_SEQ_CST,
		    __ATOMIC_SEQ_CST))
			return 0;
	}
	return -1;
}

void
proc_group_del(pid_t pgid)
{
	size_t i;
	pid_t want;

	if (pgid <= 0)
		return;
	for (i = 0; i < PROC_GROUPS_MAX; i++) {
		want = pgid;
		if (__atomic_compare_exchange_n(&groups[i], &want, 0, 0, __ATOMIC_SEQ_CST,
		    __ATOMIC_SEQ_CST))
			return;
	}
}

pid_t
proc_fork_group(void)
{
	sigset_t block, old;
	pid_t pid;
	int e;

	/* No fatal-signal handler may run between fork() and the record. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 0;
	}
	e = errno;
	if (pid > 0) {
		/* Both sides set it: whichever runs first, the group exists. */
		setpgid(pid, pid);
		proc_group_add(pid);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return pid;
}

static void
nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void
proc_group_end(pid_t pid, long long grace_ms, int *status)
{
	long long deadline = clock_mono_ms() + grace_ms;
	siginfo_t si;
	int sig = 0, ws = 0;

	if (pid <= 0)
		return;
	for (;;) {
		/* WNOWAIT: the leader's zombie keeps the group's number ours. */
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
			if (errno == EINTR)
				continue;
			/* Not our child (any more): the number may be another's now. */
			proc_group_del(pid);
			return;
		}
		if (si.si_pid == pid)
			break;
		if (clock_mono_ms() >= deadline) {
			sig = sig == 0 ? SIGTERM : SIGKILL;
			kill(-pid, sig);
			deadline = clock_mono_ms() + (sig == SIGTERM ? PROC_GRACE_MS : 1000);
		}
		nap_ms(10);
	}
	/* The leader is done; what it started has no one left to serve. */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	proc_group_del(pid);
	if (status != NULL)
		*status = ws;
}

/* Is a member of any registered group (a zombie leader included) left? */
static int
groups_alive(void)
{
	size_t i;
	pid_t g;

	for (i = 0; i < PROC_GROUPS_MAX; i++)
		if ((g = __atomic_load_n(&groups[i], __ATOMIC_SEQ_CST)) > 0 &&
		    (kill(-g, 0) == 0 || errno == EPERM))
			return 1;
	return 0;
}

static void
signal_groups(int sig)
{
	size_t i;
	pid_t g;

	for (i = 0; i < PROC_GROUPS_MAX; i++)
		if ((g = __atomic_load_n(&groups[i], __ATOMIC_SEQ_CST)) > 0)
			kill(-g, sig);
}

void
proc_groups_end_all(void)
{
	int saved = errno, i;

	if (!groups_alive())
		goto out;
	signal_groups(SIGTERM);
	for (i = 0; i < PROC_GRACE_MS / 10 && groups_alive(); i++)
		nap_ms(10);
	signal_groups(SIGKILL);
out:
	errno = saved;
}

static void
end_all_at_exit(void)
{
	proc_groups_end_all();
}

/* A fatal signal: end the groups, then die of the signal as before. */
static void
on_fatal_signal(int sig)
{
	proc_groups_end_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
proc_groups_on_exit(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	atexit(end_all_at_exit);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* A signal ignored by whoever started us stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* --- short helpers ------------------------------------------------------------ */

static int
exit_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 255;
}

/*
 * Fork and exec argv; with outfd >= 0 its stdout goes there.  With
 * null_stdin it has no terminal input to share, and so a process group of
 * its own (proc_fork_group()); else it stays in ours, where the
 * terminal's ^C reaches it.
 */
static pid_t
spawn(char *const argv[], int null_stdin, int outfd, int closefd, char **err)
{
	int errpipe[2], e = 0;
	ssize_t got;
	pid_t pid;

	if (pipe2(errpipe, O_CLOEXEC) != 0)
		return err_set(err, -1, "cannot run %s: %s", argv[0], strerror(errno));
	if ((pid = null_stdin ? proc_fork_group() : fork()) < 0) {
		*err = xasprintf("cannot run %s: %s", argv[0], strerror(errno));
		close(errpipe[0]);
		close(errpipe[1]);
		return -1;
	}
	if (pid == 0) {
		int fd;

		if (null_stdin && (fd = open("/dev/null", O_RDONLY)) >= 0) {
			dup2(fd, STDIN_FILENO);
			if (fd != STDIN_FILENO)
				close(fd);
		}
		if (outfd >= 0) {
			dup2(outfd, STDOUT_FILENO);
			if (outfd != STDOUT_FILENO)
				close(outfd);
		}
		if (closefd >= 0)
			close(closefd);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		e = errno;
		(void)!write(errpipe[1], &e, sizeof(e));
		_exit(127);
	}
	close(errpipe[1]);
	do
		got = read(errpipe[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close(errpipe[0]);
	if (got == (ssize_t)sizeof(e)) {
		int ws;

		if (null_stdin)
			proc_group_end(pid, 1000, &ws);
		else
			while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
				;
		*err = xasprintf("cannot run %s: %s", argv[0], strerror(e));
		return -1;
	}
	return pid;
}

int
proc_capture(char *const argv[], size_t max, int timeout_ms, char **out,
    size_t *outlen, int *status, char **err)
{
	int fds[2], ws, r = -1;
	char *buf = NULL;
	size_t len = 0;
	long long deadline = clock_mono_ms() + timeout_ms;
	pid_t pid;
	const char *why = NULL;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return err_set(err, -1, "cannot run %s: %s", argv[0], strerror(errno));
	if ((pid = spawn(argv, 1, fds[1], fds[0], err)) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	close(fds[1]);
	buf = xmalloc(max + 1);
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		long long left = deadline - clock_mono_ms();
		ssize_t got;

		if (left <= 0) {
			why = "did not finish in time";
			break;
		}
		if (poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) < 0) {
			if (errno == EINTR)
				continue;
			why = "poll failed";
			break;
		}
		if (pfd.revents == 0)
			continue;
		got = read(fds[0], buf + len, max + 1 - len);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
		if (len > max) {
			why = "printed too much";
			break;
		}
	}
	close(fds[0]);
	{
		long long left = deadline - clock_mono_ms();

		/* At its deadline (or when it said too much) the whole group ends. */
		proc_group_end(pid, why != NULL || left < 0 ? 0 : left, &ws);
	}
	if (why != NULL) {
		*err = xasprintf("%s %s", argv[0], why);
		free(buf);
		goto done;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	*status = exit_status(ws);
	r = 0;
done:
	return r;
}

int
proc_run(char *const argv[], int *status, char **err)
{
	int ws;
	pid_t pid;

	if ((pid = spawn(argv, 0, -1, -1, err)) < 0)
		return -1;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return err_set(err, -1, "waiting for %s: %s", argv[0], strerror(errno));
	*status = exit_status(ws);
	return 0;
}

char *
proc_exe_dir(void)
{
	char buf[PATH_MAX + 1], *slash;
	ssize_t n = readlink("/proc/self/exe", buf, PATH_MAX);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if ((slash = strrchr(buf, '/')) == NULL)
		return NULL;
	if (slash == buf)
		slash++;
	*slash = '\0';
	return xstrdup(buf);
}
