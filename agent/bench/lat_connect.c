/*
 * lat_connect: the cost of opening and closing a TCP connection to a local
 * listener, lmbench's "TCP conn" column of "*Local* Communication
 * latencies".
 *
 * As lmbench's lat_connect: a forked peer listens on 127.0.0.1 (an
 * ephemeral port), accepts each connection, reads until the client has
 * closed it and closes its end.  One operation is the client's socket(),
 * setsockopt(SO_REUSEADDR) (lmbench's tcp_connect() sets it on every
 * socket), connect() (the three-way handshake, done by the kernel without
 * waiting for the server process) and close(); the server's accept runs
 * concurrently on whatever CPU it gets.
 *
 * The client closes first, as in lmbench, so every connection leaves a
 * TIME_WAIT socket on its side for 60 s, holding a local port.  A sample
 * therefore makes at most CONNECT_BUDGET / (samples + 3) connections and
 * never more than CONNECT_PER_SAMPLE: 250, what lmbench's count comes to
 * at 22 us a connection (75 at 75 us), so that on a fast host or in a
 * quiet moment a sample still lasts lmbench's interval and a short run is
 * dropped, as lmbench's are, rather than kept for having reached the cap
 * (a cap of 100 kept them below 50 us a connection, and the agent came
 * out faster than lmbench).  The runs that lmbench's sampling drops add a
 * few more, and a
 * trial stays far from the ~28000 ports of the default ephemeral range,
 * even for trials run back to back (each trial's listener has a new port,
 * so its address pairs are new and an old TIME_WAIT is no conflict).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

/* Connections per trial, calibration and warm-up included. */
#define CONNECT_BUDGET		4000
/* Connections per sample at most: well under the listen backlog below. */
#define CONNECT_PER_SAMPLE	250
/* The listener's backlog, whatever the C library's SOMAXCONN (musl: 128). */
#define CONNECT_BACKLOG		1024

struct conn {
	struct sockaddr_in	addr;
	int			err;
};

static void
connect_close(uint64_t n, void *arg)
{
	struct conn *c = arg;
	int fd, one = 1;

	if (c->err)
		return;
	while (n-- > 0) {
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0) {
			c->err = errno;
			return;
		}
		/* lmbench's client sets it on every socket (SOCKOPT_REUSE) */
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (connect(fd, (struct sockaddr *)&c->addr, sizeof(c->addr)) != 0) {
			c->err = errno;
			close(fd);
			return;
		}
		close(fd);
	}
}

static int
server(void *arg)
{
	int lfd = *(int *)arg, fd;
	char c;

	for (;;) {
		if ((fd = ipc_accept(lfd)) < 0)
			return fd == -ESRCH ? 0 : 1;
		/* wait for the client's close, as lmbench's server does */
		while (read(fd, &c, 1) > 0)
			;
		close(fd);
	}
}

static int
run(struct trial *t)
{
	struct timing_opts o = { 0, 0, 0 };
	struct ipc_peer peer = { 0 };
	struct conn c;
	uint64_t cap;
	int lfd, r, rc;

	memset(&c, 0, sizeof(c));
	if ((lfd = ipc_tcp_listen(&c.addr, CONNECT_BACKLOG)) < 0)
		return ipc_loopback_error(t, "TCP listener", -lfd);
	if ((r = ipc_peer_start(&peer, server, &lfd)) != 0) {
		close(lfd);
		return trial_error(t, WIRE_ERR_BENCH, "fork: %s", strerror(-r));
	}
	close(lfd);	/* the peer's now: it must not see our connections twice */
	/* calibration may take two samples' worth, the warm-up one more */
	cap = CONNECT_BUDGET / ((uint64_t)trial_samples(t) + 3);
	o.max_iters = cap > CONNECT_PER_SAMPLE ? CONNECT_PER_SAMPLE : cap < 4 ? 4 : cap;
	rc = ipc_report(t, "latency", connect_close, &c, &c.err, &o, 0,
	    "connect to a loopback listener");
	ipc_peer_stop(&peer);
	return rc;
}

static const struct bench_param params[] = {
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "socket, connect and close of one TCP connection" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_connect, "TCP connection set-up and close to a loopback listener",
    "lmbench lat_connect (*Local* Communication latencies: TCP conn)", params, metrics, run);
