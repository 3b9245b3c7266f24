/*
 * proc.c: run a short local helper program, bounded in time and output,
 * and find the directory of the running executable.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "proc.h"
#include "xmalloc.h"

static int
exit_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 255;
}

/* Fork and exec argv; with outfd >= 0 its stdout goes there. */
static pid_t
spawn(char *const argv[], int null_stdin, int outfd, int closefd, char **err)
{
	int errpipe[2], e = 0;
	ssize_t got;
	pid_t pid;

	if (pipe2(errpipe, O_CLOEXEC) != 0)
		return err_set(err, -1, "cannot run %s: %s", argv[0], strerror(errno));
	if ((pid = fork()) < 0) {
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
	if (why != NULL)
		kill(pid, SIGKILL);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
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
