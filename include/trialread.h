/*
 * trialread.h: reading trials.jsonl back (its lines are written by
 * journal_append(), journal.h; every member is described in
 * docs/results.md): the done set --resume trusts, and a fast reader of
 * every trial line.
 */
#ifndef FLEETMARK_TRIALREAD_H
#define FLEETMARK_TRIALREAD_H

#include <stddef.h>
#include <sys/types.h>

struct trial_done;

#define TRIALREAD_MAX_LINE	(16 * 1024 * 1024)	/* longer trial lines are corrupt */

/* --- Reading trials.jsonl -------------------------------------------------- */

/*
 * One trial line as read back (docs/results.md has every member).  Every
 * pointer is borrowed from the reader and valid only during the callback;
 * strings are NUL-terminated UTF-8.  Members a line lacks are NULL, 0, or
 * as noted.
 */
struct trial_line {
	size_t		 lineno;	/* 1-based, in the file */
	long long	 format;	/* JOURNAL_FORMAT */
	const char	*run;
	const char	*host;
	const char	*variant;	/* NULL: the plan has no variants */
	const char	*bench;
	const char	*suite;		/* NULL unless a suite ran as one trial */
	size_t		 nparams;	/* the plan's parameters, as text */
	const char	**keys;
	const char	**vals;
	size_t		 nresolved;	/* the agent's, numbers as their JSON text */
	const char	**rkeys;
	const char	**rvals;
	long long	 rep;
	const char	*key;
	const char	*metric;	/* NULL on a line without a metric (a failure) */
	const char	*unit;
	const char	*direction;	/* "lower", "higher", or NULL */
	int		 higher_better;
	int		 has_value;
	double		 value;
	const double	*samples;
	size_t		 nsamples;
	long long	 iterations;	/* 0 when not known */
	double		 start;
	double		 duration;	/* -1 when not known */
	const char	*status;	/* as written */
	int		 st;		/* ap_status_parse(status): -1 for a status
					 * this controller does not know */
	const char	*kind;
	const char	*message;
	size_t		 nnotes;
	const char	**notes;
	long long	 part, parts;	/* 1, 1 when absent */
};

/* Called for each trial line; a non-zero return stops the reading and is
 * returned by trialread_file(). */
typedef int (*trial_line_fn)(const struct trial_line *l, void *arg);

/*
 * The trials that have an ok line, by (host, trial key).  A trial counts
 * when all the lines of one of its appends are there (parts 1..N, in a
 * row) and their status is ok; a trial that failed and was run again
 * counts once it succeeded.
 */

struct trial_scan {
	size_t	lines;		/* complete lines read */
	size_t	trials_ok;	/* trial_done_read(): trials done */
	size_t	corrupt;	/* complete lines that are not trial lines */
	size_t	first_corrupt;	/* line number of the first, or 0 */
	int	truncated;	/* the last line has no newline */
	off_t	good_size;	/* bytes up to the end of the last complete line */
};

/*
 * Read a trials.jsonl.  A missing file is an empty journal.  Corrupt
 * lines and a truncated last line are skipped and counted in *scan (may
 * be NULL), not errors; only failing to read is.
 */
int	trial_done_read(const char *path, struct trial_done **out,
	    struct trial_scan *scan, char **err);

/*
 * trial_done_read() on trials.jsonl open as fd (read from its start);
 * path names it in messages.  For journal_resume(), which holds the file
 * open and locked.
 */
int	trial_done_read_fd(int fd, const char *path, struct trial_done **out,
	    struct trial_scan *scan, char **err);

/*
 * Read every trial line of a trials.jsonl, in order, fast (a million
 * lines of 11 samples in about a second: what reports load runs with).
 * Lines that are not trial lines of this format (not JSON, a member of
 * the wrong type, no host, key, bench or status...) and a truncated last
 * line are skipped and counted in *scan (may be NULL).  A missing file
 * has no lines.  Returns 0, fn's non-zero return, or -1 with *err set
 * when the file cannot be read.
 */
int	trialread_file(const char *path, trial_line_fn fn, void *arg,
	    struct trial_scan *scan, char **err);

int	trial_done_has(const struct trial_done *d, const char *host,
	    const char *key);
/* Trials done, for one host or (host NULL) all. */
size_t	trial_done_count(const struct trial_done *d, const char *host);
void	trial_done_free(struct trial_done *d);

#endif /* FLEETMARK_TRIALREAD_H */
