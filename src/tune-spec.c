/*
 * tune-spec.c: tuning profiles as plans and `run --tune` ask for them:
 * the profiles, the items and the values each takes (tune.h).  Loading
 * only: applying a profile on a host is tune.c.
 */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "tune.h"
#include "xmalloc.h"
#include "yamldoc.h"

static const char *const item_names[TUNE_NITEMS] = {
	"governor", "boost", "smt", "aslr", "thp", "numa-balancing", "irqbalance",
	"cstates", "drop-caches"
};

const char *const tune_profiles[] = { "performance", "none", NULL };

/* The performance profile; NULL: left alone unless the plan asks. */
static const char *const performance[TUNE_NITEMS] = {
	"performance",	/* governor */
	"off",		/* boost */
	NULL,		/* smt */
	"off",		/* aslr */
	NULL,		/* thp */
	"off",		/* numa-balancing */
	"off",		/* irqbalance */
	"1",		/* cstates: state1 (C1) the deepest allowed */
	NULL,		/* drop-caches */
};

/* The values each item takes (besides `keep`); NULL-terminated; an empty
 * list takes a word (governor) or a number (cstates). */
static const char *const on_off[] = { "on", "off", NULL };
static const char *const aslr_values[] = { "on", "off", "0", "1", "2", NULL };
static const char *const thp_values[] = { "always", "madvise", "never", NULL };
static const char *const off_only[] = { "off", NULL };
static const char *const on_only[] = { "on", NULL };

static const char *const *const item_values[TUNE_NITEMS] = {
	NULL, on_off, on_off, aslr_values, thp_values, on_off, off_only, NULL, on_only
};

const char *
tune_item_name(enum tune_item it)
{
	return (unsigned)it < TUNE_NITEMS ? item_names[it] : "?";
}

void
tune_spec_free(struct tune_spec *s)
{
	size_t i;

	if (s == NULL)
		return;
	free(s->profile);
	for (i = 0; i < TUNE_NITEMS; i++)
		free(s->value[i]);
	free(s->root);
	free(s);
}

int
tune_spec_profile(const char *name, struct tune_spec **out, char **err)
{
	struct tune_spec *s;
	char *hint;
	size_t i;

	*out = NULL;
	if (strcmp(name, "none") == 0)
		return 0;
	if (strcmp(name, "performance") != 0) {
		hint = ydoc_did_you_mean(name, tune_profiles, 2);
		*err = xasprintf("unknown tuning profile '%.64s': expected performance or "
		    "none%s", name, hint);
		free(hint);
		return -1;
	}
	s = xcalloc(1, sizeof(*s));
	s->profile = xstrdup(name);
	s->root = xstrdup("");
	for (i = 0; i < TUNE_NITEMS; i++)
		s->value[i] = xstrdup_null(performance[i]);
	*out = s;
	return 0;
}

static int
in_list(const char *const *l, const char *s)
{
	for (; *l != NULL; l++)
		if (strcmp(*l, s) == 0)
			return 1;
	return 0;
}

/* A governor's name: letters, digits and '_'. */
static int
valid_word(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return n > 0 && n <= 32 && s[n] == '\0';
}

/* An item's value from the plan; 0, or -1 with *err at n. */
static int
item_value(struct tune_spec *s, size_t it, const struct ydoc_node *n, char **err)
{
	const char *v;
	char *expected;
	long long lim;

	if (ydoc_string(n, &v, err) != 0)
		return -1;
	free(s->value[it]);
	s->value[it] = NULL;
	if (strcmp(v, "keep") == 0)
		return 0;
	if (it == TUNE_GOVERNOR) {
		if (!valid_word(v))
			return ydoc_error(err, n, "tune: governor: bad governor '%.64s': "
			    "expected a name such as performance, or keep", v);
	} else if (it == TUNE_CSTATES) {
		if (ydoc_parse_int(v, &lim) != 0 || lim < 0 || lim > 15)
			return ydoc_error(err, n, "tune: cstates: bad value '%.64s': expected "
			    "the deepest idle state allowed, 0 to 15 (state0 is polling), or "
			    "keep", v);
	} else if (!in_list(item_values[it], v)) {
		struct strbuf sb = STRBUF_INIT;
		const char *const *l;

		for (l = item_values[it]; *l != NULL; l++)
			strbuf_addf(&sb, "%s, ", *l);
		strbuf_addstr(&sb, "keep");
		expected = strbuf_detach(&sb, NULL);
		ydoc_error(err, n, "tune: %s: bad value '%.64s': expected %s", item_names[it],
		    v, expected);
		free(expected);
		return -1;
	}
	s->value[it] = xstrdup(v);
	return 0;
}

int
tune_spec_load(const struct ydoc_node *n, struct tune_spec **out, char **err)
{
	const char *keys[TUNE_NITEMS + 2];
	const struct ydoc_node *pn;
	struct tune_spec *s = NULL;
	const char *name = "performance";
	char *e = NULL;
	size_t i, k;

	*out = NULL;
	if (n->type == YDOC_SCALAR) {
		if (tune_spec_profile(n->value, out, &e) != 0) {
			ydoc_error(err, n, "tune: %s", e);
			free(e);
			return -1;
		}
		return 0;
	}
	if (n->type != YDOC_MAPPING)
		return ydoc_error(err, n, "tune: expected a profile's name (performance) or a "
		    "mapping of items, not %s", ydoc_type_name(n));
	keys[0] = "profile";
	for (i = 0; i < TUNE_NITEMS; i++)
		keys[i + 1] = item_names[i];
	keys[TUNE_NITEMS + 1] = NULL;
	if (ydoc_check_keys(n, "tune", keys, err) != 0)
		return -1;
	if ((pn = ydoc_get(n, "profile")) != NULL && ydoc_string(pn, &name, err) != 0)
		return -1;
	if (tune_spec_profile(name, &s, &e) != 0) {
		ydoc_error(err, pn, "tune: %s", e);
		free(e);
		return -1;
	}
	if (s == NULL) {
		/* `none` with items: those items only */
		s = xcalloc(1, sizeof(*s));
		s->profile = xstrdup("none");
		s->root = xstrdup("");
	}
	for (k = 0; k < n->n; k++) {
		for (i = 0; i < TUNE_NITEMS; i++)
			if (strcmp(n->keys[k]->value, item_names[i]) == 0)
				break;
		if (i < TUNE_NITEMS && item_value(s, i, n->items[k], err) != 0) {
			tune_spec_free(s);
			return -1;
		}
	}
	*out = s;
	return 0;
}
