/*
 * mmap1: will-it-scale's anonymous mmap/munmap test.  Each task maps
 * `size` bytes (128 MB, as will-it-scale) of private anonymous memory and
 * unmaps it again without touching it: one operation per pair.  No page is
 * faulted, so this is the cost of creating and removing a VMA under the
 * mm's lock, which threads mode shares between all tasks.
 */
#include <errno.h>
#include <sys/mman.h>

#include "wis.h"

static int
testcase(struct wis_task *w)
{
	void *p;

	while (wis_running(w)) {
		p = mmap(NULL, w->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return wis_fail(w, "mmap", errno);
		munmap(p, w->size);
		wis_op(w);
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
	WIS_PARAMS("128M", "bytes mapped (never touched) per operation (will-it-scale: 128M)")
};

const struct bench bench_mmap1 = {
	"mmap1", "mmap+munmap of untouched anonymous memory per second, N tasks",
	"will-it-scale mmap1 (Anonymous memory mmap/munmap of 128MB)",
	params, wis_metrics, run, NULL
};
