/*
 * lat_unix: round-trip latency of a small message between two processes
 * over an AF_UNIX stream socket pair, lmbench's "AF UNIX" column of
 * "*Local* Communication latencies".
 *
 * As lmbench's lat_unix: socketpair(AF_UNIX, SOCK_STREAM), a forked peer
 * echoes each `size`-byte message (1 byte, lmbench's) on its end.  One
 * operation is the parent's write plus its read of the answer.  Starting
 * the peer is not timed.
 */
#include "bench.h"
#include "ipc.h"

static int
run(struct trial *t)
{
	size_t size;
	int sv[2];

	if ((size = ipc_pingpong_size(t)) == 0 || ipc_unix_pair(t, sv) != 0)
		return -1;
	return ipc_pingpong(t, sv[0], sv[0], sv[1], sv[1], size, 0,
	    "round trip over an AF_UNIX socket pair");
}

BENCH(lat_unix, "round-trip latency over an AF_UNIX stream socket pair",
    "lmbench lat_unix (*Local* Communication latencies: AF UNIX)", ipc_pingpong_params,
    ipc_pingpong_metrics, run);
