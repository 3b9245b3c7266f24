/*
 * nightly.c: the nightly verdict against history (nightly.h,
 * docs/nightly.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "archive.h"
#include "fdr.h"
#include "fleet.h"
#include "fsutil.h"
#include "history.h"
#include "jsonout.h"
#include "log.h"
#include "nightly.h"
#include "numfmt.h"
#include "plan.h"
#include "rgrid.h"
#include "rundir.h"
#include "series.h"
#include "serieskey.h"
#include "stats.h"
#include "strbuf.h"
#include "strmap.h"
#include "strv.h"
#include "trialread.h"
#include "verdict.h"
#include "utf8.h"
#include "xmalloc.h"

void
nightly_opts_init(struct nightly_opts *o, const struct plan *p)
{
	memset(o, 0, sizeof(*o));
	o->plan = p->name;
	o->plan_file = p->file;
	o->threshold = p->has_regression ? p->threshold : VERDICT_THRESHOLD;
	o->nights = p->nights > 0 ? (size_t)p->nights : PLAN_DEFAULT_NIGHTS;
	o->confirm = p->confirm;
	o->fdr = p->fdr > 0 ? p->fdr : PLAN_DEFAULT_FDR;
	o->repeat = p->repeat;
	o->metrics = p->metrics;
	o->nmetrics = p->nmetrics;
}

/* --- A run directory's trial values per series ------------------------------- */

/*
 * The series of the run directory dir, each value with its repetition,
 * into a new store *out: what was read, also after an error.
 */
static int
coll_read(const char *dir, struct series_store **out, char **err)
{
	char *path = rundir_path(dir, RUNDIR_TRIALS);
	int r;

	*out = series_store_new(SERIES_VALUES);
	r = series_store_read(*out, path, TRIAL_REP | TRIAL_KEY | TRIAL_LENIENT, NULL, NULL,
	    NULL, err);
	free(path);
	return r;
}

/*
 * The values of s a night is judged with (again 0: the repetitions up to
 * the plan's repeat, every one when repeat is 0), or those of its
 * confirmation round (again 1: the ones above it), in a new array *out;
 * how many.
 */
static size_t
night_values(const struct series *s, long long repeat, int again, double **out)
{
	size_t i, n = 0;

	*out = xreallocarray(NULL, s->n + 1, sizeof(**out));
	for (i = 0; i < s->n; i++)
		if ((repeat > 0 && s->rep[i] > repeat) == again)
			(*out)[n++] = s->v[i];
	return n;
}

/* --- Judging ------------------------------------------------------------------- */

static int
counts(const struct nightly_opts *o, const char *bench, const char *metric)
{
	return plan_metric_counts(o->metrics, o->nmetrics, bench, metric);
}

/* A bisect-run --baseline REF for run id in the source. */
static char *
run_ref(const char *source, const char *id, const char *dir)
{
	if (archive_is_url(source))
		return xasprintf("%s/%s", source, id);
	return xstrdup(dir);
}

/* The values a row is judged with against its baseline; fills *d. */
static void
judge_values(const struct nightly_row *w, const double *v, size_t n, struct verdict *d)
{
	if (w->base == NIGHTLY_HISTORY || w->base == NIGHTLY_POOLED)
		verdict_nights(v, n, w->good, w->ngood, w->higher, w->threshold, &w->prior, d);
	else
		verdict_judge(v, n, w->good, w->ngood, 0, w->higher, w->threshold, d);
}

static int
cmp_rows(const void *a, const void *b)
{
	const struct nightly_row *x = a, *y = b;
	int c;

	if ((c = strcmp(x->key.bench, y->key.bench)) != 0)
		return c;
	if ((c = strverscmp(x->key.params, y->key.params)) != 0)
		return c;
	if ((c = strcmp(x->key.metric, y->key.metric)) != 0)
		return c;
	if ((c = strcmp(x->key.host, y->key.host)) != 0)
		return c;
	return strcmp(x->key.variant ? x->key.variant : "", y->key.variant ? y->key.variant : "");
}

/* The newest night's trials of each series, read once per run directory. */
struct lastnights {
	struct series_store **c;	/* by run index, read on demand */
	size_t		 n;
};

static const struct series *
last_trials(struct lastnights *ln, const struct history *h, size_t run,
    const struct series_key *key)
{
	char *err = NULL;

	if (ln->c[run] == NULL && coll_read(h->runs[run].dir, &ln->c[run], &err) != 0) {
		log_warn("%s: %s", h->runs[run].dir, err);
		free(err);
	}
	return series_store_find(ln->c[run], key);
}

/* The row of tonight's series s, against the history series hs (or NULL). */
static void
row_init(struct nightly_row *w, const struct series *s, const struct history *h,
    const struct history_series *hs, struct lastnights *ln, const struct nightly_opts *o)
{
	const struct history_segment *seg;
	const struct history_run *last;
	size_t i, k, first;

	memset(w, 0, sizeof(*w));
	series_key_dup(&w->key, &s->key);
	w->point = xstrdup(s->point);
	w->higher = s->higher;
	w->counts = counts(o, s->key.bench, s->key.metric);
	w->nnow = night_values(s, o->repeat, 0, &w->now);
	w->threshold = o->threshold;
	w->vr.q = NAN;
	w->vr.spread = NAN;
	w->cp = w->cq = NAN;
	if (hs == NULL || hs->n == 0) {
		w->base = NIGHTLY_NEW;
		w->state = NIGHTLY_UNJUDGED;
		return;
	}
	seg = &hs->segments[hs->nsegments - 1];
	k = seg->n < o->nights ? seg->n : o->nights;
	first = seg->start + seg->n - k;
	last = &h->runs[hs->nights[hs->n - 1].run];
	w->from = xstrdup(h->runs[hs->nights[first].run].id);
	w->to = xstrdup(last->id);
	w->good_ref = run_ref(h->source, last->id, last->dir);
	w->good_commit = xstrdup_null(last->commit);
	if (k >= VERDICT_MIN_NIGHTS) {
		w->base = NIGHTLY_HISTORY;
		w->good = xreallocarray(NULL, k, sizeof(*w->good));
		for (i = 0; i < k; i++)
			w->good[i] = hs->nights[first + i].value;
		w->ngood = k;
	} else {
		const struct series *lt = last_trials(ln, h, hs->nights[hs->n - 1].run, &s->key);

		w->base = NIGHTLY_FALLBACK;
		w->threshold = o->threshold * VERDICT_FALLBACK_MARGIN;
		w->nights_from = w->from;	/* for a row judged on its nights after all */
		w->from = xstrdup(last->id);
		if (lt == NULL || lt->n == 0) {
			/* its run directory is gone or unreadable: nothing to judge with */
			w->base = NIGHTLY_NEW;
			w->state = NIGHTLY_UNJUDGED;
			return;
		}
		w->good = xreallocarray(NULL, lt->n, sizeof(*w->good));
		memcpy(w->good, lt->v, lt->n * sizeof(*w->good));
		w->ngood = lt->n;
		/* its nights too, for the host's pooled variance (row_judge()) */
		w->nights = xreallocarray(NULL, k, sizeof(*w->nights));
		for (i = 0; i < k; i++)
			w->nights[i] = hs->nights[first + i].value;
		w->nnights = k;
	}
	if (w->base == NIGHTLY_HISTORY) {
		/* a night's spread, pooled over the segment's nights */
		double ss = 0;
		size_t m = 0;

		for (i = first; i < seg->start + seg->n; i++)
			if (!isnan(hs->nights[i].sd)) {
				ss += hs->nights[i].sd * hs->nights[i].sd;
				m++;
			}
		w->gsd = m > 0 ? sqrt(ss / (double)m) : NAN;
	} else
		w->gsd = stats_sd(w->good, w->ngood);
	w->state = NIGHTLY_PASS;	/* judged by row_judge() */
}

/*
 * Judge row w (set up by row_init(), w->prior set).  A fallback on a
 * host whose prior says how its nights vary is judged against its 1 or
 * 2 nights with that variance, at the threshold itself.
 */
static void
row_judge(struct nightly_row *w)
{
	if (w->state == NIGHTLY_UNJUDGED)
		return;
	if (w->base == NIGHTLY_FALLBACK && w->prior.df > 0 && w->nnights > 0) {
		free(w->good);
		w->good = w->nights;
		w->ngood = w->nnights;
		w->nights = NULL;
		w->nnights = 0;
		free(w->from);
		w->from = w->nights_from;
		w->nights_from = NULL;
		w->base = NIGHTLY_POOLED;
		w->threshold /= VERDICT_FALLBACK_MARGIN;
		w->gsd = NAN;
	}
	judge_values(w, w->now, w->nnow, &w->vr.v);
	w->vr.judgeable = verdict_judgeable(&w->vr.v, w->nnow,
	    w->base == NIGHTLY_HISTORY ? w->ngood : w->base == NIGHTLY_POOLED ? 0 :
	    w->ngood > 0 ? w->ngood : 1, w->base == NIGHTLY_HISTORY ||
	    w->base == NIGHTLY_POOLED, stats_sd(w->now, w->nnow), w->gsd, w->threshold,
	    &w->vr.needed, &w->vr.spread);
	w->state = w->vr.judgeable ? NIGHTLY_PASS : NIGHTLY_CANNOT;
}

static int
cmp_host(const void *a, const void *b)
{
	const struct nightly_row *const *x = a, *const *y = b;

	return strcmp((*x)->key.host, (*y)->key.host);
}

/*
 * The prior of each host's rows: verdict_prior_fit() over the log
 * variances of the segments of its history rows; then every row judged.
 */
static void
rows_judge(struct nightly_row *rows, size_t n)
{
	struct nightly_row **by = xcalloc(n + 1, sizeof(*by));
	double *s2 = xcalloc(n + 1, sizeof(*s2)), *df = xcalloc(n + 1, sizeof(*df));
	struct verdict_prior pr;
	size_t i, j, k, m;

	for (i = 0; i < n; i++)
		by[i] = &rows[i];
	qsort(by, n, sizeof(*by), cmp_host);
	for (i = 0; i < n; i = j) {
		for (j = i, m = 0; j < n && strcmp(by[j]->key.host, by[i]->key.host) == 0; j++)
			if ((by[j]->base == NIGHTLY_HISTORY && verdict_log_spread(by[j]->good,
			    by[j]->ngood, &s2[m], &df[m]) == 0) ||
			    (by[j]->base == NIGHTLY_FALLBACK && verdict_log_spread(by[j]->nights,
			    by[j]->nnights, &s2[m], &df[m]) == 0))
				m++;
		verdict_prior_fit(s2, df, m, &pr);
		pr.trend = 1;
		pr.window = 1;
		pr.one_sided = 1;
		pr.per_test = 1;
		for (k = i; k < j; k++) {
			by[k]->prior = pr;
			row_judge(by[k]);
		}
	}
	free(by);
	free(s2);
	free(df);
}

static void
rows_free(struct nightly_row *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct nightly_row *w = &v[i];

		series_key_release(&w->key);
		free(w->point);
		free(w->good);
		free(w->nights);
		free(w->nights_from);
		free(w->from);
		free(w->to);
		free(w->good_ref);
		free(w->good_commit);
		free(w->now);
		free(w->again);
	}
	free(v);
}

int
nightly_judge(const char *rundir, const struct nightly_opts *o, struct nightly **out,
    char **err)
{
	struct history_opts ho;
	struct history *h = NULL;
	struct rundir_run *run = NULL;
	struct nightly *n = NULL;
	struct series_store *tonight = NULL;
	struct lastnights ln = { NULL, 0 };
	struct strbuf key = STRBUF_INIT;
	struct verdict_row *vr = NULL;
	struct strmap hk = STRMAP_INIT;
	size_t i, k;
	int fam;
	int r;

	*out = NULL;
	if ((r = rundir_load(rundir, &run, err)) != 0) {
		r = -1;
		goto out;
	}
	if ((r = coll_read(rundir, &tonight, err)) != 0)
		goto out;
	history_opts_init(&ho);
	ho.plan = o->plan;
	ho.threshold = o->threshold;
	ho.cache = o->cache;
	ho.exclude = run->id;
	ho.exclude_group = run->group;	/* tonight's other controllers */
	if ((r = history_load(o->source, &ho, &h, err)) != 0) {
		if (r == HISTORY_EINPUT)
			r = NIGHTLY_ENOHISTORY;
		goto out;
	}
	n = xcalloc(1, sizeof(*n));
	n->source = archive_url_display(o->source);
	n->plan = xstrdup(o->plan);
	n->commit = xstrdup_null(run->commit);
	n->o = *o;
	n->nruns = h->nruns;
	ln.n = h->nruns;
	ln.c = xcalloc(h->nruns + 1, sizeof(*ln.c));
	/* the history's series by key */
	for (i = 0; i < h->nseries; i++) {
		series_key_text(&h->series[i].key, &key);
		strmap_put(&hk, key.buf, i);
	}
	n->rows = xcalloc(series_store_n(tonight) + 1, sizeof(*n->rows));
	for (i = 0; i < series_store_n(tonight); i++) {
		const struct series *s = series_store_at(tonight, i);

		series_key_text(&s->key, &key);
		k = strmap_get(&hk, key.buf);
		row_init(&n->rows[n->n++], s, h, k != STRMAP_NONE ? &h->series[k] : NULL, &ln,
		    o);
	}
	qsort(n->rows, n->n, sizeof(*n->rows), cmp_rows);
	rows_judge(n->rows, n->n);
	/*
	 * Two BH steps: one over the rows that can fail the night (the plan's
	 * regression.metrics), one over the others, which are reported and
	 * must not dilute the counted rows' level.
	 */
	vr = xcalloc(n->n + 1, sizeof(*vr));
	for (fam = 0; fam < 2; fam++) {
		size_t m = 0;

		for (i = 0; i < n->n; i++) {
			if (!!n->rows[i].counts != (fam == 0))
				continue;
			vr[m] = n->rows[i].vr;
			if (n->rows[i].base == NIGHTLY_NEW)
				vr[m].judgeable = 0;
			n->tested += vr[m].judgeable && vr[m].v.tested;
			if (fam == 0)
				n->tested_counted += vr[m].judgeable && vr[m].v.tested;
			m++;
		}
		/* one-sided at half the level: what the two-sided test spent on worse */
		verdict_adjust(vr, m, o->fdr / 2);
		for (i = 0, m = 0; i < n->n; i++)
			if (!!n->rows[i].counts == (fam == 0))
				n->rows[i].vr = vr[m++];
	}
	for (i = 0; i < n->n; i++) {
		struct nightly_row *w = &n->rows[i];
		const struct fleet_host *fh;

		fh = o->fleet != NULL ? fleet_find(o->fleet, w->key.host) : NULL;
		w->fresh = o->confirm > 0 && fh != NULL &&
		    fleet_boot_find(fh, NIGHTLY_BOOT_TEST) != NULL;
		if (w->state != NIGHTLY_PASS || w->vr.v.kind != VERDICT_BAD || !w->counts)
			continue;
		/* trials know nothing of how nights vary: the change itself must be that large */
		if (w->base == NIGHTLY_FALLBACK && !(w->vr.v.worse >= w->threshold))
			continue;
		/*
		 * A fresh confirmation decides: the screen is the row's own
		 * level, against a segment of nights.  Against 1 or 2 nights
		 * the round shares too much with the screen (a baseline that
		 * fell low helps a row through both): held, as in the same boot.
		 */
		if (w->fresh && w->base == NIGHTLY_HISTORY ? w->vr.judgeable && w->vr.v.tested :
		    w->vr.held)
			w->state = o->confirm > 0 ? NIGHTLY_TO_CONFIRM : NIGHTLY_FAILED;
	}
	*out = n;
	n = NULL;
	r = 0;
 out:
	strmap_release(&hk);
	for (i = 0; i < ln.n; i++)
		series_store_free(ln.c[i]);
	free(ln.c);
	free(vr);
	strbuf_release(&key);
	series_store_free(tonight);
	history_free(h);
	rundir_run_free(run);
	nightly_free(n);
	return r;
}

size_t
nightly_to_confirm(const struct nightly *n)
{
	size_t i, k = 0;

	for (i = 0; i < n->n; i++)
		k += n->rows[i].state == NIGHTLY_TO_CONFIRM;
	return k;
}

/*
 * A confirmation's one-sided p towards worse: the step test alone (the
 * row's trend and window rules judge a series of nights, and the round
 * is one more draw of tonight), two-sided Welch halved for a fallback.
 */
static double
confirm_p(const struct nightly_row *w, struct verdict *cv)
{
	struct verdict_prior pr = w->prior;

	if (w->base != NIGHTLY_HISTORY && w->base != NIGHTLY_POOLED) {
		verdict_judge(w->again, w->nagain, w->good, w->ngood, 0, w->higher, w->threshold,
		    cv);
		if (!cv->tested)
			return NAN;
		return cv->worse > 0 ? cv->p / 2 : 1 - cv->p / 2;
	}
	pr.trend = pr.window = 0;
	pr.one_sided = 1;
	verdict_nights(w->again, w->nagain, w->good, w->ngood, w->higher, w->threshold, &pr, cv);
	return cv->tested ? cv->p : NAN;
}

int
nightly_confirm(struct nightly *n, const char *rundir, char **err)
{
	struct series_store *c = NULL;
	double *p;
	unsigned char *use;
	size_t i;

	if (coll_read(rundir, &c, err) != 0) {
		series_store_free(c);
		return -1;
	}
	p = xcalloc(n->n + 1, sizeof(*p));
	use = xcalloc(n->n + 1, 1);
	for (i = 0; i < n->n; i++) {
		struct nightly_row *w = &n->rows[i];
		const struct series *s;

		w->cp = w->cq = NAN;
		if (w->state != NIGHTLY_TO_CONFIRM)
			continue;
		if ((s = series_store_find(c, &w->key)) != NULL)
			w->nagain = night_values(s, n->o.repeat, 1, &w->again);
		if (w->nagain == 0) {
			/*
			 * The round did not measure it: the night's verdict stands
			 * where it was held as a night alone is; a fresh row
			 * screened at its own level alone stays unconfirmed.
			 */
			free(w->again);
			w->again = NULL;
			if (!w->fresh || w->vr.held)
				w->state = NIGHTLY_FAILED;
			continue;
		}
		w->cp = confirm_p(w, &w->cv);
		if (!w->fresh) {
			/* the same boot: the whole rule again, the gate included */
			judge_values(w, w->again, w->nagain, &w->cv);
			w->state = w->cv.kind == VERDICT_BAD ? NIGHTLY_CONFIRMED : NIGHTLY_VANISHED;
			continue;
		}
		p[i] = w->cp;
		use[i] = !isnan(p[i]);
	}
	/* Benjamini-Hochberg over the fresh confirmations: significance, no gate */
	fdr_bh_rows(p, use, n->n, p);
	for (i = 0; i < n->n; i++) {
		struct nightly_row *w = &n->rows[i];

		if (w->state != NIGHTLY_TO_CONFIRM || w->nagain == 0 || !w->fresh)
			continue;
		w->cq = p[i];
		w->state = use[i] && w->cp < VERDICT_ALPHA && (n->o.fdr <= 0 || n->o.fdr > 1 ||
		    w->cq <= n->o.fdr) ? NIGHTLY_CONFIRMED : NIGHTLY_VANISHED;
	}
	n->confirmed = 1;
	free(use);
	free(p);
	series_store_free(c);
	return 0;
}

int
nightly_regressions(const struct nightly *n)
{
	size_t i;
	int k = 0;

	for (i = 0; i < n->n; i++)
		k += n->rows[i].state == NIGHTLY_CONFIRMED || n->rows[i].state == NIGHTLY_FAILED;
	return k;
}

/* --- Rendering ------------------------------------------------------------------ */

static const char *
state_name(const struct nightly_row *w)
{
	switch (w->state) {
	case NIGHTLY_PASS:
		/* better is reported at its own level: it never fails a night */
		return w->vr.v.kind == VERDICT_BAD && !w->vr.held ? "not held (fdr)" :
		    w->vr.v.kind == VERDICT_BAD && !w->counts ? "worse, not counted" :
		    w->vr.v.kind == VERDICT_BAD && w->base == NIGHTLY_FALLBACK ?
		    "worse, below the margin" : verdict_name(w->vr.v.kind);
	case NIGHTLY_CANNOT:
		return "cannot judge";
	case NIGHTLY_UNJUDGED:
		return "new";
	case NIGHTLY_TO_CONFIRM:
		return "unconfirmed";	/* the round did not run (interrupted) */
	case NIGHTLY_CONFIRMED:
		return "confirmed";
	case NIGHTLY_VANISHED:
		return "vanished";
	case NIGHTLY_FAILED:
		return "regression";
	}
	return "?";
}

static const char *
base_name(enum nightly_base b)
{
	return b == NIGHTLY_HISTORY ? "nights" : b == NIGHTLY_POOLED ? "pooled nights" :
	    b == NIGHTLY_FALLBACK ? "last night" : "none";
}

/* "bench.metric[params]" */
static char *
row_name(const struct nightly_row *w)
{
	return xasprintf("%s.%s%s%s%s", w->key.bench, w->key.metric, *w->key.params ? "[" : "",
	    w->key.params, *w->key.params ? "]" : "");
}

static char *
row_series(const struct nightly_row *w)
{
	return w->key.variant ? xasprintf("%s/%s", w->key.host, w->key.variant) : xstrdup(w->key.host);
}

#define NCOLS	15

static const char *const cols[NCOLS + 1] = {
	"bench", "params", "metric", "unit", "host", "base", "nights", "base mean", "base rsd",
	"mean", "rsd", "n", "change", "p", "q", "verdict",
};

/* The cells of row w into c[] (NCOLS + 1: the verdict last); buffers in b. */
static void
row_cells(const struct nightly_row *w, char b[NCOLS + 1][NUMFMT_MAX + 8], const char **c)
{
	const struct verdict *d = &w->vr.v;

	c[0] = w->key.bench;
	c[1] = *w->key.params ? w->key.params : "-";
	c[2] = w->key.metric;
	c[3] = *w->key.unit ? w->key.unit : "-";
	c[4] = w->key.host;
	c[5] = base_name(w->base);
	snprintf(b[6], sizeof(b[6]), "%zu", w->base == NIGHTLY_HISTORY ||
	    w->base == NIGHTLY_POOLED ? w->ngood : w->base == NIGHTLY_FALLBACK ? (size_t)1 :
	    (size_t)0);
	numfmt_mean(b[7], sizeof(b[7]), w->base == NIGHTLY_NEW ? NAN : d->good);
	numfmt_rsd(b[8], sizeof(b[8]), w->base == NIGHTLY_NEW ? NAN : d->good_rsd);
	numfmt_mean(b[9], sizeof(b[9]), stats_mean(w->now, w->nnow));
	numfmt_rsd(b[10], sizeof(b[10]), verdict_rsd(w->now, w->nnow));
	snprintf(b[11], sizeof(b[11]), "%zu", w->nnow);
	numfmt_change(b[12], sizeof(b[12]), w->base == NIGHTLY_NEW ? NAN : d->change);
	numfmt_p(b[13], sizeof(b[13]), w->base == NIGHTLY_NEW ? NAN : d->p);
	numfmt_p(b[14], sizeof(b[14]), w->vr.q);
	for (size_t i = 6; i < NCOLS; i++)
		c[i] = b[i];
	c[NCOLS] = state_name(w);
}

/* Whether row w is a regression between two nights with commits. */
static int
has_bisect(const struct nightly *n, const struct nightly_row *w)
{
	return (w->state == NIGHTLY_CONFIRMED || w->state == NIGHTLY_FAILED) &&
	    n->commit != NULL && w->good_commit != NULL;
}

/* "git bisect start BAD GOOD" (which 0), or the git bisect run line (1). */
static char *
bisect_line(const struct nightly *n, const struct nightly_row *w, int which)
{
	char *name, *s;

	if (which == 0)
		return xasprintf("git bisect start %s %s", n->commit, w->good_commit);
	name = row_name(w);
	s = xasprintf("git bisect run fleetmark bisect-run %s -H %s --metric '%s' --baseline %s "
	    "--threshold %g%%", n->o.plan_file ? n->o.plan_file : n->plan, w->key.host, name,
	    w->good_ref, n->o.threshold);
	free(name);
	return s;
}

/* The lines after the table: regressions, vanished changes, cannot judge, bisect. */
static void
text_lines(const struct nightly *n, FILE *out)
{
	char bb[NUMFMT_MAX], nb[NUMFMT_MAX], cb[NUMFMT_MAX], ab[NUMFMT_MAX];
	char pb[NUMFMT_MAX], qb[NUMFMT_MAX];
	size_t i;
	int first = 1;

	for (i = 0; i < n->n; i++) {
		const struct nightly_row *w = &n->rows[i];
		const struct verdict *d = &w->vr.v;
		char *name, *series;

		if (w->state != NIGHTLY_CONFIRMED && w->state != NIGHTLY_FAILED &&
		    w->state != NIGHTLY_VANISHED && w->state != NIGHTLY_CANNOT)
			continue;
		if (first)
			fputc('\n', out);
		first = 0;
		name = row_name(w);
		series = row_series(w);
		numfmt_mean(bb, sizeof(bb), d->good);
		numfmt_mean(nb, sizeof(nb), d->now);
		numfmt_change(cb, sizeof(cb), d->change);
		if (w->state == NIGHTLY_CANNOT) {
			char why[VERDICT_WHY_MAX];

			verdict_why(&w->vr, w->nnow, w->higher, w->threshold, 0, why, sizeof(why));
			if (w->base == NIGHTLY_HISTORY && !isnan(w->vr.spread))
				fprintf(out, "CANNOT JUDGE: %s %s: its %zu nights vary by ±%.1f%% from "
				    "one to the next: %s\n", name, series, w->ngood, d->good_rsd, why);
			else if (!isnan(w->vr.spread))
				fprintf(out, "CANNOT JUDGE: %s %s: rsd %.1f%% over %zu trials: %s\n",
				    name, series, d->rsd, w->nnow, why);
			else
				fprintf(out, "CANNOT JUDGE: %s %s: rsd %.1f%% over %zu trials against "
				    "%g%%: %s\n", name, series, d->rsd, w->nnow, w->threshold, why);
		} else {
			const char *what = w->state == NIGHTLY_VANISHED ? "VANISHED" : "REGRESSION";

			numfmt_p(pb, sizeof(pb), d->p);
			numfmt_p(qb, sizeof(qb), w->vr.q);
			fprintf(out, "%s: %s %s (p=%s, q=%s) %s: %s -> %s %s (against %s: %s "
			    "to %s)", what, name, cb, pb, qb, series, bb, nb, w->key.unit,
			    w->base == NIGHTLY_HISTORY ? "the nights" : w->base == NIGHTLY_POOLED ?
			    "the nights, with the host's pooled variance" : "the last night",
			    w->from, w->to);
			if (d->by_trend) {
				numfmt_change(cb, sizeof(cb), d->trend);
				numfmt_p(pb, sizeof(pb), d->trend_p);
				fprintf(out, "; a trend: %s over its %zu nights and tonight (p=%s)",
				    cb, w->ngood, pb);
			}
			if (d->by_window) {
				numfmt_change(cb, sizeof(cb), d->window);
				if (d->window_n == 2)
					fputs("; the last night and tonight", out);
				else
					fprintf(out, "; the last %zu nights and tonight", d->window_n - 1);
				numfmt_p(pb, sizeof(pb), d->window_p);
				fprintf(out, ": %s against the %zu nights before (p=%s)", cb,
				    w->ngood + 1 - d->window_n, pb);
			}
			if (w->state == NIGHTLY_CONFIRMED || w->state == NIGHTLY_VANISHED) {
				numfmt_mean(ab, sizeof(ab), w->cv.now);
				numfmt_change(cb, sizeof(cb), w->cv.change);
				numfmt_p(pb, sizeof(pb), w->cp);
				numfmt_p(qb, sizeof(qb), w->cq);
				fprintf(out, "; measured again in %s: %s %s %s over %zu trials "
				    "(p=%s%s%s): %s", w->fresh ? "a " NIGHTLY_WHERE_FRESH :
				    "the " NIGHTLY_WHERE_SAME, ab, w->key.unit, cb, w->nagain, pb,
				    w->fresh ? ", q=" : "", w->fresh ? qb : "",
				    w->state == NIGHTLY_CONFIRMED ? "confirmed" : "gone");
			} else if (n->o.confirm == 0)
				fputs("; not measured again (regression.confirm: 0)", out);
			else
				fputs("; not measured again (the round has no trial of it)", out);
			fputc('\n', out);
		}
		free(name);
		free(series);
	}
	first = 1;
	for (i = 0; i < n->n; i++) {
		const struct nightly_row *w = &n->rows[i];
		char *a, *b;

		if (!has_bisect(n, w))
			continue;
		if (first)
			fprintf(out, "\nTo find the commit (%s good, %s bad):\n", w->good_commit,
			    n->commit);
		first = 0;
		a = bisect_line(n, w, 0);
		b = bisect_line(n, w, 1);
		fprintf(out, "  %s\n  %s\n", a, b);
		free(a);
		free(b);
	}
}

static void
header(const struct nightly *n, FILE *out)
{
	size_t i, fresh = 0, same = 0;

	fprintf(out, "Nightly verdict against the history of plan '%s' in %s (%zu night%s "
	    "before tonight): each series against its nights since the last change point "
	    "(at most %zu), tonight's mean within the nights' 95%% prediction interval (the "
	    "variance pooled over a host's series when it has %d or more), the trend of "
	    "%d or more nights and tonight, and the last night or two with tonight against "
	    "the nights before them, one-sided (only worse fails the night), at the "
	    "threshold %g%%; with fewer than %d nights, the same against them with the "
	    "host's pooled variance, or without one Welch against the last night at %g%% "
	    "(the change itself at least that); Benjamini-Hochberg over the %zu row%s "
	    "tested", n->plan, n->source, n->nruns, n->nruns == 1 ? "" : "s", n->o.nights,
	    VERDICT_PRIOR_MIN_SERIES, VERDICT_TREND_MIN_NIGHTS, n->o.threshold,
	    VERDICT_MIN_NIGHTS, n->o.threshold * VERDICT_FALLBACK_MARGIN, n->tested_counted,
	    n->tested_counted == 1 ? "" : "s");
	if (n->tested > n->tested_counted)
		fprintf(out, " that can fail the night (the %zu other%s in a step of their own)",
		    n->tested - n->tested_counted, n->tested - n->tested_counted == 1 ? "" : "s");
	fprintf(out, " at fdr %g (one-sided: the worse half of fdr %g); ", n->o.fdr / 2,
	    n->o.fdr);
	for (i = 0; i < n->n; i++) {
		fresh += n->rows[i].fresh;
		same += !n->rows[i].fresh;
	}
	if (n->o.confirm > 0 && fresh > 0)
		fprintf(out, "on a host with a boot: %s entry, a row bad at its own level (held, "
		    "against fewer than %d nights) is measured again after a fresh boot of it (%d round%s of %d trials), judged on "
		    "significance alone, Benjamini-Hochberg over those at fdr %g%s",
		    NIGHTLY_BOOT_TEST, VERDICT_MIN_NIGHTS, n->o.confirm, n->o.confirm == 1 ? "" :
		    "s", n->o.repeat, n->o.fdr, same > 0 ? "; elsewhere " : "");
	if (n->o.confirm > 0 && same > 0)
		fprintf(out, "what would fail the night is measured again in the same boot (%d "
		    "round%s of %d trials) and judged again: confirmed without a reboot, a change "
		    "of the machine's state cannot be told from a change of the kernel",
		    n->o.confirm, n->o.confirm == 1 ? "" : "s", n->o.repeat);
	if (n->o.confirm == 0)
		fprintf(out, "no confirmation round");
	fprintf(out, ".\n");
}

/* The rows as a grid: the series' names left, the numbers right, the verdict last. */
static struct rgrid *
rows_grid(const struct nightly *n)
{
	char b[NCOLS + 1][NUMFMT_MAX + 8];
	const char *c[NCOLS + 1];
	struct rgrid *g = rgrid_new(NULL, NULL, 6, NCOLS + 1, cols);
	size_t i, k, row;

	rgrid_align(g, "llllllrrrrrrrrrl");
	for (i = 0; i < n->n; i++) {
		row_cells(&n->rows[i], b, c);
		row = rgrid_add_row(g);
		for (k = 0; k <= NCOLS; k++)
			rgrid_set(g, row, k, c[k], NAN);
	}
	return g;
}

static int
render_text(const struct nightly *n, FILE *out, int md)
{
	struct rgrid *g = rows_grid(n);
	size_t base = 0;

	if (md)
		fprintf(out, "### Nightly verdict\n\n");
	header(n, out);
	fputc('\n', out);
	if (md)
		rgrid_print_md(g, out, &base);
	else
		rgrid_print_text(g, out);
	rgrid_free(g);
	text_lines(n, out);
	return 0;
}

static json_t *
jvalues(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, jsonout_real(v[i]));
	return a;
}

static int
render_json(const struct nightly *n, FILE *out, char **err)
{
	json_t *o = json_object(), *rows = json_array();
	size_t i;
	char *s;
	int r;

	json_object_set_new(o, "plan", json_string(n->plan));
	json_object_set_new(o, "source", json_string(n->source));
	json_object_set_new(o, "nights_before", json_integer((json_int_t)n->nruns));
	json_object_set_new(o, "threshold", json_real(n->o.threshold));
	json_object_set_new(o, "nights", json_integer((json_int_t)n->o.nights));
	json_object_set_new(o, "fdr", json_real(n->o.fdr));
	json_object_set_new(o, "held_at", json_real(n->o.fdr / 2));
	json_object_set_new(o, "confirm", json_integer(n->o.confirm));
	json_object_set_new(o, "tested", json_integer((json_int_t)n->tested));
	json_object_set_new(o, "tested_counted", json_integer((json_int_t)n->tested_counted));
	json_object_set_new(o, "commit", n->commit ? json_string(n->commit) : json_null());
	json_object_set_new(o, "regressions", json_integer(nightly_regressions(n)));
	for (i = 0; i < n->n; i++) {
		const struct nightly_row *w = &n->rows[i];
		const struct verdict *d = &w->vr.v;
		json_t *jr = json_object();

		json_object_set_new(jr, "host", json_string(w->key.host));
		json_object_set_new(jr, "variant", w->key.variant ? json_string(w->key.variant) :
		    json_null());
		json_object_set_new(jr, "bench", json_string(w->key.bench));
		json_object_set_new(jr, "params", json_string(w->key.params));
		json_object_set_new(jr, "metric", json_string(w->key.metric));
		json_object_set_new(jr, "unit", json_string(w->key.unit));
		json_object_set_new(jr, "direction", json_string(w->higher ? "higher" : "lower"));
		json_object_set_new(jr, "counts", json_boolean(w->counts));
		json_object_set_new(jr, "fresh_boot", json_boolean(w->fresh));
		json_object_set_new(jr, "baseline", json_string(w->base == NIGHTLY_HISTORY ?
		    "history" : w->base == NIGHTLY_POOLED ? "pooled nights" :
		    w->base == NIGHTLY_FALLBACK ? "last night" : "none"));
		json_object_set_new(jr, "from", w->from ? json_string(w->from) : json_null());
		json_object_set_new(jr, "to", w->to ? json_string(w->to) : json_null());
		json_object_set_new(jr, "good", jvalues(w->good, w->ngood));
		json_object_set_new(jr, "values", jvalues(w->now, w->nnow));
		json_object_set_new(jr, "threshold", json_real(w->threshold));
		json_object_set_new(jr, "base_mean", jsonout_real(w->base == NIGHTLY_NEW ? NAN : d->good));
		json_object_set_new(jr, "mean", jsonout_real(stats_mean(w->now, w->nnow)));
		json_object_set_new(jr, "change", jsonout_real(w->base == NIGHTLY_NEW ? NAN : d->change));
		json_object_set_new(jr, "lo", jsonout_real(d->lo));
		json_object_set_new(jr, "hi", jsonout_real(d->hi));
		json_object_set_new(jr, "p", jsonout_real(d->p));
		json_object_set_new(jr, "better_p", jsonout_real(d->better_p));
		json_object_set_new(jr, "pooled", json_boolean(d->pooled));
		json_object_set_new(jr, "df", jsonout_real(d->df));
		json_object_set_new(jr, "trend", jsonout_real(d->trend_tested ? d->trend : NAN));
		json_object_set_new(jr, "trend_p", jsonout_real(d->trend_tested ? d->trend_p : NAN));
		json_object_set_new(jr, "by_trend", json_boolean(d->by_trend));
		json_object_set_new(jr, "window", jsonout_real(d->window_tested ? d->window : NAN));
		json_object_set_new(jr, "window_nights", d->window_tested ?
		    json_integer((json_int_t)d->window_n) : json_null());
		json_object_set_new(jr, "window_p", jsonout_real(d->window_tested ? d->window_p : NAN));
		json_object_set_new(jr, "by_window", json_boolean(d->by_window));
		json_object_set_new(jr, "q", jsonout_real(w->vr.q));
		json_object_set_new(jr, "kind", json_string(verdict_name(d->kind)));
		json_object_set_new(jr, "verdict", json_string(state_name(w)));
		json_object_set_new(jr, "trials_needed", w->state == NIGHTLY_CANNOT &&
		    w->vr.needed > 0 ? json_integer((json_int_t)w->vr.needed) : json_null());
		/*
		 * noisy says which of the two causes of "cannot judge" this is;
		 * noisy_spread is its rsd, null where that is infinite (values
		 * about a mean of 0), which JSON cannot write.
		 */
		json_object_set_new(jr, "noisy", json_boolean(w->state == NIGHTLY_CANNOT &&
		    !isnan(w->vr.spread)));
		json_object_set_new(jr, "noisy_spread", w->state == NIGHTLY_CANNOT ?
		    jsonout_real(w->vr.spread) : json_null());
		if (w->nagain > 0) {
			json_t *c = json_object();

			json_object_set_new(c, "values", jvalues(w->again, w->nagain));
			json_object_set_new(c, "mean", jsonout_real(w->cv.now));
			json_object_set_new(c, "change", jsonout_real(w->cv.change));
			json_object_set_new(c, "p", jsonout_real(w->cp));
			json_object_set_new(c, "q", jsonout_real(w->cq));
			json_object_set_new(c, "where", json_string(w->fresh ? NIGHTLY_WHERE_FRESH :
			    NIGHTLY_WHERE_SAME));
			json_object_set_new(c, "held", json_boolean(w->state == NIGHTLY_CONFIRMED));
			json_object_set_new(jr, "confirmation", c);
		} else
			json_object_set_new(jr, "confirmation", json_null());
		if (has_bisect(n, w)) {
			json_t *b = json_array();

			s = bisect_line(n, w, 0);
			json_array_append_new(b, json_string(s));
			free(s);
			s = bisect_line(n, w, 1);
			json_array_append_new(b, json_string(s));
			free(s);
			json_object_set_new(jr, "bisect", b);
		} else
			json_object_set_new(jr, "bisect", json_null());
		json_array_append_new(rows, jr);
	}
	json_object_set_new(o, "rows", rows);
	r = json_dumpf(o, out, JSON_INDENT(1) | JSON_REAL_PRECISION(15));
	json_decref(o);
	if (r != 0 || fputc('\n', out) == EOF)
		return err_set(err, -1, "cannot write the verdict");
	return 0;
}

static int
render_html(const struct nightly *n, FILE *out)
{
	size_t i, conf = 0, gone = 0, cannot = 0, fail = 0;

	for (i = 0; i < n->n; i++) {
		conf += n->rows[i].state == NIGHTLY_CONFIRMED;
		fail += n->rows[i].state == NIGHTLY_FAILED;
		gone += n->rows[i].state == NIGHTLY_VANISHED;
		cannot += n->rows[i].state == NIGHTLY_CANNOT;
	}
	fprintf(out, "<p class=\"verdict\">Nightly verdict against %zu night%s of history: "
	    "%zu row%s, %zu tested (fdr %g); %zu regression%s (%zu confirmed), %zu vanished "
	    "when measured again, %zu that cannot be judged (report.txt has every row).</p>\n",
	    n->nruns, n->nruns == 1 ? "" : "s", n->n, n->n == 1 ? "" : "s", n->tested,
	    n->o.fdr, conf + fail, conf + fail == 1 ? "" : "s", conf, gone, cannot);
	return 0;
}

struct text_args {
	const struct nightly	*n;
	int			 md;
};

static int
text_into(void *arg, FILE *mem)
{
	struct text_args *a = arg;

	return render_text(a->n, mem, a->md);
}

int
nightly_render(const struct nightly *n, enum report_format f, FILE *out, char **err)
{
	struct text_args a = { n, f == REPORT_MD };
	int r = 0;

	switch (f) {
	case REPORT_TEXT:
	case REPORT_MD:
		/* host names, labels, metric names from runs: safe for a terminal */
		r = utf8_render_escaped(out, UTF8_KEEP_NL | UTF8_KEEP_TAB, text_into, &a);
		break;
	case REPORT_JSON:
		return render_json(n, out, err);
	case REPORT_HTML:
		r = render_html(n, out);
		break;
	case REPORT_CSV:
		return err_set(err, -1, "the nightly verdict has no csv form");
	}
	if (r != 0 || ferror(out))
		return err_set(err, -1, "cannot write the verdict");
	return 0;
}

/* --- The confirmation round and the files ----------------------------------------- */

void
nightly_round_plan(const struct nightly *n, const struct plan *p, const struct fleet *f,
    const unsigned char *sel, struct plan *cp, unsigned char *csel)
{
	size_t i, k, v;

	*cp = *p;
	cp->points = xcalloc(p->npoints + 1, sizeof(*cp->points));
	cp->variants = xcalloc(p->nvariants + 1, sizeof(*cp->variants));
	cp->npoints = cp->nvariants = 0;
	for (i = 0; i < p->npoints; i++)
		for (k = 0; k < n->n; k++)
			if (n->rows[k].state == NIGHTLY_TO_CONFIRM &&
			    strcmp(n->rows[k].point, p->points[i].id) == 0) {
				cp->points[cp->npoints++] = p->points[i];
				break;
			}
	for (v = 0; v < p->nvariants; v++)
		for (k = 0; k < n->n; k++)
			if (n->rows[k].state == NIGHTLY_TO_CONFIRM &&
			    strcmp(n->rows[k].key.variant ? n->rows[k].key.variant : "",
			    p->variants[v].name ? p->variants[v].name : "") == 0) {
				cp->variants[cp->nvariants++] = p->variants[v];
				break;
			}
	for (i = 0; i < f->nhosts; i++) {
		csel[i] = 0;
		for (k = 0; k < n->n && (sel == NULL || sel[i]) && !csel[i]; k++)
			csel[i] = n->rows[k].state == NIGHTLY_TO_CONFIRM &&
			    strcmp(n->rows[k].key.host, f->hosts[i].name) == 0;
	}
	cp->rep_base = p->repeat;
	cp->repeat = p->repeat * p->confirm;
	if (cp->order == PLAN_ORDER_SEQUENTIAL)
		cp->order = PLAN_ORDER_INTERLEAVE;
}

/* n rendered as f into a new string (*len its length); NULL on an error. */
static char *
rendered(const struct nightly *n, enum report_format f, size_t *len)
{
	char *buf = NULL, *err = NULL;
	FILE *out = open_memstream(&buf, len);
	int r;

	if (out == NULL)
		return NULL;
	r = nightly_render(n, f, out, &err);
	if (fclose(out) != 0)
		r = -1;
	free(err);
	if (r != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int
nightly_write(const struct nightly *n, const char *dir, char **err)
{
	static const enum report_format fmts[] = { REPORT_TEXT, REPORT_JSON, REPORT_MD };
	static const char *const names[] = { "report.txt", "verdict.json", "verdict.md" };
	char *path, *buf, *html = NULL, *at, *line;
	size_t len, hlen, llen, i;
	FILE *f;
	int r = 0;

	for (i = 0; i < 3 && r == 0; i++) {
		path = rundir_path(dir, names[i]);
		if ((buf = rendered(n, fmts[i], &len)) == NULL)
			r = err_set(err, -1, "%s: cannot render the verdict", path);
		else if (i == 0) {
			/* after the run's own tables */
			if ((f = fopen(path, "a")) == NULL || fputc('\n', f) == EOF ||
			    fwrite(buf, 1, len, f) != len || fclose(f) != 0)
				r = err_set(err, -1, "%s: cannot append the verdict", path);
		} else
			r = fs_write_atomic(path, buf, len, 0644, FS_NOSYNC, err);
		free(buf);
		free(path);
	}
	if (r != 0)
		return r;
	/* a line of it at the top of report.html's body */
	path = rundir_path(dir, "report.html");
	if (fs_read_file(path, 0, &html, &hlen, err) != 0) {
		free(path);
		return -1;
	}
	if ((at = strstr(html, "<body")) != NULL && (at = strchr(at, '>')) != NULL &&
	    (line = rendered(n, REPORT_HTML, &llen)) != NULL) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_add(&sb, html, (size_t)(at + 1 - html));
		strbuf_addch(&sb, '\n');
		strbuf_add(&sb, line, llen);
		strbuf_addstr(&sb, at + 1);
		r = fs_write_atomic(path, sb.buf, sb.len, 0644, FS_NOSYNC, err);
		strbuf_release(&sb);
		free(line);
	}
	free(html);
	free(path);
	return r;
}

void
nightly_free(struct nightly *n)
{
	if (n == NULL)
		return;
	free(n->source);
	free(n->plan);
	free(n->commit);
	rows_free(n->rows, n->n);
	free(n);
}
