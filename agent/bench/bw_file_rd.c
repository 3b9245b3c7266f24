/*
 * bw_file_rd: rereading a file that is in the page cache with read(),
 * lmbench's "File reread" column of "*Local* Communication bandwidths".
 *
 * As lmbench's bw_file_rd: a file of `size` bytes (8M: the largest point
 * of lmbench's summary run with its default MB=8) is written to the
 * trial's scratch directory as lmbench's scripts write theirs (lmdd: 8 KB
 * writes, fsync) and read once, so it is cached.  One operation reads all
 * of it with read() calls of `block` bytes (64K, lmbench's XFERSIZE) and
 * sums every long of each block (lmbench's bread(), ipc_bread()), which is
 * how lmbench makes sure the data reaches the CPU and not only the buffer.
 * mode=
 * io_only (the summary's) keeps the file open and seeks back to the start
 * each time; open2close opens and closes it in every operation.  Bandwidth
 * is size over the time of an operation, in MB/s of 10^6 bytes.  A note
 * names the file system of the scratch directory: tmpfs and a disk file
 * system take different paths through the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

#define FILE_NAME	"bw_file_rd.data"

struct reread {
	int		 fd;		/* io_only: open all along */
	int		 open2close;
	uint64_t	 size;
	size_t		 block;
	char		*buf;
	int		 err;
};

static volatile unsigned long sink;

static void
reread(uint64_t n, void *arg)
{
	struct reread *r = arg;
	unsigned long sum = 0;
	uint64_t left;
	ssize_t got;
	int fd;

	if (r->err)
		return;
	while (n-- > 0) {
		if (!r->open2close) {
			fd = r->fd;
			if (lseek(fd, 0, SEEK_SET) != 0) {
				r->err = errno;
				return;
			}
		} else if ((fd = open(FILE_NAME, O_RDONLY)) < 0) {
			r->err = errno;
			return;
		}
		for (left = r->size; left > 0; left -= (uint64_t)got) {
			got = read(fd, r->buf, left < r->block ? (size_t)left : r->block);
			if (got > 0) {
				sum += ipc_bread(r->buf, (size_t)got);
				continue;
			}
			if (got < 0 && errno == EINTR) {
				got = 0;
				continue;
			}
			r->err = got == 0 ? ENODATA : errno;	/* ENODATA: it shrank */
			break;
		}
		if (r->open2close)
			close(fd);
		if (r->err)
			return;
	}
	sink = sum;
}

static int
run(struct trial *t)
{
	long long size = trial_int(t, "size"), block = trial_int(t, "block");
	struct reread r;
	int rc;

	if (size < 512 || size > (16LL << 30))
		return trial_error(t, WIRE_ERR_REQUEST, "size must be 512 bytes to 16G");
	if (block < 4 || block > 64LL * 1024 * 1024)
		return trial_error(t, WIRE_ERR_REQUEST, "block must be 4 bytes to 64M");
	memset(&r, 0, sizeof(r));
	r.fd = -1;
	r.open2close = strcmp(trial_str(t, "mode"), "open2close") == 0;
	r.size = (uint64_t)size;
	r.block = (size_t)block;
	if ((r.buf = ipc_alloc(r.block)) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory for a %lld-byte block", block);
	if (ipc_reread_file(t, FILE_NAME, r.size) != 0) {
		free(r.buf);
		return -1;
	}
	if ((r.fd = open(FILE_NAME, O_RDONLY)) < 0) {
		rc = trial_error(t, WIRE_ERR_BENCH, "open %s: %s", FILE_NAME, strerror(errno));
		goto out;
	}
	reread(1, &r);	/* into the page cache, whatever happened to it since the write */
	rc = ipc_report(t, "bandwidth", reread, &r, &r.err, NULL, (double)r.size,
	    "rereading the file");
out:
	ipc_close(&r.fd);
	unlink(FILE_NAME);
	free(r.buf);
	return rc;
}

static const struct bench_param params[] = {
	{ "size", PARAM_INT, "8M", "bytes in the file, all read per operation (lmbench summary: 8M)", "512..16G" },
	{ "block", PARAM_INT, "64K", "bytes per read() (lmbench: 64K)", "4..64M" },
	{ "mode", PARAM_ENUM, "io_only", "io_only: open once (the summary's); open2close: open and close per operation",
	  "io_only|open2close" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "bandwidth", "MB/s", 1, "bytes of a cached file read and summed per second, 10^6" },
	{ NULL, NULL, 0, NULL }
};

BENCH(bw_file_rd, "rereading a cached file with read()",
    "lmbench bw_file_rd (*Local* Communication bandwidths: File reread)", params, metrics, run);
