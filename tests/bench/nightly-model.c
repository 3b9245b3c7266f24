/*
 * nightly-model.c: the nightly verdict on simulated histories, for
 * docs/performance.md ("The nightly verdict on modelled nights"): the
 * rule as it was, the rule as it is, and the rule with a confirmation in
 * a fresh boot, side by side on the same draws.  Built and run by
 * tests/bench/nightly-model.sh.
 *
 * The model.  A host runs ROWS series (40), each a night's mean of
 * TRIALS (3) trials: level x exp(e + delta) x exp(trial noise), trial
 * noise Gaussian with sd TRIAL_SD (0.5%), e the night's (the boot's)
 * effect with sd NIGHT_SD (1%), independent across series, from one of
 * three models:
 *
 *	gauss	i.i.d. Gaussian
 *	t3	i.i.d. Student t on 3 df, scaled to the same sd (heavy tails:
 *		a night several times slower than the rest)
 *	ar	AR(1) with phi 0.5, stationary sd 1% (a night is like the
 *		last: a slow week)
 *
 * and delta the kernel's change (0 before night C).  A measurement
 * again "in the same boot" shares e and draws new trial noise; "in a
 * fresh boot" draws a new e (for ar: phi times the night before plus a
 * new innovation, so that what persists across nights persists across
 * the reboot too).  Every night is judged against the N nights before it
 * (--nights, default 7: regression.nights' default; no change points:
 * the histories have none before C), with the host's prior fitted from
 * the 40 baselines, at fdr 0.05, as src/nightly.c does:
 *
 *	was	two-sided tests, pooling decided on the whole segment,
 *		Benjamini-Hochberg at fdr at the screen, the confirmation in
 *		the same boot judged with the whole rule again (significance
 *		and the magnitude gate): the nightly before 2026-12-07
 *	same	one-sided towards worse, pooling decided per test, BH at
 *		fdr / 2 at the screen, the confirmation in the same boot judged
 *		with the whole rule again: the nightly now, on a host without
 *		a boot: test entry
 *	fresh	one-sided, per test, a screen at each row's own level (no
 *		BH), the confirmation in a fresh boot judged on its one-sided
 *		step test alone (no magnitude gate), BH at fdr over those
 *		measured again: the nightly now, on a host with one
 *
 * Scenarios, HISTORIES histories a cell (default 400), one series (the
 * target) changed:
 *
 *	step5	+5% from night C at threshold 5%: caught on night C
 *	step3	+3% at threshold 3%: caught on night C, C+1 or C+2 (the
 *		baseline of a later night holds the changed nights before it)
 *	drift	+1% more each night from C, threshold 5%: caught within 7
 *	aa	no change, nights C to C+9: nights failed per 100
 *	shift	+8% on every series of the host on night C, in that night's
 *		boot only (the lab's switch, a daemon): a false night if C fails
 *	new	a new plan: no change, nights 3% apart (the night effect
 *		three times the model's), night C judged against the 2 nights
 *		before it, nights per 100 failed: "was" judges each series on
 *		Welch's test of its trials against the last night's at twice
 *		the threshold; "now" with the 40 series' pooled night variance
 *		(their 2 nights each, 1 degree of freedom each)
 *
 * "Caught" is the target confirmed; a night "fails" when any series is
 * confirmed.  Seeded: the same seed prints the same table.
 *
 *	nightly-model [--histories N] [--nights N] [--seed S]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdr.h"
#include "stats.h"
#include "verdict.h"

#include "sim-rng.h"

#define ROWS		40
#define TRIALS		3
#define NIGHT_SD	0.01
#define TRIAL_SD	0.005
#define CAP_MAX		30
#define C		(CAP_MAX + 1)	/* the first judged night */
#define NIGHTS		(C + 10)
#define FDR		0.05
#define PHI		0.5

enum model { GAUSS, T3, AR, NMODELS };
enum rule { WAS, SAME, FRESH, NRULES };
enum scen { STEP5, STEP3, DRIFT, AA, SHIFT, NEWPLAN, NSCEN };

static const char *const model_name[NMODELS] = { "Gaussian", "Student t3", "AR(0.5)" };
static const char *const rule_name[NRULES] = {
	"was: two-sided, confirmed in the same boot",
	"now, no boot: test: one-sided at fdr/2, confirmed in the same boot",
	"now, boot: test: screened at its own level, confirmed in a fresh boot",
};
static int CAP = 7;		/* --nights */

static double
unif(void)
{
	return ((double)next() + 0.5) / 4294967296.0;
}

static double
gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

/* A night effect's innovation of sd NIGHT_SD (scaled for AR) from model m. */
static double
innovation(enum model m)
{
	double z, c;

	switch (m) {
	case T3:
		z = gauss();
		c = 0;
		for (int i = 0; i < 3; i++) {
			double g = gauss();

			c += g * g;
		}
		/* t3 has variance 3: scaled to 1 */
		return NIGHT_SD * z / sqrt(c / 3) / sqrt(3);
	case AR:
		return NIGHT_SD * sqrt(1 - PHI * PHI) * gauss();
	default:
		return NIGHT_SD * gauss();
	}
}

/* One history's draws, shared by the three rules. */
struct hist {
	double e[NIGHTS][ROWS];		/* the night's effect */
	double tz[NIGHTS][ROWS][TRIALS];	/* its trials' noise */
	double fe[NIGHTS][ROWS];	/* a fresh boot's effect that night */
	double az[NIGHTS][ROWS][TRIALS];	/* the confirmation's trials' noise */
	double level[ROWS];
};

static void
draw(struct hist *h, enum model m)
{
	for (int r = 0; r < ROWS; r++) {
		h->level[r] = 10 + 90 * unif();
		for (int t = 0; t < NIGHTS; t++) {
			if (m == AR)
				h->e[t][r] = t == 0 ? NIGHT_SD * gauss() :
				    PHI * h->e[t - 1][r] + innovation(m);
			else
				h->e[t][r] = innovation(m);
			h->fe[t][r] = m == AR ? (t == 0 ? NIGHT_SD * gauss() :
			    PHI * h->e[t - 1][r] + innovation(m)) : innovation(m);
			for (int i = 0; i < TRIALS; i++) {
				h->tz[t][r][i] = TRIAL_SD * gauss();
				h->az[t][r][i] = TRIAL_SD * gauss();
			}
		}
	}
}

/* How much larger the night effects are in scenario s. */
static double
night_scale(enum scen s)
{
	return s == NEWPLAN ? 3 : 1;
}

/* The target's (row 0) change on night t, as a log, for scenario s. */
static double
delta(enum scen s, int r, int t)
{
	if (t < C)
		return 0;
	switch (s) {
	case STEP5:
		return r == 0 ? log(1.05) : 0;
	case STEP3:
		return r == 0 ? log(1.03) : 0;
	case DRIFT:
		return r == 0 ? log(1 + 0.01 * (t - C + 1)) : 0;
	case SHIFT:
		return t == C ? log(1.08) : 0;	/* the boot's, not the kernel's */
	default:
		return 0;
	}
}

/* The kernel's part of delta: what a fresh boot keeps. */
static double
kernel_delta(enum scen s, int r, int t)
{
	return s == SHIFT ? 0 : delta(s, r, t);
}

static void
night_trials(const struct hist *h, enum scen s, int r, int t, double *v)
{
	for (int i = 0; i < TRIALS; i++)
		v[i] = h->level[r] * exp(night_scale(s) * h->e[t][r] + delta(s, r, t) +
		    h->tz[t][r][i]);
}

static double
night_mean(const struct hist *h, enum scen s, int r, int t)
{
	double v[TRIALS];

	night_trials(h, s, r, t, v);
	return stats_mean(v, TRIALS);
}

/*
 * Judge night t of history h under rule u; *target set when row 0 is
 * confirmed.  Returns whether the night fails.
 */
static int
judge_night(const struct hist *h, enum scen s, enum rule u, int t, double thr, int *target)
{
	static double base[ROWS][CAP_MAX], now[ROWS][TRIALS], last[ROWS][TRIALS];
	double s2[ROWS], df[ROWS], p[ROWS], again[TRIALS];
	struct verdict_row vr[ROWS];
	struct verdict_prior pr, cpr;
	unsigned char use[ROWS], screened[ROWS];
	int r, fails = 0, k = s == NEWPLAN ? 2 : CAP;
	/* the fallback: trials against the last night's, at twice the threshold */
	int fallback = k < VERDICT_MIN_NIGHTS && u == WAS;
	size_t m = 0;

	for (r = 0; r < ROWS; r++) {
		for (int i = 0; i < k; i++)
			base[r][i] = night_mean(h, s, r, t - k + i);
		night_trials(h, s, r, t, now[r]);
		night_trials(h, s, r, t - 1, last[r]);
		if (verdict_log_spread(base[r], (size_t)k, &s2[m], &df[m]) == 0)
			m++;
	}
	verdict_prior_fit(s2, df, m, &pr);
	pr.trend = pr.window = 1;
	pr.one_sided = pr.per_test = u != WAS;
	for (r = 0; r < ROWS; r++) {
		memset(&vr[r], 0, sizeof(vr[r]));
		if (fallback) {
			verdict_judge(now[r], TRIALS, last[r], TRIALS, 0, 0,
			    thr * VERDICT_FALLBACK_MARGIN, &vr[r].v);
			vr[r].judgeable = verdict_judgeable(&vr[r].v, TRIALS, TRIALS, 0,
			    stats_sd(now[r], TRIALS), stats_sd(last[r], TRIALS),
			    thr * VERDICT_FALLBACK_MARGIN, NULL, NULL);
			continue;
		}
		verdict_nights(now[r], TRIALS, base[r], (size_t)k, 0, thr, &pr, &vr[r].v);
		vr[r].judgeable = verdict_judgeable(&vr[r].v, TRIALS, k < VERDICT_MIN_NIGHTS ? 0 :
		    (size_t)k, 1, stats_sd(now[r], TRIALS), NAN, thr, NULL, NULL);
	}
	verdict_adjust(vr, ROWS, u == WAS ? FDR : FDR / 2);
	for (r = 0; r < ROWS; r++)
		screened[r] = vr[r].judgeable && vr[r].v.kind == VERDICT_BAD &&
		    ((u == FRESH && k >= VERDICT_MIN_NIGHTS) || vr[r].held);
	cpr = pr;
	cpr.trend = cpr.window = 0;
	cpr.one_sided = 1;
	for (r = 0; r < ROWS; r++) {
		struct verdict cv;
		double e;

		use[r] = 0;
		p[r] = 1;
		if (!screened[r])
			continue;
		e = u == FRESH ? night_scale(s) * h->fe[t][r] + kernel_delta(s, r, t) :
		    night_scale(s) * h->e[t][r] + delta(s, r, t);
		for (int i = 0; i < TRIALS; i++)
			again[i] = h->level[r] * exp(e + h->az[t][r][i]);
		if (fallback)
			verdict_judge(again, TRIALS, last[r], TRIALS, 0, 0,
			    thr * VERDICT_FALLBACK_MARGIN, &cv);
		else if (u != FRESH)
			verdict_nights(again, TRIALS, base[r], (size_t)k, 0, thr, &pr, &cv);
		if (u != FRESH) {
			if (cv.kind == VERDICT_BAD) {
				fails = 1;
				if (r == 0)
					*target = 1;
			}
			continue;
		}
		verdict_nights(again, TRIALS, base[r], (size_t)k, 0, thr, &cpr, &cv);
		p[r] = cv.p;
		use[r] = 1;
	}
	if (u != FRESH)
		return fails;
	fdr_bh_rows(p, use, ROWS, p);
	for (r = 0; r < ROWS; r++)
		if (use[r] && p[r] <= FDR) {
			fails = 1;
			if (r == 0)
				*target = 1;
		}
	return fails;
}

struct cell {
	long	hits, tries;
};

int
main(int argc, char **argv)
{
	static struct hist h;
	static const char *const col[NSCEN] = {
		"5% step, caught its first night", "3% step at threshold 3%, within 3 nights",
		"1% a night drift, within 7 nights", "A/A: false nights per 100",
		"+8% on every series for one boot: false nights per 100",
		"a new plan, 2 nights 3% apart: false nights per 100",
	};
	struct cell cells[NMODELS][NRULES][NSCEN];
	long histories = 400;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--histories") == 0 && i + 1 < argc)
			histories = atol(argv[++i]);
		else if (strcmp(argv[i], "--nights") == 0 && i + 1 < argc)
			CAP = atoi(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			rng = strtoull(argv[++i], NULL, 0) * 2 + 1;
		else {
			fprintf(stderr, "usage: nightly-model [--histories N] [--nights N] "
			    "[--seed S]\n");
			return 2;
		}
	}
	if (histories < 1 || CAP < VERDICT_MIN_NIGHTS || CAP > CAP_MAX) {
		fprintf(stderr, "nightly-model: --histories must be at least 1, --nights %d to "
		    "%d\n", VERDICT_MIN_NIGHTS, CAP_MAX);
		return 2;
	}
	memset(cells, 0, sizeof(cells));
	for (int mo = 0; mo < NMODELS; mo++)
		for (int sc = 0; sc < NSCEN; sc++)
			for (long k = 0; k < histories; k++) {
				draw(&h, (enum model)mo);
				for (int u = 0; u < NRULES; u++) {
					struct cell *c = &cells[mo][u][sc];
					double thr = sc == STEP3 ? 3 : 5;
					int last = sc == STEP5 || sc == SHIFT || sc == NEWPLAN ? C :
					    sc == STEP3 ? C + 2 :
					    sc == DRIFT ? C + 6 : C + 9;
					int caught = 0;

					for (int t = C; t <= last && !caught; t++) {
						int target = 0, fails;

						fails = judge_night(&h, (enum scen)sc, (enum rule)u,
						    t, thr, &target);
						if (sc == AA || sc == SHIFT || sc == NEWPLAN) {
							c->hits += fails;
							c->tries++;
						} else
							caught = target;
					}
					if (sc != AA && sc != SHIFT && sc != NEWPLAN) {
						c->hits += caught;
						c->tries++;
					}
				}
			}
	printf("%ld histories a cell; 40 series a host, night sd 1%%, trial sd 0.5%%, 3 trials "
	    "a night, %d nights of baseline, fdr 0.05\n\n", histories, CAP);
	printf("| nights | rule |");
	for (int sc = 0; sc < NSCEN; sc++)
		printf(" %s |", col[sc]);
	printf("\n|---|---|");
	for (int sc = 0; sc < NSCEN; sc++)
		printf("---:|");
	printf("\n");
	for (int mo = 0; mo < NMODELS; mo++)
		for (int u = 0; u < NRULES; u++) {
			printf("| %s | %s |", model_name[mo], rule_name[u]);
			for (int sc = 0; sc < NSCEN; sc++) {
				struct cell *c = &cells[mo][u][sc];
				double f = c->tries ? (double)c->hits / (double)c->tries : NAN;

				if (sc == AA || sc == SHIFT || sc == NEWPLAN)
					printf(" %.2f |", 100 * f);
				else
					printf(" %.1f%% |", 100 * f);
			}
			printf("\n");
		}
	return 0;
}
