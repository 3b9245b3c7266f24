/*
 * numfmt.c: the number formatters of tables, charts, files and progress
 * lines (numfmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "numfmt.h"

void
numfmt_shortest(char *buf, size_t size, double v)
{
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, size, "%.17g", v);
}

void
numfmt_fixed(char *buf, size_t size, double v, int sig)
{
	double a = fabs(v), lim = 10;
	int dec = sig - 1;

	if (a == 0) {
		snprintf(buf, size, "%.0f", v);
		return;
	}
	if (!(a >= 1)) {	/* NaN too */
		snprintf(buf, size, "%.3g", v);
		return;
	}
	if (a >= NUMFMT_FIXED_MAX) {
		/* a magnitude no benchmark measures: 1e308 as 309 digits helps no one */
		snprintf(buf, size, "%.*g", sig, v);
		return;
	}
	while (dec > 0 && a >= lim) {
		dec--;
		lim *= 10;
	}
	snprintf(buf, size, "%.*f", dec > 2 ? 2 : dec, v);
}

void
numfmt_mean(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		numfmt_fixed(buf, size, v, 4);
}

/* A percentage with one decimal after prefix, or "-" for NaN. */
static void
percent(char *buf, size_t size, const char *prefix, double pct)
{
	if (isnan(pct))
		snprintf(buf, size, "-");
	else if (fabs(pct) >= NUMFMT_FIXED_MAX)
		snprintf(buf, size, "%s%.3g%%", prefix, pct);
	else
		snprintf(buf, size, "%s%.1f%%", prefix, pct);
}

void
numfmt_change(char *buf, size_t size, double pct)
{
	percent(buf, size, signbit(pct) ? "-" : "+", fabs(pct));
}

void
numfmt_change_whole(char *buf, size_t size, double pct)
{
	if (isnan(pct))
		snprintf(buf, size, "-");
	else if (fabs(pct) >= 1)
		snprintf(buf, size, "%+.0f%%", pct);
	else
		snprintf(buf, size, "%+.1f%%", pct);
}

void
numfmt_rsd(char *buf, size_t size, double pct)
{
	percent(buf, size, "±", pct);
}

void
numfmt_detectable(char *buf, size_t size, double pct)
{
	if (!isfinite(pct))
		snprintf(buf, size, "-");
	else if (pct > NUMFMT_DETECTABLE_MAX)
		snprintf(buf, size, "> %.0f%%", NUMFMT_DETECTABLE_MAX);
	else
		snprintf(buf, size, "%.1f%%", pct);
}

void
numfmt_interval(char *buf, size_t size, double lo, double hi)
{
	char a[NUMFMT_MAX], b[NUMFMT_MAX];

	numfmt_change(a, sizeof(a), lo);
	numfmt_change(b, sizeof(b), hi);
	snprintf(buf, size, "%s .. %s", a, b);
}

void
numfmt_p(char *buf, size_t size, double p)
{
	if (isnan(p))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.3g", p);
}

void
numfmt_short(char *buf, size_t size, double v)
{
	double a = fabs(v);

	if (a >= 1e6 || (a < 1e-3 && a > 0))
		snprintf(buf, size, "%.3g", v);
	else if (a >= 1000)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.4g", v);
}

void
numfmt_duration(char *buf, size_t size, double seconds)
{
	long t = seconds < 0 ? 0 : (long)(seconds + 0.5);

	if (t < 60)
		snprintf(buf, size, "%lds", t);
	else if (t < 3600)
		snprintf(buf, size, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, size, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
}
