/*
 * test-ab-judge: the paired boot verdict (src/ab/judge.c) on examples
 * worked out by hand, the numbers from python3 (math and mpmath 1.3 at 30
 * digits; t quantiles also as R's qt() prints them).  The arithmetic of
 * the main example, a lower-is-better row of 4 blocks of 2 trials a boot:
 *
 *	block	A		B		d = mean log B - mean log A
 *	0	100 102		105 107		0.04832309267353274
 *	1	101  99		108 110		0.08618561297039307
 *	2	100  98		101 103		0.02985592020611527
 *	3	103 101		106 108		0.04786040808269654
 *
 *	mean d = 0.0530562584831844, sd = 0.0237009813079225 (n - 1 = 3)
 *	t = mean / (sd / 2) = 4.4771360133894
 *	p (worse: d > 0) = 1 - pt(t, 3) = 0.0103863696443845
 *	change = 100 (exp(mean) - 1) = 5.448896740049
 *	qt(0.975, 3) = 3.182446305284263
 *	interval = 100 (exp(mean -+ 3.1824463 * sd / 2) - 1)
 *		 = 1.54610118926731 .. 9.50169128569918
 *
 * Variance components, one-way ANOVA per side (4 boots of 2 trials):
 * within = SS within / 8 = 0.000188213176639439, r0 = (8 - 16/8) / 3 = 2,
 * between = (SS between / 6 - within) / 2 = 0.000379563030025615, as
 * percent 100 (exp(sqrt(v)) - 1): 1.38136191708742 and 1.96733974286678.
 *
 * The noncentral t's upper tail by mpmath's quad over the chi-square:
 * P(T'(3, 2) > 3) = 0.319972825944477, P(T'(3, 12) > 10) =
 * 0.764599376063162, P(T'(10, 1) > 2) = 0.192388437469625.  The
 * noncentrality with 95% power one-sided at 0.05 on 3 df is
 * 4.45636086120698 (findroot), so 4 pairs of sd 0.0237009813079225
 * detect 100 (exp(4.45636 * 0.0237010 / 2) - 1) = 5.42293886566002%; at
 * 0.05 / 40 it is 15.4643135962476 and sd 0.02 gives 16.7241340313589%.
 * The power at 5% (delta = log 1.05) with that sd at 0.05: n = 4 0.92104,
 * n = 5 0.98019, so 5 boots a side.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab.h"
#include "verdict.h"
#include "stats.h"
#include "tap.h"

/* A host's boots from blocks of 2 trials a side, in the abba order. */
struct fix {
	double		v[32][2];
	struct ab_boot	boots[32];
	struct ab_host	host;
};

static void
fix_blocks(struct fix *f, const double (*blocks)[2][2], size_t nb, double scale)
{
	size_t j, s, k, n = 0;
	int ba;

	memset(f, 0, sizeof(*f));
	for (j = 0; j < nb; j++) {
		ba = j % 2 == 1;
		for (k = 0; k < 2; k++) {
			/* s: the side of the k-th boot of the block */
			s = ba ? 1 - k : k;
			f->v[n][0] = blocks[j][s][0] * scale;
			f->v[n][1] = blocks[j][s][1] * scale;
			f->boots[n].side = s == 0 ? AB_A : AB_B;
			f->boots[n].boot = (unsigned)n;
			f->boots[n].block = (unsigned)j;
			f->boots[n].v = f->v[n];
			f->boots[n].n = 2;
			n++;
		}
	}
	f->host.boots = f->boots;
	f->host.nboots = n;
}

static const double ex[4][2][2] = {
	{ { 100, 102 }, { 105, 107 } },
	{ { 101, 99 }, { 108, 110 } },
	{ { 100, 98 }, { 101, 103 } },
	{ { 103, 101 }, { 106, 108 } },
};
/* d = 0.0483231, 0.0487948, 0.0487448: p 4.73376169003124e-06, change
 * 4.9822293419546%, interval 4.91467447601055 .. 5.04982770667453 */
static const double ex1[3][2][2] = {
	{ { 100, 102 }, { 105, 107 } },
	{ { 101, 99 }, { 104, 106 } },
	{ { 100, 100 }, { 106, 104 } },
};
/* d = 0.186, -0.051, 0.149, 0.005: p 0.146057863571375, change 7.50663319926559% */
static const double noisy[4][2][2] = {
	{ { 100, 100 }, { 120, 121 } },
	{ { 100, 101 }, { 95, 96 } },
	{ { 99, 100 }, { 116, 115 } },
	{ { 100, 100 }, { 100, 101 } },
};
/* an A/A row: p 0.427890617369911, interval -0.97284159123905 .. 1.11339676948068 */
static const double aa[4][2][2] = {
	{ { 100, 101 }, { 101, 100 } },
	{ { 100, 102 }, { 101, 100 } },
	{ { 101, 100 }, { 100, 100.5 } },
	{ { 100, 99 }, { 100, 101 } },
};

static const struct ab_opts opts5 = { 0.05, 5.0, AB_GATE_CHANGE, 0 };

static void
row_of(struct ab_row *r, const struct fix *f, int higher)
{
	memset(r, 0, sizeof(*r));
	r->hosts = &f->host;
	r->nhosts = 1;
	r->higher = higher;
	r->counts = 1;
}

static void
test_example(void)
{
	struct fix f;
	struct ab_row r;
	size_t bad;

	fix_blocks(&f, ex, 4, 1);
	row_of(&r, &f, 0);
	bad = ab_judge_rows(&r, 1, &opts5);
	is_int(r.j.pairs, 4, "example: 4 pairs");
	is_int(r.j.left_out, 0, "example: none left out");
	is_num(r.j.mean_d, 0.0530562584831844, 1e-13, "example: mean d");
	is_num(r.j.sd_d, 0.0237009813079225, 1e-13, "example: sd d");
	is_num(r.j.change, 5.448896740049, 1e-9, "example: change %");
	is_num(r.j.lo, 1.54610118926731, 1e-8, "example: interval low (qt(0.975, 3) = 3.1824463)");
	is_num(r.j.hi, 9.50169128569918, 1e-8, "example: interval high");
	is_num(r.j.p_worse, 0.0103863696443845, 1e-10, "example: one-sided p worse");
	is_num(r.j.p_better, 1 - 0.0103863696443845, 1e-10, "example: p better");
	is_num(r.j.q, r.j.p_worse, 1e-15, "example: one row, q = p");
	is_int(r.j.kind, AB_WORSE, "example: worse (q 0.0104, +5.45% >= 5%)");
	is_int(bad, 1, "example: the run fails");
	ok(strstr(r.j.reason, "worse by 5.45% over 4 pairs") != NULL, "example: the reason says how much");
	printf("# %s\n", r.j.reason);
	is_num(r.j.comp.var_within, 0.000188213176639439, 1e-15, "example: within variance");
	is_num(r.j.comp.var_between, 0.000379563030025615, 1e-15, "example: between variance");
	is_num(r.j.comp.within, 1.38136191708742, 1e-9, "example: within, percent");
	is_num(r.j.comp.between, 1.96733974286678, 1e-9, "example: between, percent");
	is_num(r.j.comp.trials, 2, 0, "example: r0 = 2");
	is_int(r.j.comp.clamped, 0, "example: between not clamped");
	is_num(r.j.alpha, 0.05, 0, "example: one row, alpha = fdr");
	is_num(r.j.detectable, 5.42293886566002, 1e-5, "example: detectable at 95% power");
	is_int(r.j.needed, 5, "example: 5 boots a side detect 5%");

	/* not counted: judged the same, but does not fail the run */
	r.counts = 0;
	bad = ab_judge_rows(&r, 1, &opts5);
	is_int(r.j.kind, AB_WORSE, "not counted: still worse");
	is_int(bad, 0, "not counted: the run does not fail");
}

static void
test_higher(void)
{
	struct fix f;
	struct ab_row r;
	size_t bad;

	/* the same values, higher is better: B grew, so B is better */
	fix_blocks(&f, ex, 4, 1);
	row_of(&r, &f, 1);
	bad = ab_judge_rows(&r, 1, &opts5);
	is_num(r.j.change, 5.448896740049, 1e-9, "higher: the change keeps its sign");
	is_num(r.j.worse, -5.448896740049, 1e-9, "higher: worse is -change");
	is_num(r.j.p_worse, 1 - 0.0103863696443845, 1e-10, "higher: p worse is P(T <= t)");
	is_num(r.j.p_better, 0.0103863696443845, 1e-10, "higher: p better");
	is_int(r.j.kind, AB_BETTER, "higher: better");
	is_int(bad, 0, "higher: better never fails the run");
	printf("# %s\n", r.j.reason);
}

static void
test_unpaired(void)
{
	struct fix f;
	struct ab_row r;
	static const double extra[2] = { 50, 51 };

	/* an A boot after the last block, its B never run */
	fix_blocks(&f, ex, 4, 1);
	f.boots[8].side = AB_A;
	f.boots[8].boot = 8;
	f.boots[8].block = 4;
	f.boots[8].v = extra;
	f.boots[8].n = 2;
	f.host.nboots = 9;
	row_of(&r, &f, 0);
	(void)ab_judge_rows(&r, 1, &opts5);
	is_int(r.j.pairs, 4, "unpaired: judged on the 4 complete pairs");
	is_int(r.j.left_out, 1, "unpaired: 1 boot left out");
	is_num(r.j.p_worse, 0.0103863696443845, 1e-10, "unpaired: the pairs' p");
	ok(strstr(r.j.reason, "1 boot without a partner left out") != NULL, "unpaired: said");
	printf("# %s\n", r.j.reason);

	/*
	 * One pair and three A boots without a partner: the boots needed come
	 * from the components.  Within: the 5 boots' SS over 5 df,
	 * 0.000194083194963352; between, the A side's 4 boots:
	 * (SS b / 3 - within) / 2 = 6.80291168344332e-05; a pair's sd
	 * sqrt(2 (between + within / 2)) = 0.0181697944025853, whose power
	 * at 5% (one-sided 0.05, one row) is 0.88472 with 3 pairs and
	 * 0.98816 with 4: 4 boots a side.
	 */
	fix_blocks(&f, ex, 4, 1);
	/* boots 0 and 1 are block 0 (A, B); then the A of blocks 1 to 3 */
	f.boots[2] = f.boots[3];
	f.boots[3] = f.boots[4];	/* block 2 (A B): its A */
	f.boots[4] = f.boots[7];	/* block 3 (B A): its A */
	f.host.nboots = 5;
	row_of(&r, &f, 0);
	(void)ab_judge_rows(&r, 1, &opts5);
	is_int(r.j.pairs, 1, "one pair, three A boots: 1 pair");
	is_int(r.j.left_out, 3, "one pair, three A boots: 3 left out");
	is_int(r.j.kind, AB_CANNOT, "one pair, three A boots: cannot judge");
	is_num(r.j.comp.var_within, 0.000194083194963352, 1e-15, "one pair: within");
	is_num(r.j.comp.var_between, 6.80291168344332e-05, 1e-15, "one pair: between (A side)");
	is_int(r.j.needed, 4, "one pair: boots needed from the components");
	is_str(r.j.reason, "1 complete pair of boots, 2 needed; about 4 boots a side would tell; "
	    "3 boots without a partner left out", "one pair: the reason says what would tell");

	/* only one complete pair: cannot judge */
	fix_blocks(&f, ex, 1, 1);
	row_of(&r, &f, 0);
	(void)ab_judge_rows(&r, 1, &opts5);
	is_int(r.j.kind, AB_CANNOT, "one pair: cannot judge");
	is_str(r.j.reason, "1 complete pair of boots, 2 needed", "one pair: the reason");
	ok(isnan(r.j.q), "one pair: no q");
	ok(isinf(r.j.detectable), "one pair: nothing detectable");
}

static void
test_zero_variance(void)
{
	static const double same10[3][2][2] = {
		{ { 100, 100 }, { 110, 110 } },
		{ { 100, 100 }, { 110, 110 } },
		{ { 100, 100 }, { 110, 110 } },
	};
	static const double flat[3][2][2] = {
		{ { 100, 100 }, { 100, 100 } },
		{ { 100, 100 }, { 100, 100 } },
		{ { 100, 100 }, { 100, 100 } },
	};
	struct fix f;
	struct ab_row r;

	fix_blocks(&f, same10, 3, 1);
	row_of(&r, &f, 0);
	(void)ab_judge_rows(&r, 1, &opts5);
	is_num(r.j.sd_d, 0, 0, "zero variance: sd 0");
	is_num(r.j.p_worse, 0, 0, "zero variance, +10%: p worse 0");
	is_num(r.j.lo, 10, 1e-9, "zero variance: interval is the change");
	is_num(r.j.hi, 10, 1e-9, "zero variance: both ends");
	is_int(r.j.kind, AB_WORSE, "zero variance, +10%: worse");
	is_num(r.j.detectable, 0, 0, "zero variance: any change detectable");
	is_num(r.j.comp.var_within, 0, 0, "zero variance: within 0");
	is_num(r.j.comp.var_between, 0, 0, "zero variance: between 0");

	fix_blocks(&f, flat, 3, 1);
	row_of(&r, &f, 0);
	(void)ab_judge_rows(&r, 1, &opts5);
	is_num(r.j.p_worse, 1, 0, "zero variance, no change: p 1");
	is_int(r.j.kind, AB_SAME, "zero variance, no change: same");
}

static void
test_negative_between(void)
{
	/*
	 * Boot means closer than the trials' spread predicts: A boots
	 * {90, 110} {111, 89}, B {95, 105} {104, 96}; within 0.0131857933219851,
	 * (MS between - within) / 2 = -0.00659256400878703: set to 0.
	 */
	static const double neg[2][2][2] = {
		{ { 90, 110 }, { 95, 105 } },
		{ { 111, 89 }, { 104, 96 } },
	};
	struct fix f;
	struct ab_components c;

	fix_blocks(&f, neg, 2, 1);
	ab_components(&f.host, 1, &c);
	is_num(c.var_within, 0.0131857933219851, 1e-14, "negative between: within");
	is_num(c.var_between, 0, 0, "negative between: set to 0");
	is_int(c.clamped, 1, "negative between: said so");
	is_num(c.between, 0, 0, "negative between: 0%");
}

static void
test_bh_and_gate(void)
{
	struct fix f[5];
	struct ab_row r[5];
	struct ab_opts o = opts5;
	size_t bad;

	fix_blocks(&f[0], ex, 4, 1);
	fix_blocks(&f[1], ex1, 3, 1);
	fix_blocks(&f[2], noisy, 4, 1);
	fix_blocks(&f[3], aa, 4, 1);
	fix_blocks(&f[4], aa, 1, 1);	/* one pair: out of the step */
	for (size_t i = 0; i < 5; i++)
		row_of(&r[i], &f[i], 0);
	bad = ab_judge_rows(r, 5, &o);
	/*
	 * p = 0.0103864, 4.73376e-06, 0.146058, 0.427891 over m = 4:
	 * q = min over j >= i of 4 / j p(j): 1.89350467601250e-05,
	 * 0.0207727392887690, 0.194743818095166, 0.427890617369911
	 */
	is_num(r[0].j.q, 0.020772739288769, 1e-10, "bh: q of the example");
	is_num(r[1].j.q, 1.8935046760125e-05, 1e-13, "bh: q of the smallest p");
	is_num(r[2].j.q, 0.194743818095166, 1e-9, "bh: q of the noisy row");
	is_num(r[3].j.q, 0.427890617369911, 1e-9, "bh: q of the A/A row");
	ok(isnan(r[4].j.q), "bh: a row that cannot be judged has no q");
	is_num(r[0].j.alpha, 0.05 / 4, 1e-15, "bh: row alpha = fdr / 4 counted");
	is_int(r[0].j.kind, AB_WORSE, "gate: significant and +5.45%: worse");
	is_int(r[1].j.kind, AB_NOISY, "gate: significant but +4.98% < 5%: not worse");
	printf("# %s\n", r[1].j.reason);
	ok(strstr(r[1].j.reason, "below the threshold 5%") != NULL, "gate: the reason says below");
	is_int(r[2].j.kind, AB_NOISY, "gate: +7.5% but q 0.19: not worse");
	printf("# %s\n", r[2].j.reason);
	ok(strstr(r[2].j.reason, "not significant") != NULL, "gate: the reason says not significant");
	is_int(r[3].j.kind, AB_SAME, "A/A row: same");
	printf("# %s\n", r[3].j.reason);
	is_int(r[4].j.kind, AB_CANNOT, "one pair: cannot judge");
	is_int(bad, 1, "one counted row worse");

	/*
	 * The rows that do not count are a family of their own: with the
	 * noisy and the A/A rows not counted, the counted step is over m = 2
	 * (q = 2 / 1 x 4.73376169003124e-06 and 2 / 2 x 0.0103863696443845)
	 * and the other over the two others (2 / 1 x 0.146057863571375 and
	 * 0.427890617369911).
	 */
	r[2].counts = r[3].counts = 0;
	bad = ab_judge_rows(r, 4, &o);
	is_num(r[1].j.q, 9.46752338006248e-06, 1e-13, "families: q of the smallest counted p over m = 2");
	is_num(r[0].j.q, 0.0103863696443845, 1e-10, "families: q of the example over m = 2");
	is_num(r[2].j.q, 0.29211572714275, 1e-9, "families: the uncounted rows' own step");
	is_num(r[3].j.q, 0.427890617369911, 1e-9, "families: ... and its last q");
	is_num(r[0].j.alpha, 0.05 / 2, 1e-15, "families: counted row alpha = fdr / 2");
	is_int(bad, 1, "families: the example still fails the run");
	r[2].counts = r[3].counts = 1;

	/* the gate at 6%: the example's +5.45% is below it */
	o.threshold = 6;
	bad = ab_judge_rows(r, 4, &o);
	is_int(r[0].j.kind, AB_NOISY, "gate 6%: the example is not worse");
	is_int(bad, 0, "gate 6%: the run passes");

	/* the interval gate: +4.98% whose interval reaches 5.05% is worse */
	o.threshold = 5;
	o.gate = AB_GATE_INTERVAL;
	bad = ab_judge_rows(r, 4, &o);
	is_int(r[1].j.kind, AB_WORSE, "interval gate: interval reaches 5%: worse");
	is_int(r[2].j.kind, AB_NOISY, "interval gate: not significant: not worse");
	is_int(bad, 2, "interval gate: two rows worse");
}

static void
test_pool(void)
{
	struct fix f1, f2;
	struct ab_host hosts[2];
	struct ab_row r;

	/* the example split over two hosts, the second at 10 times the level */
	fix_blocks(&f1, ex, 2, 1);
	fix_blocks(&f2, ex + 2, 2, 10);
	hosts[0] = f1.host;
	hosts[1] = f2.host;
	memset(&r, 0, sizeof(r));
	r.hosts = hosts;
	r.nhosts = 2;
	r.counts = 1;
	(void)ab_judge_rows(&r, 1, &opts5);
	is_int(r.j.hosts, 2, "pool: 2 hosts");
	is_int(r.j.pairs, 4, "pool: the pairs of both");
	is_num(r.j.mean_d, 0.0530562584831844, 1e-12, "pool: the host's level cancels");
	is_num(r.j.p_worse, 0.0103863696443845, 1e-9, "pool: the 4 pairs' p");
	/* per host and side: between = (SS b / 4 - within) / 2 = 0.000413400742093242 */
	is_num(r.j.comp.var_between, 0.000413400742093242, 1e-14, "pool: between per host");
	is_num(r.j.comp.var_within, 0.000188213176639439, 1e-14, "pool: within as one host");
	is_int(r.j.kind, AB_WORSE, "pool: worse");
	/* F 1.835 on 1 and 2 df (mpmath) */
	is_num(r.j.p_hosts, 0.308275595683157, 1e-9, "pool: the hosts' F test p");
}

/* Two hosts that disagree: B worse by 5% on one, better by 5% on the other. */
static void
test_pool_disagree(void)
{
	double sw[4][2][2];
	struct fix f1, f2;
	struct ab_host hosts[2], one[1];
	struct ab_row r[2];
	size_t j;

	for (j = 0; j < 4; j++) {
		memcpy(sw[j][0], ex[j][1], sizeof(sw[j][0]));
		memcpy(sw[j][1], ex[j][0], sizeof(sw[j][1]));
	}
	fix_blocks(&f1, ex, 4, 1);
	fix_blocks(&f2, (const double (*)[2][2])sw, 4, 1);
	hosts[0] = f1.host;
	hosts[1] = f2.host;
	one[0] = f1.host;
	memset(r, 0, sizeof(r));
	r[0].hosts = hosts;
	r[0].nhosts = 2;
	r[0].counts = 1;
	r[1].hosts = one;
	r[1].nhosts = 1;
	r[1].counts = 1;
	is_int(ab_judge_rows(&r[0], 1, &opts5), 0, "disagree: the pooled row fails nothing");
	/* F 40.09 on 1 and 6 df (mpmath) */
	is_num(r[0].j.p_hosts, 0.000725992058720995, 1e-9, "disagree: the hosts' F test p");
	is_int(r[0].j.by_host, 1, "disagree: tested over the hosts' means");
	is_int(r[0].j.units, 2, "disagree: ... two of them");
	is_int(r[0].j.pairs, 8, "disagree: of 8 pairs");
	is_num(r[0].j.change, 0, 1e-9, "disagree: their means cancel");
	is_int(r[0].j.kind, AB_NOISY, "disagree: noisy");
	ok(strstr(r[0].j.reason, "; the hosts differ (F test p 0.000726): judged over their "
	    "means") != NULL, "disagree: the reason says so");
	(void)ab_judge_rows(&r[1], 1, &opts5);
	ok(isnan(r[1].j.p_hosts), "one host: no F test");
	is_int(r[1].j.by_host, 0, "one host: over its pairs");
}

/*
 * Three hosts on which B is worse by different sizes (x2.5, x2.6, x2.7,
 * each block within 0.2%): the F test says they differ, and over their
 * means B is still worse.  References: mpmath at 30 digits.
 */
static const double sized[3][3][2][2] = {
	{ { { 100, 101 }, { 250.0, 252.752 } }, { { 100, 101 }, { 250.5, 253.258 } },
	  { { 100, 101 }, { 249.5, 252.247 } } },
	{ { { 100, 101 }, { 260.0, 262.863 } }, { { 100, 101 }, { 260.52, 263.388 } },
	  { { 100, 101 }, { 259.48, 262.337 } } },
	{ { { 100, 101 }, { 270.0, 272.973 } }, { { 100, 101 }, { 270.54, 273.519 } },
	  { { 100, 101 }, { 269.46, 272.427 } } },
};

static void
test_pool_sizes(void)
{
	struct fix f[3];
	struct ab_host hosts[3];
	struct ab_row r;
	size_t h;

	for (h = 0; h < 3; h++) {
		fix_blocks(&f[h], sized[h], 3, 1);
		hosts[h] = f[h].host;
	}
	memset(&r, 0, sizeof(r));
	r.hosts = hosts;
	r.nhosts = 3;
	r.counts = 1;
	is_int(ab_judge_rows(&r, 1, &opts5), 1, "sizes: the pooled row fails the run");
	/* F 1110.85 on 2 and 6 df */
	is_num(r.j.p_hosts, 1.95383007642410e-08, 1e-12, "sizes: the hosts' F test p");
	is_int(r.j.by_host, 1, "sizes: over the hosts' means");
	is_num(r.j.change, 160.001318409898, 1e-8, "sizes: the change of their mean");
	/* t 43.006 on 2 df */
	is_num(r.j.p_worse, 0.000270125547637048, 1e-10, "sizes: the one-sided p over 3 means");
	is_int(r.j.kind, AB_WORSE, "sizes: worse");
	ok(strncmp(r.j.reason, "worse by 160.00% over 3 hosts (", 31) == 0, "sizes: over 3 hosts");
}

static void
test_order(void)
{
	enum ab_side s[16], s2[16];
	unsigned blk[16];
	char buf[17];
	size_t i;
	enum ab_order o;

	ab_order_sides(AB_ORDER_ABBA, 0, 4, s, blk);
	for (i = 0; i < 8; i++)
		buf[i] = s[i] == AB_A ? 'A' : 'B';
	buf[8] = '\0';
	is_str(buf, "ABBAABBA", "order abba, 4 a side");
	is_int(blk[0] == 0 && blk[1] == 0 && blk[2] == 1 && blk[7] == 3, 1, "order: blocks by two");
	ab_order_sides(AB_ORDER_ALTERNATE, 0, 4, s, NULL);
	for (i = 0; i < 8; i++)
		buf[i] = s[i] == AB_A ? 'A' : 'B';
	is_str(buf, "ABABABAB", "order alternate");
	/* splitmix64 from seed 42, the top bit of each output (python3) */
	ab_order_sides(AB_ORDER_RANDOM, 42, 8, s, NULL);
	for (i = 0; i < 16; i++)
		buf[i] = s[i] == AB_A ? 'A' : 'B';
	buf[16] = '\0';
	is_str(buf, "BAABABABABBAABBA", "order random, seed 42");
	ab_order_sides(AB_ORDER_RANDOM, 42, 8, s2, NULL);
	ok(memcmp(s, s2, sizeof(s)) == 0, "order random: the same seed, the same order");
	ab_order_sides(AB_ORDER_RANDOM, 7, 8, s, NULL);
	for (i = 0; i < 16; i++)
		buf[i] = s[i] == AB_A ? 'A' : 'B';
	is_str(buf, "ABABBABAABABABAB", "order random, seed 7");
	ok(ab_order_parse("alternate", &o) == 0 && o == AB_ORDER_ALTERNATE, "order parse");
	ok(ab_order_parse("abab", &o) == -1, "order parse: unknown");
	is_str(ab_order_name(AB_ORDER_RANDOM), "random", "order name");
}

static void
test_power(void)
{
	/* the t quantiles the examples use (R: qt(0.975, 3), qt(0.95, 3), qt(1 - 0.05/40, 3)) */
	is_num(stats_t_quantile(0.975, 3), 3.182446305284263, 1e-9, "qt(0.975, 3)");
	is_num(stats_t_quantile(0.95, 3), 2.353363434801823, 1e-9, "qt(0.95, 3)");
	is_num(stats_t_quantile(1 - 0.05 / 40, 3), 9.4648996635364, 1e-7, "qt(0.99875, 3)");
	is_num(ab_nct_sf(3, 3, 2), 0.319972825944477, 1e-7, "nct: P(T'(3, 2) > 3)");
	is_num(ab_nct_sf(10, 3, 12), 0.764599376063162, 1e-7, "nct: P(T'(3, 12) > 10)");
	is_num(ab_nct_sf(2, 10, 1), 0.192388437469625, 1e-7, "nct: P(T'(10, 1) > 2)");
	is_num(ab_nct_sf(2.353363434801823, 3, 0), 0.05, 1e-7, "nct: central at qt(0.95, 3)");
	is_num(ab_detectable(0.02, 4, 0, 0.05 / 40, 0.95), 16.7241340313589, 1e-4,
	    "detectable: 4 pairs, alpha 0.05/40");
	ok(isinf(ab_detectable(0.02, 1, 0, 0.05, 0.95)), "detectable: 1 pair, none");
	is_int(ab_boots_needed(0.0237009813079225, 0, 5, 0.05, 0.95), 5, "needed: 5 at 5%");
	is_int(ab_boots_needed(0.5, 0, 1, 0.05 / 40, 0.95), AB_PLAN_CAP + 1, "needed: more than the cap");
	is_int(ab_boots_needed(NAN, 0, 5, 0.05, 0.95), 0, "needed: unknown sd");
}

static void
test_kj(void)
{
	/* sqrt(60 / 5 * 0.25 / 1) = sqrt(3) = 1.73: 2 trials a boot */
	is_int(ab_kj_trials(60, 5, 0.25, 1), 2, "kj: sqrt(3) up to 2");
	/* sqrt(300 / 1 * 1 / 1) = 17.32: 18 */
	is_int(ab_kj_trials(300, 1, 1, 1), 18, "kj: sqrt(300) up to 18");
	/* sqrt(1 / 100 * 1 / 4) = 0.05: at least 1 */
	is_int(ab_kj_trials(1, 100, 1, 4), 1, "kj: at least 1");
	is_int(ab_kj_trials(60, 5, 0.25, 0), 0, "kj: boots that do not vary: no optimum");
	is_int(ab_kj_trials(60, 0, 0.25, 1), 0, "kj: a trial that costs nothing");
}

static void
test_bad_value(void)
{
	static const double zero[2][2][2] = {
		{ { 100, 0 }, { 105, 107 } },
		{ { 101, 99 }, { 108, 110 } },
	};
	struct fix f;
	struct ab_row r;

	fix_blocks(&f, zero, 2, 1);
	row_of(&r, &f, 0);
	is_int(ab_judge_rows(&r, 1, &opts5), 0, "a value of 0: no failure");
	is_int(r.j.kind, AB_CANNOT, "a value of 0: cannot judge");
	is_str(r.j.reason, "a value is not positive: no log scale", "a value of 0: the reason");
	is_str(ab_kind_name(AB_CANNOT), "cannot judge", "kind name");
}

/*
 * The variances moderated: eight rows of one example (the same pairs'
 * sd, so the prior's df0 is its cap, 50) tested on 50 + 3 df; a ninth
 * row far noisier keeps its own; seven rows are too few for a prior.
 */
static void
test_moderate(void)
{
	static struct fix f[9];
	struct ab_row r[9];
	struct ab_opts o = opts5;
	struct ab_opts d;
	double own_p, own_w, own_det;
	size_t i;

	o.moderate = 1;
	for (i = 0; i < 9; i++) {
		fix_blocks(&f[i], i < 8 ? ex : noisy, 4, 1 + (double)i);
		row_of(&r[i], &f[i], 0);
	}
	(void)ab_judge_rows(r, 8, &opts5);
	own_p = r[0].j.p_worse;
	own_w = r[0].j.hi - r[0].j.lo;
	own_det = r[0].j.detectable;
	(void)ab_judge_rows(r, 8, &o);
	ok(r[0].j.moderated && r[7].j.moderated, "moderate: eight like rows, each moderated");
	is_num(r[0].j.prior_df, VERDICT_PRIOR_MAX_DF, 1e-12, "moderate: their prior's df0 is the cap");
	is_num(r[3].j.df, VERDICT_PRIOR_MAX_DF + 3, 1e-12, "moderate: tested on df0 + 3 df");
	ok(r[0].j.p_worse < own_p / 10, "moderate: p much smaller than on 3 df");
	/* s0^2 = s^2 exp(log 1.5 - digamma(1.5) + digamma(25) - log 25), 1.418 s^2;
	 * the posterior (50 s0^2 + 3 s^2) / 53, 1.396 s^2: t(0.975, 53) 2.006 x
	 * 1.1815 against t(0.975, 3) 3.182 */
	is_num((r[0].j.hi - r[0].j.lo) / own_w, 0.745, 2e-3, "moderate: the interval 0.745 as wide");
	is_num(r[0].j.sd_mod / r[0].j.sd_d, 1.1815, 1e-3, "moderate: the sd the test used");
	is_num(r[0].j.change, 5.448896740049, 1e-9, "moderate: the change itself unchanged");
	/* (t(1 - 0.05 / 8, 53) + t(0.95, 53)) 0.0280 / 2 = 0.0596: 6.14%, the
	 * approximation a little under the noncentral t's; own 11.3% on 3 df */
	is_num(r[0].j.detectable, 6.15, 0.05, "moderate: the detectable change on df0 + 3 df");
	ok(own_det > 11 && own_det < 11.5, "moderate: ... against 11.3% on the row's own 3 df");

	(void)ab_judge_rows(r, 9, &o);
	ok(!r[8].j.moderated && r[8].j.prior_df == 0, "moderate: a far noisier row keeps its own");
	is_num(r[8].j.df, 3, 1e-12, "moderate: ... on its 3 df");
	ok(r[0].j.moderated && r[0].j.df > 3 && r[0].j.df < VERDICT_PRIOR_MAX_DF + 3,
	    "moderate: the others moderated, df0 below the cap now");

	(void)ab_judge_rows(r, VERDICT_PRIOR_MIN_SERIES - 1, &o);
	ok(!r[0].j.moderated && !r[6].j.moderated, "moderate: too few rows, no prior");
	is_num(r[0].j.p_worse, own_p, 1e-15, "moderate: ... the row's own test");

	ab_opts_default(&d, 0.05, 5);
	ok(d.gate == AB_GATE_INTERVAL && d.moderate && d.fdr == 0.05 && d.threshold == 5,
	    "ab's rule: the interval gate, moderated");
}

int
main(void)
{
	test_example();
	test_higher();
	test_unpaired();
	test_zero_variance();
	test_negative_between();
	test_bh_and_gate();
	test_pool();
	test_pool_disagree();
	test_pool_sizes();
	test_order();
	test_power();
	test_kj();
	test_bad_value();
	test_moderate();
	return tap_done();
}
