/*
 * tdist-speed.c: what the t distribution costs a report's rows (src/stats.c),
 * the quantile found by bisection on the cdf (as stats.c did before: the
 * reference, kept here) against stats_t_quantile() (Halley's steps on the
 * tail, and a cache per thread), side by side in one run.  Built and run
 * by hand:
 *
 *	cc -O2 -D_GNU_SOURCE -Iinclude -o /tmp/tdist-speed \
 *	    tests/bench/tdist-speed.c src/stats.c src/xmalloc.c -lm
 *	/tmp/tdist-speed [ROWS [TRIALS]]
 *
 * ROWS rows (default 200,000: 1,000 hosts x 200 points) of TRIALS trials
 * a side (default 5), 2% noise from a fixed generator, so that every row
 * has Welch's own real degrees of freedom.  Times, for every row, Welch's
 * test (its p: one incomplete beta) and the 95% interval (the quantile),
 * the way the compare table judges a row; then the quantile alone at
 * those dfs, and at 0.975 and the equal sides' 2 (TRIALS - 1) df
 * (robust_trials_needed(), repeat: auto), where the cache answers.
 * Prints the CPU seconds before and after, their ratio, and the largest
 * relative difference between the two quantiles.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats.h"

/* xorshift64 (Marsaglia 2003); normals as the sum of 12 uniforms less 6. */
static uint64_t state = 88172645463325252ULL;

static double
uniform(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (double)(state >> 11) / 9007199254740992.0;
}

static double
normal(void)
{
	double s = 0;
	int i;

	for (i = 0; i < 12; i++)
		s += uniform();
	return s - 6;
}

/* The quantile as stats.c found it before: doubling, then bisection. */
static double
bisect_quantile(double p, double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	if (p < 0.5)
		return -bisect_quantile(1 - p, df);
	while (stats_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * (1 + hi); i++) {
		mid = (lo + hi) / 2;
		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static double
cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	size_t rows = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 5, i, j;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	double *df = malloc(rows * sizeof(*df)), *se = malloc(rows * sizeof(*se));
	double *tt = malloc(rows * sizeof(*tt));
	double t0, old_rows, new_rows, old_q, new_q, old_c, new_c, sum = 0, worst = 0;
	struct stats_welch w;

	if (a == NULL || b == NULL || df == NULL || se == NULL || tt == NULL || n < 2 || rows == 0) {
		fprintf(stderr, "usage: tdist-speed [ROWS [TRIALS >= 2]]\n");
		return 2;
	}
	for (i = 0; i < rows; i++) {
		for (j = 0; j < n; j++) {
			a[j] = 100 * (1 + 0.02 * normal());
			b[j] = 100 * (1 + 0.02 * normal());
		}
		stats_welch(a, n, b, n, &w);
		df[i] = w.df;
		se[i] = w.se;
		tt[i] = w.t;
	}
	/* the rows: Welch's p (the same either way) and the interval's quantile */
	t0 = cpu();
	for (i = 0; i < rows; i++)
		sum += stats_betai(df[i] / 2, 0.5, df[i] / (df[i] + tt[i] * tt[i])) +
		    bisect_quantile(0.975, df[i]) * se[i];
	old_rows = cpu() - t0;
	t0 = cpu();
	for (i = 0; i < rows; i++)
		sum -= stats_betai(df[i] / 2, 0.5, df[i] / (df[i] + tt[i] * tt[i])) +
		    stats_t_quantile(0.975, df[i]) * se[i];
	new_rows = cpu() - t0;
	/* the quantile alone, at the rows' dfs */
	t0 = cpu();
	for (i = 0; i < rows; i++)
		sum += bisect_quantile(0.975, df[i]);
	old_q = cpu() - t0;
	t0 = cpu();
	for (i = 0; i < rows; i++)
		sum -= stats_t_quantile(0.975, df[i]);
	new_q = cpu() - t0;
	/* equal sides' integer df: the cache */
	t0 = cpu();
	for (i = 0; i < rows; i++)
		sum += bisect_quantile(0.975, (double)(2 * (n - 1 + i % 4)));
	old_c = cpu() - t0;
	t0 = cpu();
	for (i = 0; i < rows; i++)
		sum -= stats_t_quantile(0.975, (double)(2 * (n - 1 + i % 4)));
	new_c = cpu() - t0;
	for (i = 0; i < rows; i++) {
		double o = bisect_quantile(0.975, df[i]), q = stats_t_quantile(0.975, df[i]);

		if (fabs(o - q) / q > worst)
			worst = fabs(o - q) / q;
	}
	printf("%zu rows of %zu trials a side, Welch's df %.2f to %.2f\n", rows, n,
	    df[0], df[rows - 1]);
	printf("%-40s %10s %10s %8s\n", "", "bisection", "halley", "ratio");
	printf("%-40s %9.3fs %9.3fs %7.1fx\n", "rows: p and 95% interval", old_rows, new_rows,
	    old_rows / new_rows);
	printf("%-40s %9.3fs %9.3fs %7.1fx\n", "quantile at the rows' dfs", old_q, new_q,
	    old_q / new_q);
	printf("%-40s %9.3fs %9.3fs %7.1fx\n", "quantile at 4 integer dfs (cached)", old_c,
	    new_c, old_c / new_c);
	printf("largest relative difference of the quantiles: %.2g (checksum %g)\n", worst,
	    sum);
	free(a);
	free(b);
	free(df);
	free(se);
	free(tt);
	return 0;
}
