/*
 * tlb_flush3: will-it-scale's TLB flush test on a shared file mapping.
 * Each task has its own sparse file of `size` bytes mapped MAP_SHARED; for
 * every page it writes a byte (a write fault on the page cache page),
 * unmaps that page from the mm with madvise(MADV_DONTNEED) (PTE cleared,
 * TLB entry flushed, the page stays in the page cache) and checks that it
 * reads back what was written (a read fault maps it again): one operation
 * per page.  The mapping is unmapped and mapped again after each pass.
 *
 * In threads mode every flush must reach the other CPUs running the shared
 * mm; in processes mode it stays local.  will-it-scale uses a 128 MB file
 * in /tmp; the default here is 16 MB (size=128M for the original), in the
 * trial's scratch directory, whose filesystem a note names.
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
		p = mmap(NULL, w->size, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
		if (p == MAP_FAILED)
			return wis_fail(w, "mmap", errno);
		for (i = 0; i < w->size && wis_running(w); i += w->pagesize) {
			p[i] = 1;
			if (madvise((void *)(p + i), w->pagesize, MADV_DONTNEED) != 0)
				return wis_fail(w, "madvise", errno);
			if (p[i] != 1)
				return wis_fail(w, "a shared page lost its data after MADV_DONTNEED", 0);
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

const struct bench bench_tlb_flush3 = {
	"tlb_flush3", "MADV_DONTNEED of a written page, shared file mapping, per second",
	"will-it-scale tlb_flush3 (TLB flush of separated file shared mapping)",
	params, wis_metrics, run, NULL
};
