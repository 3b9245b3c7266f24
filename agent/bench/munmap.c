/*
 * munmap: what unmapping memory costs while other threads of the process
 * run, and what it costs them: the TLB shootdown of the 2012 "x86 tlb
 * flush range" mail (Alex Shi's munmap macrobenchmark).
 *
 * `threads` threads make `accesses` random one-byte accesses per round
 * (reads, or writes with write=1) to a `region`-byte region, round after
 * round, while the main thread maps, touches and unmaps `pages`-page
 * mappings.  As in the mail, a thread's offsets are drawn once and every
 * round repeats them: the data stays in the caches, and what the thread
 * keeps or loses to a flush is the TLB entries of those `accesses` pages.  Every page of a mapping has been touched, so each munmap
 * clears `pages` PTEs and must flush them from every CPU that runs the mm:
 * a range flush of `pages` pages, or a full flush past the kernel's ceiling
 * (x86: tlb_single_page_flush_ceiling, 33 pages since 3.15), after which
 * the threads refill their TLBs.
 *
 * A sample is one round of at least 30 ms: batches of mappings are mapped
 * and touched (not timed), then unmapped back to back (timed), the
 * threads' progress being counted over exactly those unmap windows.  The metrics
 * are the mail's:
 *   ns_per_munmap           unmap window time / munmaps
 *   ns_per_access           unmap window time x threads / accesses
 *   accesses_per_thread_ms  accesses / threads / unmap window milliseconds
 * threads=0 is the mail's "-t 0": no other thread runs the mm, so no IPI is
 * needed, and the main thread itself makes `accesses` accesses after each
 * munmap, timed apart.
 *
 * Differences from the 2012 program: it mapped 1 GB worth of chunks up
 * front, wrote only the first page of each and timed a single pass of
 * munmaps; here mappings come in batches of at most 8 MB, every page is
 * written (so the flush covers `pages` pages whatever the kernel's range
 * tracking) and a round is sized by time.  Its accessed region was a 1 GB
 * shared anonymous mapping (hugetlbfs with -h); here it is a 16 MB private
 * anonymous mapping that the threads share through their common mm, with
 * MADV_HUGEPAGE (huge=1) or MADV_NOHUGEPAGE (huge=0), so its page size
 * does not depend on the host's THP default and THP for anonymous memory,
 * not shmem's setting, applies.  The unmapped chunks are shared anonymous
 * mappings as there, which keeps each its own VMA (private ones would
 * merge with their neighbours).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "facts.h"
#include "timing.h"
#include "wire.h"

#define TARGET_NS	30e6		/* length of one sample */
#define MAX_ROUND_NS	10e9		/* ... unless the threads made no progress */
#define BATCH_BYTES	(8 << 20)	/* mapped at once, at most */
#define MAX_BATCH	1024
#define MAX_THREADS	1024
#define MAX_OFFSETS	(4 << 20)	/* threads x accesses */
#define THREAD_STACK	(256 * 1024)
#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"

/* A thread's progress counter, alone on its cache line (128: POWER's). */
union counter {
	struct {
		volatile unsigned long	rounds;
		volatile unsigned long	sink;
	} c;
	char	pad[128];
};

/* What the main thread and the accessing threads share. */
struct shared {
	volatile char	*base;		/* the accessed region */
	long		 accesses;	/* per round */
	int		 write;
	volatile int	 stop;
};

struct worker {
	struct shared	*sh;
	size_t		*off;		/* `accesses` offsets into the region */
	union counter	*ctr;
	pthread_t	 thread;
	int		 started;
};

struct state {
	struct shared	 sh;
	int		 threads;
	struct worker	*w;
	union counter	*ctrs;
	size_t		*main_off;	/* threads=0: the main thread's accesses */
	unsigned long	 sink;
	size_t		 pagesize;
	size_t		 chunk;		/* bytes per mapping */
	void		**maps;		/* one batch */
	double		 clock_ns;	/* cost of one pair of clock reads */
};

struct round {
	double	unmap_ns;	/* total of the unmap windows */
	double	access_ns;	/* threads=0: total of the main thread's accesses */
	double	accesses;	/* made during the unmap windows */
	double	wall_ns;
	long	munmaps;
};

static unsigned long
access_round(const struct shared *sh, const size_t *off)
{
	volatile char *b = sh->base;
	unsigned long sum = 0;
	long k;

	if (sh->write)
		for (k = 0; k < sh->accesses; k++)
			b[off[k]] = 1;
	else
		for (k = 0; k < sh->accesses; k++)
			sum += (unsigned char)b[off[k]];
	return sum;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long sum = 0;

	while (!w->sh->stop) {
		sum += access_round(w->sh, w->off);
		w->ctr->c.rounds++;
	}
	w->ctr->c.sink = sum;
	return NULL;
}

/* A fixed random sequence per thread (xorshift64*), cheap and repeatable. */
static void
random_offsets(size_t *off, long n, size_t region, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	long k;

	for (k = 0; k < n; k++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		off[k] = (size_t)((x * 0x2545f4914f6cdd1dULL) % region);
	}
}

/* Rounds completed by all threads; differences are exact modulo 2^bits. */
static unsigned long
progress(const struct state *s)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < s->threads; i++)
		sum += s->ctrs[i].c.rounds;
	return sum;
}

/* Map and touch n mappings, then unmap them back to back, timing that. */
static int
one_batch(struct trial *t, struct state *s, int n, struct round *r)
{
	unsigned long before, after;
	double t0, t1, t2;
	size_t off;
	int i, e;

	for (i = 0; i < n; i++) {
		s->maps[i] = mmap(NULL, s->chunk, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		    -1, 0);
		if (s->maps[i] == MAP_FAILED) {
			e = errno;
			while (i-- > 0)
				munmap(s->maps[i], s->chunk);
			return trial_error(t, WIRE_ERR_BENCH, "mmap of %zu bytes: %s", s->chunk,
			    strerror(e));
		}
		for (off = 0; off < s->chunk; off += s->pagesize)
			((volatile char *)s->maps[i])[off] = 1;
	}
	before = progress(s);
	t0 = timing_now();
	for (i = 0; i < n; i++) {
		if (munmap(s->maps[i], s->chunk) != 0) {
			e = errno;
			while (++i < n)
				munmap(s->maps[i], s->chunk);
			return trial_error(t, WIRE_ERR_BENCH, "munmap: %s", strerror(e));
		}
		if (s->threads == 0) {
			t1 = timing_now();
			s->sink += access_round(&s->sh, s->main_off);
			t2 = timing_now();
			r->unmap_ns += t1 - t0 - s->clock_ns;
			r->access_ns += t2 - t1 - s->clock_ns;
			t0 = t2;
		}
	}
	if (s->threads > 0) {
		t1 = timing_now();
		after = progress(s);
		r->unmap_ns += t1 - t0 - s->clock_ns;
		r->accesses += (double)(after - before) * (double)s->sh.accesses;
	}
	r->munmaps += n;
	return 0;
}

/*
 * Batches of bsize mappings until the round has lasted min_ns, and (up to
 * MAX_ROUND_NS, within the trial's deadline) until the threads have
 * finished a round of accesses inside the unmap windows: starved threads
 * (many more than CPUs, or an emulator that stops them while the mm
 * changes) otherwise leave the access rate undefined.  16 threads on a
 * loaded 2-CPU host took more than a second for one.
 */
static int
one_round(struct trial *t, struct state *s, int bsize, double min_ns, struct round *r)
{
	double w0 = timing_now();
	int rc;

	memset(r, 0, sizeof(*r));
	do {
		if ((rc = one_batch(t, s, bsize, r)) != 0)
			return rc;
		r->wall_ns = timing_now() - w0;
	} while (r->wall_ns < min_ns ||
	    (min_ns > 0 && s->threads > 0 && r->accesses == 0 && r->wall_ns < MAX_ROUND_NS &&
	    !trial_expired(t)));
	return 0;
}

/* A number from a small file, or from the line of a file starting with key. */
static unsigned long long
file_number(const char *path, const char *key)
{
	char buf[4096], *p = buf;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (key != NULL && (p = strstr(buf, key)) != NULL)
		p += strlen(key);
	return p != NULL ? strtoull(p, NULL, 10) : 0;
}

/* Map the accessed region with the requested page size and fault it in. */
static int
map_region(struct trial *t, struct state *s, size_t region, int huge, void **map,
    size_t *map_len)
{
	unsigned long long hp = file_number(THP_DIR "/hpage_pmd_size", NULL);
	char mode[32] = "unavailable";
	uintptr_t a;
	size_t off;
	void *m;

	if (facts_thp(mode, sizeof(mode)) != 0)
		snprintf(mode, sizeof(mode), "unavailable");
	if (huge && (strcmp(mode, "never") == 0 || strcmp(mode, "unavailable") == 0 || hp == 0))
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "huge=1 needs transparent huge pages (THP %s)",
		    mode);
	if (huge && region < hp)
		return trial_error(t, WIRE_ERR_UNSUPPORTED,
		    "huge=1: region %zu is smaller than a huge page (%llu bytes)", region, hp);
	/* room to align the region to a huge page, so that all of it can be one */
	*map_len = region + (huge ? (size_t)hp : 0);
	if ((m = mmap(NULL, *map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) ==
	    MAP_FAILED)
		return trial_error(t, WIRE_ERR_BENCH, "mmap of the %zu-byte region: %s", *map_len,
		    strerror(errno));
	*map = m;
	a = (uintptr_t)m;
	if (huge)
		a = (a + (uintptr_t)hp - 1) & ~((uintptr_t)hp - 1);
	s->sh.base = (volatile char *)a;
#ifdef MADV_HUGEPAGE
	if (huge && madvise((void *)a, region, MADV_HUGEPAGE) != 0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "madvise(MADV_HUGEPAGE): %s",
		    strerror(errno));
#else
	if (huge)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "built without MADV_HUGEPAGE");
#endif
#ifdef MADV_NOHUGEPAGE
	if (!huge)
		(void)madvise((void *)a, region, MADV_NOHUGEPAGE);	/* no THP: nothing to undo */
#endif
	for (off = 0; off < region; off += s->pagesize)
		s->sh.base[off] = 1;
	if (huge)
		trial_note(t, "THP %s; %llu kB of the process in huge pages, region %zu kB", mode,
		    file_number("/proc/self/smaps_rollup", "AnonHugePages:"), region / 1024);
	else
		trial_note(t, "THP %s; region in base pages (MADV_NOHUGEPAGE)", mode);
	return 0;
}

static int
start_workers(struct trial *t, struct state *s, size_t region)
{
	pthread_attr_t attr;
	int i, r = 0;

	if (s->threads == 0) {
		if ((s->main_off = malloc(sizeof(size_t) * (size_t)s->sh.accesses)) == NULL)
			return trial_error(t, WIRE_ERR_BENCH, "out of memory");
		random_offsets(s->main_off, s->sh.accesses, region, 1);
		return 0;
	}
	for (i = 0; i < s->threads; i++) {
		s->w[i].sh = &s->sh;
		s->w[i].ctr = &s->ctrs[i];
		if ((s->w[i].off = malloc(sizeof(size_t) * (size_t)s->sh.accesses)) == NULL)
			return trial_error(t, WIRE_ERR_BENCH, "out of memory");
		random_offsets(s->w[i].off, s->sh.accesses, region, (uint64_t)i + 1);
	}
	if ((r = pthread_attr_init(&attr)) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "pthread_attr_init: %s", strerror(r));
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	for (i = 0; i < s->threads && r == 0; i++)
		if ((r = pthread_create(&s->w[i].thread, &attr, worker_main, &s->w[i])) == 0)
			s->w[i].started = 1;
	pthread_attr_destroy(&attr);
	if (r != 0)
		return trial_error(t, WIRE_ERR_BENCH, "thread %d of %d: pthread_create: %s", i,
		    s->threads, strerror(r));
	return 0;
}

/* Wait until every thread has finished a round: all of them run. */
static int
wait_running(struct trial *t, const struct state *s)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < s->threads; i++)
		while (s->ctrs[i].c.rounds == 0) {
			if (trial_expired(t))
				return trial_error(t, WIRE_ERR_TIMEOUT,
				    "thread %d of %d did not start before the deadline", i, s->threads);
			nanosleep(&ms, NULL);
		}
	return 0;
}

static void
stop_workers(struct state *s)
{
	int i;

	s->sh.stop = 1;
	for (i = 0; s->w != NULL && i < s->threads; i++)
		if (s->w[i].started)
			pthread_join(s->w[i].thread, NULL);
}

static int
check_params(struct trial *t, long long threads, long long pages, long long accesses,
    long long region, size_t pagesize)
{
	unsigned long long max = sizeof(size_t) < 8 ? 1ULL << 30 : 64ULL << 30;
	double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)pagesize;

	if (threads < 0 || threads > MAX_THREADS)
		return trial_error(t, WIRE_ERR_REQUEST, "threads must be 0 to %d", MAX_THREADS);
	if (pages < 1 || pages > (long long)((1UL << 30) / pagesize))
		return trial_error(t, WIRE_ERR_REQUEST, "pages must be 1 to %zu", (size_t)(1UL << 30) / pagesize);
	if (accesses < 1 || accesses > MAX_OFFSETS || accesses * (threads > 0 ? threads : 1) > MAX_OFFSETS)
		return trial_error(t, WIRE_ERR_REQUEST, "accesses must be positive and threads x accesses at most %d",
		    MAX_OFFSETS);
	if (region < (long long)pagesize || (unsigned long long)region > max)
		return trial_error(t, WIRE_ERR_REQUEST, "region must be %zu to %llu bytes", pagesize, max);
	if (ram > 0 && (double)region > ram / 2)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "region %lld is more than half of the memory",
		    region);
	return 0;
}

static int
run(struct trial *t)
{
	long long threads = trial_int(t, "threads"), pages = trial_int(t, "pages");
	long long accesses = trial_int(t, "accesses"), region = trial_int(t, "region");
	int n = trial_samples(t), huge = trial_int(t, "huge") != 0, i, rc, bsize, bmax;
	double *per_munmap = NULL, *per_access = NULL, *per_thread_ms = NULL, want;
	size_t pagesize = (size_t)sysconf(_SC_PAGESIZE), map_len = 0;
	struct state s;
	struct round r;
	uint64_t munmaps = 0;
	void *map = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if ((rc = check_params(t, threads, pages, accesses, region, pagesize)) != 0)
		return rc;
	if ((trial_int(t, "write") | trial_int(t, "huge")) & ~1LL)
		return trial_error(t, WIRE_ERR_REQUEST, "write and huge must be 0 or 1");
	memset(&s, 0, sizeof(s));
	s.threads = (int)threads;
	s.pagesize = pagesize;
	s.chunk = (size_t)pages * pagesize;
	s.sh.accesses = (long)accesses;
	s.sh.write = trial_int(t, "write") != 0;
	region = (long long)(((size_t)region + pagesize - 1) / pagesize * pagesize);
	s.clock_ns = timing_clock_overhead();
	s.maps = calloc(MAX_BATCH, sizeof(*s.maps));
	s.w = calloc(threads > 0 ? (size_t)threads : 1, sizeof(*s.w));
	per_munmap = malloc(sizeof(double) * (size_t)n);
	per_access = malloc(sizeof(double) * (size_t)n);
	per_thread_ms = malloc(sizeof(double) * (size_t)n);
	if (posix_memalign((void **)&s.ctrs, sizeof(union counter),
	    sizeof(union counter) * (threads > 0 ? (size_t)threads : 1)) != 0)
		s.ctrs = NULL;
	if (s.maps == NULL || s.w == NULL || s.ctrs == NULL || per_munmap == NULL ||
	    per_access == NULL || per_thread_ms == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	memset(s.ctrs, 0, sizeof(union counter) * (threads > 0 ? (size_t)threads : 1));
	if ((rc = map_region(t, &s, (size_t)region, huge, &map, &map_len)) != 0)
		goto out;
	if (threads + 1 > ncpu)
		trial_note(t, "%lld accessing threads and the unmapping thread share %ld CPUs",
		    threads, ncpu);
	if ((rc = start_workers(t, &s, (size_t)region)) != 0 || (rc = wait_running(t, &s)) != 0)
		goto out;

	/*
	 * Size a batch to about an eighth of a sample from the second of two
	 * small rounds (the first warms up); a sample is then as many batches
	 * as fill TARGET_NS, so a host that runs slower than it calibrated
	 * (threads oversubscribing the CPUs) still keeps to its time.
	 */
	bmax = BATCH_BYTES / s.chunk > MAX_BATCH ? MAX_BATCH : (int)(BATCH_BYTES / s.chunk);
	if (bmax < 1)
		bmax = 1;
	bsize = bmax < 16 ? bmax : 16;
	for (i = 0; i < 2; i++)
		if ((rc = one_round(t, &s, bsize, 0, &r)) != 0)
			goto out;
	want = TARGET_NS / 8 / (r.wall_ns / bsize);
	bsize = want < 1 ? 1 : want > bmax ? bmax : (int)want;

	trial_measure_begin(t);
	for (i = 0; i < n; i++) {
		if (trial_expired(t)) {
			rc = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached after %d samples", i);
			goto out;
		}
		if ((rc = one_round(t, &s, bsize, TARGET_NS, &r)) != 0)
			goto out;
		munmaps += (uint64_t)r.munmaps;
		per_munmap[i] = r.unmap_ns / (double)r.munmaps;
		if (threads == 0) {
			per_access[i] = r.access_ns / ((double)r.munmaps * (double)accesses);
			per_thread_ms[i] = per_access[i] > 0 ? 1e6 / per_access[i] : 0;
		} else if (r.accesses > 0) {
			per_access[i] = r.unmap_ns * (double)threads / r.accesses;
			per_thread_ms[i] = r.accesses / (double)threads / (r.unmap_ns / 1e6);
		} else {
			rc = trial_error(t, WIRE_ERR_BENCH,
			    "the %lld accessing threads finished no round of %lld accesses during the unmaps",
			    threads, accesses);
			goto out;
		}
	}
	trial_measure_end(t);
	rc = 0;
out:
	stop_workers(&s);
	if (rc == 0) {
		trial_metric(t, "ns_per_munmap", per_munmap, n, munmaps / (uint64_t)n);
		trial_metric(t, "ns_per_access", per_access, n, 0);
		trial_metric(t, "accesses_per_thread_ms", per_thread_ms, n, 0);
	}
	if (map != NULL)
		munmap(map, map_len);
	for (i = 0; s.w != NULL && i < threads; i++)
		free(s.w[i].off);
	free(s.w);
	free(s.ctrs);
	free(s.main_off);
	free(s.maps);
	free(per_munmap);
	free(per_access);
	free(per_thread_ms);
	return rc;
}

static const struct bench_param params[] = {
	{ "threads", PARAM_CPUS, "4", "threads accessing memory while the main thread unmaps (0: none)", "0..1024" },
	{ "pages", PARAM_INT, "8", "pages per munmap", "1..262144" },
	{ "accesses", PARAM_INT, "512", "random accesses per round per thread", "1..4194304" },
	{ "write", PARAM_INT, "0", "1: the accesses write, 0: they read", "0..1" },
	{ "huge", PARAM_INT, "0", "1: MADV_HUGEPAGE on the accessed region, 0: MADV_NOHUGEPAGE", "0..1" },
	{ "region", PARAM_INT, "16M", "bytes of the accessed region", "4K..64G" },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "ns_per_munmap", "ns", 0, "time of one munmap of `pages` touched pages" },
	{ "ns_per_access", "ns", 0, "thread time per random access while the unmaps run" },
	{ "accesses_per_thread_ms", "accesses/ms", 1, "random accesses per thread per millisecond" },
	{ NULL, NULL, 0, NULL }
};

/* the offsets every thread draws from, allocated once */
static const struct bench_limit limits[] = {
	{ "threads", "accesses", MAX_OFFSETS },
	{ NULL, NULL, 0 }
};

BENCH_LIMITS(munmap, "munmap cost and memory access rate under TLB shootdowns",
    "the 2012 x86 tlb flush range mail (Alex Shi's munmap macrobenchmark)", params, metrics, run,
    limits);
