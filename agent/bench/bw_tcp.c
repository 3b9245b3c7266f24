/*
 * bw_tcp: bandwidth of a loopback TCP connection between two processes,
 * lmbench's "TCP" column of "*Local* Communication bandwidths".
 *
 * As lmbench's bw_tcp: one connection to 127.0.0.1 (an ephemeral port); a
 * forked peer writes `msg`-byte chunks without end, and one operation is
 * the parent reading `total` bytes in reads of at most `msg` bytes.  The
 * defaults are the point lmbench's summary reports (the last of its
 * "bw_tcp -m" series: 10M messages, 10M per operation).  Like lmbench,
 * both ends ask for 1M socket buffers (sockbuf=0 keeps the kernel's
 * defaults and its buffer autotuning).  As lmbench does by default, the
 * connection is read from for `warmup` (7.5 s) before the samples: the
 * scheduler has settled both processes by then.
 * Bandwidth is in MB/s of 10^6 bytes.
 */
#include <sys/socket.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

/* lmbench's bw_tcp -W default (LONGER), in microseconds */
#define LMB_WARMUP_US	7500000

/* What the kernel made of the buffer sizes: it clamps them (rmem_max, wmem_max). */
static void
note_buffers(struct trial *t, int rfd, int wfd)
{
	socklen_t len = sizeof(int);
	int rcv = 0, snd = 0;

	if (getsockopt(rfd, SOL_SOCKET, SO_RCVBUF, &rcv, &len) == 0 &&
	    (len = sizeof(int), getsockopt(wfd, SOL_SOCKET, SO_SNDBUF, &snd, &len) == 0))
		trial_note(t, "socket buffers: receive %d KB, send %d KB%s", rcv / 1024, snd / 1024,
		    trial_int(t, "sockbuf") == 0 ? " at start, autotuned" : "");
}

static int
run(struct trial *t)
{
	uint64_t total;
	size_t msg;
	int fds[2], r;

	if (ipc_stream_sizes(t, &msg, &total) != 0)
		return -1;
	if (trial_int(t, "sockbuf") < 0)
		return trial_error(t, WIRE_ERR_REQUEST, "sockbuf must not be negative");
	if ((r = ipc_tcp_pair(fds, trial_int(t, "sockbuf"), 0)) != 0)
		return ipc_loopback_error(t, "TCP connection", -r);
	note_buffers(t, fds[0], fds[1]);
	if (trial_int(t, "warmup") < 0)
		return trial_error(t, WIRE_ERR_REQUEST, "warmup must not be negative");
	if (trial_int(t, "warmup") != LMB_WARMUP_US)
		trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "warmup=%lld us before the samples, "
		    "lmbench's %d", trial_int(t, "warmup"), LMB_WARMUP_US);
	return ipc_stream(t, fds[0], fds[1], msg, total, IPC_WARMUP,
	    "reading from loopback TCP");
}

static const struct bench_param params[] = {
	{ "msg", PARAM_INT, "10M", "bytes per write and largest read (lmbench summary: 10M)", "1..64M" },
	{ "total", PARAM_INT, "10M", "bytes read per timed operation (lmbench summary: 10M)", "1..1024G" },
	{ "sockbuf", PARAM_INT, "1M", "SO_SNDBUF and SO_RCVBUF of both ends; 0: kernel default", "0.." },
	{ "warmup", PARAM_INT, "7500000", "microseconds of untimed reading before the samples "
	    "(lmbench: 7500000, its -W default)", "0..60000000" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "bandwidth", "MB/s", 1, "bytes through the connection per second, 10^6" },
	{ NULL, NULL, 0, NULL }
};

BENCH(bw_tcp, "bandwidth of a loopback TCP connection",
    "lmbench bw_tcp (*Local* Communication bandwidths: TCP)", params, metrics, run);
