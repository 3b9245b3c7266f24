/*
 * fdr.c: Benjamini-Hochberg q-values and rejections for the rows of a
 * night (fdr.h).
 */
#include <math.h>
#include <stdlib.h>

#include "fdr.h"
#include "robust.h"
#include "xmalloc.h"

int
fdr_bh(const double *p, size_t m, double *q, char **err)
{
	double *pv, run, v;
	size_t i, k = 0, *row, *ord;

	for (i = 0; i < m; i++) {
		if (!isnan(p[i]) && !(p[i] >= 0 && p[i] <= 1))
			return err_set(err, -1, "p-value %g of row %zu is outside [0, 1]", p[i], i);
	}
	/* The usable p's, and the row each came from. */
	pv = xreallocarray(NULL, m ? m : 1, sizeof(*pv));
	row = xreallocarray(NULL, m ? m : 1, sizeof(*row));
	ord = xreallocarray(NULL, m ? m : 1, sizeof(*ord));
	for (i = 0; i < m; i++) {
		if (!isnan(p[i])) {
			pv[k] = p[i];
			row[k] = i;
			k++;
		}
	}
	robust_order(pv, k, ord);
	/* Every row not in pv is NaN; q may alias p, so write these first. */
	for (i = 0; i < m; i++) {
		if (isnan(p[i]))
			q[i] = NAN;
	}
	/* From the largest p down: the running minimum of k / rank * p. */
	run = 1;
	for (i = k; i > 0; i--) {
		v = (double)k / (double)i * pv[ord[i - 1]];
		if (v < run)
			run = v;
		q[row[ord[i - 1]]] = run;
	}
	free(pv);
	free(row);
	free(ord);
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

size_t
fdr_bh_rows(const double *p, const unsigned char *use, size_t n, double *q)
{
	double *pv = xreallocarray(NULL, n ? n : 1, sizeof(*pv));
	char *err = NULL;
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		pv[i] = use[i] && !isnan(p[i]) ? fmin(fmax(p[i], 0), 1) : NAN;
		m += !isnan(pv[i]);
	}
	if (fdr_bh(pv, n, q, &err) != 0) {
		free(err);	/* cannot be: every p is in [0, 1] or NaN */
		for (i = 0; i < n; i++)
			q[i] = NAN;
	}
	free(pv);
	return m;
}
