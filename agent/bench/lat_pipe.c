/*
 * lat_pipe: round-trip latency of a small message between two processes
 * over pipes, lmbench's "Pipe" column of "*Local* Communication latencies".
 *
 * As lmbench's lat_pipe: a forked peer reads a `size`-byte message (1
 * byte, lmbench's) from one pipe and writes it back on a second pipe.  One
 * operation is the parent's write plus its read of the answer, so the time
 * holds two pipe transfers, two wake-ups and, with the two processes on
 * one CPU, two context switches.  Starting the peer is not timed.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

static int
run(struct trial *t)
{
	size_t size;
	int to[2], from[2];

	if ((size = ipc_pingpong_size(t)) == 0)
		return -1;
	if (pipe(to) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "pipe: %s", strerror(errno));
	if (pipe(from) != 0) {
		close(to[0]);
		close(to[1]);
		return trial_error(t, WIRE_ERR_BENCH, "pipe: %s", strerror(errno));
	}
	/* the peer reads to[0] and answers on from[1]; we write to[1], read from[0] */
	return ipc_pingpong(t, to[0], from[1], from[0], to[1], size, 0,
	    "round trip over a pair of pipes");
}

static const struct bench_param params[] = {
	IPC_PINGPONG_SIZE_PARAM,
	TIMING_SAMPLING_PARAM,
	TIMING_INTERVAL_PARAM("1000000", "1000000, lat_pipe's SHORT whatever ENOUGH says"),
	{ NULL, 0, NULL, NULL, NULL }
};

BENCH(lat_pipe, "round-trip latency over a pair of pipes",
    "lmbench lat_pipe (*Local* Communication latencies: Pipe)", params,
    ipc_pingpong_metrics, run);
