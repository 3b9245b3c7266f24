/*
 * nightly-sim.c: injected changes over real A/A nights, for
 * docs/performance.md ("The nightly verdict"): how often, and how many
 * nights late, the nightly verdict (`run --baseline history`: verdict.h's
 * verdict_nights() against the current segment, the night's
 * Benjamini-Hochberg step over every series, a confirmation round) and
 * `fleetmark history`'s change points catch a step of 3%, 5% and 10% and
 * a drift of 1% a night, and how many false change points A/A histories
 * have.  Built and run by tests/bench/verdicts.sh --inject DIR:
 *
 *	cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -o /tmp/nightly-sim \
 *	    tests/bench/nightly-sim.c $(find build/src -name '*.o' ! -name main.o) \
 *	    $(pkg-config --libs libssh yaml-0.1 libcurl jansson libcrypto libxml-2.0) \
 *	    -lpthread -lm
 *	[NIGHTLY_THRESHOLD=PCT] [NIGHTLY_RHO=R] [NIGHTLY_SCREEN=Q] \
 *	    /tmp/nightly-sim DIR [HISTORIES [FDR]]
 *
 * DIR holds the A/A nights (finished runs of one plan, as --nightly makes
 * them); every series with a value on every night is used.  A history is
 * each series' real nights in an order of its own (a seeded shuffle), one
 * series, the target, changed from night C = L / 2 on (L nights in DIR):
 * its values made worse for the metric by the step, or by 1% more each
 * night for the drift.  Then, for each night t from C on:
 *
 *  - nightly: every series' nights before t give its change points and
 *    current segment (changepoint_detect() at the threshold, at most 7
 *    nights, as history.c and nightly.c do), tonight's value is judged
 *    with verdict_nights() and verdict_judgeable() (the night's trial
 *    count), with the prior of each host's segments (verdict_prior_fit())
 *    and the trend rule, and verdict_adjust() runs over all series.  The
 *    rules side by side on the same histories, nights and confirmation
 *    draws (rules[] below): "now", the step and trend rules, the step at
 *    fdr 0.05, a confirmation that is worse at p < 0.05; "storey", the
 *    same with Storey's adaptive step; "screen", a screen at q <= SCREEN
 *    and the confirmation round's own Benjamini-Hochberg step over the
 *    screened rows at 0.05 (two stages); "window", "now" with the window
 *    rule; "win+scr", both.  The target is caught on t when it is held
 *    worse and its confirmation is worse too; the other series held and
 *    confirmed are false alarms.  The confirmation is another of the
 *    series' real nights, changed as night t is, sharing NIGHTLY_RHO of
 *    tonight's deviation from the series' centre (the logs' mean):
 *    exp(c + rho (log tonight - c) + sqrt(1 - rho^2) (log other - c)).
 *    rho 0 is a fresh night; a real round, in the same run, shares the
 *    night's machine state (rho near the intraclass correlation of a
 *    night's trial means).
 *  - history: the target's nights up to t hold a change point at C - 1 to
 *    C + 1, worse for the metric (the change-point method needs 3 nights
 *    on the new level, so t >= C + 2 at best).
 *
 * The drift is caught when either flags it within 7 nights.  False
 * change points: every series' shuffled A/A history, per 100 nights.
 * The histories are shuffles of the same L real nights, so they are not
 * independent draws; the rates are those of this machine's nights.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "history.h"
#include "stats.h"
#include "verdict.h"
#include "xmalloc.h"

#include "sim-rng.h"

#define MAX_NIGHTS	7
static double THRESHOLD = 5.0;	/* NIGHTLY_THRESHOLD in the environment */
static double FDR = 0.05;	/* the third argument; 1: no false-discovery step */
static double RHO = 0;		/* NIGHTLY_RHO: the confirmation's share of tonight's deviation */
static double SCREEN = 0.25;	/* NIGHTLY_SCREEN: the screen's level (screen rules) */

static void
shuffle(double *v, size_t n)
{
	size_t i, j;
	double t;

	for (i = n; i > 1; i--) {
		j = next() % i;
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

struct ser {
	double	*v;		/* the real nights */
	size_t	 trials;	/* a night's */
	int	 higher;
	size_t	 host;		/* index among the hosts, for the pooled variance */
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The worse factor of night t for a change of kind k from night c. */
static double
factor(int kind, double step, size_t t, size_t c, int higher)
{
	double f;

	if (t < c)
		return 1;
	f = kind == 0 ? step / 100 : 0.01 * (double)(t - c + 1);
	return higher ? 1 - f : 1 + f;
}

/* The segment of x[0..n) before tonight, as history.c and nightly.c take it. */
static size_t
segment(const double *x, size_t n, const double **seg)
{
	struct changepoint_opts o;
	struct changepoint_result cr;
	struct changepoint_segment cs;
	char *err = NULL;

	changepoint_opts_init(&o);
	o.threshold = THRESHOLD;
	if (changepoint_detect(x, n, &o, &cr, &err) != 0) {
		free(err);
		*seg = x;
		return n;
	}
	changepoint_current(x, NULL, n, &cr, MAX_NIGHTS, &cs);
	changepoint_result_release(&cr);
	*seg = x + cs.start;
	return cs.n;
}

/* Whether x[0..n) holds a change point at c - 1 .. c + 1, worse. */
static int
history_flags(const double *x, size_t n, size_t c, int higher)
{
	struct changepoint_opts o;
	struct changepoint_result cr;
	char *err = NULL;
	size_t i;
	int hit = 0;

	changepoint_opts_init(&o);
	o.threshold = THRESHOLD;
	if (changepoint_detect(x, n, &o, &cr, &err) != 0) {
		free(err);
		return 0;
	}
	for (i = 0; i < cr.n; i++)
		if (cr.v[i].index + 1 >= c && cr.v[i].index <= c + 1 &&
		    (higher ? cr.v[i].pct < 0 : cr.v[i].pct > 0))
			hit = 1;
	changepoint_result_release(&cr);
	return hit;
}

/* A row's verdict for tonight's value v (a night of `trials` trials). */
static void
judge(const double *seg, size_t k, double v, size_t trials, int higher,
    const struct verdict_prior *pr, struct verdict_row *r)
{
	double vals[64];
	size_t i, n = trials < 64 ? trials : 64;

	/* verdict_nights() uses tonight's mean; the rsd only for a noise flag
	 * that the nights' rule does not apply */
	for (i = 0; i < n; i++)
		vals[i] = v;
	memset(r, 0, sizeof(*r));
	verdict_nights(vals, n, seg, k, higher, THRESHOLD, pr, &r->v);
	r->judgeable = k >= VERDICT_MIN_NIGHTS &&
	    verdict_judgeable(&r->v, n, k, 1, 0, 0, THRESHOLD, NULL, NULL);
}

/*
 * The prior of each host (pr[0..nhosts)) from the segments seg[i], k[i]
 * of the S series, as nightly.c fits it; trend rule on, window rule as
 * given.
 */
static void
priors(const struct ser *ss, size_t S, const double *const *seg, const size_t *k,
    size_t nhosts, int window, struct verdict_prior *pr)
{
	double *s2 = xcalloc(S + 1, sizeof(double)), *df = xcalloc(S + 1, sizeof(double));
	size_t h, i, m;

	for (h = 0; h < nhosts; h++) {
		for (i = 0, m = 0; i < S; i++)
			if (ss[i].host == h && k[i] >= VERDICT_MIN_NIGHTS &&
			    verdict_log_spread(seg[i], k[i], &s2[m], &df[m]) == 0)
				m++;
		verdict_prior_fit(s2, df, m, &pr[h]);
		pr[h].trend = 1;
		pr[h].window = window;
	}
	free(s2);
	free(df);
}

/*
 * Storey's adaptive step (Storey, Taylor & Siegmund 2004, "Strong
 * control, conservative point estimation and simultaneous conservative
 * consistency of false discovery rates", J. R. Statist. Soc. B 66(1),
 * the estimate with its + 1, lambda 1/2): the rows' q (verdict_adjust()'s
 * Benjamini-Hochberg q) times pi0 = min(1, (1 + #{p > 1/2}) / (m / 2)),
 * held again at fdr.
 */
static void
storey(struct verdict_row *rows, size_t n, double fdr)
{
	size_t i, m = 0, above = 0;
	double p, pi0;

	for (i = 0; i < n; i++) {
		if (isnan(rows[i].q))
			continue;
		p = verdict_row_p(&rows[i].v);
		m++;
		above += p > 0.5;
	}
	pi0 = m > 0 ? fmin(1, (1 + (double)above) / ((double)m / 2)) : 1;
	for (i = 0; i < n; i++)
		if (!isnan(rows[i].q)) {
			rows[i].q *= pi0;
			rows[i].held = rows[i].judgeable && verdict_significant(rows[i].v.kind) &&
			    rows[i].q <= fdr;
		}
}

/*
 * The rules side by side; every one pooled, with the trend rule.  The
 * screen is a two-stage design with the false-discovery step on the
 * second stage's own data (Zehetmayer, Bauer & Posch 2005, "Two-stage
 * designs for experiments with a large number of hypotheses",
 * Bioinformatics 21(19)): the first stage only picks the rows to measure
 * again, which controls false discoveries when the second stage is
 * independent of the first (rho 0), and not when it shares its error.
 */
struct rule {
	const char	*name;
	int		 window;	/* the window rule */
	int		 screen;	/* screen at SCREEN, confirm with BH over the screened */
	int		 storey;	/* Storey's adaptive step */
};

static const struct rule rules[] = {
	{ "now", 0, 0, 0 },
	{ "storey", 0, 0, 1 },
	{ "screen", 0, 1, 0 },
	{ "window", 1, 0, 0 },
	{ "win+scr", 1, 1, 0 },
};
#define NRULES	(sizeof(rules) / sizeof(rules[0]))

int
main(int argc, char **argv)
{
	static const char *const names[] = { "step 3%", "step 5%", "step 10%", "drift 1%/night" };
	static const double steps[] = { 3, 5, 10, 0 };
	struct history_opts ho;
	struct history *h = NULL;
	struct ser *ss;
	char *err = NULL;
	size_t S = 0, L = 0, C, i, j, t, e, sim, sims = argc > 2 ? strtoul(argv[2], NULL, 10) : 200;
	double **x;
	struct verdict_row *rows, *again;
	size_t *again_of;
	double *centre;
	size_t fcp = 0, fcp_nights = 0, nhosts = 0, *hidx, *segk;
	const double **segp;
	double *conf;
	struct verdict_prior *pr;

	if (argc < 2) {
		fprintf(stderr, "usage: nightly-sim DIR [HISTORIES [FDR]]\n");
		return 2;
	}
	if (argc > 3)
		FDR = strtod(argv[3], NULL);
	if (getenv("NIGHTLY_THRESHOLD") != NULL)
		THRESHOLD = strtod(getenv("NIGHTLY_THRESHOLD"), NULL);
	if (getenv("NIGHTLY_RHO") != NULL)
		RHO = strtod(getenv("NIGHTLY_RHO"), NULL);
	if (getenv("NIGHTLY_SCREEN") != NULL)
		SCREEN = strtod(getenv("NIGHTLY_SCREEN"), NULL);
	history_opts_init(&ho);
	ho.cache = "";
	if (history_load(argv[1], &ho, &h, &err) != 0) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	L = h->nruns;
	ss = xcalloc(h->nseries + 1, sizeof(*ss));
	hidx = xcalloc(h->nseries + 1, sizeof(*hidx));
	for (i = 0; i < h->nseries; i++) {
		const struct history_series *hs = &h->series[i];
		int okv = hs->n == L;

		for (j = 0; j < hs->n && okv; j++)
			okv = isfinite(hs->nights[j].value) && hs->nights[j].value != 0;
		if (!okv)
			continue;
		ss[S].v = xcalloc(L, sizeof(double));
		for (j = 0; j < L; j++)
			ss[S].v[j] = hs->nights[j].value;
		ss[S].trials = hs->nights[L - 1].n;
		ss[S].higher = hs->higher;
		for (j = 0; j < S && strcmp(h->series[hidx[j]].host, hs->host) != 0; j++)
			;
		ss[S].host = j < S ? ss[j].host : nhosts++;
		hidx[S] = i;
		S++;
	}
	if (L < 12 || S == 0) {
		fprintf(stderr, "%s: %zu nights, %zu series with a value every night: too few\n",
		    argv[1], L, S);
		return 1;
	}
	C = L / 2;
	printf("injected changes: %zu histories each, %zu series of %zu A/A nights from %s, "
	    "the change from night %zu (1-based %zu), threshold %g%%, fdr %g, segments of at "
	    "most %d nights, the confirmation's rho %g, screen %g\n", sims, S, L, argv[1], C,
	    C + 1, THRESHOLD, FDR, MAX_NIGHTS, RHO, SCREEN);
	{
		/* how much the series' nights vary, for reading the rates */
		double *r = xcalloc(S, sizeof(double));
		size_t below = 0;

		for (i = 0; i < S; i++) {
			r[i] = verdict_rsd(ss[i].v, L);
			below += r[i] <= THRESHOLD;
		}
		qsort(r, S, sizeof(double), cmp_double);
		printf("night-to-night rsd of the series: median %.1f%%, quartiles %.1f%% and "
		    "%.1f%%; %zu of %zu at most the threshold\n", r[S / 2], r[S / 4], r[3 * S / 4],
		    below, S);
		free(r);
	}
	x = xcalloc(S, sizeof(*x));
	for (i = 0; i < S; i++)
		x[i] = xcalloc(L, sizeof(double));
	rows = xcalloc(S, sizeof(*rows));
	again = xcalloc(S, sizeof(*again));
	again_of = xcalloc(S, sizeof(*again_of));
	centre = xcalloc(S, sizeof(*centre));
	for (i = 0; i < S; i++) {
		for (j = 0; j < L; j++)
			centre[i] += log(ss[i].v[j]);
		centre[i] /= (double)L;
	}

	/* false change points: every series' shuffled A/A history */
	for (sim = 0; sim < sims / 10 + 1; sim++)
		for (i = 0; i < S; i++) {
			struct changepoint_opts o;
			struct changepoint_result cr;

			memcpy(x[i], ss[i].v, L * sizeof(double));
			shuffle(x[i], L);
			changepoint_opts_init(&o);
			o.threshold = THRESHOLD;
			if (changepoint_detect(x[i], L, &o, &cr, &err) == 0)
				fcp += cr.n;
			changepoint_result_release(&cr);
			fcp_nights += L;
		}

	segp = xcalloc(S, sizeof(*segp));
	segk = xcalloc(S, sizeof(*segk));
	conf = xcalloc(S, sizeof(*conf));
	pr = xcalloc(nhosts + 1, sizeof(*pr));
	printf("%-16s %-7s %9s %9s %9s %9s %10s %10s %10s %10s %9s\n", "change", "rule",
	    "night 1", "<= 3", "<= 7", "history", "h <= 3", "h <= 7", "e <= 3", "e <= 7",
	    "false/100");
	for (e = 0; e < 4; e++) {
		size_t lat_n[NRULES][64] = { { 0 } }, lat_h[64] = { 0 }, hcaught = 0;
		size_t either[NRULES] = { 0 }, either3[NRULES] = { 0 };
		size_t falarm[NRULES] = { 0 }, fnights = 0, r;

		for (sim = 0; sim < sims; sim++) {
			size_t tgt = next() % S, first[NRULES], hfirst = SIZE_MAX;

			for (r = 0; r < NRULES; r++)
				first[r] = SIZE_MAX;
			for (i = 0; i < S; i++) {
				memcpy(x[i], ss[i].v, L * sizeof(double));
				shuffle(x[i], L);
			}
			for (t = C; t < L; t++)
				x[tgt][t] *= factor(e == 3, steps[e], t, C, ss[tgt].higher);
			for (t = C; t < L; t++) {
				for (i = 0; i < S; i++) {
					double f = i == tgt ? factor(e == 3, steps[e], t, C,
					    ss[i].higher) : 1, o = ss[i].v[next() % L];

					segk[i] = segment(x[i], t, &segp[i]);
					/*
					 * The confirmation round: another real night, sharing
					 * RHO of tonight's deviation from the series' centre
					 * (on the logs), changed alike.
					 */
					conf[i] = RHO == 0 || !(o > 0 && x[i][t] > 0) ? o * f :
					    exp(centre[i] + RHO * (log(x[i][t] / f) - centre[i]) +
					    sqrt(1 - RHO * RHO) * (log(o) - centre[i])) * f;
				}
				for (r = 0; r < NRULES; r++) {
					const struct rule *ru = &rules[r];
					size_t nc = 0;
					int any = 0;

					priors(ss, S, segp, segk, nhosts, ru->window, pr);
					for (i = 0; i < S; i++)
						judge(segp[i], segk[i], x[i][t], ss[i].trials, ss[i].higher,
						    &pr[ss[i].host], &rows[i]);
					verdict_adjust(rows, S, FDR >= 1 ? 0 : ru->screen ? SCREEN : FDR);
					if (ru->storey)
						storey(rows, S, FDR >= 1 ? 2 : FDR);
					for (i = 0; i < S; i++) {
						if (!rows[i].held || rows[i].v.kind != VERDICT_BAD)
							continue;
						judge(segp[i], segk[i], conf[i], ss[i].trials, ss[i].higher,
						    &pr[ss[i].host], &again[nc]);
						again_of[nc++] = i;
					}
					/* the screen's second stage: BH over the screened rows alone */
					if (ru->screen)
						verdict_adjust(again, nc, FDR >= 1 ? 0 : FDR);
					for (j = 0; j < nc; j++) {
						if (again[j].v.kind != VERDICT_BAD ||
						    (ru->screen && !again[j].held))
							continue;
						if (again_of[j] == tgt) {
							if (first[r] == SIZE_MAX)
								first[r] = t - C;
						} else
							any = 1;
					}
					falarm[r] += any;
				}
				fnights++;
				if (hfirst == SIZE_MAX && history_flags(x[tgt], t + 1, C,
				    ss[tgt].higher))
					hfirst = t - C;
			}
			for (r = 0; r < NRULES; r++) {
				either[r] += (first[r] < 7 || hfirst < 7);
				either3[r] += (first[r] < 3 || hfirst < 3);
				if (first[r] != SIZE_MAX)
					lat_n[r][first[r] < 63 ? first[r] : 63]++;
			}
			if (hfirst != SIZE_MAX) {
				hcaught++;
				lat_h[hfirst < 63 ? hfirst : 63]++;
			}
		}
		for (r = 0; r < NRULES; r++) {
			size_t n1 = lat_n[r][0], n3 = 0, n7 = 0, h3 = 0, h7 = 0;

			for (t = 0; t < 64; t++) {
				if (t < 3) {
					n3 += lat_n[r][t];
					h3 += lat_h[t];
				}
				if (t < 7) {
					n7 += lat_n[r][t];
					h7 += lat_h[t];
				}
			}
			printf("%-16s %-7s %8.1f%% %8.1f%% %8.1f%% %8.1f%% %9.1f%% %9.1f%% %9.1f%% %9.1f%% %9.2f\n",
			    r ? "" : names[e], rules[r].name,
			    100.0 * (double)n1 / (double)sims, 100.0 * (double)n3 / (double)sims,
			    100.0 * (double)n7 / (double)sims, 100.0 * (double)hcaught / (double)sims,
			    100.0 * (double)h3 / (double)sims, 100.0 * (double)h7 / (double)sims,
			    100.0 * (double)either3[r] / (double)sims, 100.0 * (double)either[r] / (double)sims,
			    100.0 * (double)falarm[r] / (double)(fnights ? fnights : 1));
		}
	}
	printf("false change points in A/A histories: %zu in %zu series-nights = %.2f per 100 nights\n",
	    fcp, fcp_nights, 100.0 * (double)fcp / (double)fcp_nights);
	printf("columns: night 1, <= 3, <= 7: caught by the nightly verdict on the change's first "
	    "night, within 3 nights, within 7 (confirmed); history: a change point at the night "
	    "(+-1) by the last night, h <= 3 / 7: within 3 / 7 nights; e <= 3 / 7: the nightly "
	    "verdict or history within 3 / 7 nights; false/100: nights (of 100) "
	    "on which another, unchanged series was held and confirmed\n");
	for (i = 0; i < S; i++) {
		free(x[i]);
		free(ss[i].v);
	}
	free(x);
	free(ss);
	free(hidx);
	free(rows);
	free(again);
	free(again_of);
	free(centre);
	free(segp);
	free(segk);
	free(conf);
	free(pr);
	history_free(h);
	return 0;
}
