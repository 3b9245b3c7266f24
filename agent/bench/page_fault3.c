/*
 * page_fault3: will-it-scale's shared file mapping fault test.  Each task
 * has its own sparse file of `size` bytes, maps it MAP_SHARED, writes one
 * byte to every page (one operation per page: a write fault on the page
 * cache page itself, which the filesystem's page_mkwrite sees and which
 * dirties the page), and unmaps it, over and over.
 *
 * will-it-scale uses 128 MB files in /tmp (often tmpfs); here the default
 * is 16 MB (size=128M for the original) and the files are in the trial's
 * scratch directory.  The filesystem matters a great deal (tmpfs against
 * ext4's block allocation and writeback), so a note names it.
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
	WIS_PARAMS("16M", "bytes of each task's file, mapped and written per pass (will-it-scale: 128M)")
};

const struct bench bench_page_fault3 = {
	"page_fault3", "shared file mapping write faults per second, N tasks",
	"will-it-scale page_fault3 (Separate file shared mapping page fault)",
	params, wis_metrics, run, NULL
};
