/*
 * lat_fs: file creation and deletion, lmbench's "0K File" and "10K File"
 * Create/Delete columns (File & VM system latencies).
 *
 * As lmbench's lat_fs does it.  Creating a file is its mkfile(): creat()
 * (open with O_CREAT|O_TRUNC|O_WRONLY, mode 0666), write `size` bytes (in
 * one call up to 128 KB), close(); no fsync.  Deleting is unlink().  Every
 * sample works in a directory of its own, made fresh for it and removed
 * after it (untimed): the files go straight into it, or, past 100 files,
 * into subdirectories of 100 (and theirs past 10000), numbered as lmbench
 * numbers them, and they are created and deleted in lmbench's order (the
 * last name first).  Names are absolute paths, as lmbench's are when its
 * FSDIR is.
 *
 * The two operations are measured apart, as lmbench's two benchmp() runs
 * do: a create run times making N files (deleted untimed afterwards), a
 * delete run times deleting M files made untimed just before.  Both take
 * their samples by lmbench's rule (timing_rule_next()): from one file,
 * each run's count set from the run before so that one lasts
 * TIMING_TARGET_NS (5 ms, lmbench's interval with ENOUGH=5000), and a run
 * a sample only when it lasted over 95% of it; the count matters
 * (deleting the create count instead of 3.5 times it came out 15%
 * cheaper).  A delete sample therefore makes several times more files,
 * untimed, than it deletes in 5 ms: on ext4 a create costs 2 to 60
 * deletes, and this trial takes about 12 x 5 ms times that.  (On ext4
 * without a journal, a new inode skips the inodes of its group freed in
 * the last minutes, so creates cost more after many deletes, lmbench's
 * and the agent's alike.)  lmbench reports files per second and its
 * summary turns that into microseconds per file; the metrics here are
 * microseconds per file directly.  A note names the file system of the
 * scratch directory, which decides these numbers more than anything else
 * (tmpfs against a journalling disk file system).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#define PER_DIR		100		/* files per directory, lmbench's -n default */
#define MAX_FILES	(PER_DIR * PER_DIR * PER_DIR)
#define MAX_CHUNK	(128 * 1024)	/* one write() of at most this, as mkfile() */
struct fs {
	long long	 size;		/* bytes per file */
	char		*buf;		/* the data written, MAX_CHUNK at most */
	size_t		 chunk;
	char		 base[PATH_MAX];	/* the scratch directory, absolute */
	char		 top[PATH_MAX];	/* this sample's directory, "" when none */
	int		 nfiles;	/* files of this sample's tree */
	int		 created;	/* files made, the last name first */
	int		 deleted;	/* of those, deleted, in the same order */
	int		 depth;		/* levels of subdirectories */
	int		 err;		/* errno of a failed operation, or 0 */
	char		 what[PATH_MAX + 32];	/* which operation failed */
};

/* The name of file k of the current tree (lmbench's setup_names()). */
static void
file_name(const struct fs *f, int k, char *buf, size_t cap)
{
	if (f->depth == 0)
		snprintf(buf, cap, "%s/%d", f->top, k);
	else if (f->depth == 1)
		snprintf(buf, cap, "%s/%d/%d", f->top, k / PER_DIR, k % PER_DIR);
	else
		snprintf(buf, cap, "%s/%d/%d/%d", f->top, k / (PER_DIR * PER_DIR),
		    k / PER_DIR % PER_DIR, k % PER_DIR);
}

static void
fail(struct fs *f, const char *op, const char *path)
{
	if (f->err == 0) {
		f->err = errno ? errno : EIO;
		snprintf(f->what, sizeof(f->what), "%s %s", op, path);
	}
}

/*
 * The subdirectories of the tree for f->nfiles files, made (mk) or removed
 * in reverse; directory d of level 1 holds files d*100.., (a, b) of level
 * 2 holds (a*100+b)*100...
 */
static void
walk_dirs(struct fs *f, int mk)
{
	char d[PATH_MAX + 32];
	int n = f->nfiles, a, b, na, nb;

	if (f->depth == 0)
		return;
	na = f->depth == 1 ? (n + PER_DIR - 1) / PER_DIR :
	    (n + PER_DIR * PER_DIR - 1) / (PER_DIR * PER_DIR);
	for (a = mk ? 0 : na - 1; mk ? a < na : a >= 0; a += mk ? 1 : -1) {
		snprintf(d, sizeof(d), "%s/%d", f->top, a);
		if (mk && mkdir(d, 0777) != 0) {
			fail(f, "mkdir", d);
			return;
		}
		if (f->depth == 2) {
			nb = (n - a * PER_DIR * PER_DIR + PER_DIR - 1) / PER_DIR;
			if (nb > PER_DIR)
				nb = PER_DIR;
			for (b = mk ? 0 : nb - 1; mk ? b < nb : b >= 0; b += mk ? 1 : -1) {
				snprintf(d, sizeof(d), "%s/%d/%d", f->top, a, b);
				if (mk && mkdir(d, 0777) != 0) {
					fail(f, "mkdir", d);
					return;
				}
				if (!mk)
					(void)rmdir(d);
			}
		}
		if (!mk) {
			snprintf(d, sizeof(d), "%s/%d", f->top, a);
			(void)rmdir(d);
		}
	}
}

/* A fresh directory and tree for n files; 0 or -1 with f->err set. */
static int
tree_make(struct fs *f, int n)
{
	f->nfiles = n;
	f->created = f->deleted = 0;
	f->depth = n <= PER_DIR ? 0 : n <= PER_DIR * PER_DIR ? 1 : 2;
	if (snprintf(f->top, sizeof(f->top), "%s/lat_fs.XXXXXX", f->base) >=
	    (int)sizeof(f->top)) {
		errno = ENAMETOOLONG;
		fail(f, "mkdtemp", f->base);
		f->top[0] = '\0';
		return -1;
	}
	if (mkdtemp(f->top) == NULL) {
		fail(f, "mkdtemp", f->top);
		f->top[0] = '\0';
		return -1;
	}
	walk_dirs(f, 1);
	return f->err ? -1 : 0;
}

/* Create the files, the last name first (lmbench's benchmark_mk()). */
static void
create_files(struct fs *f)
{
	char name[PATH_MAX + 32];
	long long left;
	ssize_t w;
	size_t c;
	int fd;

	while (f->created < f->nfiles && f->err == 0) {
		file_name(f, f->nfiles - 1 - f->created, name, sizeof(name));
		if ((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0) {
			fail(f, "create", name);
			return;
		}
		f->created++;
		for (left = f->size; left > 0; left -= w) {
			c = left > (long long)f->chunk ? f->chunk : (size_t)left;
			if ((w = write(fd, f->buf, c)) <= 0) {
				if (w == 0)
					errno = EIO;
				fail(f, "write", name);
				break;
			}
		}
		close(fd);
	}
}

/*
 * Delete the files made, in the order they were made (benchmark_rm());
 * when cleaning up, go on past a failure.
 */
static void
delete_files(struct fs *f, int cleaning)
{
	char name[PATH_MAX + 32];

	while (f->deleted < f->created) {
		file_name(f, f->nfiles - 1 - f->deleted, name, sizeof(name));
		f->deleted++;
		if (unlink(name) != 0 && !cleaning) {
			fail(f, "unlink", name);
			return;
		}
	}
}

/* Remove whatever of the tree exists; safe at any point. */
static void
tree_clean(struct fs *f)
{
	int err = f->err;

	if (f->top[0] == '\0')
		return;
	delete_files(f, 1);
	walk_dirs(f, 0);
	(void)rmdir(f->top);
	f->top[0] = '\0';
	f->err = err;	/* a failure while cleaning up after one is not news */
}

/*
 * One run of n files: ns per file to create them (del 0) or to delete
 * them (del 1), the other operation untimed, in a tree made for it and
 * removed after it (lmbench's setup and cleanup around each run).  -1 on
 * a failure (f->err).
 */
static double
sample(struct fs *f, int n, int del)
{
	double t0, el = 0;

	if (tree_make(f, n) != 0) {
		tree_clean(f);
		return -1;
	}
	if (del)
		create_files(f);
	if (f->err == 0) {
		t0 = timing_now();
		if (del)
			delete_files(f, 0);
		else
			create_files(f);
		el = timing_now() - t0 - timing_clock_overhead();
	}
	tree_clean(f);
	return f->err ? -1 : el / n;
}

/*
 * Samples of one operation into v, us per file, as lmbench's benchmp()
 * takes them (timing_rule_next()): from one file, the count of each run
 * set by the run before, a run a sample only when it lasted over 95% of
 * the interval.  *files is the count of the last sample.  Returns 0 or
 * trial_error().
 */
static int
measure(struct trial *t, struct fs *f, int del, double *v, int nsamples, int *files)
{
	struct timing_opts o = { 0, MAX_FILES, 0 };
	struct timing_rule r;
	double per;
	int got = 0, n;

	timing_rule_init(&r, &o);
	while (got < nsamples) {
		n = (int)r.n;
		if (trial_expired(t) || (per = sample(f, n, del)) < 0)
			goto fail;
		if (timing_rule_next(&r, per * n)) {
			v[got++] = per / 1e3;
			*files = n;
		}
	}
	return 0;
fail:
	if (f->err != 0)
		return trial_error(t, f->err == ENOSPC || f->err == EDQUOT ?
		    WIRE_ERR_UNSUPPORTED : WIRE_ERR_BENCH, "%s (%lld-byte files): %s", f->what,
		    f->size, strerror(f->err));
	return trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring %s",
	    del ? "deletes" : "creates");
}

static int
run(struct trial *t)
{
	struct fs *f;
	int n = trial_samples(t), i, rc, nc = 0, nd = 0;
	double *cr = NULL, *de = NULL;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory");
	f->size = trial_int(t, "size");
	if (f->size < 0 || f->size > (1LL << 30)) {
		rc = trial_error(t, WIRE_ERR_REQUEST, "size must be 0 to 1G bytes");
		goto out;
	}
	f->chunk = f->size > MAX_CHUNK ? MAX_CHUNK : (size_t)(f->size ? f->size : 1);
	facts_note_scratch_fs(t);
	/* the scratch directory is the current one */
	if (getcwd(f->base, sizeof(f->base)) == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "getcwd: %s", strerror(errno));
		goto out;
	}
	f->buf = malloc(f->chunk);
	cr = calloc((size_t)n, sizeof(*cr));
	de = calloc((size_t)n, sizeof(*de));
	if (f->buf == NULL || cr == NULL || de == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	/* Not zeros: a file system that compresses or dedups would cheat. */
	for (i = 0; i < (int)f->chunk; i++)
		f->buf[i] = (char)(i * 131 + 7);

	if ((rc = measure(t, f, 0, cr, n, &nc)) != 0 ||
	    (rc = measure(t, f, 1, de, n, &nd)) != 0)
		goto out;
	trial_metric(t, "create", cr, n, (uint64_t)nc);
	trial_metric(t, "delete", de, n, (uint64_t)nd);
	rc = 0;
out:
	tree_clean(f);
	free(f->buf);
	free(f);
	free(cr);
	free(de);
	return rc;
}

static const struct bench_param params[] = {
	{ "size", PARAM_INT, "0", "bytes written into each file (lmbench's summary "
	    "uses 0 and 10240)", "0..1G" },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "create", "us", 0, "time per file: creat, write, close" },
	{ "delete", "us", 0, "time per file: unlink" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_fs, "file creation and deletion in the scratch directory",
    "lmbench lat_fs (File & VM: 0K/10K File Create, Delete)", params, metrics, run);
