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
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "bench.h"
#include "ipc.h"
#include "wire.h"

static int
run(struct trial *t)
{
	long long size = trial_int(t, "size");
	int sv[2];

	if (size < 1 || size > 1024 * 1024)
		return trial_error(t, WIRE_ERR_REQUEST, "size must be 1 byte to 1M");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return trial_error(t, errno == EAFNOSUPPORT ? WIRE_ERR_UNSUPPORTED : WIRE_ERR_BENCH,
		    "socketpair(AF_UNIX): %s", strerror(errno));
	return ipc_pingpong(t, sv[0], sv[0], sv[1], sv[1], (size_t)size, 0,
	    "round trip over an AF_UNIX socket pair");
}

static const struct bench_param params[] = {
	{ "size", PARAM_INT, "1", "bytes per message (lmbench: 1)", NULL },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "round trip of one message between two processes" },
	{ NULL, NULL, 0, NULL }
};

const struct bench bench_lat_unix = {
	"lat_unix", "round-trip latency over an AF_UNIX stream socket pair",
	"lmbench lat_unix (*Local* Communication latencies: AF UNIX)",
	params, metrics, run, NULL
};
