/*
 * catalog.c: the agent's benchmark catalogue (`fleetmark-agent list
 * --json`), parsed with jansson, and the checks plans are validated with.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog.h"
#include "yamldoc.h"
#include "proc.h"
#include "strv.h"
#include "xmalloc.h"

static void
bench_release(struct catalog_bench *b)
{
	size_t i;

	free(b->name);
	free(b->summary);
	free(b->from);
	for (i = 0; i < b->nparams; i++) {
		free(b->params[i].name);
		free(b->params[i].def);
		free(b->params[i].choices);
		free(b->params[i].help);
	}
	free(b->params);
	for (i = 0; i < b->nmetrics; i++) {
		free(b->metrics[i].name);
		free(b->metrics[i].unit);
		free(b->metrics[i].help);
	}
	free(b->metrics);
	for (i = 0; i < b->nmembers; i++) {
		free(b->members[i].bench);
		strv_free(b->members[i].keys, b->members[i].nparams);
		strv_free(b->members[i].vals, b->members[i].nparams);
	}
	free(b->members);
	for (i = 0; i < b->nlimits; i++) {
		free(b->limits[i].a);
		free(b->limits[i].b);
	}
	free(b->limits);
}

void
catalog_free(struct catalog *cat)
{
	size_t i;

	if (cat == NULL)
		return;
	for (i = 0; i < cat->nbenches; i++)
		bench_release(&cat->benches[i]);
	free(cat->benches);
	free(cat->source);
	free(cat);
}

static char *
jstr(json_t *obj, const char *key, const char *def)
{
	json_t *v = json_object_get(obj, key);

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	return xstrdup_null(def);
}

/* "key=value key=value" into a member's arrays. */
static int
split_member_params(struct catalog_member *m, const char *words)
{
	const char *p = words;

	while (*p) {
		const char *end, *eq;

		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		end = strchr(p, ' ');
		if (end == NULL)
			end = p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		if (eq == NULL || eq == p)
			return -1;
		m->keys = xreallocarray(m->keys, m->nparams + 1, sizeof(*m->keys));
		m->vals = xreallocarray(m->vals, m->nparams + 1, sizeof(*m->vals));
		m->keys[m->nparams] = xstrndup(p, (size_t)(eq - p));
		m->vals[m->nparams] = xstrndup(eq + 1, (size_t)(end - eq - 1));
		m->nparams++;
		p = end;
	}
	return 0;
}

static int
parse_bench(json_t *o, struct catalog_bench *b, const char *where, char **err)
{
	json_t *arr, *e;
	size_t i;
	const char *type;

	memset(b, 0, sizeof(*b));
	if ((b->name = jstr(o, "name", NULL)) == NULL || *b->name == '\0')
		return err_set(err, -1, "%s: a benchmark without a name", where);
	b->summary = jstr(o, "summary", "");
	b->from = jstr(o, "from", "");
	arr = json_object_get(o, "params");
	if (json_is_array(arr) && json_array_size(arr) > 0) {
		b->params = xcalloc(json_array_size(arr), sizeof(*b->params));
		json_array_foreach(arr, i, e) {
			struct catalog_param *p = &b->params[b->nparams];

			if ((p->name = jstr(e, "name", NULL)) == NULL)
				return err_set(err, -1,
				    "%s: benchmark %s: a parameter without a name",
				    where, b->name);
			b->nparams++;
			type = json_string_value(json_object_get(e, "type"));
			if (type == NULL || strcmp(type, "string") == 0)
				p->type = CATALOG_STRING;
			else if (strcmp(type, "int") == 0)
				p->type = CATALOG_INT;
			else if (strcmp(type, "cpus") == 0)
				p->type = CATALOG_CPUS;
			else if (strcmp(type, "enum") == 0)
				p->type = CATALOG_ENUM;
			else
				p->type = CATALOG_STRING;	/* a type we do not know: agent checks */
			p->def = jstr(e, "default", "");
			p->choices = jstr(e, "choices", NULL);
			p->help = jstr(e, "help", "");
			if (p->type == CATALOG_ENUM && p->choices == NULL)
				p->type = CATALOG_STRING;
			if (p->type == CATALOG_INT || p->type == CATALOG_CPUS) {
				json_t *lo = json_object_get(e, "min"), *hi = json_object_get(e, "max");

				if ((p->has_min = json_is_integer(lo)))
					p->min = json_integer_value(lo);
				if ((p->has_max = json_is_integer(hi)))
					p->max = json_integer_value(hi);
			}
		}
	}
	arr = json_object_get(o, "limits");
	if (json_is_array(arr) && json_array_size(arr) > 0) {
		b->limits = xcalloc(json_array_size(arr), sizeof(*b->limits));
		json_array_foreach(arr, i, e) {
			json_t *prod = json_object_get(e, "product"), *max = json_object_get(e, "max");
			struct catalog_limit *l = &b->limits[b->nlimits];

			/* A limit of a form this controller does not know: the agent checks it. */
			if (!json_is_array(prod) || json_array_size(prod) != 2 ||
			    !json_is_string(json_array_get(prod, 0)) ||
			    !json_is_string(json_array_get(prod, 1)) || !json_is_integer(max))
				continue;
			l->a = xstrdup(json_string_value(json_array_get(prod, 0)));
			l->b = xstrdup(json_string_value(json_array_get(prod, 1)));
			l->max = json_integer_value(max);
			b->nlimits++;
		}
	}
	arr = json_object_get(o, "metrics");
	if (json_is_array(arr) && json_array_size(arr) > 0) {
		b->metrics = xcalloc(json_array_size(arr), sizeof(*b->metrics));
		json_array_foreach(arr, i, e) {
			struct catalog_metric *m = &b->metrics[b->nmetrics];
			const char *dir;

			if ((m->name = jstr(e, "name", NULL)) == NULL)
				continue;
			b->nmetrics++;
			m->unit = jstr(e, "unit", "");
			m->help = jstr(e, "help", "");
			dir = json_string_value(json_object_get(e, "direction"));
			m->higher_better = dir != NULL && strcmp(dir, "higher") == 0;
		}
	}
	arr = json_object_get(o, "suite");
	if (json_is_array(arr) && json_array_size(arr) > 0) {
		b->members = xcalloc(json_array_size(arr), sizeof(*b->members));
		json_array_foreach(arr, i, e) {
			struct catalog_member *m = &b->members[b->nmembers];
			char *words;

			if ((m->bench = jstr(e, "bench", NULL)) == NULL)
				return err_set(err, -1,
				    "%s: suite %s: a member without a benchmark",
				    where, b->name);
			b->nmembers++;
			words = jstr(e, "params", "");
			if (split_member_params(m, words) != 0) {
				*err = xasprintf("%s: suite %s: member %s has malformed params '%s'",
				    where, b->name, m->bench, words);
				free(words);
				return -1;
			}
			free(words);
		}
	}
	return 0;
}

int
catalog_parse(const char *source, const char *text, size_t len,
    struct catalog **out, char **err)
{
	struct catalog *cat = xcalloc(1, sizeof(*cat));
	const char *p = text, *end = text + len;
	size_t lineno = 0, cap = 0, i;
	char *where = NULL;
	int r = -1;

	cat->source = xstrdup(source);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_error_t jerr;
		json_t *o;
		const char *type;

		lineno++;
		free(where);
		where = xasprintf("%s: line %zu", source, lineno);
		if (l == 0 || (l == 1 && p[0] == '\r')) {
			p += l + 1;
			continue;
		}
		if ((o = json_loadb(p, l, JSON_REJECT_DUPLICATES, &jerr)) == NULL) {
			*err = xasprintf("%s: not JSON: %s", where, jerr.text);
			goto out;
		}
		p += l + 1;
		type = json_string_value(json_object_get(o, "type"));
		if (!json_is_object(o) || type == NULL || strcmp(type, "bench") != 0) {
			json_decref(o);
			continue;
		}
		xgrow(&cat->benches, &cap, cat->nbenches + 1, sizeof(*cat->benches));
		if (parse_bench(o, &cat->benches[cat->nbenches], where, err) != 0) {
			bench_release(&cat->benches[cat->nbenches]);
			json_decref(o);
			goto out;
		}
		cat->nbenches++;
		json_decref(o);
	}
	if (cat->nbenches == 0) {
		*err = xasprintf("%s: no benchmark listed", source);
		goto out;
	}
	/* Suite members must name benchmarks of the catalogue. */
	for (i = 0; i < cat->nbenches; i++) {
		size_t j;

		for (j = 0; j < cat->benches[i].nmembers; j++)
			if (catalog_find(cat, cat->benches[i].members[j].bench) == NULL) {
				*err = xasprintf("%s: suite %s names an unknown benchmark %s",
				    source, cat->benches[i].name, cat->benches[i].members[j].bench);
				goto out;
			}
	}
	*out = cat;
	cat = NULL;
	r = 0;
out:
	free(where);
	catalog_free(cat);
	return r;
}

char *
catalog_agent_path(char **err)
{
	const char *env = getenv("FLEETMARK_AGENT");
	char *dir, *path;

	if (env != NULL && *env != '\0') {
		if (access(env, X_OK) != 0) {
			*err = xasprintf("FLEETMARK_AGENT=%s: %s", env, strerror(errno));
			return NULL;
		}
		return xstrdup(env);
	}
	if ((dir = proc_exe_dir()) == NULL) {
		*err = xstrdup("cannot find the directory of this program (/proc/self/exe)");
		return NULL;
	}
	path = xasprintf("%s/fleetmark-agent", dir);
	if (access(path, X_OK) != 0) {
		*err = xasprintf("no native agent at %s (run make, or set FLEETMARK_AGENT)",
		    path);
		free(path);
		path = NULL;
	}
	free(dir);
	return path;
}

int
catalog_load(const char *agent, struct catalog **out, char **err)
{
	char *argv[] = { (char *)agent, "list", "--json", NULL };
	char *text = NULL, *source, *e = NULL;
	size_t len;
	int status, r;

	if (proc_capture(argv, CATALOG_MAX_OUTPUT, CATALOG_TIMEOUT_MS, &text, &len,
	    &status, &e) != 0) {
		*err = xasprintf("benchmark catalogue: %s", e);
		free(e);
		return -1;
	}
	if (status != 0) {
		*err = xasprintf("benchmark catalogue: %s list --json exited with status %d",
		    agent, status);
		free(text);
		return -1;
	}
	source = xasprintf("%s list --json", agent);
	r = catalog_parse(source, text, len, out, err);
	free(source);
	free(text);
	return r;
}

const struct catalog_bench *
catalog_find(const struct catalog *cat, const char *name)
{
	size_t i;

	for (i = 0; i < cat->nbenches; i++)
		if (strcmp(cat->benches[i].name, name) == 0)
			return &cat->benches[i];
	return NULL;
}

const struct catalog_param *
catalog_find_param(const struct catalog_bench *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nparams; i++)
		if (strcmp(b->params[i].name, name) == 0)
			return &b->params[i];
	return NULL;
}

const struct catalog_metric *
catalog_find_metric(const struct catalog_bench *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nmetrics; i++)
		if (strcmp(b->metrics[i].name, name) == 0)
			return &b->metrics[i];
	return NULL;
}

/* An integer as the agent reads it: digits, optional '-', optional K/M/G. */
static int
check_int(const char *s)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p && strchr("kKmMgG", *p))
		p++;
	if (*p != '\0' || p - s > 18)
		return -1;
	return 0;
}

int
catalog_int_value(const char *value, long long *out)
{
	long long v = 0, mul = 1;
	const char *p = value;
	int neg = 0;

	if (check_int(value) != 0)
		return -1;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	for (; isdigit((unsigned char)*p); p++)
		v = v * 10 + (*p - '0');	/* at most 18 digits: no overflow */
	switch (*p) {
	case 'k': case 'K': mul = 1024; break;
	case 'm': case 'M': mul = 1024 * 1024; break;
	case 'g': case 'G': mul = 1024LL * 1024 * 1024; break;
	default: break;
	}
	if (v > (1LL << 62) / mul)
		return -1;
	*out = (neg ? -v : v) * mul;
	return 0;
}

/* A bound as a person writes it: 1024G, 64M from a mebibyte on, else decimal. */
static void
bound_text(char *buf, size_t size, long long v)
{
	static const struct { long long mul; const char *suffix; } units[] = {
		{ 1024LL * 1024 * 1024, "G" }, { 1024 * 1024, "M" },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (v != 0 && v % units[i].mul == 0 && v / units[i].mul < 1024 * 1024) {
			snprintf(buf, size, "%lld%s", v / units[i].mul, units[i].suffix);
			return;
		}
	snprintf(buf, size, "%lld", v);
}

char *
catalog_range_text(const struct catalog_param *p)
{
	char lo[32], hi[32];

	if (!p->has_min && !p->has_max)
		return NULL;
	bound_text(lo, sizeof(lo), p->min);
	bound_text(hi, sizeof(hi), p->max);
	if (p->has_min && p->has_max)
		return xasprintf("%s to %s", lo, hi);
	if (p->has_min)
		return xasprintf("at least %s", lo);
	return xasprintf("at most %s", hi);
}

static int
check_range(const struct catalog_param *p, const char *value, char **why)
{
	long long v;
	char *range;

	if ((!p->has_min && !p->has_max) || catalog_int_value(value, &v) != 0)
		return 0;
	if ((p->has_min && v < p->min) || (p->has_max && v > p->max)) {
		range = catalog_range_text(p);
		*why = xasprintf("%s is out of range (%s)", value, range);
		free(range);
		return -1;
	}
	return 0;
}

int
catalog_check_limits(const struct catalog_bench *b, char *const *keys,
    char *const *vals, size_t n, size_t *which, char **why)
{
	size_t i, j, ia, ib;

	for (i = 0; i < b->nlimits; i++) {
		const struct catalog_limit *l = &b->limits[i];
		long long x, y;

		ia = ib = n;
		for (j = 0; j < n; j++) {
			if (strcmp(keys[j], l->a) == 0)
				ia = j;
			if (strcmp(keys[j], l->b) == 0)
				ib = j;
		}
		if (ia == n || ib == n || catalog_int_value(vals[ia], &x) != 0 ||
		    catalog_int_value(vals[ib], &y) != 0)
			continue;
		x = x > 1 ? x : 1;
		y = y > 1 ? y : 1;
		if (x > l->max / y) {
			*which = ib > ia ? ib : ia;
			*why = xasprintf("%s x %s is %lld x %lld, more than %lld", l->a, l->b,
			    x, y, l->max);
			return -1;
		}
	}
	return 0;
}

static int
in_choices(const char *choices, const char *v)
{
	size_t n = strlen(v);
	const char *p = choices;

	while (p != NULL && *p) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);

		if (l == n && strncmp(p, v, n) == 0)
			return 1;
		p = bar ? bar + 1 : NULL;
	}
	return 0;
}

int
catalog_check_value(const struct catalog_param *p, const char *value, char **why)
{
	size_t n = strlen(value);

	switch (p->type) {
	case CATALOG_CPUS:
		if (n > 1 && value[n - 1] == '%') {
			char *num = xstrndup(value, n - 1);
			long long v;
			int bad = ydoc_parse_int(num, &v) != 0 || v <= 0 || v > 100000;

			free(num);
			if (bad) {
				*why = xasprintf("'%s' is not a CPU count or a percentage of the CPUs "
				    "(like 4 or 50%%)", value);
				return -1;
			}
			return 0;
		}
		if (check_int(value) != 0) {
			*why = xasprintf("'%s' is not a CPU count or a percentage of the CPUs "
			    "(like 4 or 50%%)", value);
			return -1;
		}
		return check_range(p, value, why);
	case CATALOG_INT:
		if (check_int(value) != 0) {
			*why = xasprintf("'%s' is not an integer (a K, M or G suffix is allowed)",
			    value);
			return -1;
		}
		return check_range(p, value, why);
	case CATALOG_ENUM:
		if (!in_choices(p->choices, value)) {
			char *copy = xstrdup(p->choices), *s, *save = NULL;
			const char *words[64];
			size_t nw = 0;
			const char *near;

			for (s = strtok_r(copy, "|", &save); s && nw < 64;
			    s = strtok_r(NULL, "|", &save))
				words[nw++] = s;
			near = ydoc_suggest(value, words, nw);
			if (near != NULL)
				*why = xasprintf("'%s' is not one of %s (did you mean '%s'?)",
				    value, p->choices, near);
			else
				*why = xasprintf("'%s' is not one of %s", value, p->choices);
			free(copy);
			return -1;
		}
		return 0;
	case CATALOG_STRING:
		break;
	}
	return 0;
}

const char **
catalog_bench_names(const struct catalog *cat, size_t *n)
{
	const char **v = xcalloc(cat->nbenches + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < cat->nbenches; i++)
		v[i] = cat->benches[i].name;
	*n = cat->nbenches;
	return v;
}

const char **
catalog_param_names(const struct catalog_bench *b, size_t *n)
{
	const char **v = xcalloc(b->nparams + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < b->nparams; i++)
		v[i] = b->params[i].name;
	*n = b->nparams;
	return v;
}

const char **
catalog_metric_names(const struct catalog_bench *b, size_t *n)
{
	const char **v = xcalloc(b->nmetrics + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < b->nmetrics; i++)
		v[i] = b->metrics[i].name;
	*n = b->nmetrics;
	return v;
}
