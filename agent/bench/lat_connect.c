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
 * TIME_WAIT socket on its side for 60 s, holding a local port for this
 * listener's address only (connect() shares a local port among
 * destinations), and each trial's listener has a new port.  So a trial
 * may make as many connections as lmbench's count comes to, and its
 * samples are as long as lmbench's interval and chosen by lmbench's rule:
 * CONNECT_BUDGET, calibration and warm-up included, lets 11 samples of
 * 5 ms run at lmbench's count down to about 3.5 us a connection (20000
 * over 14 samples' worth), and stays below the ~28000 ports of the
 * default ephemeral range.  (A cap of 100, then 250,
 * connections a sample, when one connection took 22 us or more, became
 * the sample's length on faster hosts: 250 at 12 us is 3 ms, kept as a
 * sample by the cap where lmbench, with no cap, drops the run and
 * counts higher.)
 *
 * The listener's backlog is 1024, where lmbench's tcp_server() listens
 * with 100: the one difference from lmbench left on purpose.  When the
 * server falls behind the client (one CPU for both, or a server that
 * does not get one in time) by 100 connections, the kernel drops the
 * next SYN and that connect() waits for its retransmission, a second:
 * on the 2-CPU VM this was measured on (tests/bench/connect-backlog.sh),
 * lmbench's own run gave 12 us when it did not overflow and 4,100 to
 * 7,700 us when it did (the kernel's ListenOverflows counter rose by 13
 * to 20 in such a run), and the agent with a backlog of 100 gave 3,300
 * to 16,000 us, overflowing 16 to 32 times in runs of as many seconds.
 * That measures the SYN timer, not a connection; with 1024 the
 * agent's figure is lmbench's run that did not overflow.  backlog=100
 * reproduces lmbench's listener, overflows and all, and any other value
 * than the default says so in a note.
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
#define CONNECT_BUDGET		20000
/* lmbench's tcp_server(): listen(sock, 100). */
#define LMBENCH_BACKLOG		100
/* The default, and what the note compares with: "backlog" below. */
#define DEFAULT_BACKLOG		1024

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
	int backlog = (int)trial_int(t, "backlog"), lfd, r, rc;

	if (backlog == LMBENCH_BACKLOG)
		trial_note(t, "backlog=%d, lmbench's: a connect() the listener has no room "
		    "for waits a second for its SYN again", backlog);
	else if (backlog != DEFAULT_BACKLOG)
		trial_note(t, "backlog=%d (the default is %d; lmbench's server listens with %d)",
		    backlog, DEFAULT_BACKLOG, LMBENCH_BACKLOG);
	memset(&c, 0, sizeof(c));
	if ((lfd = ipc_tcp_listen(&c.addr, backlog)) < 0)
		return ipc_loopback_error(t, "TCP listener", -lfd);
	if ((r = ipc_peer_start(&peer, server, &lfd)) != 0) {
		close(lfd);
		return trial_error(t, WIRE_ERR_BENCH, "fork: %s", strerror(-r));
	}
	close(lfd);	/* the peer's now: it must not see our connections twice */
	/* calibration may take two samples' worth, the warm-up one more */
	cap = CONNECT_BUDGET / ((uint64_t)trial_samples(t) + 3);
	o.max_iters = cap < 4 ? 4 : cap;
	rc = ipc_report(t, "latency", connect_close, &c, &c.err, &o, 0,
	    "connect to a loopback listener");
	ipc_peer_stop(&peer);
	return rc;
}

static const struct bench_param params[] = {
	{ "backlog", PARAM_INT, "1024", "the listener's backlog (lmbench's server: 100, "
	    "which overflows when the server lags)", "1..65535" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "socket, connect and close of one TCP connection" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_connect, "TCP connection set-up and close to a loopback listener",
    "lmbench lat_connect (*Local* Communication latencies: TCP conn)", params, metrics, run);
