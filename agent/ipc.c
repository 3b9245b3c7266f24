/*
 * ipc.c: the peer process, ping-pong and stream benchmarks, loopback
 * endpoints, files and word sums shared by lmbench's "*Local*
 * Communication" benchmarks (see ipc.h).
 *
 * The peer is the second process of lmbench's two-process benchmarks.  It
 * must never outlive the trial: it dies with its parent (PDEATHSIG), it
 * returns when its end of the conversation reaches end-of-file or a write
 * fails, the servers that have no end-of-file (a UDP socket, a listener)
 * wake up every second to look for their parent, and whatever happens the
 * parent kills and reaps it before the trial ends.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "bench.h"
#include "facts.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

/* In a peer: the process that started it. */
static pid_t peer_parent;

int
ipc_peer_start(struct ipc_peer *p, int (*fn)(void *), void *arg)
{
	pid_t parent = getpid(), pid;
	int fd;

	p->pid = 0;
	signal(SIGPIPE, SIG_IGN);
	if ((pid = fork()) < 0)
		return -errno;
	if (pid == 0) {
		peer_parent = parent;
		ipc_die_with(parent, 0);
		if ((fd = open("/dev/null", O_WRONLY)) >= 0) {
			if (fd != STDOUT_FILENO) {
				dup2(fd, STDOUT_FILENO);
				close(fd);
			}
		} else
			close(STDOUT_FILENO);
		_exit(fn(arg) == 0 ? 0 : 1);
	}
	p->pid = pid;
	return 0;
}

void
ipc_die_with(pid_t parent, int status)
{
#ifdef PR_SET_PDEATHSIG
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
#endif
	if (getppid() != parent)	/* it died before the line above */
		_exit(status);
}

void
ipc_peer_stop(struct ipc_peer *p)
{
	if (p->pid <= 0)
		return;
	kill(p->pid, SIGKILL);
	while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
}

int
ipc_peer_orphaned(void)
{
	return getppid() != peer_parent;
}

void
ipc_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Close a pair of descriptors that may be one and the same. */
static void
close_pair(int *a, int *b)
{
	if (*b == *a)
		*b = -1;
	ipc_close(a);
	ipc_close(b);
}

/* Write all n bytes; 0 or -errno. */
static int
put(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, buf, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Read exactly n bytes; 0, -EPIPE at end-of-file, -ETIMEDOUT when a
 * receive timeout ran out, else -errno.
 */
static int
get(int fd, char *buf, size_t n)
{
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, buf, n)) > 0) {
			buf += r;
			n -= (size_t)r;
			continue;
		}
		if (r == 0)
			return -EPIPE;
		if (errno == EINTR)
			continue;
		return (errno == EAGAIN || errno == EWOULDBLOCK) ? -ETIMEDOUT : -errno;
	}
	return 0;
}

/* --- Servers, inside the peer ------------------------------------------------ */

static int
serve_echo(int rfd, int wfd, size_t size)
{
	char *buf;
	int r;

	if ((buf = malloc(size)) == NULL)
		return -ENOMEM;
	while ((r = get(rfd, buf, size)) == 0 && (r = put(wfd, buf, size)) == 0)
		;
	free(buf);
	return r == -EPIPE ? 0 : r;
}

static int
serve_dgram_echo(int fd, size_t size)
{
	struct timeval tv = { 1, 0 };
	struct sockaddr_in from;
	socklen_t len;
	ssize_t r;
	char *buf;

	if ((buf = malloc(size)) == NULL)
		return -ENOMEM;
	/* lmbench's server answers with sendto(), unconnected: so do we */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		len = sizeof(from);
		r = recvfrom(fd, buf, size, 0, (struct sockaddr *)&from, &len);
		if (r < 0) {
			if ((errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) &&
			    !ipc_peer_orphaned())
				continue;
			break;
		}
		(void)sendto(fd, buf, (size_t)r, 0, (struct sockaddr *)&from, len);
	}
	free(buf);
	return 0;
}

/*
 * Write chunk-byte pieces to fd: without end, or with ctl >= 0 exactly the
 * number of bytes each request read from ctl asks for, until ctl closes.
 */
static int
serve_source(int fd, size_t chunk, int ctl)
{
	uint64_t todo;
	size_t n;
	char *buf;

	if ((buf = malloc(chunk)) == NULL)
		return -ENOMEM;
	memset(buf, 0x5a, chunk);
	if (ctl < 0) {
		while (put(fd, buf, chunk) == 0)
			;
	} else
		while (get(ctl, (char *)&todo, sizeof(todo)) == 0)
			for (; todo > 0; todo -= n) {
				n = todo < chunk ? (size_t)todo : chunk;
				if (put(fd, buf, n) != 0) {
					todo = n;	/* the reader is gone */
					break;
				}
			}
	free(buf);
	return 0;
}

int
ipc_accept(int lfd)
{
	int fd;

	for (;;) {
		if ((fd = accept(lfd, NULL, NULL)) >= 0)
			return fd;
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == ECONNABORTED) {
			if (ipc_peer_orphaned())
				return -ESRCH;
			continue;
		}
		return -errno;
	}
}

/* --- Timed client loops -------------------------------------------------------- */

struct xfer {
	int		 rfd;
	int		 wfd;
	int		 ctl;		/* sink: where to ask for each total, or -1 */
	char		*mem;		/* what buf points into, to free */
	char		*buf;
	size_t		 size;		/* message, or largest read */
	uint64_t	 total;		/* sink: bytes per operation */
	uint32_t	 seq;
	int		 err;		/* first failure: errno */
};

static void
roundtrip(uint64_t n, void *arg)
{
	struct xfer *x = arg;
	uint32_t seq = 0;
	int r;

	if (x->err)
		return;
	while (n-- > 0) {
		if (x->size >= 4) {
			seq = ++x->seq;
			memcpy(x->buf, &seq, sizeof(seq));
		}
		if ((r = put(x->wfd, x->buf, x->size)) != 0 ||
		    (r = get(x->rfd, x->buf, x->size)) != 0) {
			x->err = -r;
			return;
		}
		if (x->size >= 4 && memcmp(x->buf, &seq, sizeof(seq)) != 0) {
			x->err = EPROTO;
			return;
		}
	}
}

static void
sink(uint64_t n, void *arg)
{
	struct xfer *x = arg;
	uint64_t left;
	ssize_t r;

	if (x->err)
		return;
	while (n-- > 0) {
		if (x->ctl >= 0 && (r = put(x->ctl, (const char *)&x->total,
		    sizeof(x->total))) != 0) {
			x->err = (int)-r;
			return;
		}
		for (left = x->total; left > 0; left -= (uint64_t)r) {
			r = read(x->rfd, x->buf, left < x->size ? (size_t)left : x->size);
			if (r > 0)
				continue;
			if (r < 0 && errno == EINTR) {
				r = 0;
				continue;
			}
			x->err = r == 0 ? EPIPE : errno;
			return;
		}
	}
}

int
ipc_report(struct trial *t, const char *metric, timing_fn fn, void *arg,
    const int *err, const struct timing_opts *o, double bytes, const char *what)
{
	int n = trial_samples(t), i, rc = 0;
	uint64_t iters;
	double *v;

	if ((v = calloc((size_t)n, sizeof(*v))) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory");
	/* a failure in the caller's untimed first pass is not worth timing */
	iters = *err == 0 ? timing_measure(t, fn, arg, o, v, n) : 0;
	if (*err == ENETUNREACH || *err == ENETDOWN || *err == EHOSTUNREACH ||
	    *err == EADDRNOTAVAIL) {
		rc = ipc_loopback_error(t, what, *err);	/* no loopback: unsupported */
	} else if (*err != 0) {
		rc = trial_error(t, WIRE_ERR_BENCH, "%s failed: %s", what,
		    *err == EPIPE ? "the other end went away" : strerror(*err));
		goto out;
	}
	if (iters == 0) {
		rc = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring %s", what);
		goto out;
	}
	if (bytes > 0)
		samples_to_mbps(v, n, bytes);
	else
		for (i = 0; i < n; i++)
			v[i] /= 1e3;
	trial_metric(t, metric, v, n, iters);
out:
	free(v);
	return rc;
}

/* --- Whole benchmarks over a pair of descriptors ------------------------------ */

size_t
ipc_pingpong_size(struct trial *t)
{
	long long size = trial_int(t, "size");

	if (size < 1 || size > 1024 * 1024) {
		trial_error(t, WIRE_ERR_REQUEST, "size must be 1 byte to 1M");
		return 0;
	}
	return (size_t)size;
}

const struct bench_param ipc_pingpong_params[] = {
	IPC_PINGPONG_SIZE_PARAM,
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

const struct bench_metric ipc_pingpong_metrics[] = {
	{ "latency", "us", 0, "round trip of one message between two processes" },
	{ NULL, NULL, 0, NULL }
};

int
ipc_stream_sizes(struct trial *t, size_t *msg, uint64_t *total)
{
	long long m = trial_int(t, "msg"), n = trial_int(t, "total");

	if (m < 1 || m > 64LL * 1024 * 1024)
		return trial_error(t, WIRE_ERR_REQUEST, "msg must be 1 byte to 64M");
	if (n < 1 || n > (1LL << 40))
		return trial_error(t, WIRE_ERR_REQUEST, "total must be 1 byte to 1T");
	*msg = (size_t)m;
	*total = (uint64_t)n;
	return 0;
}

const struct bench_param ipc_stream_params[] = {
	{ "msg", PARAM_INT, "64K", "bytes per write and largest read (lmbench: 64K)", "1..64M" },
	{ "total", PARAM_INT, "10M", "bytes read per timed operation (lmbench: 10M)", "1..1024G" },
	TIMING_SAMPLING_PARAM,
	TIMING_INTERVAL_PARAM("2000000", "2000000, bw_pipe's and bw_unix's MEDIUM whatever ENOUGH says"),
	{ NULL, 0, NULL, NULL, NULL }
};

/* How long the untimed round trips before measuring last, in ns. */
#define PRIME_NS	20e6

struct pingpong {
	int	srfd, swfd, crfd, cwfd;
	size_t	size;
	int	flags;
};

static int
pingpong_peer(void *arg)
{
	struct pingpong *p = arg;

	close_pair(&p->crfd, &p->cwfd);
	if (p->flags & IPC_DGRAM)
		return serve_dgram_echo(p->srfd, p->size);
	return serve_echo(p->srfd, p->swfd, p->size);
}

int
ipc_pingpong(struct trial *t, int srfd, int swfd, int crfd, int cwfd,
    size_t size, int flags, const char *what)
{
	struct pingpong pp = { srfd, swfd, crfd, cwfd, size, flags };
	struct ipc_peer peer = { 0 };
	struct xfer x;
	double start;
	int rc, r;

	memset(&x, 0, sizeof(x));
	x.rfd = crfd;
	x.wfd = cwfd;
	x.size = size;
	if ((x.buf = calloc(1, size)) == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory for %zu-byte messages", size);
		goto out;
	}
	if ((r = ipc_peer_start(&peer, pingpong_peer, &pp)) != 0) {
		rc = trial_error(t, WIRE_ERR_BENCH, "fork: %s", strerror(-r));
		goto out;
	}
	/* the server's ends live in the peer now; ours would hide its EOF */
	close_pair(&pp.srfd, &pp.swfd);
	/*
	 * Round trips before timing, as lmbench's "one time around to make
	 * sure both processes are started", and then some: until the
	 * scheduler has placed both processes, round trips can be ten times
	 * slower, and a calibration run caught in that phase would settle
	 * on a handful of iterations per sample.
	 */
	start = timing_now();
	do
		roundtrip(16, &x);
	while (x.err == 0 && timing_now() - start < PRIME_NS);
	rc = ipc_report(t, "latency", roundtrip, &x, &x.err, NULL, 0, what);
out:
	/* our ends first: the peer sees end-of-file and is on its way out */
	close_pair(&pp.crfd, &pp.cwfd);
	close_pair(&pp.srfd, &pp.swfd);
	ipc_peer_stop(&peer);
	free(x.buf);
	return rc;
}

/* IPC_MISALIGN: lmbench's bw_pipe reads at 128 bytes into a page-aligned buffer */
#define MISALIGN_BY	128

struct source {
	int	rfd, wfd;
	size_t	chunk;
	int	ctl[2];		/* IPC_ON_DEMAND: the requests' pipe, else -1 */
};

static int
source_peer(void *arg)
{
	struct source *s = arg;

	ipc_close(&s->rfd);
	ipc_close(&s->ctl[1]);
	return serve_source(s->wfd, s->chunk, s->ctl[0]);
}

int
ipc_stream(struct trial *t, int rfd, int wfd, size_t chunk, uint64_t total,
    int flags, const char *what)
{
	struct source src = { rfd, wfd, chunk, { -1, -1 } };
	struct ipc_peer peer = { 0 };
	struct xfer x;
	double start;
	int rc, r;

	memset(&x, 0, sizeof(x));
	x.rfd = rfd;
	x.ctl = -1;
	x.size = chunk;
	x.total = total;
	if ((x.mem = ipc_alloc(chunk + ((flags & IPC_MISALIGN) ? MISALIGN_BY : 0))) == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory for a %zu-byte buffer", chunk);
		goto out;
	}
	x.buf = x.mem + ((flags & IPC_MISALIGN) ? MISALIGN_BY : 0);
	if ((flags & IPC_ON_DEMAND) && pipe(src.ctl) != 0) {
		src.ctl[0] = src.ctl[1] = -1;
		rc = trial_error(t, WIRE_ERR_BENCH, "pipe: %s", strerror(errno));
		goto out;
	}
	if ((r = ipc_peer_start(&peer, source_peer, &src)) != 0) {
		rc = trial_error(t, WIRE_ERR_BENCH, "fork: %s", strerror(-r));
		goto out;
	}
	ipc_close(&src.wfd);
	ipc_close(&src.ctl[0]);
	x.ctl = src.ctl[1];
	/* the first chunk before timing: the writer is up and running */
	x.total = chunk;
	sink(1, &x);
	x.total = total;
	if (flags & IPC_WARMUP) {
		start = timing_now();
		while (x.err == 0 && !trial_expired(t) &&
		    timing_now() - start < (double)trial_int(t, "warmup") * 1e3)
			sink(1, &x);
	}
	rc = ipc_report(t, "bandwidth", sink, &x, &x.err, NULL, (double)total, what);
out:
	ipc_close(&src.rfd);	/* the writer's next write fails and it returns */
	ipc_close(&src.wfd);
	ipc_close(&src.ctl[0]);
	ipc_close(&src.ctl[1]);	/* ... or it sees end-of-file on its requests */
	ipc_peer_stop(&peer);
	free(x.mem);
	return rc;
}

/* --- Loopback endpoints ---------------------------------------------------------- */

static void
loopback(struct sockaddr_in *a)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = 0;	/* an ephemeral port, chosen by bind() */
	inet_pton(AF_INET, "127.0.0.1", &a->sin_addr);
}

int
ipc_tcp_listen(struct sockaddr_in *addr, int backlog)
{
	struct timeval tv = { 1, 0 };
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd, e;

	loopback(&a);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, backlog) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		e = errno;
		close(fd);
		return -e;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	*addr = a;
	return fd;
}

static void
nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Set socket buffer option opt (SO_SNDBUF, SO_RCVBUF) to bytes, if > 0. */
static void
sockbuf_set(int fd, int opt, long long bytes)
{
	int v;

	if (bytes <= 0)
		return;
	v = bytes > 0x7fffffff ? 0x7fffffff : (int)bytes;
	setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v));
}

int
ipc_tcp_pair(int fds[2], long long sockbuf, int nodelay_both)
{
	struct sockaddr_in a;
	int l, c = -1, s, e;

	if ((l = ipc_tcp_listen(&a, 1)) < 0)
		return l;
	/* lmbench's sock_optimize(): the accepted socket inherits the listener's */
	sockbuf_set(l, SO_SNDBUF, sockbuf);
	/* connect() completes from the backlog, so one process does both ends */
	if ((c = socket(AF_INET, SOCK_STREAM, 0)) >= 0) {
		sockbuf_set(c, SO_RCVBUF, sockbuf);
		sockbuf_set(c, SO_SNDBUF, sockbuf);
	}
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    (s = accept(l, NULL, NULL)) < 0) {
		e = errno;
		ipc_close(&c);
		close(l);
		return -e;
	}
	close(l);
	if (nodelay_both) {
		nodelay(c);
		nodelay(s);
	}
	fds[0] = c;
	fds[1] = s;
	return 0;
}

int
ipc_udp_pair(int fds[2])
{
	struct timeval tv = { 2, 0 };
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int s, c = -1, e;

	loopback(&a);
	if ((s = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) != 0 ||
	    (c = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)) != 0) {
		e = errno;
		ipc_close(&c);
		close(s);
		return -e;
	}
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	fds[0] = c;
	fds[1] = s;
	return 0;
}

int
ipc_unix_pair(struct trial *t, int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return trial_error(t, errno == EAFNOSUPPORT ? WIRE_ERR_UNSUPPORTED : WIRE_ERR_BENCH,
		    "socketpair(AF_UNIX): %s", strerror(errno));
	return 0;
}

int
ipc_loopback_error(struct trial *t, const char *what, int err)
{
	switch (err) {
	case EAFNOSUPPORT:
	case EPROTONOSUPPORT:
	case ESOCKTNOSUPPORT:
	case EADDRNOTAVAIL:
	case ENETUNREACH:
	case ENETDOWN:
	case EHOSTUNREACH:
	case ECONNREFUSED:	/* to our own listener: a firewall said no */
	case EACCES:
	case EPERM:
		return trial_error(t, WIRE_ERR_UNSUPPORTED,
		    "loopback networking (127.0.0.1) is not usable here: %s: %s",
		    what, strerror(err));
	default:
		return trial_error(t, WIRE_ERR_BENCH, "%s on 127.0.0.1: %s", what,
		    strerror(err));
	}
}

/* --- Files and memory ---------------------------------------------------------- */

int
ipc_file_create(const char *name, uint64_t size, size_t block)
{
	size_t i, n;
	char *buf = NULL;
	int fd, r = 0;

	if ((fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0600)) < 0)
		return -errno;
	if (block == 0 || (buf = malloc(block)) == NULL) {
		r = block == 0 ? -EINVAL : -ENOMEM;
		goto out;
	}
	for (i = 0; i < block; i++)
		buf[i] = (char)(i * 7 + 1);
	while (size > 0) {
		n = size < block ? (size_t)size : block;
		if ((r = put(fd, buf, n)) != 0)
			goto out;
		size -= n;
	}
	if (fdatasync(fd) != 0 && errno != EINVAL)	/* EINVAL: cannot sync, nothing to wait for */
		r = -errno;
out:
	if (close(fd) != 0 && r == 0)
		r = -errno;
	if (r != 0)
		unlink(name);
	free(buf);
	return r;
}

static int
create_error(struct trial *t, const char *name, uint64_t size, int r)
{
	return trial_error(t, r == -ENOSPC || r == -EDQUOT ? WIRE_ERR_UNSUPPORTED :
	    WIRE_ERR_BENCH, "create a %llu-byte file %s in %s: %s", (unsigned long long)size,
	    name, trial_tmpdir(t), strerror(-r));
}

int
ipc_file_open_new(struct trial *t, const char *name, uint64_t size)
{
	int r, fd;

	if ((r = ipc_file_create(name, size, 64 * 1024)) != 0)
		return create_error(t, name, size, r);
	if ((fd = open(name, O_RDWR)) < 0) {
		r = errno;
		unlink(name);
		return trial_error(t, WIRE_ERR_BENCH, "open %s: %s", name, strerror(r));
	}
	(void)unlink(name);	/* the descriptor keeps it */
	return fd;
}

int
ipc_lmbench_file(struct trial *t, const char *name, uint64_t size, int flags)
{
	int r, fd;

	if ((r = ipc_file_create(name, size, IPC_LMDD_BLOCK)) != 0)
		return create_error(t, name, size, r);
	if ((fd = open(name, flags)) < 0)
		return trial_error(t, WIRE_ERR_BENCH, "open %s: %s", name, strerror(errno));
	return fd;
}

int
ipc_reread_file(struct trial *t, const char *name, uint64_t size)
{
	struct statfs st;
	const char *fs;
	int fd;

	if ((fd = ipc_lmbench_file(t, name, size, O_RDONLY)) < 0)
		return -1;
	close(fd);
	if (statfs(".", &st) != 0 || (fs = facts_fs_name((unsigned long)st.f_type)) == NULL)
		return 0;
	/* these notes have always called the ext family "ext4" */
	trial_note(t, "file on %s", strcmp(fs, "ext2/3/4") == 0 ? "ext4" : fs);
	return 0;
}

void *
ipc_alloc(size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p;

	if (size == 0 || posix_memalign(&p, (size_t)(pg > 0 ? pg : 4096), size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

/* 128 consecutive words, written out so the loop does one step per 128 words */
#define W4(i)	p[i] + p[i + 1] + p[i + 2] + p[i + 3]
#define W16(i)	W4(i) + W4(i + 4) + W4(i + 8) + W4(i + 12)
#define W64(i)	W16(i) + W16(i + 16) + W16(i + 32) + W16(i + 48)

uint32_t
ipc_sum_words(const void *buf, size_t len)
{
	const uint32_t *p = buf, *end = p + len / sizeof(*p);
	uint32_t sum = 0;

	while (end - p >= 128) {
		sum += W64(0) + W64(64);
		p += 128;
	}
	while (p < end)
		sum += *p++;
	return sum;
}

unsigned long
ipc_bread(const void *buf, size_t len)
{
	const unsigned long *p = buf, *end = p + len / sizeof(*p);
	unsigned long sum = 0;

	while (end - p >= 128) {
		sum += W64(0) + W64(64);
		p += 128;
	}
	while (end - p >= 16) {
		sum += W16(0);
		p += 16;
	}
	while (p < end)
		sum += *p++;
	return sum;
}
