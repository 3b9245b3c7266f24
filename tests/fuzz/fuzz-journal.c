/*
 * fuzz-journal.c: the trials.jsonl readers (src/journal.c):
 * trialread_file(), the fast in-place JSON scanner reports load runs
 * with, and trial_done_read(), what --resume trusts.  Both read a file,
 * so the input is written to a memfd and read through /proc/self/fd.
 * Every member of every line handed out is read back.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "journal.h"

static int fd = -1;
static char path[64];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if ((fd = memfd_create("trials.jsonl", MFD_CLOEXEC)) < 0) {
		perror("fuzz-journal: memfd_create");
		exit(2);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

static size_t
touch(const char *s)
{
	return s == NULL ? 0 : strlen(s);
}

static int
line(const struct trial_line *l, void *arg)
{
	size_t *sum = arg, i;

	if (l->host == NULL || l->key == NULL || l->bench == NULL || l->status == NULL ||
	    l->part < 1 || l->parts < l->part)
		abort();	/* journal.h: what makes a trial line */
	*sum += touch(l->run) + touch(l->host) + touch(l->variant) + touch(l->bench) +
	    touch(l->suite) + touch(l->key) + touch(l->metric) + touch(l->unit) +
	    touch(l->direction) + touch(l->status) + touch(l->kind) + touch(l->message);
	for (i = 0; i < l->nparams; i++)
		*sum += touch(l->keys[i]) + touch(l->vals[i]);
	for (i = 0; i < l->nresolved; i++)
		*sum += touch(l->rkeys[i]) + touch(l->rvals[i]);
	for (i = 0; i < l->nnotes; i++)
		*sum += touch(l->notes[i]);
	for (i = 0; i < l->nsamples; i++)
		*sum += isnan(l->samples[i]) ? 1 : 0;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trial_scan scan;
	struct trial_done *done = NULL;
	size_t sum = 0;
	char *err = NULL;

	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (trialread_file(path, line, &sum, &scan, &err) != 0)
		abort();	/* only failing to read is an error */
	if (scan.lines + scan.truncated < scan.corrupt || scan.good_size > (off_t)size)
		abort();
	if (trial_done_read(path, &done, &scan, &err) != 0)
		abort();
	(void)trial_done_count(done, NULL);
	(void)trial_done_has(done, "lab-03", "-/munmap/threads=4,pages=16/1");
	trial_done_free(done);
	return 0;
}
