/*
 * judge.c: the statistics of `fleetmark ab` (include/ab.h): boots paired
 * by block, the paired t on the log scale with the boot as the unit, the
 * run's Benjamini-Hochberg steps and threshold gate, the variance
 * components, what the design can detect, Kalibera and Jones's trials a
 * boot, and the order of the boots.  No I/O: the sequencing of boots and
 * the output are elsewhere.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "fdr.h"
#include "numfmt.h"
#include "stats.h"
#include "verdict.h"
#include "xmalloc.h"

_Static_assert(AB_DF0_MAX == VERDICT_PRIOR_MAX_DF, "a prior's df0 is capped alike");

/* Simpson's intervals for the noncentral t: 1e-7 at c up to ~50. */
#define NCT_STEPS	800

static int
boot_usable(const struct ab_boot *b)
{
	size_t i;

	if (b->n == 0 || b->v == NULL)
		return 0;
	for (i = 0; i < b->n; i++) {
		if (!(isfinite(b->v[i]) && b->v[i] > 0))
			return -1;
	}
	return 1;
}

static double
boot_logmean(const struct ab_boot *b)
{
	double s = 0;
	size_t i;

	for (i = 0; i < b->n; i++)
		s += log(b->v[i]);
	return s / (double)b->n;
}

/*
 * The pairs of every host: an A boot and a B boot of one block (the
 * first of each, should a block hold more).  The d's go to *dp (malloc'd),
 * their count is returned; *left the usable boots without a partner.
 * Returns -1 when a value is not positive and finite.
 */
static long
collect_pairs(const struct ab_host *hosts, size_t nhosts, double **dp, size_t *left)
{
	const struct ab_boot *a, *b;
	unsigned char *used;
	double *d = NULL;
	size_t h, i, k, n = 0, cap = 0, usable = 0, maxb = 0;

	for (h = 0; h < nhosts; h++) {
		for (i = 0; i < hosts[h].nboots; i++) {
			if (boot_usable(&hosts[h].boots[i]) < 0)
				return -1;
		}
		if (hosts[h].nboots > maxb)
			maxb = hosts[h].nboots;
	}
	used = xcalloc(maxb + 1, 1);
	for (h = 0; h < nhosts; h++) {
		memset(used, 0, maxb + 1);
		for (i = 0; i < hosts[h].nboots; i++) {
			a = &hosts[h].boots[i];
			if (boot_usable(a) != 1)
				continue;
			usable++;
			if (a->side != AB_A)
				continue;
			for (k = 0; k < hosts[h].nboots; k++) {
				b = &hosts[h].boots[k];
				if (used[k] || b->side != AB_B || b->block != a->block ||
				    boot_usable(b) != 1)
					continue;
				used[k] = used[i] = 1;
				if (n == cap) {
					cap = cap ? 2 * cap : 16;
					d = xreallocarray(d, cap, sizeof(*d));
				}
				d[n++] = boot_logmean(b) - boot_logmean(a);
				break;
			}
		}
	}
	free(used);
	/* each pair took two usable boots */
	*left = usable - 2 * n;
	*dp = d;
	return (long)n;
}

void
ab_components(const struct ab_host *hosts, size_t nhosts, struct ab_components *out)
{
	double ssw = 0, ssb = 0, dfw = 0, dfb = 0, r0w = 0, y, m, sum, msw, msb;
	double *means = NULL;
	size_t h, i, k, s, nb, N, sr2, cap = 0;
	const struct ab_boot *b;

	out->var_within = out->var_between = NAN;
	out->within = out->between = out->trials = NAN;
	out->clamped = 0;
	for (h = 0; h < nhosts; h++) {
		if (hosts[h].nboots > cap)
			cap = hosts[h].nboots;
	}
	means = xcalloc(cap + 1, sizeof(*means));
	for (h = 0; h < nhosts; h++) {
		for (s = AB_A; s <= AB_B; s++) {
			/* one-way analysis of variance of this side's boots */
			nb = N = sr2 = 0;
			sum = 0;
			for (i = 0; i < hosts[h].nboots; i++) {
				b = &hosts[h].boots[i];
				if (b->side != (enum ab_side)s || boot_usable(b) != 1)
					continue;
				m = boot_logmean(b);
				for (k = 0; k < b->n; k++) {
					y = log(b->v[k]) - m;
					ssw += y * y;
				}
				dfw += (double)b->n - 1;
				means[nb++] = m;
				sum += m * (double)b->n;
				N += b->n;
				sr2 += b->n * b->n;
			}
			if (nb < 2)
				continue;
			sum /= (double)N;
			nb = 0;
			for (i = 0; i < hosts[h].nboots; i++) {
				b = &hosts[h].boots[i];
				if (b->side != (enum ab_side)s || boot_usable(b) != 1)
					continue;
				ssb += (double)b->n * (means[nb] - sum) * (means[nb] - sum);
				nb++;
			}
			dfb += (double)nb - 1;
			r0w += ((double)N - (double)sr2 / (double)N);
		}
	}
	free(means);
	if (dfw > 0) {
		out->var_within = ssw / dfw;
		out->within = 100 * (exp(sqrt(out->var_within)) - 1);
	}
	if (dfb > 0) {
		/* r0 pooled: each side's r0 weighed by its k - 1 */
		out->trials = r0w / dfb;
		msb = ssb / dfb;
		msw = dfw > 0 ? out->var_within : 0;
		out->var_between = (msb - msw) / out->trials;
		if (out->var_between < 0) {
			out->var_between = 0;
			out->clamped = 1;
		}
		out->between = 100 * (exp(sqrt(out->var_between)) - 1);
	}
}

double
ab_nct_sf(double c, double df, double lambda)
{
	double lo, hi, h, s, w, g, lnorm, sum = 0;
	int i;

	if (!(df >= 1) || isnan(c) || isnan(lambda))
		return NAN;
	/* s = sqrt(V / df), V chi-square on df: s has sd about 1 / sqrt(2 df) */
	w = 12 / sqrt(2 * df);
	lo = 1 - w > 0 ? 1 - w : 0;
	hi = 1 + w;
	h = (hi - lo) / NCT_STEPS;
	lnorm = log(2) + df / 2 * log(df / 2) - lgamma(df / 2);
	for (i = 0; i <= NCT_STEPS; i++) {
		s = lo + h * i;
		g = (s > 0 ? exp(lnorm + (df - 1) * log(s) - df * s * s / 2) :
		    (df == 1 ? exp(lnorm) : 0));
		g *= 0.5 * erfc((c * s - lambda) / M_SQRT2);
		sum += g * (i == 0 || i == NCT_STEPS ? 1 : (i % 2 ? 4 : 2));
	}
	return sum * h / 3;
}

/* The noncentrality at which the power reaches `power`: Illinois steps. */
static double
nct_lambda(double c, double df, double power)
{
	double a, b, fa, fb, x, fx;
	int i, side = 0;

	a = c;
	fa = ab_nct_sf(c, df, a) - power;
	if (fa >= 0)
		return a;
	b = c + stats_t_quantile(power, df);
	fb = ab_nct_sf(c, df, b) - power;
	for (i = 0; fb < 0 && i < 60; i++) {
		a = b;
		fa = fb;
		b = c + 2 * (b - c);
		fb = ab_nct_sf(c, df, b) - power;
	}
	for (i = 0; i < 100; i++) {
		x = (a * fb - b * fa) / (fb - fa);
		fx = ab_nct_sf(c, df, x) - power;
		if (fabs(fx) < 1e-10 || fabs(b - a) < 1e-10 * fabs(x))
			return x;
		if ((fx < 0) == (fa < 0)) {
			a = x;
			fa = fx;
			if (side == -1)
				fb /= 2;
			side = -1;
		} else {
			b = x;
			fb = fx;
			if (side == 1)
				fa /= 2;
			side = 1;
		}
	}
	return (a + b) / 2;
}

/*
 * The noncentrality of a test on df degrees of freedom at (alpha,
 * power), kept per thread for the last (alpha, power) asked: a run asks
 * for one alpha, for every row and for the boots-needed search, which
 * would otherwise solve the same equations again and again.
 */
static double
lambda_of(size_t df, double alpha, double power)
{
	static _Thread_local double c_alpha = -1, c_power = -1;
	static _Thread_local double c_lambda[AB_PLAN_CAP + AB_DF0_MAX + 1];

	if (alpha != c_alpha || power != c_power) {
		memset(c_lambda, 0, sizeof(c_lambda));
		c_alpha = alpha;
		c_power = power;
	}
	if (df >= sizeof(c_lambda) / sizeof(c_lambda[0]))
		return nct_lambda(stats_t_quantile(1 - alpha, (double)df), (double)df, power);
	if (c_lambda[df] == 0)
		c_lambda[df] = nct_lambda(stats_t_quantile(1 - alpha, (double)df), (double)df,
		    power);
	return c_lambda[df];
}

/* The degrees of freedom of n pairs with a prior's df0: whole, rounded down. */
static size_t
df_of(size_t n, double df0)
{
	if (!(df0 > 0))
		df0 = 0;
	if (df0 > AB_DF0_MAX)
		df0 = AB_DF0_MAX;
	return n - 1 + (size_t)floor(df0);
}

double
ab_detectable(double sd_d, size_t n, double df0, double alpha, double power)
{
	if (n < 2 || !isfinite(sd_d) || sd_d < 0 || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1))
		return INFINITY;
	if (sd_d == 0)
		return 0;
	return 100 * (exp(lambda_of(df_of(n, df0), alpha, power) * sd_d / sqrt((double)n)) -
	    1);
}

size_t
ab_boots_needed(double sd_d, double df0, double threshold, double alpha, double power)
{
	double delta;
	size_t lo, hi, mid;

	if (!isfinite(sd_d) || sd_d < 0 || !(threshold > 0) || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1))
		return 0;
	if (sd_d == 0)
		return AB_MIN_PAIRS;
	/*
	 * n pairs detect delta when lambda(n) sd / sqrt(n) <= delta: the
	 * power at delta grows with n, so the first such n, by halves
	 */
	delta = log(1 + threshold / 100);
	if (lambda_of(df_of(AB_PLAN_CAP, df0), alpha, power) * sd_d /
	    sqrt((double)AB_PLAN_CAP) > delta)
		return AB_PLAN_CAP + 1;
	lo = AB_MIN_PAIRS;
	hi = AB_PLAN_CAP;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (lambda_of(df_of(mid, df0), alpha, power) * sd_d / sqrt((double)mid) <= delta)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

unsigned
ab_kj_trials(double cost_boot, double cost_trial, double var_within, double var_between)
{
	double r;

	if (!(cost_boot > 0 && cost_trial > 0 && var_within >= 0 && var_between >= 0) ||
	    !isfinite(cost_boot) || !isfinite(cost_trial) || !isfinite(var_within) ||
	    !isfinite(var_between) || var_between == 0)
		return 0;
	r = ceil(sqrt(cost_boot / cost_trial * var_within / var_between));
	if (r < 1)
		r = 1;
	return r > AB_PLAN_CAP ? AB_PLAN_CAP : (unsigned)r;
}

/*
 * Whether a pooled row's hosts agree: a one-way analysis of variance of
 * the pairs' d by host, the p of its F (NAN with fewer than 2 hosts with
 * pairs, or no degree of freedom within hosts).  The mean d of each host
 * with pairs goes to means[0..*nmeans).
 */
static double
hosts_differ_p(const struct ab_host *hosts, size_t nhosts, double *means, size_t *nmeans)
{
	double *d, *mean = xcalloc(nhosts + 1, sizeof(*mean)), grand = 0, ssb = 0, ssw = 0;
	double f, dfb, dfw, p = NAN;
	size_t *cnt = xcalloc(nhosts + 1, sizeof(*cnt)), h, i, left, total = 0, used = 0;
	long n;

	for (h = 0; h < nhosts; h++) {
		/* (d is NULL with no pair, unset when a value is bad) */
		if ((n = collect_pairs(&hosts[h], 1, &d, &left)) <= 0)
			continue;
		cnt[h] = (size_t)n;
		mean[h] = stats_mean(d, cnt[h]);
		for (i = 0; i < cnt[h]; i++)
			ssw += (d[i] - mean[h]) * (d[i] - mean[h]);
		grand += mean[h] * (double)cnt[h];
		total += cnt[h];
		means[used++] = mean[h];
		free(d);
	}
	*nmeans = used;
	if (used >= 2 && total > used) {
		grand /= (double)total;
		for (h = 0; h < nhosts; h++)
			if (cnt[h] > 0)
				ssb += (double)cnt[h] * (mean[h] - grand) * (mean[h] - grand);
		dfb = (double)(used - 1);
		dfw = (double)(total - used);
		if (ssw > 0) {
			f = (ssb / dfb) / (ssw / dfw);
			p = stats_betai(dfw / 2, dfb / 2, dfw / (dfw + dfb * f));
		} else {
			p = ssb > 0 ? 0 : 1;
		}
	}
	free(mean);
	free(cnt);
	return p;
}

/*
 * The one-sided p's and the 95% interval of j's mean d with standard
 * error se on df degrees of freedom.
 */
static void
set_test(struct ab_judgement *j, int higher, double se, double df)
{
	double t = j->mean_d / se, a, b, hw;

	a = stats_t_sf(t, df);			/* P(T >= t): d > 0 */
	b = stats_t_sf(-t, df);
	hw = stats_t_quantile(0.975, df) * se;
	/* d > 0 is worse for lower-is-better metrics */
	j->p_worse = higher ? b : a;
	j->p_better = higher ? a : b;
	j->lo = 100 * (exp(j->mean_d - hw) - 1);
	j->hi = 100 * (exp(j->mean_d + hw) - 1);
	j->df = df;
}

/* One row's pairs, test, interval and components; the words come later. */
static void
judge_one(struct ab_row *row)
{
	struct ab_judgement *j = &row->j;
	struct stats_welch t;
	double *d = NULL, a, b;
	long n;

	memset(j, 0, sizeof(*j));
	j->hosts = row->nhosts;
	j->mean_d = j->sd_d = j->change = j->lo = j->hi = j->worse = j->df = j->sd_mod = NAN;
	j->p_worse = j->p_better = j->q = j->q_better = j->p_hosts = NAN;
	j->detectable = INFINITY;
	j->kind = AB_CANNOT;
	ab_components(row->hosts, row->nhosts, &j->comp);
	if ((n = collect_pairs(row->hosts, row->nhosts, &d, &j->left_out)) < 0) {
		snprintf(j->reason, sizeof(j->reason), "a value is not positive: no log scale");
		return;
	}
	j->pairs = j->units = (size_t)n;
	if (row->nhosts > 1) {
		double *means = xcalloc(row->nhosts, sizeof(*means));
		size_t nm = 0;

		j->p_hosts = hosts_differ_p(row->hosts, row->nhosts, means, &nm);
		if (j->p_hosts < AB_HOSTS_P) {
			/* the hosts differ: each host's mean d is one value */
			free(d);
			d = means;
			n = (long)nm;
			j->units = nm;
			j->by_host = 1;
		} else {
			free(means);
		}
	}
	if (n >= 1) {
		j->mean_d = stats_mean(d, j->units);
		j->change = 100 * (exp(j->mean_d) - 1);
		j->worse = row->higher ? -j->change : j->change;
	}
	if (n >= AB_MIN_PAIRS && stats_ttest1(d, j->units, 0, &t) == 0) {
		j->sd_d = j->sd_mod = stats_sd(d, j->units);
		if (j->sd_d == 0) {
			/* every pair the same: certain, one way or none */
			a = j->mean_d == 0 ? 1 : (j->mean_d > 0 ? 0 : 1);
			b = j->mean_d == 0 ? 1 : 1 - a;
			j->df = t.df;
			j->p_worse = row->higher ? b : a;
			j->p_better = row->higher ? a : b;
			j->lo = j->hi = 100 * (exp(j->mean_d) - 1);
		} else {
			set_test(j, row->higher, j->sd_d / sqrt((double)n), t.df);
		}
	}
	free(d);
}

/*
 * The rows' variances moderated (limma's empirical Bayes, as the nightly's
 * verdict.h): the prior (s0^2, d0) fitted to the variances of the pairs'
 * log differences of the rows tested over pairs, then each such row
 * tested again with (d0 s0^2 + d s^2) / (d0 + d) on d0 + d degrees of
 * freedom, unless its own variance is far above the prior's (F(d, d0)
 * below VERDICT_PRIOR_OUTLIER: then its own).  Too few rows: no prior,
 * every row its own.
 */
static void
moderate_rows(struct ab_row *rows, size_t n)
{
	double *s2 = xcalloc(n + 1, sizeof(*s2)), *df = xcalloc(n + 1, sizeof(*df));
	struct verdict_prior pr;
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		const struct ab_judgement *j = &rows[i].j;

		if (j->by_host || !isfinite(j->sd_d) || !(j->sd_d > 0) || !(j->df > 0))
			continue;
		s2[m] = j->sd_d * j->sd_d;
		df[m++] = j->df;
	}
	if (verdict_prior_fit(s2, df, m, &pr) == 0 && pr.df > 0 && isfinite(pr.s2) &&
	    pr.s2 > 0) {
		for (i = 0; i < n; i++) {
			struct ab_judgement *j = &rows[i].j;
			double v, d, dfp;

			if (j->by_host || !isfinite(j->sd_d) || !(j->sd_d > 0) || !(j->df > 0))
				continue;
			v = j->sd_d * j->sd_d;
			d = j->df;
			if (stats_betai(pr.df / 2, d / 2, pr.df / (pr.df + d * v / pr.s2)) <
			    VERDICT_PRIOR_OUTLIER)
				continue;	/* far noisier than the others: its own */
			dfp = pr.df + d;
			j->sd_mod = sqrt((pr.df * pr.s2 + d * v) / dfp);
			set_test(j, rows[i].higher, j->sd_mod / sqrt((double)j->units), dfp);
			j->moderated = 1;
			j->prior_df = pr.df;
		}
	}
	free(s2);
	free(df);
}

/* The planning fields: the sd of a pair's difference, measured or modelled. */
static void
plan_one(struct ab_judgement *j, double alpha, double threshold)
{
	double sd = j->sd_mod;		/* the sd its test used */

	j->alpha = alpha;
	j->detectable = ab_detectable(sd, j->units, j->prior_df, alpha, AB_POWER);
	if (!isfinite(sd) && isfinite(j->comp.var_between))
		sd = sqrt(2 * (j->comp.var_between + (isfinite(j->comp.var_within) ?
		    j->comp.var_within / j->comp.trials : 0)));
	/* hosts that differ: more boots do not make them agree */
	j->needed = j->by_host ? 0 : ab_boots_needed(sd, j->prior_df, threshold, alpha, AB_POWER);
}

static void
needed_words(const struct ab_judgement *j, char *buf, size_t size)
{
	if (j->needed == 0)
		buf[0] = '\0';
	else if (j->needed > AB_PLAN_CAP)
		snprintf(buf, size, "; more than %d boots a side would be needed", AB_PLAN_CAP);
	else if (j->needed > j->pairs)
		snprintf(buf, size, "; about %zu boots a side would tell", j->needed);
	else
		buf[0] = '\0';
}

/* The word and the sentence of one judged row. */
static void
words_one(struct ab_row *row, const struct ab_opts *o)
{
	struct ab_judgement *j = &row->j;
	char q[NUMFMT_MAX], iv[NUMFMT_INTERVAL_MAX], more[64], left[112];
	double wlo, whi, thr = o->threshold;
	int sig_w, sig_b, gate_w, gate_b;

	left[0] = '\0';
	if (j->by_host) {
		numfmt_p(q, sizeof(q), j->p_hosts);
		snprintf(left, sizeof(left), "; the hosts differ (F test p %s): judged over "
		    "their means", q);
	}
	if (j->left_out)
		snprintf(left + strlen(left), sizeof(left) - strlen(left),
		    "; %zu boot%s without a partner left out", j->left_out,
		    j->left_out == 1 ? "" : "s");
	needed_words(j, more, sizeof(more));
	if (j->pairs < AB_MIN_PAIRS || isnan(j->p_worse)) {
		j->kind = AB_CANNOT;
		if (j->reason[0] != '\0')
			return;
		if (j->pairs == 0)
			snprintf(j->reason, sizeof(j->reason), "no complete pair of boots, %d needed%s%s",
			    AB_MIN_PAIRS, more, left);
		else
			snprintf(j->reason, sizeof(j->reason), "%zu complete pair%s of boots, %d needed%s%s",
			    j->pairs, j->pairs == 1 ? "" : "s", AB_MIN_PAIRS, more, left);
		return;
	}
	/* the interval towards worse */
	wlo = row->higher ? -j->hi : j->lo;
	whi = row->higher ? -j->lo : j->hi;
	sig_w = j->q <= o->fdr;
	sig_b = j->q_better <= o->fdr;
	if (o->gate == AB_GATE_INTERVAL) {
		gate_w = whi >= thr;
		gate_b = wlo <= -thr;
	} else {
		gate_w = j->worse >= thr;
		gate_b = j->worse <= -thr;
	}
	numfmt_interval(iv, sizeof(iv), j->lo, j->hi);
	if (sig_w && gate_w) {
		j->kind = AB_WORSE;
		numfmt_p(q, sizeof(q), j->q);
		snprintf(j->reason, sizeof(j->reason), "worse by %.2f%% over %zu %s (%s), q %s%s",
		    j->worse, j->units, j->by_host ? "hosts" : "pairs", iv, q, left);
	} else if (sig_b && gate_b) {
		j->kind = AB_BETTER;
		numfmt_p(q, sizeof(q), j->q_better);
		snprintf(j->reason, sizeof(j->reason), "better by %.2f%% over %zu %s (%s), q %s%s",
		    -j->worse, j->units, j->by_host ? "hosts" : "pairs", iv, q, left);
	} else {
		j->kind = wlo > -thr && whi < thr ? AB_SAME : AB_NOISY;
		if (sig_w || sig_b) {
			numfmt_p(q, sizeof(q), sig_w ? j->q : j->q_better);
			snprintf(j->reason, sizeof(j->reason),
			    "%s by %.2f%% (%s), q %s, below the threshold %g%%%s%s",
			    sig_w ? "worse" : "better", fabs(j->worse), iv, q, thr,
			    j->kind == AB_NOISY ? more : "", left);
		} else if (j->kind == AB_SAME) {
			snprintf(j->reason, sizeof(j->reason),
			    "its 95%% interval %s stays within %g%%%s", iv, thr, left);
		} else {
			numfmt_p(q, sizeof(q), j->q);
			snprintf(j->reason, sizeof(j->reason),
			    "not significant (q %s), its 95%% interval %s reaches %g%%%s%s",
			    q, iv, thr, more, left);
		}
	}
}

void
ab_opts_default(struct ab_opts *o, double fdr, double threshold)
{
	memset(o, 0, sizeof(*o));
	o->fdr = fdr;
	o->threshold = threshold;
	o->gate = AB_GATE_INTERVAL;
	o->moderate = 1;
}

size_t
ab_judge_rows(struct ab_row *rows, size_t n, const struct ab_opts *o)
{
	double *pw, *pb, *qw, *qb, alpha[2];
	unsigned char *use;
	size_t i, m[2], bad = 0;
	int fam;

	pw = xcalloc(n + 1, sizeof(*pw));
	pb = xcalloc(n + 1, sizeof(*pb));
	qw = xcalloc(2 * (n + 1), sizeof(*qw));
	qb = xcalloc(2 * (n + 1), sizeof(*qb));
	use = xcalloc(2 * (n + 1), 1);
	for (i = 0; i < n; i++)
		judge_one(&rows[i]);
	if (o->moderate)
		moderate_rows(rows, n);
	for (i = 0; i < n; i++) {
		pw[i] = rows[i].j.p_worse;
		pb[i] = rows[i].j.p_better;
		/* family 0: the counted rows; 1: the others, reported apart */
		fam = rows[i].counts ? 0 : 1;
		use[fam * (n + 1) + i] = rows[i].j.pairs >= AB_MIN_PAIRS && !isnan(pw[i]);
	}
	/* per family, two steps: one per direction, over the same rows */
	for (fam = 0; fam < 2; fam++) {
		m[fam] = fdr_bh_rows(pw, use + fam * (n + 1), n, qw + fam * (n + 1));
		(void)fdr_bh_rows(pb, use + fam * (n + 1), n, qb + fam * (n + 1));
		alpha[fam] = o->fdr / (double)(m[fam] ? m[fam] : 1);
	}
	for (i = 0; i < n; i++) {
		fam = rows[i].counts ? 0 : 1;
		rows[i].j.q = qw[fam * (n + 1) + i];
		rows[i].j.q_better = qb[fam * (n + 1) + i];
		plan_one(&rows[i].j, alpha[fam], o->threshold);
		words_one(&rows[i], o);
		if (rows[i].j.kind == AB_WORSE && rows[i].counts)
			bad++;
	}
	free(pw);
	free(pb);
	free(qw);
	free(qb);
	free(use);
	return bad;
}

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
ab_order_sides(enum ab_order order, uint64_t seed, size_t per_side,
    enum ab_side *sides, unsigned *block)
{
	uint64_t st = seed;
	size_t j;
	int ba;

	for (j = 0; j < per_side; j++) {
		switch (order) {
		case AB_ORDER_ABBA:
			ba = j % 2 == 1;
			break;
		case AB_ORDER_RANDOM:
			ba = (int)(splitmix64(&st) >> 63);
			break;
		default:
			ba = 0;
			break;
		}
		sides[2 * j] = ba ? AB_B : AB_A;
		sides[2 * j + 1] = ba ? AB_A : AB_B;
		if (block != NULL)
			block[2 * j] = block[2 * j + 1] = (unsigned)j;
	}
}

static const char *const order_names[] = { "abba", "alternate", "random" };

int
ab_order_parse(const char *name, enum ab_order *out)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof(order_names) / sizeof(order_names[0]); i++) {
		if (strcmp(name, order_names[i]) == 0) {
			*out = (enum ab_order)i;
			return 0;
		}
	}
	return -1;
}

const char *
ab_order_name(enum ab_order order)
{
	return (unsigned)order < 3 ? order_names[order] : "?";
}

const char *
ab_kind_name(enum ab_kind k)
{
	switch (k) {
	case AB_SAME:
		return "same";
	case AB_WORSE:
		return "worse";
	case AB_BETTER:
		return "better";
	case AB_NOISY:
		return "noisy";
	default:
		return "cannot judge";
	}
}
