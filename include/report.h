/*
 * report.h: tables from run directories (docs/reports.md), rebuilt offline from
 * files only: run.json, trials.jsonl and hosts/NAME.json.  Reports never
 * touch the network or a host.
 *
 * A report merges any number of runs.  A series is (run label, host,
 * variant); the label is run.json's "label" or, when the run has none, the
 * host's kernel release (run.json's hosts.NAME.kernel, else
 * hosts/NAME.json uname.release).  Two series with the same (label, host,
 * variant) from different runs are both kept, the later one named with a
 * "#2" suffix (then "#3"...).
 *
 * A partial run (run.json status "interrupted", "running" or "failed":
 * not every trial ran) is flagged in every rendering that uses it: a line
 * at the top of text, a "partial" table first in Markdown, CSV, JSON and
 * HTML.
 *
 * Typical use:
 *
 *	struct report *r = report_new();
 *	if (report_add_run(r, "results/20261130-...", &err) != 0) ...
 *	if (report_render(r, &opts, stdout, &err) < 0) ...
 *	report_free(r);
 *
 * Errors: 0 (or a count, for report_render) or -1 with a newly allocated
 * message in *err.
 */
#ifndef FLEETMARK_REPORT_H
#define FLEETMARK_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct rgrid;

enum report_format {
	REPORT_TEXT,		/* "text": aligned columns, for mail */
	REPORT_MD,		/* "md": Markdown tables */
	REPORT_CSV,		/* "csv": one table after another, a header row each */
	REPORT_JSON,		/* "json": an array with one object per cell */
	REPORT_HTML,		/* "html": one self-contained page, tables and SVG charts */
};

enum report_table {
	REPORT_TABLE_AUTO,	/* lmbench when the runs have lmbench points; else, when
				 * there are variants, labels or runs to compare, the
				 * matrix of a two-axis sweep and the compact compare
				 * of the other points; else summary and matrix */
	REPORT_TABLE_LMBENCH,	/* the five lmbench 3 summary tables */
	REPORT_TABLE_DELTA,	/* "fork: 166 -> 187 -13%" lines */
	REPORT_TABLE_COMPARE,	/* mean ±rsd% per series, %change, significance */
	REPORT_TABLE_ALL,	/* every table that has data */
	REPORT_TABLE_MATRIX,	/* a grid per series over two swept parameters */
	REPORT_TABLE_SUMMARY,	/* mean ±rsd% per series and point */
	REPORT_TABLE_PROFILE,	/* perf profiles side by side, change per function;
				 * AUTO and ALL add it when trials have profiles */
	REPORT_TABLE_KERNEL,	/* trials during which the kernel logged trouble;
				 * every table but profile adds it when any did */
	REPORT_TABLE_FAILURES,	/* the trials not ok, per host, point and class;
				 * AUTO and ALL add it when some failed */
	REPORT_TABLE_COMPACT,	/* the compact compare: a table per compared pair */
};

enum report_aggregate {
	REPORT_AGG_NONE,	/* lmbench: one row per repetition */
	REPORT_AGG_MEDIAN,
	REPORT_AGG_MEAN,
};

struct report_opts {
	enum report_table	 table;
	enum report_format	 format;
	enum report_aggregate	 aggregate;	/* lmbench rows; delta uses mean unless median */
	const char		*baseline;	/* a series name or a RUN added first; NULL:
						 * the first series */
	double			 threshold;	/* percent; < 0: the plan's regression
						 * threshold, else 5 */
	int			 samples;	/* add the samples table: each trial's
						 * samples, min, median, max (needs
						 * report_keep_samples()) */
	struct rgrid *const	*extra;		/* the caller's grids (rgrid.h), after the
						 * tables in every format; not freed */
	size_t			 nextra;
};

/* Defaults: AUTO, text, no aggregation, first series as baseline, threshold
 * -1, no samples table. */
void	report_opts_init(struct report_opts *o);

/* Parse names as the command line spells them; -1 for an unknown name.
 * The table names are those of the registry in src/report/render.c. */
int	report_format_parse(const char *s, enum report_format *out);
int	report_table_parse(const char *s, enum report_table *out);

struct report;

struct report	*report_new(void);
void		 report_free(struct report *r);	/* accepts NULL */

/*
 * Keep each trial's samples (trials.jsonl "samples") as runs are read, for
 * opts.samples; call before report_add_run().  Without it only a trial's
 * value is kept.
 */
void	report_keep_samples(struct report *r);

/*
 * The lmbench tables' OS column is each run's label alone, without the
 * "#n" of a second run of that label and host: runs that are rows of
 * their own under one label (an ab directory's boots, each a run of its
 * side's label).  The series' names keep their "#n" (the lmbench tables'
 * series column in CSV and JSON).  Call before report_add_run().
 */
void	report_label_rows(struct report *r);

/*
 * Read the run directory `dir` into the report.  A truncated last line of
 * trials.jsonl is skipped with a warning (on stderr, through log.h) and
 * counted; lines that are not ok, or have no metric, are counted per
 * series and not used; corrupt lines, and lines of a format this reader
 * does not know (docs/results.md), are counted, warned about and skipped.
 * An unknown "format" in run.json is an error, as is a missing or
 * unreadable run.json.
 */
int	report_add_run(struct report *r, const char *dir, char **err);

/*
 * report_add_run() with the trial lines in the len bytes at lines (a
 * trials.jsonl in memory, not changed) instead of dir's trials.jsonl;
 * run.json and hosts/ are still read from dir.  For the fuzz target.
 */
int	report_add_lines(struct report *r, const char *dir, const void *lines,
	    size_t len, char **err);

/* Series read so far, and each one's display name ("label host[ variant][#n]"). */
size_t		 report_nseries(const struct report *r);
const char	*report_series_name(const struct report *r, size_t i);
/* Whether opts.baseline = name would name a series of r: its full name, or
 * a label, variant, host, run id or run directory. */
int		 report_has_series(const struct report *r, const char *name);

/* Counts over every run added: for tests and the summary line. */
struct report_counts {
	size_t	lines;		/* complete lines read */
	size_t	used;		/* ok lines with a metric and a value */
	size_t	failed;		/* lines whose status is not ok */
	size_t	infra;		/* of those, infrastructure failures (kind) */
	size_t	nometric;	/* ok lines without a metric */
	size_t	corrupt;	/* lines that are not trial lines */
	size_t	truncated;	/* truncated last lines skipped */
	size_t	unknown_format;	/* lines of a format this fleetmark does not know */
	size_t	bad_profiles;	/* ok lines whose "profile" is malformed (not used) */
	size_t	bad_kernel;	/* lines whose "kernel" is malformed (not used) */
};
void	report_counts(const struct report *r, struct report_counts *c);

/*
 * Write the tables opts asks for to out.  Returns the number of
 * significant regressions found by the compare table (>= 0): rows marked
 * worse whose metric is one of the plan's regression.metrics (all metrics
 * when the plan lists none), each also named on a "REGRESSION:" line
 * after the table; or -1 (bad options: no such baseline, delta with
 * fewer than two series, a compare table whose pairs have no point in
 * common, opts.samples without report_keep_samples()...).
 */
int	report_render(const struct report *r, const struct report_opts *opts,
	    FILE *out, char **err);

/*
 * For the run engine, when a run ends: read rundir, write
 * rundir/report.txt (the tables of REPORT_TABLE_AUTO: lmbench's when the
 * run has lmbench points, else compare between its variants, else a
 * summary and the matrix of a sweep) and, when out is not NULL, print the
 * same text there.  Returns 0 or -1.
 */
int	report_write_run(const char *rundir, FILE *out, char **err);

/*
 * For `run --baseline`, when a run ends: read the baseline run basedir,
 * then rundir, and write rundir/report.txt (lmbench's tables when the
 * runs have lmbench points, then the compare table of rundir against the
 * baseline, each host against the same host, and the "REGRESSION:" lines)
 * and rundir/report.html (the compare table), atomically; print the text
 * to out when it is not NULL.  Returns the number of significant
 * regressions (>= 0, counted as report_render() does) or -1.
 */
int	report_write_baseline(const char *rundir, const char *basedir, FILE *out,
	    char **err);

/*
 * For the run engine, when a run ends: write rundir/report.html (the same
 * tables as report.txt, and SVG charts: a scaling curve per swept numeric
 * parameter, bars with error bars per point), atomically.  Prints nothing.
 * Returns 0 or -1.
 */
int	report_write_html(const char *rundir, char **err);

/* --- Formatting helpers, public for the golden unit tests --------------- */

/*
 * One lmbench cell: the value formatted as lmbench 3's getsummary num()
 * does with `len` characters (blank for a missing or non-positive value;
 * "39.K", "166.", "2972", "0.49", "7.5800", "2.14310"), then cut or padded
 * to `width` characters, right-aligned.  Where getsummary's text would
 * read as another number ("5e-0" for 0.0005, "12.3" for 12.3K cut to 4),
 * a form that reads right instead ("5e-4", "12.K"), wider than the column
 * only when none fits.  buf holds at least width + 1 and 32 bytes.
 */
void	report_lmbench_num(char *buf, double v, int len, int width);

/*
 * The delta line for one metric: "NAME: A -> B +x%", the sign meaning
 * better (+) or worse (-) whatever the direction.  A new string.
 */
char	*report_delta_line(const char *name, double a, double b, int higher_better);

#endif /* FLEETMARK_REPORT_H */
