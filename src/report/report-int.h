/*
 * report-int.h: what the report-*.c files share: the data read from runs
 * (series, cells, values) and the tables built from them as grids
 * (rgrid.h).  Private to the report module.
 */
#ifndef FLEETMARK_REPORT_INT_H
#define FLEETMARK_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "report.h"
#include "rgrid.h"
#include "strmap.h"
#include "strv.h"
#include "verdict.h"

struct rseries {
	char	*run;		/* run id */
	char	*group;		/* run.json "group" (runs of one group are one run
				 * to report_pairs()), or NULL */
	char	*dir;		/* run directory as given */
	char	*label;		/* run label or kernel release */
	char	*host;
	char	*variant;	/* NULL: none */
	int	 dup;		/* 1, or n for the n-th series with this (label, host, variant) */
	char	*name;		/* "host/label[/variant][#n]" */
	char	*os;		/* lmbench OS column: variant or label, with #n */
	double	 mhz;		/* hosts/NAME.json "mhz", or 0 */
	double	 threshold;	/* the run plan's regression threshold (percent), or -1 */
	double	 fdr;		/* the run plan's regression.fdr, or -1 */
	char	*regmetrics;	/* the run plan's regression.metrics as " a.b c.d ",
				 * or NULL when it lists none (every metric counts) */
	char	*plan;		/* run.json's plan name, or NULL */
	size_t	 failed, infra, nometric;	/* lines not used; infra: of failed */
};

/* A (bench, params, metric) point, across every series. */
struct rcell {
	char	*bench;
	char	*params;	/* "k=v,k=v" in the order of the line, "" for none */
	char	*metric;
	char	*unit;
	int	 higher;	/* higher is better */
};

/* One trial's samples (trials.jsonl "samples"), in the order taken. */
struct rsamples {
	size_t	 n;
	double	*v;
};

/* The values of one cell for one series, by repetition. */
struct rvals {
	size_t		 n, cap;
	int		*rep;
	int		 rep_max;	/* the largest of rep[] (when n > 0) */
	double		*v;
	struct rsamples	*smp;	/* per value, when report_keep_samples(); else NULL */
	struct strv	*notes;	/* the agent's notes of these trials (distinct), or NULL */
};

/* A run read (report_add_run()), in the order given. */
struct rrun {
	char	*id;		/* run id */
	char	*dir;		/* run directory as given */
	char	*status;	/* run.json status, or NULL */
	int	 partial;	/* status "interrupted", "running" or "failed" */
	char	*group;		/* run.json "group", or NULL */
	char	*start;		/* run.json "start", or NULL */
	char	*controller;	/* run.json "controller"."host", or NULL */
	char	*hosts;		/* run.json's hosts, "a, b" */
};

/* A trial during which the kernel reported trouble (report-kernel.c). */
struct rkernel {
	size_t		 series;
	char		*bench;		/* the suite's name for a suite trial */
	char		*params;	/* "" for a suite trial */
	long long	 rep;
	char		*counts;	/* "warning 2, soft_lockup 1" */
	struct strv	 kinds;		/* "warning", "soft_lockup" */
	char		*first;		/* the first line logged, or "" */
};

/* A profile: one function's samples. */
struct rprof_fn {
	char			*sym;
	unsigned long long	 hits;
};

/* The profiles of one series at one point (bench, params), summed over
 * its trials (report-profile.c). */
struct rprof {
	size_t			 series;
	char			*bench;
	char			*params;
	char			*event;		/* the first trial's, or NULL */
	unsigned long long	 total;		/* samples, every trial */
	size_t			 trials;	/* trials with a profile */
	struct rprof_fn		*fn;		/* by hits once report_profile_sort() ran */
	size_t			 nfn, cap;
	struct strv		 absent;	/* why trials had none, as they said */
	size_t			*absent_n;	/* trials per reason */
	size_t			 absent_cap;
	size_t			 nabsent;	/* trials without a profile */
};

struct rfails;

struct report {
	struct rseries	*series;
	size_t		 nseries, cap_series;
	struct rcell	*cells;
	size_t		 ncells, cap_cells;
	struct rvals	**vals;		/* [series][cell], rows grown as needed */
	size_t		*vals_n;	/* cells allocated in each series row */
	struct strmap	 cmap;		/* (bench, params, metric) to cell: strmap_addv() */
	struct rprof	*profs;		/* per (series, point) with profile lines */
	size_t		 nprofs, cap_profs;
	struct rkernel	*kernel;	/* trials with kernel log trouble */
	size_t		 nkernel, cap_kernel;
	struct rrun	*runs;
	size_t		 nruns, cap_runs;
	int		 keep_samples;	/* report_keep_samples() */
	int		 label_rows;	/* report_label_rows() */
	struct strv	 unlike;	/* "series\x1fpoint\x1ftext" of unlike-lmbench notes */
	struct report_counts counts;
	struct rfails	*fails;		/* lines not ok (report-failures.c), or NULL */
};

/* The values of cell c for series s (NULL when none). */
const struct rvals *report_vals(const struct report *r, size_t s, size_t c);

/* The index of the series whose name is name exactly, or (size_t)-1. */
size_t	report_series_index(const struct report *r, const char *name);
/*
 * For each series, the series it is compared with: the baseline group is
 * the baseline series and those of the same run (or run group,
 * report_same_run()), label and variant (other hosts); each other series is paired with the group's series of its own
 * host, else with the baseline.  (size_t)-1 for the group's own members.
 * When that pairs nothing (one run of several hosts), every series is
 * paired with the baseline and *fallback (may be NULL) is set to 1.
 * A new array of nseries.
 */
size_t	*report_pairs(const struct report *r, size_t base, int *fallback);

/*
 * report-env.c, for the top of a report: the env facts that differ between
 * the hosts of each pair (report_pairs()) of different runs
 * ("environment"), and the tuning profiles run.json recorded ("tuning");
 * NULL when there is nothing to say.
 */
struct rgrid	*report_env_grid(const struct report *r, size_t base);
struct rgrid	*report_tune_grid(const struct report *r);

/*
 * report-group.c, run groups (runref.h): report_group_run() fills rr's
 * group facts from run.json; report_same_run() is whether two series are
 * of one run, or of runs of one group (report_pairs() takes those as one
 * run); report_group_grid(), for the top of a report, a row per run of a
 * group ("group": group, run, hosts, controller, start), NULL when no run
 * has a group.
 */
struct rundir_run;
void		 report_group_run(struct rrun *rr, const struct rundir_run *run);
int		 report_same_run(const struct rseries *a, const struct rseries *b);
struct rgrid	*report_group_grid(const struct report *r);
/* Whether every "k=v" of want (space or comma separated) is in have. */
int	report_params_match(const char *have, const char *want);
/* The value of key k in params "k=v,k=v" (a new string), or NULL. */
char	*report_param(const char *params, const char *k);
/*
 * The cells of cell c's (bench, metric) from c on that are not done[]
 * yet, into cells (room for ncells of the report), each marked done;
 * their number.  Charts and matrices take a metric's points this way.
 */
size_t	 report_metric_cells(const struct report *r, size_t c, unsigned char *done,
	    size_t *cells);
/*
 * The parameters swept among cells: those that take more than one value
 * (a cell without one counts as the value ""), in order of appearance,
 * added to *swept.
 */
void	 report_swept(const struct report *r, const size_t *cells, size_t ncells,
	    struct strv *swept);
/* Mean (or median) of v; NAN when empty. */
double	report_agg(const struct rvals *v, enum report_aggregate agg);

int	report_table_lmbench(const struct report *r, const struct report_opts *o,
	    struct rgrids *gs, char **err);
/* grew: the compare table's sign (+ the value grew, then "worse" or
 * "better") instead of the mail's (+ better). */
int	report_table_delta(const struct report *r, const struct report_opts *o,
	    size_t base, int grew, struct rgrids *gs, char **err);
/* Returns 0, 1 when no (bench, metric) has a two-parameter sweep, or -1. */
int	report_table_matrix(const struct report *r, const struct report_opts *o,
	    size_t base, struct rgrids *gs, char **err);
/* Flag in in[] (r->ncells) the cells the matrix grids show (a (bench,
 * metric) over two or more swept parameters); how many. */
size_t	report_matrix_cells(const struct report *r, unsigned char *in);

/* --- Judging (report-judge.c) ----------------------------------------------- */

/* The false discovery rate when no plan gives regression.fdr. */
#define REPORT_DEFAULT_FDR	0.05

enum rjudge_state {
	RJUDGE_NONE,		/* not judged: a side has no values, or the baseline's
				 * mean is 0 or not a number (no change to show) */
	RJUDGE_JUDGED,		/* in the FDR step; d, q and mark hold */
	RJUDGE_FEW,		/* cannot judge: fewer than VERDICT_MIN_TRIALS a side */
	RJUDGE_NOISY,		/* cannot judge: a side's rsd is above the threshold */
};

enum rjudge_mark {
	RJUDGE_UNMARKED,
	RJUDGE_WORSE,		/* significant, worse for the metric */
	RJUDGE_BETTER,		/* significant, better */
};

/*
 * One row a compare or matrix judges: point (cell) for series against its
 * pair (report_pairs()).  d is verdict_judge()'s, filled unless the state
 * is RJUDGE_NONE (its own kind uses the raw p; mark is the tables' word);
 * q is the Benjamini-Hochberg q over every row judged (NAN for the others).
 */
struct rjudge {
	size_t			 cell, series, base;
	const struct rvals	*bv, *v;	/* the baseline's and the series' values,
						 * or NULL (owned by the report) */
	enum rjudge_state	 state;
	struct verdict		 d;
	double			 q;
	enum rjudge_mark	 mark;		/* only for RJUDGE_JUDGED rows */
	size_t			 needed;	/* cannot judge: about that many trials a
						 * side would decide it; 0 unknown, or
						 * more would not help */
	double			 spread;	/* cannot judge, and more trials would not
						 * help: the rsd above the threshold,
						 * percent (verdict_needed()); else NAN */
	int			 base_noisy, noisy;	/* report_side_noisy() */
	size_t			 base_outliers, outliers;	/* trials flagged (robust.h) */
};

/* Every row of a report, judged once; rows in cell order, then series. */
struct rjudged {
	struct rjudge	*rows;
	size_t		 n;
	size_t		 judged;	/* rows in the FDR step */
	double		 threshold;	/* percent */
	double		 fdr;		/* the level q is held against */
	size_t		*index;		/* [series * ncells + cell]: row + 1, or 0 */
	size_t		 ncells, nseries;
};

/* The threshold in percent: --threshold, the plan's, or VERDICT_THRESHOLD. */
double	report_threshold(const struct report *r, const struct report_opts *o, size_t base);
/* Whether a worse change of series s against b at cell counts as a
 * regression: its metric is in the plan's regression.metrics (the
 * compared run's plan's list, else the baseline's; none lists every). */
int	report_regression_counts(const struct report *r, size_t s, size_t b,
	    const struct rcell *cell);
/* The regression.fdr of the baseline's run plan, else REPORT_DEFAULT_FDR. */
double	report_fdr(const struct report *r, size_t base);
/*
 * Whether a side is too noisy to judge: no values, fewer than
 * VERDICT_MIN_TRIALS, or an rsd above the threshold (values that never
 * vary, a count that is always 0, are not noisy).
 */
int	report_side_noisy(const struct rvals *v, double threshold);
/*
 * Judge every (point, compared pair) of r against base's pairs into *out
 * (report_judged_release() frees it).  0, or -1 with *err.
 */
int	report_judge(const struct report *r, const struct report_opts *o, size_t base,
	    struct rjudged *out, char **err);
/* The row of series at cell, or NULL (no values on either side, or a
 * series of the baseline group). */
const struct rjudge *report_judged_row(const struct rjudged *j, size_t series, size_t cell);
/*
 * verdict_why() of row j of r (flags and buf as there): why it is what
 * it is, in the words every output uses.
 */
void	report_judge_why(const struct report *r, const struct rjudge *j, double threshold,
	    int flags, char *buf, size_t size);
void	report_judged_release(struct rjudged *j);

/* Each series' mean and rsd per point, for a run with nothing to compare. */
int	report_table_summary(const struct report *r, const struct report_opts *o,
	    size_t base, struct rgrids *gs, char **err);
/*
 * The compare table (one row per point and compared pair, with a geomean
 * row per pair and (bench, metric)), then the regressions grid when there
 * is one.  Returns the number of significant regressions, or -1.
 */
int	report_table_compare(const struct report *r, const struct report_opts *o,
	    size_t base, struct rgrids *gs, char **err);
/*
 * The compact compare tables (grid "compact"): one per compared pair, the
 * series named in its title; columns point, base, new, change, 95%
 * interval, p, q, mark (hidden: baseline, series, bench, params, metric,
 * unit).  cells (r->ncells flags, or NULL for all) limits the rows; the
 * regressions are report_table_regressions()'s.  0, or -1.
 */
int	report_table_compact(const struct report *r, const struct report_opts *o,
	    size_t base, const unsigned char *cells, struct rgrids *gs, char **err);
/* Only the regressions grid of the compare table, for the cells flagged
 * (NULL: all); the number of regressions, or -1. */
int	report_table_regressions(const struct report *r, const struct report_opts *o,
	    size_t base, const unsigned char *cells, struct rgrids *gs, char **err);
/* "  Lines not used: ..." for a title, or "" when every line was used (new). */
char	*report_unused_text(const struct report *r);
/* Samples shown one by one in the samples table when a trial has at most these. */
#define REPORT_SAMPLES_SHOWN	10
/* Each trial's samples: n, min, median, max, spread and (for a handful) the
 * samples; needs r->keep_samples. */
int	report_table_samples(const struct report *r, const struct report_opts *o,
	    struct rgrids *gs, char **err);
/*
 * A trial line's "profile" object (docs/results.md) for series s at point
 * (bench, params): its functions added to the series' sums, or its
 * absence counted with its reason.  -1 (nothing kept) when it is malformed.
 */
int	report_profile_add(struct report *r, size_t s, const char *bench,
	    const char *params, const json_t *prof);
/* Sort each series' functions by hits, once a run is read. */
void	report_profile_sort(struct report *r);
/* Free the profiles of r (not r); r may be NULL. */
void	report_profile_release(struct report *r);
int	report_has_profile(const struct report *r);
/* Listing, change and absence grids for every point with profile lines;
 * -1 when no line has a profile. */
int	report_table_profile(const struct report *r, const struct report_opts *o,
	    size_t base, struct rgrids *gs, char **err);
/*
 * A trial line's "kernel" member (its JSON text) for series s: the trial
 * is listed once, however many lines carry it.  -1 when it is malformed.
 */
int	report_kernel_add(struct report *r, size_t s, const char *bench,
	    const char *suite, const char *params, long long rep, const char *text,
	    size_t len);
/* Free the kernel log lines of r (not r); r may be NULL. */
void	report_kernel_release(struct report *r);
int	report_has_kernel(const struct report *r);
/* The kernel log grid: one row per trial, kinds new against the baseline. */
int	report_table_kernel(const struct report *r, const struct report_opts *o,
	    size_t base, struct rgrids *gs, char **err);
/* The HTML page (report-html.c): header, the grids as tables, SVG charts. */
int	report_html(const struct report *r, const struct report_opts *o, size_t base,
	    const struct rgrids *gs, FILE *out);
/* A trial line's notes for series s at (bench, params): those that say it
 * differs from lmbench are kept for the lmbench tables (report-lmbench.c). */
void	report_lmbench_notes(struct report *r, size_t s, const char *bench,
	    const char *params, const char *const *notes, size_t nnotes);
/*
 * A line of series s that is not ok: counted per (series, bench, params,
 * status), the first message kept (report-failures.c).
 */
void	report_failure_add(struct report *r, size_t s, const char *bench,
	    const char *params, const char *status, const char *message);
/* Free the failure counts of r (not r); r may be NULL. */
void	report_failures_release(struct report *r);
/* Why the last failed trial of series s at bench, with every "k=v" of
 * want, failed: "timeout: its message's first line" (a new string), or NULL. */
char	*report_failure_why(const struct report *r, size_t s, const char *bench,
	    const char *want);
int	report_has_failures(const struct report *r);
/* The failures table: host, variant, bench, point, class, first message,
 * count; -1 when every line was ok. */
int	report_table_failures(const struct report *r, struct rgrids *gs);
/* Whether any series has an lmbench point. */
int	report_has_lmbench(const struct report *r);
/* The lmbench name of a cell ("fork"), or NULL. */
const char *report_lmbench_name(const struct rcell *c);


/* --- The registry of tables (render.c) -------------------------------------- */

/*
 * The grids of o->table (with "auto" and "all" choosing among the tables
 * that have data, and the tables every report adds: --samples, the
 * kernel's trouble) into gs, in the registry's order.  Returns the
 * significant regressions the tables counted, or -1 with *err.
 */
int	report_tables_build(const struct report *r, const struct report_opts *o,
	    size_t base, struct rgrids *gs, char **err);

/* --- Notes (notes.c) -------------------------------------------------------- */

#define REPORT_MAX_CELL_NOTES	16	/* distinct notes kept per (series, cell) */

/* Keep a trial's notes with the values of one (series, cell). */
void	report_notes_put(struct rvals *v, const char *const *notes, size_t n);
/* Every note of (series s, cell c) on (row, col) of g. */
void	report_cell_notes(const struct report *r, size_t s, size_t c, struct rgrid *g,
	    size_t row, size_t col);

/* Whether s is a whole number as strtod() reads it (not empty). */
int	report_is_number(const char *s);
/* qsort() comparator of strings by their numeric value. */
int	report_cmp_num(const void *a, const void *b);

#endif /* FLEETMARK_REPORT_INT_H */
