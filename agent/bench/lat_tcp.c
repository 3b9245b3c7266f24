/*
 * lat_tcp: round-trip latency of a small message between two processes
 * over a loopback TCP connection, lmbench's "TCP" column of "*Local*
 * Communication latencies".
 *
 * As lmbench's lat_tcp: one connection to 127.0.0.1 (an ephemeral port),
 * a forked peer echoes each `size`-byte message (1 byte, lmbench's).  One
 * operation is the parent's write plus its read of the answer.  Setting up
 * the connection and the peer is not timed.  Both ends have TCP_NODELAY,
 * which changes nothing for a strict ping-pong of one-segment messages but
 * keeps a message larger than a segment from waiting on a delayed ACK.
 */
#include "bench.h"
#include "ipc.h"
#include "timing.h"

static int
run(struct trial *t)
{
	size_t size;
	int fds[2], r;

	if ((size = ipc_pingpong_size(t)) == 0)
		return -1;
	if ((r = ipc_tcp_pair(fds, 0, 1)) != 0)
		return ipc_loopback_error(t, "TCP connection", -r);
	return ipc_pingpong(t, fds[1], fds[1], fds[0], fds[0], size, 0,
	    "round trip over loopback TCP");
}

static const struct bench_param params[] = {
	IPC_PINGPONG_SIZE_PARAM,
	TIMING_SAMPLING_PARAM,
	TIMING_INTERVAL_PARAM("2000000", "2000000, lat_tcp's MEDIUM whatever ENOUGH says"),
	{ NULL, 0, NULL, NULL, NULL }
};

BENCH(lat_tcp, "round-trip latency over a loopback TCP connection",
    "lmbench lat_tcp (*Local* Communication latencies: TCP)", params,
    ipc_pingpong_metrics, run);
