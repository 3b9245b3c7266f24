/*
 * verdict.c: the regression rule of the compare table, the matrix table,
 * the nightly run and bisect-run (verdict.h, docs/reports.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdr.h"
#include "robust.h"
#include "stats.h"
#include "verdict.h"
#include "xmalloc.h"

double
verdict_rsd(const double *v, size_t n)
{
	double m = stats_mean(v, n), sd = stats_sd(v, n);

	return m != 0 ? sd / fabs(m) * 100 : NAN;
}

int
verdict_noisy(double rsd, size_t n, double threshold)
{
	return n < VERDICT_MIN_TRIALS || isnan(rsd) || rsd > threshold;
}

int
verdict_significant(enum verdict_kind k)
{
	return k == VERDICT_BAD || k == VERDICT_BETTER;
}

/*
 * The t-test of v against g (Welch) or gv (one sample) into *t, with diff
 * as now - good either way; 0, or -1 when it cannot be made.
 */
static int
test(const double *v, size_t n, const double *g, size_t ng, double gv, struct stats_welch *t)
{
	if (g == NULL)
		return stats_ttest1(v, n, gv, t);
	if (stats_welch(g, ng, v, n, t) != 0)
		return -1;
	t->diff = -t->diff;
	t->t = -t->t;
	return 0;
}

/*
 * The kind of *out from its test and interval: significant when the
 * change is, and it counts unless the data show it to be smaller than
 * the threshold: the far end of its interval must reach it.  (The
 * measured change against the threshold would flag a true change of
 * exactly the threshold only half the time.)  ng: the good values' count
 * for the noise check, 0 for a single good value.
 */
static void
classify(struct verdict *out, int pct, size_t n, size_t ng, double threshold, int higher)
{
	double worst;
	int sig;

	sig = out->tested && out->p < VERDICT_ALPHA && (pct ?
	    fmax(fabs(out->lo), fabs(out->hi)) >= threshold : fabs(out->change) >= threshold);
	/* the worst the interval allows: how much worse the value may be */
	worst = higher ? -out->lo : out->hi;
	if (sig)
		out->kind = out->worse < 0 ? VERDICT_BETTER : VERDICT_BAD;
	else if (worst < threshold)
		out->kind = VERDICT_GOOD;
	else if (!out->tested || verdict_noisy(out->rsd, n, threshold) ||
	    (ng > 0 && verdict_noisy(out->good_rsd, ng, threshold)))
		out->kind = VERDICT_NOISY;
	else
		out->kind = VERDICT_NOT_SIGNIFICANT;
}

void
verdict_judge(const double *v, size_t n, const double *g, size_t ng, double gv, int higher,
    double threshold, struct verdict *out)
{
	struct stats_welch t;
	double lo, hi;
	int pct;

	memset(out, 0, sizeof(*out));
	out->now = stats_mean(v, n);
	out->good = g != NULL ? stats_mean(g, ng) : gv;
	if (out->good != 0)
		out->change = (out->now - out->good) / fabs(out->good) * 100;
	else
		out->change = out->now == out->good ? 0 : out->now > 0 ? INFINITY : -INFINITY;
	out->worse = higher ? -out->change : out->change;
	out->rsd = verdict_rsd(v, n);
	out->good_rsd = g != NULL ? verdict_rsd(g, ng) : 0;
	out->p = out->lo = out->hi = out->df = NAN;
	out->trend = out->trend_lo = out->trend_hi = out->trend_p = NAN;
	out->tested = test(v, n, g, ng, gv, &t) == 0;
	/* a percentage of the good mean needs one */
	pct = out->good != 0 && isfinite(out->good);
	if (out->tested) {
		out->p = t.p;
		stats_welch_ci(&t, 1 - VERDICT_ALPHA, &lo, &hi);
		if (pct) {
			out->lo = lo / fabs(out->good) * 100;
			out->hi = hi / fabs(out->good) * 100;
		}
	}

	classify(out, pct, n, g != NULL ? ng : 0, threshold, higher);
}

/*
 * digamma and trigamma for x > 0: the recurrence up to 6, then the
 * asymptotic series (Abramowitz & Stegun 6.3.18 and 6.4.12).
 */
static double
digamma(double x)
{
	double r = 0, f;

	for (; x < 6; x++)
		r -= 1 / x;
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 -
	    f * (1.0 / 240 - f / 132))));
}

static double
trigamma(double x)
{
	double r = 0, f;

	for (; x < 6; x++)
		r += 1 / (x * x);
	f = 1 / (x * x);
	return r + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 -
	    f / 30)));
}

/* The y with trigamma(y) = t (t > 0): bisection, trigamma falls from +inf to 0. */
static double
trigamma_inverse(double t)
{
	double lo = 1e-8, hi = 1e8, mid;
	int i;

	for (i = 0; i < 200; i++) {
		mid = sqrt(lo * hi);
		if (trigamma(mid) > t)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

int
verdict_log_spread(const double *x, size_t k, double *s2, double *df)
{
	double m = 0, ss = 0;
	size_t i;

	if (k < 2)
		return -1;
	for (i = 0; i < k; i++) {
		if (!isfinite(x[i]) || x[i] <= 0)
			return -1;
		m += log(x[i]);
	}
	m /= (double)k;
	for (i = 0; i < k; i++)
		ss += (log(x[i]) - m) * (log(x[i]) - m);
	*s2 = ss / (double)(k - 1);
	*df = (double)(k - 1);
	return 0;
}

int
verdict_prior_fit(const double *s2, const double *df, size_t n, struct verdict_prior *out)
{
	double *e = xreallocarray(NULL, n ? n : 1, sizeof(*e));
	double em = 0, ev = 0, tri = 0, d0;
	size_t i, g = 0;

	memset(out, 0, sizeof(*out));	/* no rule flags: the caller sets them */
	out->s2 = NAN;
	for (i = 0; i < n; i++) {
		if (!isfinite(s2[i]) || s2[i] <= 0 || !(df[i] > 0))
			continue;
		e[g] = log(s2[i]) - digamma(df[i] / 2) + log(df[i] / 2);
		em += e[g];
		tri += trigamma(df[i] / 2);
		g++;
	}
	if (g < VERDICT_PRIOR_MIN_SERIES || g < 2) {
		free(e);
		return -1;
	}
	em /= (double)g;
	tri /= (double)g;
	for (i = 0; i < g; i++)
		ev += (e[i] - em) * (e[i] - em);
	ev = ev / (double)(g - 1) - tri;
	free(e);
	d0 = ev > 0 ? 2 * trigamma_inverse(ev) : INFINITY;
	if (d0 > VERDICT_PRIOR_MAX_DF)
		d0 = VERDICT_PRIOR_MAX_DF;
	out->df = d0;
	out->s2 = exp(em + digamma(d0 / 2) - log(d0 / 2));
	return 0;
}

/* The step test's share of a row's alpha: what the trend and window rules leave. */
static double
step_weight(const struct verdict *d)
{
	return 1 - (d->trend_tested ? VERDICT_TREND_WEIGHT : 0) -
	    (d->window_tested ? VERDICT_WINDOW_WEIGHT : 0);
}

double
verdict_row_p(const struct verdict *d)
{
	double p;

	if (!d->tested)
		return NAN;
	p = d->p / step_weight(d);
	if (d->trend_tested)
		p = fmin(p, d->trend_p / VERDICT_TREND_WEIGHT);
	if (d->window_tested)
		p = fmin(p, d->window_p / VERDICT_WINDOW_WEIGHT);
	return fmin(1, p);
}

/* Two-sided p of t on df degrees of freedom; se 0: 1 for a zero diff, else 0. */
static double
two_sided(double diff, double se, double df)
{
	double p;

	if (!(se > 0))
		return diff == 0 ? 1 : 0;
	p = 2 * stats_t_sf(fabs(diff) / se, df);
	return p < 0 ? 0 : p;
}

/*
 * The p of diff / se on df degrees of freedom: two-sided for dir 0, else
 * one-sided towards the sign of dir (the alternative diff * dir > 0).
 */
static double
sided(double diff, double se, double df, int dir)
{
	if (dir == 0)
		return two_sided(diff, se, df);
	if (!(se > 0))
		return diff * dir > 0 ? 0 : 1;
	return stats_t_sf((double)dir * diff / se, df);
}

/*
 * Whether a variance s2 on d degrees of freedom pools with the prior:
 * the prior is there and s2 is not far above it (F(d, d0) at
 * VERDICT_PRIOR_OUTLIER).
 */
static int
pools(const struct verdict_prior *pr, double s2, double d)
{
	return pr != NULL && pr->df > 0 && isfinite(pr->s2) && pr->s2 > 0 &&
	    (s2 <= 0 || stats_betai(pr->df / 2, d / 2, pr->df / (pr->df + d * s2 / pr->s2)) >=
	    VERDICT_PRIOR_OUTLIER);
}

/*
 * The trend rule into *out: the least-squares line through the logs of
 * nights[0..k) and now (k + 1 values, a night apart).  Pooled with the
 * prior when the segment was (seg_pooled) or, with pr->per_test, when the
 * residuals' own variance pools.  dir: the worse direction of the logs
 * (+1, -1) for one-sided tests, 0 for two; *pb the p towards better
 * (NAN for two-sided).
 */
static void
trend(const double *nights, size_t k, double now, const struct verdict_prior *pr,
    int seg_pooled, int dir, struct verdict *out, double *pb)
{
	double tb = (double)k / 2, yb = 0, sxx = 0, sxy = 0, rss = 0, y, b, a, var, se, tq, df;
	size_t i;

	for (i = 0; i <= k; i++)
		yb += log(i < k ? nights[i] : now);
	yb /= (double)(k + 1);
	for (i = 0; i <= k; i++) {
		y = log(i < k ? nights[i] : now);
		sxx += ((double)i - tb) * ((double)i - tb);
		sxy += ((double)i - tb) * (y - yb);
	}
	b = sxy / sxx;
	a = yb - b * tb;
	for (i = 0; i <= k; i++) {
		y = log(i < k ? nights[i] : now) - (a + b * (double)i);
		rss += y * y;
	}
	df = (double)(k - 1);
	var = rss / df;
	if (pr->per_test ? pools(pr, var, df) : seg_pooled) {
		var = (pr->df * pr->s2 + df * var) / (pr->df + df);
		df += pr->df;
	}
	se = sqrt(var / sxx);
	tq = stats_t_quantile(1 - VERDICT_ALPHA / 2, df);
	out->trend_tested = 1;
	out->trend_p = sided(b, se, df, dir);
	*pb = dir != 0 ? sided(b, se, df, -dir) : NAN;
	out->trend = expm1(b * (double)k) * 100;
	out->trend_lo = expm1((b - tq * se) * (double)k) * 100;
	out->trend_hi = expm1((b + tq * se) * (double)k) * 100;
}

/*
 * The window rule into *out: the last j - 1 nights and tonight (j = 2 ..
 * VERDICT_WINDOW_MAX) against the k - j + 1 nights before them, on the
 * logs, the variance the baseline's own moderated by the prior when the
 * segment was pooled (seg_pooled) or, with pr->per_test, when that
 * window's baseline pools; the window with the smallest p, Bonferroni
 * over the windows tried.  dir and *pb as trend()'s (*pb the smallest p
 * towards better, Bonferroni too).
 */
static void
window(const double *nights, size_t k, double now, const struct verdict_prior *pr,
    int seg_pooled, int dir, struct verdict *out, double *pb)
{
	double lb, lr, s2, d, var, df, se, p, q, tq, best = INFINITY, bbest = INFINITY;
	size_t j, b, i, tried = 0;

	*pb = NAN;
	for (j = 2; j <= VERDICT_WINDOW_MAX && k + 1 >= j + VERDICT_MIN_NIGHTS; j++) {
		b = k + 1 - j;
		if (verdict_log_spread(nights, b, &s2, &d) != 0)
			continue;
		for (i = 0, lb = 0; i < b; i++)
			lb += log(nights[i]);
		lb /= (double)b;
		for (i = b, lr = log(now); i < k; i++)
			lr += log(nights[i]);
		lr /= (double)j;
		var = s2;
		df = d;
		if (pr->per_test ? pools(pr, s2, d) : seg_pooled) {
			var = (pr->df * pr->s2 + d * s2) / (pr->df + d);
			df += pr->df;
		}
		se = sqrt(var * (1 / (double)j + 1 / (double)b));
		p = sided(lr - lb, se, df, dir);
		tried++;
		if (dir != 0 && (q = sided(lr - lb, se, df, -dir)) < bbest)
			bbest = q;
		if (p < best) {
			best = p;
			tq = stats_t_quantile(1 - VERDICT_ALPHA / 2, df);
			out->window_n = j;
			out->window = expm1(lr - lb) * 100;
			out->window_lo = expm1(lr - lb - tq * se) * 100;
			out->window_hi = expm1(lr - lb + tq * se) * 100;
		}
	}
	if (tried == 0)
		return;
	out->window_tested = 1;
	out->window_p = fmin(1, best * (double)tried);
	if (dir != 0)
		*pb = fmin(1, bbest * (double)tried);
}

/* Whether a test of p at its share w, its far end (lo, hi) reaching threshold, is. */
static int
holds(double p, double w, double lo, double hi, double threshold)
{
	return p / w < VERDICT_ALPHA && fmax(fabs(lo), fabs(hi)) >= threshold;
}

void
verdict_nights(const double *v, size_t n, const double *nights, size_t k, int higher,
    double threshold, const struct verdict_prior *prior, struct verdict *out)
{
	double m, s, se, tq, diff, s2 = NAN, d = NAN, p, pb = NAN, tpb = NAN, wpb = NAN, w;
	int pct, logs, dir;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->now = stats_mean(v, n);
	out->good = m = stats_mean(nights, k);
	if (m != 0)
		out->change = (out->now - m) / fabs(m) * 100;
	else
		out->change = out->now == m ? 0 : out->now > 0 ? INFINITY : -INFINITY;
	out->worse = higher ? -out->change : out->change;
	out->rsd = verdict_rsd(v, n);
	out->good_rsd = verdict_rsd(nights, k);
	out->p = out->lo = out->hi = out->df = NAN;
	out->trend = out->trend_lo = out->trend_hi = out->trend_p = NAN;
	out->window = out->window_lo = out->window_hi = out->window_p = NAN;
	out->better_p = NAN;
	/* one night is enough where the prior says how nights vary */
	out->tested = n >= 1 && (k >= 2 || (k == 1 && prior != NULL && prior->df > 0));
	/* worse: a larger value (log or not) unless higher is better */
	dir = prior != NULL && prior->one_sided ? (higher ? -1 : 1) : 0;
	pct = m != 0 && isfinite(m);
	logs = 0;
	if (out->tested && prior != NULL && isfinite(out->now) && out->now > 0) {
		if (k >= 2) {
			logs = verdict_log_spread(nights, k, &s2, &d) == 0;
		} else if (isfinite(nights[0]) && nights[0] > 0) {
			s2 = 0;		/* no spread of its own: the prior's alone */
			d = 0;
			logs = 1;
		}
	}
	/* pooled unless its own variance is far above the prior's: F(d, d0) */
	out->pooled = logs && pools(prior, s2, d);
	if (k < 2 && !out->pooled)
		out->tested = 0;
	if (out->pooled) {
		double lm = 0;

		for (i = 0; i < k; i++)
			lm += log(nights[i]);
		lm /= (double)k;
		out->df = prior->df + d;
		se = sqrt((prior->df * prior->s2 + d * s2) / out->df * (1 + 1 / (double)k));
		diff = log(out->now) - lm;
		out->p = sided(diff, se, out->df, dir);
		if (dir != 0)
			pb = sided(diff, se, out->df, -dir);
		tq = stats_t_quantile(1 - VERDICT_ALPHA / 2, out->df);
		/* the ratio to the nights' geometric mean, as the test's */
		out->lo = (exp(diff - tq * se) - 1) * 100;
		out->hi = (exp(diff + tq * se) - 1) * 100;
	} else if (out->tested) {
		s = stats_sd(nights, k);
		se = s * sqrt(1 + 1 / (double)k);
		diff = out->now - m;
		out->df = (double)(k - 1);
		out->p = sided(diff, se, out->df, dir);
		if (dir != 0)
			pb = sided(diff, se, out->df, -dir);
		tq = stats_t_quantile(1 - VERDICT_ALPHA / 2, out->df);
		if (pct) {
			out->lo = (diff - tq * se) / fabs(m) * 100;
			out->hi = (diff + tq * se) / fabs(m) * 100;
		}
	}
	if (logs && prior->trend && k >= VERDICT_TREND_MIN_NIGHTS)
		trend(nights, k, out->now, prior, out->pooled, dir, out, &tpb);
	if (logs && prior->window)
		window(nights, k, out->now, prior, out->pooled, dir, out, &wpb);
	/*
	 * The step's share of the row's alpha; the nights' own n is not known
	 * here: they are noisy by their rsd alone.
	 */
	p = out->p;
	w = step_weight(out);
	out->p = fmin(1, p / w);
	/* fewer than 2 nights have no spread of their own to call noisy */
	classify(out, pct, n, k < 2 ? 0 : k >= VERDICT_MIN_TRIALS ? k : VERDICT_MIN_TRIALS,
	    threshold, higher);
	out->p = p;
	if (!verdict_significant(out->kind) && out->trend_tested &&
	    out->trend_p / VERDICT_TREND_WEIGHT < VERDICT_ALPHA && fabs(out->trend) >= threshold) {
		out->kind = (higher ? -out->trend : out->trend) < 0 ? VERDICT_BETTER : VERDICT_BAD;
		out->by_trend = 1;
	}
	/* the window's: significant as the step's, its far end reaching the threshold */
	if (!verdict_significant(out->kind) && out->window_tested &&
	    holds(out->window_p, VERDICT_WINDOW_WEIGHT, out->window_lo, out->window_hi,
	    threshold)) {
		out->kind = (higher ? -out->window : out->window) < 0 ? VERDICT_BETTER :
		    VERDICT_BAD;
		out->by_window = 1;
	}
	if (dir == 0 || !out->tested)
		return;
	/* one-sided: better is reported by the same rules towards better */
	out->better_p = fmin(1, pb / w);
	if (out->trend_tested)
		out->better_p = fmin(out->better_p, tpb / VERDICT_TREND_WEIGHT);
	if (out->window_tested)
		out->better_p = fmin(out->better_p, wpb / VERDICT_WINDOW_WEIGHT);
	if (verdict_significant(out->kind))
		return;
	if (pct && holds(pb, w, out->lo, out->hi, threshold)) {
		out->kind = VERDICT_BETTER;
	} else if (out->trend_tested && tpb / VERDICT_TREND_WEIGHT < VERDICT_ALPHA &&
	    fabs(out->trend) >= threshold) {
		out->kind = VERDICT_BETTER;
		out->by_trend = 1;
	} else if (out->window_tested && holds(wpb, VERDICT_WINDOW_WEIGHT, out->window_lo,
	    out->window_hi, threshold)) {
		out->kind = VERDICT_BETTER;
		out->by_window = 1;
	}
}

/*
 * A side's spread for verdict_needed(): its rsd, 0 for values that never
 * vary (whatever their mean), NAN when not known (fewer than 2 values),
 * INFINITY for values that vary about a mean of 0.
 */
static double
side_spread(double rsd, double sd, size_t n)
{
	if (n < 2 || isnan(sd))
		return NAN;
	if (sd == 0)
		return 0;
	return isnan(rsd) ? INFINITY : rsd;
}

int
verdict_needed(const struct verdict *d, size_t n, size_t ng, int nights, double sd,
    double good_sd, double threshold, size_t *trials, double *spread)
{
	double rs, gs, worst;
	size_t k;

	*trials = 0;
	*spread = NAN;
	if (nights) {
		/* the nights' own spread, which no number of trials a night shrinks */
		gs = ng >= 2 ? d->good_rsd : NAN;
		if (!(gs <= threshold)) {
			*spread = isnan(gs) ? INFINITY : gs;
			return 1;
		}
		*trials = VERDICT_MIN_TRIALS;
		return 0;
	}
	rs = side_spread(d->rsd, sd, n);
	gs = ng == 0 ? 0 : side_spread(d->good_rsd, good_sd, ng);
	worst = isnan(rs) ? gs : isnan(gs) ? rs : fmax(rs, gs);
	if (worst > threshold) {
		*spread = worst;
		return 1;
	}
	/* a side with fewer than 2 values takes the other's spread */
	if (n < 2)
		sd = NAN;
	if (ng == 0)
		good_sd = 0;	/* a single good value */
	else if (isnan(good_sd) || ng < 2)
		good_sd = sd;
	if (isnan(sd))
		sd = ng == 0 ? NAN : good_sd;
	if (isnan(sd)) {
		*trials = VERDICT_MIN_TRIALS;	/* no spread known: the rule's minimum */
		return 0;
	}
	if (robust_trials_needed(d->good, good_sd, sd, threshold, &k) != 0)
		return -1;
	*trials = k < VERDICT_MIN_TRIALS ? VERDICT_MIN_TRIALS : k;
	return 0;
}

int
verdict_judgeable(const struct verdict *d, size_t n, size_t ng, int nights, double sd,
    double good_sd, double threshold, size_t *needed, double *spread)
{
	size_t k;
	double s;

	if (needed != NULL)
		*needed = 0;
	if (spread != NULL)
		*spread = NAN;
	if (n >= VERDICT_MIN_TRIALS && (ng == 0 || ng >= VERDICT_MIN_TRIALS) &&
	    (nights || !verdict_noisy(d->rsd, n, threshold)) &&
	    (ng == 0 || !verdict_noisy(d->good_rsd, ng, threshold)))
		return 1;
	if (verdict_needed(d, n, ng, nights, sd, good_sd, threshold, &k, &s) < 0)
		return 0;
	if (needed != NULL)
		*needed = k;
	if (spread != NULL)
		*spread = s;
	return 0;
}

size_t
verdict_adjust(struct verdict_row *rows, size_t n, double fdr)
{
	double *p = xreallocarray(NULL, n ? n : 1, sizeof(*p));
	unsigned char *use = xcalloc(n + 1, 1);
	size_t i, held = 0;

	for (i = 0; i < n; i++) {
		p[i] = verdict_row_p(&rows[i].v);
		use[i] = rows[i].judgeable && rows[i].v.tested;
	}
	fdr_bh_rows(p, use, n, p);
	for (i = 0; i < n; i++) {
		rows[i].q = p[i];
		rows[i].held = rows[i].judgeable && verdict_significant(rows[i].v.kind) &&
		    (fdr <= 0 || fdr > 1 || p[i] <= fdr);
		held += rows[i].held;
	}
	free(use);
	free(p);
	return held;
}

const char *
verdict_name(enum verdict_kind k)
{
	switch (k) {
	case VERDICT_GOOD:
		return "good";
	case VERDICT_BAD:
		return "bad";
	case VERDICT_BETTER:
		return "better";
	case VERDICT_NOISY:
		return "noisy";
	case VERDICT_NOT_SIGNIFICANT:
		return "not significant";
	}
	return "?";
}

void
verdict_why(const struct verdict_row *vr, size_t n, int higher, double threshold,
    int flags, char *buf, size_t size)
{
	const struct verdict *d = &vr->v;
	int brief = (flags & VERDICT_WHY_SHORT) != 0;
	int few = vr->needed > 0 || n < VERDICT_MIN_TRIALS;

	if (!vr->judgeable && !isnan(vr->spread))
		snprintf(buf, size, brief ? "noisy, %.1f%% > %g%%" : "noisy: more trials will "
		    "not help, spread %.1f%% against threshold %g%%; alternating boots will "
		    "(fleetmark ab)", vr->spread, threshold);
	else if (!vr->judgeable && few && brief)
		snprintf(buf, size, "%zu trial%s, %zu needed", n, n == 1 ? "" : "s",
		    vr->needed ? vr->needed : (size_t)VERDICT_MIN_TRIALS);
	else if (!vr->judgeable && few)
		snprintf(buf, size, "about %zu trials a side would be needed",
		    vr->needed ? vr->needed : (size_t)VERDICT_MIN_TRIALS);
	else if (!vr->judgeable)
		snprintf(buf, size, "noisy");
	else if (d->kind == VERDICT_NOT_SIGNIFICANT)
		snprintf(buf, size, brief ? "may be %.1f%% worse" : "its 95%% interval reaches "
		    "worse by %.1f%%", higher ? -d->lo : d->hi);
	else if (verdict_significant(d->kind) && !vr->held)
		snprintf(buf, size, "q above the fdr");
	else if (d->kind == VERDICT_NOISY)
		snprintf(buf, size, "too noisy to tell");
	else
		snprintf(buf, size, "%s", "");
}
