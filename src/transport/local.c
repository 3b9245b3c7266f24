/*
 * transport/local.c: the local transport: this machine, no SSH.  Each
 * exec channel is `/bin/sh -c CMDLINE` in a process group of its own,
 * with pipes for its standard input, output and error; its end is
 * watched through a pidfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "transport.h"
#include "transport/transport-int.h"
#include "xmalloc.h"

struct lchan {
	pid_t	pid;
	int	in, out, err;	/* our ends; -1 once closed */
	int	pidfd;		/* -1 when pidfd_open is not available */
	int	reaped;
};

static void
close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static void
note_status(struct tchan *c, int ws)
{
	struct lchan *l = c->impl;

	l->reaped = 1;
	c->exit.exited = 1;
	if (WIFEXITED(ws)) {
		c->exit.status = WEXITSTATUS(ws);
	} else if (WIFSIGNALED(ws)) {
		c->exit.status = -1;
		snprintf(c->exit.signal, sizeof(c->exit.signal), "%s",
		    transport_signame(WTERMSIG(ws)));
		c->exit.core_dumped = WCOREDUMP(ws) ? 1 : 0;
	}
}

/* Reap the child if it has ended; 1 when it did now. */
static int
try_reap(struct tchan *c)
{
	struct lchan *l = c->impl;
	int ws;
	pid_t p;

	if (l->reaped)
		return 0;
	do
		p = waitpid(l->pid, &ws, WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == l->pid) {
		note_status(c, ws);
		close_fd(&l->pidfd);
		return 1;
	}
	if (p < 0) {	/* someone else reaped it: the status is lost */
		l->reaped = 1;
		c->exit.exited = 1;
		close_fd(&l->pidfd);
		return 1;
	}
	return 0;
}

static int
local_chan_open(struct tchan *c, const char *cmdline, long long deadline)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int errpipe[2] = { -1, -1 }, e = 0, r;
	struct lchan *l;
	ssize_t got;
	pid_t pid;

	(void)deadline;
	if (pipe2(pin, O_CLOEXEC) != 0 || pipe2(pout, O_CLOEXEC) != 0 ||
	    pipe2(perr, O_CLOEXEC) != 0 || pipe2(errpipe, O_CLOEXEC) != 0) {
		r = transport_fail(c->t, TRANSPORT_ELOCAL, "%s: cannot make pipes: %s",
		    c->t->name, strerror(errno));
		goto fail;
	}
	if ((pid = fork()) < 0) {
		r = transport_fail(c->t, TRANSPORT_ELOCAL, "%s: cannot fork: %s", c->t->name,
		    strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls from here on. */
		setpgid(0, 0);
		dup2(pin[0], STDIN_FILENO);
		dup2(pout[1], STDOUT_FILENO);
		dup2(perr[1], STDERR_FILENO);
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmdline, (char *)NULL);
		e = errno;
		(void)!write(errpipe[1], &e, sizeof(e));
		_exit(127);
	}
	close_fd(&pin[0]);
	close_fd(&pout[1]);
	close_fd(&perr[1]);
	close_fd(&errpipe[1]);
	do
		got = read(errpipe[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close_fd(&errpipe[0]);
	l = xcalloc(1, sizeof(*l));
	l->pid = pid;
	l->in = pin[1];
	l->out = pout[0];
	l->err = perr[0];
	c->impl = l;
	if (got == (ssize_t)sizeof(e)) {
		close_fd(&l->in);
		close_fd(&l->out);
		close_fd(&l->err);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		free(l);
		c->impl = NULL;
		return transport_fail(c->t, TRANSPORT_ELOCAL, "%s: cannot run /bin/sh: %s",
		    c->t->name, strerror(e));
	}
	fcntl(l->in, F_SETFL, fcntl(l->in, F_GETFL) | O_NONBLOCK);
	fcntl(l->out, F_SETFL, fcntl(l->out, F_GETFL) | O_NONBLOCK);
	fcntl(l->err, F_SETFL, fcntl(l->err, F_GETFL) | O_NONBLOCK);
#ifdef SYS_pidfd_open
	l->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (l->pidfd >= 0)
		fcntl(l->pidfd, F_SETFD, FD_CLOEXEC);
#else
	l->pidfd = -1;
#endif
	return 0;
fail:
	close_fd(&pin[0]);
	close_fd(&pin[1]);
	close_fd(&pout[0]);
	close_fd(&pout[1]);
	close_fd(&perr[0]);
	close_fd(&perr[1]);
	close_fd(&errpipe[0]);
	close_fd(&errpipe[1]);
	return r;
}

/* Read what is there from fd into b (as room allows); 1 if anything changed. */
static int
drain_fd(struct tchan *c, int *fd, struct tbuf *b)
{
	unsigned char tmp[16384];
	int changed = 0;
	size_t room;
	ssize_t n;

	while (*fd >= 0 && (room = tbuf_room(b)) > 0) {
		n = read(*fd, tmp, room < sizeof(tmp) ? room : sizeof(tmp));
		if (n > 0) {
			tbuf_put(b, tmp, (size_t)n);
			changed = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		/* End of file (or an error, which ends the stream as well). */
		close_fd(fd);
		b->eof = 1;
		changed = 1;
	}
	(void)c;
	return changed;
}

static int
drain(struct tchan *c)
{
	struct lchan *l = c->impl;
	int changed = 0;

	changed |= drain_fd(c, &l->out, &c->out);
	changed |= drain_fd(c, &l->err, &c->err);
	/* The exit matters once the output has ended (or if no pidfd). */
	if (!l->reaped && (l->pidfd >= 0 || (c->out.eof && c->err.eof)))
		changed |= try_reap(c);
	return changed;
}

/*
 * Wait until one of the streams we can take from, the child's end or
 * (with wfd >= 0) room in its input is ready.  Returns the poll result.
 */
static int
wait_ready(struct tchan *c, int wfd, long long deadline)
{
	struct lchan *l = c->impl;
	struct pollfd pfd[4];
	long long left;
	int n = 0, r;

	if (l->out >= 0 && tbuf_room(&c->out) > 0)
		pfd[n++] = (struct pollfd){ .fd = l->out, .events = POLLIN };
	if (l->err >= 0 && tbuf_room(&c->err) > 0)
		pfd[n++] = (struct pollfd){ .fd = l->err, .events = POLLIN };
	if (l->pidfd >= 0 && !l->reaped)
		pfd[n++] = (struct pollfd){ .fd = l->pidfd, .events = POLLIN };
	if (wfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = wfd, .events = POLLOUT };
	left = deadline - clock_mono_ms();
	if (left < 0)
		left = 0;
	/* Without a pidfd, look for the child's end now and then. */
	if (l->pidfd < 0 && !l->reaped && left > 50)
		left = 50;
	r = poll(pfd, (nfds_t)n, (int)left);
	if (r < 0 && errno == EINTR)
		r = 0;
	return r;
}

static int
local_chan_pump(struct tchan *c, long long deadline)
{
	struct lchan *l = c->impl;

	for (;;) {
		if (drain(c))
			return 1;
		if (c->out.eof && c->err.eof && l->reaped)
			return 0;
		if (clock_mono_ms() >= deadline)
			return TRANSPORT_EAGAIN;
		if (wait_ready(c, -1, deadline) < 0)
			return transport_fail(c->t, TRANSPORT_ELOCAL, "%s: poll: %s",
			    c->t->name, strerror(errno));
	}
}

/*
 * write() that turns a reader's absence into EPIPE without SIGPIPE for
 * the process: the signal is blocked in this thread around the write and
 * a pending one is consumed (the signal main.c decides about stays as it
 * is).
 */
static ssize_t
write_nosigpipe(int fd, const void *buf, size_t len)
{
	sigset_t pipe_set, old;
	struct timespec zero = { 0, 0 };
	ssize_t n;
	int e;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	n = write(fd, buf, len);
	e = errno;
	if (n < 0 && e == EPIPE && !sigismember(&old, SIGPIPE))
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return n;
}

static int
local_chan_write(struct tchan *c, const void *buf, size_t len, long long deadline)
{
	struct lchan *l = c->impl;
	const unsigned char *p = buf;
	ssize_t n;

	while (len > 0) {
		if (l->in < 0)
			return transport_fail(c->t, TRANSPORT_ELOST, "%s: input closed",
			    c->t->name);
		n = write_nosigpipe(l->in, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE)
			return transport_fail(c->t, TRANSPORT_EREMOTE,
			    "%s: the command ended before reading all its input", c->t->name);
		if (n < 0 && errno != EAGAIN)
			return transport_fail(c->t, TRANSPORT_ELOST,
			    "%s: command's input: %s", c->t->name, strerror(errno));
		/* Full: take its output meanwhile, so that it can go on. */
		drain(c);
		if (l->reaped && c->out.eof)
			return transport_fail(c->t, TRANSPORT_EREMOTE,
			    "%s: the command ended before reading all its input", c->t->name);
		if (clock_mono_ms() >= deadline)
			return transport_fail(c->t, TRANSPORT_ETIMEOUT,
			    "%s: timed out writing the command's input", c->t->name);
		wait_ready(c, l->in, deadline);
	}
	return 0;
}

static int
local_chan_close_stdin(struct tchan *c)
{
	struct lchan *l = c->impl;

	close_fd(&l->in);
	return 0;
}

static void
local_chan_free(struct tchan *c)
{
	struct lchan *l = c->impl;
	long long deadline;
	int sig = 0;

	if (l == NULL)
		return;
	close_fd(&l->in);
	close_fd(&l->out);
	close_fd(&l->err);
	/* Give it a moment to end on its own input's end, then insist. */
	deadline = clock_mono_ms() + 2000;
	while (!l->reaped) {
		if (try_reap(c))
			break;
		if (clock_mono_ms() >= deadline) {
			sig = sig == 0 ? SIGTERM : SIGKILL;
			kill(-l->pid, sig);
			kill(l->pid, sig);
			deadline = clock_mono_ms() + 1000;
		}
		if (l->pidfd >= 0) {
			struct pollfd pfd = { .fd = l->pidfd, .events = POLLIN };
			long long left = deadline - clock_mono_ms();

			poll(&pfd, 1, left > 0 ? (int)left : 0);
		} else
			clock_sleep_ms(10);
	}
	close_fd(&l->pidfd);
	free(l);
	c->impl = NULL;
}

static int
local_keepalive(struct transport *t)
{
	(void)t;
	return 0;
}

static void
local_close(struct transport *t)
{
	(void)t;
}

static const struct transport_ops local_ops = {
	local_chan_open,
	local_chan_write,
	local_chan_close_stdin,
	local_chan_pump,
	local_chan_free,
	local_keepalive,
	local_close,
};

int
transport_local_open(const struct transport_opts *o, struct transport **out,
    struct transport_info *info, char **err)
{
	struct transport *t = xcalloc(1, sizeof(*t));
	struct passwd *pw = getpwuid(geteuid());

	(void)err;
	t->ops = &local_ops;
	t->name = xstrdup(o->name != NULL ? o->name : "local");
	snprintf(info->user, sizeof(info->user), "%s", pw != NULL ? pw->pw_name : "?");
	snprintf(info->host, sizeof(info->host), "localhost");
	snprintf(info->auth, sizeof(info->auth), "local");
	info->attempts = 1;
	t->info = *info;
	*out = t;
	return 0;
}
