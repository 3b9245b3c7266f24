/*
 * munmap.c: the cost of munmap() while other threads of the same process
 * touch memory, after the benchmark of the 2012 TLB range-flush mail.
 *
 *   munmap [-t THREADS] [-n PAGES] [-l LOOPS] [-b BATCHES]
 *
 * THREADS threads keep writing a shared 16 MB region at 512 random
 * offsets each (drawn once and repeated, as in the mail, so that what a
 * flush costs them is their TLB entries), counting their accesses; the
 * main thread maps PAGES pages, touches them, and
 * unmaps them, LOOPS times a batch, timing the munmap() calls alone.
 * Every munmap of a mapping the other threads' CPUs may cache makes the
 * kernel flush their TLBs, which is what slows their accesses.  Each batch
 * prints the mail's line:
 *
 *   munmap use 164ms 5032ns/time, memory access uses 81605 times/thread/ms, cost 12ns/time
 *
 * (total munmap time of the batch; per munmap; accesses per thread per
 * millisecond of the batch; and nanoseconds per access).
 *
 * Part of fleetmark's examples (plans/own-munmap.yaml); plain C and
 * pthreads, so it builds for any architecture.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REGION_BYTES	(16 << 20)
#define OFFSETS		512

static volatile int stop;
static char *region;
static long pagesz;

struct worker {
	pthread_t		tid;
	unsigned long long	accesses;
	unsigned int		off[OFFSETS];
	char			pad[64];
};

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *
toucher(void *arg)
{
	struct worker *w = arg;
	unsigned long long n = 0;
	int i;

	while (!stop) {
		for (i = 0; i < OFFSETS; i++)
			region[w->off[i]]++;
		n += OFFSETS;
	}
	w->accesses = n;
	return NULL;
}

static void
usage(void)
{
	fprintf(stderr, "usage: munmap [-t threads] [-n pages] [-l loops] [-b batches]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	int threads = 4, pages = 8, loops = 200, batches = 1, c, b, i, l;
	struct worker *w;

	while ((c = getopt(argc, argv, "t:n:l:b:")) != -1) {
		switch (c) {
		case 't': threads = atoi(optarg); break;
		case 'n': pages = atoi(optarg); break;
		case 'l': loops = atoi(optarg); break;
		case 'b': batches = atoi(optarg); break;
		default: usage();
		}
	}
	if (threads < 1 || pages < 1 || loops < 1 || batches < 1 || optind != argc)
		usage();
	pagesz = sysconf(_SC_PAGESIZE);
	region = mmap(NULL, REGION_BYTES, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || (w = calloc(threads, sizeof(*w))) == NULL) {
		perror("munmap: mmap");
		return 1;
	}
	memset(region, 1, REGION_BYTES);
	srand(1);
	for (i = 0; i < threads; i++)
		for (l = 0; l < OFFSETS; l++)
			w[i].off[l] = (unsigned int)(rand() % REGION_BYTES);
	for (b = 0; b < batches; b++) {
		double t0, t1, start, spent = 0, ms;
		unsigned long long total = 0;

		stop = 0;
		for (i = 0; i < threads; i++)
			if (pthread_create(&w[i].tid, NULL, toucher, &w[i]) != 0) {
				perror("munmap: pthread_create");
				return 1;
			}
		start = now_ns();
		for (l = 0; l < loops; l++) {
			char *p = mmap(NULL, pages * pagesz, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED) {
				perror("munmap: mmap");
				return 1;
			}
			for (i = 0; i < pages; i++)
				p[i * pagesz] = 1;
			t0 = now_ns();
			munmap(p, pages * pagesz);
			t1 = now_ns();
			spent += t1 - t0;
		}
		stop = 1;
		ms = (now_ns() - start) / 1e6;
		for (i = 0; i < threads; i++) {
			pthread_join(w[i].tid, NULL);
			total += w[i].accesses;
		}
		{
			double per_ms = ms > 0 ? total / (double)threads / ms : 0;

			printf("munmap use %.0fms %.0fns/time, memory access uses %.0f "
			    "times/thread/ms, cost %.0fns/time\n", spent / 1e6, spent / loops,
			    per_ms, per_ms > 0 ? 1e6 / per_ms : 0);
			fflush(stdout);
		}
	}
	return 0;
}
