/*
 * bw_pipe: bandwidth of a pipe between two processes, lmbench's "Pipe"
 * column of "*Local* Communication bandwidths".
 *
 * As lmbench's bw_pipe: a forked peer writes `msg`-byte chunks (64K) into
 * a pipe without end; one operation is the parent reading `total` bytes
 * (10M) from it in reads of at most `msg` bytes.  Bandwidth is total over
 * the time of an operation, in MB/s of 10^6 bytes.  The pipe keeps the
 * kernel's default capacity, as in lmbench.
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
	long long msg = trial_int(t, "msg"), total = trial_int(t, "total");
	int p[2];

	if (msg < 1 || msg > 64LL * 1024 * 1024)
		return trial_error(t, WIRE_ERR_REQUEST, "msg must be 1 byte to 64M");
	if (total < 1 || total > (1LL << 40))
		return trial_error(t, WIRE_ERR_REQUEST, "total must be 1 byte to 1T");
	if (pipe(p) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "pipe: %s", strerror(errno));
	return ipc_stream(t, p[0], p[1], (size_t)msg, (uint64_t)total,
	    "reading from the pipe");
}

static const struct bench_param params[] = {
	{ "msg", PARAM_INT, "64K", "bytes per write and largest read (lmbench: 64K)", NULL },
	{ "total", PARAM_INT, "10M", "bytes read per timed operation (lmbench: 10M)", NULL },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "bandwidth", "MB/s", 1, "bytes through the pipe per second, 10^6" },
	{ NULL, NULL, 0, NULL }
};

const struct bench bench_bw_pipe = {
	"bw_pipe", "bandwidth of a pipe between two processes",
	"lmbench bw_pipe (*Local* Communication bandwidths: Pipe)",
	params, metrics, run, NULL
};
