/*
 * changepoint.h: change points in a benchmark's history, a series of
 * per-night values (one per night, the mean of its trials): the nights
 * where the series moved to a new level and stayed, with the size of the
 * move and the confidence that it is not noise; and the current segment,
 * the nights since the last change, that a nightly verdict compares
 * tonight with.
 *
 * Method: E-divisive with means (Matteson & James 2014, "A Nonparametric
 * Approach for Multiple Change Point Analysis of Multivariate Data",
 * JASA 109(505)), with alpha = 1 for univariate data, as MongoDB uses it
 * (Daly et al. 2020, "The Use of Change Point Detection to Identify
 * Software Performance Regressions in a Continuous Integration System",
 * ICPE) and Apache Otava/Hunter after it (Fleming et al. 2023, "Hunter:
 * Using Change Point Detection to Hunt for Performance Regressions").
 *
 *  - A split of the nights x[a..b) at tau into X = x[a..tau) (n nights)
 *    and Y = x[tau..b) (m nights) scores the energy divergence
 *
 *	e = 2/(n m) sum_i sum_j |X_i - Y_j|
 *	    - 1/C(n,2) sum_{i<k} |X_i - X_k| - 1/C(m,2) sum_{j<k} |Y_j - Y_k|
 *
 *    (a within term is 0 for a single night) and q-hat = n m / (n + m) e.
 *    e estimates 2 E|X - Y| - E|X - X'| - E|Y - Y'|, which is 0 exactly
 *    when X and Y have one distribution; the weight n m / (n + m) makes
 *    splits of different sizes comparable.  The second sample runs to
 *    the end of its segment, as MongoDB's implementation and Hunter do
 *    (the paper also searches that end, kappa, and so does today's
 *    Apache Otava); further change points come from the bisection below.
 *  - Bisection: each segment (between change points already found, at
 *    first the whole series) proposes its best split, the tau with the
 *    largest q-hat among those leaving both sides at least min_size
 *    nights; the best proposal over all segments is tested, and kept if
 *    significant; then its two halves propose theirs, and so on until a
 *    test fails or no segment can be split.
 *  - Significance: a permutation test.  The nights of every segment are
 *    shuffled within the segment (which keeps the change points already
 *    found), the best split over all segments is scored again, R times;
 *    p = (1 + #{shuffles scoring >= the proposal}) / (R + 1), and the
 *    split is kept when p <= p_max.  Under no change, and nights that
 *    are exchangeable (independent and alike, whatever their
 *    distribution), this rejects with probability at most p_max;
 *    autocorrelated nights are not exchangeable, and a drift that
 *    wanders is taken for a change (AR(0.5) nights, no threshold: 43-45%
 *    of 60-night series get a false change point).  The
 *    shuffles come from a seeded generator (PCG32), so a history
 *    gives the same answer every time and on every machine.  Shuffles
 *    stop early once the count already rules significance out (the
 *    decision is the one all R would give).
 *  - Size: after the bisection, the change points the nights do not
 *    bear out as a change of the mean of at least `threshold` percent
 *    are removed (Otava's "min magnitude", and its t-test between
 *    adjacent segments).  The change is that of the means of its two
 *    adjacent segments, judged by the one verdict rule (verdict_judge(),
 *    verdict.h) with the segments' nights as the samples: it is borne
 *    out when it is significant -- Welch's p < 0.05 and the far end of
 *    its 95% interval reaching the threshold, under which a true change
 *    of exactly the threshold is kept, where comparing the measured
 *    change would drop half of them.  (A side of a single night has no
 *    test: its change is compared with the threshold as it is.)  This
 *    is also what keeps a disturbed night and its neighbour from passing
 *    as a two-night segment: their spread makes the interval wide and
 *    hold 0.  The weakest goes first, its segments merge and the
 *    neighbours are judged again, until every change left is borne out.
 *    p stays the p of the permutation test that found the change.
 *
 * The nights' own spreads (the sd of each night's trials) do not enter
 * the detection, which needs only the nights' values; they enter the
 * current segment's summary, for the nightly verdict to weigh.
 *
 * Complexity: all splits of a segment of w nights are scored in one
 * pass, O(w log w): moving a night from the second sample to the first
 * adds its distances to the nights before it (from Fenwick trees over
 * the nights' ranks) to the first's within sum and changes the cross sum
 * by its distances to the nights after it (its distances to all, which
 * depend on the values only, less those); the second's within sum is
 * what the total leaves.  One shuffle of a 365-night history costs
 * O(n log n), some 15 microseconds here, and a detection O(k R n log n)
 * for k change points (tests/bench/changepoint-speed.c).  Memory O(n).
 *
 * Not for: trends (a steady drift comes out as a staircase of changes,
 * each at least the threshold), changes shorter than min_size nights
 * (one disturbed night is not a change point), or NaN nights (refused:
 * leave a night without a value out of the series).
 */
#ifndef FLEETMARK_CHANGEPOINT_H
#define FLEETMARK_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#define CHANGEPOINT_MIN_SIZE		3
#define CHANGEPOINT_PERMUTATIONS	100
#define CHANGEPOINT_P_MAX		0.05
/* struct changepoint_segment.change when the segment starts at no change. */
#define CHANGEPOINT_NONE		SIZE_MAX

struct changepoint_opts {
	size_t	 min_size;	/* fewest nights in a segment, >= 1 (3) */
	unsigned permutations;	/* R, shuffles per test, >= 1 (100) */
	double	 p_max;		/* keep a split when p <= p_max (0.05) */
	double	 threshold;	/* smallest change kept, percent; 0: no floor (0) */
	uint64_t seed;		/* of the shuffles (0) */
};

/* The defaults above; the threshold is the plan's to set. */
void	changepoint_opts_init(struct changepoint_opts *o);

struct changepoint {
	size_t	index;		/* the first night of the new segment */
	double	before;		/* mean of the segment before: [previous change, index) */
	double	after;		/* mean of the segment after: [index, next change) */
	double	pct;		/* (after - before) / |before| * 100: + the value grew */
	double	lo, hi;		/* pct's 95% Welch interval, the nights as samples
				   (NAN when a side has a single night) */
	double	p;		/* the permutation p-value that found it */
	double	qhat;		/* its divergence when found (the values' unit) */
};

struct changepoint_result {
	struct changepoint *v;	/* by index, n of them */
	size_t	n;
	size_t	dropped;	/* significant, but not borne out (see Size above) */
	size_t	shuffles;	/* segment shuffles scored (for the speed figures) */
};

/*
 * The change points of x[0..n), one value a night, oldest first, into
 * *out (which the caller releases with changepoint_result_release(),
 * whatever the return).  A series too short to split (fewer than
 * 2 * min_size nights, 0, 1 and 2 included) has none.  Returns 0, or -1
 * with a malloc'd message in *err for a NaN or infinite value or options
 * out of range (out is then empty).
 */
int	changepoint_detect(const double *x, size_t n, const struct changepoint_opts *o,
	    struct changepoint_result *out, char **err);

void	changepoint_result_release(struct changepoint_result *r);

struct changepoint_segment {
	size_t	start;		/* its first night */
	size_t	n;		/* nights in it: [start, start + n) is the series' end */
	size_t	change;		/* index into cps->v of the change it starts at, or
				   CHANGEPOINT_NONE (the series' start, or cut at max) */
	double	mean;		/* of the nights' values (NAN when n is 0) */
	double	sd;		/* night to night: the sample sd of the values (NAN, n < 2) */
	double	within;		/* the nights' own spread, pooled: the root mean square
				   of spread[] over the segment (NAN when not given) */
};

/*
 * The current segment of the history x[0..n) whose change points are
 * cps (from changepoint_detect() on the same x): the nights since the
 * last change point, at most max_nights of them (0: no limit) -- the
 * baseline for tonight, which is not in x.  spread, when not NULL, holds
 * each night's own spread (the sd of its trials; NaN where unknown,
 * left out of `within`).  Always fills *out.
 */
void	changepoint_current(const double *x, const double *spread, size_t n,
	    const struct changepoint_result *cps, size_t max_nights,
	    struct changepoint_segment *out);

/*
 * q-hat of the split of x[0..n) at tau (0 < tau < n) by the definition
 * above, summing every pair: O(n^2).  The reference the fast path is
 * tested against.  NAN when tau is out of range.
 */
double	changepoint_qhat(const double *x, size_t n, size_t tau);

/*
 * q-hat of every split of x[0..n) into q[0..n): q[tau] for 0 < tau < n,
 * q[0] = NAN; O(n log n), the computation detection uses.
 */
void	changepoint_qhat_all(const double *x, size_t n, double *q);

#endif /* FLEETMARK_CHANGEPOINT_H */
