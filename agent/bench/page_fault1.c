/*
 * page_fault1: will-it-scale's anonymous page fault test.  Each task maps
 * `size` bytes of private anonymous memory, writes one byte to every page
 * (one operation per page: one fault that allocates and zeroes a page),
 * and unmaps it, over and over.  In threads mode all tasks fault into one
 * mm and share its locks and counters; in processes mode each has its own.
 *
 * will-it-scale maps 128 MB per task; the default here is 16 MB so that
 * many tasks fit a small host (size=128M gives the original).  With THP
 * "always" the kernel may fault whole huge pages (see the THP note).
 */
#include <errno.h>
#include <sys/mman.h>

#include "wis.h"

static int
testcase(struct wis_task *w)
{
	volatile char *p;
	size_t i;

	while (wis_running(w)) {
		p = mmap(NULL, w->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return wis_fail(w, "mmap", errno);
		for (i = 0; i < w->size && wis_running(w); i += w->pagesize) {
			p[i] = 0;
			wis_op(w);
		}
		munmap((void *)p, w->size);
	}
	return 0;
}

static const struct wis_test test = { testcase, 0, 1 };

static int
run(struct trial *t)
{
	return wis_run(t, &test);
}

static const struct bench_param params[] = {
	WIS_PARAMS("16M", "bytes each task maps and touches per pass (will-it-scale: 128M)")
};

const struct bench bench_page_fault1 = {
	"page_fault1", "anonymous page faults per second, N tasks",
	"will-it-scale page_fault1 (Anonymous memory page fault)",
	params, wis_metrics, run, NULL
};
