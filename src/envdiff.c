/*
 * envdiff.c: the env facts that differ between two sides.  See envdiff.h.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "envdiff.h"
#include "rundir.h"
#include "strv.h"
#include "xmalloc.h"

#define MAX_FACTS	4096	/* flattened facts of one side looked at */
#define NONE		"(none)"

static const char *const ignored[] = { "loadavg", "mhz", "uname.nodename", NULL };

struct flat {
	char	**keys, **vals;
	size_t	  n;
};

static int
is_ignored(const char *key)
{
	size_t i;

	for (i = 0; ignored[i] != NULL; i++)
		if (strcmp(key, ignored[i]) == 0)
			return 1;
	return 0;
}

static char *
text_of(const json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_null(v))
		return xstrdup("null");
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

static void
flatten(struct flat *f, const char *prefix, const json_t *o)
{
	const char *k;
	json_t *v;
	char *key, *t;

	json_object_foreach((json_t *)o, k, v) {
		if (f->n >= MAX_FACTS)
			return;
		key = *prefix ? xasprintf("%s.%s", prefix, k) : xstrdup(k);
		if (is_ignored(key)) {
			free(key);
			continue;
		}
		if (json_is_object(v)) {
			flatten(f, key, v);
			free(key);
			continue;
		}
		if ((t = text_of(v)) == NULL)
			t = xstrdup("?");
		f->keys = xreallocarray(f->keys, f->n + 1, sizeof(*f->keys));
		f->vals = xreallocarray(f->vals, f->n + 1, sizeof(*f->vals));
		f->keys[f->n] = key;
		f->vals[f->n] = t;
		f->n++;
	}
}

static void
flat_release(struct flat *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->keys[i]);
		free(f->vals[i]);
	}
	free(f->keys);
	free(f->vals);
}

static const char *
flat_get(const struct flat *f, const char *key)
{
	size_t i = strv_find(f->keys, f->n, key);

	return i == STRV_NONE ? NULL : f->vals[i];
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
	struct flat fa = { NULL, NULL, 0 }, fb = { NULL, NULL, 0 };
	const char *v;
	size_t i;

	d->facts = NULL;
	d->n = 0;
	if (json_is_object(a))
		flatten(&fa, "", a);
	if (json_is_object(b))
		flatten(&fb, "", b);
	for (i = 0; i < fa.n; i++) {
		v = flat_get(&fb, fa.keys[i]);
		if (v == NULL || strcmp(v, fa.vals[i]) != 0)
			add(d, fa.keys[i], fa.vals[i], v);
	}
	for (i = 0; i < fb.n; i++)
		if (flat_get(&fa, fb.keys[i]) == NULL)
			add(d, fb.keys[i], NULL, fb.vals[i]);
	flat_release(&fa);
	flat_release(&fb);
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
