/*
 * history.c: a plan's nights in a results directory or an archive, as
 * series with their change points (history.h).  Each run's summary is
 * kept in a cache file between loads (history/cache.c).
 *
 * A load goes in two passes over the runs.  The first learns what each
 * run is (plan, status, start, labels) from its cache file or its
 * run.json, so that the plan can be chosen; the second takes the nights
 * of the plan's finished runs, each from its cache file or, when that has
 * no series yet, from trials.jsonl, and writes the cache file.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "archive.h"
#include "changepoint.h"
#include "fsutil.h"
#include "history.h"
#include "history/history-int.h"
#include "log.h"
#include "rundir.h"
#include "runref.h"
#include "series.h"
#include "serieskey.h"
#include "stats.h"
#include "strbuf.h"
#include "strmap.h"
#include "strv.h"
#include "trialread.h"
#include "verdict.h"
#include "xmalloc.h"

#define LIST_MAX	12	/* names listed in a message */

static void
series_release(struct history_series *s)
{
	series_key_release(&s->key);
	strv_free(s->pkeys, s->nparams);
	strv_free(s->pvals, s->nparams);
	free(s->nights);
	free(s->changes);
	free(s->segments);
	memset(s, 0, sizeof(*s));
}

/* --- One run's series: its rows -------------------------------------------- */

/* The series of the run directory dir into st, from its trials.jsonl. */
static int
rows_read(const char *dir, struct series_store *st, char **err)
{
	struct trial_scan scan;
	char *path = rundir_path(dir, RUNDIR_TRIALS);
	int r;

	r = series_store_read(st, path, 0, NULL, NULL, &scan, err);
	if (r == 0 && scan.corrupt > 0)
		log_warn("%s: %zu line%s, skipped (the first is line %zu: %s)", path,
		    scan.corrupt, scan.corrupt == 1 ? " is not a trial line" :
		    "s are not trial lines", scan.first_corrupt, scan.first_why);
	free(path);
	return r;
}

/* --- What a run is ------------------------------------------------------------- */

static void
meta_release(struct meta *m)
{
	free(m->where);
	free(m->dir);
	free(m->key);
	free(m->valid);
	free(m->cpath);
	free(m->id);
	free(m->plan);
	free(m->status);
	free(m->start);
	free(m->label);
	free(m->commit);
	free(m->plan_file);
	free(m->group);
	strv_free(m->hosts, m->nhosts);
	strv_free(m->kernels, m->nhosts);
	memset(m, 0, sizeof(*m));
}

/* The facts of run.json (and hosts/NAME.json for a kernel it lacks). */
static void
meta_from_run(struct meta *m, const struct rundir_run *r)
{
	size_t i;

	m->id = xstrdup_null(r->id);
	m->plan = xstrdup_null(r->plan);
	m->status = xstrdup_null(r->status);
	m->start = xstrdup_null(r->start);
	m->label = xstrdup_null(r->label);
	m->commit = xstrdup_null(r->commit);
	m->plan_file = xstrdup_null(r->plan_file);
	m->group = xstrdup_null(r->group);
	m->threshold = r->threshold;
	m->nhosts = r->nhosts;
	m->hosts = xcalloc(r->nhosts + 1, sizeof(*m->hosts));
	m->kernels = xcalloc(r->nhosts + 1, sizeof(*m->kernels));
	for (i = 0; i < r->nhosts; i++) {
		const char *k = r->hosts[i].kernel;
		json_t *env = NULL;
		char *e = NULL;

		m->hosts[i] = xstrdup(r->hosts[i].name);
		if (k == NULL && r->label == NULL &&
		    rundir_load_env(m->dir, r->hosts[i].name, &env, &e) == 0)
			k = json_string_value(json_object_get(json_object_get(env,
			    "uname"), "release"));
		m->kernels[i] = xstrdup_null(k);
		json_decref(env);
		free(e);
	}
}
/* The cache lines of a run's rows, appended to sb; how many. */
static size_t
rows_text(const struct series_store *rs, struct strbuf *sb)
{
	size_t i, n = 0;

	for (i = 0; i < series_store_n(rs); i++) {
		const struct series *r = series_store_at(rs, i);

		if (history_cache_line(sb, &r->key, r->nparams, (const char *const *)r->pkeys,
		    (const char *const *)r->pvals, r->higher, r->mean, series_sd(r), r->n) == 0)
			n++;
	}
	return n;
}

/* --- A load ----------------------------------------------------------------------- */

struct load {
	const struct history_opts *o;
	const char	*source;	/* as given */
	char		*url;		/* an archive's URL, or NULL */
	char		*cache;		/* the cache directory, or NULL */
	int		 cache_warned;
	struct meta	*m;
	size_t		 n, cap;
	size_t		 fetched;	/* archive runs fetched (archive_fetch()) */
};

static void
cache_warn(struct load *ld, const char *what)
{
	if (!ld->cache_warned)
		log_warn("history cache: %s (going on without it)", what);
	ld->cache_warned = 1;
}

/* Write m's cache file; a failure is said once and the load goes on without it. */
static void
cache_write(struct load *ld, const struct meta *m, const struct strbuf *body, size_t nrows)
{
	char *e = NULL;

	if (history_cache_write(m, body, nrows, &e) != 0)
		cache_warn(ld, e);
	free(e);
}

/* --- The first pass: what each run is --------------------------------------------- */

static struct meta *
meta_new(struct load *ld, const char *where, const char *key)
{
	struct meta *m;

	xgrow(&ld->m, &ld->cap, ld->n + 1, sizeof(*ld->m));
	m = &ld->m[ld->n++];
	memset(m, 0, sizeof(*m));
	m->where = xstrdup(where);
	m->key = xstrdup(key);
	m->threshold = -1;
	if (ld->cache != NULL)
		m->cpath = history_cache_path(ld->cache, key);
	return m;
}

/* Drop the last meta_new(): a run that cannot be read is left out. */
static void
meta_drop(struct load *ld)
{
	meta_release(&ld->m[--ld->n]);
}

/* m's facts from run.json; -1 (warned about) when it cannot be read. */
static int
meta_load(struct meta *m)
{
	struct rundir_run *r;
	char *e = NULL;

	if (rundir_load(m->dir, &r, &e) != 0) {
		log_warn("%s: %s; left out", m->where, e);
		free(e);
		return -1;
	}
	meta_from_run(m, r);
	rundir_run_free(r);
	return 0;
}

/* The cache file's facts when it was made from what m->valid says. */
static void
meta_cached(struct meta *m)
{
	json_t *first;
	char *buf;
	size_t len;

	if (history_cache_open(m, &first, &buf, &len) != 0)
		return;
	if (strcmp(json_string_value(json_object_get(first, "valid")), m->valid) == 0)
		history_cache_meta(m, first);
	json_decref(first);
	free(buf);
}

/* A run directory of the results directory. */
static void
local_run(struct load *ld, const char *dir)
{
	struct meta *m;
	char *real = realpath(dir, NULL);

	m = meta_new(ld, dir, real != NULL ? real : dir);
	free(real);
	m->dir = xstrdup(dir);
	m->valid = history_cache_stat_valid(dir);
	meta_cached(m);
	if (m->cache == CACHE_NONE && meta_load(m) != 0)
		meta_drop(ld);
}

/*
 * An archive run: fetched (archive_fetch(): the archive's MANIFEST is
 * read every time, the run pulled unless the archive cache holds that
 * very run), then its facts from the history cache when that was made
 * from the same sums.  A run that cannot be fetched or does not verify
 * is warned about and left out: one bad run in a shared archive must not
 * take every history (and every nightly) down with it.  -1 only when
 * interrupted.
 */
static int
archive_run(struct load *ld, const char *id, char **err)
{
	struct meta *m;
	json_t *first = NULL;
	char *where, *buf = NULL, *dir = NULL, *e = NULL;
	const char *cdir = NULL, *cvalid = NULL;
	size_t len;
	int ret = 0, level, r;

	where = xasprintf("%s/%s", ld->source, id);
	m = meta_new(ld, where, where);
	free(where);
	if (history_cache_open(m, &first, &buf, &len) == 0) {
		cdir = json_string_value(json_object_get(first, "dir"));
		cvalid = json_string_value(json_object_get(first, "valid"));
	}
	/* a line or two a run from the archive: only with -v, one line in all else */
	level = log_get_level();
	if (level == LOG_LEVEL_INFO)
		log_set_level(LOG_LEVEL_QUIET);
	r = archive_fetch(ld->url, id, &dir, &e);
	log_set_level(level);
	ld->fetched++;
	if (r == ARCHIVE_ECANCELED || archive_cancelled()) {
		*err = xasprintf("%s: %s", m->where, e != NULL ? e : "interrupted");
		free(e);
		meta_drop(ld);
		ret = -1;
		goto out;
	}
	if (r != 0) {
		log_warn("%s: %s; left out", m->where, e);
		free(e);
		meta_drop(ld);
		goto out;
	}
	m->dir = dir;
	if ((m->valid = history_cache_manifest_valid(dir, &e)) == NULL) {
		log_warn("%s: %s; left out", m->where, e);
		free(e);
		meta_drop(ld);
		goto out;
	}
	if (first != NULL && cvalid != NULL && strcmp(m->valid, cvalid) == 0) {
		history_cache_meta(m, first);
		m->stale = cdir == NULL || strcmp(cdir, dir) != 0;
	} else if (meta_load(m) != 0)
		meta_drop(ld);
 out:
	json_decref(first);
	free(buf);
	return ret;
}

/* The run directories in the directory source. */
static int
list_local(struct load *ld, char **err)
{
	char **names, *p;
	size_t n, i;

	if (rundir_exists(ld->source)) {
		*err = xasprintf("%s is a run directory: history reads the directory that "
		    "holds the runs (its parent)", ld->source);
		return HISTORY_EINPUT;
	}
	if (fs_list_dir(ld->source, &names, &n, err) != 0)
		return errno == ENOENT || errno == ENOTDIR ? HISTORY_EINPUT : -1;
	for (i = 0; i < n; i++) {
		p = xasprintf("%s/%s", ld->source, names[i]);
		if (rundir_exists(p))
			local_run(ld, p);
		else
			log_debug("%s: not a run directory (no %s)", p, RUNDIR_RUN_JSON);
		free(p);
	}
	strv_free(names, n);
	return 0;
}

/*
 * Whether the run id's time stamp is before since: a run the archive
 * need not be fetched for.  Ids that are not run ids never are.
 */
static int
id_before(const char *id, const char *since)
{
	char t[32];

	if (!runref_id_matches(id, NULL, NULL))
		return 0;
	/* "YYYYMMDD-HHMMSS" as "YYYY-MM-DDTHH:MM:SSZ" */
	snprintf(t, sizeof(t), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", id, id + 4, id + 6, id + 9,
	    id + 11, id + 13);
	return strncmp(t, since, strlen(since)) < 0;
}

/* The runs of the archive at ld->url (of the plan asked for, when one is). */
static int
list_archive(struct load *ld, char **err)
{
	char **ids = NULL;
	size_t n = 0, i, skipped = 0;
	int r = 0;

	if (archive_list(ld->url, &ids, &n, err) != 0)
		return -1;
	for (i = 0; i < n && r == 0; i++) {
		if ((ld->o->plan != NULL && !runref_id_matches(ids[i], ld->o->plan, NULL)) ||
		    (ld->o->since != NULL && id_before(ids[i], ld->o->since))) {
			skipped++;
			continue;
		}
		r = archive_run(ld, ids[i], err);
	}
	if (ld->fetched > 0) {
		char *c = archive_cache_dir();

		log_info("%s: %zu run%s fetched (pulled, or verified in %s)", ld->source, ld->fetched,
		    ld->fetched == 1 ? "" : "s", c);
		free(c);
	}
	if (skipped > 0)
		log_verbose("%s: %zu run%s of other plans or before --since not fetched",
		    ld->source, skipped, skipped == 1 ? "" : "s");
	strv_free(ids, n);
	return r;
}

/* --- Options ------------------------------------------------------------------- */

void
history_opts_init(struct history_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = -1;
}

static int
digits(const char *s, size_t n, int *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		*v = *v * 10 + (s[i] - '0');
	}
	return 1;
}

int
history_since_valid(const char *s)
{
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, sec;
	size_t n = strlen(s);

	if ((n != 10 && n != 20) || !digits(s, 4, &y) || s[4] != '-' ||
	    !digits(s + 5, 2, &mo) || s[7] != '-' || !digits(s + 8, 2, &d))
		return 0;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))))
		return 0;
	if (n == 10)
		return 1;
	return s[10] == 'T' && digits(s + 11, 2, &h) && s[13] == ':' &&
	    digits(s + 14, 2, &mi) && s[16] == ':' && digits(s + 17, 2, &sec) &&
	    s[19] == 'Z' && h < 24 && mi < 60 && sec <= 60;
}

/* Whether the row's bench and metric are among those of o->metric. */
static int
metric_wanted(const char *list, const char *bench, const char *metric)
{
	size_t bl = strlen(bench), ml = strlen(metric);
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if ((len == bl && memcmp(p, bench, bl) == 0) ||
		    (len == bl + 1 + ml && memcmp(p, bench, bl) == 0 && p[bl] == '.' &&
		    memcmp(p + bl + 1, metric, ml) == 0))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int
host_wanted(const struct history_opts *o, const char *host)
{
	size_t i;

	if (o->nhosts == 0)
		return 1;
	for (i = 0; i < o->nhosts; i++)
		if (strcmp(o->hosts[i], host) == 0)
			return 1;
	return 0;
}

/* --- The second pass: the nights ------------------------------------------------ */

/* Series with no night: made from a cache file that then did not decode. */
static void
drop_empty(struct history *h)
{
	size_t i, k = 0;

	for (i = 0; i < h->nseries; i++)
		if (h->series[i].n == 0)
			series_release(&h->series[i]);
		else
			h->series[k++] = h->series[i];
	h->nseries = k;
}

/* A series key the filters leave out, in struct build's map. */
#define SKIPPED		((size_t)-2)

/* What the second pass builds: the series by key, and names seen for messages. */
struct build {
	struct history	*h;
	struct strmap	 series;	/* encoded key to index into h->series, or SKIPPED */
	size_t		 cap;		/* of h->series */
	struct strmap	 hosts, metrics;	/* seen in the plan's nights (all of them) */
	size_t		*idx;		/* scratch: the series of each row */
	size_t		 idx_cap;
	int		 warned;	/* a host in two runs of a group, said */
};

static const char *
night_label(const struct history_run *r, const char *host)
{
	size_t i;

	for (i = 0; i < r->nhosts; i++)
		if (strcmp(r->hosts[i], host) == 0)
			return r->labels[i];
	return r->label != NULL ? r->label : "unknown";
}

/*
 * The nights of run `run` from its rows v[0..n): each row to its series
 * (made, or skipped by the filters, the first time its key is seen), then
 * a night on each.  -1 when a new key does not decode (a corrupt cache
 * file), before any night is added.
 */
static int
add_nights(struct build *b, const struct history_opts *o, size_t run, const struct nrow *v,
    size_t n)
{
	struct history *h = b->h;
	struct history_series s, *sp;
	struct history_night *nt;
	size_t i, k;
	char *bm;

	xgrow(&b->idx, &b->idx_cap, n + 1, sizeof(*b->idx));
	for (i = 0; i < n; i++) {
		if ((k = strmap_get(&b->series, v[i].key)) == STRMAP_NONE) {
			if (history_cache_series(&s, v[i].key, v[i].unit) != 0)
				return -1;
			bm = xasprintf("%s.%s", s.key.bench, s.key.metric);
			strmap_put(&b->hosts, s.key.host, 0);
			strmap_put(&b->metrics, bm, 0);
			free(bm);
			if (!host_wanted(o, s.key.host) || (o->metric != NULL &&
			    !metric_wanted(o->metric, s.key.bench, s.key.metric))) {
				series_release(&s);
				k = SKIPPED;
			} else {
				s.higher = v[i].higher;
				xgrow(&h->series, &b->cap, h->nseries + 1, sizeof(*h->series));
				k = h->nseries++;
				h->series[k] = s;
			}
			strmap_put(&b->series, v[i].key, k);
		}
		b->idx[i] = k;
	}
	for (i = 0; i < n; i++) {
		if (b->idx[i] == SKIPPED)
			continue;
		sp = &h->series[b->idx[i]];
		if (sp->n > 0 && h->runs[sp->nights[sp->n - 1].run].night == h->runs[run].night) {
			/* a host in two runs of a group: the later one's values */
			if (!b->warned++)
				log_warn("group %s: host %s is in two runs (%s, %s); that night has "
				    "the values of %s", h->runs[run].group, sp->key.host,
				    h->runs[sp->nights[sp->n - 1].run].id, h->runs[run].id,
				    h->runs[run].id);
			sp->n--;
		}
		xgrow(&sp->nights, &sp->cap, sp->n + 1, sizeof(*sp->nights));
		nt = &sp->nights[sp->n++];
		nt->run = run;
		nt->label = night_label(&h->runs[run], sp->key.host);
		nt->value = v[i].mean;
		nt->sd = v[i].sd;
		nt->n = v[i].n;
		nt->segment = 0;
	}
	return 0;
}

/* "a, b, c" of the keys of m, sorted, at most LIST_MAX of them. */
static char *
list_names(const struct strmap *m)
{
	struct strbuf sb = STRBUF_INIT;
	char **v = xcalloc(m->n + 1, sizeof(*v));
	const char *k;
	size_t i = 0, n = 0;

	while (strmap_next(m, &i, &k, NULL))
		v[n++] = (char *)k;
	strv_sort(v, n);
	for (i = 0; i < n && i < LIST_MAX; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", v[i]);
	if (n > LIST_MAX)
		strbuf_addf(&sb, " and %zu more", n - LIST_MAX);
	free(v);
	return strbuf_detach(&sb, NULL);
}

/* The filters matched nothing: say what there is. */
static int
check_filters(struct build *b, const struct history_opts *o, char **err)
{
	struct history *h = b->h;
	char *names;
	size_t i;

	for (i = 0; i < o->nhosts; i++)
		if (strmap_get(&b->hosts, o->hosts[i]) == STRMAP_NONE) {
			names = list_names(&b->hosts);
			*err = xasprintf("no host '%s' in the nights of plan '%s' (hosts: %s)",
			    o->hosts[i], h->plan, names);
			free(names);
			return HISTORY_EINPUT;
		}
	if (o->metric != NULL) {
		const char *p = o->metric;

		while (*p) {
			size_t len = strcspn(p, ","), j = 0, found = 0;
			const char *k;

			while (!found && strmap_next(&b->metrics, &j, &k, NULL))
				found = (strlen(k) == len && memcmp(k, p, len) == 0) ||
				    (strlen(k) > len && memcmp(k, p, len) == 0 && k[len] == '.');
			if (!found) {
				names = list_names(&b->metrics);
				*err = xasprintf("no metric '%.*s' in the nights of plan '%s' "
				    "(BENCH.METRIC: %s)", (int)len, p, h->plan, names);
				free(names);
				return HISTORY_EINPUT;
			}
			p += len;
			if (*p == ',')
				p++;
		}
	}
	if (h->nseries == 0) {
		*err = xasprintf("no trial values in the %zu night%s of plan '%s' in %s%s",
		    h->nruns, h->nruns == 1 ? "" : "s", h->plan, h->source,
		    o->nhosts || o->metric ? " for these hosts and metrics" : "");
		return HISTORY_EINPUT;
	}
	return 0;
}

/* --- Change points ------------------------------------------------------------- */

static int
detect(struct history *h, struct history_series *s, char **err)
{
	struct changepoint_opts co;
	struct changepoint_result cr = { NULL, 0, 0, 0 };
	double *x = xcalloc(s->n + 1, sizeof(*x));
	size_t i, j, start;
	int ret;

	for (i = 0; i < s->n; i++)
		x[i] = s->nights[i].value;
	changepoint_opts_init(&co);
	co.threshold = h->threshold;
	if ((ret = changepoint_detect(x, s->n, &co, &cr, err)) != 0)
		goto out;
	s->nchanges = cr.n;
	s->changes = xcalloc(cr.n + 1, sizeof(*s->changes));
	s->nsegments = cr.n + 1;
	s->segments = xcalloc(cr.n + 1, sizeof(*s->segments));
	for (i = 0; i < cr.n; i++) {
		struct history_change *c = &s->changes[i];

		c->night = cr.v[i].index;
		c->pct = cr.v[i].pct;
		c->lo = cr.v[i].lo;
		c->hi = cr.v[i].hi;
		c->p = cr.v[i].p;
		c->before = cr.v[i].before;
		c->after = cr.v[i].after;
		c->worse = s->higher ? c->pct < 0 : c->pct > 0;
		h->nworse += (size_t)c->worse;
	}
	h->nchanges += cr.n;
	for (i = 0, start = 0; i <= cr.n; i++) {
		struct history_segment *g = &s->segments[i];
		size_t end = i < cr.n ? cr.v[i].index : s->n;

		g->start = start;
		g->n = end - start;
		g->mean = stats_mean(x + start, g->n);
		g->sd = stats_sd(x + start, g->n);
		g->change = i == 0 ? HISTORY_NONE : i - 1;
		for (j = start; j < end; j++)
			s->nights[j].segment = i;
		start = end;
	}
 out:
	changepoint_result_release(&cr);
	free(x);
	return ret;
}

static int
cmp_series(const void *a, const void *b)
{
	const struct history_series *x = a, *y = b;

	return series_key_cmp(&x->key, &y->key);
}

/* Runs in the order of their start, then of their ids. */
static int
meta_order(const struct meta *x, const struct meta *y)
{
	int c = strcmp(x->start != NULL ? x->start : "", y->start != NULL ? y->start : "");

	return c != 0 ? c : strcmp(x->id != NULL ? x->id : "", y->id != NULL ? y->id : "");
}

/* Nights in the order of their start, a group's runs together, then runs
 * as meta_order(). */
static int
cmp_meta(const void *a, const void *b)
{
	const struct meta *x = *(const struct meta *const *)a;
	const struct meta *y = *(const struct meta *const *)b;
	int c = strcmp(x->night_start, y->night_start);

	if (c == 0 && (x->group != NULL || y->group != NULL))
		c = x->group == NULL ? -1 : y->group == NULL ? 1 : strcmp(x->group, y->group);
	return c != 0 ? c : meta_order(x, y);
}

/* --- Choosing the plan ------------------------------------------------------------ */

static int
finished(const struct meta *m, const struct history_opts *o)
{
	return m->status != NULL && m->plan != NULL &&
	    strcmp(m->status, journal_status_name(JOURNAL_FINISHED)) == 0 &&
	    (o->exclude == NULL || m->id == NULL || strcmp(m->id, o->exclude) != 0) &&
	    (o->exclude_group == NULL || m->group == NULL ||
	    strcmp(m->group, o->exclude_group) != 0) &&
	    (o->group == NULL || (m->group != NULL && fnmatch(o->group, m->group, 0) == 0)) &&
	    (o->since == NULL || (m->start != NULL &&
	    strncmp(m->start, o->since, strlen(o->since)) >= 0));
}

/* "a (3 runs), b (1 run)": the plans of the finished runs. */
static char *
plans_list(const struct load *ld, size_t *nplans)
{
	struct strmap plans = STRMAP_INIT;
	struct strbuf sb = STRBUF_INIT;
	char **v;
	const char *name;
	size_t i, n = 0, k;

	for (i = 0; i < ld->n; i++)
		if (finished(&ld->m[i], ld->o))
			strmap_put(&plans, ld->m[i].plan, 0);
	v = xcalloc(plans.n + 1, sizeof(*v));
	i = 0;
	while (strmap_next(&plans, &i, &name, NULL))
		v[n++] = (char *)name;
	strv_sort(v, n);
	for (i = 0; i < n; i++) {
		for (k = 0; k < ld->n; k++)
			if (finished(&ld->m[k], ld->o) && strcmp(ld->m[k].plan, v[i]) == 0)
				strmap_put(&plans, v[i], strmap_get(&plans, v[i]) + 1);
		k = strmap_get(&plans, v[i]);
		strbuf_addf(&sb, "%s%s (%zu run%s)", i ? ", " : "", v[i], k, k == 1 ? "" : "s");
	}
	*nplans = n;
	free(v);
	strmap_release(&plans);
	return strbuf_detach(&sb, NULL);
}

static int
choose_plan(struct load *ld, struct history *h, char **err)
{
	const struct history_opts *o = ld->o;
	char *list, since[64] = "";
	size_t i, nplans, newest = HISTORY_NONE;

	if (o->since != NULL)
		snprintf(since, sizeof(since), " since %s", o->since);
	list = plans_list(ld, &nplans);
	if (nplans == 0) {
		if (ld->n == 0 && o->plan != NULL)
			*err = xasprintf("no runs of plan '%s' in %s", o->plan, ld->source);
		else if (ld->n == 0)
			*err = xasprintf("no runs in %s", ld->source);
		else
			*err = xasprintf("no finished runs in %s%s (%zu run%s looked at)",
			    ld->source, since, ld->n, ld->n == 1 ? "" : "s");
		free(list);
		return HISTORY_EINPUT;
	}
	if (o->plan == NULL && nplans > 1) {
		*err = xasprintf("%s holds finished runs of %zu plans%s: %s; choose one with "
		    "--plan", ld->source, nplans, since, list);
		free(list);
		return HISTORY_EINPUT;
	}
	for (i = 0; i < ld->n; i++)
		if (finished(&ld->m[i], o) && (o->plan == NULL ||
		    strcmp(ld->m[i].plan, o->plan) == 0) &&
		    (newest == HISTORY_NONE || meta_order(&ld->m[i], &ld->m[newest]) > 0))
			newest = i;
	if (newest == HISTORY_NONE) {
		*err = xasprintf("no finished run of plan '%s' in %s%s (plans: %s)", o->plan,
		    ld->source, since, list);
		free(list);
		return HISTORY_EINPUT;
	}
	free(list);
	h->plan = xstrdup(ld->m[newest].plan);
	h->threshold = o->threshold >= 0 ? o->threshold : ld->m[newest].threshold >= 0 ?
	    ld->m[newest].threshold : VERDICT_THRESHOLD;
	return 0;
}

/* --- Loading ---------------------------------------------------------------------- */

/* The nights: the plan's finished runs, each id once, oldest first, the
 * runs of a group together where the first of them started. */
static struct meta **
select_nights(struct load *ld, struct history *h, size_t *np)
{
	struct strmap ids = STRMAP_INIT, groups = STRMAP_INIT;
	struct meta **v = xcalloc(ld->n + 1, sizeof(*v));
	size_t i, n = 0, k;

	for (i = 0; i < ld->n; i++) {
		struct meta *m = &ld->m[i];

		if (!finished(m, ld->o) || strcmp(m->plan, h->plan) != 0)
			continue;
		if (m->id != NULL && strmap_get(&ids, m->id) != STRMAP_NONE) {
			log_warn("%s: run %s is there twice; the other copy is read", m->where,
			    m->id);
			continue;
		}
		if (m->id != NULL)
			strmap_put(&ids, m->id, i);
		m->keep = 1;
		v[n++] = m;
	}
	strmap_release(&ids);
	/* a night starts with its first run */
	for (i = 0; i < n; i++) {
		v[i]->night_start = v[i]->start != NULL ? v[i]->start : "";
		if (v[i]->group == NULL)
			continue;
		if ((k = strmap_get(&groups, v[i]->group)) == STRMAP_NONE ||
		    meta_order(v[i], v[k]) < 0)
			strmap_put(&groups, v[i]->group, i);
	}
	for (i = 0; i < n; i++)
		if (v[i]->group != NULL) {
			k = strmap_get(&groups, v[i]->group);
			v[i]->night_start = v[k]->start != NULL ? v[k]->start : "";
		}
	strmap_release(&groups);
	qsort(v, n, sizeof(*v), cmp_meta);
	*np = n;
	return v;
}

static void
run_from_meta(struct history_run *r, const struct meta *m)
{
	size_t i;

	r->id = xstrdup(m->id != NULL ? m->id : m->where);
	r->group = xstrdup_null(m->group);
	r->dir = xstrdup(m->dir);
	r->start = xstrdup(m->start != NULL ? m->start : "");
	r->label = xstrdup_null(m->label);
	r->commit = xstrdup_null(m->commit);
	r->plan_file = xstrdup_null(m->plan_file);
	r->nhosts = m->nhosts;
	r->hosts = strv_dup((const char *const *)m->hosts, m->nhosts);
	r->labels = xcalloc(m->nhosts + 1, sizeof(*r->labels));
	for (i = 0; i < m->nhosts; i++)
		r->labels[i] = xstrdup(m->label != NULL ? m->label : m->kernels[i] != NULL ?
		    m->kernels[i] : "unknown");
}

/* The nights of m from trials.jsonl, and its cache file written. */
static int
read_nights(struct load *ld, struct build *b, size_t run, const struct meta *m, char **err)
{
	struct series_store *rs = series_store_new(0);
	struct strbuf body = STRBUF_INIT;
	struct nrow *v = NULL;
	size_t n = 0;
	int ret;

	if ((ret = rows_read(m->dir, rs, err)) == 0) {
		n = rows_text(rs, &body);
		cache_write(ld, m, &body, n);
		/* the same text as a cached night's: the same bits */
		if (history_cache_parse(body.buf, body.len, &v, &n) != 0 ||
		    add_nights(b, ld->o, run, v, n) != 0) {
			*err = xasprintf("%s: cannot take its series", m->where);
			ret = -1;
		}
	}
	free(v);
	strbuf_release(&body);
	series_store_free(rs);
	return ret;
}

static int
load_nights(struct load *ld, struct history *h, char **err)
{
	struct build b;
	struct meta **nights;
	struct nrow *v;
	size_t i, n, nv;
	char *buf;
	int ret = 0;

	memset(&b, 0, sizeof(b));
	b.h = h;
	nights = select_nights(ld, h, &n);
	h->runs = xcalloc(n + 1, sizeof(*h->runs));
	for (i = 0; i < n && ret == 0; i++) {
		struct meta *m = nights[i];
		size_t run = h->nruns++;

		run_from_meta(&h->runs[run], m);
		/* a night of its own, unless it is the next run of the last one's group */
		if (run == 0 || m->group == NULL || h->runs[run - 1].group == NULL ||
		    strcmp(m->group, h->runs[run - 1].group) != 0)
			h->nnights++;
		h->runs[run].night = h->nnights - 1;
		if (m->cache == CACHE_ROWS && history_cache_rows(m, &buf, &v, &nv) == 0) {
			ret = add_nights(&b, ld->o, run, v, nv);
			free(v);
			free(buf);
			if (ret == 0) {
				h->runs[run].cached = 1;
				h->counts.cached++;
				log_debug("%s: from the cache", m->where);
				continue;
			}
		}
		if ((ret = read_nights(ld, &b, run, m, err)) == 0) {
			h->counts.read++;
			log_debug("%s: read", m->where);
		}
	}
	/* the others' facts, so that the next load need not read their run.json */
	for (i = 0; i < ld->n && ret == 0; i++)
		if (!ld->m[i].keep && ld->m[i].cache == CACHE_NONE)
			cache_write(ld, &ld->m[i], NULL, 0);
	h->counts.runs = h->nruns;
	h->counts.others = ld->n - h->nruns;
	drop_empty(h);
	if (ret == 0)
		ret = check_filters(&b, ld->o, err);
	free(nights);
	free(b.idx);
	strmap_release(&b.series);
	strmap_release(&b.hosts);
	strmap_release(&b.metrics);
	return ret;
}

int
history_load(const char *source, const struct history_opts *opts, struct history **out,
    char **err)
{
	struct history_opts defaults;
	struct load ld;
	struct history *h = NULL;
	size_t i;
	int ret;

	if (opts == NULL) {
		history_opts_init(&defaults);
		opts = &defaults;
	}
	memset(&ld, 0, sizeof(ld));
	ld.o = opts;
	ld.source = source;
	if (opts->since != NULL && !history_since_valid(opts->since)) {
		*err = xasprintf("bad --since '%s' (a date, YYYY-MM-DD, or a time, "
		    "YYYY-MM-DDTHH:MM:SSZ)", opts->since);
		return HISTORY_EINPUT;
	}
	if (opts->cache == NULL || *opts->cache != '\0') {
		char *e = NULL;

		ld.cache = opts->cache != NULL ? xstrdup(opts->cache) : history_cache_dir();
		if (fs_mkdir_p(ld.cache, 0700, &e) != 0) {
			cache_warn(&ld, e);
			free(ld.cache);
			ld.cache = NULL;
		}
		free(e);
	}
	h = xcalloc(1, sizeof(*h));
	if (archive_is_url(source)) {
		struct archive_url *u = NULL;

		if (archive_url_parse(source, &u, err) != 0) {
			ret = HISTORY_EINPUT;
			goto out;
		}
		h->source = xstrdup(u->display);
		ld.url = xstrdup(source);
		ld.source = h->source;
		archive_url_free(u);
		ret = list_archive(&ld, err);
	} else {
		h->source = xstrdup(source);
		ret = list_local(&ld, err);
	}
	if (ret != 0)
		goto out;
	h->counts.listed = ld.n;
	if ((ret = choose_plan(&ld, h, err)) != 0 || (ret = load_nights(&ld, h, err)) != 0)
		goto out;
	qsort(h->series, h->nseries, sizeof(*h->series), cmp_series);
	for (i = 0; i < h->nseries && ret == 0; i++)
		ret = detect(h, &h->series[i], err);
	log_verbose("history of plan '%s' in %s: %zu night%s (%zu read, %zu from the cache "
	    "%s), %zu other run%s, %zu series, %zu change point%s", h->plan, h->source,
	    h->nruns, h->nruns == 1 ? "" : "s", h->counts.read, h->counts.cached,
	    ld.cache != NULL ? ld.cache : "(none)", h->counts.others,
	    h->counts.others == 1 ? "" : "s", h->nseries, h->nchanges,
	    h->nchanges == 1 ? "" : "s");
 out:
	for (i = 0; i < ld.n; i++)
		meta_release(&ld.m[i]);
	free(ld.m);
	free(ld.url);
	free(ld.cache);
	if (ret != 0) {
		history_free(h);
		return ret;
	}
	*out = h;
	return 0;
}

void
history_free(struct history *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nruns; i++) {
		struct history_run *r = &h->runs[i];

		free(r->id);
		free(r->group);
		free(r->dir);
		free(r->start);
		free(r->label);
		free(r->commit);
		free(r->plan_file);
		strv_free(r->hosts, r->nhosts);
		strv_free(r->labels, r->nhosts);
	}
	free(h->runs);
	for (i = 0; i < h->nseries; i++)
		series_release(&h->series[i]);
	free(h->series);
	free(h->source);
	free(h->plan);
	free(h);
}
