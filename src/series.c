/*
 * series.c: the series store (series.h): ok trial values grouped by
 * series key, found again through a strmap of series_key_text().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "serieskey.h"
#include "strbuf.h"
#include "strmap.h"
#include "strv.h"
#include "trialread.h"
#include "xmalloc.h"

struct series_store {
	unsigned int	 flags;		/* enum series_flag */
	struct series	**v;		/* first-seen order; each its own allocation,
					 * so a pointer handed out stays good */
	size_t		 n, cap;
	struct strmap	 map;		/* series_key_text() to index in v */
	struct strbuf	 key, params;	/* scratch */
	size_t		 seq;		/* values taken so far */
};

struct series_store *
series_store_new(unsigned int flags)
{
	struct series_store *st = xcalloc(1, sizeof(*st));

	if (flags & (SERIES_SAMPLES | SERIES_NOTES))
		flags |= SERIES_VALUES;
	st->flags = flags;
	strbuf_init(&st->key, 0);
	strbuf_init(&st->params, 0);
	return st;
}

void
series_params_text(struct strbuf *sb, size_t n, const char *const *k, const char *const *v)
{
	size_t i;

	strbuf_reset(sb);
	for (i = 0; i < n; i++) {
		if (i > 0)
			strbuf_addch(sb, ',');
		strbuf_addstr(sb, k[i]);
		strbuf_addch(sb, '=');
		strbuf_addstr(sb, v[i] != NULL ? v[i] : "");
	}
}

/* The point id of a trial key "VARIANT/POINT-ID/REP", "" when it has none. */
static char *
key_point(const char *key)
{
	const char *a = key ? strchr(key, '/') : NULL, *b = key ? strrchr(key, '/') : NULL;

	if (a == NULL || b == NULL || b <= a)
		return xstrdup("");
	return xstrndup(a + 1, (size_t)(b - a - 1));
}

/* A new series for k (its key text in st->key), named after line l. */
static struct series *
series_new(struct series_store *st, const struct series_key *k, const struct trial_line *l)
{
	struct series *s = xcalloc(1, sizeof(*s));

	series_key_dup(&s->key, k);
	s->nparams = l->nparams;
	s->pkeys = strv_dup(l->keys, l->nparams);
	s->pvals = strv_dup(l->vals, l->nparams);
	s->point = key_point(l->key);
	s->higher = l->higher_better;
	xgrow(&st->v, &st->cap, st->n + 1, sizeof(*st->v));
	strmap_put(&st->map, st->key.buf, st->n);
	st->v[st->n++] = s;
	return s;
}

/* Keep the value of l as s's n-th (SERIES_VALUES and what goes with it). */
static void
keep_value(struct series_store *st, struct series *s, const struct trial_line *l)
{
	struct series_extra *x;
	size_t i = s->n - 1;

	if (s->n > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
		s->rep = xreallocarray(s->rep, s->cap, sizeof(*s->rep));
		s->seq = xreallocarray(s->seq, s->cap, sizeof(*s->seq));
		if (st->flags & (SERIES_SAMPLES | SERIES_NOTES))
			s->x = xreallocarray(s->x, s->cap, sizeof(*s->x));
	}
	s->v[i] = l->value;
	s->rep[i] = l->rep;
	s->seq[i] = st->seq;
	if (s->x == NULL)
		return;
	x = &s->x[i];
	memset(x, 0, sizeof(*x));
	if ((st->flags & SERIES_SAMPLES) && l->nsamples > 0) {
		x->samples = xreallocarray(NULL, l->nsamples, sizeof(*x->samples));
		memcpy(x->samples, l->samples, l->nsamples * sizeof(*x->samples));
		x->nsamples = l->nsamples;
	}
	if ((st->flags & SERIES_NOTES) && l->nnotes > 0) {
		x->notes = strv_dup(l->notes, l->nnotes);
		x->nnotes = l->nnotes;
	}
}

int
series_store_add(struct series_store *st, const struct trial_line *l)
{
	struct series_key k;
	struct series *s;
	size_t i;
	double d;

	if (l->reject != TRIAL_OK || strcmp(l->status, "ok") != 0 || l->metric == NULL ||
	    !l->has_value || !isfinite(l->value))
		return 0;
	series_params_text(&st->params, l->nparams, l->keys, l->vals);
	k = (struct series_key){ l->host, l->variant, l->bench, st->params.buf, l->metric,
	    l->unit };
	series_key_text(&k, &st->key);
	if ((i = strmap_get(&st->map, st->key.buf)) != STRMAP_NONE)
		s = st->v[i];
	else
		s = series_new(st, &k, l);
	s->n++;
	d = l->value - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * (l->value - s->mean);
	if (st->flags & SERIES_VALUES)
		keep_value(st, s, l);
	st->seq++;
	return 1;
}

struct rctx {
	struct series_store	*st;
	trial_line_fn		 also;
	void			*arg;
};

static int
read_line(const struct trial_line *l, void *arg)
{
	struct rctx *c = arg;
	int r;

	if (c->also != NULL && (r = c->also(l, c->arg)) != 0)
		return r;
	(void)series_store_add(c->st, l);
	return 0;
}

int
series_store_read(struct series_store *st, const char *path, unsigned int fields,
    trial_line_fn also, void *arg, struct trial_scan *scan, char **err)
{
	struct rctx c = { st, also, arg };

	fields |= TRIAL_VARIANT | TRIAL_PARAMS | TRIAL_METRIC | TRIAL_VALUE;
	if (st->flags & SERIES_SAMPLES)
		fields |= TRIAL_SAMPLES;
	if (st->flags & SERIES_NOTES)
		fields |= TRIAL_NOTES;
	return trialread_file(path, fields, read_line, &c, scan, err);
}

size_t
series_store_n(const struct series_store *st)
{
	return st->n;
}

const struct series *
series_store_at(const struct series_store *st, size_t i)
{
	return i < st->n ? st->v[i] : NULL;
}

const struct series *
series_store_find(const struct series_store *st, const struct series_key *k)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	series_key_text(k, &sb);
	i = strmap_get(&st->map, sb.buf);
	strbuf_release(&sb);
	return i != STRMAP_NONE ? st->v[i] : NULL;
}

/* A value and its place, for pooling. */
struct pooled {
	size_t	seq;
	double	v;
};

static int
cmp_pooled(const void *a, const void *b)
{
	const struct pooled *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t
series_store_pool(const struct series_store *st,
    int (*match)(const struct series *s, void *arg), void *arg, double **out)
{
	struct pooled *p = NULL;
	size_t i, j, n = 0, cap = 0;

	*out = NULL;
	for (i = 0; i < st->n; i++) {
		const struct series *s = st->v[i];

		if (s->v == NULL || !match(s, arg))
			continue;
		xgrow(&p, &cap, n + s->n, sizeof(*p));
		for (j = 0; j < s->n; j++) {
			p[n].seq = s->seq[j];
			p[n++].v = s->v[j];
		}
	}
	if (n == 0) {
		free(p);
		return 0;
	}
	qsort(p, n, sizeof(*p), cmp_pooled);
	*out = xreallocarray(NULL, n, sizeof(**out));
	for (i = 0; i < n; i++)
		(*out)[i] = p[i].v;
	free(p);
	return n;
}

double
series_sd(const struct series *s)
{
	return s->n > 1 ? sqrt(s->m2 / (double)(s->n - 1)) : NAN;
}

static void
series_free(struct series *s)
{
	size_t i;

	series_key_release(&s->key);
	strv_free(s->pkeys, s->nparams);
	strv_free(s->pvals, s->nparams);
	free(s->point);
	free(s->v);
	free(s->rep);
	free(s->seq);
	if (s->x != NULL)
		for (i = 0; i < s->n; i++) {
			free(s->x[i].samples);
			strv_free(s->x[i].notes, s->x[i].nnotes);
		}
	free(s->x);
	free(s);
}

void
series_store_free(struct series_store *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->n; i++)
		series_free(st->v[i]);
	free(st->v);
	strmap_release(&st->map);
	strbuf_release(&st->key);
	strbuf_release(&st->params);
	free(st);
}
