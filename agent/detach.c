/*
 * detach.c: detached runs (docs/detached.md).  The controller hands a host
 * its whole trial list and may go away; a daemon of the agent runs the
 * list, journals each trial on the host, and keeps the host's lease.
 *
 * Everything lives in one directory of the host's work directory,
 * WORKDIR/runs/RUNID, that the controller names:
 *
 *	requests.jsonl	the trial requests, as serve would have had them
 *	journal.jsonl	each finished trial's lines (heartbeats left out), in
 *			one write() followed by fdatasync(): a crash loses at
 *			most the trial in flight, and leaves at most one torn
 *			last line, which collect does not send
 *	lock		flock'ed by the daemon while it runs
 *	done		written (atomically) when the list is run through
 *	agent.log	what the trials printed on stderr (emptied between
 *			trials once past DETACH_MAX_LOG)
 *
 * Three serve requests: `detach` (the list follows the request on the
 * control stream; the daemon is started and its pid answered), `collect`
 * (the journal's complete lines, then a `detached` line with the state:
 * running, done, gone or missing) and `forget` (the directory removed,
 * unless the daemon still runs).  The lease the serving agent holds is
 * handed to the daemon without a gap (the locked descriptor is inherited)
 * and says "detached": true.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "jline.h"
#include "jparse.h"

#define DETACH_REQUESTS	"requests.jsonl"
#define DETACH_JOURNAL	"journal.jsonl"
#define DETACH_LOCK	"lock"
#define DETACH_DONE	"done"
#define DETACH_LOG	"agent.log"
#define DETACH_TRIAL	"trial.out"
#define DETACH_LIST_MS	60000		/* for the list to arrive after the request */
#define DETACH_MAX_LOG	(1024 * 1024)	/* agent.log is emptied between trials past it */

int
detach_dir_valid(const char *dir)
{
	const char *p, *base;
	size_t n;

	if (dir == NULL || *dir != '/' || (n = strlen(dir)) > 1024)
		return 0;
	for (p = dir; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == '\\' || *p == '"' || *p == '\'')
			return 0;
	if (strstr(dir, "/../") != NULL || strstr(dir, "/./") != NULL ||
	    strstr(dir, "//") != NULL)
		return 0;
	/* .../runs/RUNID: the last component a run id, under runs/ */
	if ((base = strrchr(dir, '/')) == NULL || base - dir < 5 ||
	    strncmp(base - 5, "/runs", 5) != 0)
		return 0;
	base++;
	if (*base == '\0' || *base == '.' || strspn(base, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(base))
		return 0;
	return 1;
}

/* DIR/NAME into buf; -1 when it does not fit. */
static int
path_in(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* mkdir -p, each new level 0700. */
static int
mkdirs(const char *dir)
{
	char buf[PATH_MAX], *p;

	if (strlen(dir) >= sizeof(buf))
		return -1;
	strcpy(buf, dir);
	for (p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0700) != 0 && errno != EEXIST)
				return -1;
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

/* Write all of buf to path (new), fsync it, rename it into place. */
static int
write_file(const char *dir, const char *name, const char *buf, size_t len)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd, r = -1;

	if (path_in(path, sizeof(path), dir, name) != 0 ||
	    snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return -1;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return -1;
	if (write_all(fd, buf, len) == 0 && fsync(fd) == 0)
		r = 0;
	close(fd);
	if (r == 0 && rename(tmp, path) != 0)
		r = -1;
	if (r != 0)
		unlink(tmp);
	if (r == 0 && (fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	return r;
}

/* The next line of the control stream, waiting up to DETACH_LIST_MS for it. */
static long
next_line(struct input *in, char *line, size_t cap)
{
	struct pollfd pfd;
	long n;
	int waited = 0;

	for (;;) {
		if ((n = input_line(in, line, cap)) != 0)
			return n;
		if (in->eof || waited >= DETACH_LIST_MS || supervise_stopping())
			return 0;
		pfd.fd = in->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 1000) > 0)
			input_fill(in);
		else
			waited += 1000;
	}
}

/* --- the daemon ------------------------------------------------------------ */

struct daemon {
	const char	*dir;
	char		 path[PATH_MAX];
	int		 journal_fd;
	int		 trial_fd;
	long long	 trials, journaled;
	long long	 max_bytes;
	off_t		 bytes;
};

/* The daemon's state line into `done`, atomically (write, fsync, rename). */
static void
write_done(struct daemon *d, const char *state)
{
	static struct jline j;
	struct timespec ts;
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd, r = -1;

	if (path_in(path, sizeof(path), d->dir, DETACH_DONE) != 0 ||
	    snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp) ||
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	jl_begin(&j, WIRE_DETACHED, NULL);
	jl_str(&j, "state", state);
	jl_int(&j, "trials", d->trials);
	jl_int(&j, "journaled", d->journaled);
	jl_num(&j, "end", (double)ts.tv_sec + ts.tv_nsec / 1e9);
	if (jl_emit(&j, fd) == 0 && fsync(fd) == 0)
		r = 0;
	close(fd);
	if (r != 0 || rename(tmp, path) != 0)
		unlink(tmp);
	else if ((fd = open(d->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* Whether a line of the trial's output is a heartbeat (not journaled). */
static int
is_heartbeat(const char *line, size_t len)
{
	static const char hb[] = "{\"type\":\"" WIRE_HEARTBEAT "\"";

	return len >= sizeof(hb) - 1 && memcmp(line, hb, sizeof(hb) - 1) == 0;
}

/*
 * The trial's lines (in trial_fd) into the journal in one write, then
 * fdatasync.  0; 1 when the journal would outgrow max_bytes; -1 when it
 * cannot be written.
 */
static int
journal_trial(struct daemon *d)
{
	struct stat st;
	char *buf = NULL, *out = NULL, *p, *nl;
	size_t len, olen = 0;
	ssize_t n;
	int r = -1;

	if (fstat(d->trial_fd, &st) != 0 || st.st_size < 0)
		return -1;
	len = (size_t)st.st_size;
	if ((off_t)len > d->max_bytes - d->bytes)
		return 1;
	if ((buf = malloc(len + 1)) == NULL || (out = malloc(len + 1)) == NULL)
		goto out;
	if ((n = pread(d->trial_fd, buf, len, 0)) < 0 || (size_t)n != len)
		goto out;
	for (p = buf; p < buf + len; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(buf + len - p))) == NULL)
			break;		/* cannot happen: lines are written whole */
		if (is_heartbeat(p, (size_t)(nl - p)))
			continue;
		memcpy(out + olen, p, (size_t)(nl - p) + 1);
		olen += (size_t)(nl - p) + 1;
	}
	if (write_all(d->journal_fd, out, olen) != 0 || fdatasync(d->journal_fd) != 0)
		goto out;
	d->bytes += (off_t)olen;
	d->journaled++;
	r = 0;
 out:
	free(buf);
	free(out);
	return r;
}

/* Run the list in requests.jsonl; never returns. */
static void
daemon_main(struct daemon *d)
{
	static struct input in;
	static char line[WIRE_MAX_LINE + 1];
	const char *state = "done";
	struct stat st;
	struct jv *req;
	long n;
	int fd, r;

	if (path_in(d->path, sizeof(d->path), d->dir, DETACH_REQUESTS) != 0 ||
	    (fd = open(d->path, O_RDONLY | O_CLOEXEC)) < 0)
		_exit(1);
	input_init(&in, fd);
	while (!supervise_stopping()) {
		char msg[64];

		while ((n = input_line(&in, line, sizeof(line))) == 0 && !in.eof)
			input_fill(&in);
		if (n == 0)
			break;
		if (n < 0)
			continue;
		if (jv_parse(line, (size_t)n, &req, msg, sizeof(msg)) != 0)
			continue;	/* the controller wrote it: cannot happen */
		if (fstat(2, &st) == 0 && st.st_size > DETACH_MAX_LOG)
			(void)!ftruncate(2, 0);		/* O_APPEND: writes go on at 0 */
		if (ftruncate(d->trial_fd, 0) != 0 || lseek(d->trial_fd, 0, SEEK_SET) != 0) {
			jv_free(req);
			state = "failed";
			break;
		}
		serve_trial(req, jv_get_str(req, "id"), NULL, d->trial_fd);
		jv_free(req);
		if (supervise_stopping())
			break;	/* cancelled: not a result, collect runs it again */
		if ((r = journal_trial(d)) == 1) {
			state = "full";
			break;
		}
		if (r < 0) {
			state = "failed";
			break;
		}
	}
	close(fd);
	if (!supervise_stopping())
		write_done(d, state);
	lease_release();
	_exit(0);
}

/* In the daemon: no terminal, no controller; stdout and stderr into agent.log. */
static int
daemon_init(struct daemon *d)
{
	char path[PATH_MAX];
	int fd;

	/* signals of its own (the serving agent's wake-up pipe is not), and
	 * none from the session that started it */
	supervise_signals();
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if ((fd = open("/dev/null", O_RDONLY)) < 0 || dup2(fd, 0) < 0)
		return -1;
	close(fd);
	if (path_in(path, sizeof(path), d->dir, DETACH_LOG) != 0 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) < 0)
		return -1;
	if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return -1;
	close(fd);
	if (chdir("/") != 0)
		return -1;
	return 0;
}

/* --- the requests ---------------------------------------------------------- */

void
detach_request(const struct jv *req, const char *id, struct input *in, int out_fd)
{
	static char line[WIRE_MAX_LINE + 1];
	const char *dir = jv_get_str(req, "dir"), *run = jv_get_str(req, "run");
	const struct jv *v = jv_get(req, "trials"), *mb = jv_get(req, "max_bytes");
	struct daemon d;
	struct jline j;
	char path[PATH_MAX], msg[PATH_MAX + 128], *list = NULL;
	size_t len = 0, cap = 0;
	long long ntrials, i;
	int lock_fd = -1, pfd[2] = { -1, -1 };
	pid_t child, pid = 0;
	long n;

	memset(&d, 0, sizeof(d));
	d.journal_fd = d.trial_fd = -1;
	if (!detach_dir_valid(dir) || run == NULL || *run == '\0' || strlen(run) > 256 ||
	    v == NULL || v->type != JV_NUM || v->num < 0 || v->num > 10000000 ||
	    v->num != (double)(long long)v->num) {
		serve_reply_error(out_fd, id, "detach needs dir (WORKDIR/runs/RUNID), run and trials");
		return;
	}
	ntrials = (long long)v->num;
	d.dir = dir;
	d.max_bytes = mb != NULL && mb->type == JV_NUM && mb->num >= 4096 ? (long long)mb->num :
	    DETACH_MAX_JOURNAL;
	/* the list first, whatever happens, so the stream stays in step: a
	 * line too long, or no memory, fails the list but is read all the same */
	*msg = '\0';
	for (i = 0; i < ntrials; i++) {
		if ((n = next_line(in, line, sizeof(line))) == 0) {
			snprintf(msg, sizeof(msg), "the trial list ended after %lld of %lld lines",
			    i, ntrials);
			break;
		}
		if (n < 0 && *msg == '\0')
			snprintf(msg, sizeof(msg), "trial list line %lld is too long", i + 1);
		while (n > 0 && *msg == '\0' && len + (size_t)n + 1 > cap) {
			char *nl = realloc(list, cap ? cap * 2 : 65536);

			if (nl == NULL) {
				snprintf(msg, sizeof(msg), "out of memory for the trial list");
				break;
			}
			list = nl;
			cap = cap ? cap * 2 : 65536;
		}
		if (n < 0 || *msg != '\0')
			continue;
		memcpy(list + len, line, (size_t)n);
		len += (size_t)n;
		list[len++] = '\n';
	}
	if (*msg != '\0') {
		serve_reply_error(out_fd, id, msg);
		goto out;
	}
	if (mkdirs(dir) != 0) {
		snprintf(msg, sizeof(msg), "cannot create %s: %s", dir, strerror(errno));
		serve_reply_error(out_fd, id, msg);
		goto out;
	}
	if (path_in(path, sizeof(path), dir, DETACH_LOCK) != 0 ||
	    (lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0 ||
	    flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(msg, sizeof(msg), "%s: %s", dir, lock_fd >= 0 && errno == EWOULDBLOCK ?
		    "a detached agent runs there already" : strerror(errno));
		serve_reply_error(out_fd, id, msg);
		goto out;
	}
	/* a fresh start: what an earlier attempt left is not this list's */
	if (path_in(path, sizeof(path), dir, DETACH_DONE) == 0)
		unlink(path);
	if (write_file(dir, DETACH_REQUESTS, list ? list : "", len) != 0 ||
	    path_in(path, sizeof(path), dir, DETACH_JOURNAL) != 0 ||
	    (d.journal_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
	    0600)) < 0 || path_in(path, sizeof(path), dir, DETACH_TRIAL) != 0 ||
	    (d.trial_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		snprintf(msg, sizeof(msg), "cannot write in %s: %s", dir, strerror(errno));
		serve_reply_error(out_fd, id, msg);
		goto out;
	}
	d.trials = ntrials;
	if (pipe(pfd) != 0 || (child = fork()) < 0) {
		snprintf(msg, sizeof(msg), "cannot start the detached agent: %s", strerror(errno));
		serve_reply_error(out_fd, id, msg);
		goto out;
	}
	if (child == 0) {
		/* setsid, and a second fork: no session leader, no terminal */
		close(pfd[0]);
		if (setsid() < 0)
			_exit(1);
		if ((pid = fork()) != 0)
			_exit(pid < 0);
		pid = getpid();
		if (daemon_init(&d) != 0)
			_exit(1);
		lease_detached();
		(void)!write(pfd[1], &pid, sizeof(pid));
		close(pfd[1]);
		daemon_main(&d);
	}
	close(pfd[1]);
	pfd[1] = -1;
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	if (read(pfd[0], &pid, sizeof(pid)) != (ssize_t)sizeof(pid)) {
		serve_reply_error(out_fd, id, "the detached agent did not start");
		goto out;
	}
	/* The daemon holds the lease and the lock now; this process lets go
	 * of its copies without giving them up. */
	lease_close_inherited();
	jl_begin(&j, WIRE_DETACHED, id);
	jl_str(&j, "state", "running");
	jl_int(&j, "pid", (long long)pid);
	jl_int(&j, "trials", ntrials);
	jl_emit(&j, out_fd);
 out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (lock_fd >= 0)
		close(lock_fd);
	if (d.journal_fd >= 0)
		close(d.journal_fd);
	if (d.trial_fd >= 0)
		close(d.trial_fd);
	free(list);
}

/* Lines in the file at path (complete ones). */
static long long
count_lines(const char *path)
{
	char buf[65536];
	long long n = 0;
	ssize_t r, i;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < r; i++)
			n += buf[i] == '\n';
	close(fd);
	return n;
}

/*
 * The state of the detached run in dir: "running" (its lock is held; pid
 * from the lease when it is this run's), "done" (the done file, whose
 * state it takes: done, full, failed), "gone" (neither: the daemon died,
 * the host rebooted), "missing" (no directory).
 */
static const char *
dir_state(const char *dir, char *state, size_t size)
{
	char path[PATH_MAX], buf[512];
	struct jv *v = NULL;
	const char *s;
	int fd;

	snprintf(state, size, "missing");
	if (path_in(path, sizeof(path), dir, DETACH_LOCK) != 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return state;
	if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
		close(fd);
		snprintf(state, size, "running");
		return state;
	}
	close(fd);
	snprintf(state, size, "gone");
	if (path_in(path, sizeof(path), dir, DETACH_DONE) == 0 &&
	    read_text(path, buf, sizeof(buf)) == 0) {
		snprintf(state, size, "done");
		if (jv_parse(buf, strlen(buf), &v, path, sizeof(path)) == 0 &&
		    (s = jv_get_str(v, "state")) != NULL && strlen(s) < size &&
		    (strcmp(s, "full") == 0 || strcmp(s, "failed") == 0))
			snprintf(state, size, "%s", s);
		jv_free(v);
	}
	return state;
}

void
detach_collect(const struct jv *req, const char *id, int out_fd)
{
	static char buf[WIRE_MAX_LINE * 2];
	const char *dir = jv_get_str(req, "dir");
	char path[PATH_MAX], state[16];
	struct jline j;
	long long lines = 0;
	size_t len = 0, k;
	ssize_t n;
	int fd;

	if (!detach_dir_valid(dir)) {
		serve_reply_error(out_fd, id, "collect needs dir (WORKDIR/runs/RUNID)");
		return;
	}
	/* the state first: what it says is in the journal by the time it is read */
	dir_state(dir, state, sizeof(state));
	if (path_in(path, sizeof(path), dir, DETACH_JOURNAL) == 0 &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		/* complete lines only: a torn last one (a crash) is left out */
		while ((n = read(fd, buf + len, sizeof(buf) - len)) > 0) {
			char *nl;

			len += (size_t)n;
			while ((nl = memchr(buf, '\n', len)) != NULL) {
				k = (size_t)(nl - buf) + 1;
				if (write_all(out_fd, buf, k) != 0) {
					close(fd);
					return;
				}
				lines++;
				memmove(buf, buf + k, len - k);
				len -= k;
			}
			if (len == sizeof(buf))
				len = 0;	/* no line is this long: drop it */
		}
		close(fd);
	}
	jl_begin(&j, WIRE_DETACHED, id);
	jl_str(&j, "state", state);
	if (path_in(path, sizeof(path), dir, DETACH_REQUESTS) == 0)
		jl_int(&j, "trials", count_lines(path));
	jl_int(&j, "lines", lines);
	jl_emit(&j, out_fd);
}

void
detach_forget(const struct jv *req, const char *id, int out_fd)
{
	const char *dir = jv_get_str(req, "dir");
	char state[16], msg[PATH_MAX + 64];
	struct jline j;

	if (!detach_dir_valid(dir)) {
		serve_reply_error(out_fd, id, "forget needs dir (WORKDIR/runs/RUNID)");
		return;
	}
	if (strcmp(dir_state(dir, state, sizeof(state)), "running") != 0 &&
	    strcmp(state, "missing") != 0) {
		if (remove_tree(dir) != 0) {
			snprintf(msg, sizeof(msg), "cannot remove %s: %s", dir, strerror(errno));
			serve_reply_error(out_fd, id, msg);
			return;
		}
		snprintf(state, sizeof(state), "forgotten");
	}
	jl_begin(&j, WIRE_DETACHED, id);
	jl_str(&j, "state", state);
	jl_emit(&j, out_fd);
}
