/*
 * tlb_flush2: will-it-scale's TLB flush test on anonymous memory.  Each
 * task maps `size` bytes (1 MB, as will-it-scale) of private anonymous
 * memory; for every page it writes a byte (a fault allocating the page),
 * drops it with madvise(MADV_DONTNEED) (PTE cleared, page freed, TLB entry
 * flushed) and checks that it reads back as zero: one operation per page.
 * The mapping is unmapped and mapped again after each pass.
 *
 * In threads mode every task's flush must reach the other CPUs running the
 * shared mm (shootdown IPIs); in processes mode it stays local.
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
			p[i] = 1;
			if (madvise((void *)(p + i), w->pagesize, MADV_DONTNEED) != 0)
				return wis_fail(w, "madvise", errno);
			if (p[i] != 0)
				return wis_fail(w, "an anonymous page kept its data after MADV_DONTNEED", 0);
			wis_op(w);
		}
		munmap((void *)p, w->size);
	}
	return 0;
}

static const struct wis_test test = { testcase, 0, 0 };

static int
run(struct trial *t)
{
	return wis_run(t, &test);
}

static const struct bench_param params[] = {
	WIS_PARAMS("1M", "bytes each task maps, one operation per page (will-it-scale: 1M)")
};

const struct bench bench_tlb_flush2 = {
	"tlb_flush2", "MADV_DONTNEED of a written page, anonymous memory, per second",
	"will-it-scale tlb_flush2 (TLB flush of anonymous memory private mapping)",
	params, wis_metrics, run, NULL
};
