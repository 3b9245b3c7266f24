/*
 * report.c: read run directories into series and cells, and write the
 * tables in text, Markdown, CSV or JSON through the grid's writers
 * (out/rgrid.c).  The tables themselves are built in src/report/, one
 * file a table, chosen through the registry in report/render.c.
 *
 * Reading is one pass over trials.jsonl (trialread.h); only
 * a line's value is kept (not its samples, unless report_keep_samples()
 * asked), in per-(series, cell) arrays, so a million lines need a few tens
 * of megabytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "csv.h"
#include "fsutil.h"
#include "log.h"
#include "numfmt.h"
#include "report/report-int.h"
#include "report.h"
#include "rundir.h"
#include "stats.h"
#include "strbuf.h"
#include "strv.h"
#include "trialread.h"
#include "utf8.h"
#include "xmalloc.h"

void
report_opts_init(struct report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->table = REPORT_TABLE_AUTO;
	o->format = REPORT_TEXT;
	o->aggregate = REPORT_AGG_NONE;
	o->threshold = -1;
}

int
report_format_parse(const char *s, enum report_format *out)
{
	static const char *const names[] = { "text", "md", "csv", "json", "html" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum report_format)i;
			return 0;
		}
	if (strcmp(s, "markdown") == 0) {
		*out = REPORT_MD;
		return 0;
	}
	return -1;
}

struct report *
report_new(void)
{
	return xcalloc(1, sizeof(struct report));
}

void
report_keep_samples(struct report *r)
{
	r->keep_samples = 1;
}

void
report_label_rows(struct report *r)
{
	r->label_rows = 1;
}

/* Free the samples of one (series, cell). */
static void
rvals_free_samples(struct rvals *v)
{
	size_t i;

	if (v->smp == NULL)
		return;
	for (i = 0; i < v->n; i++)
		free(v->smp[i].v);
	free(v->smp);
}

void
report_free(struct report *r)
{
	size_t i, j;

	if (r == NULL)
		return;
	for (i = 0; i < r->nseries; i++) {
		struct rseries *s = &r->series[i];

		free(s->run);
		free(s->group);
		free(s->dir);
		free(s->label);
		free(s->host);
		free(s->variant);
		free(s->name);
		free(s->os);
		free(s->regmetrics);
		free(s->plan);
		for (j = 0; j < r->vals_n[i]; j++) {
			free(r->vals[i][j].rep);
			free(r->vals[i][j].v);
			rvals_free_samples(&r->vals[i][j]);
			if (r->vals[i][j].notes != NULL)
				strv_clear(r->vals[i][j].notes);
			free(r->vals[i][j].notes);
		}
		free(r->vals[i]);
	}
	for (i = 0; i < r->ncells; i++) {
		free(r->cells[i].bench);
		free(r->cells[i].params);
		free(r->cells[i].metric);
		free(r->cells[i].unit);
	}
	for (i = 0; i < r->nruns; i++) {
		free(r->runs[i].id);
		free(r->runs[i].dir);
		free(r->runs[i].status);
		free(r->runs[i].group);
		free(r->runs[i].start);
		free(r->runs[i].controller);
		free(r->runs[i].hosts);
	}
	free(r->runs);
	report_profile_release(r);
	report_kernel_release(r);
	report_failures_release(r);
	strv_clear(&r->unlike);
	free(r->series);
	free(r->cells);
	free(r->vals);
	free(r->vals_n);
	strmap_release(&r->cmap);
	free(r);
}

size_t
report_nseries(const struct report *r)
{
	return r->nseries;
}

const char *
report_series_name(const struct report *r, size_t i)
{
	return i < r->nseries ? r->series[i].name : NULL;
}

void
report_counts(const struct report *r, struct report_counts *c)
{
	*c = r->counts;
}

const struct rvals *
report_vals(const struct report *r, size_t s, size_t c)
{
	if (s >= r->nseries || c >= r->vals_n[s] || r->vals[s][c].n == 0)
		return NULL;
	return &r->vals[s][c];
}

double
report_agg(const struct rvals *v, enum report_aggregate agg)
{
	if (v == NULL || v->n == 0)
		return NAN;
	return agg == REPORT_AGG_MEDIAN ? stats_median(v->v, v->n) : stats_mean(v->v, v->n);
}

/* Whether "k=v" (n bytes) is one of have's comma-separated items. */
static int
has_item(const char *have, const char *item, size_t n)
{
	const char *p = have;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && memcmp(p, item, n) == 0)
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int
report_params_match(const char *have, const char *want)
{
	const char *p = want;

	while (*p) {
		size_t len;

		p += strspn(p, " ,");
		len = strcspn(p, " ,");
		if (len > 0 && !has_item(have, p, len))
			return 0;
		p += len;
	}
	return 1;
}

char *
report_param(const char *params, const char *k)
{
	size_t kl = strlen(k);
	const char *p = params;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len > kl && memcmp(p, k, kl) == 0 && p[kl] == '=')
			return xstrndup(p + kl + 1, len - kl - 1);
		p += len;
		if (*p == ',')
			p++;
	}
	return NULL;
}

size_t
report_metric_cells(const struct report *r, size_t c, unsigned char *done, size_t *cells)
{
	size_t d, n = 0;

	for (d = c; d < r->ncells; d++)
		if (!done[d] && strcmp(r->cells[d].bench, r->cells[c].bench) == 0 &&
		    strcmp(r->cells[d].metric, r->cells[c].metric) == 0) {
			done[d] = 1;
			cells[n++] = d;
		}
	return n;
}

/* The keys of params "k=v,k=v" ("k" alone for an item without '='), in order, into l. */
static void
param_keys(const char *params, struct strv *l)
{
	const char *p = params;

	while (*p) {
		size_t len = strcspn(p, ","), kl = strcspn(p, "=,");
		char *k = xstrndup(p, kl < len ? kl : len);

		strv_push_unique(l, k);
		free(k);
		p += len;
		if (*p == ',')
			p++;
	}
}

void
report_swept(const struct report *r, const size_t *cells, size_t ncells, struct strv *swept)
{
	struct strv keys = STRV_INIT, vals;
	size_t i, k;
	char *v;

	for (i = 0; i < ncells; i++)
		param_keys(r->cells[cells[i]].params, &keys);
	for (k = 0; k < keys.n; k++) {
		memset(&vals, 0, sizeof(vals));
		for (i = 0; i < ncells && vals.n < 2; i++) {
			v = report_param(r->cells[cells[i]].params, keys.v[k]);
			strv_push_unique(&vals, v ? v : "");
			free(v);
		}
		if (vals.n > 1)
			strv_push_unique(swept, keys.v[k]);
		strv_clear(&vals);
	}
	strv_clear(&keys);
}

/* --- Cells ------------------------------------------------------------------ */

static size_t
cell_get(struct report *r, const char *bench, const char *params, const char *metric,
    const char *unit, int higher)
{
	const char *key[3] = { bench, params, metric };
	struct rcell *c;
	size_t i;

	if ((i = strmap_addv(&r->cmap, key, 3, r->ncells)) != r->ncells)
		return i;
	xgrow(&r->cells, &r->cap_cells, r->ncells + 1, sizeof(*r->cells));
	c = &r->cells[r->ncells];
	c->bench = xstrdup(bench);
	c->params = xstrdup(params);
	c->metric = xstrdup(metric);
	c->unit = xstrdup(unit ? unit : "");
	c->higher = higher;
	return r->ncells++;
}

/* Keep a copy of a trial's samples in slot i of rv (report_keep_samples()). */
static void
samples_put(struct rvals *rv, size_t i, const double *sv, size_t sn)
{
	struct rsamples *sm = &rv->smp[i];

	free(sm->v);
	sm->n = sn;
	sm->v = sn ? xreallocarray(NULL, sn, sizeof(*sm->v)) : NULL;
	if (sn)
		memcpy(sm->v, sv, sn * sizeof(*sv));
}

/* The value of a trial, and with report_keep_samples() its sn samples sv. */
static void
vals_put(struct report *r, size_t s, size_t c, int rep, double v, const double *sv,
    size_t sn)
{
	struct rvals *rv;
	size_t i, old = r->vals_n[s];

	if (c >= old) {
		size_t n = r->ncells > c + 1 ? r->ncells : c + 1;

		r->vals[s] = xreallocarray(r->vals[s], n, sizeof(**r->vals));
		memset(&r->vals[s][old], 0, (n - old) * sizeof(**r->vals));
		r->vals_n[s] = n;
	}
	rv = &r->vals[s][c];
	/*
	 * A trial run again (--resume) replaces its earlier value.  Lines
	 * mostly come in the order of their repetitions: one past the largest
	 * yet is new without a look at the others (a million lines would
	 * otherwise be a quadratic scan).
	 */
	for (i = rv->n > 0 && rep <= rv->rep_max ? rv->n : 0; i-- > 0;)
		if (rv->rep[i] == rep) {
			rv->v[i] = v;
			if (r->keep_samples)
				samples_put(rv, i, sv, sn);
			return;
		}
	if (rv->n == rv->cap) {
		rv->cap = rv->cap ? rv->cap * 2 : 4;
		rv->rep = xreallocarray(rv->rep, rv->cap, sizeof(*rv->rep));
		rv->v = xreallocarray(rv->v, rv->cap, sizeof(*rv->v));
		if (r->keep_samples) {
			rv->smp = xreallocarray(rv->smp, rv->cap, sizeof(*rv->smp));
			memset(&rv->smp[rv->n], 0, (rv->cap - rv->n) * sizeof(*rv->smp));
		}
	}
	rv->rep[rv->n] = rep;
	if (rv->n == 0 || rep > rv->rep_max)
		rv->rep_max = rep;
	if (r->keep_samples)
		samples_put(rv, rv->n, sv, sn);
	rv->v[rv->n++] = v;
}

/* --- Reading a run ------------------------------------------------------------ */

struct runctx {
	struct report	*r;
	const char	*dir;
	struct rundir_run *run;	/* run.json */
	const char	*run_id;
	const char	*label;		/* run.json "label" or NULL */
	double		 threshold;
	double		 fdr;
	char		*regmetrics;	/* see struct rseries */
	size_t		 first;		/* first series of this run */
	/* last looked-up series, lines come in runs of the same host */
	char		*last_host, *last_variant;
	size_t		 last;
	size_t		 corrupt, first_corrupt;	/* lines that are not trial lines */
	char		 first_why[TRIALREAD_WHY_MAX];	/* what is wrong with the first */
};

static int
same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static size_t
series_get(struct runctx *x, const char *host, const char *variant)
{
	struct report *r = x->r;
	struct rseries *s;
	const struct rundir_host *h;
	const char *kernel = NULL;
	json_t *env;
	char *err = NULL;
	size_t i;

	if (x->last_host && strcmp(x->last_host, host) == 0 &&
	    same_str(x->last_variant, variant))
		return x->last;
	for (i = x->first; i < r->nseries; i++)
		if (strcmp(r->series[i].host, host) == 0 &&
		    same_str(r->series[i].variant, variant))
			goto found;

	xgrow(&r->series, &r->cap_series, r->nseries + 1, sizeof(*r->series));
	r->vals = xreallocarray(r->vals, r->cap_series, sizeof(*r->vals));
	r->vals_n = xreallocarray(r->vals_n, r->cap_series, sizeof(*r->vals_n));
	r->vals[r->nseries] = NULL;
	r->vals_n[r->nseries] = 0;
	s = &r->series[r->nseries];
	memset(s, 0, sizeof(*s));
	s->run = xstrdup(x->run_id);
	s->group = xstrdup_null(x->run->group);
	s->dir = xstrdup(x->dir);
	s->host = xstrdup(host);
	s->variant = xstrdup_null(variant);
	s->threshold = x->threshold;
	s->fdr = x->fdr;
	s->regmetrics = xstrdup_null(x->regmetrics);
	s->plan = xstrdup_null(x->run->plan);

	rundir_load_env(x->dir, host, &env, &err);
	free(err);
	h = rundir_run_host(x->run, host);
	kernel = h ? h->kernel : NULL;
	if (kernel == NULL)
		kernel = json_string_value(json_object_get(json_object_get(env, "uname"),
		    "release"));
	s->label = xstrdup(x->label ? x->label : kernel ? kernel : "unknown");
	if (json_is_number(json_object_get(env, "mhz")))
		s->mhz = json_number_value(json_object_get(env, "mhz"));
	json_decref(env);

	s->dup = 1;
	for (i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i].label, s->label) == 0 &&
		    strcmp(r->series[i].host, host) == 0 &&
		    same_str(r->series[i].variant, variant))
			s->dup++;
	{
		char suffix[16] = "";

		if (s->dup > 1)
			snprintf(suffix, sizeof(suffix), "#%d", s->dup);
		s->name = xasprintf("%s/%s%s%s%s", host, s->label, variant ? "/" : "",
		    variant ? variant : "", suffix);
		s->os = xasprintf("%s%s", variant ? variant : s->label,
		    r->label_rows ? "" : suffix);
	}
	i = r->nseries++;
found:
	free(x->last_host);
	free(x->last_variant);
	x->last_host = xstrdup(host);
	x->last_variant = xstrdup_null(variant);
	x->last = i;
	return i;
}

/*
 * What reports read of a line.  Leniently, as they always have: a member
 * of the wrong type is as good as absent (a variant that is a number is no
 * variant, a value that is text no value), and every line comes to
 * add_line(), which counts those that are not trial lines.
 */
#define REPORT_FIELDS	(TRIAL_VARIANT | TRIAL_PARAMS_TEXT | TRIAL_REP | TRIAL_METRIC | \
			 TRIAL_VALUE | TRIAL_KIND | TRIAL_NOTES | TRIAL_PROFILE | TRIAL_MESSAGE | \
			 TRIAL_KERNEL | TRIAL_SUITE | \
			 TRIAL_LENIENT | TRIAL_REJECTS)

/* The same, and each line's samples when report_keep_samples() asked. */
static unsigned int
report_fields(const struct report *r)
{
	return REPORT_FIELDS | (r->keep_samples ? TRIAL_SAMPLES : 0);
}

/* One line of trials.jsonl into the report. */
static int
add_line(const struct trial_line *l, void *arg)
{
	struct runctx *x = arg;
	struct report *r = x->r;
	size_t s, c;

	switch (l->reject) {
	case TRIAL_OK:
		break;
	case TRIAL_EMPTY:
		return 0;
	case TRIAL_OTHER_FORMAT:
		/* docs/results.md: a reader skips a line of a format it does not know */
		if (r->counts.unknown_format++ == 0)
			log_warn("%s/%s:%zu: format %lld not known (this fleetmark reads %d), "
			    "line skipped", x->dir, RUNDIR_TRIALS, l->lineno, l->format,
			    RUNDIR_FORMAT);
		return 0;
	default:
		if (x->corrupt++ == 0) {
			x->first_corrupt = l->lineno;
			snprintf(x->first_why, sizeof(x->first_why), "%s",
			    l->why ? l->why : "not a trial line");
		}
		return 0;
	}
	s = series_get(x, l->host, l->variant);
	if (l->kernel != NULL && report_kernel_add(r, s, l->bench, l->suite, l->params_text,
	    l->rep, l->kernel, l->kernel_len) != 0 && r->counts.bad_kernel++ == 0)
		log_warn("%s/%s:%zu: a malformed kernel member, not used", x->dir,
		    RUNDIR_TRIALS, l->lineno);
	if (strcmp(l->status, "ok") != 0) {
		int infra = same_str(l->kind, "infrastructure");

		r->series[s].failed++;
		r->counts.failed++;
		r->series[s].infra += infra;
		r->counts.infra += infra;
		report_failure_add(r, s, l->bench, l->params_text, l->status, l->message);
		return 0;
	}
	if (l->profile != NULL) {
		json_t *prof = json_loadb(l->profile, l->profile_len, 0, NULL);

		if (report_profile_add(r, s, l->bench, l->params_text, prof) != 0 &&
		    r->counts.bad_profiles++ == 0)
			log_warn("%s/%s:%zu: a malformed profile, not used", x->dir,
			    RUNDIR_TRIALS, l->lineno);
		json_decref(prof);
	}
	if (l->nnotes > 0)
		report_lmbench_notes(r, s, l->bench, l->params_text, l->notes, l->nnotes);
	if (l->metric == NULL || !l->has_value) {
		r->series[s].nometric++;
		r->counts.nometric++;
		return 0;
	}
	c = cell_get(r, l->bench, l->params_text, l->metric, l->unit,
	    same_str(l->direction, "higher"));
	vals_put(r, s, c, (int)l->rep, l->value, l->samples, l->nsamples);
	report_notes_put(&r->vals[s][c], l->notes, l->nnotes);
	r->counts.used++;
	return 0;
}

/* The run's trials.jsonl, or the len bytes at lines in its stead. */
static int
read_trials(struct runctx *x, const void *lines, size_t len, char **err)
{
	char *path = rundir_path(x->dir, RUNDIR_TRIALS);
	struct trial_scan sc;
	int fd, ret = -1;

	if (lines != NULL)
		(void)trialread_buf(lines, len, report_fields(x->r), add_line, x, &sc);
	else {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			if (errno == ENOENT) {
				log_warn("%s: no trials yet", path);
				ret = 0;
			} else
				*err = xasprintf("cannot open %s: %s", path, strerror(errno));
			goto out;
		}
		ret = trialread_fd(fd, path, report_fields(x->r), add_line, x, &sc, err);
		close(fd);
		if (ret != 0)
			goto out;
	}
	x->r->counts.lines += sc.lines;
	if (sc.truncated) {
		/* A crash while the last line was written. */
		log_warn("%s:%zu: truncated last line skipped", path, sc.lines + 1);
		x->r->counts.truncated++;
	}
	if (x->corrupt) {
		log_warn("%s: %zu line%s, skipped (the first is line %zu: %s)", path,
		    x->corrupt, x->corrupt == 1 ? " is not a trial line" : "s are not trial lines",
		    x->first_corrupt, x->first_why);
		x->r->counts.corrupt += x->corrupt;
	}
	ret = 0;
out:
	free(path);
	return ret;
}

/* A run directory, its trial lines from lines when not NULL. */
static int
add_run(struct report *r, const char *dir, const void *lines, size_t len, char **err)
{
	struct runctx x;
	size_t i;
	int ret = -1;

	memset(&x, 0, sizeof(x));
	x.r = r;
	x.dir = dir;
	x.first = r->nseries;
	if (rundir_load(dir, &x.run, err) != 0)
		goto out;
	x.run_id = x.run->id ? x.run->id : dir;
	x.label = x.run->label;
	{
		struct rrun *rr;

		xgrow(&r->runs, &r->cap_runs, r->nruns + 1, sizeof(*r->runs));
		rr = &r->runs[r->nruns++];
		rr->id = xstrdup(x.run_id);
		rr->dir = xstrdup(dir);
		rr->status = xstrdup_null(x.run->status);
		rr->partial = x.run->status != NULL && strcmp(x.run->status,
		    journal_status_name(JOURNAL_FINISHED)) != 0;
		report_group_run(rr, x.run);
	}
	x.threshold = x.run->threshold;
	x.fdr = x.run->fdr;
	for (i = 0; i < x.run->nmetrics; i++) {
		const char *m = x.run->metrics[i];
		char *t;

		if (strchr(m, ' ') != NULL)
			continue;
		t = xasprintf("%s%s ", x.regmetrics ? x.regmetrics : " ", m);
		free(x.regmetrics);
		x.regmetrics = t;
	}
	if (read_trials(&x, lines, len, err) != 0)
		goto out;
	report_profile_sort(r);
	for (i = x.first; i < r->nseries; i++)
		if (r->series[i].failed || r->series[i].nometric)
			log_info("%s: %zu line%s not ok (%zu infrastructure), %zu without a "
			    "metric, not used", r->series[i].name, r->series[i].failed,
			    r->series[i].failed == 1 ? "" : "s", r->series[i].infra,
			    r->series[i].nometric);
	ret = 0;
out:
	free(x.last_host);
	free(x.last_variant);
	free(x.regmetrics);
	rundir_run_free(x.run);
	return ret;
}

int
report_add_run(struct report *r, const char *dir, char **err)
{
	return add_run(r, dir, NULL, 0, err);
}

int
report_add_lines(struct report *r, const char *dir, const void *lines, size_t len,
    char **err)
{
	return add_run(r, dir, lines != NULL ? lines : "", len, err);
}

size_t *
report_pairs(const struct report *r, size_t base, int *fallback)
{
	const struct rseries *b = &r->series[base];
	size_t *pairs = xcalloc(r->nseries, sizeof(*pairs)), s, t;

	for (s = 0; s < r->nseries; s++) {
		const struct rseries *x = &r->series[s];

		/* in the baseline group: same run (or run group), label and
		 * variant as the baseline */
		if (s == base || (report_same_run(x, b) && x->dup == b->dup &&
		    strcmp(x->label, b->label) == 0 && same_str(x->variant, b->variant))) {
			pairs[s] = (size_t)-1;
			continue;
		}
		pairs[s] = base;
		for (t = 0; t < r->nseries; t++) {
			const struct rseries *y = &r->series[t];

			if (strcmp(y->host, x->host) == 0 && report_same_run(y, b) &&
			    y->dup == b->dup && strcmp(y->label, b->label) == 0 &&
			    same_str(y->variant, b->variant)) {
				pairs[s] = t;
				break;
			}
		}
	}
	/* One run of several hosts and nothing else: hosts against the baseline. */
	if (fallback)
		*fallback = 0;
	for (s = 0; s < r->nseries; s++)
		if (pairs[s] != (size_t)-1)
			return pairs;
	for (s = 0; s < r->nseries; s++)
		pairs[s] = s == base ? (size_t)-1 : base;
	if (fallback)
		*fallback = 1;
	return pairs;
}

size_t
report_series_index(const struct report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i].name, name) == 0)
			return i;
	return (size_t)-1;
}

/* The series want names (report_has_series()), or (size_t)-1. */
static size_t
series_named(const struct report *r, const char *want)
{
	size_t i;

	if ((i = report_series_index(r, want)) != (size_t)-1)
		return i;
	for (i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i].label, want) == 0 || same_str(r->series[i].variant,
		    want) || strcmp(r->series[i].host, want) == 0 ||
		    strcmp(r->series[i].run, want) == 0 || strcmp(r->series[i].dir, want) == 0)
			return i;
	return (size_t)-1;
}

int
report_has_series(const struct report *r, const char *name)
{
	return series_named(r, name) != (size_t)-1;
}

static size_t
find_baseline(const struct report *r, const char *want, char **err)
{
	size_t i;

	if (want == NULL)
		return 0;
	if ((i = series_named(r, want)) != (size_t)-1)
		return i;
	*err = xasprintf("no series '%s' (series: %s%s)", want,
	    r->nseries ? r->series[0].name : "none", r->nseries > 1 ? ", ..." : "");
	return (size_t)-1;
}

/*
 * The partial runs (report.h): a "partial" grid whose text is one
 * "PARTIAL RUN:" line per run, for the top of a report; NULL when every
 * run is complete.
 */
static struct rgrid *
partial_grid(const struct report *r)
{
	static const char *const cols[] = { "run", "dir", "status" };
	struct rgrid *g = NULL;
	struct strbuf sb;
	size_t i, row;

	strbuf_init(&sb, 0);
	for (i = 0; i < r->nruns; i++) {
		const struct rrun *rr = &r->runs[i];
		const char *st = rr->status;

		if (!rr->partial)
			continue;
		if (g == NULL)
			g = rgrid_new("partial", "Partial runs: not every trial ran (run.json "
			    "status); their points may be missing or have fewer trials", 2, 3,
			    cols);
		row = rgrid_add_row(g);
		rgrid_set(g, row, 0, rr->id, NAN);
		rgrid_set(g, row, 1, rr->dir, NAN);
		rgrid_set(g, row, 2, st, NAN);
		strbuf_addf(&sb, "PARTIAL RUN: %s (%s) %s: not every trial ran, so points may "
		    "be missing or have fewer trials\n", rr->id, rr->dir,
		    strcmp(st, journal_status_name(JOURNAL_INTERRUPTED)) == 0 ?
		    "was interrupted" : strcmp(st, journal_status_name(JOURNAL_RUNNING)) == 0 ?
		    "is running, or its controller died" :
		    strcmp(st, journal_status_name(JOURNAL_FAILED)) == 0 ?
		    "failed (the controller gave up)" :
		    strcmp(st, journal_status_name(JOURNAL_DETACHED)) == 0 ?
		    "is detached (`fleetmark collect` gathers it)" : "is not finished");
	}
	if (g != NULL)
		g->text = strbuf_detach(&sb, NULL);
	else
		strbuf_release(&sb);
	return g;
}

/* report_render(); partial: whether the partial runs' lines come first. */
static int
render_grids(const struct report *r, const struct report_opts *o, int partial, FILE *out,
    char **err)
{
	struct rgrids gs = { NULL, 0, 0 };
	struct rgrid *pg = NULL, *eg = NULL, *tg = NULL, *gg = NULL;
	size_t base = 0, i, ntop, notes = 0, nown = SIZE_MAX;
	int regressions = 0, first = 1, ret = -1;

	if (r->nseries == 0) {
		*err = xstrdup("no trial lines in the runs given");
		return -1;
	}
	if ((base = find_baseline(r, o->baseline, err)) == (size_t)-1)
		return -1;
	if (o->samples && !r->keep_samples) {
		*err = xstrdup("the samples table needs the samples, which were not read "
		    "(report_keep_samples())");
		return -1;
	}
	if (partial && (eg = report_env_grid(r, base)) != NULL)
		rgrids_add(&gs, eg);	/* the environment's differences, first */
	if (partial && (gg = report_group_grid(r)) != NULL)
		rgrids_add(&gs, gg);	/* the run groups: each run's facts */
	if (partial && (pg = partial_grid(r)) != NULL)
		rgrids_add(&gs, pg);	/* first: the top of the report */
	if (partial && (tg = report_tune_grid(r)) != NULL)
		rgrids_add(&gs, tg);
	if ((regressions = report_tables_build(r, o, base, &gs, err)) < 0)
		goto out;
	ntop = (eg != NULL) + (pg != NULL) + (tg != NULL) + (gg != NULL);	/* not data */
	nown = gs.n;
	for (i = 0; i < o->nextra; i++)	/* the caller's, last; not freed below */
		rgrids_add(&gs, o->extra[i]);
	if (gs.n == ntop) {
		*err = xstrdup("no table has data for the runs given (one series: no delta or "
		    "compare; no lmbench points; no two-parameter sweep)");
		goto out;
	}
	if (o->format == REPORT_HTML) {
		if (report_html(r, o, base, &gs, out) != 0) {
			*err = xstrdup("cannot write the report");
			goto out;
		}
		ret = regressions;
		goto out;
	}
	for (i = 0; i < gs.n; i++) {
		const struct rgrid *g = gs.g[i];

		/* CSV and JSON have the compare table's mark column instead */
		if ((o->format == REPORT_CSV || o->format == REPORT_JSON) &&
		    strcmp(g->table, "regressions") == 0)
			continue;
		switch (o->format) {
		case REPORT_TEXT:
			if (i > 0)
				fputc('\n', out);
			/* delta lines are bare, as in mail; among other tables, titled */
			if (g->text && gs.n - ntop > 1 && strcmp(g->table, "delta") == 0)
				fprintf(out, "%s\n", g->title);
			if (g->text) {
				fputs(g->text, out);
				rgrid_notes_print(g, out, 0, 0);
			} else
				rgrid_print_text(g, out);
			break;
		case REPORT_MD:
			if (i > 0)
				fputc('\n', out);
			rgrid_print_md(g, out, &notes);
			break;
		case REPORT_CSV:
			if (i > 0)
				fputc('\n', out);
			rgrid_print_csv(g, out);
			break;
		case REPORT_JSON:
			rgrid_print_json(g, out, &first);
			break;
		case REPORT_HTML:	/* the whole page, above */
			break;
		}
	}
	if (o->format == REPORT_JSON)
		fputs(first ? "[]\n" : "\n]\n", out);
	ret = regressions;
out:
	for (i = 0; i < gs.n && i < nown; i++)	/* the caller's are not ours */
		rgrid_free(gs.g[i]);
	free(gs.g);
	return ret;
}

/*
 * The report for a terminal or a file people read: text, Markdown and CSV
 * are rendered whole, then written with the controls that came with the
 * runs' strings escaped (utf8_escape(); the cells were escaped one by
 * one, newlines too, as they were laid out).  JSON is escaped by jansson
 * and HTML by html.h.  partial: as render_grids()'s.
 */
struct render_args {
	const struct report		*r;
	const struct report_opts	*o;
	int				 partial;
	char				**err;
};

static int
render_into(void *arg, FILE *mem)
{
	struct render_args *a = arg;

	return render_grids(a->r, a->o, a->partial, mem, a->err);
}

static int
render(const struct report *r, const struct report_opts *o, int partial, FILE *out,
    char **err)
{
	struct render_args a = { r, o, partial, err };
	int n;

	*err = NULL;
	if (o->format == REPORT_JSON || o->format == REPORT_HTML)
		return render_grids(r, o, partial, out, err);
	n = utf8_render_escaped(out, UTF8_KEEP_NL | UTF8_KEEP_TAB, render_into, &a);
	if (n < 0 && *err == NULL)
		*err = xasprintf("cannot write the report: %s", strerror(errno));
	return n;
}

int
report_render(const struct report *r, const struct report_opts *o, FILE *out, char **err)
{
	return render(r, o, 1, out, err);
}

/*
 * Write len bytes of text to rundir/name atomically, without syncing: a
 * report can be made again from the run directory (fsutil.h's policy).
 */
static int
write_report(const char *rundir, const char *name, const char *text, size_t len,
    char **err)
{
	char *path = rundir_path(rundir, name);
	int r = fs_write_atomic(path, text, len, 0666, FS_NOSYNC, err);

	free(path);
	return r;
}

/* Render r with o into a new string (*text, *len); the render's result.
 * partial: as render()'s. */
static int
render_text(const struct report *r, const struct report_opts *o, int partial, char **text,
    size_t *len, char **err)
{
	FILE *mem;
	int n;

	*text = NULL;
	*len = 0;
	if ((mem = open_memstream(text, len)) == NULL) {
		*err = xasprintf("cannot write the report: %s", strerror(errno));
		return -1;
	}
	n = render(r, o, partial, mem, err);
	fclose(mem);
	if (n < 0) {
		free(*text);
		*text = NULL;
	}
	return n;
}

int
report_write_run(const char *rundir, FILE *out, char **err)
{
	struct report *r = report_new();
	struct report_opts o;
	char *text = NULL;
	size_t len = 0;
	int ret = -1;

	report_opts_init(&o);
	if (report_add_run(r, rundir, err) != 0)
		goto out;
	if (r->nseries == 0) {
		*err = xasprintf("%s: no trials to report", rundir);
		goto out;
	}
	if (render_text(r, &o, 1, &text, &len, err) < 0 ||
	    write_report(rundir, RUNDIR_REPORT_TXT, text, len, err) != 0)
		goto out;
	if (out != NULL)
		fwrite(text, 1, len, out);
	ret = 0;
out:
	free(text);
	report_free(r);
	return ret;
}

int
report_write_baseline(const char *rundir, const char *basedir, FILE *out, char **err)
{
	struct report *r = report_new();
	struct report_opts o;
	char *text = NULL, *lm = NULL, *html = NULL;
	size_t len = 0, lmlen = 0, hlen = 0;
	int ret = -1, n;

	report_opts_init(&o);
	if (report_add_run(r, basedir, err) != 0)
		goto out;
	if (r->nseries == 0) {
		*err = xasprintf("%s: the baseline has no trials", basedir);
		goto out;
	}
	o.baseline = report_series_name(r, 0);
	if (report_add_run(r, rundir, err) != 0)
		goto out;
	if (report_nseries(r) == 1) {
		*err = xasprintf("%s: no trials to report", rundir);
		goto out;
	}
	/* lmbench's tables of both runs first, when there are some */
	if (report_has_lmbench(r)) {
		o.table = REPORT_TABLE_LMBENCH;
		if (render_text(r, &o, 1, &lm, &lmlen, err) < 0)
			goto out;
	}
	/* the partial runs' lines once, at the top */
	o.table = REPORT_TABLE_COMPARE;
	if ((n = render_text(r, &o, lm == NULL, &text, &len, err)) < 0)
		goto out;
	if (lm != NULL) {
		lm = xreallocarray(lm, lmlen + 1 + len + 1, 1);
		lm[lmlen++] = '\n';
		memcpy(lm + lmlen, text, len + 1);
		lmlen += len;
		free(text);
		text = lm;
		len = lmlen;
		lm = NULL;
	}
	if (write_report(rundir, RUNDIR_REPORT_TXT, text, len, err) != 0)
		goto out;
	o.format = REPORT_HTML;
	if (render_text(r, &o, 1, &html, &hlen, err) < 0 ||
	    write_report(rundir, RUNDIR_REPORT_HTML, html, hlen, err) != 0)
		goto out;
	if (out != NULL)
		fwrite(text, 1, len, out);
	ret = n;
out:
	free(lm);
	free(text);
	free(html);
	report_free(r);
	return ret;
}

/* --- numbers as strings, shared by the tables (report-int.h) --------------- */

int
report_is_number(const char *s)
{
	char *end;

	if (*s == '\0')
		return 0;
	(void)strtod(s, &end);
	return *end == '\0';
}

int
report_cmp_num(const void *a, const void *b)
{
	double x = atof(*(char *const *)a), y = atof(*(char *const *)b);

	return x < y ? -1 : x > y;
}
