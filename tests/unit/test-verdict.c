/*
 * test-verdict: the good / bad / unsure rule of bisect-run (verdict.h) on
 * made-up trial values: against good values (Welch) and against one good
 * value (one-sample t-test), both directions of metric, noise, and a
 * change that is large but not significant.
 */
#include <math.h>
#include <stdio.h>

#include "tap.h"
#include "verdict.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

int
main(void)
{
	static const double base[] = { 10.0, 10.1, 9.9, 10.05, 9.95 };
	static const double same[] = { 10.02, 9.97, 10.08, 9.93, 10.0 };
	static const double slow[] = { 20.1, 19.8, 20.3, 19.9, 20.0 };	/* twice the time */
	static const double fast[] = { 5.0, 5.1, 4.9, 5.05, 4.95 };	/* half */
	static const double noisy[] = { 6.0, 14.0, 9.0, 12.5, 8.0 };	/* rsd ~ 32% */
	static const double vague_b[] = { 10.0, 12.0, 8.0 };		/* rsd 20% */
	static const double vague_n[] = { 12.0, 14.5, 9.5 };		/* +20%, p ~ 0.3 */
	struct verdict d;

	verdict_judge(same, N(same), base, N(base), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_GOOD, "the same speed: good");
	ok(fabs(d.change) < 1 && d.p > 0.05 && d.rsd < 1, "small change, no significance, steady");

	verdict_judge(slow, N(slow), base, N(base), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_BAD, "twice the time of a lower-is-better metric: bad");
	is_num(d.change, 100.0, 1, "change +100%");
	is_num(d.worse, 100.0, 1, "worse by 100%");
	ok(d.p < 1e-6, "and significant");

	verdict_judge(fast, N(fast), base, N(base), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_GOOD, "half the time: better is good");
	ok(d.worse < 0, "worse is negative when better");

	verdict_judge(fast, N(fast), base, N(base), 0, 1, 5, &d);
	is_int(d.kind, VERDICT_BAD, "half of a higher-is-better metric: bad");
	is_num(d.worse, 50.0, 1, "worse by 50%");
	verdict_judge(slow, N(slow), base, N(base), 0, 1, 5, &d);
	is_int(d.kind, VERDICT_GOOD, "twice a higher-is-better metric: good");

	verdict_judge(noisy, N(noisy), base, N(base), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_UNSURE, "noisy values with a small mean change: unsure, not good");
	ok(d.rsd > 5 && d.worse < 5, "rsd above the threshold");
	verdict_judge(same, N(same), noisy, N(noisy), 0, 0, 5, &d);
	is_int(d.kind, VERDICT_UNSURE, "a noisy baseline: unsure");
	ok(d.good_rsd > 5, "the baseline's rsd is above the threshold");

	verdict_judge(vague_n, N(vague_n), vague_b, N(vague_b), 0, 0, 10, &d);
	is_int(d.kind, VERDICT_UNSURE, "worse by more than the threshold, p >= 0.05: unsure, not bad");
	ok(d.worse >= 10 && d.p >= 0.05, "worse by 20%, p above 0.05");
	verdict_judge(vague_n, N(vague_n), vague_b, N(vague_b), 0, 0, 30, &d);
	is_int(d.kind, VERDICT_GOOD, "the same with a 30% threshold: good (rsd 20% <= 30%)");

	/* against one value: median and one-sample t-test */
	verdict_judge(same, N(same), NULL, 0, 10.0, 0, 5, &d);
	is_int(d.kind, VERDICT_GOOD, "--good 10 and values around 10: good");
	is_num(d.now, 10.0, 1e-9, "the median is the statistic");
	is_num(d.good_rsd, 0, 0, "a single good value has no rsd");
	verdict_judge(slow, N(slow), NULL, 0, 10.0, 0, 5, &d);
	is_int(d.kind, VERDICT_BAD, "--good 10 and values around 20: bad");
	ok(d.p < 1e-6, "one-sample t-test significant");
	verdict_judge(noisy, N(noisy), NULL, 0, 10.0, 0, 5, &d);
	is_int(d.kind, VERDICT_UNSURE, "--good 10 and noisy values: unsure");
	verdict_judge(slow, 1, NULL, 0, 10.0, 0, 5, &d);
	is_int(d.kind, VERDICT_UNSURE, "one value cannot be tested: unsure, never bad");
	ok(isnan(d.p), "no p");
	verdict_judge(same, N(same), NULL, 0, 0.0, 0, 5, &d);
	is_int(d.kind, VERDICT_BAD, "a good value of 0 and values around 10: bad");
	ok(isinf(d.change) && d.change > 0, "an infinite change, not a division by zero");
	return tap_done();
}
