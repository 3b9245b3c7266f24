/*
 * mmap2: will-it-scale's file mmap/munmap test.  Each task has its own
 * sparse file of `size` bytes (128 MB, as will-it-scale), maps it
 * MAP_PRIVATE and unmaps it again without touching it: one operation per
 * pair.  Compared with mmap1 it adds the file's side of a VMA (the
 * mapping's reference and its interval tree of mappings).
 */
#include <errno.h>
#include <sys/mman.h>

#include "wis.h"

static int
testcase(struct wis_task *w)
{
	void *p;

	while (wis_running(w)) {
		p = mmap(NULL, w->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, w->fd, 0);
		if (p == MAP_FAILED)
			return wis_fail(w, "mmap", errno);
		munmap(p, w->size);
		wis_op(w);
	}
	return 0;
}

static const struct wis_test test = { testcase, 1, 0 };

static int
run(struct trial *t)
{
	return wis_run(t, &test);
}

static const struct bench_param params[] = {
	WIS_PARAMS("128M", "bytes of each task's file, mapped (never touched) per operation (will-it-scale: 128M)")
};

const struct bench bench_mmap2 = {
	"mmap2", "mmap+munmap of an untouched file mapping per second, N tasks",
	"will-it-scale mmap2 (Separate file mmap/munmap of 128MB)",
	params, wis_metrics, run, NULL
};
