/*
 * page_fault2: will-it-scale's private file mapping fault test.  Each task
 * has its own sparse file of `size` bytes, maps it MAP_PRIVATE, writes one
 * byte to every page (one operation per page: a fault that finds or
 * creates the page cache page and copies it into a private anonymous
 * page), and unmaps it, over and over.
 *
 * will-it-scale uses 128 MB files in /tmp; here the default is 16 MB
 * (size=128M for the original) and the files are in the trial's scratch
 * directory, whose filesystem is named in a note.
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
			p[i] = 0;
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
	WIS_PARAMS("16M", "bytes of each task's file, mapped and touched per pass (will-it-scale: 128M)")
};

const struct bench bench_page_fault2 = {
	"page_fault2", "private file mapping write faults per second, N tasks",
	"will-it-scale page_fault2 (Separate file private mapping page fault)",
	params, wis_metrics, run, NULL
};
