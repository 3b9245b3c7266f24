/*
 * lat_mmap: making and breaking a file mapping, lmbench's "Mmap Latency"
 * column (File & VM system latencies).
 *
 * One operation, as lmbench's lat_mmap does it: mmap() `size` bytes of a
 * file shared and writable, store one byte every 16 KB over the first
 * tenth of the mapping (the "sparse and full mappings" algorithm lmbench
 * credits to Linus), munmap().  The file is written in the trial's scratch
 * directory first, as lmbench's scripts write their $FILE (lmdd: 8 KB
 * writes and an fsync, see ipc.h; the write size decides how the page
 * cache holds it, and the cost of the faults), with real data (a hole
 * would make the stores allocate blocks), and is in the page cache, so the
 * stores are minor write faults.  It is opened read-write, as lmbench
 * opens it.
 *
 * lmbench runs it for sizes up to the size of its test file and its
 * summary reports the largest (it warns below 4 MB); the default here is
 * 8 MB, lmbench's default file size.  Microseconds per operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

#define MMAP_FILE	"lat_mmap.file"
#define STRIDE		(16 * 1024)	/* lmbench's PSIZE */
#define MIN_SIZE	(2 * 10 * STRIDE)	/* lmbench's MINSIZE */

struct ctx {
	int	fd;
	size_t	size;
	int	err;		/* errno of a failed mmap, or 0 */
};

static void
do_mmap(uint64_t n, void *arg)
{
	struct ctx *c = arg;
	char *p, *q, *end, v = (char)(c->size & 0xff);

	while (n-- && c->err == 0) {
		p = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
		if (p == MAP_FAILED) {
			c->err = errno;
			return;
		}
		end = p + c->size / 10;
		for (q = p; q < end; q += STRIDE)
			*(volatile char *)q = v;
		(void)munmap(p, c->size);
	}
}

static int
run(struct trial *t)
{
	long long size = trial_int(t, "size");
	int n = trial_samples(t), i, rc = 0;
	struct ctx c = { -1, 0, 0 };
	uint64_t iters;
	double *v;

	if (size < MIN_SIZE || (uint64_t)size > (uint64_t)SIZE_MAX / 2)
		return trial_error(t, WIRE_ERR_REQUEST, "size must be at least %d bytes (and "
		    "fit the address space)", MIN_SIZE);
	c.size = (size_t)size;
	if ((v = calloc((size_t)n, sizeof(*v))) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory");
	if ((c.fd = ipc_lmbench_file(t, MMAP_FILE, c.size, O_RDWR)) < 0) {
		free(v);
		return -1;
	}
	iters = timing_measure(t, do_mmap, &c, NULL, v, n);
	if (c.err != 0)
		rc = trial_error(t, WIRE_ERR_UNSUPPORTED, "mmap %zu bytes of %s: %s", c.size,
		    MMAP_FILE, strerror(c.err));
	else if (iters == 0)
		rc = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring");
	else {
		for (i = 0; i < n; i++)
			v[i] /= 1e3;
		trial_metric(t, "latency", v, n, iters);
	}
	close(c.fd);
	free(v);
	return rc;
}

static const struct bench_param params[] = {
	{ "size", PARAM_INT, "8M", "bytes mapped (at least 320K, as lmbench)", "320K.." },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per mmap, stores every 16 KB over a tenth, munmap" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_mmap, "cost of mapping a file, touching it sparsely and unmapping it",
    "lmbench lat_mmap (File & VM: Mmap Latency)", params, metrics, run);
