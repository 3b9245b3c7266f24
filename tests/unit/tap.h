/*
 * tap.h: a tiny TAP producer for the unit tests (after OpenSSH's
 * test_helper and git's t/unit-tests).  Each check prints "ok N - what" or
 * "not ok N - what" with the file and line; tap_done() prints the plan and
 * returns the exit status.  tap_tmpdir() gives a test a scratch directory
 * that goes when it exits; tap_subdir(), tap_put(), tap_slurp() and
 * tap_rmtree() make, write, read and remove what goes in it; tap_left()
 * says whether a process, or a process group, is still running.
 */
#ifndef FLEETMARK_TAP_H
#define FLEETMARK_TAP_H

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int tap_n, tap_failed;

static int
tap_check(int ok, const char *file, int line, const char *what)
{
	tap_n++;
	printf("%sok %d - %s\n", ok ? "" : "not ", tap_n, what);
	if (!ok) {
		printf("#   at %s:%d\n", file, line);
		tap_failed++;
	}
	return ok;
}

#define ok(cond, what)	tap_check(!!(cond), __FILE__, __LINE__, (what))

#define is_int(got, want, what) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (!ok(g_ == w_, (what)))					\
		printf("#   got %lld, want %lld\n", g_, w_);		\
} while (0)

#define is_str(got, want, what) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (!ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0, (what))) \
		printf("#   got \"%s\"\n#   want \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

#define is_num(got, want, tol, what) do {				\
	double g_ = (got), w_ = (want);					\
	if (!ok(fabs(g_ - w_) <= (tol), (what)))			\
		printf("#   got %.10g, want %.10g (+-%g)\n", g_, w_, (double)(tol)); \
} while (0)

static char tap_tmp[256];
static pid_t tap_tmp_pid;	/* the process that made it: a forked child's exit() leaves it */

static inline int
tap_tmp_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0)
		printf("# cannot remove %s\n", path);
	return 0;
}

/*
 * Remove PATH and everything under it, following no symbolic link (a
 * test's "rm -rf" without a shell).  What cannot be removed is named in a
 * TAP comment.  A PATH that does not exist is no error.
 */
static inline void
tap_rmtree(const char *path)
{
	nftw(path, tap_tmp_remove, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void
tap_tmp_cleanup(void)
{
	if (tap_tmp[0] != '\0' && getpid() == tap_tmp_pid)
		tap_rmtree(tap_tmp);
}

/*
 * A new directory /tmp/NAME.XXXXXX for the test's files (one a test), and
 * removed with everything in it when the test exits, however it exits
 * but by a signal: a check that failed, a Bail out!, the end of main.
 * With TAP_KEEP in the environment it stays, for a look after a failure.
 * The path is static; NULL when it cannot be made (the test bails out).
 */
static inline const char *
tap_tmpdir(const char *name)
{
	if (tap_tmp[0] != '\0')
		return NULL;
	if ((size_t)snprintf(tap_tmp, sizeof(tap_tmp), "/tmp/%s.XXXXXX", name) >=
	    sizeof(tap_tmp) || mkdtemp(tap_tmp) == NULL) {
		tap_tmp[0] = '\0';
		return NULL;
	}
	tap_tmp_pid = getpid();
	if (getenv("TAP_KEEP") == NULL)
		atexit(tap_tmp_cleanup);
	else
		printf("# TAP_KEEP: %s stays\n", tap_tmp);
	return tap_tmp;
}

/*
 * A new directory NAME (mode 0755, before the umask) in the test's scratch
 * directory, made by tap_tmpdir() first: for a part of a test that wants
 * a directory of its own.  Its path, allocated (the caller frees it).  A
 * directory that cannot be made bails the test out.
 */
static inline char *
tap_subdir(const char *name)
{
	size_t n = strlen(tap_tmp) + strlen(name) + 2;
	char *p = malloc(n);

	if (tap_tmp[0] == '\0' || p == NULL ||
	    (size_t)snprintf(p, n, "%s/%s", tap_tmp, name) >= n || mkdir(p, 0755) != 0) {
		printf("Bail out! cannot make %s in the scratch directory: %s\n", name,
		    tap_tmp[0] == '\0' ? "no tap_tmpdir()" : strerror(errno));
		exit(1);
	}
	return p;
}

/*
 * Write TEXT to PATH, opened with fopen() MODE ("w" replaces, "a"
 * appends): the fixtures a test makes.  A file that cannot be written
 * bails the test out.
 */
static inline void
tap_put(const char *path, const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/*
 * Live (not zombie) processes in group pgid, or with pid `pid` when pgid
 * is 0: a zombie may wait for a PID 1 that reaps slowly, but runs nothing.
 */
static inline int
tap_live(pid_t pgid, pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	while (d != NULL && (de = readdir(d)) != NULL) {
		char path[300], buf[512], *rp, state;
		int pg = 0, ppid = 0;
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (pgid == 0 && atoi(de->d_name) != pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL && (rp = strrchr(buf, ')')) != NULL &&
		    sscanf(rp + 1, " %c %d %d", &state, &ppid, &pg) == 3 && state != 'Z' &&
		    (pgid == 0 || pg == pgid))
			n++;
		fclose(f);
	}
	if (d != NULL)
		closedir(d);
	return n;
}

/* Is anything of group pgid (or process pid) left?  Waits up to 5 s for it to go. */
static inline int
tap_left(pid_t pgid, pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000000L };
	int i;

	for (i = 0; i < 500; i++) {
		if (tap_live(pgid, pid) == 0)
			return 0;
		nanosleep(&ts, NULL);
	}
	return 1;
}

/*
 * The whole of PATH, allocated and NUL-terminated (the caller frees it),
 * its length in *LEN unless LEN is NULL; NULL when it cannot be read.
 */
static inline char *
tap_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) != NULL) {
		if (fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = '\0';
			if (len != NULL)
				*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* FLEETMARK_TAP_H */
