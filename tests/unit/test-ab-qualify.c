/*
 * test-ab-qualify: what an A/A run says a row can see (src/ab/aa.c,
 * ab_qualify_row()), on components chosen so that the pair sd is one
 * test-ab-judge's examples know the answers for (from python3 with
 * mpmath 1.3, see there):
 *
 *  - between 0.0001, within 0.0002, 2 trials a boot: sd_d^2 = 2 (0.0001
 *    + 0.0002 / 2) = 0.0004, sd_d 0.02: 4 pairs at 0.05 / 40 detect
 *    16.7241340313589%;
 *  - between 0.0237009813079225^2 / 2, one trial a boot (within NAN):
 *    sd_d 0.0237009813079225, 5 pairs detect 5% at 0.05;
 *  - Kalibera & Jones for a boot of 300 s, a trial of 3 s, within 0.0004,
 *    between 0.0001: ceil(sqrt(100 * 4)) = 20 trials a boot, the pair sd
 *    then sqrt(2 (0.0001 + 0.0004 / 20)) = sqrt(0.00024).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab.h"
#include "tap.h"

static struct ab_components
comp(double vw, double vb)
{
	struct ab_components c;

	memset(&c, 0, sizeof(c));
	c.var_within = vw;
	c.var_between = vb;
	return c;
}

static void
test_pair_sd(void)
{
	struct ab_components c = comp(0.0002, 0.0001);
	struct ab_qual q;

	ab_qualify_row(&c, 2, 4, 0.05 / 40, 0, 5, 0, 0, &q);
	is_num(q.sd_d, 0.02, 1e-12, "pair sd: 2 (between + within / trials)");
	is_num(q.detectable, 16.7241340313589, 1e-4, "detectable: 4 pairs at 0.05 / 40");
	ok(q.needed > 4, "needed: more than 4 boots a side for 5%");
	is_int(q.kj, 0, "no costs: no Kalibera & Jones count");
	is_int(q.needed_kj, 0, "and no boots at it");

	c = comp(NAN, 0.0237009813079225 * 0.0237009813079225 / 2);
	ab_qualify_row(&c, 1, 5, 0.05, 0, 5, 0, 0, &q);
	is_num(q.sd_d, 0.0237009813079225, 1e-12, "one trial a boot: the between term alone");
	is_int(q.needed, 5, "needed: 5 boots a side for 5% at 0.05");
	ok(q.detectable <= 5 && q.detectable > 4, "5 pairs detect 5% (just)");
}

static void
test_kj(void)
{
	struct ab_components c = comp(0.0004, 0.0001);
	struct ab_qual q;

	ab_qualify_row(&c, 2, 3, 0.05, 0, 5, 300, 3, &q);
	is_num(q.sd_d, sqrt(0.0006), 1e-12, "pair sd at 2 trials a boot");
	is_int(q.kj, 20, "kj: ceil(sqrt(300 / 3 * 0.0004 / 0.0001)) = 20");
	is_int(q.needed_kj, ab_boots_needed(sqrt(0.00024), 0, 5, 0.05, AB_POWER),
	    "boots at kj trials a boot: the pair sd at 20 trials");
	ok(q.needed_kj > 0 && q.needed_kj < q.needed, "more trials a boot: fewer boots");

	/* boots that do not vary: no optimum, the pair sd from the trials */
	c = comp(0.0004, 0);
	ab_qualify_row(&c, 4, 3, 0.05, 0, 5, 300, 3, &q);
	is_num(q.sd_d, sqrt(2 * 0.0004 / 4), 1e-12, "between 0: the within term alone");
	is_int(q.kj, 0, "between 0: no Kalibera & Jones optimum");
	is_int(q.needed_kj, 0, "and no boots at it");
}

static void
test_unknown(void)
{
	struct ab_components c = comp(0.0004, NAN);
	struct ab_qual q;

	ab_qualify_row(&c, 3, 3, 0.05, 0, 5, 300, 3, &q);
	ok(isnan(q.sd_d), "no between estimate: no pair sd");
	ok(isinf(q.detectable), "nothing detectable can be told");
	is_int(q.needed, 0, "no boots needed told");
	is_int(q.kj, 0, "no kj");

	c = comp(0.0004, 0.0001);
	ab_qualify_row(&c, 0, 3, 0.05, 0, 5, 300, 3, &q);
	ok(isnan(q.sd_d), "no trials a boot: no pair sd");
}

/* A night against the nights before it (references: mpmath, the noncentral
 * t by quadrature over the chi-square, 30 digits). */
static void
test_night(void)
{
	is_num(ab_night_detectable(0.02, 7, 0.05, 0.95), 8.35174673111969, 1e-5,
	    "night: sd 2%, 7 nights before, alpha 0.05: 8.35%");
	is_num(ab_night_detectable(0.05, 3, 0.05, 0.95), 37.5008147791606, 1e-4,
	    "night: sd 5%, 3 nights: 37.5%");
	ok(isinf(ab_night_detectable(0.02, 1, 0.05, 0.95)), "night: one night before: cannot tell");
	ok(isinf(ab_night_detectable(NAN, 7, 0.05, 0.95)), "night: no sd: cannot tell");
	/* sd 1.2%: 6 nights detect 5.144%, 7 nights 4.930% (mpmath) */
	is_int(ab_nights_needed(0.012, 5, 0.05, 0.95), 7, "nights: 7 see 5% at sd 1.2%");
	/* sd 5%: tonight's own sd alone is more than 5% can get past */
	is_int(ab_nights_needed(0.05, 5, 0.05, 0.95), 0, "nights: none at sd 5%");
	is_int(ab_nights_needed(NAN, 5, 0.05, 0.95), 0, "nights: no sd: none");
}

int
main(void)
{
	test_pair_sd();
	test_kj();
	test_unknown();
	test_night();
	return tap_done();
}
