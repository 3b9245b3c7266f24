/*
 * ab/verdict.c: the verdict of an ab directory (abdir.h): the trial values
 * of the boots done, collected into rows per (host, metric, point), judged
 * by ab_judge_rows() (ab.h), printed in the format asked for and kept as
 * ab.txt, with what each host's sequence came to.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "ab.h"
#include "ab-int.h"
#include "fsutil.h"
#include "numfmt.h"
#include "plan.h"
#include "report.h"
#include "rgrid.h"
#include "rundir.h"
#include "series.h"
#include "strbuf.h"
#include "xmalloc.h"

/* One row: a (host, variant, bench, params, metric) and its boots' values. */
struct vrow {
	char		*host, *variant, *bench, *params, *metric, *unit;
	int		 higher;
	struct ab_boot	*boots;
	size_t		 nboots, cap;
};

struct vrows {
	struct vrow	*r;
	size_t		 n, cap;
};

static struct vrow *
vrow_get(struct vrows *vs, const struct series *s)
{
	const struct series_key *k = &s->key;
	const char *var = k->variant ? k->variant : "";
	size_t i;

	for (i = 0; i < vs->n; i++)
		if (strcmp(vs->r[i].host, k->host) == 0 && strcmp(vs->r[i].variant, var) == 0 &&
		    strcmp(vs->r[i].bench, k->bench) == 0 &&
		    strcmp(vs->r[i].params, k->params) == 0 &&
		    strcmp(vs->r[i].metric, k->metric) == 0)
			return &vs->r[i];
	xgrow(&vs->r, &vs->cap, vs->n + 1, sizeof(*vs->r));
	memset(&vs->r[vs->n], 0, sizeof(vs->r[0]));
	vs->r[vs->n].host = xstrdup(k->host);
	vs->r[vs->n].variant = xstrdup(var);
	vs->r[vs->n].bench = xstrdup(k->bench);
	vs->r[vs->n].params = xstrdup(k->params);
	vs->r[vs->n].metric = xstrdup(k->metric);
	vs->r[vs->n].unit = xstrdup(k->unit ? k->unit : "");
	vs->r[vs->n].higher = s->higher;
	return &vs->r[vs->n++];
}

static void
vrows_free(struct vrows *vs)
{
	size_t i, k;

	for (i = 0; i < vs->n; i++) {
		struct vrow *r = &vs->r[i];

		for (k = 0; k < r->nboots; k++)
			free((double *)r->boots[k].v);
		free(r->boots);
		free(r->host);
		free(r->variant);
		free(r->bench);
		free(r->params);
		free(r->metric);
		free(r->unit);
	}
	free(vs->r);
}

/* The boots done of every host into rows: each boot's values of each series. */
static int
collect_rows(const char *dir, const json_t *state, struct vrows *vs, char **err)
{
	json_t *seqs = json_object_get(state, "sequences"), *seq, *b;
	const char *host;
	size_t i, k;

	json_object_foreach(seqs, host, seq) {
		json_array_foreach(seq, i, b) {
			struct series_store *st;
			char *path;
			int r;

			if (strcmp(ab_jstr(b, "state"), ST_DONE) != 0 || ab_jstr(b, "run") == NULL)
				continue;
			st = series_store_new(SERIES_VALUES);
			path = xasprintf("%s/%s/%s", dir, ab_jstr(b, "run"), RUNDIR_TRIALS);
			r = series_store_read(st, path, 0, NULL, NULL, NULL, err);
			free(path);
			if (r != 0) {
				series_store_free(st);
				return -1;
			}
			for (k = 0; k < series_store_n(st); k++) {
				const struct series *s = series_store_at(st, k);
				struct vrow *row;
				struct ab_boot *ab;

				if (strcmp(s->key.host, host) != 0 || s->n == 0)
					continue;
				row = vrow_get(vs, s);
				xgrow(&row->boots, &row->cap, row->nboots + 1, sizeof(*row->boots));
				ab = &row->boots[row->nboots++];
				ab->side = strcmp(ab_jstr(b, "side"), "B") == 0 ? AB_B : AB_A;
				ab->boot = (unsigned)i;
				ab->block = (unsigned)json_integer_value(json_object_get(b, "block"));
				{
					double *v = xreallocarray(NULL, s->n, sizeof(*v));

					memcpy(v, s->v, s->n * sizeof(*v));
					ab->v = v;
				}
				ab->n = s->n;
			}
			series_store_free(st);
		}
	}
	return 0;
}

/* What the plan's regression says of the verdict. */
struct vplan {
	double		 fdr;
	char *const	*metrics;	/* "BENCH.METRIC" */
	size_t		 nmetrics;
};

/* Whether the plan's regression.metrics count this row (all when none). */
static int
row_counts(const struct vplan *vp, const struct vrow *r)
{
	return plan_metric_counts(vp->metrics, vp->nmetrics, r->bench, r->metric);
}

int
ab_judge_dir(const struct ab_ctx *c, double thr, struct ab_qrow **out, size_t *nout,
    char **err)
{
	struct vplan vp = { c->p->has_regression ? c->p->fdr : PLAN_DEFAULT_FDR,
	    c->p->metrics, c->p->nmetrics };
	struct vrows vs;
	struct ab_row *rows;
	struct ab_host *hs;
	struct ab_opts ao;
	size_t i;

	memset(&vs, 0, sizeof(vs));
	*out = NULL;
	*nout = 0;
	if (collect_rows(c->dir, c->state, &vs, err) != 0) {
		vrows_free(&vs);
		return -1;
	}
	rows = xcalloc(vs.n ? vs.n : 1, sizeof(*rows));
	hs = xcalloc(vs.n ? vs.n : 1, sizeof(*hs));
	for (i = 0; i < vs.n; i++) {
		hs[i] = (struct ab_host){ vs.r[i].boots, vs.r[i].nboots };
		rows[i] = (struct ab_row){ .hosts = &hs[i], .nhosts = 1,
		    .higher = vs.r[i].higher, .counts = row_counts(&vp, &vs.r[i]) };
	}
	memset(&ao, 0, sizeof(ao));
	ab_opts_default(&ao, vp.fdr, thr);
	ab_judge_rows(rows, vs.n, &ao);
	*out = xcalloc(vs.n ? vs.n : 1, sizeof(**out));
	for (i = 0; i < vs.n; i++) {
		struct ab_qrow *q = &(*out)[i];

		/* the strings move to q */
		q->host = vs.r[i].host;
		q->variant = vs.r[i].variant;
		q->bench = vs.r[i].bench;
		q->params = vs.r[i].params;
		q->metric = vs.r[i].metric;
		q->unit = vs.r[i].unit;
		vs.r[i].host = vs.r[i].variant = vs.r[i].bench = vs.r[i].params = NULL;
		vs.r[i].metric = vs.r[i].unit = NULL;
		q->higher = vs.r[i].higher;
		q->trials = rows[i].j.comp.trials;
		q->j = rows[i].j;
	}
	*nout = vs.n;
	free(rows);
	free(hs);
	vrows_free(&vs);
	return 0;
}

void
ab_qrows_free(struct ab_qrow *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].host);
		free(rows[i].variant);
		free(rows[i].bench);
		free(rows[i].params);
		free(rows[i].metric);
		free(rows[i].unit);
	}
	free(rows);
}

/* A side's mean of the row's trial values (every boot of the side). */
static double
side_mean(const struct vrow *r, enum ab_side side)
{
	double sum = 0;
	size_t i, k, n = 0;

	for (i = 0; i < r->nboots; i++)
		for (k = 0; r->boots[i].side == side && k < r->boots[i].n; k++) {
			sum += r->boots[i].v[k];
			n++;
		}
	return n ? sum / (double)n : NAN;
}

static const char *const verdict_cols[] = {
	"host", "metric", "point", "A mean", "B mean", "change", "interval", "p", "q", "df",
	"verdict", "reason"
};
static const char *const plan_cols[] = {
	"host", "metric", "point", "pairs", "between boots", "within a boot", "detectable",
	"boots a side"
};

/* One row of each grid: the verdict's and what the boots can see. */
static void
fill_row(struct rgrid *g, struct rgrid *pg, const char *host, const struct vrow *r,
    int counts, const struct ab_judgement *jd, double am, double bm, double thr)
{
	char buf[64], name[256];
	size_t row;

	snprintf(name, sizeof(name), "%s.%s%s%s%s", r->bench, r->metric,
	    counts ? "" : " (not counted)", *r->variant ? " " : "", r->variant);
	row = rgrid_add_row(g);
	rgrid_set(g, row, 0, host, NAN);
	rgrid_set(g, row, 1, name, NAN);
	rgrid_set(g, row, 2, *r->params ? r->params : "-", NAN);
	numfmt_mean(buf, sizeof(buf), am);
	rgrid_set(g, row, 3, buf, am);
	numfmt_mean(buf, sizeof(buf), bm);
	rgrid_set(g, row, 4, buf, bm);
	numfmt_change(buf, sizeof(buf), jd->change);
	rgrid_set(g, row, 5, isnan(jd->change) ? "-" : buf, jd->change);
	numfmt_interval(buf, sizeof(buf), jd->lo, jd->hi);
	rgrid_set(g, row, 6, isnan(jd->lo) ? "-" : buf, NAN);
	numfmt_p(buf, sizeof(buf), jd->p_worse);
	rgrid_set(g, row, 7, buf, jd->p_worse);
	numfmt_p(buf, sizeof(buf), jd->q);
	rgrid_set(g, row, 8, buf, jd->q);
	/* the test's degrees of freedom: more than pairs - 1 when moderated */
	snprintf(buf, sizeof(buf), "%.3g", jd->df);
	rgrid_set(g, row, 9, isnan(jd->df) ? "-" : buf, jd->df);
	rgrid_set(g, row, 10, ab_kind_name(jd->kind), NAN);
	rgrid_set(g, row, 11, jd->reason, NAN);

	row = rgrid_add_row(pg);
	rgrid_set(pg, row, 0, host, NAN);
	rgrid_set(pg, row, 1, name, NAN);
	rgrid_set(pg, row, 2, *r->params ? r->params : "-", NAN);
	snprintf(buf, sizeof(buf), "%zu", jd->pairs);
	rgrid_set(pg, row, 3, buf, (double)jd->pairs);
	numfmt_rsd(buf, sizeof(buf), jd->comp.between);
	rgrid_set(pg, row, 4, isnan(jd->comp.between) ? "-" : buf, jd->comp.between);
	numfmt_rsd(buf, sizeof(buf), jd->comp.within);
	rgrid_set(pg, row, 5, isnan(jd->comp.within) ? "-" : buf, jd->comp.within);
	numfmt_detectable(buf, sizeof(buf), jd->detectable);
	rgrid_set(pg, row, 6, buf, jd->detectable);
	if (jd->needed == 0)
		snprintf(buf, sizeof(buf), "-");
	else if (jd->needed > AB_PLAN_CAP)
		snprintf(buf, sizeof(buf), "> %d", AB_PLAN_CAP);
	else
		snprintf(buf, sizeof(buf), "%zu for %g%%", jd->needed, thr);
	rgrid_set(pg, row, 7, buf, jd->needed > 0 && jd->needed <= AB_PLAN_CAP ?
	    (double)jd->needed : NAN);
}

static void
fill_grids(const struct vrows *vs, const struct ab_row *rows, double thr,
    struct rgrid *g, struct rgrid *pg)
{
	size_t i;

	for (i = 0; i < vs->n; i++)
		fill_row(g, pg, vs->r[i].host, &vs->r[i], rows[i].counts, &rows[i].j,
		    side_mean(&vs->r[i], AB_A), side_mean(&vs->r[i], AB_B), thr);
}

/*
 * The rows of a class: the hosts of the ab whose inventory labels are the
 * same (ab.json's "classes"), when two or more have the row.  A row holds
 * its hosts' boots (not owned: the hosts' rows') and its key (the first
 * host's row).
 */
struct prow {
	char		*cls;		/* "@label&@label": the class as -H names it */
	const struct vrow *key;
	struct ab_host	*hosts;
	size_t		 nhosts;
	double		 sum[2];	/* the trial values of each side, summed */
	size_t		 n[2];
	int		 counts;
};

struct prows {
	struct prow	*r;
	size_t		 n, cap;
};

/* host's class as -H names it ("@a&@b"), or NULL: no labels. */
static char *
host_class(const json_t *state, const char *host)
{
	const json_t *labels = json_object_get(json_object_get(state, "classes"), host), *l;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (json_array_size(labels) == 0)
		return NULL;
	json_array_foreach(labels, i, l)
		strbuf_addf(&sb, "%s@%s", i ? "&" : "", json_string_value(l));
	return strbuf_detach(&sb, NULL);
}

static int
same_key(const struct vrow *a, const struct vrow *b)
{
	return strcmp(a->variant, b->variant) == 0 && strcmp(a->bench, b->bench) == 0 &&
	    strcmp(a->params, b->params) == 0 && strcmp(a->metric, b->metric) == 0;
}

static void
pool_rows(const json_t *state, const struct vrows *vs, const struct vplan *vp,
    struct prows *ps)
{
	char **cls = xcalloc(vs->n + 1, sizeof(*cls));
	size_t i, k, m, s;

	memset(ps, 0, sizeof(*ps));
	for (i = 0; i < vs->n; i++)
		cls[i] = host_class(state, vs->r[i].host);
	for (i = 0; i < vs->n; i++) {
		const struct vrow *r = &vs->r[i];
		struct prow *p = NULL;

		if (cls[i] == NULL)
			continue;
		for (k = 0; k < ps->n && p == NULL; k++)
			if (strcmp(ps->r[k].cls, cls[i]) == 0 && same_key(ps->r[k].key, r))
				p = &ps->r[k];
		if (p == NULL) {
			xgrow(&ps->r, &ps->cap, ps->n + 1, sizeof(*ps->r));
			p = &ps->r[ps->n++];
			memset(p, 0, sizeof(*p));
			p->cls = xstrdup(cls[i]);
			p->key = r;
			p->hosts = xcalloc(vs->n, sizeof(*p->hosts));
			p->counts = row_counts(vp, r);
		}
		p->hosts[p->nhosts++] = (struct ab_host){ r->boots, r->nboots };
		for (k = 0; k < r->nboots; k++)
			for (m = 0; m < r->boots[k].n; m++) {
				s = r->boots[k].side == AB_B;
				p->sum[s] += r->boots[k].v[m];
				p->n[s]++;
			}
	}
	/* a class of one host is that host's row */
	for (i = k = 0; i < ps->n; i++) {
		if (ps->r[i].nhosts >= 2) {
			ps->r[k++] = ps->r[i];
		} else {
			free(ps->r[i].cls);
			free(ps->r[i].hosts);
		}
	}
	ps->n = k;
	for (i = 0; i < vs->n; i++)
		free(cls[i]);
	free(cls);
}

static void
prows_free(struct prows *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		free(ps->r[i].cls);
		free(ps->r[i].hosts);
	}
	free(ps->r);
}

/*
 * Judge the pooled rows of ps, a family of their own (ab.h), and add them
 * to the grids after the hosts' rows: the number of counted rows worse.
 */
static size_t
judge_pooled(struct prows *ps, const struct ab_opts *ao, struct rgrid *g, struct rgrid *pg)
{
	struct ab_row *rows = xcalloc(ps->n + 1, sizeof(*rows));
	char host[256];
	size_t i, worse;

	for (i = 0; i < ps->n; i++)
		rows[i] = (struct ab_row){ .hosts = ps->r[i].hosts, .nhosts = ps->r[i].nhosts,
		    .higher = ps->r[i].key->higher, .counts = ps->r[i].counts };
	worse = ab_judge_rows(rows, ps->n, ao);
	for (i = 0; i < ps->n; i++) {
		const struct prow *p = &ps->r[i];

		snprintf(host, sizeof(host), "%s (%zu hosts)", p->cls, p->nhosts);
		fill_row(g, pg, host, p->key, p->counts, &rows[i].j,
		    p->n[0] ? p->sum[0] / (double)p->n[0] : NAN,
		    p->n[1] ? p->sum[1] / (double)p->n[1] : NAN, ao->threshold);
	}
	free(rows);
	return worse;
}

static void
print_grids(FILE *out, enum report_format fmt, struct rgrid *g, struct rgrid *pg)
{
	size_t base = 0;
	int first = 1;

	switch (fmt) {
	case REPORT_MD:
		rgrid_print_md(g, out, &base);
		fputc('\n', out);
		rgrid_print_md(pg, out, &base);
		break;
	case REPORT_CSV:
		rgrid_print_csv(g, out);
		rgrid_print_csv(pg, out);
		break;
	case REPORT_JSON:
		rgrid_print_json(g, out, &first);
		rgrid_print_json(pg, out, &first);
		fputs(first ? "[]\n" : "\n]\n", out);
		break;
	default:
		rgrid_print_text(g, out);
		fputc('\n', out);
		rgrid_print_text(pg, out);
		break;
	}
}

/* What each host's sequence came to, for the end of the table. */
static void
print_hosts(FILE *out, const json_t *state)
{
	json_t *seq, *b;
	const char *host;
	size_t i, done, cycles;

	json_object_foreach(json_object_get(state, "sequences"), host, seq) {
		const json_t *failed = NULL;

		done = cycles = 0;
		json_array_foreach(seq, i, b) {
			cycles += json_array_size(json_object_get(b, "recovered"));
			if (strcmp(ab_jstr(b, "state"), ST_DONE) == 0)
				done++;
			else if (failed == NULL && strcmp(ab_jstr(b, "state"), ST_FAILED) == 0)
				failed = b;
		}
		if (failed != NULL)
			fprintf(out, "%s: failed (%s) at boot %lld: %s; %zu of %zu boots done",
			    host, ab_jstr(failed, "class") ? ab_jstr(failed, "class") : "boot",
			    (long long)json_integer_value(json_object_get(failed, "boot")),
			    ab_jstr(failed, "reason") ? ab_jstr(failed, "reason") : "?", done,
			    json_array_size(seq));
		else
			fprintf(out, "%s: %zu of %zu boots done", host, done, json_array_size(seq));
		if (cycles > 0)
			fprintf(out, "; %zu lost boot%s recovered by a power cycle (ab.json: "
			    "\"recovered\")", cycles, cycles == 1 ? "" : "s");
		fputc('\n', out);
	}
}

/*
 * The verdict of the boots done of the ab directory dir, whose ab.json is
 * state, as two new grids (the verdict, and what the boots can see) in
 * *gp and *pgp; *nrows the rows judged.  Each host's rows, then the rows
 * of each class of two or more hosts pooled (pool_rows(): a family of
 * their own); an A/A run and the qualification of a host are
 * ab/qualify.c's.  The number of counted rows where B is worse, or -1
 * with *err.
 */
static int
verdict_grids(const char *dir, const json_t *state, const struct vplan *vp,
    struct rgrid **gp, struct rgrid **pgp, size_t *nrows, char **err)
{
	struct vrows vs;
	struct ab_row *rows = NULL;
	struct ab_host *hs = NULL;
	struct ab_opts ao;
	struct rgrid *g, *pg;
	struct prows ps;
	const json_t *sides = json_object_get(state, "sides");
	char title[512];
	double thr = json_number_value(json_object_get(state, "threshold"));
	size_t i, worse;

	memset(&vs, 0, sizeof(vs));
	if (collect_rows(dir, state, &vs, err) != 0) {
		vrows_free(&vs);
		return -1;
	}
	rows = xcalloc(vs.n ? vs.n : 1, sizeof(*rows));
	hs = xcalloc(vs.n ? vs.n : 1, sizeof(*hs));
	for (i = 0; i < vs.n; i++) {
		hs[i].boots = vs.r[i].boots;
		hs[i].nboots = vs.r[i].nboots;
		rows[i].hosts = &hs[i];
		rows[i].nhosts = 1;
		rows[i].higher = vs.r[i].higher;
		rows[i].counts = row_counts(vp, &vs.r[i]);
	}
	memset(&ao, 0, sizeof(ao));
	ab_opts_default(&ao, vp->fdr, thr);
	worse = ab_judge_rows(rows, vs.n, &ao);

	snprintf(title, sizeof(title), "B (%s) against A (%s), the boot as the unit; "
	    "threshold %g%%", ab_jstr(json_object_get(sides, "B"), "label"),
	    ab_jstr(json_object_get(sides, "A"), "label"), thr);
	g = rgrid_new("ab", title, 3, sizeof(verdict_cols) / sizeof(verdict_cols[0]),
	    verdict_cols);
	g->left_last = 1;
	pg = rgrid_new("ab-design", "What the boots can see: the variance components "
	    "and the smallest change detected with 95% power", 3,
	    sizeof(plan_cols) / sizeof(plan_cols[0]), plan_cols);
	fill_grids(&vs, rows, thr, g, pg);
	pool_rows(state, &vs, vp, &ps);
	worse += judge_pooled(&ps, &ao, g, pg);
	prows_free(&ps);
	*gp = g;
	*pgp = pg;
	*nrows = vs.n;
	free(rows);
	free(hs);
	vrows_free(&vs);
	return (int)worse;
}

static int	report_boots(const char *dir, const json_t *state,
		    const struct report_opts *o, FILE *out, char **err);

/*
 * Judge the boots done, print the table (fmt) and write ab.txt.  The
 * number of counted rows where B is worse (> 0: exit 4), or -1 with *err.
 */
int
ab_verdict(const struct ab_ctx *c, enum report_format fmt, char **err)
{
	struct vplan vp = { c->p->has_regression ? c->p->fdr : PLAN_DEFAULT_FDR,
	    c->p->metrics, c->p->nmetrics };
	struct rgrid *g = NULL, *pg = NULL;
	struct fs_atomic a;
	FILE *fp;
	char *path = NULL;
	size_t n;
	int worse, r = -1;

	if ((worse = verdict_grids(c->dir, c->state, &vp, &g, &pg, &n, err)) < 0)
		goto out;
	if (n == 0 && fmt == REPORT_JSON)
		printf("[]\n");
	else if (n == 0 && fmt != REPORT_CSV)
		printf("no boot measured: nothing to judge\n");
	else if (fmt == REPORT_HTML) {
		/* the page: the boots' tables and the verdict, as `report DIR` */
		struct report_opts ro;

		report_opts_init(&ro);
		ro.format = REPORT_HTML;
		if (report_boots(c->dir, c->state, &ro, stdout, err) < 0)
			goto out;
	} else if (n > 0)
		print_grids(stdout, fmt, g, pg);
	/* CSV, JSON and HTML stay one document: the hosts' states go to stderr */
	if (fmt == REPORT_CSV || fmt == REPORT_JSON || fmt == REPORT_HTML) {
		print_hosts(stderr, c->state);
	} else {
		putchar('\n');
		print_hosts(stdout, c->state);
	}
	fflush(stdout);

	path = xasprintf("%s/%s", c->dir, AB_TXT);
	if (fs_atomic_open(&a, path, RUNDIR_FILE_MODE, FS_NOSYNC, err) != 0)
		goto out;
	if ((fp = fs_atomic_stream(&a)) == NULL) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		fs_atomic_abort(&a);
		goto out;
	}
	if (n == 0)
		fprintf(fp, "no boot measured: nothing to judge\n");
	else
		print_grids(fp, REPORT_TEXT, g, pg);
	fputc('\n', fp);
	print_hosts(fp, c->state);
	if (fclose(fp) != 0) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		fs_atomic_abort(&a);
		goto out;
	}
	if (fs_atomic_commit(&a, err) != 0)
		goto out;
	r = worse;
 out:
	rgrid_free(g);
	rgrid_free(pg);
	free(path);
	return r;
}

int
ab_is_dir(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, AB_JSON);
	int r = access(path, F_OK) == 0;

	free(path);
	return r;
}

/*
 * The report of dir, whose ab.json is state: the boots done as runs of
 * their own (each host's A boots, then its B boots, in boot order), the
 * plan's regression as the first boot's run.json records it, then the
 * verdict's grids after the report's tables.
 */
static int
report_boots(const char *dir, const json_t *state, const struct report_opts *o, FILE *out,
    char **err)
{
	struct report *r = report_new();
	struct rundir_run *first = NULL;
	struct report_opts ro = *o;
	struct rgrid *g = NULL, *pg = NULL, *extra[2];
	struct vplan vp = { PLAN_DEFAULT_FDR, NULL, 0 };
	const json_t *h, *b;
	char *path;
	size_t i, k, n, side;
	int worse = -1, nworse;

	report_label_rows(r);
	if (o->samples)
		report_keep_samples(r);
	json_array_foreach(json_object_get(state, "hosts"), i, h) {
		const json_t *seq = json_object_get(json_object_get(state, "sequences"),
		    json_string_value(h));

		for (side = 0; side < 2; side++)
			json_array_foreach(seq, k, b) {
				if (strcmp(ab_jstr(b, "state"), ST_DONE) != 0 ||
				    ab_jstr(b, "run") == NULL ||
				    strcmp(ab_jstr(b, "side"), ab_side_name((enum ab_side)side)) != 0)
					continue;
				path = xasprintf("%s/%s", dir, ab_jstr(b, "run"));
				if ((first == NULL && rundir_load(path, &first, err) != 0) ||
				    report_add_run(r, path, err) != 0) {
					free(path);
					goto out;
				}
				free(path);
			}
	}
	if (first == NULL) {
		*err = xasprintf("%s: no boot done: nothing to report", dir);
		goto out;
	}
	if (first->fdr > 0)
		vp.fdr = first->fdr;
	vp.metrics = first->metrics;
	vp.nmetrics = first->nmetrics;
	if ((nworse = verdict_grids(dir, state, &vp, &g, &pg, &n, err)) < 0)
		goto out;
	/* a row per boot: the boot's trials make one value */
	if (ro.aggregate == REPORT_AGG_NONE)
		ro.aggregate = REPORT_AGG_MEAN;
	extra[0] = g;
	extra[1] = pg;
	ro.extra = extra;
	ro.nextra = 2;
	if (report_render(r, &ro, out, err) < 0)
		goto out;
	worse = nworse;
 out:
	rgrid_free(g);
	rgrid_free(pg);
	rundir_run_free(first);
	report_free(r);
	return worse;
}

int
ab_report(const char *dir, const struct report_opts *o, FILE *out, char **err)
{
	json_t *state = NULL;
	int r;

	if (ab_state_read(dir, &state, err) != 0)
		return -1;
	r = report_boots(dir, state, o, out, err);
	json_decref(state);
	return r;
}
