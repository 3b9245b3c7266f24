/*
 * envdiff.c: the env facts that differ between two sides.  See envdiff.h.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "envdiff.h"
#include "numfmt.h"
#include "rundir.h"
#include "strv.h"
#include "xmalloc.h"

#define NONE		"(none)"

/* Facts that change by themselves: not compared (envdiff.h). */
static const char *const ignored[] = { "loadavg", "mhz", "uname.nodename", NULL };

/* Whether key is an ignored fact or inside one ("loadavg.1"). */
static int
is_ignored(const char *key)
{
	size_t i, n;

	for (i = 0; ignored[i] != NULL; i++) {
		n = strlen(ignored[i]);
		if (strncmp(key, ignored[i], n) == 0 && (key[n] == '\0' || key[n] == '.'))
			return 1;
	}
	return 0;
}

/* A fact's value as text (envdiff.h); NULL when jansson cannot write it. */
static char *
text_of(const json_t *v)
{
	char num[NUMFMT_MAX];

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_null(v))
		return xstrdup("null");
	if (json_is_real(v)) {
		numfmt_shortest(num, sizeof(num), json_real_value(v));
		return xstrdup(num);
	}
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

static void
flatten(const char *prefix, const json_t *o, struct strv *keys, struct strv *vals)
{
	const char *k;
	json_t *v;
	char *key, *t;

	json_object_foreach((json_t *)o, k, v) {
		if (keys->n >= ENVDIFF_MAX_FACTS)
			return;
		/* the record's kind, not a fact about the host */
		if (*prefix == '\0' && strcmp(k, "type") == 0)
			continue;
		key = *prefix ? xasprintf("%s.%s", prefix, k) : xstrdup(k);
		if (json_is_object(v)) {
			flatten(key, v, keys, vals);
			free(key);
			continue;
		}
		if ((t = text_of(v)) == NULL)
			t = xstrdup("?");
		strv_push(keys, key);
		strv_push(vals, t);
		free(key);
		free(t);
	}
}

void
envdiff_flatten(const json_t *o, struct strv *keys, struct strv *vals)
{
	if (json_is_object(o))
		flatten("", o, keys, vals);
}

/* The text of fact key in the flattened keys and vals, or NULL. */
static const char *
flat_get(const struct strv *keys, const struct strv *vals, const char *key)
{
	size_t i = strv_find(keys->v, keys->n, key);

	return i == STRV_NONE ? NULL : vals->v[i];
}

static void
add(struct envdiff *d, const char *key, const char *a, const char *b)
{
	d->facts = xreallocarray(d->facts, d->n + 1, sizeof(*d->facts));
	d->facts[d->n].key = xstrdup(key);
	d->facts[d->n].a = xstrdup(a ? a : NONE);
	d->facts[d->n].b = xstrdup(b ? b : NONE);
	d->n++;
}

void
envdiff_compare(const json_t *a, const json_t *b, struct envdiff *d)
{
	struct strv ka = STRV_INIT, va = STRV_INIT, kb = STRV_INIT, vb = STRV_INIT;
	const char *v;
	size_t i;

	d->facts = NULL;
	d->n = 0;
	envdiff_flatten(a, &ka, &va);
	envdiff_flatten(b, &kb, &vb);
	for (i = 0; i < ka.n; i++) {
		if (is_ignored(ka.v[i]))
			continue;
		v = flat_get(&kb, &vb, ka.v[i]);
		if (v == NULL || strcmp(v, va.v[i]) != 0)
			add(d, ka.v[i], va.v[i], v);
	}
	for (i = 0; i < kb.n; i++)
		if (!is_ignored(kb.v[i]) && flat_get(&ka, &va, kb.v[i]) == NULL)
			add(d, kb.v[i], NULL, vb.v[i]);
	strv_clear(&ka);
	strv_clear(&va);
	strv_clear(&kb);
	strv_clear(&vb);
}

int
envdiff_dirs(const char *da, const char *ha, const char *db, const char *hb,
    struct envdiff *d, char **err)
{
	json_t *a = NULL, *b = NULL;
	int r = -1;

	d->facts = NULL;
	d->n = 0;
	if (rundir_load_env(da, ha, &a, err) != 0 || rundir_load_env(db, hb, &b, err) != 0)
		goto out;
	envdiff_compare(a, b, d);
	r = 0;
out:
	json_decref(a);
	json_decref(b);
	return r;
}

void
envdiff_release(struct envdiff *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->facts[i].key);
		free(d->facts[i].a);
		free(d->facts[i].b);
	}
	free(d->facts);
	d->facts = NULL;
	d->n = 0;
}

char *
envdiff_short(const char *v, size_t max)
{
	size_t n = strlen(v), cut;
	char *s;

	if (n <= max)
		return xstrdup(v);
	/* not inside a UTF-8 sequence */
	for (cut = max - 3; cut > 0 && ((unsigned char)v[cut] & 0xc0) == 0x80; cut--)
		;
	s = xmalloc(cut + 4);
	memcpy(s, v, cut);
	memcpy(s + cut, "...", 4);
	return s;
}
