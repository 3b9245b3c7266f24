/*
 * bw_mmap_rd: reading a cached file through a mapping, lmbench's "Mmap
 * reread" column of "*Local* Communication bandwidths".
 *
 * As lmbench's bw_mmap_rd: a file of `size` bytes (8M: the largest point
 * of lmbench's summary run with its default MB=8) is written to the
 * trial's scratch directory as lmbench's scripts write theirs (lmdd: 8 KB
 * writes, fsync).  With mode=mmap_only (the summary's) it is mapped once,
 * read-only and shared, and one operation sums every long of the mapping
 * (lmbench's bread(), ipc_bread()); the page faults that map it happen in
 * the untimed first pass (lmbench's happen in its first, discarded runs).
 * With mode=open2close one operation is open, mmap, sum, munmap and close,
 * so it includes mapping the file and faulting it in.
 * Bandwidth is size over the time of an operation, in MB/s of 10^6 bytes.
 * A note names the file system of the scratch directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

#define FILE_NAME	"bw_mmap_rd.data"

struct mapread {
	void	*map;		/* mmap_only: mapped all along */
	size_t	 size;
	int	 err;
};

static volatile unsigned long sink;

static void
sum_mapped(uint64_t n, void *arg)
{
	struct mapread *m = arg;
	unsigned long sum = 0;

	while (n-- > 0)
		sum += ipc_bread(m->map, m->size);
	sink = sum;
}

static void
map_and_sum(uint64_t n, void *arg)
{
	struct mapread *m = arg;
	unsigned long sum = 0;
	void *p;
	int fd;

	if (m->err)
		return;
	while (n-- > 0) {
		if ((fd = open(FILE_NAME, O_RDONLY)) < 0) {
			m->err = errno;
			return;
		}
		if ((p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED) {
			m->err = errno;
			close(fd);
			return;
		}
		sum += ipc_bread(p, m->size);
		munmap(p, m->size);
		close(fd);
	}
	sink = sum;
}

static int
run(struct trial *t)
{
	long long size = trial_int(t, "size");
	struct mapread m = { NULL, 0, 0 };
	timing_fn fn;
	int fd, rc, e;

	/* all of it is mapped at once: on 32 bits, stay well inside the address space */
	if (size < 512 || (uint64_t)size > (sizeof(void *) < 8 ? 1ULL << 30 : 16ULL << 30))
		return trial_error(t, WIRE_ERR_REQUEST, "size must be 512 bytes to %s",
		    sizeof(void *) < 8 ? "1G on a 32-bit host" : "16G");
	m.size = (size_t)size;
	if (ipc_reread_file(t, FILE_NAME, (uint64_t)size) != 0)
		return -1;
	if (strcmp(trial_str(t, "mode"), "open2close") == 0)
		fn = map_and_sum;
	else {
		if ((fd = open(FILE_NAME, O_RDONLY)) < 0) {
			rc = trial_error(t, WIRE_ERR_BENCH, "open %s: %s", FILE_NAME, strerror(errno));
			goto out;
		}
		m.map = mmap(NULL, m.size, PROT_READ, MAP_SHARED, fd, 0);
		e = errno;
		close(fd);	/* the mapping keeps the file */
		if (m.map == MAP_FAILED) {
			m.map = NULL;
			rc = trial_error(t, WIRE_ERR_BENCH, "mmap %s: %s", FILE_NAME, strerror(e));
			goto out;
		}
		fn = sum_mapped;
	}
	fn(1, &m);	/* the file into the page cache, and mmap_only's pages into the map */
	rc = ipc_report(t, "bandwidth", fn, &m, &m.err, NULL, (double)m.size,
	    "reading the mapped file");
out:
	if (m.map != NULL)
		munmap(m.map, m.size);
	unlink(FILE_NAME);
	return rc;
}

static const struct bench_param params[] = {
	{ "size", PARAM_INT, "8M", "bytes in the file, all summed per operation (lmbench summary: 8M)", "512..16G" },
	{ "mode", PARAM_ENUM, "mmap_only", "mmap_only: map once (the summary's); open2close: open, map, unmap, close per operation",
	  "mmap_only|open2close" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "bandwidth", "MB/s", 1, "bytes of a mapped cached file summed per second, 10^6" },
	{ NULL, NULL, 0, NULL }
};

BENCH(bw_mmap_rd, "reading a cached file through mmap",
    "lmbench bw_mmap_rd (*Local* Communication bandwidths: Mmap reread)", params, metrics, run);
