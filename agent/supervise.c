/*
 * supervise.c: run one trial in a fresh child and stand guard over it.
 *
 * Every trial gets a new process (a clean address space, as with separate
 * lmbench programs), its own process group and its own scratch directory.
 * The supervisor forwards the child's lines whole, interleaving heartbeats
 * between them; it kills the whole group at the deadline, when the control
 * stream closes or when the agent is told to stop; and it removes the
 * scratch directory whatever happened.  With PR_SET_CHILD_SUBREAPER the
 * agent also adopts and reaps anything the benchmark left orphaned, so no
 * process outlives the trial.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "agent.h"
#include "jline.h"
#include "timing.h"

static int sig_fds[2] = { -1, -1 };
static volatile sig_atomic_t stopping;
static int silenced;		/* stopping because the controller went silent */

static void
on_signal(int sig)
{
	int saved = errno;

	stopping = sig;
	if (sig_fds[1] >= 0)
		(void)!write(sig_fds[1], "x", 1);
	errno = saved;
}

/* A child changed state: wake the poll loop (no flag: not a stop request). */
static void
on_child(int sig)
{
	int saved = errno;

	(void)sig;
	if (sig_fds[1] >= 0)
		(void)!write(sig_fds[1], "c", 1);
	errno = saved;
}

void
supervise_signals(void)
{
	struct sigaction sa;
	int i;

	if (sig_fds[0] >= 0) {		/* again, in a detached agent */
		close(sig_fds[0]);
		close(sig_fds[1]);
	}
	if (pipe(sig_fds) == 0) {
		for (i = 0; i < 2; i++) {
			fcntl(sig_fds[i], F_SETFL, O_NONBLOCK);
			fcntl(sig_fds[i], F_SETFD, FD_CLOEXEC);
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
#ifdef PR_SET_CHILD_SUBREAPER
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
}

int
supervise_stopping(void)
{
	return stopping != 0;
}

void
supervise_silence(void)
{
	if (silenced)
		return;
	silenced = 1;
	stopping = SIGALRM;
	signal(SIGALRM, SIG_DFL);
	alarm(AGENT_GOODBYE);
}

int
supervise_silenced(void)
{
	return silenced;
}

int
supervise_signal_fd(void)
{
	return sig_fds[0];
}

void
supervise_drain_signals(void)
{
	char drain[16];

	if (sig_fds[0] >= 0)
		while (read(sig_fds[0], drain, sizeof(drain)) > 0)
			;
}

void
input_init(struct input *in, int fd)
{
	in->fd = fd;
	in->len = 0;
	in->eof = 0;
	in->toolong = 0;
	in->idle = 0;
	in->heard = timing_now();
}

int
input_fill(struct input *in)
{
	ssize_t r;

	if (in->eof)
		return -1;
	if (in->len >= WIRE_MAX_LINE) {
		/* full without a newline: drop it, remember to skip the rest */
		in->len = 0;
		in->toolong = 1;
	}
	r = read(in->fd, in->buf + in->len, WIRE_MAX_LINE - in->len);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0) {
		in->eof = 1;
		return -1;
	}
	in->len += (size_t)r;
	in->heard = timing_now();
	if (in->idle > 0)
		lease_heard();
	return 0;
}

int
input_silent(struct input *in)
{
	struct pollfd pfd;

	if (in == NULL || in->idle <= 0 || in->eof || timing_now() - in->heard < in->idle ||
	    in->len >= WIRE_MAX_LINE)
		return 0;
	/* a busy agent (perf report, a long env) may not have looked: look */
	pfd.fd = in->fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) > 0) {
		input_fill(in);
		return 0;
	}
	return 1;
}

long
input_line(struct input *in, char *line, size_t cap)
{
	char *nl;
	size_t n;

	for (;;) {
		if ((nl = memchr(in->buf, '\n', in->len)) == NULL)
			return 0;
		n = (size_t)(nl - in->buf);
		if (in->toolong) {
			memmove(in->buf, nl + 1, in->len - n - 1);
			in->len -= n + 1;
			in->toolong = 0;
			return -1;
		}
		if (n + 1 > cap) {
			memmove(in->buf, nl + 1, in->len - n - 1);
			in->len -= n + 1;
			return -1;
		}
		memcpy(line, in->buf, n);
		line[n] = '\0';
		memmove(in->buf, nl + 1, in->len - n - 1);
		in->len -= n + 1;
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		if (n == 0)
			continue;	/* blank lines are keep-alives */
		return (long)n;
	}
}

/* Lines from the trial child, forwarded whole. */
struct relay {
	char	buf[WIRE_MAX_LINE + 1];
	size_t	len;
	int	skipping;	/* inside a line that was too long */
	int	broken;		/* writing to out_fd failed */
};

static void
relay_drain(struct relay *r, int out_fd)
{
	char *nl;
	size_t n;

	while ((nl = memchr(r->buf, '\n', r->len)) != NULL) {
		n = (size_t)(nl - r->buf) + 1;
		if (!r->skipping && !r->broken && write_all(out_fd, r->buf, n) != 0)
			r->broken = 1;
		r->skipping = 0;
		memmove(r->buf, r->buf + n, r->len - n);
		r->len -= n;
	}
	if (r->len >= WIRE_MAX_LINE) {
		r->len = 0;
		r->skipping = 1;
	}
}

/*
 * Reap what the trial left after its group was killed.  A killed process
 * takes a moment to die (longer in the middle of an execve), so wait until
 * no child is left, re-killing the group, for at most two seconds.
 */
static void
reap_orphans(pid_t pgid)
{
	struct timespec ms = { 0, 1000000 };
	double until = timing_now() + 2e9;
	pid_t w;

	for (;;) {
		while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if ((w < 0 && errno == ECHILD) || timing_now() >= until)
			return;
		kill(-pgid, SIGKILL);
		nanosleep(&ms, NULL);
	}
}

void
supervise_child_init(void)
{
	setpgid(0, 0);
	lease_close_inherited();
#ifdef PR_SET_PDEATHSIG
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
#endif
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
}

static pid_t
start_child(struct trial *t, int *rfd)
{
	int p[2], devnull;
	pid_t pid;

	if (pipe(p) != 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		supervise_child_init();
		close(p[0]);
		if (p[1] != 1) {
			dup2(p[1], 1);
			close(p[1]);
		}
		if ((devnull = open("/dev/null", O_RDONLY)) >= 0 && devnull != 0) {
			dup2(devnull, 0);
			close(devnull);
		}
		if (t->tmpdir == NULL || chdir(t->tmpdir) != 0) {
			trial_emit_error(1, t->id, WIRE_ERR_BENCH,
			    "cannot enter the trial's scratch directory");
			_exit(1);
		}
		t->out_fd = 1;
		_exit(trial_exit_code(trial_run(t)));
	}
	setpgid(pid, pid);	/* also here: no window where the group is unset */
	close(p[1]);
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	*rfd = p[0];
	return pid;
}

static void
emit_end(int fd, const struct trial *t, const char *status, double start)
{
	struct jline j;

	jl_begin(&j, WIRE_END, t->id);
	jl_str(&j, "bench", t->bench->name);
	jl_str(&j, "status", status);
	jl_num(&j, "duration", (timing_now() - start) / 1e9);
	jl_emit(&j, fd);
}

int
supervise(struct trial *t, struct input *in, int out_fd)
{
	static struct relay r;
	double start = timing_now(), next_beat = start + AGENT_HEARTBEAT * 1e9, now;
	enum { RUNNING, TIMED_OUT, CANCELLED } verdict = RUNNING;
	int rfd = -1, status = 0, reaped = 0, rc, timeout_ms, nfds, in_idx, code;
	const char *class;
	char msg[256];
	struct pollfd pfd[3];
	struct profile prof;
	static struct kmsg km;
	struct jline j;
	pid_t pid;
	ssize_t n;

	r.len = 0;
	r.skipping = 0;
	r.broken = 0;
	if ((t->tmpdir = scratch_create()) == NULL) {
		snprintf(msg, sizeof(msg), "cannot create a scratch directory: %s", strerror(errno));
		trial_emit_error(out_fd, t->id, WIRE_ERR_BENCH, msg);
		emit_end(out_fd, t, WIRE_ERR_BENCH, start);
		return WIRE_EXIT_FAILED;
	}
	/* the kernel log from here on is the trial's */
	kmsg_begin(&km);
	/* perf starts recording just before the trial; a failure is only noted */
	profile_init(&prof, t->profile);
	profile_start(&prof, t->tmpdir);
	if ((pid = start_child(t, &rfd)) < 0) {
		snprintf(msg, sizeof(msg), "cannot start the trial process: %s", strerror(errno));
		profile_kill(&prof);
		profile_stop(&prof);
		kmsg_end(&km, -1, NULL, NULL);
		trial_emit_error(out_fd, t->id, WIRE_ERR_BENCH, msg);
		remove_tree(t->tmpdir);
		free(t->tmpdir);
		t->tmpdir = NULL;
		emit_end(out_fd, t, WIRE_ERR_BENCH, start);
		return WIRE_EXIT_FAILED;
	}

	while (rfd >= 0 || !reaped) {
		if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
			reaped = 1;
			kill(-pid, SIGKILL);	/* anything the trial left in its group */
			profile_interrupt(&prof);	/* the measured part is over */
		}
		if (reaped && rfd < 0)
			break;
		now = timing_now();
		if (verdict == RUNNING) {
			if (now >= t->deadline)
				verdict = TIMED_OUT;
			else if (stopping || r.broken)
				verdict = CANCELLED;
			else if (input_silent(in)) {
				/* the controller is gone without closing: end all */
				supervise_silence();
				verdict = CANCELLED;
			}
			if (verdict != RUNNING) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				profile_kill(&prof);
			}
		}
		if (verdict == RUNNING && now >= next_beat) {
			jl_begin(&j, WIRE_HEARTBEAT, t->id);
			jl_num(&j, "elapsed", (now - start) / 1e9);
			if (jl_emit(&j, out_fd) != 0)
				r.broken = 1;
			next_beat = now + AGENT_HEARTBEAT * 1e9;
		}
		nfds = 0;
		in_idx = -1;
		if (rfd >= 0) {
			pfd[nfds].fd = rfd;
			pfd[nfds++].events = POLLIN;
		}
		if (verdict == RUNNING && in != NULL && !in->eof && in->len < WIRE_MAX_LINE) {
			in_idx = nfds;
			pfd[nfds].fd = in->fd;
			pfd[nfds++].events = POLLIN;
		}
		if (supervise_signal_fd() >= 0) {
			pfd[nfds].fd = supervise_signal_fd();
			pfd[nfds++].events = POLLIN;
		}
		if (verdict != RUNNING)
			timeout_ms = 20;	/* killed: only draining and reaping left */
		else {
			/* SIGCHLD wakes the poll when the child exits */
			double until = next_beat < t->deadline ? next_beat : t->deadline;

			if (in != NULL && in->idle > 0 && in->heard + in->idle < until)
				until = in->heard + in->idle;

			timeout_ms = until > now ? (int)((until - now) / 1e6) + 1 : 0;
			if (timeout_ms > 1000)
				timeout_ms = 1000;
		}
		rc = poll(pfd, (nfds_t)nfds, timeout_ms);
		if (rc < 0 && errno != EINTR)
			break;
		if (rc <= 0)
			continue;
		if (rfd >= 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			n = read(rfd, r.buf + r.len, WIRE_MAX_LINE - r.len);
			if (n > 0) {
				r.len += (size_t)n;
				relay_drain(&r, out_fd);
			} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(rfd);	/* a partial last line is dropped */
				rfd = -1;
			}
		}
		if (in_idx >= 0 && (pfd[in_idx].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    input_fill(in) != 0)
			stopping = stopping ? stopping : SIGHUP;	/* controller gone */
		supervise_drain_signals();
	}
	if (!reaped)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	kill(-pid, SIGKILL);
	if (verdict != RUNNING || stopping)
		profile_kill(&prof);
	profile_stop(&prof);		/* perf is reaped before the orphans */
	reap_orphans(pid);
	/* What the kernel said, for a trial that failed as much as for one
	 * that did not: before the profile, the error and "end". */
	kmsg_end(&km, out_fd, t->id, t->bench->name);
	/* A profile goes with a trial that succeeded: it comes before "end". */
	if (verdict == RUNNING && !stopping && WIFEXITED(status) &&
	    WEXITSTATUS(status) == WIRE_EXIT_OK)
		profile_emit(&prof, out_fd, t->id, t->bench->name, start);
	remove_tree(t->tmpdir);
	free(t->tmpdir);
	t->tmpdir = NULL;

	if (verdict == TIMED_OUT) {
		snprintf(msg, sizeof(msg), "%s did not finish within its deadline", t->bench->name);
		trial_emit_error(out_fd, t->id, WIRE_ERR_TIMEOUT, msg);
		emit_end(out_fd, t, WIRE_ERR_TIMEOUT, start);
		return WIRE_EXIT_TIMEOUT;
	}
	if (verdict == CANCELLED) {
		trial_emit_error(out_fd, t->id, WIRE_ERR_CANCELLED, silenced ?
		    "nothing from the controller within the agent's idle limit" :
		    stopping == SIGHUP ? "control stream closed" : "agent stopped by a signal");
		emit_end(out_fd, t, WIRE_ERR_CANCELLED, start);
		return WIRE_EXIT_CANCELLED;
	}
	if (WIFSIGNALED(status)) {
		snprintf(msg, sizeof(msg), "trial process died of signal %d (%s)",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
		trial_emit_error(out_fd, t->id, WIRE_ERR_CRASH, msg);
		emit_end(out_fd, t, WIRE_ERR_CRASH, start);
		return WIRE_EXIT_FAILED;
	}
	/* the class the trial process's exit code carries (trial_exit_code()) */
	code = WIFEXITED(status) ? WEXITSTATUS(status) : WIRE_EXIT_FAILED;
	if ((class = trial_exit_class(code)) == NULL) {
		class = WIRE_ERR_BENCH;
		code = WIRE_EXIT_FAILED;
	}
	emit_end(out_fd, t, class, start);
	return code;
}
