/*
 * autorep.h: `repeat: auto` (docs/plans-and-fleets.md).  A plan that says
 * `repeat: auto` runs PLAN_AUTO_MIN_REPEAT interleaved rounds of its
 * points, as `repeat: 3` would; then, variant by variant, one more round
 * of the points whose trials cannot yet decide a change of the threshold's
 * size, until every point can or has `repeat_max` trials.
 *
 * A point can decide when, for every metric that counts (the plan's
 * regression.metrics of its benchmark, else every metric), the 95% Welch
 * interval of the difference between two sides of n trials with the
 * spread measured is narrower than the threshold (robust_decidable(), the
 * same spread assumed on the side it will be compared with): such an
 * interval cannot hold both no change and a change of the threshold, so
 * the compare table's verdict is then decided either way.  A point with
 * fewer than two values of a metric (its trials failed) gets no more
 * rounds, nor does a point with a metric that counts whose rsd is above
 * the threshold beyond chance (a one-sided chi-square test at 95%): the
 * compare table would call that side noisy however many trials it had
 * (verdict_needed(): more trials will not help).  A plan that fixes
 * `repeat` never gets here.
 *
 * The run engine keeps one struct autorep per host (not shared between
 * threads): autorep_add() after each ok trial, autorep_round() when a
 * variant's trials are done, autorep_reset() before the next variant.
 * Only the values measured by this process count: a resumed run adds
 * rounds from the trials it runs itself.
 */
#ifndef FLEETMARK_AUTOREP_H
#define FLEETMARK_AUTOREP_H

#include <stddef.h>

struct ap_result;
struct plan;
struct plan_point;
struct plan_schedule;

struct autorep;

/* For plan p (p->repeat_auto); NULL when p fixes repeat.  p outlives it. */
struct autorep	*autorep_new(const struct plan *p);
void		 autorep_free(struct autorep *a);	/* accepts NULL */

/* Forget the values: the next variant's trials start. */
void	autorep_reset(struct autorep *a);

/* The values of an ok trial of point pt (res: its result). */
void	autorep_add(struct autorep *a, const struct plan_point *pt,
	    const struct ap_result *res);

/* The same for one metric's value, without an agent's result (tests). */
void	autorep_add_value(struct autorep *a, const struct plan_point *pt,
	    const char *metric, double value);

/*
 * Whether point pt, which has `trials` trials in this variant's schedule,
 * gets another: fewer than repeat_max, at least two values of each metric
 * that counts, none of them with an rsd above the threshold beyond
 * chance, and one of them not decided yet.
 */
int	autorep_more(const struct autorep *a, const struct plan_point *pt, size_t trials);

/*
 * Add a round to schedule s: one trial of each point of variant v that
 * autorep_more() says needs another (in the plan's point order, the
 * repetition after the point's last, its key plan_trial_key()'s), placed
 * after the variant's trials; variant_start and ntrials follow.  *todo
 * (s->ntrials flags before, reallocated) gets the new trials flagged 1.
 * Returns the number added (0: the variant is done).
 */
size_t	autorep_round(struct autorep *a, struct plan_schedule *s, size_t v,
	    unsigned char **todo);

#endif /* FLEETMARK_AUTOREP_H */
