/*
 * fdr.c: Benjamini-Hochberg q-values and rejections for the rows of a
 * night (fdr.h).
 */
#include <math.h>
#include <stdlib.h>

#include "fdr.h"
#include "xmalloc.h"

struct ranked {
	double	p;
	size_t	i;
};

static int
cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int
fdr_bh(const double *p, size_t m, double *q, char **err)
{
	struct ranked *r;
	double run, v;
	size_t i, k = 0;

	for (i = 0; i < m; i++) {
		if (!isnan(p[i]) && !(p[i] >= 0 && p[i] <= 1)) {
			*err = xasprintf("p-value %g of row %zu is outside [0, 1]", p[i], i);
			return -1;
		}
	}
	r = xreallocarray(NULL, m ? m : 1, sizeof(*r));
	for (i = 0; i < m; i++) {
		if (!isnan(p[i])) {
			r[k].p = p[i];
			r[k].i = i;
			k++;
		}
	}
	qsort(r, k, sizeof(*r), cmp_ranked);
	/* Every row not in r is NaN; q may alias p, so write these first. */
	for (i = 0; i < m; i++) {
		if (isnan(p[i]))
			q[i] = NAN;
	}
	/* From the largest p down: the running minimum of k / rank * p. */
	run = 1;
	for (i = k; i > 0; i--) {
		v = (double)k / (double)i * r[i - 1].p;
		if (v < run)
			run = v;
		q[r[i - 1].i] = run;
	}
	free(r);
	return 0;
}

long
fdr_reject(const double *p, size_t m, double level, unsigned char *reject,
    double *q, char **err)
{
	double *qq = q ? q : xreallocarray(NULL, m ? m : 1, sizeof(*qq));
	long n = 0;
	size_t i;

	if (fdr_bh(p, m, qq, err) < 0) {
		if (qq != q)
			free(qq);
		return -1;
	}
	for (i = 0; i < m; i++) {
		reject[i] = qq[i] <= level;
		n += reject[i];
	}
	if (qq != q)
		free(qq);
	return n;
}
