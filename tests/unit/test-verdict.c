/*
 * test-verdict: the one regression rule (verdict.h) on made-up trial
 * values: against good values (Welch) and against one good value
 * (one-sample t), both directions of metric, the interval against the
 * threshold (where the measured change alone would decide otherwise),
 * noise, too few values, and a good value of 0.  The compare and matrix
 * tables' use of it is held by their golden files (t500-report.sh,
 * test-report.c).
 *
 * Intervals are checked against t quantiles from tables: the two-sample
 * cases shift one sample, so the variances and sizes are equal and
 * Welch's df is exactly 2(n - 1) = 8 (t = 2.306004); the one-sample ones
 * have df = n - 1 = 4 (t = 2.776445).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "robust.h"
#include "verdict.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static const double base[] = { 10.0, 10.1, 9.9, 10.05, 9.95 };	/* mean 10, se of a shift 0.05 */

static void
test_two_samples(void)
{
	static const double same[] = { 10.02, 9.97, 10.08, 9.93, 10.0 };
	static const double slow[] = { 20.1, 19.8, 20.3, 19.9, 20.0 };	/* twice the time */
	static const double fast[] = { 5.0, 5.1, 4.9, 5.05, 4.95 };	/* half */
	static const double up4[] = { 10.4, 10.5, 10.3, 10.45, 10.35 };	/* base + 0.4 */
	static const double up2[] = { 10.2, 10.3, 10.1, 10.25, 10.15 };	/* base + 0.2 */
	static const double down4[] = { 9.6, 9.7, 9.5, 9.65, 9.55 };	/* base - 0.4 */
	struct verdict d;

	verdict_judge(same, N(same), base, N(base), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_GOOD, "the same speed: good");
	ok(d.tested && fabs(d.change) < 1 && d.p > 0.05 && d.rsd < 1,
	    "small change, no significance, steady");
	ok(d.lo < 0 && d.hi > 0 && d.hi < 5, "the interval holds 0 and stays below 5%");

	verdict_judge(slow, N(slow), base, N(base), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_BAD, "twice the time of a lower-is-better metric: bad");
	is_num(d.change, 100.0, 1, "change +100%");
	is_num(d.worse, 100.0, 1, "worse by 100%");
	ok(d.p < 1e-6 && d.lo > 90 && d.hi < 110, "significant, the interval around +100%");

	verdict_judge(fast, N(fast), base, N(base), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_BETTER, "half the time: better");
	ok(d.worse < 0 && d.hi < 0, "worse is negative when better, so is the interval");
	ok(verdict_significant(d.kind), "better is significant (the compare table marks it)");

	verdict_judge(fast, N(fast), base, N(base), 0, 1, 5, &d);
	is_int(d.kind, VERDICT_BAD, "half of a higher-is-better metric: bad");
	is_num(d.worse, 50.0, 1, "worse by 50%");
	verdict_judge(slow, N(slow), base, N(base), 0, 1, 5, &d);
	is_int(d.kind, VERDICT_BETTER, "twice a higher-is-better metric: better");

	/* the interval, not the measured change, against the threshold */
	verdict_judge(up4, N(up4), base, N(base), 0, 0, 5, &d);
	is_num(d.change, 4.0, 1e-9, "base + 0.4: change +4%");
	is_num(d.lo, 4.0 - 1.153002, 1e-4, "the interval's low end: 4 - 2.306004 * 0.05 / 10");
	is_num(d.hi, 4.0 + 1.153002, 1e-4, "and its high end");
	ok(d.p < 0.001, "p (t = 8, df = 8) below 0.001");
	is_int(d.kind, VERDICT_BAD,
	    "+4% against 5%, significant, the interval reaching 5.15%: bad (the change alone says good)");
	verdict_judge(up4, N(up4), base, N(base), 0, 0, 5.2, &d);
	is_int(d.kind, VERDICT_GOOD, "the same against 5.2%: the whole interval below it, good");
	verdict_judge(up4, N(up4), base, N(base), 0, 1, 5, &d);
	is_int(d.kind, VERDICT_BETTER, "+4% of a higher-is-better metric: better");
	verdict_judge(down4, N(down4), base, N(base), 0, 1, 5, &d);
	is_int(d.kind, VERDICT_BAD, "-4% of a higher-is-better metric: bad");
	is_num(d.worse, 4.0, 1e-9, "worse by 4%");

	verdict_judge(up2, N(up2), base, N(base), 0, 0, 5, &d);
	ok(d.p < 0.05 && d.hi < 5, "+2%: significant (t = 4), the interval ends at 3.15%");
	is_int(d.kind, VERDICT_GOOD, "significant but shown smaller than the threshold: good");
	ok(!verdict_significant(d.kind), "not marked");
	verdict_judge(up2, N(up2), base, N(base), 0, 0, 3, &d);
	is_int(d.kind, VERDICT_BAD, "the same against 3%: the interval reaches it, bad");
}

static void
test_noise(void)
{
	static const double same[] = { 10.02, 9.97, 10.08, 9.93, 10.0 };
	static const double noisy[] = { 6.0, 14.0, 9.0, 12.5, 8.0 };	/* rsd ~ 32% */
	static const double vague_b[] = { 10.0, 12.0, 8.0 };		/* rsd 20% */
	static const double vague_n[] = { 12.0, 14.5, 9.5 };		/* +20%, p ~ 0.3 */
	static const double flat[] = { 8.0, 8.0, 8.0 };
	static const double flat2[] = { 8.25, 8.25, 8.25 };		/* +3.125%, no variance */
	struct verdict d;

	verdict_judge(noisy, N(noisy), base, N(base), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_NOISY, "noisy values with a small mean change: noisy, not good");
	ok(d.rsd > 5 && d.worse < 5 && d.hi >= 5, "rsd above the threshold, the interval reaches it");
	verdict_judge(same, N(same), noisy, N(noisy), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_NOISY, "a noisy baseline: noisy");
	ok(d.good_rsd > 5 && d.rsd < 5, "the baseline's rsd is above the threshold");

	verdict_judge(vague_n, N(vague_n), vague_b, N(vague_b), 0, 0, 10, &d);
	is_int(d.kind, VERDICT_NOISY, "worse by more than the threshold, p >= 0.05: noisy, not bad");
	ok(d.worse >= 10 && d.p >= 0.05, "worse by 20%, p above 0.05");
	verdict_judge(vague_n, N(vague_n), vague_b, N(vague_b), 0, 0, 30, &d);
	is_int(d.kind, VERDICT_NOT_SIGNIFICANT,
	    "the same against 30%: steady (rsd 20% <= 30%), but the interval reaches 30%: not significant");
	ok(d.lo < 0 && d.hi >= 30 && d.worse < 30, "the interval holds 0 and +30%, the change is below");
	verdict_judge(vague_n, N(vague_n), vague_b, N(vague_b), 0, 1, 40, &d);
	ok(d.lo > -40 && d.lo < -20 && d.hi > 40, "the interval, about -32% to +72%");
	is_int(d.kind, VERDICT_GOOD,
	    "higher-is-better against 40%: the interval's worse end (its low end) is below, good");
	verdict_judge(vague_n, N(vague_n), vague_b, N(vague_b), 0, 0, 40, &d);
	is_int(d.kind, VERDICT_NOT_SIGNIFICANT,
	    "lower-is-better against 40%: the worse end is the high one, not significant");

	verdict_judge(flat, N(flat), flat, N(flat), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_GOOD, "no variance, the same values: good");
	ok(d.p == 1 && d.lo == 0 && d.hi == 0, "p 1, the interval [0, 0]");
	verdict_judge(flat2, N(flat2), flat, N(flat), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_GOOD, "no variance, +3.125% against 5%: good");
	ok(d.p == 0 && d.lo == 3.125 && d.hi == 3.125, "p 0, the interval [3.125, 3.125]");
	verdict_judge(flat2, N(flat2), flat, N(flat), 0, 0, 3.125, &d);
	is_int(d.kind, VERDICT_BAD, "the same against 3.125%: the interval reaches it, bad");

	verdict_judge(same, N(same), base, 1, 0, 0, 5, &d);
	is_int(d.kind, VERDICT_NOISY, "one good value as a sample: no test, noisy");
	ok(!d.tested && isnan(d.p) && isnan(d.lo), "not tested, no p, no interval");

	ok(!verdict_noisy(5.0, 3, 5.0), "rsd at the threshold, 3 values: not noisy");
	ok(verdict_noisy(5.01, 3, 5.0), "rsd above the threshold: noisy");
	ok(verdict_noisy(1.0, 2, 5.0), "two values: noisy");
	ok(verdict_noisy(NAN, 10, 5.0), "no rsd: noisy");
	is_num(verdict_rsd(vague_b, N(vague_b)), 20.0, 1e-9, "rsd of 10, 12, 8: 20%");
	ok(isnan(verdict_rsd(vague_b, 1)), "no rsd of one value");
	ok(isnan(verdict_rsd((const double[]){ -1.0, 1.0 }, 2)), "no rsd of a zero mean");
}

static void
test_one_value(void)
{
	static const double same[] = { 10.02, 9.97, 10.08, 9.93, 10.0 };
	static const double slow[] = { 20.1, 19.8, 20.3, 19.9, 20.0 };
	static const double noisy[] = { 6.0, 14.0, 9.0, 12.5, 8.0 };
	static const double skew[] = { 10.0, 10.0, 10.1, 10.4, 10.5 };	/* mean 10.2, median 10.1 */
	struct verdict d;

	verdict_judge(same, N(same), NULL, 0, 10.0, 0, 5, &d);
	is_int(d.kind, VERDICT_GOOD, "--good 10 and values around 10: good");
	is_num(d.hi, 0.6968822, 1e-5, "the one-sample interval: 2.776445 * sd / sqrt(5), in %");
	is_num(d.lo, -d.hi, 1e-9, "around a change of 0");
	is_num(d.good_rsd, 0, 0, "a single good value has no rsd");

	verdict_judge(skew, N(skew), NULL, 0, 10.0, 0, 5, &d);
	is_num(d.now, 10.2, 1e-9, "the mean is the statistic, not the median");
	is_num(d.change, 2.0, 1e-9, "change +2%");
	is_num(d.hi, 2.0 + 2.911960, 1e-4, "the interval's high end 4.91%");
	is_int(d.kind, VERDICT_GOOD, "p ~ 0.13, the interval below 5%: good");
	verdict_judge(skew, N(skew), NULL, 0, 10.0, 0, 4.9, &d);
	is_int(d.kind, VERDICT_NOT_SIGNIFICANT, "against 4.9%: the interval reaches it, not significant");

	verdict_judge(slow, N(slow), NULL, 0, 10.0, 0, 5, &d);
	is_int(d.kind, VERDICT_BAD, "--good 10 and values around 20: bad");
	ok(d.p < 1e-6, "one-sample t-test significant");
	verdict_judge(slow, N(slow), NULL, 0, 10.0, 1, 5, &d);
	is_int(d.kind, VERDICT_BETTER, "the same of a higher-is-better metric: better");
	verdict_judge(noisy, N(noisy), NULL, 0, 10.0, 0, 5, &d);
	is_int(d.kind, VERDICT_NOISY, "--good 10 and noisy values: noisy");
	verdict_judge(slow, 1, NULL, 0, 10.0, 0, 5, &d);
	is_int(d.kind, VERDICT_NOISY, "one value cannot be tested: noisy, never bad");
	ok(!d.tested && isnan(d.p), "no p");
	verdict_judge(same, N(same), NULL, 0, 0.0, 0, 5, &d);
	is_int(d.kind, VERDICT_BAD, "a good value of 0 and values around 10: bad");
	ok(isinf(d.change) && d.change > 0, "an infinite change, not a division by zero");
	ok(isnan(d.lo) && isnan(d.hi), "and no interval in percent of 0");
}

/*
 * The nightly rule: tonight's mean against the nights' means with the t
 * prediction interval over nights.  Nights 10, 10.2, 9.8, 10.1, 9.9: mean
 * 10, sd sqrt(0.025), se of a prediction sqrt(0.025 * 1.2) = 0.173205;
 * t(0.975; 4) = 2.776445, so the interval is the change +- 4.80894%.
 * The p's come from integrating the t density (df 4) numerically.
 */
static void
test_nights(void)
{
	static const double nights[] = { 10.0, 10.2, 9.8, 10.1, 9.9 };
	static const double up10[] = { 11.0, 10.99, 11.01, 11.0, 11.0 };
	static const double up3[] = { 10.3, 10.29, 10.31, 10.3, 10.3 };
	static const double wide[] = { 10.0, 11.0, 9.0, 10.5, 9.5 };	/* sd 0.79 */
	static const double tight[] = { 10.6, 10.61, 10.59 };
	static const double last[] = { 9.5, 9.51, 9.49 };
	struct verdict d;
	size_t need;
	double spread;

	verdict_nights(up10, N(up10), nights, N(nights), 0, 5, NULL, &d);
	ok(d.tested, "five nights: tested");
	is_num(d.change, 10.0, 1e-9, "+10% of the nights' mean");
	is_num(d.p, 0.0044686, 1e-6, "p of t = 5.7735 on 4 df");
	is_num(d.lo, 10.0 - 4.80894, 1e-4, "the prediction interval's low end");
	is_num(d.hi, 10.0 + 4.80894, 1e-4, "and its high end");
	is_num(d.good_rsd, sqrt(0.025) / 10 * 100, 1e-9, "good_rsd: night to night");
	is_int(d.kind, VERDICT_BAD, "+10% against nights 1.6% apart: bad");

	verdict_nights(up3, N(up3), nights, N(nights), 0, 5, NULL, &d);
	is_num(d.p, 0.1583024, 1e-6, "+3%: p of t = 1.7321 on 4 df");
	is_int(d.kind, VERDICT_NOT_SIGNIFICANT, "+3%: not significant, the interval reaching 7.8%");
	verdict_nights(up3, N(up3), nights, N(nights), 1, 5, NULL, &d);
	ok(d.worse < 0, "+3% of a higher-is-better metric is towards better");

	/* steady trials tonight, but the nights vary by 8%: the trials alone would fail it */
	verdict_nights(tight, N(tight), wide, N(wide), 0, 5, NULL, &d);
	ok(d.p > 0.05, "+6% within how the nights vary: not significant");
	ok(!verdict_significant(d.kind), "and not marked");
	verdict_judge(tight, N(tight), last, N(last), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_BAD, "the same trials against one night's: bad (what the nights avoid)");

	verdict_nights(up10, N(up10), nights, 1, 0, 5, NULL, &d);
	ok(!d.tested && isnan(d.p), "one night: not tested");
	is_int(d.kind, VERDICT_NOISY, "and not judged");
	verdict_nights(up10, N(up10), wide, N(wide), 0, 5, NULL, &d);
	ok(d.good_rsd > 5, "nights 7.9% apart");
	ok(!verdict_judgeable(&d, N(up10), N(wide), 1, 0.01, 0.1, 5, &need, &spread),
	    "nights 7.9% apart against 5%: cannot judge");
	ok(need == 0 && spread == d.good_rsd, "and no trials a night would help: the "
	    "nights' own spread");
	verdict_nights(wide, N(wide), nights, N(nights), 0, 5, NULL, &d);
	ok(verdict_judgeable(&d, N(wide), N(nights), 1, 0.79, 0.1, 5, NULL, NULL),
	    "tonight's trials 7.9% apart against steady nights: judgeable (the nights hold it)");
	ok(!verdict_judgeable(&d, N(wide), N(nights), 0, 0.79, 0.1, 5, NULL, NULL),
	    "but not as two samples of trials");
}


/*
 * The moderated variance (Smyth 2004), hand-computed with mpmath: eight
 * series on 4 df with the log variances 1e-4 x { 1, 0.2, 4, 1.5, 0.3,
 * 2.5, 0.6, 6 }: e_g = log s2 - digamma(2) + log(2), their variance less
 * trigamma(2) is 0.821386, trigamma(d0 / 2) = that gives d0 = 3.309880
 * and s0^2 = exp(mean e + digamma(d0 / 2) - log(d0 / 2)) = 1.089504e-4.
 * Nights 100, 101, 99, 100.5, 99.5 (log variance 6.250409e-5, F 0.57:
 * pooled) and tonight 105: t on d0 + 4 = 7.309880 df, p 0.001593772,
 * the interval +2.564051% to +7.493804%; the trend of the six logs has
 * its fitted change +3.105827% with p 0.158557 (moderated too), so the
 * row's p is min(p / 0.8, 0.158557 / 0.2) = 0.001992215.
 */
static void
test_prior(void)
{
	static const double s2[] = { 1e-4, 0.2e-4, 4e-4, 1.5e-4, 0.3e-4, 2.5e-4, 0.6e-4, 6e-4 };
	static const double df[] = { 4, 4, 4, 4, 4, 4, 4, 4 };
	static const double nights[] = { 100, 101, 99, 100.5, 99.5 };
	static const double now[] = { 105, 105, 105 };
	static const double same[] = { 1e-4, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4 };
	struct verdict_prior pr;
	struct verdict d;
	double v, k;

	ok(verdict_log_spread(nights, N(nights), &v, &k) == 0, "log spread of five nights");
	is_num(v, 6.250408886e-5, 1e-13, "the variance of their logs");
	is_num(k, 4, 0, "on 4 df");
	ok(verdict_log_spread((const double[]){ 1, 0, 2 }, 3, &v, &k) == -1,
	    "a zero night has no log spread");

	ok(verdict_prior_fit(s2, df, N(s2), &pr) == 0, "eight series fit a prior");
	is_num(pr.df, 3.309880162, 1e-6, "d0 from the spread of the log variances");
	is_num(pr.s2, 1.089503846e-4, 1e-11, "s0^2");
	ok(verdict_prior_fit(s2, df, 7, &pr) == -1 && pr.df == 0, "seven series: no prior");
	ok(verdict_prior_fit(same, df, N(same), &pr) == 0 && pr.df == VERDICT_PRIOR_MAX_DF,
	    "variances no more spread than sampling makes them: d0 at its cap");
	ok(fabs(pr.s2 - 1e-4) < 1e-4, "and s0^2 near the common variance");

	verdict_prior_fit(s2, df, N(s2), &pr);
	pr.trend = 1;
	pr.window = 0;
	verdict_nights(now, N(now), nights, N(nights), 0, 5, &pr, &d);
	ok(d.pooled, "a quiet series is pooled");
	is_num(d.df, 3.309880162 + 4, 1e-6, "on d0 + k - 1 df");
	is_num(d.p, 0.001593772, 1e-8, "p of the moderated t");
	/* tonight's ratio to the nights' geometric mean, exp(diff -+ t se) - 1
	 * (mpmath at 30 digits), as the test's: not to their arithmetic mean */
	is_num(d.lo, 2.566614921, 1e-6, "the interval's low end");
	is_num(d.hi, 7.496491872, 1e-6, "and its high end");
	ok(d.trend_tested, "five nights: the trend rule too");
	is_num(d.trend, 3.105827449, 1e-6, "the trend's fitted change");
	is_num(d.trend_p, 0.158556521, 1e-6, "the slope's p, moderated");
	is_num(verdict_row_p(&d), 0.001992215, 1e-8, "the row's p: the weighted Bonferroni");
	is_int(d.kind, VERDICT_BAD, "+5% against nights 0.8% apart, pooled: bad");
	ok(!d.by_trend, "by the step rule");
	verdict_nights(now, N(now), nights, N(nights), 0, 5, NULL, &d);
	ok(!d.pooled && !d.trend_tested && d.df == 4 && d.p > 0.004, "without a prior: its own 4 df, p 0.0045");
	is_num(verdict_row_p(&d), d.p, 0, "and the row's p is the step's");
}

/*
 * The trend rule on a series with a known slope: the logs of the nights
 * rise by 0.02 a night (log 100 + 0.02 i plus residuals 0.002, -0.002,
 * 0.001, -0.001, 0, 0 on nights 0 to 5, tonight exactly on the line):
 * least squares gives b = 0.0198928571 (mpmath), the fitted change over
 * six nights exp(6 b) - 1 = +12.67723%, p 7.642115e-9 on 5 df.  Against
 * the nights' mean tonight is only +7.2% with p 0.1331 (the segment
 * holds the drift): the trend makes it bad.
 */
static void
test_trend(void)
{
	static const double r[] = { 0.002, -0.002, 0.001, -0.001, 0, 0 };
	struct verdict_prior pr = { .df = 0, .s2 = NAN, .trend = 1 };
	double nights[6], now[3];
	struct verdict d;
	size_t i;

	for (i = 0; i < 6; i++)
		nights[i] = 100 * exp(0.02 * (double)i + r[i]);
	now[0] = now[1] = now[2] = 100 * exp(0.02 * 6);
	verdict_nights(now, 3, nights, 6, 0, 5, &pr, &d);
	ok(!d.pooled, "no prior: not pooled");
	is_num(d.p, 0.133093791, 1e-7, "the step: p 0.133 on 5 df");
	ok(d.trend_tested, "six nights: trend tested");
	is_num(d.trend, 12.67722651, 1e-6, "the fitted change over the segment and tonight");
	is_num(d.trend_p, 7.642114619e-9, 1e-12, "the slope's p on 5 df");
	ok(d.trend_lo > 5 && d.trend_hi > d.trend, "its interval above the threshold");
	is_int(d.kind, VERDICT_BAD, "a drift of 2% a night: bad");
	ok(d.by_trend, "by the trend rule");
	verdict_nights(now, 3, nights, 6, 1, 5, &pr, &d);
	is_int(d.kind, VERDICT_BETTER, "the same rise of a higher-is-better metric: better");
	verdict_nights(now, 3, nights, 6, 0, 15, &pr, &d);
	ok(!verdict_significant(d.kind), "at 15% the trend's +12.7% does not count");
	verdict_nights(now, 3, nights, 4, 0, 5, &pr, &d);
	ok(!d.trend_tested, "four nights: no trend rule");
}

/*
 * The nightly's flags.  One-sided: tonight at +10% against the nights
 * 100, 101, 99, 100.5, 99.5 (test_prior's series, two-sided p 0.001594
 * pooled): towards worse p is half of it, towards better its complement;
 * a higher-is-better metric is better, never bad, with better_p the
 * small one.  Per test: a step on the last night (108 after four nights
 * near 100) makes the segment's variance far above the prior's 1% (not
 * pooled); the window of the last night and tonight against the four
 * before pools with the prior on its own baseline (its p near 3e-9 on
 * 23 df, against 1e-3 on its own 3 df).
 */
static void
test_one_sided_per_test(void)
{
	static const double nights[] = { 100, 101, 99, 100.5, 99.5 };
	static const double now[] = { 105, 105, 105 };
	static const double stepped[] = { 100, 101, 99, 100.5, 108 };
	static const double s2[] = { 1e-4, 2e-4, 0.5e-4, 1.5e-4, 0.8e-4, 1.2e-4, 1e-4, 0.9e-4 };
	static const double df[] = { 4, 4, 4, 4, 4, 4, 4, 4 };
	struct verdict_prior pr;
	struct verdict two, d;

	verdict_prior_fit(s2, df, N(s2), &pr);
	ok(pr.df > 0 && !pr.one_sided && !pr.per_test && !pr.trend, "a fit sets no rule flag");
	pr.trend = 1;
	verdict_nights(now, N(now), nights, N(nights), 0, 5, &pr, &two);
	pr.one_sided = 1;
	verdict_nights(now, N(now), nights, N(nights), 0, 5, &pr, &d);
	is_num(d.p, two.p / 2, 1e-15, "one-sided towards worse: half the two-sided p");
	is_num(d.trend_p, two.trend_p / 2, 1e-15, "the trend's too");
	ok(d.better_p > 0.9, "towards better: nothing");
	is_int(d.kind, VERDICT_BAD, "+5% on a lower-is-better metric: bad");
	verdict_nights(now, N(now), nights, N(nights), 1, 5, &pr, &d);
	is_num(d.p, 1 - two.p / 2, 1e-12, "higher is better: towards worse, the complement");
	ok(d.better_p < 0.05, "towards better, significant");
	is_int(d.kind, VERDICT_BETTER, "better: reported");
	ok(verdict_row_p(&d) > 0.5, "and its row's p (the BH step's) is that towards worse");

	pr = (struct verdict_prior){ .df = 20, .s2 = 1e-4, .window = 1, .one_sided = 1 };
	verdict_nights(now, N(now), stepped, N(stepped), 0, 5, &pr, &two);
	ok(!two.pooled && two.window_tested, "a step on the last night: the segment is not pooled");
	pr.per_test = 1;
	verdict_nights(now, N(now), stepped, N(stepped), 0, 5, &pr, &d);
	ok(!d.pooled, "per test: the step's test still on its own spread");
	printf("# window p: %g with the segment's pooling, %g per test\n", two.window_p,
	    d.window_p);
	ok(two.window_p > 1e-4 && d.window_p < 1e-6,
	    "the window's baseline pools on its own: its p falls by orders of magnitude");
	is_int(d.kind, VERDICT_BAD, "and the row is bad");
}

/*
 * One night with a prior (s0^2 1e-4 on 20 df): tonight at 103 against a
 * night of 100 is tested with the prior's variance alone, se = s0 sqrt(1
 * + 1/1), t = log 1.03 / se = 2.0901230 on 20 df, one-sided p
 * 0.024793346, interval +0.005883% to +6.083760% (mpmath at 30 digits).
 * Without a prior one night is not tested.
 */
static void
test_one_night(void)
{
	static const double night[] = { 100 };
	static const double now[] = { 103, 103, 103 };
	struct verdict_prior pr = { .df = 20, .s2 = 1e-4, .one_sided = 1 };
	struct verdict d;

	verdict_nights(now, N(now), night, 1, 0, 5, &pr, &d);
	ok(d.tested && d.pooled, "one night and a prior: tested, pooled");
	is_num(d.df, 20, 0, "on the prior's 20 df");
	is_num(d.p, 0.024793346097, 1e-10, "one-sided p with the prior's variance alone");
	is_num(d.lo, 0.005882599435, 1e-8, "the interval's low end");
	is_num(d.hi, 6.083759517362, 1e-8, "and its high end");
	is_int(d.kind, VERDICT_BAD, "+3% at threshold 5%: p 0.025, its far end 6.1% reaches 5%: "
	    "bad");
	verdict_nights(now, N(now), night, 1, 0, 5, NULL, &d);
	ok(!d.tested, "one night, no prior: not tested");
}

/*
 * A noisy series among quiet ones: the prior says 1% (s0^2 1e-4 on 20
 * df).  Nights 3.2% apart (below the 5% threshold) are far above it
 * (F = 10 on 4 and 20 df): the series is judged against its own spread,
 * exactly as without a prior, not rescued by the quiet ones; nights 8%
 * apart stay cannot judge.
 */
static void
test_noisy_among_quiet(void)
{
	static const double noisy[] = { 100, 104, 96, 102, 98 };
	static const double wide[] = { 100, 108, 92, 104, 96 };
	static const double nights_quiet[] = { 100, 101, 99, 100.5, 99.5 };
	static const double now[] = { 108, 108, 108 };
	struct verdict_prior pr = { .df = 20, .s2 = 1e-4, .trend = 1 };
	struct verdict d, own;

	verdict_nights(now, N(now), noisy, N(noisy), 0, 5, &pr, &d);
	verdict_nights(now, N(now), noisy, N(noisy), 0, 5, NULL, &own);
	ok(!d.pooled, "nights 3.2% apart among 1% ones: not pooled");
	is_num(d.p, own.p, 0, "the step's p is its own");
	is_num(d.df, 4, 0, "on its own 4 df");
	ok(!verdict_significant(d.kind), "+8% within its own spread: not flagged");
	verdict_nights(now, N(now), wide, N(wide), 0, 5, &pr, &d);
	ok(!verdict_judgeable(&d, N(now), N(wide), 1, 0, NAN, 5, NULL, NULL),
	    "nights 6.3% apart against 5%: cannot judge, prior or not");

	/* the prior fitted from nine quiet series and the noisy one itself */
	{
		double s2[10] = { 1e-4, 0.8e-4, 1.2e-4, 0.9e-4, 1.1e-4, 1e-4, 0.7e-4, 1.3e-4, 1e-4 };
		double df[10] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };

		ok(verdict_log_spread(noisy, N(noisy), &s2[9], &df[9]) == 0, "the noisy one's spread");
		ok(verdict_prior_fit(s2, df, 10, &pr) == 0, "ten series fit a prior");
		printf("# fitted d0 %g, s0 %g%%\n", pr.df, sqrt(pr.s2) * 100);
		ok(pr.s2 < 2e-4, "the prior stays near the quiet series' 1%");
		pr.trend = 1;
		pr.window = 0;
		verdict_nights(now, N(now), noisy, N(noisy), 0, 5, &pr, &d);
		ok(!d.pooled && d.p == own.p, "the noisy one, with the prior it is part of: its own spread");
		verdict_nights(now, N(now), nights_quiet, N(nights_quiet), 0, 5, &pr, &d);
		ok(d.pooled, "a quiet one, with the same prior: pooled");
	}
}

/*
 * The window rule, hand-computed with mpmath: nights 100, 101, 99,
 * 100.5, 103.5 and tonight 103.5 against the prior s0^2 1e-4 on 20 df
 * (the nights' log variance 2.75e-4, F(4, 20) p 0.057: pooled).  Two
 * nights against the four before them: their geometric mean +3.373612%,
 * t on 23 df, p 7.198087e-4, interval +1.570509% to +5.208725%; three
 * against three: p 6.346253e-3; Bonferroni over the two windows: p
 * 1.439617e-3.  The step alone (tonight against all five: p 0.0434283,
 * share 0.7: 0.062) and the trend (+3.79%, p 0.00741842, below the
 * threshold 5%) do not make it bad; the window does (p / 0.1 = 0.0144,
 * its far end +5.2% reaches 5%).  The row's p: min(0.0434283 / 0.7,
 * 0.00741842 / 0.2, 0.00143962 / 0.1) = 0.0143962.
 */
static void
test_window(void)
{
	static const double nights[] = { 100, 101, 99, 100.5, 103.5 };
	static const double now[] = { 103.5, 103.5, 103.5 };
	struct verdict_prior pr = { .df = 20, .s2 = 1e-4, .trend = 1, .window = 1 };
	struct verdict d;

	verdict_nights(now, N(now), nights, N(nights), 0, 5, &pr, &d);
	ok(d.pooled, "pooled");
	is_num(d.p, 0.04342819362, 1e-9, "the step's p");
	ok(d.window_tested && d.window_n == 2, "the window of two nights is the smallest p");
	is_num(d.window, 3.373612224, 1e-6, "its change against the nights before");
	is_num(d.window_lo, 1.570508955, 1e-5, "its interval's low end");
	is_num(d.window_hi, 5.208724602, 1e-5, "and high end");
	is_num(d.window_p, 1.439617454e-3, 1e-9, "its p, Bonferroni over two windows");
	is_num(d.trend_p, 7.418424485e-3, 1e-8, "the trend's p");
	is_num(verdict_row_p(&d), 1.439617454e-2, 1e-8, "the row's p: the window's share");
	is_int(d.kind, VERDICT_BAD, "bad");
	ok(d.by_window && !d.by_trend, "by the window rule");
	verdict_nights(now, N(now), nights, N(nights), 1, 5, &pr, &d);
	is_int(d.kind, VERDICT_BETTER, "higher is better: better");
	verdict_nights(now, N(now), nights, N(nights), 0, 5.5, &pr, &d);
	ok(!verdict_significant(d.kind), "at 5.5% its far end does not reach: not flagged");
	verdict_nights(now, N(now), nights, 3, 0, 5, &pr, &d);
	ok(!d.window_tested, "three nights: no window (a window needs 3 nights before it)");
	verdict_nights(now, N(now), nights, 4, 0, 5, &pr, &d);
	ok(d.window_tested && d.window_n == 2, "four nights: the window of two only");
	pr.window = 0;
	verdict_nights(now, N(now), nights, N(nights), 0, 5, &pr, &d);
	ok(!d.window_tested && isnan(d.window_p), "window off: no window rule");
	is_num(verdict_row_p(&d), fmin(0.04342819362 / 0.8, 7.418424485e-3 / 0.2), 1e-8,
	    "and the step's share is 0.8 again");
}

static void
test_rows(void)
{
	static const double few[] = { 10.0, 10.5 };
	static const double noisy[] = { 10.0, 13.0, 7.0, 11.0, 9.0 };
	static const double ps[] = { 0.01, 0.04, 0.03, 0.5, 0.001 };
	struct verdict_row rows[5];
	struct verdict d;
	size_t i, k, need;
	double spread;

	verdict_judge(few, N(few), base, N(base), 0, 0, 5, &d);
	ok(!verdict_judgeable(&d, N(few), N(base), 0, 0.5, 0.5, 5, &need, NULL),
	    "two trials: cannot judge");
	ok(robust_trials_needed(10, 0.5, 0.5, 5, &k) == 0 && need == k && need >= 3,
	    "the trials needed: robust_trials_needed()'s");
	verdict_judge(noisy, N(noisy), base, N(base), 0, 0, 5, &d);
	ok(!verdict_judgeable(&d, N(noisy), N(base), 0, 2.2, 0.08, 5, &need, &spread),
	    "rsd 22% against 5%: cannot judge");
	/* sd sqrt((0 + 9 + 9 + 1 + 1) / 4) = sqrt(5) over a mean of 10 */
	ok(need == 0 && fabs(spread - sqrt(5) * 10) < 1e-9,
	    "no trial count, a spread of 22.36%: more trials will not help");
	is_int(verdict_needed(&d, N(noisy), N(base), 0, sqrt(5), 0.08, 5, &k, &spread), 1,
	    "verdict_needed(): 1, more trials will not help");
	verdict_judge(few, N(few), base, N(base), 0, 0, 5, &d);
	is_int(verdict_needed(&d, N(few), N(base), 0, 0.5, 0.5, 5, &k, &spread), 0,
	    "2 trials within the threshold: 0, trials would help");
	ok(isnan(spread), "... and no spread");
	/*
	 * The count decides: sd 0.3 a side about 10 at 5%: with n a side the
	 * interval is 2 t(0.975; 2n - 2) sqrt(0.18 / n) wide against 0.5:
	 * n = 12 gives 2 x 2.0739 x 0.12247 = 0.508, n = 13 gives 2 x 2.0639 x
	 * 0.11767 = 0.486: 13.
	 */
	{
		double a[13], b[13], a12[12], b12[12], c = 0.3 / sqrt(13.0 * 14 / 12);
		double c12 = 0.3 / sqrt(12.0 * 13 / 12);
		struct verdict e;
		size_t j;

		/* evenly spaced about 10, sd exactly 0.3; the other side +0.25 */
		for (j = 0; j < 13; j++) {
			a[j] = 10 + c * ((double)j - 6);
			b[j] = a[j] + 0.25;
		}
		for (j = 0; j < 12; j++) {
			a12[j] = 10 + c12 * ((double)j - 5.5);
			b12[j] = a12[j] + 0.25;
		}
		d.good = 10;
		d.rsd = d.good_rsd = 3;
		is_int(verdict_needed(&d, 2, 2, 0, 0.3, 0.3, 5, &k, &spread), 0,
		    "rsd 3% against 5%: trials would help");
		is_int((int)k, 13, "13 trials a side (12: 0.508 wide, 13: 0.486)");
		/* +2.5% with 13 a side: 2.5 -+ 2.43, [0.07, 4.93]: decided good */
		verdict_judge(b, 13, a, 13, 0, 0, 5, &e);
		is_int(e.kind, VERDICT_GOOD, "13 trials a side: a verdict (good, +2.5% +- 2.43%)");
		ok(verdict_judgeable(&e, 13, 13, 0, 0.3, 0.3, 5, NULL, NULL), "and judgeable");
		/* with 12: 2.5 -+ 2.54 reaches 5.04: not yet */
		verdict_judge(b12, 12, a12, 12, 0, 0, 5, &e);
		is_int(e.kind, VERDICT_NOT_SIGNIFICANT, "12 a side: not decided yet");
	}
	/* a single good value: the good side adds no spread */
	d.good = 10;
	d.rsd = 3;
	d.good_rsd = 0;
	is_int(verdict_needed(&d, 2, 0, 0, 0.3, NAN, 5, &k, &spread), 0,
	    "against a value: trials would help");
	ok(robust_trials_needed(10, 0, 0.3, 5, &need) == 0 && k == need,
	    "the one-sided count: robust_trials_needed() with a good sd of 0");
	/* one value against a good value: no spread known, the rule's 3 */
	d.rsd = NAN;
	is_int(verdict_needed(&d, 1, 0, 0, NAN, NAN, 5, &k, &spread), 0,
	    "one value against a good value: trials would help");
	is_int((int)k, VERDICT_MIN_TRIALS, "... the rule's 3, no spread to go by");
	/* nights: 3 trials tonight whatever their spread, unless the nights vary */
	d.good_rsd = 4;
	d.rsd = 40;
	is_int(verdict_needed(&d, 2, 5, 1, 4, NAN, 5, &k, &spread), 0,
	    "against nights 4% apart: tonight's trials are missing");
	is_int((int)k, VERDICT_MIN_TRIALS, "... the rule's 3");
	d.good_rsd = 6;
	is_int(verdict_needed(&d, 5, 5, 1, 4, NAN, 5, &k, &spread), 1,
	    "against nights 6% apart: more trials will not help");
	ok(k == 0 && spread == 6, "... spread 6%, no count");
	verdict_judge(base, N(base), base, N(base), 0, 0, 5, &d);
	ok(verdict_judgeable(&d, N(base), N(base), 0, 0.08, 0.08, 5, &need, NULL) && need == 0,
	    "five steady trials a side: judgeable");
	ok(verdict_judgeable(&d, N(base), 0, 0, 0.08, NAN, 5, NULL, NULL),
	    "against a single good value (ng 0): judgeable");

	/* Benjamini-Hochberg: q of 0.01 0.04 0.03 0.5 (m = 4) is 0.04 0.0533 0.0533 0.5 */
	for (i = 0; i < 5; i++) {
		memset(&rows[i], 0, sizeof(rows[i]));
		rows[i].v.kind = i < 3 ? VERDICT_BAD : VERDICT_GOOD;
		rows[i].v.tested = 1;
		rows[i].v.p = ps[i];
		rows[i].judgeable = i < 4;
	}
	rows[4].v.kind = VERDICT_BAD;
	is_int((int)verdict_adjust(rows, 5, 0.05), 1, "fdr 0.05: one row held");
	is_num(rows[0].q, 0.04, 1e-12, "q of 0.01: 4 x 0.01");
	is_num(rows[1].q, 0.04 * 4 / 3, 1e-12, "q of 0.04: 0.04 x 4 / 3");
	is_num(rows[2].q, 0.04 * 4 / 3, 1e-12, "q of 0.03: the running minimum");
	is_num(rows[3].q, 0.5, 1e-12, "q of 0.5");
	ok(isnan(rows[4].q) && !rows[4].held, "a row that cannot be judged: no q, never held");
	ok(rows[0].held && !rows[1].held && !rows[2].held, "only q <= 0.05 is held");
	is_int((int)verdict_adjust(rows, 5, 0.06), 3, "fdr 0.06: the three bad rows");
	ok(!rows[3].held, "a good row is never held");
	is_int((int)verdict_adjust(rows, 5, 0), 3, "fdr 0: no step");
	is_int((int)verdict_adjust(rows, 0, 0.05), 0, "no rows");
}

/* verdict_why(): the reason after the outcome's name, long and short. */
static void
test_why(void)
{
	struct verdict_row vr;
	char b[VERDICT_WHY_MAX];

	memset(&vr, 0, sizeof(vr));
	vr.spread = 7.44;
	verdict_why(&vr, 5, 1, 5, 0, b, sizeof(b));
	is_str(b, "noisy: more trials will not help, spread 7.4% against threshold 5%; "
	    "alternating boots will (fleetmark ab)",
	    "noisy: more trials will not help");
	verdict_why(&vr, 5, 1, 5, VERDICT_WHY_SHORT, b, sizeof(b));
	is_str(b, "noisy, 7.4% > 5%", "noisy, short");
	vr.spread = NAN;
	vr.needed = 11;
	verdict_why(&vr, 2, 1, 5, 0, b, sizeof(b));
	is_str(b, "about 11 trials a side would be needed", "trials missing");
	verdict_why(&vr, 2, 1, 5, VERDICT_WHY_SHORT, b, sizeof(b));
	is_str(b, "2 trials, 11 needed", "trials missing, short");
	vr.needed = 0;
	verdict_why(&vr, 1, 1, 5, VERDICT_WHY_SHORT, b, sizeof(b));
	is_str(b, "1 trial, 3 needed", "no count known: the rule's minimum");
	verdict_why(&vr, 5, 1, 5, 0, b, sizeof(b));
	is_str(b, "noisy", "neither: noisy");
	vr.judgeable = 1;
	vr.v.kind = VERDICT_NOT_SIGNIFICANT;
	vr.v.lo = -7.14;
	vr.v.hi = 2;
	verdict_why(&vr, 5, 1, 5, 0, b, sizeof(b));
	is_str(b, "its 95% interval reaches worse by 7.1%", "not significant, higher better");
	verdict_why(&vr, 5, 0, 5, 0, b, sizeof(b));
	is_str(b, "its 95% interval reaches worse by 2.0%", "not significant, lower better");
	verdict_why(&vr, 5, 0, 5, VERDICT_WHY_SHORT, b, sizeof(b));
	is_str(b, "may be 2.0% worse", "not significant, short");
	vr.v.kind = VERDICT_BAD;
	verdict_why(&vr, 5, 0, 5, 0, b, sizeof(b));
	is_str(b, "q above the fdr", "significant, not held");
	vr.held = 1;
	verdict_why(&vr, 5, 0, 5, 0, b, sizeof(b));
	is_str(b, "", "bad: the name says it");
}

int
main(void)
{
	test_nights();
	test_prior();
	test_trend();
	test_noisy_among_quiet();
	test_one_sided_per_test();
	test_one_night();
	test_window();
	test_rows();
	test_two_samples();
	test_noise();
	test_one_value();
	test_why();
	is_str(verdict_name(VERDICT_NOT_SIGNIFICANT), "not significant", "kind names");
	return tap_done();
}
