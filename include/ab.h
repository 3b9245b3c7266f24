/*
 * ab.h: the statistics of `fleetmark ab`, two kernels (sides A and B)
 * measured on the same host in alternating boots, judged with the BOOT as
 * the unit.  When every trial of a side shares one boot, a slow boot and
 * a slow kernel cannot be told apart; here each side has several boots,
 * run in blocks of one A and one B boot, and the verdict counts boots,
 * not trials.  Pure computation: no I/O, no allocation the caller sees
 * (docs/reports.md, "The paired boot verdict", has the method for users).
 *
 * The model, per (host, metric, point) row, on the log scale (so that a
 * change is a ratio):
 *
 *	log y(s, b, k) = mu + kernel(s) + drift(block of b) + boot(b) + e(b, k)
 *
 * side s, boot b, trial k: boots independent given the side, a block's
 * drift shared by its two boots, trial errors independent within a boot.
 * A boot's mean is the mean of the logs of its trials; a pair is the A and
 * the B boot of one block, d_j = mean log B - mean log A, so the drift
 * cancels.  With n pairs, mean d and sd s_d:
 *
 *	t = mean d / (s_d / sqrt n)			on n - 1 df
 *	change = exp(mean d) - 1			percent, B against A
 *	interval = exp(mean d -+ t(0.975; n-1) s_d / sqrt n) - 1
 *	p (B worse) = P(T >= t) for lower-is-better metrics, P(T <= t)
 *		for higher-is-better ones (worse is then d < 0)
 *
 * Moderated (ab_opts.moderate, ab's rule): over the rows of one call
 * tested over pairs, the variances s_d^2 on n - 1 df are fitted a prior
 * (s0^2, d0) as the nightly's (verdict_prior_fit(), verdict.h: limma's
 * empirical Bayes, Smyth 2004), and each row is tested with
 *
 *	s^2 = (d0 s0^2 + (n - 1) s_d^2) / (d0 + n - 1)	on d0 + n - 1 df
 *
 * in t and the interval alike, unless its own variance is far above the
 * prior's (F(n - 1, d0) p below VERDICT_PRIOR_OUTLIER: its own, on n - 1
 * df).  Fewer than VERDICT_PRIOR_MIN_SERIES such rows: no prior.  With 4
 * pairs, 3 df make t(1 - 0.05/40) about 7.5; the rows' common variance
 * brings it near 3.
 *
 * A side's boot left without a partner (an interrupted sequence) is left
 * out and counted (left_out).  Rows of several hosts of one class are
 * pooled by giving ab_judge_rows() a row with every host's boots: the
 * pairs of all the hosts are the sample (the model: the kernel's effect
 * the same on each host; each host's own level cancels within its pairs).
 * The pooled rows are best judged in a call of their own: a family of
 * their own for the false-discovery step, beside the hosts' rows.  That
 * model is checked: a one-way analysis of variance of the pairs' d by
 * host (F = between-host mean square / within-host mean square, on
 * hosts - 1 and pairs - hosts df).  When its p is below AB_HOSTS_P the
 * kernel's effect differs from host to host, the pairs are no longer one
 * sample, and the row is tested over the hosts' mean d's instead (one
 * value a host, on hosts - 1 df: the hosts as a random sample of the
 * class, each with its own effect; by_host).  A real change that every
 * host shows in a different size is still found; one that the hosts do
 * not share is not.  With few pairs a host the F test has little power:
 * a pooled row that passes it is no proof that the hosts agree.
 *
 * Over a run's rows (ab_judge_rows()): Benjamini-Hochberg (fdr.h) over
 * the one-sided "B worse" p of the counted rows that can be judged (at
 * least AB_MIN_PAIRS pairs; ab_row.counts: the plan's regression metrics,
 * the rows that can fail the run), and separately over the "B better" p
 * of the same rows.  The rows that do not count are a family of their
 * own, with their own two steps: they are reported, and their number
 * does not dilute the counted rows' level.  Then the threshold as a
 * magnitude gate, applied once, after the test:
 *
 *	AB_WORSE	q <= fdr AND the change is worse by the threshold
 *			or more (AB_GATE_INTERVAL, ab's rule: the interval's
 *			worse end reaches it, as the compare table's rule,
 *			verdict.h; AB_GATE_CHANGE: the estimate, which finds
 *			a change of the threshold's size half the time)
 *	AB_BETTER	the same towards better (never fails a run)
 *	AB_SAME		neither, and the 95% interval lies within the
 *			threshold on both sides: no change of that size
 *	AB_NOISY	neither, and the interval reaches the threshold
 *	AB_CANNOT	fewer than AB_MIN_PAIRS pairs, or a value that is not
 *			positive and finite (no log scale)
 *
 * A counted row that is AB_WORSE fails the run: ab_judge_rows() returns
 * their count, and the caller exits 4 (CMD_EXIT_REGRESSION) when it is
 * not 0.
 *
 * What the design can see, per row (ab_judgement's planning fields):
 *
 *  - the variance components from the nested data (trials within boots
 *    within sides): one-way analysis of variance per side by the method
 *    of moments, the sums of squares pooled over sides (and hosts),
 *
 *	within  = SS within / df within
 *	between = (MS between - within) / r0,
 *	r0 = (N - sum r_i^2 / N) / (k - 1)	(r_i trials of boot i, k boots)
 *
 *    a negative between estimate set to 0 (components.clamped);
 *  - the smallest change the test detects with probability AB_POWER, one
 *    sided at the row level alpha = fdr / m (m the rows of its family: the
 *    Bonferroni level, a conservative stand-in for Benjamini-Hochberg's,
 *    which is at least as lenient for the row with the smallest p), from
 *    the noncentral t: the shift delta on the log scale with
 *
 *	P(T'(n - 1, delta sqrt(n) / s_d) > t(1 - alpha; n - 1)) = AB_POWER
 *
 *    (the t approximation, (t(1 - alpha) + t(AB_POWER)) s_d / sqrt n on
 *    n - 1 df, is 24% too small at the 3 df of 4 pairs and alpha
 *    0.05 / 40, 1% at 30 df: the noncentral t is exact for Gaussian
 *    differences, so it is used);
 *  - the boots a side that would detect the threshold: the smallest n
 *    (pairs) whose detectable change is at most the threshold, at most
 *    AB_PLAN_CAP.  s_d is the pairs' sd, or with a single pair the
 *    components': s_d^2 = 2 (between + within / trials a boot).
 *
 * ab_kj_trials() is Kalibera & Jones's optimal repetition count for a
 * two-level experiment, and ab_order_sides() the order of the boots.
 */
#ifndef FLEETMARK_AB_H
#define FLEETMARK_AB_H

#include <stddef.h>
#include <stdint.h>

#define AB_MIN_PAIRS	2	/* fewer complete pairs: cannot judge */
#define AB_POWER	0.95	/* the power of the detectable change */
#define AB_PLAN_CAP	1000	/* boots a side: more than this is "more than" */
#define AB_DF0_MAX	50	/* a prior's df0 at most (VERDICT_PRIOR_MAX_DF) */
#define AB_REASON_MAX	160	/* a reason's size, the NUL included */
#define AB_HOSTS_P	0.01	/* below it, a pooled row is tested by host */

enum ab_side {
	AB_A,
	AB_B,
};

enum ab_kind {
	AB_SAME,
	AB_WORSE,
	AB_BETTER,
	AB_NOISY,
	AB_CANNOT,
};

enum ab_gate {
	AB_GATE_CHANGE,		/* the estimated change reaches the threshold */
	AB_GATE_INTERVAL,	/* the interval's worse (better) end reaches it */
};

enum ab_order {
	AB_ORDER_ABBA,		/* blocks AB, BA, AB, BA, ... (the default) */
	AB_ORDER_ALTERNATE,	/* AB, AB, ... */
	AB_ORDER_RANDOM,	/* each block AB or BA by a seeded coin */
};

/* One boot of one side, with the trial values one row measured in it. */
struct ab_boot {
	enum ab_side	 side;
	unsigned	 boot;		/* its place in the host's sequence, from 0 */
	unsigned	 block;		/* its block: one A and one B boot a block */
	const double	*v;		/* the trial values, positive (not owned) */
	size_t		 n;
};

/* One host's boots of a row, in any order (not owned). */
struct ab_host {
	const struct ab_boot	*boots;
	size_t			 nboots;
};

struct ab_components {
	double	var_within;	/* of the logs, trial to trial within a boot;
				 * NAN when no boot has 2 trials */
	double	var_between;	/* of the logs, boot to boot (>= 0); NAN when
				 * no side has 2 boots */
	double	within;		/* the same as percent: 100 (exp(sd) - 1) */
	double	between;
	double	trials;		/* r0, the trials a boot the estimate weighs */
	int	clamped;	/* the between estimate was negative: set to 0 */
};

struct ab_judgement {
	size_t	pairs;		/* complete pairs used */
	size_t	left_out;	/* boots with no partner in their block, left out */
	size_t	hosts;		/* hosts whose pairs were pooled (1: one host) */
	double	p_hosts;	/* pooled: the F test that the hosts' pairs differ
				 * by host (NAN: one host, or too few pairs) */
	int	by_host;	/* p_hosts < AB_HOSTS_P: tested over the hosts'
				 * mean d's, not the pairs */
	size_t	units;		/* what the test is over: pairs, or hosts when
				 * by_host (mean_d, sd_d, the interval are theirs) */
	double	mean_d, sd_d;	/* of the pairs' log differences (sd NAN for 1) */
	double	df;		/* the test's degrees of freedom (units - 1,
				 * or d0 + units - 1 when moderated) */
	int	moderated;	/* the test used the moderated variance */
	double	prior_df;	/* moderated: the prior's df0 (else 0) */
	double	sd_mod;		/* the sd the test used: moderated, else sd_d */
	double	change;		/* percent, B against A (exp(mean d) - 1) */
	double	lo, hi;		/* its 95% interval, percent, lo <= hi (NAN: < 2 pairs) */
	double	worse;		/* the change towards worse: -change when higher
				 * is better; > 0 is worse */
	double	p_worse;	/* one-sided, B worse (NAN: not tested) */
	double	p_better;	/* one-sided, B better */
	double	q;		/* Benjamini-Hochberg q of p_worse over the rows
				 * of its family, counted or not (NAN when the
				 * row cannot be judged) */
	double	q_better;	/* the same for p_better */
	enum ab_kind kind;
	char	reason[AB_REASON_MAX];	/* one sentence, no full stop */
	struct ab_components comp;
	double	alpha;		/* the row level alpha of the planning fields */
	double	detectable;	/* percent, at AB_POWER (INFINITY: cannot be told) */
	size_t	needed;		/* boots a side to detect the threshold (pairs);
				 * 0: cannot be told; AB_PLAN_CAP + 1: more than
				 * AB_PLAN_CAP */
};

/* One row of a run: its hosts' boots (one host, or a class pooled). */
struct ab_row {
	const struct ab_host	*hosts;
	size_t			 nhosts;
	int			 higher;	/* higher is better for the metric */
	int			 counts;	/* a regression of it fails the run */
	struct ab_judgement	 j;		/* ab_judge_rows() fills it */
};

struct ab_opts {
	double		fdr;		/* Benjamini-Hochberg level, e.g. 0.05 */
	double		threshold;	/* percent, e.g. VERDICT_THRESHOLD */
	enum ab_gate	gate;
	int		moderate;	/* each row's variance moderated by the
					 * rows' prior (AB_MODERATE, below) */
};

/*
 * ab's rule (`fleetmark ab`, `qualify`, report of an ab directory): fdr
 * and threshold as given, the interval gate, the variances moderated.
 */
void	ab_opts_default(struct ab_opts *o, double fdr, double threshold);

/*
 * Judge every row of rows[0..n): each row's pairs, test and components,
 * then the Benjamini-Hochberg steps over the rows that count, the gate,
 * the words and reasons, the detectable change and the boots needed.
 * Returns the number of counted rows that are AB_WORSE: not 0 fails the
 * run.
 */
size_t	ab_judge_rows(struct ab_row *rows, size_t n, const struct ab_opts *o);

/*
 * The variance components of one row's hosts' boots into *out (NANs when
 * nothing can be estimated); ab_judge_rows() fills them too.  Boots with
 * a value that is not positive and finite are left out.
 */
void	ab_components(const struct ab_host *hosts, size_t nhosts,
	    struct ab_components *out);

/*
 * P(T' > c) for the noncentral t with df degrees of freedom and
 * noncentrality lambda (df > 0): the expectation over the chi-square of
 * 1 - Phi(c sqrt(V / df) - lambda), by Simpson's rule.  About 1e-7.
 */
double	ab_nct_sf(double c, double df, double lambda);

/*
 * The smallest change, percent (100 (exp(delta) - 1)), that n pairs with
 * log differences of sd sd_d detect with probability `power`, one-sided
 * at `alpha` (noncentral t, as above), on n - 1 degrees of freedom plus
 * df0, a moderated row's prior's (0: none; rounded down, at most
 * AB_DF0_MAX).  INFINITY for n < 2 or sd_d not finite; 0 when sd_d is 0.
 */
double	ab_detectable(double sd_d, size_t n, double df0, double alpha, double power);

/*
 * The smallest number of pairs (boots a side) from 2 on whose detectable
 * change (with df0, as above) is at most threshold percent; AB_PLAN_CAP + 1 when it is more
 * than AB_PLAN_CAP; 0 when sd_d is not finite or threshold not positive.
 */
size_t	ab_boots_needed(double sd_d, double df0, double threshold, double alpha,
	    double power);

/*
 * Kalibera & Jones's optimal trials a boot: Kalibera and Jones (2013),
 * "Rigorous benchmarking in reasonable time", ISMM 2013, the repetition
 * count of a level in a two-level experiment,
 *
 *	r = ceil(sqrt(cost_boot / cost_trial * var_within / var_between))
 *
 * with cost_boot what a boot costs beyond its trials and cost_trial what
 * a trial costs: what minimises the variance of the result for a given
 * time.  At least 1.  0 when there is no optimum: var_between 0 (boots do
 * not vary: as many trials a boot as there is time for) or an argument
 * not finite or negative (the costs must be positive).  The result is
 * capped at AB_PLAN_CAP.
 */
unsigned ab_kj_trials(double cost_boot, double cost_trial, double var_within,
	    double var_between);

/*
 * What a host's A/A run (`fleetmark qualify`, docs/qualify.md) says of one
 * row, from its variance components (ab_components()): a pair's sd from
 * the components, sd_d^2 = 2 (between + within / trials), the within term
 * left out when it is NAN (one trial a boot: the between estimate then
 * holds it); the change `boots` pairs detect (ab_detectable(), with df0,
 * the prior's of a row judged moderated, else 0); the pairs
 * that detect `threshold` at `trials` trials a boot; Kalibera & Jones's
 * trials a boot for the costs (ab_kj_trials()) and the pairs that detect
 * the threshold at that many trials a boot.  sd_d NAN, detectable
 * INFINITY and the counts 0 when the components cannot tell
 * (src/ab/aa.c).
 */
struct ab_qual {
	double		sd_d;
	double		detectable;	/* percent, by `boots` pairs */
	size_t		needed;		/* pairs (boots a side) at `trials` a boot */
	unsigned	kj;		/* trials a boot; 0: no optimum */
	size_t		needed_kj;	/* pairs at kj trials a boot; 0 when kj is */
};

void	ab_qualify_row(const struct ab_components *comp, double trials, size_t boots,
	    double alpha, double df0, double threshold, double cost_boot, double cost_trial,
	    struct ab_qual *out);

/*
 * The smallest change, percent, that a nightly verdict sees with
 * probability `power`: one night (a boot, its trials) against the mean of
 * `nights` nights before it, each night's mean of the logs with sd
 * night_sd, one-sided at `alpha` by the prediction interval's t on
 * nights - 1 df (noncentral t with lambda = delta / (night_sd sqrt(1 + 1
 * / nights))).  INFINITY for nights < 2 or night_sd not finite.
 */
double	ab_night_detectable(double night_sd, size_t nights, double alpha, double power);

/*
 * The fewest nights before tonight, from 2 to AB_NIGHTS_CAP, whose
 * ab_night_detectable() is at most threshold percent; 0 when none is
 * (tonight is one night: however many nights it is held against, its own
 * sd stays, and below about (z(1 - alpha) + z(power)) night_sd no window
 * sees) or it cannot be told.
 */
#define AB_NIGHTS_CAP	365
size_t	ab_nights_needed(double night_sd, double threshold, double alpha, double power);

/*
 * The sides of 2 * per_side boots in order into sides[0..2 per_side) and,
 * when block is not NULL, each boot's block into block[]: boots 2j and
 * 2j + 1 are block j.  AB_ORDER_RANDOM flips a coin per block from seed
 * (splitmix64: the same seed gives the same order on every machine); the
 * other orders ignore it.
 */
void	ab_order_sides(enum ab_order order, uint64_t seed, size_t per_side,
	    enum ab_side *sides, unsigned *block);

/* "abba", "alternate", "random" to an order; -1 for another name. */
int	ab_order_parse(const char *name, enum ab_order *out);
const char *ab_order_name(enum ab_order order);

/* "same", "worse", "better", "noisy", "cannot judge". */
const char *ab_kind_name(enum ab_kind k);

#endif /* FLEETMARK_AB_H */
