/*
 * bw_pipe: bandwidth of a pipe between two processes, lmbench's "Pipe"
 * column of "*Local* Communication bandwidths".
 *
 * As lmbench's bw_pipe: a forked peer writes `msg`-byte chunks (64K) into
 * a pipe without end; one operation is the parent reading `total` bytes
 * (10M) from it in reads of at most `msg` bytes.  Bandwidth is total over
 * the time of an operation, in MB/s of 10^6 bytes.  The pipe keeps the
 * kernel's default capacity, as in lmbench, and the parent reads into a
 * buffer that starts 128 bytes into a page, as lmbench's does.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ipc.h"
#include "wire.h"

static int
run(struct trial *t)
{
	uint64_t total;
	size_t msg;
	int p[2];

	if (ipc_stream_sizes(t, &msg, &total) != 0)
		return -1;
	if (pipe(p) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "pipe: %s", strerror(errno));
	return ipc_stream(t, p[0], p[1], msg, total, IPC_MISALIGN,
	    "reading from the pipe");
}

static const struct bench_metric metrics[] = {
	{ "bandwidth", "MB/s", 1, "bytes through the pipe per second, 10^6" },
	{ NULL, NULL, 0, NULL }
};

BENCH(bw_pipe, "bandwidth of a pipe between two processes",
    "lmbench bw_pipe (*Local* Communication bandwidths: Pipe)", ipc_stream_params, metrics,
    run);
