/*
 * trialread.h: the one reader of trials.jsonl.  The journal writes the
 * file (journal_append(), journal.h); docs/results.md describes every
 * member of a line.  Reports, the done set of --resume, bisect-run and
 * the summary `fleetmark run` prints all read it through here.
 *
 *	static int
 *	line(const struct trial_line *l, void *arg)
 *	{
 *		... l->host, l->bench, l->metric, l->value ...
 *		return 0;		(non-zero stops the reading)
 *	}
 *
 *	r = trialread_file(path, TRIAL_METRIC | TRIAL_VALUE, line, arg, &scan, &err);
 *
 * A parser made for speed: it reads strict JSON (RFC 8259 syntax, UTF-8,
 * no NUL, nesting at most TRIALREAD_MAX_DEPTH) in place in its line
 * buffer, without an allocation per line, and takes only the members the
 * caller asked for with a mask of enum trial_field: the rest are checked
 * for syntax and skipped, so a caller pays for what it reads, and later
 * formats may add members.  A million lines as the journal writes them
 * take well under a second; jansson takes about 13 s.
 *
 * What a trial line is: one line holding a JSON object whose "format" is
 * the integer RUNDIR_FORMAT (rundir.h) and whose "host", "bench" and
 * "status" are strings; with TRIAL_KEY asked for, "key" must be a string
 * too, and with TRIAL_PARTS, 1 <= part <= parts.  "host" must pass the
 * fleet's name rule (fleet_name_ok(): it names files of the run), and
 * with TRIAL_REP, "rep" must not be negative.  A member asked for with a value of
 * the wrong type (a number for "variant", text in "samples") makes the
 * line corrupt; with TRIAL_LENIENT it reads as absent instead, the way
 * jansson's json_string_value() and json_integer_value() would, and a
 * parameter that is neither text nor a number is left out.  Every other
 * complete line is corrupt, and is counted, not handed out (unless
 * TRIAL_REJECTS asks for it).  A last line without its newline (a crash
 * while it was written) is "truncated": counted, never handed out.
 *
 * Errors: only failing to read is one (-1, a new message in *err); what
 * a line holds never is.
 */
#ifndef FLEETMARK_TRIALREAD_H
#define FLEETMARK_TRIALREAD_H

#include <stddef.h>
#include <sys/types.h>

#define TRIALREAD_MAX_LINE	(16 * 1024 * 1024)	/* longer lines are corrupt */
#define TRIALREAD_WHY_MAX	128	/* bytes of a reason, NUL included */
#define TRIALREAD_MAX_DEPTH	32	/* deeper nesting is corrupt */
#define TRIALREAD_MAX_PARAMS	256	/* more params or resolved: corrupt */
#define TRIALREAD_MAX_NOTES	256	/* more notes: corrupt */
#define TRIALREAD_MAX_SAMPLES	(1 << 20)	/* more samples: corrupt */
#define TRIALREAD_PARAMS_TEXT	1024	/* params_text is cut to one byte less */

/*
 * What a caller reads of each line.  format, host, bench, status and st
 * are always read; everything else only when asked for.  Members not
 * asked for are left as when absent.
 */
enum trial_field {
	TRIAL_RUN		= 1 << 0,	/* run */
	TRIAL_VARIANT		= 1 << 1,	/* variant */
	TRIAL_SUITE		= 1 << 2,	/* suite */
	TRIAL_PARAMS		= 1 << 3,	/* params: nparams, keys, vals */
	TRIAL_PARAMS_TEXT	= 1 << 4,	/* params as "k=v,k=v": params_text */
	TRIAL_RESOLVED		= 1 << 5,	/* resolved: nresolved, rkeys, rvals */
	TRIAL_REP		= 1 << 6,	/* rep */
	TRIAL_KEY		= 1 << 7,	/* key, which must then be there */
	TRIAL_METRIC		= 1 << 8,	/* metric, unit, direction, higher_better */
	TRIAL_VALUE		= 1 << 9,	/* value, has_value */
	TRIAL_SAMPLES		= 1 << 10,	/* samples, nsamples */
	TRIAL_ITERATIONS	= 1 << 11,	/* iterations */
	TRIAL_TIMES		= 1 << 12,	/* start, duration */
	TRIAL_KIND		= 1 << 13,	/* kind */
	TRIAL_MESSAGE		= 1 << 14,	/* message */
	TRIAL_NOTES		= 1 << 15,	/* notes, nnotes */
	TRIAL_PARTS		= 1 << 16,	/* part, parts, which must then be right */
	TRIAL_PROFILE		= 1 << 17,	/* profile, profile_len */
	TRIAL_KERNEL		= 1 << 18,	/* kernel, kernel_len */
	TRIAL_ALL		= (1 << 19) - 1,

	/* How lines are read, not what of them. */
	TRIAL_LENIENT		= 1 << 20,	/* a member of the wrong type is absent */
	TRIAL_REJECTS		= 1 << 21,	/* hand out the lines that are not
						 * trial lines too (see reject) */
};

/* Why a line handed out with TRIAL_REJECTS is not a trial line. */
enum trial_reject {
	TRIAL_OK = 0,		/* it is one */
	TRIAL_EMPTY,		/* nothing between two newlines */
	TRIAL_OTHER_FORMAT,	/* an object with another integer "format" (in
				 * format): docs/results.md says a reader skips it */
	TRIAL_CORRUPT,		/* anything else */
};

/*
 * One line as read.  Every pointer is borrowed from the reader and valid
 * only during the callback; strings are NUL-terminated UTF-8.  Members a
 * line lacks, or that were not asked for, are NULL, 0, or as noted.  A
 * rejected line has only lineno, reject and (TRIAL_OTHER_FORMAT) format.
 */
struct trial_line {
	size_t		 lineno;	/* 1-based, in the file */
	enum trial_reject reject;	/* TRIAL_OK unless TRIAL_REJECTS */
	const char	*why;		/* a rejected line: what is wrong with it
					 * ("not JSON: invalid UTF-8 at byte 12") */
	long long	 format;	/* RUNDIR_FORMAT */
	const char	*run;
	const char	*host;
	const char	*variant;	/* NULL: the plan has no variants */
	const char	*bench;
	const char	*suite;		/* NULL unless a suite ran as one trial */
	size_t		 nparams;	/* the plan's parameters, as text */
	const char	**keys;
	const char	**vals;
	const char	*params_text;	/* "k=v,k=v" in the line's order: text as
					 * it is, integers as written, other
					 * numbers as printf's %g; "" for none */
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
	const char	*profile;	/* the "profile" member's JSON text, as in
					 * the file (not NUL-terminated), or NULL */
	size_t		 profile_len;
	const char	*kernel;	/* the "kernel" member's JSON text (what the
					 * kernel logged: counts, first lines), as
					 * profile, or NULL */
	size_t		 kernel_len;
};

/* Called for each trial line; a non-zero return stops the reading and is
 * returned by the trialread_*() function. */
typedef int (*trial_line_fn)(const struct trial_line *l, void *arg);

/* What a reading found. */
struct trial_scan {
	size_t		lines;		/* complete lines read */
	size_t		corrupt;	/* complete lines that are not trial lines,
					 * empty ones and other formats included */
	size_t		first_corrupt;	/* line number of the first, or 0 */
	char		first_why[TRIALREAD_WHY_MAX];	/* what is wrong with
					 * it (trial_line's why), or "" */
	size_t		empty;		/* of corrupt: empty lines */
	size_t		other_format;	/* of corrupt: TRIAL_OTHER_FORMAT */
	size_t		trials_ok;	/* trial_done_read(): trials done */
	int		truncated;	/* the last line has no newline */
	off_t		good_size;	/* bytes up to the end of the last
					 * complete line */
};

/*
 * Read every line of a trials.jsonl, in order, taking the members in
 * fields (enum trial_field, or'ed), and call fn on each trial line.  A
 * missing file has no lines.  *scan (may be NULL) tells what was read.
 * Returns 0, fn's non-zero return, or -1 with *err set when the file
 * cannot be read.
 */
int	trialread_file(const char *path, unsigned int fields, trial_line_fn fn,
	    void *arg, struct trial_scan *scan, char **err);

/* The same, from the start of an open file (path names it in messages). */
int	trialread_fd(int fd, const char *path, unsigned int fields, trial_line_fn fn,
	    void *arg, struct trial_scan *scan, char **err);

/*
 * The same, on the len bytes at buf (a whole trials.jsonl in memory,
 * not changed; the lines are parsed in a copy).  Cannot fail: returns 0
 * or fn's non-zero return.
 */
int	trialread_buf(const void *buf, size_t len, unsigned int fields,
	    trial_line_fn fn, void *arg, struct trial_scan *scan);

/* --- The done set of --resume --------------------------------------------- */

/*
 * The trials that have an ok line, by (host, trial key).  A trial counts
 * when all the lines of one of its appends are there (parts 1..N, in a
 * row) and their status is ok; a trial that failed and was run again
 * counts once it succeeded.
 */
struct trial_done;

/*
 * Read a trials.jsonl into a new done set in *out.  A missing file is an
 * empty journal.  Corrupt lines and a truncated last line are skipped
 * and counted in *scan (may be NULL), not errors; only failing to read is
 * (-1 with *err set, *out untouched).
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

/* trial_done_read() on a trials.jsonl in memory (not changed). */
struct trial_done *trial_done_read_buf(const void *buf, size_t len,
	    struct trial_scan *scan);

/*
 * The same set, but a trial counts when it has an ok line or a
 * benchmark's failure (bench, timeout, agent-crash...: it ran, and
 * running it again would not say more), not an infrastructure one: what
 * a detached run's collect does not run again (detach.h).
 */
int	trial_finished_read(const char *path, struct trial_done **out, char **err);

/* Whether the trial key of host is done. */
int	trial_done_has(const struct trial_done *d, const char *host,
	    const char *key);
/* Trials done, for one host or (host NULL) all. */
size_t	trial_done_count(const struct trial_done *d, const char *host);
/* Accepts NULL. */
void	trial_done_free(struct trial_done *d);

#endif /* FLEETMARK_TRIALREAD_H */
