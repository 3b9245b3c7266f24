/*
 * pagefault: first-touch page fault latency, file-backed and anonymous, as
 * the page-fault latency mail estimates it: map, touch one page, and time
 * that touch alone.
 *
 * One run maps a `size` byte region, reads the clock, touches one page,
 * reads the clock, then touches the same page again between two more clock
 * reads, and unmaps.  The second touch finds the page mapped: it is the
 * timer overhead plus the access itself, and subtracting it from the first
 * leaves the fault.  Both are first corrected by the clock overhead
 * measured at start-up (the mail's "timer overhead"), so a second touch
 * quicker than the clock counts as zero, not as a negative access.  What
 * is subtracted is the median second touch of the batch, not each run's
 * own: an interrupt landing in one second touch would otherwise make that
 * run's fault tens of microseconds negative.  Every run uses a fresh
 * mapping, so every first touch is a first touch; the mapping and
 * unmapping are outside the timed window.
 *
 *   file_fault  a read of a page of a file in the scratch directory, mapped
 *               shared and read-only; the file is in the page cache, so
 *               this is a minor fault, including whatever fault-around maps
 *               with it.  The page touched moves through the file from run
 *               to run.
 *   anon_fault  a write to a page of private anonymous memory: a zeroed
 *               page allocated and mapped (a read would only map the shared
 *               zero page).
 *
 * A sample is the mean over a batch of `runs` runs of each kind (100 by
 * default, as in the mail), in nanoseconds; the samples are the batches.
 * minor_faults and major_faults are getrusage() deltas over a batch
 * divided by the number of first touches (both kinds): 1 and 0 when every
 * touch faulted once and nothing came from disk.  Notes name the transparent huge page mode and
 * the fault-around size (read from debugfs when it is mounted and
 * readable), which change what one touch costs, and the scratch directory's
 * file system.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#include "bench.h"
#include "facts.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

#define PAGEFAULT_FILE		"pagefault.file"
#define FAULT_AROUND	"/sys/kernel/debug/fault_around_bytes"
#define MAX_RUNS	100000

struct pf {
	int	 fd;
	size_t	 size;		/* bytes mapped per run, whole pages */
	size_t	 pagesize;
	size_t	 npages;
	size_t	 next;		/* next file page to touch */
	double	*first;		/* per run of a batch: first touch, ns */
	double	*again;		/* per run of a batch: the touch repeated, ns */
};

static volatile unsigned char sink;

/* ns of an interval, less the clock overhead, never below zero. */
static double
net(double t0, double t1)
{
	double d = t1 - t0 - timing_clock_overhead();

	return d > 0 ? d : 0;
}

/* One file run: the two touches' ns into *first and *again; 0 or errno. */
static int
file_run(struct pf *p, double *first, double *again)
{
	volatile unsigned char *q;
	unsigned char s;
	double t0, t1, t2, t3;
	char *m;

	m = mmap(NULL, p->size, PROT_READ, MAP_SHARED, p->fd, 0);
	if (m == MAP_FAILED)
		return errno;
	q = (volatile unsigned char *)(m + p->next * p->pagesize);
	p->next = (p->next + 1) % p->npages;
	t0 = timing_now();
	s = *q;
	t1 = timing_now();
	t2 = timing_now();
	s += *q;
	t3 = timing_now();
	sink = s;
	(void)munmap(m, p->size);
	*first = net(t0, t1);
	*again = net(t2, t3);
	return 0;
}

/* One anonymous run: the two touches' ns into *first and *again; 0 or errno. */
static int
anon_run(struct pf *p, double *first, double *again)
{
	volatile unsigned char *q;
	double t0, t1, t2, t3;
	char *m;

	m = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return errno;
	/* The middle of the region: no neighbouring mapping to merge with. */
	q = (volatile unsigned char *)(m + (p->npages / 2) * p->pagesize);
	t0 = timing_now();
	*q = 1;
	t1 = timing_now();
	t2 = timing_now();
	*q = 2;
	t3 = timing_now();
	(void)munmap(m, p->size);
	*first = net(t0, t1);
	*again = net(t2, t3);
	return 0;
}

/* Mean of first[] less the median of again[], over n runs. */
static double
fault_mean(const double *first, const double *again, long n)
{
	double sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += first[i];
	return sum / (double)n - samples_median(again, (int)n);
}

/*
 * One batch: runs of each kind; mean fault ns of each, and faults per
 * first touch from getrusage.  0 or errno.
 */
static int
batch(struct pf *p, long runs, double *file_ns, double *anon_ns, double *minflt,
    double *majflt)
{
	struct rusage r0, r1;
	long i;
	int e;

	if (getrusage(RUSAGE_SELF, &r0) != 0)
		return errno;
	for (i = 0; i < runs; i++)
		if ((e = file_run(p, &p->first[i], &p->again[i])) != 0)
			return e;
	*file_ns = fault_mean(p->first, p->again, runs);
	for (i = 0; i < runs; i++)
		if ((e = anon_run(p, &p->first[i], &p->again[i])) != 0)
			return e;
	*anon_ns = fault_mean(p->first, p->again, runs);
	if (getrusage(RUSAGE_SELF, &r1) != 0)
		return errno;
	*minflt = (double)(r1.ru_minflt - r0.ru_minflt) / (2.0 * (double)runs);
	*majflt = (double)(r1.ru_majflt - r0.ru_majflt) / (2.0 * (double)runs);
	return 0;
}

/* The first line of a small file, newline cut; -1 when unreadable. */
static int
read_line(const char *path, char *buf, size_t cap)
{
	FILE *f;
	char *nl;

	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (fgets(buf, (int)cap, f) == NULL) {
		fclose(f);
		return -1;
	}
	fclose(f);
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	return 0;
}

static void
notes(struct trial *t)
{
	char buf[256];

	if (facts_thp(buf, sizeof(buf)) == 0)
		trial_note(t, "THP %s", buf);
	else
		trial_note(t, "THP unknown");
	if (read_line(FAULT_AROUND, buf, sizeof(buf)) == 0)
		trial_note(t, "fault-around %s bytes", buf);
	else
		trial_note(t, "fault-around unknown (%s not readable)", FAULT_AROUND);
	facts_note_scratch_fs(t);
}

static int
run(struct trial *t)
{
	long long runs = trial_int(t, "runs"), size = trial_int(t, "size");
	long ps = sysconf(_SC_PAGESIZE);
	int n = trial_samples(t), i, e, rc = 0;
	double *fv = NULL, *av = NULL, *minv = NULL, *majv = NULL, d1, d2, d3, d4;
	struct pf p;

	if (runs < 1 || runs > MAX_RUNS)
		return trial_error(t, WIRE_ERR_REQUEST, "runs must be 1 to %d", MAX_RUNS);
	if (ps <= 0)
		ps = 4096;
	if (size < ps || (uint64_t)size > (uint64_t)SIZE_MAX / 2)
		return trial_error(t, WIRE_ERR_REQUEST, "size must be at least one page (%ld bytes)",
		    ps);
	memset(&p, 0, sizeof(p));
	p.fd = -1;
	p.pagesize = (size_t)ps;
	p.npages = (size_t)size / p.pagesize;
	p.size = p.npages * p.pagesize;
	p.first = calloc((size_t)runs, sizeof(*p.first));
	p.again = calloc((size_t)runs, sizeof(*p.again));
	fv = calloc((size_t)n, sizeof(*fv));
	av = calloc((size_t)n, sizeof(*av));
	minv = calloc((size_t)n, sizeof(*minv));
	majv = calloc((size_t)n, sizeof(*majv));
	if (p.first == NULL || p.again == NULL || fv == NULL || av == NULL ||
	    minv == NULL || majv == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	notes(t);
	if ((p.fd = ipc_file_open_new(t, PAGEFAULT_FILE, p.size)) < 0) {
		rc = -1;
		goto out;
	}
	/* Warm up: one batch discarded (code, page tables, the clock). */
	if ((e = batch(&p, runs, &d1, &d2, &d3, &d4)) != 0) {
		rc = trial_error(t, WIRE_ERR_UNSUPPORTED, "mmap of %zu bytes: %s", p.size,
		    strerror(e));
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (trial_expired(t)) {
			rc = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached after %d batches", i);
			goto out;
		}
		if ((e = batch(&p, runs, &fv[i], &av[i], &minv[i], &majv[i])) != 0) {
			rc = trial_error(t, WIRE_ERR_BENCH, "mmap of %zu bytes: %s", p.size,
			    strerror(e));
			goto out;
		}
	}
	trial_metric(t, "file_fault", fv, n, (uint64_t)runs);
	trial_metric(t, "anon_fault", av, n, (uint64_t)runs);
	trial_metric(t, "minor_faults", minv, n, (uint64_t)runs * 2);
	trial_metric(t, "major_faults", majv, n, (uint64_t)runs * 2);
out:
	if (p.fd >= 0)
		close(p.fd);
	free(p.first);
	free(p.again);
	free(fv);
	free(av);
	free(minv);
	free(majv);
	return rc;
}

static const struct bench_param params[] = {
	{ "runs", PARAM_INT, "100", "first touches of each kind averaged in one sample",
	    "1..100000" },
	{ "size", PARAM_INT, "1M", "bytes mapped for each run (the file's size too); "
	    "from 4M on THP may serve the anonymous touch", NULL },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "file_fault", "ns", 0, "first read of a page of a cached file mapping, "
	    "timer and mapped touch subtracted" },
	{ "anon_fault", "ns", 0, "first write to a page of anonymous memory, "
	    "timer and mapped touch subtracted" },
	{ "minor_faults", "faults/touch", 0, "minor faults per first touch (getrusage)" },
	{ "major_faults", "faults/touch", 0, "major faults per first touch (getrusage)" },
	{ NULL, NULL, 0, NULL }
};

BENCH(pagefault, "first-touch page fault latency, file-backed and anonymous",
    "the page-fault latency mail (mmap, touch a page, timer and re-touch subtracted)",
    params, metrics, run);
