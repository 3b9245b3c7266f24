/*
 * bw_unix: bandwidth of an AF_UNIX stream socket between two processes,
 * lmbench's "AF UNIX" column of "*Local* Communication bandwidths".
 *
 * As lmbench's bw_unix: socketpair(AF_UNIX, SOCK_STREAM); a forked peer
 * writes `msg`-byte chunks (64K) without end; one operation is the parent
 * reading `total` bytes (10M) in reads of at most `msg` bytes.  Bandwidth
 * is total over the time of an operation, in MB/s of 10^6 bytes.  (lmbench
 * has the reader ask for each 10M over a control pipe; a writer that never
 * stops moves the same bytes, without the extra pipe round trip.)
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
	long long msg = trial_int(t, "msg"), total = trial_int(t, "total");
	int sv[2];

	if (msg < 1 || msg > 64LL * 1024 * 1024)
		return trial_error(t, WIRE_ERR_REQUEST, "msg must be 1 byte to 64M");
	if (total < 1 || total > (1LL << 40))
		return trial_error(t, WIRE_ERR_REQUEST, "total must be 1 byte to 1T");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return trial_error(t, errno == EAFNOSUPPORT ? WIRE_ERR_UNSUPPORTED : WIRE_ERR_BENCH,
		    "socketpair(AF_UNIX): %s", strerror(errno));
	return ipc_stream(t, sv[0], sv[1], (size_t)msg, (uint64_t)total,
	    "reading from the AF_UNIX socket");
}

static const struct bench_param params[] = {
	{ "msg", PARAM_INT, "64K", "bytes per write and largest read (lmbench: 64K)", NULL },
	{ "total", PARAM_INT, "10M", "bytes read per timed operation (lmbench: 10M)", NULL },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "bandwidth", "MB/s", 1, "bytes through the socket per second, 10^6" },
	{ NULL, NULL, 0, NULL }
};

const struct bench bench_bw_unix = {
	"bw_unix", "bandwidth of an AF_UNIX stream socket pair",
	"lmbench bw_unix (*Local* Communication bandwidths: AF UNIX)",
	params, metrics, run, NULL
};
