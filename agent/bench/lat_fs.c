/*
 * lat_fs: file creation and deletion, lmbench's "0K File" and "10K File"
 * Create/Delete columns (File & VM system latencies).
 *
 * One sample creates N files of `size` bytes in the trial's scratch
 * directory, timed, then deletes them, timed.  Creating a file is what
 * lmbench's mkfile() does: creat(), write `size` bytes (in one call up to
 * 128 KB), close(); no fsync.  Deleting is unlink().  As lmbench does, the
 * files go into subdirectories of at most 100 entries, made before and
 * removed after each sample (untimed), so no directory grows large and
 * every sample starts from empty directories.  lmbench reports files per
 * second and its summary turns that into microseconds per file; the
 * metrics here are microseconds per file directly.
 *
 * N is fixed for a trial: after an untimed warm-up round of 100 files it
 * is chosen so that the creation of one sample's files lasts about
 * TIMING_TARGET_NS (between 100 and 2000 files).  A note names the file
 * system of the scratch directory, which decides these numbers more than
 * anything else (tmpfs against a journalling disk file system).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "bench.h"
#include "facts.h"
#include "timing.h"
#include "wire.h"

#define TOPDIR		"lat_fs.d"
#define PER_DIR		100		/* files per directory, as lmbench */
#define MIN_FILES	100
#define MAX_FILES	2000
#define MAX_CHUNK	(128 * 1024)	/* one write() of at most this */
#define NAME_LEN	32

struct fs {
	long long	 size;		/* bytes per file */
	char		*buf;		/* the data written, MAX_CHUNK at most */
	size_t		 chunk;
	char		*names;		/* MAX_FILES names of NAME_LEN bytes */
	int		 made;		/* files that exist now (0..made-1) */
	int		 dirs;		/* subdirectories that exist now */
};

static const char *
name_of(struct fs *f, int i)
{
	return f->names + (size_t)i * NAME_LEN;
}

/* Remove the files and directories that exist; safe at any point. */
static void
clean(struct fs *f)
{
	char d[NAME_LEN];
	int i;

	for (i = 0; i < f->made; i++)
		(void)unlink(name_of(f, i));
	f->made = 0;
	for (i = f->dirs - 1; i >= 0; i--) {
		snprintf(d, sizeof(d), TOPDIR "/%d", i);
		(void)rmdir(d);
	}
	f->dirs = 0;
}

static int
make_dirs(struct trial *t, struct fs *f, int nfiles)
{
	char d[NAME_LEN];
	int want = (nfiles + PER_DIR - 1) / PER_DIR;

	while (f->dirs < want) {
		snprintf(d, sizeof(d), TOPDIR "/%d", f->dirs);
		if (mkdir(d, 0700) != 0)
			return trial_error(t, WIRE_ERR_BENCH, "mkdir %s: %s", d, strerror(errno));
		f->dirs++;
	}
	return 0;
}

/* Create nfiles files; ns per file into *create.  0 or trial_error(). */
static int
create_files(struct trial *t, struct fs *f, int nfiles, double *create)
{
	long long left;
	const char *name;
	double t0;
	ssize_t w;
	int fd, e;

	t0 = timing_now();
	for (f->made = 0; f->made < nfiles; f->made++) {
		name = name_of(f, f->made);
		if ((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
			goto fail;
		for (left = f->size; left > 0; left -= w) {
			size_t c = left > (long long)f->chunk ? f->chunk : (size_t)left;

			if ((w = write(fd, f->buf, c)) <= 0) {
				e = w == 0 ? EIO : errno;
				f->made++;	/* it exists: clean() removes it */
				close(fd);
				errno = e;
				goto fail;
			}
		}
		close(fd);
	}
	*create = (timing_now() - t0 - timing_clock_overhead()) / nfiles;
	return 0;
fail:
	return trial_error(t, errno == ENOSPC || errno == EDQUOT ? WIRE_ERR_UNSUPPORTED :
	    WIRE_ERR_BENCH, "create %s (%lld bytes): %s", name, f->size, strerror(errno));
}

/* Delete the files made; ns per file into *del.  0 or trial_error(). */
static int
delete_files(struct trial *t, struct fs *f, double *del)
{
	int i, n = f->made;
	double t0;

	t0 = timing_now();
	for (i = 0; i < n; i++)
		if (unlink(name_of(f, i)) != 0)
			return trial_error(t, WIRE_ERR_BENCH, "unlink %s: %s", name_of(f, i),
			    strerror(errno));
	*del = (timing_now() - t0 - timing_clock_overhead()) / n;
	f->made = 0;
	return 0;
}

/* One sample: fresh directories, create, delete, directories removed. */
static int
one_round(struct trial *t, struct fs *f, int nfiles, double *create, double *del)
{
	int rc;

	if ((rc = make_dirs(t, f, nfiles)) == 0 &&
	    (rc = create_files(t, f, nfiles, create)) == 0)
		rc = delete_files(t, f, del);
	clean(f);
	return rc;
}

static int
run(struct trial *t)
{
	struct fs f;
	int n = trial_samples(t), nfiles, i, rc;
	double *cr = NULL, *de = NULL, c, d;

	memset(&f, 0, sizeof(f));
	f.size = trial_int(t, "size");
	if (f.size < 0 || f.size > (1LL << 30))
		return trial_error(t, WIRE_ERR_BENCH, "size must be 0 to 1G bytes");
	f.chunk = f.size > MAX_CHUNK ? MAX_CHUNK : (size_t)(f.size ? f.size : 1);
	facts_note_scratch_fs(t);
	f.buf = malloc(f.chunk);
	f.names = malloc((size_t)MAX_FILES * NAME_LEN);
	cr = calloc((size_t)n, sizeof(*cr));
	de = calloc((size_t)n, sizeof(*de));
	if (f.buf == NULL || f.names == NULL || cr == NULL || de == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	/* Not zeros: a file system that compresses or dedups would cheat. */
	for (i = 0; i < (int)f.chunk; i++)
		f.buf[i] = (char)(i * 131 + 7);
	for (i = 0; i < MAX_FILES; i++)
		snprintf(f.names + (size_t)i * NAME_LEN, NAME_LEN, TOPDIR "/%d/%d",
		    i / PER_DIR, i % PER_DIR);
	if (mkdir(TOPDIR, 0700) != 0) {
		rc = trial_error(t, WIRE_ERR_BENCH, "mkdir %s: %s", TOPDIR, strerror(errno));
		goto out;
	}

	/* Warm up (directory caches, allocator) and size the sample. */
	if ((rc = one_round(t, &f, MIN_FILES, &c, &d)) != 0)
		goto out;
	nfiles = c > 0 ? (int)(TIMING_TARGET_NS / c) : MAX_FILES;
	nfiles = nfiles < MIN_FILES ? MIN_FILES : nfiles > MAX_FILES ? MAX_FILES : nfiles;

	for (i = 0; i < n; i++) {
		if (trial_expired(t)) {
			rc = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached after %d samples", i);
			goto out;
		}
		if ((rc = one_round(t, &f, nfiles, &cr[i], &de[i])) != 0)
			goto out;
		cr[i] /= 1e3;
		de[i] /= 1e3;
	}
	trial_metric(t, "create", cr, n, (uint64_t)nfiles);
	trial_metric(t, "delete", de, n, (uint64_t)nfiles);
	rc = 0;
out:
	if (f.names != NULL)
		clean(&f);
	(void)rmdir(TOPDIR);
	free(f.buf);
	free(f.names);
	free(cr);
	free(de);
	return rc;
}

static const struct bench_param params[] = {
	{ "size", PARAM_INT, "0", "bytes written into each file (lmbench's summary "
	    "uses 0 and 10240)", NULL },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "create", "us", 0, "time per file: creat, write, close" },
	{ "delete", "us", 0, "time per file: unlink" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_fs, "file creation and deletion in the scratch directory",
    "lmbench lat_fs (File & VM: 0K/10K File Create, Delete)", params, metrics, run);
