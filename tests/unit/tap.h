/*
 * tap.h: a tiny TAP producer for the unit tests (after OpenSSH's
 * test_helper and git's t/unit-tests).  Each check prints "ok N - what" or
 * "not ok N - what" with the file and line; tap_done() prints the plan and
 * returns the exit status.  tap_tmpdir() gives a test a scratch directory
 * that goes when it exits.
 */
#ifndef FLEETMARK_TAP_H
#define FLEETMARK_TAP_H

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static inline void
tap_tmp_cleanup(void)
{
	if (tap_tmp[0] != '\0' && getpid() == tap_tmp_pid)
		nftw(tap_tmp, tap_tmp_remove, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * A new directory /tmp/NAME.XXXXXX for the test's files (one a test), and
 * removed with everything in it when the test exits, however it exits
 * but by a signal: a check that failed, a Bail out!, the end of main.
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
	atexit(tap_tmp_cleanup);
	return tap_tmp;
}

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* FLEETMARK_TAP_H */
