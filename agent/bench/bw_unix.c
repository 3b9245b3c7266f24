/*
 * bw_unix: bandwidth of an AF_UNIX stream socket between two processes,
 * lmbench's "AF UNIX" column of "*Local* Communication bandwidths".
 *
 * As lmbench's bw_unix: socketpair(AF_UNIX, SOCK_STREAM); one operation
 * is the parent asking a forked peer for `total` bytes (10M) over a
 * control pipe and reading them in reads of at most `msg` bytes, while the
 * peer writes exactly that much in `msg`-byte chunks (64K) and waits for
 * the next request.  Bandwidth is total over the time of an operation, in
 * MB/s of 10^6 bytes.
 */
#include "bench.h"
#include "ipc.h"

static int
run(struct trial *t)
{
	uint64_t total;
	size_t msg;
	int sv[2];

	if (ipc_stream_sizes(t, &msg, &total) != 0 || ipc_unix_pair(t, sv) != 0)
		return -1;
	return ipc_stream(t, sv[0], sv[1], msg, total, IPC_ON_DEMAND,
	    "reading from the AF_UNIX socket");
}

static const struct bench_metric metrics[] = {
	{ "bandwidth", "MB/s", 1, "bytes through the socket per second, 10^6" },
	{ NULL, NULL, 0, NULL }
};

BENCH(bw_unix, "bandwidth of an AF_UNIX stream socket pair",
    "lmbench bw_unix (*Local* Communication bandwidths: AF UNIX)", ipc_stream_params, metrics,
    run);
