/*
 * tlb_flush1: will-it-scale's TLB flush test on a private file mapping.
 * Each task has its own sparse file of `size` bytes mapped MAP_PRIVATE;
 * for every page it writes a byte (a fault and a private copy), drops the
 * page again with madvise(MADV_DONTNEED) (the PTE is cleared and the TLB
 * entry flushed), and checks that the page reads back as the file's zero:
 * one operation per page.  The mapping is unmapped and mapped again after
 * each pass.
 *
 * The flush is what scales differently by mode: in threads mode the mm is
 * in use on every CPU that runs a task, so each madvise sends TLB
 * shootdown IPIs to them; in processes mode the flush stays local.
 *
 * will-it-scale uses a 128 MB file in /tmp; the default here is 16 MB
 * (size=128M for the original), in the trial's scratch directory.
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
		p = mmap(NULL, w->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, w->fd, 0);
		if (p == MAP_FAILED)
			return wis_fail(w, "mmap", errno);
		for (i = 0; i < w->size && wis_running(w); i += w->pagesize) {
			p[i] = 1;
			if (madvise((void *)(p + i), w->pagesize, MADV_DONTNEED) != 0)
				return wis_fail(w, "madvise", errno);
			if (p[i] != 0)
				return wis_fail(w, "a private page kept its data after MADV_DONTNEED", 0);
			wis_op(w);
		}
		munmap((void *)p, w->size);
	}
	return 0;
}

static const struct wis_test test = { testcase, 1, 1 };

static int
run(struct trial *t)
{
	return wis_run(t, &test);
}

static const struct bench_param params[] = {
	WIS_PARAMS("16M", "bytes of each task's file, one operation per page (will-it-scale: 128M)")
};

const struct bench bench_tlb_flush1 = {
	"tlb_flush1", "MADV_DONTNEED of a written page, private file mapping, per second",
	"will-it-scale tlb_flush1 (TLB flush of separated file private mapping)",
	params, wis_metrics, run, NULL
};
