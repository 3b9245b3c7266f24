/*
 * plan.c: load a test plan (docs/plans-and-fleets.md), validate it against the agent's
 * benchmark catalogue, expand matrices and suites into points, and order
 * the trials of a host.
 */
#include <errno.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "yamldoc.h"
#include "fleet.h"
#include "pctenc.h"
#include "plan.h"
#include "program.h"
#include "strbuf.h"
#include "strv.h"
#include "tune.h"
#include "verdict.h"
#include "wire.h"
#include "xmalloc.h"

static const char *const plan_keys[] = {
	"name", "description", "hosts", "repeat", "repeat_max", "samples", "order", "timeout",
	"seed", "variants", "benchmarks", "regression", "tune", NULL
};
static const char *const variant_keys[] = { "write", "setup", "teardown", NULL };
static const char *const bench_keys[] = { "bench", "params", "profile", "monitor", NULL };
static const char *const regression_keys[] = { "threshold", "metrics", "nights", "confirm",
	"fdr", NULL };
static const char *const order_names[] = { "interleave", "sequential", "shuffle", NULL };
static const char *const profile_names[] = { "none", "perf", NULL };
static const char *const monitor_names[] = { WIRE_MON_INTERRUPTS, WIRE_MON_VMSTAT,
	WIRE_MON_PERF_STAT, NULL };

const char *
plan_monitor_name(size_t i)
{
	return i < PLAN_MON_COUNT ? monitor_names[i] : "?";
}

size_t
plan_monitor_names(unsigned bits, char **names)
{
	size_t k, n = 0;

	for (k = 0; k < PLAN_MON_COUNT; k++)
		if (bits & (1u << k))
			names[n++] = (char *)monitor_names[k];
	return n;
}

/* `monitor:` of a benchmark entry: a list of monitor names, into *bits. */
static int
load_monitors(const struct ydoc_node *n, unsigned *bits, char **err)
{
	const struct ydoc_node *v;
	size_t i, k;
	char *hint;

	*bits = 0;
	if (n->type != YDOC_SEQUENCE && n->type != YDOC_SCALAR)
		return ydoc_error(err, n, "monitor must be a list of monitors (interrupts, "
		    "vmstat, perf-stat), found %s", ydoc_type_name(n));
	for (i = 0; i < (n->type == YDOC_SEQUENCE ? n->n : 1); i++) {
		v = ydoc_list_at(n, i);
		if (v->type != YDOC_SCALAR)
			return ydoc_error(err, v, "monitor: expected a monitor name, found %s",
			    ydoc_type_name(v));
		for (k = 0; monitor_names[k] != NULL; k++)
			if (strcmp(v->value, monitor_names[k]) == 0)
				break;
		if (monitor_names[k] == NULL) {
			hint = ydoc_did_you_mean(v->value, monitor_names, PLAN_MON_COUNT);
			ydoc_error(err, v, "unknown monitor '%.64s': expected interrupts, vmstat "
			    "or perf-stat%s", v->value, hint);
			free(hint);
			return -1;
		}
		if (*bits & (1u << k))
			return ydoc_error(err, v, "monitor %s is listed twice", v->value);
		*bits |= 1u << k;
	}
	return 0;
}

const char *
plan_order_name(enum plan_order o)
{
	return (unsigned)o < 3 ? order_names[o] : "?";
}

/* --- Freeing --------------------------------------------------------------- */

static void
point_release(struct plan_point *pt)
{
	free(pt->bench);
	free(pt->suite);
	strv_free(pt->keys, pt->nparams);
	strv_free(pt->vals, pt->nparams);
	free(pt->given);
	free(pt->tasks);
	free(pt->id);
	free(pt->label);
}

static void
variant_release(struct plan_variant *v)
{
	size_t i;

	free(v->name);
	for (i = 0; i < v->nwrites; i++) {
		free(v->writes[i].path);
		free(v->writes[i].value);
	}
	free(v->writes);
	strv_free(v->setup, v->nsetup);
	strv_free(v->teardown, v->nteardown);
}

void
plan_free(struct plan *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nvariants; i++)
		variant_release(&p->variants[i]);
	free(p->variants);
	for (i = 0; i < p->npoints; i++)
		point_release(&p->points[i]);
	free(p->points);
	strv_free(p->metrics, p->nmetrics);
	for (i = 0; i < p->nprograms; i++)
		program_free(p->programs[i]);
	free(p->programs);
	tune_spec_free(p->tune);
	free(p->file);
	free(p->name);
	free(p->description);
	ydoc_free(p->doc);
	free(p);
}

/* --- Small helpers ----------------------------------------------------------- */

/*
 * A host pattern as fleet_match() reads it: terms joined by '&', each an
 * optional '!', an optional '@', then a name or an fnmatch(3) glob.
 */
static int
valid_host_pattern(const char *s)
{
	size_t n = 0;

	for (;; s++) {
		if (*s == '!')
			s++;
		if (*s == '@')
			s++;
		for (n = 0; isalnum((unsigned char)*s) || (*s != '\0' && strchr("-_.*?[]", *s));
		    s++)
			n++;
		if (n == 0 || n > FLEET_NAME_MAX)
			return 0;
		if (*s == '\0')
			return 1;
		if (*s != '&')
			return 0;
	}
}

/* Bytes kept as they are in trial ids and keys; the others become %XX. */
#define ID_KEEP		"._:@+-"

static void
escape_into(struct strbuf *sb, const char *s)
{
	pct_encode_sb(sb, s, strlen(s), ID_KEEP);
}

/*
 * Append a value for people: quoted when it has blanks, quotes or controls,
 * and cut after PLAN_LABEL_VALUE_MAX characters (a long command line).
 */
#define PLAN_LABEL_VALUE_MAX	32

static void
append_display(struct strbuf *sb, const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '"' || *p == '\\' || *p == 0x7f)
			break;
	if (*p == '\0' && *s != '\0' && strlen(s) <= PLAN_LABEL_VALUE_MAX) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (p - s >= PLAN_LABEL_VALUE_MAX - 3 && strlen(p) > 3) {
			strbuf_addstr(sb, "...");
			break;
		}

		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			strbuf_addstr(sb, "\\n");
		else if (c == '\t')
			strbuf_addstr(sb, "\\t");
		else if (c < ' ' || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, c);
	}
	strbuf_addch(sb, '"');
}

char *
plan_trial_key(const struct plan_variant *v, const struct plan_point *pt, int rep)
{
	struct strbuf sb = STRBUF_INIT;

	if (v == NULL || v->name == NULL)
		strbuf_addch(&sb, '-');
	else
		escape_into(&sb, v->name);
	strbuf_addf(&sb, "/%s/%d", pt->id, rep);
	return strbuf_detach(&sb, NULL);
}

/* --- Points ---------------------------------------------------------------- */

/*
 * Add a point of benchmark b with the given (key, value) pairs, the rest
 * from the catalogue's defaults.
 */
static void
add_point(struct plan *p, size_t *cap, const struct catalog_bench *b,
    const char *suite, char *const *gk, char *const *gv, size_t ng,
    enum plan_profile profile, const struct ydoc_node *where)
{
	struct plan_point *pt;
	struct strbuf id = STRBUF_INIT, label = STRBUF_INIT;
	size_t i, j, total;

	xgrow(&p->points, cap, p->npoints + 1, sizeof(*p->points));
	pt = &p->points[p->npoints++];
	memset(pt, 0, sizeof(*pt));
	pt->bench = xstrdup(b->name);
	pt->suite = xstrdup_null(suite);
	pt->profile = profile;
	pt->where = where;

	/* Catalogue parameters first, then any given one it does not list. */
	total = b->nparams;
	for (j = 0; j < ng; j++)
		if (catalog_find_param(b, gk[j]) == NULL)
			total++;
	pt->keys = xcalloc(total + 1, sizeof(*pt->keys));
	pt->vals = xcalloc(total + 1, sizeof(*pt->vals));
	pt->given = xcalloc(total + 1, 1);
	pt->tasks = xcalloc(total + 1, 1);
	for (i = 0; i < b->nparams; i++) {
		const char *val = b->params[i].def;

		pt->tasks[i] = b->params[i].type == CATALOG_CPUS;

		for (j = 0; j < ng; j++)
			if (strcmp(gk[j], b->params[i].name) == 0) {
				val = gv[j];
				pt->given[i] = 1;
			}
		pt->keys[i] = xstrdup(b->params[i].name);
		pt->vals[i] = xstrdup(val);
	}
	pt->nparams = b->nparams;
	for (j = 0; j < ng; j++)
		if (catalog_find_param(b, gk[j]) == NULL) {
			pt->keys[pt->nparams] = xstrdup(gk[j]);
			pt->vals[pt->nparams] = xstrdup(gv[j]);
			pt->given[pt->nparams++] = 1;
		}

	escape_into(&id, b->name);
	strbuf_addch(&id, '/');
	for (i = 0; i < pt->nparams; i++) {
		if (i > 0)
			strbuf_addch(&id, ',');
		escape_into(&id, pt->keys[i]);
		strbuf_addch(&id, '=');
		escape_into(&id, pt->vals[i]);
	}
	pt->id = strbuf_detach(&id, NULL);

	/* The label shows the given parameters in the order written. */
	for (j = 0; j < ng; j++) {
		if (j > 0)
			strbuf_addch(&label, ' ');
		strbuf_addf(&label, "%s=", gk[j]);
		append_display(&label, gv[j]);
	}
	pt->label = strbuf_detach(&label, NULL);
}

/*
 * A `bench: program` entry: the program, kept by the plan.  Its name must
 * not be a built-in benchmark's or another program's.
 */
static int
load_program(struct plan *p, const struct ydoc_node *e, const struct catalog *cat,
    struct program **out, char **err)
{
	struct program *prog;
	size_t i;

	if (program_load(e, p->file, &prog, err) != 0)
		return -1;
	for (i = 0; i < p->nprograms; i++)
		if (strcmp(p->programs[i]->name, prog->name) == 0)
			break;
	if (catalog_find(cat, prog->name) != NULL || i < p->nprograms) {
		ydoc_error(err, ydoc_get(e, "name"), "program name '%s' is taken by %s",
		    prog->name, i < p->nprograms ? "another program of the plan" :
		    "a built-in benchmark");
		program_free(prog);
		return -1;
	}
	p->programs = xreallocarray(p->programs, p->nprograms + 1, sizeof(*p->programs));
	p->programs[p->nprograms++] = prog;
	*out = prog;
	return 0;
}

/*
 * The catalogue's limits on products of parameters, at one point of a
 * matrix (idx: the value of each axis of params pn); the message points at
 * the value that broke it, else at the benchmark entry.
 */
static int
check_point_limits(const struct catalog_bench *b, const struct plan_point *pt,
    const struct ydoc_node *pn, const size_t *idx, char **err)
{
	const struct ydoc_node *at = pt->where;
	size_t which, i;
	char *why;

	if (catalog_check_limits(b, pt->keys, pt->vals, pt->nparams, &which, &why) == 0)
		return 0;
	for (i = 0; pn != NULL && i < pn->n; i++)
		if (strcmp(pn->keys[i]->value, pt->keys[which]) == 0)
			at = ydoc_list_at(pn->items[i], idx[i]);
	ydoc_error(err, at, "%s %s: %s", b->name, pt->label, why);
	free(why);
	return -1;
}

/* One `benchmarks:` entry: a suite, or a benchmark and its matrix. */
/*
 * The cap on trials per host, for a plan of npoints points: checked for
 * each entry before its points are made, so that a plan of many large
 * matrices is refused before it fills memory, not after.
 */
static int
check_trials(const struct plan *p, size_t npoints, const struct ydoc_node *where, char **err)
{
	int rep = p->repeat_auto ? p->repeat_max : p->repeat;

	/*
	 * The points so far and an entry's are each capped, so the product is
	 * at most 2 x PLAN_MAX_TRIALS x PLAN_MAX_VARIANTS x PLAN_MAX_REPEAT,
	 * far inside 64 bits.
	 */
	if (npoints <= 2 * (size_t)PLAN_MAX_TRIALS &&
	    (unsigned long long)npoints * p->nvariants * (unsigned long long)rep <= PLAN_MAX_TRIALS)
		return 0;
	return ydoc_error(err, where, "%zu variants x %zu points x repeat %s%d is more than %d "
	    "trials per host", p->nvariants, npoints, p->repeat_auto ? "up to " : "", rep,
	    PLAN_MAX_TRIALS);
}

static int
load_bench_entry(struct plan *p, size_t *cap, const struct ydoc_node *e,
    const struct catalog *cat, char **err)
{
	const struct ydoc_node *bn, *pn, *prn, *mn;
	const struct catalog_bench *b;
	enum plan_profile profile = PLAN_PROFILE_NONE;
	unsigned monitors = 0;
	size_t first = p->npoints;
	const char *name, **names;
	char *hint, **gk = NULL, **gv = NULL;
	size_t i, j, n, naxes = 0, *idx = NULL, *len = NULL, npoints = 1;
	struct program *prog = NULL;
	int r = -1;

	bn = ydoc_get(e, "bench");
	if (bn != NULL && bn->type == YDOC_SCALAR && strcmp(bn->value, WIRE_BENCH_PROGRAM) == 0) {
		if (load_program(p, e, cat, &prog, err) != 0)
			return -1;
		b = &prog->bench;
	} else {
		if (ydoc_check_keys(e, "benchmark entry", bench_keys, err) != 0)
			return -1;
		if (bn == NULL)
			return ydoc_error(err, e, "a benchmark entry needs `bench:` (a benchmark name)");
		if (ydoc_string(bn, &name, err) != 0)
			return -1;
		if ((b = catalog_find(cat, name)) == NULL) {
			names = catalog_bench_names(cat, &n);
			hint = ydoc_did_you_mean(name, names, n);
			ydoc_error(err, bn, "unknown benchmark '%.64s'%s", name, hint);
			free(hint);
			free(names);
			return -1;
		}
	}
	if ((prn = ydoc_get(e, "profile")) != NULL) {
		int v = -1;
		const char *s;

		if (ydoc_string(prn, &s, err) != 0)
			return -1;
		for (i = 0; profile_names[i] != NULL; i++)
			if (strcmp(s, profile_names[i]) == 0)
				v = (int)i;
		if (v < 0) {
			hint = ydoc_did_you_mean(s, profile_names, 2);
			ydoc_error(err, prn, "bad profile '%.64s': expected perf or none%s", s, hint);
			free(hint);
			return -1;
		}
		profile = (enum plan_profile)v;
	}
	if ((mn = ydoc_get(e, "monitor")) != NULL && !ydoc_is_null(mn) &&
	    load_monitors(mn, &monitors, err) != 0)
		return -1;
	pn = ydoc_get(e, "params");
	if (pn != NULL && ydoc_is_null(pn))
		pn = NULL;

	if (b->nmembers > 0) {
		if (pn != NULL)
			return ydoc_error(err, ydoc_get_key(e, "params"), "%s is a suite of %zu "
			    "points: it takes no params (name a member benchmark to vary "
			    "its parameters)", b->name, b->nmembers);
		if (check_trials(p, p->npoints + b->nmembers, e, err) != 0)
			return -1;
		for (i = 0; i < b->nmembers; i++) {
			const struct catalog_member *m = &b->members[i];

			add_point(p, cap, catalog_find(cat, m->bench), b->name, m->keys, m->vals,
			    m->nparams, profile, e);
		}
		for (i = first; i < p->npoints; i++)
			p->points[i].monitors = monitors;
		return 0;
	}

	if (pn != NULL) {
		if (pn->type != YDOC_MAPPING)
			return ydoc_error(err, pn, "params of %s must be a mapping of parameter "
			    "names to values, found %s", b->name, ydoc_type_name(pn));
		naxes = pn->n;
	}
	idx = xcalloc(naxes + 1, sizeof(*idx));
	len = xcalloc(naxes + 1, sizeof(*len));
	gk = xcalloc(naxes + 1, sizeof(*gk));
	gv = xcalloc(naxes + 1, sizeof(*gv));
	for (i = 0; i < naxes; i++) {
		const struct ydoc_node *k = pn->keys[i], *v = pn->items[i];
		const struct catalog_param *cp = catalog_find_param(b, k->value);

		if (cp == NULL) {
			names = catalog_param_names(b, &n);
			hint = ydoc_did_you_mean(k->value, names, n);
			if (n == 0)
				ydoc_error(err, k, "unknown parameter '%.64s': %s takes no parameters",
				    k->value, b->name);
			else
				ydoc_error(err, k, "unknown parameter '%.64s' for %s%s", k->value,
				    b->name, hint);
			free(hint);
			free(names);
			goto out;
		}
		if (v->type == YDOC_SEQUENCE && v->n == 0) {
			ydoc_error(err, v, "parameter %s has an empty list: a matrix axis needs at "
			    "least one value", cp->name);
			goto out;
		}
		if (v->type == YDOC_MAPPING) {
			ydoc_error(err, v, "parameter %s: expected a value or a list of values, "
			    "found a mapping", cp->name);
			goto out;
		}
		len[i] = v->type == YDOC_SEQUENCE ? v->n : 1;
		for (j = 0; j < len[i]; j++) {
			const struct ydoc_node *val = ydoc_list_at(v, j);
			char *why;

			/*
			 * Values are text for the agent: a plain `null` is the word
			 * (lat_syscall's op=null); only an empty value is missing.
			 */
			if (val->type != YDOC_SCALAR) {
				ydoc_error(err, val, "parameter %s: expected a single value, found %s",
				    cp->name, ydoc_type_name(val));
				goto out;
			}
			if (!val->quoted && (val->value[0] == '\0' || strcmp(val->value, "~") == 0)) {
				ydoc_error(err, val, "parameter %s has no value", cp->name);
				goto out;
			}
			if (catalog_check_value(cp, val->value, &why) != 0) {
				ydoc_error(err, val, "parameter %s of %s: %s", cp->name, b->name, why);
				free(why);
				goto out;
			}
		}
		if (npoints > (size_t)PLAN_MAX_TRIALS / len[i]) {
			ydoc_error(err, pn, "the matrix of %s has more than %d points", b->name,
			    PLAN_MAX_TRIALS);
			goto out;
		}
		npoints *= len[i];
		gk[i] = k->value;
	}
	if (check_trials(p, p->npoints + npoints, e, err) != 0)
		goto out;
	/* Every combination, the first axis varying slowest. */
	for (;;) {
		for (i = 0; i < naxes; i++)
			gv[i] = ydoc_list_at(pn->items[i], idx[i])->value;
		add_point(p, cap, b, NULL, gk, gv, naxes, profile, e);
		if (check_point_limits(b, &p->points[p->npoints - 1], pn, idx, err) != 0)
			goto out;
		for (i = naxes; i > 0; i--) {
			if (++idx[i - 1] < len[i - 1])
				break;
			idx[i - 1] = 0;
		}
		if (i == 0)
			break;
	}
	for (i = first; i < p->npoints; i++) {
		p->points[i].monitors = monitors;
		if (prog != NULL)
			p->points[i].program = prog;
	}
	r = 0;
out:
	free(idx);
	free(len);
	free(gk);
	free(gv);
	return r;
}

static int
point_cmp(const void *a, const void *b)
{
	const struct plan_point *const *x = a, *const *y = b;
	int c = strcmp((*x)->id, (*y)->id);

	if (c != 0)
		return c;
	return *x < *y ? -1 : *x > *y;
}

/* Two points with the same id would be the same trials twice. */
static int
check_unique_points(const struct plan *p, char **err)
{
	const struct plan_point **v, *dup = NULL, *first = NULL;
	size_t i;

	v = xcalloc(p->npoints + 1, sizeof(*v));
	for (i = 0; i < p->npoints; i++)
		v[i] = &p->points[i];
	qsort(v, p->npoints, sizeof(*v), point_cmp);
	for (i = 1; i < p->npoints; i++)
		if (strcmp(v[i - 1]->id, v[i]->id) == 0 && (dup == NULL || v[i] < dup)) {
			dup = v[i];
			first = v[i - 1];
		}
	free(v);
	if (dup == NULL)
		return 0;
	return ydoc_error(err, dup->where, "%s%s%s is measured twice (also by the benchmark "
	    "at line %d)", dup->bench, *dup->label ? " " : "", dup->label, first->where->line);
}

/* --- Variants ----------------------------------------------------------------- */

static int
valid_write_path(const char *s)
{
	if (s[0] != '/' || strlen(s) > 4096)
		return 0;
	if (strstr(s, "/../") || strstr(s, "/./") || strstr(s, "//"))
		return 0;
	if (strlen(s) >= 3 && strcmp(s + strlen(s) - 3, "/..") == 0)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int
load_commands(const struct ydoc_node *n, const char *what, char ***out, size_t *count,
    char **err)
{
	size_t i, c;

	if (ydoc_scalar_list(n, &c, err) != 0)
		return -1;
	*out = xcalloc(c + 1, sizeof(**out));
	for (i = 0; i < c; i++) {
		const struct ydoc_node *cmd = ydoc_list_at(n, i);

		if (cmd->value[0] == '\0') {
			ydoc_error(err, cmd, "an empty %s command", what);
			strv_free(*out, i);
			*out = NULL;
			return -1;
		}
		(*out)[i] = xstrdup(cmd->value);
	}
	*count = c;
	return 0;
}

static int
load_variant(struct plan_variant *v, const struct ydoc_node *key,
    const struct ydoc_node *vn, char **err)
{
	const struct ydoc_node *w, *s;
	char *what;
	size_t i;
	int r = -1;

	if (!ydoc_name_ok(key->value, 64))
		return ydoc_error(err, key, "bad variant name '%.64s': use letters, digits, "
		    "'-', '_' and '.', starting with a letter or digit", key->value);
	v->name = xstrdup(key->value);
	if (ydoc_is_null(vn))
		return 0;	/* a variant that changes nothing: the baseline */
	what = xasprintf("variant '%s'", key->value);
	if (ydoc_check_keys(vn, what, variant_keys, err) != 0)
		goto out;
	if ((w = ydoc_get(vn, "write")) != NULL && !ydoc_is_null(w)) {
		if (w->type != YDOC_MAPPING) {
			ydoc_error(err, w, "write: expected a mapping of file paths to values, "
			    "found %s", ydoc_type_name(w));
			goto out;
		}
		v->writes = xcalloc(w->n + 1, sizeof(*v->writes));
		for (i = 0; i < w->n; i++) {
			const struct ydoc_node *path = w->keys[i], *val = w->items[i];

			if (!valid_write_path(path->value)) {
				ydoc_error(err, path, "bad path '%.64s': write needs an absolute, "
				    "normalised file path", path->value);
				goto out;
			}
			if (val->type != YDOC_SCALAR || ydoc_is_null(val)) {
				ydoc_error(err, val, "the value written to %s must be a string, "
				    "found %s", path->value, ydoc_type_name(val));
				goto out;
			}
			if (strchr(val->value, '\n') != NULL) {
				ydoc_error(err, val, "the value written to %s must be one line",
				    path->value);
				goto out;
			}
			v->writes[i].path = xstrdup(path->value);
			v->writes[i].value = xstrdup(val->value);
			v->nwrites++;
		}
	}
	if ((s = ydoc_get(vn, "setup")) != NULL &&
	    load_commands(s, "setup", &v->setup, &v->nsetup, err) != 0)
		goto out;
	if ((s = ydoc_get(vn, "teardown")) != NULL &&
	    load_commands(s, "teardown", &v->teardown, &v->nteardown, err) != 0)
		goto out;
	r = 0;
out:
	free(what);
	return r;
}

/* --- Regression ---------------------------------------------------------------- */

static int
plan_runs(const struct plan *p, const char *bench)
{
	size_t i;

	for (i = 0; i < p->npoints; i++)
		if (strcmp(p->points[i].bench, bench) == 0)
			return 1;
	return 0;
}

int
plan_metric_counts(char *const *metrics, size_t n, const char *bench, const char *metric)
{
	size_t i, nb = strlen(bench);

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (strncmp(metrics[i], bench, nb) == 0 && metrics[i][nb] == '.' &&
		    strcmp(metrics[i] + nb + 1, metric) == 0)
			return 1;
	return 0;
}

const struct catalog_bench *
plan_program_bench(const struct plan *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nprograms; i++)
		if (strcmp(p->programs[i]->name, name) == 0)
			return &p->programs[i]->bench;
	return NULL;
}

/* regression.fdr: a level strictly between 0 and 1 (0.05), or a percent (5%). */
static int
load_fdr(const struct ydoc_node *n, double *out, char **err)
{
	const char *s;
	char *end;
	double v;

	if (ydoc_string(n, &s, err) != 0)
		return -1;
	if (strchr(s, '%') != NULL) {
		if (ydoc_parse_percent(s, &v) != 0)
			v = NAN;
		else
			v /= 100;
	} else {
		v = strtod(s, &end);
		if (end == s || *end != '\0')
			v = NAN;
	}
	if (!(v > 0 && v < 1))
		return ydoc_error(err, n, "regression.fdr '%.64s': expected a false discovery "
		    "rate between 0 and 1, like 0.05 (or 5%%)", s);
	*out = v;
	return 0;
}

static int
load_regression(struct plan *p, const struct ydoc_node *rn, const struct catalog *cat,
    char **err)
{
	const struct ydoc_node *t, *m;
	long long v;
	size_t i, n;

	if (ydoc_check_keys(rn, "regression", regression_keys, err) != 0)
		return -1;
	p->has_regression = 1;
	p->threshold = VERDICT_THRESHOLD;
	if ((t = ydoc_get(rn, "threshold")) != NULL && ydoc_percent(t, VERDICT_THRESHOLD_MAX, &p->threshold,
	    err) != 0)
		return -1;
	if ((t = ydoc_get(rn, "nights")) != NULL) {
		if (ydoc_int(t, 2, PLAN_MAX_NIGHTS, &v, err) != 0)
			return -1;
		p->nights = (int)v;
	}
	if ((t = ydoc_get(rn, "confirm")) != NULL) {
		if (ydoc_int(t, 0, PLAN_MAX_CONFIRM, &v, err) != 0)
			return -1;
		p->confirm = (int)v;
	}
	if ((t = ydoc_get(rn, "fdr")) != NULL && load_fdr(t, &p->fdr, err) != 0)
		return -1;
	if ((m = ydoc_get(rn, "metrics")) == NULL)
		return 0;	/* every metric the plan measures */
	if (ydoc_scalar_list(m, &n, err) != 0)
		return -1;
	p->metrics = xcalloc(n + 1, sizeof(*p->metrics));
	for (i = 0; i < n; i++) {
		const struct ydoc_node *e = ydoc_list_at(m, i);
		const struct catalog_bench *b;
		const char *dot = strchr(e->value, '.'), **names;
		char *bench, *hint;
		size_t nn;

		if (dot == NULL || dot == e->value || dot[1] == '\0')
			return ydoc_error(err, e, "regression metric '%.64s': expected BENCH.METRIC "
			    "(like munmap.ns_per_access)", e->value);
		bench = xstrndup(e->value, (size_t)(dot - e->value));
		if ((b = plan_program_bench(p, bench)) == NULL &&
		    (b = catalog_find(cat, bench)) == NULL) {
			names = catalog_bench_names(cat, &nn);
			hint = ydoc_did_you_mean(bench, names, nn);
			ydoc_error(err, e, "regression metric '%.64s': unknown benchmark '%s'%s",
			    e->value, bench, hint);
			free(hint);
			free(names);
			free(bench);
			return -1;
		}
		free(bench);
		if (catalog_find_metric(b, dot + 1) == NULL) {
			names = catalog_metric_names(b, &nn);
			hint = ydoc_did_you_mean(dot + 1, names, nn);
			ydoc_error(err, e, "regression metric '%.64s': %s has no metric '%s'%s",
			    e->value, b->name, dot + 1, hint);
			free(hint);
			free(names);
			return -1;
		}
		if (!plan_runs(p, b->name))
			return ydoc_error(err, e, "regression metric '%.64s': the plan does not run "
			    "%s", e->value, b->name);
		p->metrics[p->nmetrics++] = xstrdup(e->value);
	}
	return 0;
}

/* --- The plan --------------------------------------------------------------- */

static char *
name_from_file(const char *file)
{
	const char *base = strrchr(file, '/'), *dot;
	char *name;
	size_t i;

	base = base ? base + 1 : file;
	dot = strrchr(base, '.');
	name = dot && dot != base ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
	for (i = 0; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("-_.", name[i]))
			name[i] = '-';
	return name;
}

static int
load_doc(struct ydoc *doc, const struct catalog *cat, struct plan **out, char **err)
{
	const struct ydoc_node *root = ydoc_root(doc), *n, *bl;
	struct plan *p;
	size_t i, pcap = 0;
	long long v;
	int r = -1;

	if (ydoc_check_keys(root, "plan", plan_keys, err) != 0) {
		ydoc_free(doc);
		return -1;
	}
	p = xcalloc(1, sizeof(*p));
	p->doc = doc;
	p->file = xstrdup(ydoc_file(doc));
	p->repeat = PLAN_DEFAULT_REPEAT;
	p->nights = PLAN_DEFAULT_NIGHTS;
	p->confirm = PLAN_DEFAULT_CONFIRM;
	p->fdr = PLAN_DEFAULT_FDR;
	p->samples = PLAN_DEFAULT_SAMPLES;
	p->order = PLAN_ORDER_INTERLEAVE;
	p->timeout_ms = PLAN_DEFAULT_TIMEOUT;

	if ((n = ydoc_get(root, "name")) != NULL) {
		const char *s;

		if (ydoc_string(n, &s, err) != 0)
			goto out;
		if (!ydoc_name_ok(s, 64)) {
			ydoc_error(err, n, "bad plan name '%.64s': use letters, digits, '-', '_' "
			    "and '.', starting with a letter or digit", s);
			goto out;
		}
		p->name = xstrdup(s);
	} else
		p->name = name_from_file(p->file);
	if ((n = ydoc_get(root, "description")) != NULL && !ydoc_is_null(n)) {
		const char *s;

		if (ydoc_string(n, &s, err) != 0)
			goto out;
		p->description = xstrdup(s);
	}
	if ((n = ydoc_get(root, "hosts")) != NULL) {
		size_t count;

		if (ydoc_scalar_list(n, &count, err) != 0)
			goto out;
		if (count == 0) {
			ydoc_error(err, n, "hosts: an empty list selects no host (leave it out for "
			    "all)");
			goto out;
		}
		for (i = 0; i < count; i++) {
			const struct ydoc_node *h = ydoc_list_at(n, i);

			if (!valid_host_pattern(h->value)) {
				ydoc_error(err, h, "bad host '%.64s': expected all, a host name, a "
				    "glob or @label, joined by '&', '!' before one to exclude it",
				    h->value);
				goto out;
			}
		}
		p->hosts = n;
	}
	if ((n = ydoc_get(root, "repeat")) != NULL) {
		if (n->type == YDOC_SCALAR && strcmp(n->value, "auto") == 0) {
			p->repeat_auto = 1;
			p->repeat = PLAN_AUTO_MIN_REPEAT;
			p->repeat_max = PLAN_DEFAULT_REPEAT_MAX;
		} else if (ydoc_int(n, 1, PLAN_MAX_REPEAT, &v, err) != 0) {
			/* a number out of range keeps ydoc_int()'s message */
			if (n->type == YDOC_SCALAR && ydoc_parse_int(n->value, &v) != 0) {
				free(*err);
				*err = NULL;
				ydoc_error(err, n, "bad repeat '%.64s': expected a number of trials "
				    "from 1 to %d, or auto", n->value, PLAN_MAX_REPEAT);
			}
			goto out;
		} else
			p->repeat = (int)v;
	}
	if ((n = ydoc_get(root, "repeat_max")) != NULL) {
		if (!p->repeat_auto) {
			ydoc_error(err, n, "repeat_max is the most trials of `repeat: auto`; this "
			    "plan's repeat is fixed");
			goto out;
		}
		if (ydoc_int(n, PLAN_AUTO_MIN_REPEAT, PLAN_MAX_REPEAT, &v, err) != 0)
			goto out;
		p->repeat_max = (int)v;
	}
	if ((n = ydoc_get(root, "samples")) != NULL) {
		if (ydoc_int(n, 1, WIRE_MAX_SAMPLES, &v, err) != 0)
			goto out;
		p->samples = (int)v;
	}
	if ((n = ydoc_get(root, "order")) != NULL) {
		const char *s;
		char *hint;

		if (ydoc_string(n, &s, err) != 0)
			goto out;
		for (i = 0; order_names[i] != NULL; i++)
			if (strcmp(s, order_names[i]) == 0)
				break;
		if (order_names[i] == NULL) {
			hint = ydoc_did_you_mean(s, order_names, 3);
			ydoc_error(err, n, "bad order '%.64s': expected interleave, sequential or "
			    "shuffle%s", s, hint);
			free(hint);
			goto out;
		}
		p->order = (enum plan_order)i;
	}
	if ((n = ydoc_get(root, "timeout")) != NULL &&
	    ydoc_duration(n, 1000, 24LL * 3600000, &p->timeout_ms, err) != 0)
		goto out;
	if ((n = ydoc_get(root, "seed")) != NULL) {
		if (ydoc_int(n, 0, LLONG_MAX, &v, err) != 0)
			goto out;
		p->has_seed = 1;
		p->seed = (unsigned long long)v;
	}

	if ((n = ydoc_get(root, "variants")) != NULL && !ydoc_is_null(n)) {
		if (n->type != YDOC_MAPPING || n->n == 0) {
			ydoc_error(err, n, "variants: expected a mapping of variant names to "
			    "settings%s", n->type == YDOC_MAPPING ? ", with at least one" : "");
			goto out;
		}
		if (n->n > PLAN_MAX_VARIANTS) {
			ydoc_error(err, n, "more than %d variants", PLAN_MAX_VARIANTS);
			goto out;
		}
		p->variants = xcalloc(n->n, sizeof(*p->variants));
		for (i = 0; i < n->n; i++) {
			p->nvariants++;
			if (load_variant(&p->variants[i], n->keys[i], n->items[i], err) != 0)
				goto out;
		}
	} else {
		p->variants = xcalloc(1, sizeof(*p->variants));
		p->nvariants = 1;
	}

	if ((bl = ydoc_get(root, "benchmarks")) == NULL) {
		ydoc_error(err, root, "the plan has no `benchmarks:`");
		goto out;
	}
	if (bl->type != YDOC_SEQUENCE || bl->n == 0) {
		ydoc_error(err, bl, "benchmarks: expected a list of benchmark entries%s",
		    bl->type == YDOC_SEQUENCE ? ", with at least one" : "");
		goto out;
	}
	for (i = 0; i < bl->n; i++)
		if (load_bench_entry(p, &pcap, bl->items[i], cat, err) != 0)
			goto out;
	if (check_unique_points(p, err) != 0)
		goto out;
	if (check_trials(p, p->npoints, bl, err) != 0)
		goto out;
	if ((n = ydoc_get(root, "regression")) != NULL && !ydoc_is_null(n) &&
	    load_regression(p, n, cat, err) != 0)
		goto out;
	if ((n = ydoc_get(root, "tune")) != NULL && !ydoc_is_null(n) &&
	    tune_spec_load(n, &p->tune, err) != 0)
		goto out;
	*out = p;
	p = NULL;
	r = 0;
out:
	plan_free(p);
	return r;
}

int
plan_parse(const char *name, const char *text, size_t len, const struct catalog *cat,
    struct plan **out, char **err)
{
	struct ydoc *doc;

	if (ydoc_parse(name, text, len, &doc, err) != 0)
		return -1;
	return load_doc(doc, cat, out, err);
}

int
plan_load(const char *path, const struct catalog *cat, struct plan **out, char **err)
{
	struct ydoc *doc;

	if (ydoc_load(path, &doc, err) != 0)
		return -1;
	return load_doc(doc, cat, out, err);
}

/* --- Hosts ------------------------------------------------------------------ */

int
plan_select(const struct plan *p, const struct fleet *f, const char *hosts_spec,
    unsigned char **sel, char **err)
{
	unsigned char *only = NULL, *s = xcalloc(f->nhosts ? f->nhosts : 1, 1);
	int r = -1;

	if (hosts_spec != NULL) {
		only = xcalloc(f->nhosts ? f->nhosts : 1, 1);
		if (fleet_select(f, hosts_spec, only, err) != 0)
			goto out;
	}
	if (plan_hosts(p, f, only, s, err) != 0)
		goto out;
	*sel = s;
	s = NULL;
	r = 0;
out:
	free(only);
	free(s);
	return r;
}

int
plan_hosts(const struct plan *p, const struct fleet *f, const unsigned char *only,
    unsigned char *sel, char **err)
{
	const char **words;
	size_t i, count, bad, nsel = 0;
	char *e = NULL;

	if (p->hosts == NULL)
		memset(sel, 1, f->nhosts);
	else {
		(void)ydoc_scalar_list(p->hosts, &count, &e);	/* checked at load */
		words = xcalloc(count + 1, sizeof(*words));
		for (i = 0; i < count; i++)
			words[i] = ydoc_list_at(p->hosts, i)->value;
		if (fleet_match_words(f, words, count, sel, &bad, &e) < 0) {
			ydoc_error(err, ydoc_list_at(p->hosts, bad), "%s", e);
			free(e);
			free(words);
			return -1;
		}
		free(words);
	}
	for (i = 0; i < f->nhosts; i++) {
		if (only != NULL && !only[i])
			sel[i] = 0;
		nsel += sel[i];
	}
	if (nsel == 0) {
		if (p->hosts != NULL)
			return ydoc_error(err, p->hosts, "no host selected: the hosts chosen with "
			    "-H are not among the plan's hosts");
		*err = xstrdup("no host selected");
		return -1;
	}
	return 0;
}

/* --- Expansion -------------------------------------------------------------- */

/* splitmix64: small, fast, and the same sequence everywhere. */
static uint64_t
mix_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned long long
plan_seed(const struct plan *p)
{
	uint32_t r;

	if (p->has_seed)
		return p->seed;
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
	return r;
}

struct plan_schedule *
plan_expand(const struct plan *p, const char *host, unsigned long long seed)
{
	struct plan_schedule *s = xcalloc(1, sizeof(*s));
	size_t v, i, n = 0, per = p->npoints * (size_t)p->repeat;
	uint64_t state = seed;
	int *seen = NULL;
	int rep;

	s->host = xstrdup(host ? host : "");
	s->seed = seed;
	s->nvariants = p->nvariants;
	s->ntrials = per * p->nvariants;
	s->trials = xcalloc(s->ntrials + 1, sizeof(*s->trials));
	s->variant_start = xcalloc(p->nvariants + 1, sizeof(*s->variant_start));
	if (p->order == PLAN_ORDER_SHUFFLE)
		seen = xcalloc(p->npoints + 1, sizeof(*seen));

	for (v = 0; v < p->nvariants; v++) {
		struct plan_trial *t = s->trials + n;

		s->variant_start[v] = n;
		if (p->order == PLAN_ORDER_SEQUENTIAL) {
			for (i = 0; i < p->npoints; i++)
				for (rep = 1; rep <= p->repeat; rep++) {
					s->trials[n].point = &p->points[i];
					s->trials[n++].rep = rep;
				}
		} else {
			for (rep = 1; rep <= p->repeat; rep++)
				for (i = 0; i < p->npoints; i++) {
					s->trials[n].point = &p->points[i];
					s->trials[n++].rep = rep;
				}
		}
		if (p->order == PLAN_ORDER_SHUFFLE) {
			/* Fisher-Yates over this variant's trials, then number the
			 * repetitions of each point in the order they now run. */
			for (i = per; i > 1; i--) {
				size_t j = (size_t)(mix_next(&state) % i);
				struct plan_trial tmp = t[i - 1];

				t[i - 1] = t[j];
				t[j] = tmp;
			}
			memset(seen, 0, p->npoints * sizeof(*seen));
			for (i = 0; i < per; i++)
				t[i].rep = ++seen[t[i].point - p->points];
		}
		for (i = 0; i < per; i++) {
			t[i].rep += p->rep_base;
			t[i].variant = &p->variants[v];
			t[i].key = plan_trial_key(t[i].variant, t[i].point, t[i].rep);
		}
	}
	s->variant_start[p->nvariants] = n;
	free(seen);
	return s;
}

void
plan_schedule_free(struct plan_schedule *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ntrials; i++)
		free(s->trials[i].key);
	free(s->trials);
	free(s->variant_start);
	free(s->host);
	free(s);
}

/* The tasks a CPU-count value runs on a host of `cpus` CPUs (as the agent
 * resolves N%), or 0 when it is no count. */
static long long
tasks_at(const char *v, long cpus)
{
	size_t n = strlen(v);
	long long x;

	if (n > 1 && v[n - 1] == '%') {
		char *num = xstrndup(v, n - 1);
		int bad = ydoc_parse_int(num, &x) != 0 || x <= 0;

		free(num);
		if (bad)
			return 0;
		x = ((long long)cpus * x + 50) / 100;
		return x < 1 ? 1 : x;
	}
	return catalog_int_value(v, &x) == 0 ? x : 0;
}

size_t
plan_cpu_warnings(const struct plan *p, const char *host, long cpus, char ***out)
{
	char **msgs = NULL, *err = NULL;
	size_t nmsgs = 0, cap = 0, i, j, k;

	for (i = 0; cpus > 0 && i < p->npoints; i++) {
		const struct plan_point *pt = &p->points[i];

		for (j = 0; j < pt->nparams; j++) {
			struct strbuf vals = STRBUF_INIT;
			size_t nvals = 0;

			if (!pt->tasks[j] || tasks_at(pt->vals[j], cpus) <= cpus)
				continue;
			/* once per entry and parameter: at its first point */
			for (k = 0; k < i; k++)
				if (p->points[k].where == pt->where &&
				    strcmp(p->points[k].bench, pt->bench) == 0 &&
				    tasks_at(p->points[k].vals[j], cpus) > cpus)
					break;
			if (k < i)
				continue;
			for (k = i; k < p->npoints; k++) {
				const struct plan_point *q = &p->points[k];
				size_t m;

				if (q->where != pt->where || strcmp(q->bench, pt->bench) != 0 ||
				    tasks_at(q->vals[j], cpus) <= cpus)
					continue;
				for (m = i; m < k; m++)
					if (p->points[m].where == pt->where &&
					    strcmp(p->points[m].vals[j], q->vals[j]) == 0)
						break;
				if (m < k)
					continue;	/* that value is listed already */
				strbuf_addf(&vals, "%s%s", nvals ? ", " : "", q->vals[j]);
				nvals++;
			}
			ydoc_error(&err, pt->where, "%s %s %s %s more than the %ld CPU%s "
			    "of host %s: the tasks share CPUs, so the numbers measure "
			    "oversubscription too", pt->bench, pt->keys[j], vals.buf,
			    nvals == 1 ? "is" : "are", cpus, cpus == 1 ? "" : "s", host);
			strbuf_release(&vals);
			xgrow(&msgs, &cap, nmsgs + 1, sizeof(*msgs));
			msgs[nmsgs++] = err;
			err = NULL;
		}
	}
	*out = msgs;
	return nmsgs;
}
