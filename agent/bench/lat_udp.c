/*
 * lat_udp: round-trip latency of a small datagram between two processes
 * over loopback UDP, lmbench's "UDP" column of "*Local* Communication
 * latencies".
 *
 * As lmbench's lat_udp: the client's socket is connected to a server
 * socket on 127.0.0.1 (an ephemeral port); a forked peer answers each
 * datagram with recvfrom() and sendto() to its sender.  Messages are
 * `size` bytes (4, lmbench's: a sequence number, which must come back).
 * One operation is the client's send plus its receive of the answer.
 */
#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

/* The largest payload of a UDP datagram over IPv4. */
#define UDP_MAX		65507

static int
run(struct trial *t)
{
	long long size = trial_int(t, "size");
	int fds[2], r;

	if (size < 4 || size > UDP_MAX)
		return trial_error(t, WIRE_ERR_REQUEST, "size must be 4 to %d bytes", UDP_MAX);
	if ((r = ipc_udp_pair(fds)) != 0)
		return ipc_loopback_error(t, "UDP sockets", -r);
	return ipc_pingpong(t, fds[1], fds[1], fds[0], fds[0], (size_t)size, IPC_DGRAM,
	    "round trip over loopback UDP");
}

static const struct bench_param params[] = {
	{ "size", PARAM_INT, "4", "bytes per datagram (lmbench: 4)", "4..65507" },
	TIMING_SAMPLING_PARAM,
	TIMING_INTERVAL_PARAM("1000000", "1000000, lat_udp's SHORT whatever ENOUGH says"),
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "round trip of one datagram between two processes" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_udp, "round-trip latency over loopback UDP",
    "lmbench lat_udp (*Local* Communication latencies: UDP)", params, metrics, run);
