/*
 * boots-sim.c: the paired boot verdict (include/ab.h, `fleetmark ab`)
 * against today's same-night rule on simulated kernels, for
 * docs/performance.md ("Boots as the unit: the simulation").  Built and
 * run by tests/bench/boots-sim.sh:
 *
 *	cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -o /tmp/boots-sim \
 *	    tests/bench/boots-sim.c OBJECTS $(make -s print-CTL_LIBS)
 *	/tmp/boots-sim [--quick] [--runs N] [--seed S]
 *
 * OBJECTS: build/src's objects of the sources `make -s print-CTL_SRCS`
 * lists, but main.o (not every object under build/src: a build tree
 * may hold objects of files that have since moved).
 *
 * The model, on the log scale, for row r (one host's metric and point)
 * in the boot at slot t of the host's sequence, trial k:
 *
 *	log y = mu_r + change + night(t) + boot(r, t) + e(r, t, k)
 *
 *  - night(t): the machine's state, shared by every row of the boot: an
 *    AR(1) with coefficient 0.5 from one boot slot to the next, carried
 *    from run to run (one run a night), marginal sd NIGHT_SD;
 *  - boot(r, t): each row's own boot effect, sd BOOT_SD, independent
 *    (the "mixed rows" models: row r's sd from BOOT_SD / 4 to BOOT_SD x 4,
 *    log-uniform over the rows, so that the rows' noise is unlike);
 *  - e: the trials, Gaussian, sd TRIAL_SD, TRIALS a boot.
 *
 * The night's innovations and the boot effects are Gaussian, Student t5
 * or t3, scaled to the sd (t_nu times sqrt((nu - 2) / nu)): one table
 * line each.  ROWS rows a run, half of them higher-is-better.  A change
 * makes side B worse on one row, the run's row (run number mod ROWS):
 * times 1 + c for a lower-is-better row, 1 - c for a higher-is-better
 * one (worse by c either way in ab.h's terms).
 *
 *  - ab: PER_SIDE boots a side in the abba order (blocks AB, BA, ...),
 *    judged by ab_judge_rows() at fdr 0.05 and threshold 5% by ab's rule
 *    (ab_opts_default(): the rows' variances moderated, the gate on the
 *    interval's worse end); a change is found when its row is AB_WORSE,
 *    an A/A run is false when any row is.
 *  - same night: today's `compare` of one boot a side, A's then B's, on
 *    the same night: verdict_judge() (Welch on the trials, p < 0.05 and
 *    the interval's far end at the threshold), the noisy rule
 *    (verdict_noisy()), Benjamini-Hochberg over the rows
 *    (verdict_adjust()) at the same fdr and threshold.
 *
 * Then what it takes (variants of ab: each row on its own variance or
 * moderated; the gate on the estimate, on the interval or none, the test
 * alone; 3, 4 and 8 boots a side; a class of 4 hosts pooled), and
 * whether qualify's prediction holds, for the moderated test and the
 * row's own: the detectable change a 4-boot A/A run predicts (the median
 * over rows and runs of ab_judgement.detectable, one-sided at 0.05 / 40)
 * against the change that the row's one-sided p reaches 0.05 / 40 for in
 * 95% of runs (found by halving on the change, the same draws at each
 * size).
 * Seeded: the same seed prints the same table.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ab.h"
#include "stats.h"
#include "verdict.h"

#define ROWS		40
#define TRIALS		3
#define BOOT_SD		0.01
#define TRIAL_SD	0.005
#define NIGHT_SD	0.005
#define NIGHT_RHO	0.5
#define FDR		0.05
#define THRESHOLD	5.0
#define MAX_SIDE	16
#define MAX_HOSTS	4

static uint64_t rng;

static uint64_t
next64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double
unif(void)
{
	return ((double)(next64() >> 11) + 0.5) / 9007199254740992.0;
}

static double
gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

/* A draw of unit variance: Gaussian (nu 0) or Student t on nu df. */
static double
draw(int nu)
{
	double chi = 0, z;
	int i;

	if (nu == 0)
		return gauss();
	z = gauss();
	for (i = 0; i < nu; i++) {
		double g = gauss();

		chi += g * g;
	}
	return z / sqrt(chi / nu) * sqrt((nu - 2.0) / nu);
}

struct model {
	const char	*name;
	int		 nu;
	double		 spread;	/* > 1: the rows' boot sds from BOOT_SD / spread
					 * to BOOT_SD * spread (log-uniform by row) */
};

static const struct model models[] = {
	{ "Gaussian", 0, 1 },
	{ "Student t5", 5, 1 },
	{ "Student t3", 3, 1 },
	{ "Gaussian, mixed rows", 0, 4 },
	{ "Student t3, mixed rows", 3, 4 },
};

/* The model being measured's spread (struct model). */
static double spread = 1;

/* Row r's boot sd. */
static double
boot_sd(size_t r)
{
	return BOOT_SD * exp(log(spread) * (2.0 * (double)r / (ROWS - 1) - 1));
}

/* A host's machine state, carried over from run to run. */
static double night[MAX_HOSTS];

static double
night_next(size_t h, int nu)
{
	night[h] = NIGHT_RHO * night[h] + sqrt(1 - NIGHT_RHO * NIGHT_RHO) * NIGHT_SD * draw(nu);
	return night[h];
}

static double
level(size_t r)
{
	return log(1000.0 * (double)(r + 1));
}

/* The factor that makes row r's side B worse by c (a fraction). */
static double
worse_factor(size_t r, double c)
{
	return r % 2 ? 1 - c : 1 + c;
}

struct design {
	const char	*name;
	size_t		 per_side;
	size_t		 hosts;		/* > 1: the rows pooled over them */
	enum ab_gate	 gate;
	double		 threshold;	/* percent; 0: no gate, the test alone */
	int		 moderate;	/* the rows' variances moderated (ab_opts) */
};

/* Values of one run, every host, row, slot, trial. */
static double vals[MAX_HOSTS][ROWS][2 * MAX_SIDE][TRIALS];
static struct ab_boot boots[ROWS][MAX_HOSTS][2 * MAX_SIDE];
static struct ab_host hostv[ROWS][MAX_HOSTS];
static struct ab_row rows[ROWS];

/*
 * One ab run: changed the row made worse by c (ROWS: none).  Returns the
 * number of counted rows worse; *found whether the changed row is.
 * detect, when not NULL, gets every row's detectable change.
 */
static size_t
ab_run(const struct design *d, int nu, size_t changed, double c, int *found,
    double *detect)
{
	enum ab_side sides[2 * MAX_SIDE];
	unsigned block[2 * MAX_SIDE];
	struct ab_opts o = { FDR, d->threshold, d->gate, d->moderate };
	size_t h, r, t, k, nslot = 2 * d->per_side, bad;
	double nt[2 * MAX_SIDE], b, f;

	ab_order_sides(AB_ORDER_ABBA, 0, d->per_side, sides, block);
	for (h = 0; h < d->hosts; h++) {
		for (t = 0; t < nslot; t++)
			nt[t] = night_next(h, nu);
		for (r = 0; r < ROWS; r++) {
			for (t = 0; t < nslot; t++) {
				b = boot_sd(r) * draw(nu);
				f = sides[t] == AB_B && r == changed ? log(worse_factor(r, c)) : 0;
				for (k = 0; k < TRIALS; k++)
					vals[h][r][t][k] = exp(level(r) + f + nt[t] + b +
					    TRIAL_SD * gauss());
				boots[r][h][t].side = sides[t];
				boots[r][h][t].boot = (unsigned)t;
				boots[r][h][t].block = block[t];
				boots[r][h][t].v = vals[h][r][t];
				boots[r][h][t].n = TRIALS;
			}
			hostv[r][h].boots = boots[r][h];
			hostv[r][h].nboots = nslot;
		}
	}
	for (r = 0; r < ROWS; r++) {
		memset(&rows[r], 0, sizeof(rows[r]));
		rows[r].hosts = hostv[r];
		rows[r].nhosts = d->hosts;
		rows[r].higher = r % 2;
		rows[r].counts = 1;
	}
	bad = ab_judge_rows(rows, ROWS, &o);
	*found = changed < ROWS && rows[changed].j.kind == AB_WORSE;
	if (detect != NULL)
		for (r = 0; r < ROWS; r++)
			detect[r] = rows[r].j.detectable;
	return bad;
}

/* One run of today's rule: one boot a side on one night, A's then B's. */
static size_t
today_run(int nu, size_t changed, double c, int *found)
{
	struct verdict_row vr[ROWS];
	double a[TRIALS], bv[TRIALS], na, nb, ba, bb, f;
	size_t r, k, bad = 0;

	na = night_next(0, nu);
	nb = night_next(0, nu);
	for (r = 0; r < ROWS; r++) {
		ba = boot_sd(r) * draw(nu);
		bb = boot_sd(r) * draw(nu);
		f = r == changed ? log(worse_factor(r, c)) : 0;
		for (k = 0; k < TRIALS; k++) {
			a[k] = exp(level(r) + na + ba + TRIAL_SD * gauss());
			bv[k] = exp(level(r) + f + nb + bb + TRIAL_SD * gauss());
		}
		memset(&vr[r], 0, sizeof(vr[r]));
		verdict_judge(bv, TRIALS, a, TRIALS, 0, r % 2, THRESHOLD, &vr[r].v);
		vr[r].judgeable = !verdict_noisy(verdict_rsd(a, TRIALS), TRIALS, THRESHOLD) &&
		    !verdict_noisy(verdict_rsd(bv, TRIALS), TRIALS, THRESHOLD);
	}
	(void)verdict_adjust(vr, ROWS, FDR);
	for (r = 0; r < ROWS; r++)
		bad += vr[r].held && vr[r].v.kind == VERDICT_BAD;
	*found = changed < ROWS && vr[changed].held && vr[changed].v.kind == VERDICT_BAD;
	return bad;
}

struct rates {
	double	found;		/* of runs with a 5% change */
	double	false_runs;	/* of A/A runs with a row worse */
};

static struct rates
measure(const struct design *d, int nu, size_t runs, uint64_t seed)
{
	struct rates out = { 0, 0 };
	size_t i;
	int f;

	rng = seed;
	memset(night, 0, sizeof(night));
	for (i = 0; i < runs; i++) {
		if (d == NULL) {
			(void)today_run(nu, i % ROWS, 0.05, &f);
			out.found += f;
			out.false_runs += today_run(nu, ROWS, 0, &f) > 0;
		} else {
			(void)ab_run(d, nu, i % ROWS, 0.05, &f, NULL);
			out.found += f;
			out.false_runs += ab_run(d, nu, ROWS, 0, &f, NULL) > 0;
		}
	}
	out.found /= (double)runs;
	out.false_runs /= (double)runs;
	return out;
}

static void
cell(char *buf, size_t size, double found, double falses)
{
	snprintf(buf, size, "%.1f%% | %.2f (%.1f)", 100 * found, 20 * falses, 100 * falses);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static const struct design d4 = { "ab", 4, 1, AB_GATE_CHANGE, THRESHOLD, 0 };
static const struct design d4m = { "ab", 4, 1, AB_GATE_CHANGE, THRESHOLD, 1 };

/* Of runs paired runs of d with a change c in one row, the share whose p <= alpha. */
static double
p_rate(const struct design *d, int nu, double c, double alpha, size_t runs, uint64_t seed)
{
	size_t i, hits = 0;
	int f;

	rng = seed;
	memset(night, 0, sizeof(night));
	for (i = 0; i < runs; i++) {
		(void)ab_run(d, nu, i % ROWS, c, &f, NULL);
		hits += rows[i % ROWS].j.p_worse <= alpha;
	}
	return (double)hits / (double)runs;
}

/* The change whose p reaches alpha in 95% of runs of d: halving, the same draws. */
static double
point95(const struct design *d, int nu, double alpha, size_t runs, uint64_t seed)
{
	double lo = 0, hi = 0.5, mid;
	int step;

	for (step = 0; step < 14; step++) {
		mid = (lo + hi) / 2;
		if (p_rate(d, nu, mid, alpha, runs, seed) >= AB_POWER)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * qualify's prediction for design d: the median detectable change of the
 * rows of A/A runs against the change the row's p reaches alpha for in
 * 95% of runs.
 */
static void
prediction(const struct design *d, int nu, size_t runs, uint64_t seed, const char *name)
{
	double *det = calloc(runs * ROWS, sizeof(*det)), pred, hi, at_pred, model, sd;
	double alpha = FDR / ROWS;
	char mbuf[32], nbuf[32];
	size_t i;
	int f;

	if (det == NULL)
		exit(1);
	rng = seed;
	memset(night, 0, sizeof(night));
	for (i = 0; i < runs; i++)
		(void)ab_run(d, nu, ROWS, 0, &f, det + i * ROWS);
	qsort(det, runs * ROWS, sizeof(*det), cmp_double);
	pred = det[runs * ROWS / 2];
	free(det);
	/* the sd of a pair's difference by the model: two boots, their trials, the drift */
	sd = sqrt(2 * (BOOT_SD * BOOT_SD + TRIAL_SD * TRIAL_SD / TRIALS) +
	    2 * (1 - NIGHT_RHO) * NIGHT_SD * NIGHT_SD);
	model = ab_detectable(sd, 4, d->moderate ? AB_DF0_MAX : 0, alpha, AB_POWER);
	snprintf(mbuf, sizeof(mbuf), "%.1f%%", model);
	snprintf(nbuf, sizeof(nbuf), "%zu", ab_boots_needed(sd, d->moderate ? AB_DF0_MAX : 0,
	    THRESHOLD, alpha, AB_POWER));
	at_pred = p_rate(d, nu, pred / 100, alpha, runs, seed + 1);
	hi = point95(d, nu, alpha, runs, seed + 1);
	printf("| %s | %s | %.1f%% | %s | %.1f%% | %.1f%% | %+.0f%% | %s |\n", name,
	    d->moderate ? "moderated" : "own variance", pred, mbuf, 100 * at_pred, 100 * hi,
	    100 * (pred / (100 * hi) - 1), nbuf);
}

int
main(int argc, char **argv)
{
	static const struct design variants[] = {
		{ "ab, 4 boots a side, own variance, estimate gate (the rule before)", 4, 1,
		    AB_GATE_CHANGE, THRESHOLD, 0 },
		{ "ab, 4 boots a side, own variance, interval gate", 4, 1, AB_GATE_INTERVAL,
		    THRESHOLD, 0 },
		{ "ab, 4 boots a side, own variance, no gate (the test alone)", 4, 1,
		    AB_GATE_CHANGE, 0, 0 },
		{ "ab, 4 boots a side, moderated, estimate gate", 4, 1, AB_GATE_CHANGE,
		    THRESHOLD, 1 },
		{ "ab, 4 boots a side, moderated, no gate", 4, 1, AB_GATE_CHANGE, 0, 1 },
		{ "ab, 3 boots a side, moderated, interval gate", 3, 1, AB_GATE_INTERVAL,
		    THRESHOLD, 1 },
		{ "ab, 8 boots a side, own variance, estimate gate", 8, 1, AB_GATE_CHANGE,
		    THRESHOLD, 0 },
		{ "ab, 8 boots a side, own variance, interval gate", 8, 1, AB_GATE_INTERVAL,
		    THRESHOLD, 0 },
		{ "ab, 8 boots a side, moderated, interval gate", 8, 1, AB_GATE_INTERVAL,
		    THRESHOLD, 1 },
		{ "ab, class of 4 hosts pooled, 4 boots each, moderated, interval gate", 4, 4,
		    AB_GATE_INTERVAL, THRESHOLD, 1 },
		{ "ab, class of 4 pooled, own variance, estimate gate", 4, 4, AB_GATE_CHANGE,
		    THRESHOLD, 0 },
	};
	/* ab's default (ab_opts_default(), ab.h) */
	static const struct design ab4 = { "ab", 4, 1, AB_GATE_INTERVAL, THRESHOLD, 1 };
	size_t runs = 2000, m, v, pruns;
	uint64_t seed = 20261207;
	struct rates a, t;
	char ca[64], ct[64];
	int i, quick = 0;
	clock_t c0 = clock();

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: boots-sim [--quick] [--runs N] [--seed S]\n");
			return 2;
		}
	}
	if (quick)
		runs = 200;
	if (runs == 0)
		runs = 1;
	pruns = quick ? 200 : runs;
	printf("%zu rows, boot sd %g%%, trial sd %g%%, %d trials a boot, night sd %g%% "
	    "(AR %.1f from boot to boot); fdr %g, threshold %g%%; %zu runs a cell, seed %llu\n\n",
	    (size_t)ROWS, 100 * BOOT_SD, 100 * TRIAL_SD, TRIALS, 100 * NIGHT_SD, NIGHT_RHO, FDR,
	    THRESHOLD, runs, (unsigned long long)seed);
	printf("| boot and night effects | ab, 4 boots a side: 5%% found | A/A false runs per 20 (per 100) "
	    "| same night, 1 boot a side: 5%% found | A/A false runs per 20 (per 100) |\n");
	printf("|---|---|---|---|---|\n");
	for (m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		spread = models[m].spread;
		a = measure(&ab4, models[m].nu, runs, seed + m);
		t = measure(NULL, models[m].nu, runs, seed + m);
		cell(ca, sizeof(ca), a.found, a.false_runs);
		cell(ct, sizeof(ct), t.found, t.false_runs);
		printf("| %s | %s | %s |\n", models[m].name, ca, ct);
	}
	printf("\nWhat it takes: ab's variants, the same draws (half the runs for 8 boots and 4 hosts)\n\n");
	printf("| design |");
	for (m = 0; m < sizeof(models) / sizeof(models[0]); m++)
		printf(" %s: 5%% found | A/A false per 20 (per 100) |", models[m].name);
	printf("\n|---|");
	for (m = 0; m < sizeof(models) / sizeof(models[0]); m++)
		printf("---|---|");
	printf("\n");
	for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		printf("| %s |", variants[v].name);
		for (m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
			spread = models[m].spread;
			a = measure(&variants[v], models[m].nu,
			    variants[v].hosts > 1 || variants[v].per_side > 4 ? runs / 2 : runs,
			    seed + m);
			cell(ca, sizeof(ca), a.found, a.false_runs);
			printf(" %s |", ca);
		}
		printf("\n");
		fflush(stdout);
	}
	printf("\nqualify's prediction, 4 boots a side, one-sided at 0.05 / %d = %g, %zu runs:\n\n",
	    ROWS, FDR / ROWS, pruns);
	printf("| boot and night effects | the test | predicted (median of A/A rows) "
	    "| by the model's sd | p <= alpha at the predicted size | empirical 95%% point "
	    "| predicted against it | boots a side for 5%% (model's sd) |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	spread = 1;
	for (m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		if (models[m].spread != 1)
			continue;
		prediction(&d4m, models[m].nu, pruns, seed + 100 + m, models[m].name);
		prediction(&d4, models[m].nu, pruns, seed + 100 + m, models[m].name);
	}
	fprintf(stderr, "boots-sim: %.1f s of CPU\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
	return 0;
}
