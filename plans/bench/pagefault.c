/*
 * pagefault.c: the latency of a page fault on a file mapping, after the
 * benchmark of the 2005 page-fault latency mail.
 *
 *   pagefault [-p PAGES] [-b BATCHES]
 *
 * A file of PAGES pages is written in the current directory (so its pages
 * are in the page cache).  Each batch maps it, and for every page times
 * the first touch with gettimeofday() around it, then times a second
 * touch of the same page (no fault: the cost of the touch itself) and an
 * empty gettimeofday() pair (the timer's cost), and unmaps it.  The fault
 * latency is the first touch less those two, averaged over the pages of
 * the batch, in nanoseconds.  Each batch prints one line:
 *
 *   avg: 612
 *
 * Part of fleetmark's examples (plans/own-pagefault.yaml); plain C.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

static double
us(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1e6 + tv.tv_usec;
}

int
main(int argc, char **argv)
{
	int pages = 1024, batches = 5, c, b, i, fd;
	long pagesz = sysconf(_SC_PAGESIZE);
	volatile char *p, sink;
	char *buf;

	while ((c = getopt(argc, argv, "p:b:")) != -1) {
		switch (c) {
		case 'p': pages = atoi(optarg); break;
		case 'b': batches = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: pagefault [-p pages] [-b batches]\n");
			return 2;
		}
	}
	if (pages < 1 || batches < 1) {
		fprintf(stderr, "pagefault: pages and batches must be positive\n");
		return 2;
	}
	if ((fd = open("pagefault.data", O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0 ||
	    (buf = malloc(pagesz)) == NULL) {
		perror("pagefault: pagefault.data");
		return 1;
	}
	memset(buf, 'x', pagesz);
	for (i = 0; i < pages; i++)
		if (write(fd, buf, pagesz) != pagesz) {
			perror("pagefault: write");
			return 1;
		}
	for (b = 0; b < batches; b++) {
		double fault = 0, retouch = 0, timer = 0, t0, t1;

		p = mmap(NULL, (size_t)pages * pagesz, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			perror("pagefault: mmap");
			return 1;
		}
		for (i = 0; i < pages; i++) {
			t0 = us();
			sink = p[(size_t)i * pagesz];
			t1 = us();
			fault += t1 - t0;
			t0 = us();
			sink = p[(size_t)i * pagesz];
			t1 = us();
			retouch += t1 - t0;
			t0 = us();
			t1 = us();
			timer += t1 - t0;
		}
		(void)sink;
		munmap((void *)p, (size_t)pages * pagesz);
		/* the fault less the timer, less the touch (itself less the timer) */
		fault = ((fault - timer) - (retouch - timer)) * 1000.0 / pages;
		printf("avg: %.0f\n", fault > 0 ? fault : 0);
		fflush(stdout);
	}
	unlink("pagefault.data");
	return 0;
}
