/*
 * plan.h: test plans (docs/plans-and-fleets.md): loading and validating them against the
 * agent's benchmark catalogue, and expanding them into ordered trials.
 *
 * A plan names benchmarks with parameters; a parameter given as a list is
 * a matrix axis and the benchmark is measured at every combination (the
 * first axis varies slowest).  A suite (lmbench) stands for its member
 * points.  Every point is measured `repeat` times (independent trials)
 * under every variant.  Loading resolves all of that into plan->points,
 * each with its full parameter set (given values and the catalogue's
 * defaults), which does not depend on the host: `N%` values are kept as
 * text for the agent to resolve on each host.
 *
 * plan_expand() orders the trials of one host: variant by variant in the
 * order written (each variant is applied once, its trials run, then it is
 * undone), and inside a variant by the plan's `order`:
 *	interleave	repetition 1 of every point, then repetition 2, ...
 *	sequential	every repetition of a point, then the next point
 *	shuffle		a random permutation from a seed (reproducible; the
 *			same order on every host for the same seed)
 *
 * Every trial has a stable key "VARIANT/BENCH/k=v,k=v/REP" (see
 * plan_trial_key()) by which a run journal and --resume know it.
 *
 * Errors: 0 or -1 with a newly allocated "FILE:LINE:COL: message" in *err.
 */
#ifndef FLEETMARK_PLAN_H
#define FLEETMARK_PLAN_H

#include <stddef.h>

struct catalog;
struct program;
struct ydoc;
struct ydoc_node;
struct fleet;
struct tune_spec;

#define PLAN_MAX_REPEAT		10000
#define PLAN_MAX_VARIANTS	256
#define PLAN_MAX_TRIALS		100000	/* per host: variants x points x repeat */
/*
 * 5 trials a point by default: with 3, a true 5% change (the default
 * threshold) was marked in 85% of pairs on a shared 2-core machine; with
 * 5, in 95% (tests/bench/verdicts.sh, docs/performance.md).
 */
#define PLAN_DEFAULT_REPEAT	5
/*
 * `repeat: auto`: PLAN_AUTO_MIN_REPEAT interleaved rounds, then a round
 * more of the points whose 95% interval is still too wide to decide a
 * change of the threshold's size, up to `repeat_max` trials a point.
 */
#define PLAN_AUTO_MIN_REPEAT	3
#define PLAN_DEFAULT_REPEAT_MAX	20
#define PLAN_DEFAULT_SAMPLES	11
#define PLAN_DEFAULT_TIMEOUT	300000	/* ms */
#define PLAN_DEFAULT_NIGHTS	7	/* regression.nights: of the history's segment */
#define PLAN_DEFAULT_CONFIRM	1	/* regression.confirm: rounds of repeat trials */
#define PLAN_DEFAULT_FDR	0.05	/* regression.fdr: Benjamini-Hochberg level */
#define PLAN_MAX_NIGHTS		365
#define PLAN_MAX_CONFIRM	10

enum plan_order {
	PLAN_ORDER_INTERLEAVE,
	PLAN_ORDER_SEQUENTIAL,
	PLAN_ORDER_SHUFFLE,
};

enum plan_profile {
	PLAN_PROFILE_NONE,
	PLAN_PROFILE_PERF,	/* a system-wide perf profile during the trial */
};

/* Monitors a point may ask for (`monitor:`), as bits of plan_point.monitors. */
#define PLAN_MON_INTERRUPTS	1u	/* /proc/interrupts: TLB shootdowns, IPIs */
#define PLAN_MON_VMSTAT		2u	/* /proc/vmstat and /proc/stat counters */
#define PLAN_MON_PERF_STAT	4u	/* cycles, instructions, dTLB load misses */
#define PLAN_MON_COUNT		3

/* The wire name of monitor i (0 .. PLAN_MON_COUNT - 1, bit 1 << i). */
const char	*plan_monitor_name(size_t i);
/* The names of the monitors in bits, in order, into names (room for
 * PLAN_MON_COUNT; static strings); their number. */
size_t		 plan_monitor_names(unsigned bits, char **names);

/* A file written when a variant is applied (old value restored after). */
struct plan_write {
	char	*path;
	char	*value;
};

struct plan_variant {
	char			*name;		/* NULL: the plan has no variants */
	struct plan_write	*writes;
	size_t			 nwrites;
	char			**setup;	/* shell commands, run as given */
	size_t			 nsetup;
	char			**teardown;
	size_t			 nteardown;
};

/* One benchmark point: what one trial measures. */
struct plan_point {
	char			*bench;		/* what the agent runs */
	char			*suite;		/* the suite it came from, or NULL */
	size_t			 nparams;	/* every parameter of the benchmark, */
	char			**keys;		/* in catalogue order, */
	char			**vals;		/* given or defaulted, as text */
	unsigned char		*given;		/* 1 where the plan (or suite) set it */
	unsigned char		*tasks;		/* 1 where it counts tasks run at once
						 * (the catalogue's type cpus) */
	enum plan_profile	 profile;
	unsigned		 monitors;	/* PLAN_MON_* bits: `monitor:` */
	char			*id;		/* "BENCH/k=v,k=v" (escaped), unique */
	char			*label;		/* the given params, for people:
						 * threads=4 command="a b" */
	const struct ydoc_node	*where;		/* the benchmark entry */
	const struct program	*program;	/* bench: program (the plan's), or NULL */
};

struct plan {
	char			*file;
	char			*name;
	char			*description;	/* or NULL */
	int			 repeat;	/* with repeat_auto: the first rounds */
	int			 repeat_auto;	/* `repeat: auto` */
	int			 repeat_max;	/* with repeat_auto: the most trials a point */
	int			 samples;
	enum plan_order		 order;
	long long		 timeout_ms;
	int			 has_seed;	/* `seed:` given */
	unsigned long long	 seed;
	struct plan_variant	*variants;	/* at least one */
	size_t			 nvariants;
	struct plan_point	*points;	/* at least one */
	size_t			 npoints;
	int			 has_regression;
	double			 threshold;	/* percent */
	double			 fdr;		/* regression.fdr, 0 < fdr < 1 */
	char			**metrics;	/* "BENCH.METRIC" */
	size_t			 nmetrics;
	struct program		**programs;	/* the `bench: program` entries */
	size_t			 nprograms;

	struct tune_spec	*tune;		/* `tune:`, or NULL (tune.h) */
	int			 nights;	/* regression.nights: at most this many nights
						 * of the history's current segment */
	int			 confirm;	/* regression.confirm: rounds of repeat trials
						 * that measure a failing point again (0: none) */
	int			 rep_base;	/* plan_expand() numbers repetitions from
						 * rep_base + 1 (0; a confirmation round's
						 * are after the night's) */

	const struct ydoc_node	*hosts;		/* the `hosts:` value, or NULL (all) */
	struct ydoc		*doc;		/* keeps positions alive */
};

struct plan_trial {
	const struct plan_variant	*variant;
	const struct plan_point		*point;
	int				 rep;	/* 1 .. repeat */
	char				*key;	/* plan_trial_key() */
};

/* The ordered trials of one host. */
struct plan_schedule {
	char			*host;
	unsigned long long	 seed;		/* the one used (shuffle) */
	struct plan_trial	*trials;	/* grouped by variant, in order */
	size_t			 ntrials;
	size_t			*variant_start;	/* [nvariants + 1]: trials of variant v
						 * are variant_start[v] .. [v+1]-1 */
	size_t			 nvariants;
};

/* Load and validate a plan against cat.  plan_free() releases it. */
int	plan_load(const char *path, const struct catalog *cat, struct plan **out,
	    char **err);
int	plan_parse(const char *name, const char *text, size_t len,
	    const struct catalog *cat, struct plan **out, char **err);
void	plan_free(struct plan *p);

/*
 * The hosts the plan runs on in fleet f: the plan's `hosts:` (names,
 * @labels, all; default all), narrowed to `only` when it is not NULL (the
 * -H selection, f->nhosts flags).  sel (f->nhosts entries) gets the
 * result.  A name or label the fleet lacks is an error at its position in
 * the plan; an empty result is an error.
 */
int	plan_hosts(const struct plan *p, const struct fleet *f,
	    const unsigned char *only, unsigned char *sel, char **err);

/*
 * plan_hosts() narrowed by a -H selection (hosts_spec, NULL for none):
 * *sel is a new array of f->nhosts flags.
 */
int	plan_select(const struct plan *p, const struct fleet *f,
	    const char *hosts_spec, unsigned char **sel, char **err);

/*
 * The trials of one host in execution order.  `seed` is used when the
 * order is shuffle (see plan_seed()).  Free with plan_schedule_free().
 */
struct plan_schedule *plan_expand(const struct plan *p, const char *host,
	    unsigned long long seed);
void	plan_schedule_free(struct plan_schedule *s);

/* The plan's `seed:`, or a fresh random one when it has none. */
unsigned long long plan_seed(const struct plan *p);

/*
 * The stable key of a trial: "VARIANT/BENCH/k=v,k=v/REP", with the full
 * parameter set in catalogue order, "-" as the variant of a plan without
 * variants, and every byte outside [A-Za-z0-9._:@+-] of names and values
 * written %XX.  A new string.
 */
char	*plan_trial_key(const struct plan_variant *v, const struct plan_point *pt,
	    int rep);

/*
 * The catalogue entry (params, metrics) of the plan's `bench: program`
 * called name, or NULL when the plan has none: a program's metrics are
 * looked up here before the agent's catalogue.  Owned by the plan.
 */
struct catalog_bench;
const struct catalog_bench *plan_program_bench(const struct plan *p, const char *name);

const char	*plan_order_name(enum plan_order o);

/*
 * Whether bench.metric counts by a regression's metrics[0..n) ("BENCH.METRIC"
 * each, as `regression.metrics`): every metric does when n is 0.
 */
int	plan_metric_counts(char *const *metrics, size_t n, const char *bench,
	    const char *metric);

/*
 * Warnings for host `host` with `cpus` online CPUs: for each benchmark
 * entry and parameter that counts tasks run at once (plan_point.tasks:
 * threads, tasks, copies), when some of its values (N% resolved as the
 * agent does) are more than cpus, one "FILE:LINE:COL: warning: ..."
 * naming them.  Returns how many; *out is a new vector of new strings
 * (strv_free() it), NULL when there are none.
 */
size_t	plan_cpu_warnings(const struct plan *p, const char *host, long cpus, char ***out);

/* The model of a trial's duration (plan-estimate.c). */
#define PLAN_EST_START_S	0.1	/* fork, calibration, warm-up: 0.07-0.2 s here */
#define PLAN_EST_SAMPLE_S	0.005	/* the agent's timing target (agent/timing.h) */
#define PLAN_EST_WIS_START_S	0.02	/* a will-it-scale trial besides its intervals */
#define PLAN_EST_PROFILE_S	1.2	/* perf record and report (docs/plans-and-fleets.md) */

/* A host's trials in time: modelled, and those of benchmarks without a model. */
struct plan_estimate {
	double	 secs;		/* the modelled trials, each at most the timeout */
	size_t	 known;		/* trials with a model */
	size_t	 unknown;	/* trials without one */
	char	 names[128];	/* their benchmarks, "exec, munmap" */
	double	 max;		/* every trial at the timeout */
};

/*
 * How long the trials of schedule s of plan p take by the model
 * (plan-estimate.c), the catalogue cat giving the parameters' defaults;
 * the benchmarks without a model are named in e->names, in the plan's
 * order.  Nothing is contacted.
 */
void	plan_estimate_schedule(const struct catalog *cat, const struct plan *p,
	    const struct plan_schedule *s, struct plan_estimate *e);

#endif /* FLEETMARK_PLAN_H */
