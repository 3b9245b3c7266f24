/*
 * history.h: the nights of one plan, read from a results directory or an
 * archive, as series with their change points: what `fleetmark history`
 * shows (docs/history.md).
 *
 *	struct history_opts o;
 *	struct history *h;
 *
 *	history_opts_init(&o);
 *	o.plan = "lmbench";
 *	if ((r = history_load("results", &o, &h, &err)) != 0) ...
 *	for (i = 0; i < h->nseries; i++) ... h->series[i].changes ...
 *	history_render(h, &ro, stdout, &err);
 *	history_free(h);
 *
 * Nights.  A night is one finished run of the plan (run.json "status"
 * finished; running, interrupted and failed runs are left out), or the
 * finished runs of one run group (run.json "group", `run --group`:
 * several controllers, each on its own hosts), in the order of their
 * start (a group's, its first run's).  The plan is the one asked for, else the only
 * plan the finished runs have (more than one is HISTORY_EINPUT, with the
 * list of plans).  A run id seen twice (a copy of a run) counts once.  A
 * host in two runs of one group (which report refuses) has the later
 * run's values on that night, with a warning.
 *
 * Series.  A series is (host, variant, bench, params, metric): one value a
 * night, the mean of that night's ok trials with a value (report.c counts
 * the same lines), with their sd and count.  A night on which a series
 * has no value (the host failed, the point was not run) is not in it.
 * Each night carries its label, as reports name series: the run's label,
 * else the host's kernel release (run.json, else hosts/NAME.json), else
 * "unknown".  Series are sorted by bench, params (in version order),
 * metric, host and variant.
 *
 * Change points.  changepoint_detect() (changepoint.h: E-divisive means,
 * a permutation test at p <= 0.05, segments of at least 3 nights) on
 * each series' values, with the threshold as the smallest change kept:
 * the option's, else the plan's regression.threshold (of the newest
 * night), else VERDICT_THRESHOLD (verdict.h).  The segments between them, with their
 * means and their night-to-night spread.
 *
 * The cache.  Reading trials.jsonl is what costs; so each run's summary
 * (its run.json facts and, once read, every series' mean, sd and n for
 * the night) is kept in a file of its own under the cache directory,
 * named by the SHA-256 of its key and valid while what it was made from
 * is unchanged:
 *
 *	run directory	key: its real path; valid while run.json and
 *			trials.jsonl keep their size and modification time
 *	archive run	key: URL/RUNID; valid while the MANIFEST of the
 *			archive's cached copy (archive_fetch()) gives run.json
 *			and trials.jsonl the same sums
 *
 * A second call then reads a small file per run and trials.jsonl only of
 * the runs that are new or changed.  Cache files are replaced atomically
 * (fs_write_atomic(), without fsync: they can be made again); one that
 * cannot be read or written is a warning, never an error.
 *
 * Errors: 0, HISTORY_EINPUT for input that cannot make a history (no
 * runs, an unknown plan, host or metric: `history` exits 2), or -1 (a
 * run or archive that cannot be read: exit 1); both with a new message
 * in *err.
 */
#ifndef FLEETMARK_HISTORY_H
#define FLEETMARK_HISTORY_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"
#include "serieskey.h"

#define HISTORY_EINPUT		(-2)
#define HISTORY_NONE		((size_t)-1)	/* no change: see struct history_segment */
#define HISTORY_CACHE_FORMAT	3		/* "format" of a cache file */
#define HISTORY_CACHE_MAX	(256 * 1024 * 1024)	/* bytes of a cache file read */

struct history_opts {
	const char	*plan;		/* NULL: the one plan of the finished runs */
	const char *const *hosts;	/* only these hosts' series (names) */
	size_t		 nhosts;	/* 0: every host */
	const char	*metric;	/* "BENCH.METRIC" or "BENCH", comma-separated;
					 * NULL: every metric */
	const char	*since;		/* only runs started at or after it (see
					 * history_since_valid()); NULL: all */
	double		 threshold;	/* percent; < 0: the plan's, else 5 */
	const char	*cache;		/* the cache directory; NULL:
					 * history_cache_dir(); "": no cache */
	const char	*exclude;	/* a run id left out (tonight's, for the
					 * nightly verdict); NULL: none */
	const char	*exclude_group;	/* the runs of this group left out
					 * (tonight's); NULL: none */
	const char	*group;		/* only the runs of groups matching this
					 * glob (fnmatch(3)); NULL: every run */
};

/* No plan, hosts, metric, since, exclude or group; threshold -1; the default
 * cache. */
void	history_opts_init(struct history_opts *o);

/*
 * Whether s is a --since: a date YYYY-MM-DD, or a time YYYY-MM-DDTHH:MM:SSZ
 * (UTC, as run.json's "start"), with a month and day that exist.
 */
int	history_since_valid(const char *s);

/*
 * The cache directory: $XDG_CACHE_HOME/fleetmark/history when that is an
 * absolute path, else ~/.cache/fleetmark/history.  A new string.
 */
char	*history_cache_dir(void);

/* A finished run of the plan: a night, or a part of one (a run group's). */
struct history_run {
	char	*id;
	char	*group;		/* run.json "group", or NULL */
	size_t	 night;		/* its night: runs of one group share one, in
				 * 0..history.nnights */
	char	*dir;		/* the run directory read (of an archive run, its
				 * copy in the archive cache) */
	char	*start;		/* run.json "start": "2026-11-30T04:15:00Z" */
	char	*label;		/* run.json "label", or NULL */
	char	*commit;	/* run.json "commit", or NULL */
	char	*plan_file;	/* run.json "plan"."file", or NULL */
	char	**hosts;	/* run.json "hosts", names */
	char	**labels;	/* each host's night label (see Series above) */
	size_t	 nhosts;
	int	 cached;	/* its series came from the cache */
};

/* One series on one night. */
struct history_night {
	size_t		 run;		/* index into history.runs (the run that
					 * measured the series that night) */
	const char	*label;		/* borrowed from the run */
	double		 value;		/* the mean of the night's trials */
	double		 sd;		/* of the trials; NAN with a single trial */
	size_t		 n;		/* trials */
	size_t		 segment;	/* index into the series' segments */
};

/* A change point: the night a new segment starts. */
struct history_change {
	size_t	night;		/* index into the series' nights */
	double	pct;		/* change of the segments' means, percent, + grew */
	double	lo, hi;		/* its 95% interval (NAN when a side is one night) */
	double	p;		/* the permutation test's p-value */
	double	before, after;	/* the means of the segments either side */
	int	worse;		/* 1: worse for the metric's direction, 0: better */
};

/* The nights between two change points. */
struct history_segment {
	size_t	start, n;	/* nights [start, start + n) */
	double	mean;		/* of the nights' values */
	double	sd;		/* night to night: the values' sample sd (NAN, n < 2) */
	size_t	change;		/* index into changes of the change it starts
				 * with, or HISTORY_NONE for the first */
};

struct history_series {
	struct series_key key;	/* owned; params "k=v,k=v" in the plan's order */
	char	**pkeys, **pvals;	/* the params as the trial lines give them */
	size_t	 nparams;
	int	 higher;	/* higher is better */
	struct history_night *nights;	/* oldest first */
	size_t	 n, cap;
	struct history_change *changes;	/* by night */
	size_t	 nchanges;
	struct history_segment *segments;	/* nchanges + 1 of them, by night */
	size_t	 nsegments;
};

/* What a load found, for -v and the tests. */
struct history_counts {
	size_t	listed;		/* run directories or archive runs looked at */
	size_t	runs;		/* finished runs of the plan kept (a group's
				 * each) */
	size_t	read;		/* of them, read from trials.jsonl */
	size_t	cached;		/* of them, from the cache */
	size_t	others;		/* other plans, not finished, before --since, twice */
};

struct history {
	char	*source;	/* as given (an archive URL without credentials) */
	char	*plan;
	double	 threshold;	/* percent, as used */
	struct history_run *runs;	/* the nights' runs, oldest first; a
					 * group's runs one after another */
	size_t	 nruns;
	size_t	 nnights;	/* nights: runs, with a group's counted once */
	struct history_series *series;
	size_t	 nseries;
	size_t	 nchanges;	/* over every series */
	size_t	 nworse;	/* of them, worse */
	struct history_counts counts;
};

/*
 * Read the plan's nights in source (a directory holding run directories,
 * or an archive URL, archive.h) with the options o (NULL: the defaults),
 * build the series and find their change points, into a new *out.
 * Returns 0, HISTORY_EINPUT or -1 (see Errors above).
 */
int	history_load(const char *source, const struct history_opts *o,
	    struct history **out, char **err);

void	history_free(struct history *h);	/* accepts NULL */

/* --- Rendering (history-render.c) ---------------------------------------- */

struct history_render_opts {
	enum report_format format;
	int	nights;		/* text and md: a row per night, not per segment
				 * (csv and json always have one per night) */
};

/*
 * Write h to out as o asks (docs/history.md has every format):
 *
 *	text, md	a row per segment of each series (its nights, dates,
 *			mean and night-to-night rsd, and on the segments after
 *			a change point the change, its p, worse or better, and
 *			the labels of the nights around it); with o->nights a
 *			row per night instead; then, for each worse change
 *			whose night and the night before carry commits, the
 *			`git bisect start` and `git bisect run` lines
 *	csv		a row per (series, night)
 *	json		an array with an object per (series, night): host,
 *			variant, bench, metric, unit, direction, params, run,
 *			start, label, value, sd, rsd, n, segment_mean and
 *			change (null, or on the first night of a new segment
 *			{"pct", "lo", "hi", "p", "direction", "before",
 *			"after", "labels"})
 *	html		a self-contained page: the change points as a table,
 *			then a small SVG trend chart per series
 *
 * Returns 0, or -1 with *err when out cannot be written.
 */
int	history_render(const struct history *h, const struct history_render_opts *o,
	    FILE *out, char **err);

/*
 * history-env.c: the env facts (hosts/NAME.json) that changed on a host
 * from one night to its next, written to out first: lines for text
 * ("ENVIRONMENT CHANGES: ...") and Markdown, a small table for HTML;
 * nothing when none changed (or a night kept no facts).
 */
void	history_env_render(const struct history *h, enum report_format f, FILE *out);

#endif /* FLEETMARK_HISTORY_H */
