/*
 * test-fdr: the Benjamini-Hochberg adjustment (fdr.c) against the
 * published worked example and hand-computed q-values, as R's
 * p.adjust(p, "BH") gives them.
 *
 * Benjamini & Hochberg (1995), section 4: 15 p-values from a study of
 * myocardial infarction treatments,
 *
 *	0.0001 0.0004 0.0019 0.0095 0.0201 0.0278 0.0298 0.0344
 *	0.0459 0.3240 0.4262 0.5719 0.6528 0.7590 1.000
 *
 * At level 0.05 the step-up procedure rejects the first four (k = 4 is
 * the largest k with p(k) <= k / 15 * 0.05: p(4) = 0.0095 <= 0.01333,
 * p(5) = 0.0201 > 0.01667, ..., p(9) = 0.0459 > 0.03), where Bonferroni
 * (0.05 / 15 = 0.00333) rejects only the first three.
 *
 * The q-values by hand: m / i * p(i) for i = 1..15 is
 *
 *	 1: 15/1  * 0.0001 = 0.0015
 *	 2: 15/2  * 0.0004 = 0.003
 *	 3: 15/3  * 0.0019 = 0.0095
 *	 4: 15/4  * 0.0095 = 0.035625
 *	 5: 15/5  * 0.0201 = 0.0603
 *	 6: 15/6  * 0.0278 = 0.0695
 *	 7: 15/7  * 0.0298 = 0.0638571428571... (= 447/7000)
 *	 8: 15/8  * 0.0344 = 0.0645
 *	 9: 15/9  * 0.0459 = 0.0765
 *	10: 15/10 * 0.3240 = 0.486
 *	11: 15/11 * 0.4262 = 0.5811818181818... (= 6393/11000)
 *	12: 15/12 * 0.5719 = 0.714875
 *	13: 15/13 * 0.6528 = 0.7532307692307... (= 1224/1625)
 *	14: 15/14 * 0.7590 = 0.8132142857142... (= 2277/2800)
 *	15: 15/15 * 1.000  = 1
 *
 * and q(i) is the minimum of these from i up: the same numbers except
 * q(6) = min(0.0695, 0.0638571...) = 447/7000, which is what R prints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fdr.h"
#include "tap.h"

static const double bh_p[15] = {
	0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
	0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000,
};
static const double bh_q[15] = {
	0.0015, 0.003, 0.0095, 0.035625, 0.0603, 447.0 / 7000, 447.0 / 7000,
	0.0645, 0.0765, 0.486, 6393.0 / 11000, 0.714875, 1224.0 / 1625,
	2277.0 / 2800, 1,
};

static void
test_published(void)
{
	double q[15], p[15], qs[15];
	unsigned char rej[15];
	char *err = NULL, what[64];
	size_t i, j;
	long n;

	ok(fdr_bh(bh_p, 15, q, &err) == 0, "bh: the 1995 example adjusts");
	for (i = 0; i < 15; i++) {
		snprintf(what, sizeof(what), "bh 1995: q(%zu) = %.12g", i + 1, bh_q[i]);
		is_num(q[i], bh_q[i], 1e-12, what);
	}
	n = fdr_reject(bh_p, 15, 0.05, rej, NULL, &err);
	is_int(n, 4, "bh 1995: four rejected at 0.05, as the paper");
	ok(rej[0] && rej[1] && rej[2] && rej[3] && !rej[4] && !rej[8],
	    "bh 1995: the rejected are the four smallest");
	is_int(fdr_reject(bh_p, 15, 0.07, rej, NULL, &err), 8,
	    "bh 1995: eight rejected at 0.07 (q(6) = q(7) = 0.0639, q(8) = 0.0645)");
	is_int(fdr_reject(bh_p, 15, 0.0015, rej, NULL, &err), 1,
	    "bh 1995: a level equal to a q rejects it");

	/* The same rows in another order: each row keeps its q. */
	for (i = 0; i < 15; i++)
		p[i] = bh_p[(i * 7) % 15];
	ok(fdr_bh(p, 15, qs, &err) == 0, "bh: a shuffled order adjusts");
	for (i = 0, j = 0; i < 15; i++)
		j += fabs(qs[i] - bh_q[(i * 7) % 15]) <= 1e-12;
	is_int(j, 15, "bh: every q follows its row when the input is not sorted");

	/* In place. */
	for (i = 0; i < 15; i++)
		p[i] = bh_p[i];
	ok(fdr_bh(p, 15, p, &err) == 0 && fabs(p[5] - 447.0 / 7000) <= 1e-12 &&
	    fabs(p[14] - 1) <= 1e-12, "bh: q may be p itself");
}

static void
test_edges(void)
{
	/*
	 * NaN rows left out: m is 4, not 6.  Sorted: 0.01 0.02 0.03 0.5;
	 * 4/1 * 0.01 = 0.04, 4/2 * 0.02 = 0.04, 4/3 * 0.03 = 0.04,
	 * 4/4 * 0.5 = 0.5: q = 0.04 0.04 0.04 0.5 (R: p.adjust(c(0.03, NA,
	 * 0.01, 0.5, NA, 0.02), "BH") = 0.04 NA 0.04 0.50 NA 0.04).
	 */
	static const double pn[6] = { 0.03, NAN, 0.01, 0.5, NAN, 0.02 };
	static const double qn[6] = { 0.04, NAN, 0.04, 0.5, NAN, 0.04 };
	/*
	 * Ties and the cap: 0.02 0.02 0.9 0.9 -> 4/2 * 0.02 = 0.04 for both
	 * 0.02s (4/1 * 0.02 = 0.08 is not the minimum), 4/4 * 0.9 = 0.9 for
	 * both 0.9s; and a single p of 1 with large m gives 1, not above.
	 */
	static const double pt[4] = { 0.9, 0.02, 0.9, 0.02 };
	static const double qt[4] = { 0.9, 0.04, 0.9, 0.04 };
	/* m / i * p above 1 is capped: 0.6, 0.8 -> 2 * 0.6 = 1.2 -> 0.8, 0.8. */
	static const double pc[2] = { 0.6, 0.8 };
	static const double bad[3] = { 0.1, 1.5, 0.2 }, neg[2] = { -0.01, 0.5 };
	double q[6], qb[3] = { 7, 7, 7 };
	unsigned char rej[6];
	char *err = NULL;
	size_t i, good;

	ok(fdr_bh(pn, 6, q, &err) == 0, "bh: NaN p's are accepted");
	for (i = 0, good = 0; i < 6; i++)
		good += isnan(qn[i]) ? isnan(q[i]) : fabs(q[i] - qn[i]) <= 1e-12;
	is_int(good, 6, "bh: NaN p's left out of m and kept NaN");
	is_int(fdr_reject(pn, 6, 0.05, rej, q, &err), 3, "bh: NaN rows are never rejected");
	ok(!rej[1] && !rej[4] && rej[0] && rej[2] && rej[5] && !rej[3],
	    "bh: the rejected rows are the three small p's");
	ok(fabs(q[0] - 0.04) <= 1e-12, "fdr_reject fills q when asked");

	ok(fdr_bh(pt, 4, q, &err) == 0, "bh: ties adjust");
	for (i = 0, good = 0; i < 4; i++)
		good += fabs(q[i] - qt[i]) <= 1e-12;
	is_int(good, 4, "bh: tied p's get the same q");

	ok(fdr_bh(pc, 2, q, &err) == 0 && fabs(q[0] - 0.8) <= 1e-12 &&
	    fabs(q[1] - 0.8) <= 1e-12, "bh: monotone and capped (2 * 0.6 = 1.2 becomes 0.8)");
	q[0] = 0.5;
	ok(fdr_bh((const double[]){ 1 }, 1, q, &err) == 0 && q[0] == 1, "bh: one p is its own q");
	ok(fdr_bh(NULL, 0, NULL, &err) == 0, "bh: no rows at all");
	is_int(fdr_reject(NULL, 0, 0.05, NULL, NULL, &err), 0, "bh: no rows, none rejected");
	ok(fdr_bh((const double[]){ NAN, NAN }, 2, q, &err) == 0 && isnan(q[0]) && isnan(q[1]),
	    "bh: only NaN p's give only NaN q's");

	ok(fdr_bh(bad, 3, qb, &err) == -1 && err != NULL, "bh: a p above 1 is refused");
	if (err)
		printf("# %s\n", err);
	ok(qb[0] == 7 && qb[2] == 7, "bh: a refused set leaves q unwritten");
	free(err);
	err = NULL;
	ok(fdr_reject(neg, 2, 0.05, rej, NULL, &err) == -1 && err != NULL,
	    "bh: a negative p is refused");
	free(err);
}

/*
 * The false discovery rate itself, by simulation: 800 nulls (uniform p)
 * and 200 real effects (p = u^8, mostly small) per family, 200 families;
 * the share of false rejections among rejections, averaged, must be at
 * most about 0.05 * 800/1000 = 0.04 (BH controls it at level * m0 / m).
 * Unadjusted p < 0.05 would give about 40 false rejections a family.
 */
static void
test_rate(void)
{
	static double p[1000];
	static unsigned char rej[1000];
	unsigned long long s = 12345;
	double fdp = 0, u;
	long false_raw = 0, r;
	char *err = NULL;
	size_t f, i, fr;

	for (f = 0; f < 200; f++) {
		for (i = 0; i < 1000; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			u = (double)(s >> 11) / 9007199254740992.0;
			p[i] = i < 800 ? u : pow(u, 8);
			false_raw += i < 800 && p[i] < 0.05;
		}
		r = fdr_reject(p, 1000, 0.05, rej, NULL, &err);
		for (i = 0, fr = 0; i < 800; i++)
			fr += rej[i];
		if (r > 0)
			fdp += (double)fr / (double)r;
	}
	fdp /= 200;
	printf("# simulated FDR %.4f; unadjusted false rejections a family %.1f\n",
	    fdp, (double)false_raw / 200);
	ok(fdp <= 0.045, "bh: simulated false discovery rate at most 0.05 * m0/m (+ slack)");
	ok(fdp > 0.02, "bh: and not far below it (the procedure is not trivially conservative)");
	ok(false_raw / 200 > 30, "unadjusted p < 0.05 would have marked about 40 nulls a family");
}

/*
 * The rows' step (fdr_bh_rows(), what report-judge.c and verdict_adjust()
 * share): rows without use, or with a NaN p, are left out of m and get a
 * NaN q; the others are BH over them alone, p clamped to [0, 1].  Of
 * 0.01, 0.04, 0.03 (m = 3) the q's are 0.03, 0.04, 0.04.
 */
static void
test_rows(void)
{
	static const double p[] = { 0.01, 0.001, 0.04, NAN, 0.03, 1.5 };
	static const unsigned char use[] = { 1, 0, 1, 1, 1, 0 };
	double q[6], pq[] = { 0.02, -0.1 };

	is_int((int)fdr_bh_rows(p, use, 6, q), 3, "rows: three used");
	ok(fabs(q[0] - 0.03) <= 1e-12 && fabs(q[2] - 0.04) <= 1e-12 && fabs(q[4] - 0.04) <= 1e-12,
	    "rows: BH over the used rows alone");
	ok(isnan(q[1]) && isnan(q[3]) && isnan(q[5]), "rows: unused and NaN rows have no q");
	is_int((int)fdr_bh_rows(pq, (const unsigned char[]){ 1, 1 }, 2, pq), 2,
	    "rows: q may be p, p out of range clamped");
	ok(fabs(pq[0] - 0.02) <= 1e-12 && pq[1] == 0, "rows: -0.1 counts as 0");
	is_int((int)fdr_bh_rows(NULL, NULL, 0, NULL), 0, "rows: none");
}

int
main(void)
{
	test_published();
	test_rows();
	test_edges();
	test_rate();
	return tap_done();
}
