/*
 * verdict.c: good, bad or unsure for one bisection step (verdict.h).
 */
#include <math.h>

#include "stats.h"
#include "verdict.h"

/* Relative standard deviation in percent; infinite for a zero mean. */
static double
rsd(const double *v, size_t n)
{
	double m = stats_mean(v, n);

	return m != 0 ? stats_sd(v, n) / fabs(m) * 100 : INFINITY;
}

void
verdict_judge(const double *v, size_t n, const double *g, size_t ng, double gv, int higher,
    double threshold, struct verdict *out)
{
	struct stats_welch t;
	int tested;

	out->now = g != NULL ? stats_mean(v, n) : stats_median(v, n);
	out->good = g != NULL ? stats_mean(g, ng) : gv;
	if (out->good != 0)
		out->change = (out->now - out->good) / fabs(out->good) * 100;
	else
		out->change = out->now == out->good ? 0 : out->now > 0 ? INFINITY : -INFINITY;
	out->worse = higher ? -out->change : out->change;
	out->rsd = n >= 2 ? rsd(v, n) : INFINITY;
	out->good_rsd = g == NULL ? 0 : ng >= 2 ? rsd(g, ng) : INFINITY;
	tested = g != NULL ? stats_welch(g, ng, v, n, &t) == 0 : stats_ttest1(v, n, gv, &t) == 0;
	out->p = tested ? t.p : NAN;
	if (out->worse >= threshold && tested && t.p < VERDICT_ALPHA)
		out->kind = VERDICT_BAD;
	else if (out->worse < threshold && out->rsd <= threshold &&
	    out->good_rsd <= threshold)
		out->kind = VERDICT_GOOD;
	else
		out->kind = VERDICT_UNSURE;
}

const char *
verdict_name(enum verdict_kind k)
{
	return k == VERDICT_GOOD ? "good" : k == VERDICT_BAD ? "bad" : "unsure";
}
