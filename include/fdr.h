/*
 * fdr.h: false-discovery control over the many rows one night judges
 * (every host, metric and parameter point): the Benjamini-Hochberg
 * adjustment of a set of p-values, and the rows it rejects at a level.
 *
 * Method: Benjamini & Hochberg (1995), "Controlling the false discovery
 * rate: a practical and powerful approach to multiple testing", J. R.
 * Statist. Soc. B 57(1), the step-up procedure.  The adjusted p-values
 * (q-values) are R's p.adjust(p, method = "BH"): with the m usable
 * p-values sorted, p(1) <= ... <= p(m),
 *
 *	q(i) = min over j >= i of min(1, m / j * p(j))
 *
 * so that q is monotone in p and at most 1; a row is rejected at level
 * `level` when its q <= level, which is exactly the rows the step-up
 * procedure rejects (every p(i) with i <= k, k the largest index with
 * p(k) <= k / m * level).  Under independent (or positively dependent)
 * tests the expected fraction of false rejections among the rejections
 * is at most level.
 *
 * NaN p-values (a row that could not be tested: too few trials, noisy)
 * are left out, as R's p.adjust with its default n = the count of non-NA
 * p's: they do not count in m and their q is NaN.
 *
 * Complexity: O(m log m) time (one sort), O(m) memory.
 */
#ifndef FLEETMARK_FDR_H
#define FLEETMARK_FDR_H

#include <stddef.h>

/*
 * The Benjamini-Hochberg q-value of each of p[0..m) into q[0..m) (q may
 * be p itself).  Returns 0, or -1 with a message in *err (malloc'd, for
 * the caller to free) when a p-value is outside [0, 1] (q is then not
 * written).  NaN p's give NaN q's.
 */
int	fdr_bh(const double *p, size_t m, double *q, char **err);

/*
 * The rows of p[0..m) that Benjamini-Hochberg rejects at `level` (for
 * example 0.05): reject[i] is set to 1 for them and 0 for the others (a
 * NaN p is never rejected).  q, when not NULL, receives the q-values as
 * fdr_bh() gives them.  Returns the number rejected, or -1 with *err as
 * fdr_bh() (reject and q are then not written).
 */
long	fdr_reject(const double *p, size_t m, double level, unsigned char *reject,
	    double *q, char **err);

/*
 * A Benjamini-Hochberg step over a table's or a night's rows (the
 * compare and matrix tables, report-judge.c; the nightly verdict,
 * verdict_adjust(), once for the rows that can fail the night and once
 * for the others): q[i] gets the q of p[i] among the rows with use[i]
 * set and a p that is not NaN (p clamped to [0, 1]); every other row gets
 * NaN and does not count in m.  q may be p itself.  Returns m.
 */
size_t	fdr_bh_rows(const double *p, const unsigned char *use, size_t n, double *q);

#endif /* FLEETMARK_FDR_H */
