/*
 * lat_pagefault: faulting in pages of a file mapping, lmbench's "Page
 * Fault" column (File & VM system latencies).
 *
 * As lmbench's lat_pagefault: a `size` byte file is mapped read-only and
 * shared, and msync(MS_INVALIDATE) is asked to drop the mapped pages.  One
 * operation reads one byte of every page, in a fixed random order, then
 * unmaps, maps again and invalidates again for the next operation.  The
 * same remapping without the reads is measured in the same trial and its
 * median subtracted; what remains, divided by the number of pages, is the
 * time to fault in a page.  Microseconds per page.
 *
 * On Linux MS_INVALIDATE drops nothing from the page cache, so these are
 * minor faults of cached pages, and with fault-around (since 3.15) one
 * fault maps up to 16 neighbouring cached pages, so not every page read
 * faults: the number is the average cost per page touched, as lmbench's
 * is.  The file is written in the scratch directory first, as lmbench's
 * scripts write the $FILE it uses (lmdd: 8 KB writes and an fsync; see
 * ipc.h), and opened read-only, as lmbench opens it; the default size is
 * 8 MB, lmbench's default file size, and lmbench insists on at least 1 MB.
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

#define PAGEFAULT_FILE		"lat_pagefault.file"
#define MIN_SIZE	(1024 * 1024)

struct ctx {
	int	 fd;
	size_t	 size;		/* a whole number of pages */
	size_t	 npages;
	size_t	*offs;		/* byte offset of each page, in visiting order */
	char	*where;		/* the current mapping, or MAP_FAILED */
	int	 err;		/* errno of a failed mmap or msync, or 0 */
};

static volatile unsigned char sink;

/* Map the file afresh and invalidate it, as lmbench does between passes. */
static void
remap(struct ctx *c)
{
	if (c->where != MAP_FAILED)
		(void)munmap(c->where, c->size);
	c->where = mmap(NULL, c->size, PROT_READ, MAP_SHARED, c->fd, 0);
	if (c->where == MAP_FAILED) {
		c->err = errno;
		return;
	}
	if (msync(c->where, c->size, MS_INVALIDATE) != 0)
		c->err = errno;
}

static void
do_remap(uint64_t n, void *arg)
{
	struct ctx *c = arg;

	while (n-- && c->err == 0)
		remap(c);
}

static void
do_faults(uint64_t n, void *arg)
{
	struct ctx *c = arg;
	unsigned char s = 0;
	size_t i;

	while (n-- && c->err == 0) {
		for (i = 0; i < c->npages; i++)
			s += *(volatile unsigned char *)(c->where + c->offs[i]);
		remap(c);
	}
	sink = s;
}

/* The pages in a random order, the same in every trial (xorshift). */
static void
shuffle(size_t *offs, size_t npages, size_t pagesize)
{
	uint32_t x = 2463534242U;
	size_t i, j, tmp;

	for (i = 0; i < npages; i++)
		offs[i] = i * pagesize;
	for (i = npages - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		j = (size_t)(x % (uint32_t)(i + 1));
		tmp = offs[i];
		offs[i] = offs[j];
		offs[j] = tmp;
	}
}

static int
run(struct trial *t)
{
	long long size = trial_int(t, "size");
	long ps = sysconf(_SC_PAGESIZE);
	int n = trial_samples(t), i, rc = 0;
	double *base = NULL, *v = NULL;
	struct ctx c;
	uint64_t iters = 0;

	if (ps <= 0)
		ps = 4096;
	if (size < MIN_SIZE || (uint64_t)size > (uint64_t)SIZE_MAX / 2)
		return trial_error(t, WIRE_ERR_REQUEST, "size must be at least 1M (and fit the "
		    "address space)");
	memset(&c, 0, sizeof(c));
	c.fd = -1;
	c.where = MAP_FAILED;
	c.npages = (size_t)size / (size_t)ps;
	c.size = c.npages * (size_t)ps;
	c.offs = calloc(c.npages, sizeof(*c.offs));
	base = calloc((size_t)n, sizeof(*base));
	v = calloc((size_t)n, sizeof(*v));
	if (c.offs == NULL || base == NULL || v == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	shuffle(c.offs, c.npages, (size_t)ps);
	if ((c.fd = ipc_lmbench_file(t, PAGEFAULT_FILE, c.size, O_RDONLY)) < 0) {
		rc = -1;
		goto out;
	}
	remap(&c);
	if (c.err == 0 && timing_measure(t, do_remap, &c, NULL, base, n) > 0)
		iters = timing_measure(t, do_faults, &c, NULL, v, n);
	if (c.err != 0) {
		rc = trial_error(t, WIRE_ERR_UNSUPPORTED, "mmap/msync of %s: %s", PAGEFAULT_FILE,
		    strerror(c.err));
		goto out;
	}
	if (iters == 0) {
		rc = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring");
		goto out;
	}
	samples_subtract(v, n, samples_median(base, n));
	for (i = 0; i < n; i++)
		v[i] = v[i] / (double)c.npages / 1e3;
	trial_metric(t, "latency", v, n, iters * c.npages);
out:
	if (c.where != MAP_FAILED)
		(void)munmap(c.where, c.size);
	if (c.fd >= 0)
		close(c.fd);
	free(c.offs);
	free(base);
	free(v);
	return rc;
}

static const struct bench_param params[] = {
	{ "size", PARAM_INT, "8M", "bytes of the file mapped (at least 1M, as lmbench)",
	    "1M.." },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per page read in after the mapping was "
	    "invalidated, remapping subtracted" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_pagefault, "cost of faulting in the pages of a file mapping",
    "lmbench lat_pagefault (File & VM: Page Fault)", params, metrics, run);
