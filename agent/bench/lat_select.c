/*
 * lat_select: select() over n descriptors with a zero timeout, lmbench's
 * "slct TCP" column (Processor, Processes) and its "100fd selct" column
 * (File & VM).
 *
 * As lmbench does, one descriptor is opened and dup()ed n times; the n
 * copies form the write set, which is copied and passed to select() with
 * a zero timeout.  Every descriptor is ready, so the call polls each one
 * and returns at once: the cost is the per-descriptor poll.
 *
 *   file  a regular file in the trial's scratch directory (unlinked at
 *         once: the descriptors keep it).
 *   tcp   a TCP socket connected over loopback to a listener in this same
 *         process (lmbench forks a server that accepts; no process is
 *         needed for a connection to be established).  127.0.0.1 is used
 *         directly: a static agent cannot rely on the resolver.
 *
 * lmbench passes n itself as select()'s first argument, and its copies are
 * numbered from the lowest free descriptor in the process benchmp() forks
 * to measure: 0-2 are open there, and so are four ends of benchmp()'s
 * control pipes (4, 5, 7 and 9), the original is 3 (file) or 4 (tcp,
 * whose listening socket took 3 before the pipes), so the copies are 6,
 * 8, 10, 11, ... (file) or 7, 9, 11, 12, ... (tcp), and its select(100,
 * ...) polls the 92 or 91 of them below 100, not 100 (counted with
 * strace here).  The agent's descriptors are numbered wherever its own
 * leave room, so it puts exactly as many copies in the set as lmbench's
 * call polls, n - 8 or n - 9 (at least one), and passes the highest plus
 * one; a note says how many.  (The kernel scans the bitmap 64
 * descriptors at a time and polls only the descriptors set in it.)  The
 * file is opened read-only, as lmbench opens it.
 * Microseconds per select() call.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include "bench.h"
#include "timing.h"
#include "wire.h"

#define SELECT_FILE	"lat_select.file"
/* The descriptors below n that lmbench's copies cannot take: see above. */
#define LMB_TAKEN_FILE	8
#define LMB_TAKEN_TCP	9

struct ctx {
	fd_set	set;
	int	nfds;		/* highest descriptor in set, plus one */
};

static void
do_select(uint64_t n, void *arg)
{
	struct ctx *c = arg;
	struct timeval tv;
	fd_set w;

	while (n--) {
		w = c->set;
		tv.tv_sec = 0;
		tv.tv_usec = 0;
		(void)select(c->nfds, NULL, &w, NULL, &tv);
	}
}

/*
 * A connected loopback socket in *fd; the listener and the accepted end
 * are returned too, to be kept open while measuring.
 */
static int
tcp_pair(struct trial *t, int *fd, int *lfd, int *afd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int one = 1;

	*fd = *lfd = *afd = -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = 0;	/* any free port */
	if (inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr) != 1)
		return trial_error(t, WIRE_ERR_BENCH, "inet_pton 127.0.0.1 failed");
	if ((*lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "TCP socket: %s", strerror(errno));
	(void)setsockopt(*lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(*lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "bind 127.0.0.1: %s (no loopback?)",
		    strerror(errno));
	if (listen(*lfd, 1) != 0 ||
	    getsockname(*lfd, (struct sockaddr *)&sin, &len) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "listen on 127.0.0.1: %s", strerror(errno));
	if ((*fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "TCP socket: %s", strerror(errno));
	/* The handshake completes in the kernel; accept() after connect(). */
	if (connect(*fd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "connect to 127.0.0.1:%u: %s",
		    (unsigned)ntohs(sin.sin_port), strerror(errno));
	if ((*afd = accept(*lfd, NULL, NULL)) < 0)
		return trial_error(t, WIRE_ERR_BENCH, "accept on 127.0.0.1: %s", strerror(errno));
	return 0;
}

/* Allow at least `need` descriptors, as lmbench's morefds() does. */
static void
more_fds(rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) ?
	    need : rl.rlim_max;
	(void)setrlimit(RLIMIT_NOFILE, &rl);
}

static int
run(struct trial *t)
{
	const char *type = trial_str(t, "type");
	long long want = trial_int(t, "n");
	int fd = -1, lfd = -1, afd = -1, *copies = NULL, ncopies = 0, i, rc, polled;
	struct ctx c;

	if (want < 1 || want > FD_SETSIZE - 16)
		return trial_error(t, WIRE_ERR_REQUEST, "n must be 1 to %d (FD_SETSIZE)",
		    FD_SETSIZE - 16);
	if ((copies = calloc((size_t)want, sizeof(*copies))) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory");
	more_fds((rlim_t)want + 64);
	if (strcmp(type, "tcp") == 0) {
		if ((rc = tcp_pair(t, &fd, &lfd, &afd)) != 0)
			goto out;
	} else {
		/* created, then opened read-only, as lmbench's mkstemp() and open() */
		if ((fd = open(SELECT_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
		    close(fd) != 0 || (fd = open(SELECT_FILE, O_RDONLY)) < 0) {
			rc = trial_error(t, WIRE_ERR_BENCH, "create %s: %s", SELECT_FILE,
			    strerror(errno));
			fd = -1;
			(void)unlink(SELECT_FILE);
			goto out;
		}
		(void)unlink(SELECT_FILE);
	}
	polled = (int)want - (strcmp(type, "tcp") == 0 ? LMB_TAKEN_TCP : LMB_TAKEN_FILE);
	if (polled < 1)
		polled = 1;
	FD_ZERO(&c.set);
	c.nfds = 0;
	for (ncopies = 0; ncopies < want; ncopies++) {
		int d;

		if ((d = dup(fd)) < 0) {
			rc = trial_error(t, errno == EMFILE ? WIRE_ERR_UNSUPPORTED : WIRE_ERR_BENCH,
			    "dup of descriptor %d of %lld: %s", ncopies + 1, want, strerror(errno));
			goto out;
		}
		copies[ncopies] = d;
		if (d >= FD_SETSIZE) {
			ncopies++;
			rc = trial_error(t, WIRE_ERR_UNSUPPORTED,
			    "descriptor %d is beyond select()'s limit of %d", d, FD_SETSIZE);
			goto out;
		}
		if (ncopies >= polled)
			continue;	/* open, as lmbench's are, but beyond its nfds */
		FD_SET(d, &c.set);
		if (d + 1 > c.nfds)
			c.nfds = d + 1;
	}
	close(fd);	/* only the n copies remain of it */
	fd = -1;
	trial_note(t, "select() polls %d of the %lld copies, as lmbench's select(%lld, ...) "
	    "does", polled, want, want);
	rc = timing_report(t, "latency", do_select, &c, 1e3);
out:
	for (i = 0; i < ncopies; i++)
		close(copies[i]);
	free(copies);
	if (fd >= 0)
		close(fd);
	if (afd >= 0)
		close(afd);
	if (lfd >= 0)
		close(lfd);
	return rc;
}

static const struct bench_param params[] = {
	{ "type", PARAM_ENUM, "file", "what the descriptors are: a regular file, "
	    "or a connected loopback TCP socket", "file|tcp" },
	{ "n", PARAM_INT, "100", "descriptors in the set", "1..1024" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per select() call over all n descriptors" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_select, "select() with a zero timeout over n ready descriptors",
    "lmbench lat_select (Processes: slct TCP; File & VM: 100fd selct)", params, metrics, run);
