/*
 * history/cache.c: the per-run cache of history.c, one file per run with
 * its facts and the summary of its series.
 *
 * A cache file (CACHE/<40 hex digits of the key's SHA-256>.jsonl) starts
 * with a line of JSON, the run's facts,
 *
 *	{"format":1,"key":"/srv/results/20011101-...","valid":"run.json 1234
 *	 1007183700.000000000;trials.jsonl ...","dir":"/srv/results/...",
 *	 "run":"20011101-...","plan":"smoke","status":"finished",
 *	 "start":"2001-11-01T02:30:00Z","label":null,"threshold":5,
 *	 "hosts":{"lab-01":"6.1.0-13-amd64"},"rows":2}
 *
 * and, when "rows" is a count rather than null, goes on with that many
 * lines, one per series of the night, of tab-separated fields:
 *
 *	HOST VARIANT BENCH PARAMS METRIC UNIT DIRECTION MEAN SD N
 *	lab-01	 	lat_pipe	size=512	usecs	us	lower	6.7	0.05	5
 *
 * Names are percent-encoded (pctenc.h) but for printable ASCII other than
 * % , = and tab; VARIANT is empty for none, else "=" and the name; PARAMS
 * is "k=v,k=v"; SD is "-" for a single trial; numbers have 17 significant
 * digits, which read back as the same double.  The first five fields are
 * the series key: a cached night finds its series without decoding a
 * thing.  Lines read from trials.jsonl go through the same text, so a
 * cached night and a night read afresh are the same bits.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "archive.h"
#include "digest.h"
#include "fsutil.h"
#include "history.h"
#include "history/history-int.h"
#include "log.h"
#include "numfmt.h"
#include "pctenc.h"
#include "rundir.h"
#include "serieskey.h"
#include "strbuf.h"
#include "strv.h"
#include "xdg.h"
#include "xmalloc.h"

#define CACHE_NAME_HEX	40	/* hex digits of a cache file's name */

static char *
jdup(const json_t *o, const char *k)
{
	return xstrdup_null(json_string_value(json_object_get(o, k)));
}

/* The first line of a cache file: m's facts, and how many rows follow (< 0: none). */
static json_t *
meta_json(const struct meta *m, long long nrows)
{
	json_t *o = json_object(), *h = json_object();
	size_t i;

	json_object_set_new(o, "format", json_integer(HISTORY_CACHE_FORMAT));
	rundir_json_set(o, "key", rundir_json_str(m->key));
	rundir_json_set(o, "valid", rundir_json_str(m->valid));
	rundir_json_set(o, "dir", rundir_json_str(m->dir));
	rundir_json_set(o, "run", rundir_json_str(m->id));
	rundir_json_set(o, "plan", rundir_json_str(m->plan));
	rundir_json_set(o, "status", rundir_json_str(m->status));
	rundir_json_set(o, "start", rundir_json_str(m->start));
	rundir_json_set(o, "label", rundir_json_str(m->label));
	rundir_json_set(o, "commit", rundir_json_str(m->commit));
	rundir_json_set(o, "plan_file", rundir_json_str(m->plan_file));
	rundir_json_set(o, "group", rundir_json_str(m->group));
	json_object_set_new(o, "threshold", m->threshold >= 0 ? json_real(m->threshold) :
	    json_null());
	for (i = 0; i < m->nhosts; i++)
		rundir_json_set(h, m->hosts[i], rundir_json_str(m->kernels[i]));
	json_object_set_new(o, "hosts", h);
	json_object_set_new(o, "rows", nrows >= 0 ? json_integer(nrows) : json_null());
	return o;
}

/* --- The cache's lines ---------------------------------------------------- */

/* What a name keeps as it is in a cache line (letters and digits always). */
#define KEEP	" !\"#$&'()*+-./:;<>?@[\\]^_`{|}~"

static void
enc(struct strbuf *sb, const char *s)
{
	pct_encode_sb(sb, s, strlen(s), KEEP);
}

/* The series key k and its params as the cache writes them: the first five fields. */
static void
enc_key(struct strbuf *sb, const struct series_key *k, size_t nparams,
    const char *const *pkeys, const char *const *pvals)
{
	size_t i;

	enc(sb, k->host);
	strbuf_addch(sb, '\t');
	if (k->variant != NULL) {
		strbuf_addch(sb, '=');
		enc(sb, k->variant);
	}
	strbuf_addch(sb, '\t');
	enc(sb, k->bench);
	strbuf_addch(sb, '\t');
	for (i = 0; i < nparams; i++) {
		if (i > 0)
			strbuf_addch(sb, ',');
		enc(sb, pkeys[i]);
		strbuf_addch(sb, '=');
		enc(sb, pvals[i] != NULL ? pvals[i] : "");
	}
	strbuf_addch(sb, '\t');
	enc(sb, k->metric);
}

int
history_cache_line(struct strbuf *sb, const struct series_key *k, size_t nparams,
    const char *const *pkeys, const char *const *pvals, int higher, double mean, double sd,
    size_t n)
{
	char num[NUMFMT_MAX];

	if (!isfinite(mean))
		return -1;	/* values so large that their sum is not */
	enc_key(sb, k, nparams, pkeys, pvals);
	strbuf_addch(sb, '\t');
	enc(sb, k->unit);
	strbuf_addstr(sb, higher ? "\thigher\t" : "\tlower\t");
	/* 17 digits read back the same; the shortest would cost 10 tries */
	snprintf(num, sizeof(num), "%.17g", mean);
	strbuf_addstr(sb, num);
	strbuf_addch(sb, '\t');
	if (isfinite(sd))
		snprintf(num, sizeof(num), "%.17g", sd);
	strbuf_addstr(sb, isfinite(sd) ? num : "-");
	strbuf_addf(sb, "\t%zu\n", n);
	return 0;
}

/* The field at *p up to the next tab (made a NUL), or NULL when there is none. */
static char *
field(char **p)
{
	char *f = *p, *t = strchr(f, '\t');

	if (t == NULL)
		return NULL;
	*t = '\0';
	*p = t + 1;
	return f;
}

int
history_cache_parse(char *text, size_t len, struct nrow **vp, size_t *np)
{
	struct nrow *v = NULL, *r;
	char *p = text, *end = text + len, *nl, *q, *f, *e;
	size_t n = 0, cap = 0, i;
	unsigned long long cnt;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			goto bad;
		*nl = '\0';
		xgrow(&v, &cap, n + 1, sizeof(*v));
		r = &v[n++];
		/* the key: four tabs inside, the fifth ends it */
		for (q = p, i = 0; i < 5; i++, q++)
			if ((q = strchr(q, '\t')) == NULL)
				goto bad;
		q[-1] = '\0';
		r->key = p;
		if ((r->unit = field(&q)) == NULL || (f = field(&q)) == NULL)
			goto bad;
		if (strcmp(f, "higher") == 0)
			r->higher = 1;
		else if (strcmp(f, "lower") == 0)
			r->higher = 0;
		else
			goto bad;
		if ((f = field(&q)) == NULL || (r->mean = strtod(f, &e), *e != '\0') ||
		    e == f || !isfinite(r->mean) || (f = field(&q)) == NULL)
			goto bad;
		if (strcmp(f, "-") == 0)
			r->sd = NAN;
		else if ((r->sd = strtod(f, &e), *e != '\0') || e == f)
			goto bad;
		if (*q < '1' || *q > '9' || (cnt = strtoull(q, &e, 10), *e != '\0'))
			goto bad;
		r->n = (size_t)cnt;
	}
	*vp = v;
	*np = n;
	return 0;
 bad:
	free(v);
	return -1;
}

/* The n bytes at s decoded (a new string), or NULL when an escape is bad. */
static char *
dec(const char *s, size_t n)
{
	return pct_decode(s, n, PCT_STRICT, NULL);
}

/* Free what history_cache_series() decoded so far. */
static void
decoded_release(struct history_series *s)
{
	series_key_release(&s->key);
	strv_free(s->pkeys, s->nparams);
	strv_free(s->pvals, s->nparams);
	memset(s, 0, sizeof(*s));
}

int
history_cache_series(struct history_series *s, const char *key, const char *unit)
{
	const char *f[5], *p = key, *q;
	size_t len[5], i, cap = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 5; i++) {
		len[i] = strcspn(p, "\t");
		f[i] = p;
		p += len[i] + (p[len[i]] == '\t');
	}
	if (len[1] > 0 && f[1][0] != '=')
		goto bad;
	if ((s->key.host = dec(f[0], len[0])) == NULL ||
	    (s->key.bench = dec(f[2], len[2])) == NULL ||
	    (s->key.metric = dec(f[4], len[4])) == NULL ||
	    (s->key.unit = dec(unit, strlen(unit))) == NULL ||
	    (len[1] > 0 && (s->key.variant = dec(f[1] + 1, len[1] - 1)) == NULL))
		goto bad;
	for (p = f[3]; p < f[3] + len[3]; p = q + 1) {
		size_t l = strcspn(p, ",\t"), kl = strcspn(p, "=,\t");

		q = p + l;
		if (kl >= l)
			goto bad;
		xgrow(&s->pkeys, &cap, s->nparams + 1, sizeof(*s->pkeys));
		s->pvals = xreallocarray(s->pvals, cap, sizeof(*s->pvals));
		s->pvals[s->nparams] = NULL;
		if ((s->pkeys[s->nparams] = dec(p, kl)) == NULL ||
		    (s->pvals[s->nparams++] = dec(p + kl + 1, l - kl - 1)) == NULL)
			goto bad;
	}
	/* ',' and '=' are escaped inside names: the field decoded is "k=v,k=v" */
	if ((s->key.params = dec(f[3], len[3])) == NULL)
		goto bad;
	return 0;
 bad:
	decoded_release(s);
	return -1;
}

/* --- The cache ------------------------------------------------------------------ */

char *
history_cache_dir(void)
{
	return xdg_cache_dir("history");
}

char *
history_cache_path(const char *cache, const char *key)
{
	char hex[DIGEST_SHA256_HEX];

	digest_sha256_hex(key, strlen(key), hex);
	hex[CACHE_NAME_HEX] = '\0';
	return xasprintf("%s/%s.jsonl", cache, hex);
}

int
history_cache_open(const struct meta *m, json_t **first, char **buf, size_t *len)
{
	json_error_t je;
	const char *nl;
	json_t *o;
	char *e = NULL;

	if (m->cpath == NULL || fs_read_file(m->cpath, HISTORY_CACHE_MAX, buf, len, &e) != 0) {
		if (e != NULL && errno != ENOENT)
			log_debug("%s", e);
		free(e);
		return -1;
	}
	if ((nl = memchr(*buf, '\n', *len)) == NULL ||
	    (o = json_loadb(*buf, (size_t)(nl - *buf), 0, &je)) == NULL) {
		free(*buf);
		return -1;
	}
	if (json_integer_value(json_object_get(o, "format")) != HISTORY_CACHE_FORMAT ||
	    json_string_value(json_object_get(o, "key")) == NULL ||
	    strcmp(json_string_value(json_object_get(o, "key")), m->key) != 0 ||
	    json_string_value(json_object_get(o, "valid")) == NULL) {
		json_decref(o);
		free(*buf);
		return -1;
	}
	*first = o;
	return 0;
}

void
history_cache_meta(struct meta *m, const json_t *o)
{
	const json_t *h = json_object_get(o, "hosts"), *v;
	const char *k;
	size_t i = 0;

	m->id = jdup(o, "run");
	m->plan = jdup(o, "plan");
	m->status = jdup(o, "status");
	m->start = jdup(o, "start");
	m->label = jdup(o, "label");
	m->commit = jdup(o, "commit");
	m->plan_file = jdup(o, "plan_file");
	m->group = jdup(o, "group");
	m->threshold = json_is_number(json_object_get(o, "threshold")) ?
	    json_number_value(json_object_get(o, "threshold")) : -1;
	m->nhosts = json_object_size(h);
	m->hosts = xcalloc(m->nhosts + 1, sizeof(*m->hosts));
	m->kernels = xcalloc(m->nhosts + 1, sizeof(*m->kernels));
	json_object_foreach((json_t *)h, k, v) {
		m->hosts[i] = xstrdup(k);
		m->kernels[i++] = xstrdup_null(json_string_value(v));
	}
	m->cache = json_is_integer(json_object_get(o, "rows")) ? CACHE_ROWS : CACHE_META;
}

int
history_cache_rows(const struct meta *m, char **bufp, struct nrow **vp, size_t *np)
{
	json_t *first = NULL;
	char *buf = NULL, *body;
	size_t len;
	int ret = -1;

	if (history_cache_open(m, &first, &buf, &len) != 0)
		return -1;
	if (strcmp(json_string_value(json_object_get(first, "valid")), m->valid) != 0 ||
	    !json_is_integer(json_object_get(first, "rows")))
		goto out;
	body = (char *)memchr(buf, '\n', len) + 1;
	if (history_cache_parse(body, len - (size_t)(body - buf), vp, np) != 0)
		goto out;
	if ((json_int_t)*np != json_integer_value(json_object_get(first, "rows"))) {
		free(*vp);
		goto out;
	}
	*bufp = buf;
	buf = NULL;
	ret = 0;
 out:
	json_decref(first);
	free(buf);
	return ret;
}

int
history_cache_write(const struct meta *m, const struct strbuf *body, size_t nrows, char **err)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *o;
	char *s;
	int r;

	if (m->cpath == NULL)
		return 0;
	o = meta_json(m, body != NULL ? (long long)nrows : -1);
	s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
	strbuf_addstr(&sb, s);
	strbuf_addch(&sb, '\n');
	free(s);
	json_decref(o);
	if (body != NULL)
		strbuf_add(&sb, body->buf, body->len);
	/* it can be made again: no fsync; its own temporary, for two loads at once */
	r = fs_write_atomic(m->cpath, sb.buf, sb.len, 0600, FS_NOSYNC | FS_UNIQUE, err);
	strbuf_release(&sb);
	return r != 0 ? -1 : 0;
}

/* --- What the cache must match ---------------------------------------------------- */

/* A run directory's: the size and modification time of run.json and trials.jsonl. */
char *
history_cache_stat_valid(const char *dir)
{
	static const char *const names[] = { RUNDIR_RUN_JSON, RUNDIR_TRIALS };
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	size_t i;
	char *p;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p = rundir_path(dir, names[i]);
		if (stat(p, &st) == 0)
			strbuf_addf(&sb, "%s %lld %lld.%09ld;", names[i], (long long)st.st_size,
			    (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
		else
			strbuf_addf(&sb, "%s -;", names[i]);
		free(p);
	}
	return strbuf_detach(&sb, NULL);
}

/* An archive run's: the sums its MANIFEST gives run.json and trials.jsonl. */
char *
history_cache_manifest_valid(const char *dir, char **err)
{
	static const char *const names[] = { RUNDIR_RUN_JSON, RUNDIR_TRIALS };
	struct archive_manifest *am = NULL;
	struct strbuf sb = STRBUF_INIT;
	char *path = rundir_path(dir, ARCHIVE_MANIFEST), *text = NULL;
	size_t len, i, j;

	if (fs_read_file(path, ARCHIVE_MANIFEST_MAX, &text, &len, err) != 0 ||
	    archive_manifest_parse(path, text, len, &am, err) != 0) {
		free(path);
		free(text);
		return NULL;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (j = 0; j < am->n && strcmp(am->entries[j].path, names[i]) != 0; j++)
			;
		strbuf_addf(&sb, "%s %s;", names[i], j < am->n ? am->entries[j].sha256 : "-");
	}
	archive_manifest_free(am);
	free(path);
	free(text);
	return strbuf_detach(&sb, NULL);
}

