/*
 * report.c: read run directories into series and cells, and write the
 * tables in text, Markdown, CSV or JSON.  The tables themselves are built
 * in report-lmbench.c, report-delta.c and report-compare.c.
 *
 * Reading is one pass over trials.jsonl, one jansson parse per line; only
 * a line's value is kept (not its samples), in per-(series, cell) arrays,
 * so a million lines need a few tens of megabytes.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "journal.h"
#include "log.h"
#include "report-int.h"
#include "report.h"
#include "stats.h"
#include "wire.h"
#include "xmalloc.h"

#define RUN_JSON_MAX	(64 * 1024 * 1024)

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

int
report_table_parse(const char *s, enum report_table *out)
{
	static const char *const names[] = { "auto", "lmbench", "delta", "compare", "all",
		"matrix", "summary", "profile" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum report_table)i;
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
report_free(struct report *r)
{
	size_t i, j;

	if (r == NULL)
		return;
	for (i = 0; i < r->nseries; i++) {
		struct rseries *s = &r->series[i];

		free(s->run);
		free(s->dir);
		free(s->label);
		free(s->host);
		free(s->variant);
		free(s->name);
		free(s->os);
		free(s->regmetrics);
		for (j = 0; j < r->vals_n[i]; j++) {
			free(r->vals[i][j].rep);
			free(r->vals[i][j].v);
		}
		free(r->vals[i]);
	}
	for (i = 0; i < r->ncells; i++) {
		free(r->cells[i].bench);
		free(r->cells[i].params);
		free(r->cells[i].metric);
		free(r->cells[i].unit);
	}
	report_profile_free(r);
	strs_free(&r->unlike);
	free(r->series);
	free(r->cells);
	free(r->vals);
	free(r->vals_n);
	free(r->ctab);
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

/* --- Cells ------------------------------------------------------------------ */

static uint64_t
hash3(const char *a, const char *b, const char *c)
{
	uint64_t h = 1469598103934665603ULL;
	const char *s[3] = { a, b, c };
	int i;

	for (i = 0; i < 3; i++) {
		const unsigned char *p = (const unsigned char *)s[i];

		while (*p)
			h = (h ^ *p++) * 1099511628211ULL;
		h = (h ^ 0x1f) * 1099511628211ULL;
	}
	return h;
}

static void
ctab_insert(struct report *r, size_t idx)
{
	const struct rcell *c = &r->cells[idx];
	size_t m = r->ctab_size - 1, i = hash3(c->bench, c->params, c->metric) & m;

	while (r->ctab[i] != 0)
		i = (i + 1) & m;
	r->ctab[i] = idx + 1;
}

static size_t
cell_get(struct report *r, const char *bench, const char *params, const char *metric,
    const char *unit, int higher)
{
	size_t i, m;
	struct rcell *c;

	if (r->ctab_size == 0 || (r->ncells + 1) * 2 > r->ctab_size) {
		free(r->ctab);
		r->ctab_size = r->ctab_size ? r->ctab_size * 2 : 256;
		r->ctab = xcalloc(r->ctab_size, sizeof(*r->ctab));
		for (i = 0; i < r->ncells; i++)
			ctab_insert(r, i);
	}
	m = r->ctab_size - 1;
	for (i = hash3(bench, params, metric) & m; r->ctab[i] != 0; i = (i + 1) & m) {
		c = &r->cells[r->ctab[i] - 1];
		if (strcmp(c->bench, bench) == 0 && strcmp(c->params, params) == 0 &&
		    strcmp(c->metric, metric) == 0)
			return r->ctab[i] - 1;
	}
	xgrow(&r->cells, &r->cap_cells, r->ncells + 1, sizeof(*r->cells));
	c = &r->cells[r->ncells];
	c->bench = xstrdup(bench);
	c->params = xstrdup(params);
	c->metric = xstrdup(metric);
	c->unit = xstrdup(unit ? unit : "");
	c->higher = higher;
	r->ctab[i] = ++r->ncells;
	return r->ncells - 1;
}

static void
vals_put(struct report *r, size_t s, size_t c, int rep, double v)
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
	/* A trial run again (--resume) replaces its earlier value. */
	for (i = rv->n; i-- > 0;)
		if (rv->rep[i] == rep) {
			rv->v[i] = v;
			return;
		}
	if (rv->n == rv->cap) {
		rv->cap = rv->cap ? rv->cap * 2 : 4;
		rv->rep = xreallocarray(rv->rep, rv->cap, sizeof(*rv->rep));
		rv->v = xreallocarray(rv->v, rv->cap, sizeof(*rv->v));
	}
	rv->rep[rv->n] = rep;
	rv->v[rv->n++] = v;
}

/* --- Reading a run ------------------------------------------------------------ */

struct runctx {
	struct report	*r;
	const char	*dir;
	json_t		*run;
	const char	*run_id;
	const char	*label;		/* run.json "label" or NULL */
	double		 threshold;
	char		*regmetrics;	/* see struct rseries */
	size_t		 first;		/* first series of this run */
	/* last looked-up series, lines come in runs of the same host */
	char		*last_host, *last_variant;
	size_t		 last;
	char		*copy;		/* the line as read, for jansson */
	size_t		 copy_cap;
};

static json_t *
load_json_file(const char *path, size_t max, char **err)
{
	json_error_t je;
	json_t *j;
	struct stat st;

	if (stat(path, &st) != 0) {
		*err = xasprintf("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if ((size_t)st.st_size > max) {
		*err = xasprintf("%s: too big (%lld bytes)", path, (long long)st.st_size);
		return NULL;
	}
	if ((j = json_load_file(path, 0, &je)) == NULL) {
		*err = xasprintf("%s:%d:%d: %s", path, je.line, je.column, je.text);
		return NULL;
	}
	return j;
}

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
	json_t *h, *env;
	const char *kernel = NULL;
	char *path, *err = NULL;
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
	s->dir = xstrdup(x->dir);
	s->host = xstrdup(host);
	s->variant = variant ? xstrdup(variant) : NULL;
	s->threshold = x->threshold;
	s->regmetrics = x->regmetrics ? xstrdup(x->regmetrics) : NULL;

	path = xasprintf("%s/%s/%s.json", x->dir, JOURNAL_HOSTS_DIR, host);
	env = strchr(host, '/') ? NULL : load_json_file(path, RUN_JSON_MAX, &err);
	free(path);
	free(err);
	h = json_object_get(json_object_get(x->run, "hosts"), host);
	kernel = json_string_value(json_object_get(h, "kernel"));
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
		s->os = xasprintf("%s%s", variant ? variant : s->label, suffix);
	}
	i = r->nseries++;
found:
	free(x->last_host);
	free(x->last_variant);
	x->last_host = xstrdup(host);
	x->last_variant = variant ? xstrdup(variant) : NULL;
	x->last = i;
	return i;
}

/* "k=v,k=v" from a params object, in its order. */
static char *
params_text(json_t *params, char *buf, size_t cap)
{
	const char *k;
	json_t *v;
	size_t len = 0;

	buf[0] = '\0';
	json_object_foreach(params, k, v) {
		char num[64];
		const char *s = num;
		int n;

		if (json_is_string(v))
			s = json_string_value(v);
		else if (json_is_integer(v))
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
		else if (json_is_real(v))
			snprintf(num, sizeof(num), "%g", json_real_value(v));
		else
			continue;
		n = snprintf(buf + len, cap - len, "%s%s=%s", len ? "," : "", k, s);
		if (n < 0 || (size_t)n >= cap - len)
			break;
		len += (size_t)n;
	}
	return buf;
}

/* What a trial line says that reports use. */
struct tline {
	long long	 format;
	int		 has_format;
	const char	*host, *variant, *bench, *status, *metric, *unit, *direction;
	const char	*kind;
	size_t		 prof_off, prof_len;	/* the "profile" value in the line, or 0 */
	size_t		 notes_off, notes_len;	/* the "notes" value, or 0 */
	char		 params[1024];
	long long	 rep;
	double		 value;
	int		 has_value;
};

/* --- The fast path: a scanner for the lines the journal writes ---------------
 * It takes the fields above from a flat object and skips the rest; a line
 * it does not follow (escapes in a string it needs, a nested params...) goes
 * to jansson, which decides.  Strings point into the line, which is changed
 * in place (a NUL after each string used). */

static const char *
skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* A string at p (at its '"'); *s its text, NUL-terminated in place; NULL
 * when it has an escape or no end. */
static char *
scan_string(char *p, const char *end, const char **s)
{
	char *q;

	if (p >= end || *p != '"')
		return NULL;
	for (q = p + 1; q < end && *q != '"'; q++)
		if (*q == '\\' || (unsigned char)*q < 0x20)
			return NULL;
	if (q >= end)
		return NULL;
	*q = '\0';
	*s = p + 1;
	return q + 1;
}

/* Skip any value; NULL on a malformed one. */
static char *
skip_value(char *p, const char *end)
{
	int depth = 0;

	do {
		p = (char *)skip_ws(p, end);
		if (p >= end)
			return NULL;
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p >= end)
				return NULL;
			p++;
		} else if (*p == '{' || *p == '[') {
			depth++;
			p++;
		} else if (*p == '}' || *p == ']') {
			if (depth == 0)
				return NULL;
			depth--;
			p++;
		} else if (*p == ',' || *p == ':') {
			if (depth == 0)
				return NULL;
			p++;
		} else {
			char *word = p;

			/* strchr() finds the NUL: a NUL byte would never be passed */
			while (p < end && *p != '\0' && strchr(",:{}[] \t\r\n\"", *p) == NULL)
				p++;
			if (p == word)
				return NULL;
		}
	} while (depth > 0);
	return p;
}

/* A string or null into *s (NULL for null). */
static char *
scan_str_or_null(char *p, const char *end, const char **s)
{
	if (end - p >= 4 && memcmp(p, "null", 4) == 0) {
		*s = NULL;
		return p + 4;
	}
	return scan_string(p, end, s);
}

static char *
scan_number(char *p, const char *end, double *d)
{
	char *e;

	(void)end;
	if (*p != '-' && (*p < '0' || *p > '9'))
		return NULL;
	*d = strtod(p, &e);
	return e == p ? NULL : e;
}

static char *
scan_params(char *p, const char *end, char *buf, size_t cap)
{
	size_t len = 0;
	int first = 1;

	buf[0] = '\0';
	if (*p != '{')
		return NULL;
	p = (char *)skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return p + 1;
	for (;;) {
		const char *k, *v;
		char num[64];
		int n;

		p = (char *)skip_ws(p, end);
		if ((p = scan_string(p, end, &k)) == NULL)
			return NULL;
		p = (char *)skip_ws(p, end);
		if (p >= end || *p != ':')
			return NULL;
		p = (char *)skip_ws(p + 1, end);
		if (p < end && *p == '"') {
			if ((p = scan_string(p, end, &v)) == NULL)
				return NULL;
		} else {
			char *e = p;

			while (e < end && ((*e >= '0' && *e <= '9') || *e == '-'))
				e++;
			if (e == p || e - p >= (long)sizeof(num) || (e < end &&
			    strchr(",} \t", *e) == NULL))
				return NULL;	/* reals and the rest: jansson */
			memcpy(num, p, (size_t)(e - p));
			num[e - p] = '\0';
			v = num;
			p = e;
		}
		n = snprintf(buf + len, cap - len, "%s%s=%s", first ? "" : ",", k, v);
		if (n < 0 || (size_t)n >= cap - len)
			return NULL;
		len += (size_t)n;
		first = 0;
		p = (char *)skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			return p + 1;
		return NULL;
	}
}

static int
fast_parse(char *line, size_t len, struct tline *t)
{
	char *p = line;
	const char *end = line + len;

	memset(t, 0, offsetof(struct tline, params));
	t->params[0] = '\0';
	t->rep = 0;
	t->has_value = 0;
	p = (char *)skip_ws(p, end);
	if (p >= end || *p != '{')
		return -1;
	p = (char *)skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return -1;
	for (;;) {
		const char *k;
		double d;

		if ((p = scan_string(p, end, &k)) == NULL)
			return -1;
		p = (char *)skip_ws(p, end);
		if (p >= end || *p != ':')
			return -1;
		p = (char *)skip_ws(p + 1, end);
		if (p >= end)
			return -1;
		switch (k[0]) {
		case 'f':
			if (strcmp(k, "format") == 0) {
				/* range first: casting 1e36 is undefined; jansson decides */
				if ((p = scan_number(p, end, &d)) == NULL || !(fabs(d) < 9e18) ||
				    d != (long long)d)
					return -1;
				t->format = (long long)d;
				t->has_format = 1;
				goto next;
			}
			break;
		case 'h':
			if (strcmp(k, "host") == 0) {
				p = scan_str_or_null(p, end, &t->host);
				goto checked;
			}
			break;
		case 'v':
			if (strcmp(k, "variant") == 0) {
				p = scan_str_or_null(p, end, &t->variant);
				goto checked;
			}
			if (strcmp(k, "value") == 0) {
				if (end - p >= 4 && memcmp(p, "null", 4) == 0) {
					p += 4;
					goto next;
				}
				p = scan_number(p, end, &t->value);
				t->has_value = 1;
				goto checked;
			}
			break;
		case 'b':
			if (strcmp(k, "bench") == 0) {
				p = scan_str_or_null(p, end, &t->bench);
				goto checked;
			}
			break;
		case 's':
			if (strcmp(k, "status") == 0) {
				p = scan_str_or_null(p, end, &t->status);
				goto checked;
			}
			break;
		case 'm':
			if (strcmp(k, "metric") == 0) {
				p = scan_str_or_null(p, end, &t->metric);
				goto checked;
			}
			break;
		case 'u':
			if (strcmp(k, "unit") == 0) {
				p = scan_str_or_null(p, end, &t->unit);
				goto checked;
			}
			break;
		case 'k':
			if (strcmp(k, "kind") == 0) {
				p = scan_str_or_null(p, end, &t->kind);
				goto checked;
			}
			break;
		case 'd':
			if (strcmp(k, "direction") == 0) {
				p = scan_str_or_null(p, end, &t->direction);
				goto checked;
			}
			break;
		case 'p':
			if (strcmp(k, "params") == 0) {
				p = scan_params(p, end, t->params, sizeof(t->params));
				goto checked;
			}
			if (strcmp(k, "profile") == 0) {
				/* kept as text: read_line() parses the few lines with one */
				t->prof_off = (size_t)(p - line);
				p = skip_value(p, end);
				if (p != NULL)
					t->prof_len = (size_t)(p - line) - t->prof_off;
				goto checked;
			}
			break;
		case 'n':
			if (strcmp(k, "notes") == 0) {
				/* kept as text: read_line() parses the lines with notes */
				t->notes_off = (size_t)(p - line);
				if ((p = skip_value(p, end)) != NULL)
					t->notes_len = (size_t)(p - line) - t->notes_off;
				goto checked;
			}
			break;
		case 'r':
			if (strcmp(k, "rep") == 0) {
				if ((p = scan_number(p, end, &d)) == NULL || !(fabs(d) < 9e18))
					return -1;
				t->rep = (long long)d;
				goto next;
			}
			break;
		}
		p = skip_value(p, end);
checked:
		if (p == NULL)
			return -1;
next:
		p = (char *)skip_ws(p, end);
		if (p < end && *p == ',') {
			p = (char *)skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}') {
			p = (char *)skip_ws(p + 1, end);
			return p == end ? 0 : -1;
		}
		return -1;
	}
}

/* The slow path, for what the scanner does not follow: jansson. */
static json_t *
slow_parse(const char *line, size_t len, struct tline *t)
{
	json_error_t je;
	json_t *o, *f, *v;

	memset(t, 0, offsetof(struct tline, params));
	t->params[0] = '\0';
	t->rep = 0;
	t->has_value = 0;
	if ((o = json_loadb(line, len, 0, &je)) == NULL || !json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	f = json_object_get(o, "format");
	if (json_is_integer(f)) {
		t->format = json_integer_value(f);
		t->has_format = 1;
	}
	t->host = json_string_value(json_object_get(o, "host"));
	t->variant = json_string_value(json_object_get(o, "variant"));
	t->bench = json_string_value(json_object_get(o, "bench"));
	t->status = json_string_value(json_object_get(o, "status"));
	t->metric = json_string_value(json_object_get(o, "metric"));
	t->unit = json_string_value(json_object_get(o, "unit"));
	t->direction = json_string_value(json_object_get(o, "direction"));
	t->kind = json_string_value(json_object_get(o, "kind"));
	t->rep = json_integer_value(json_object_get(o, "rep"));
	v = json_object_get(o, "value");
	if (json_is_number(v)) {
		t->value = json_number_value(v);
		t->has_value = 1;
	}
	params_text(json_object_get(o, "params"), t->params, sizeof(t->params));
	return o;
}

/* One line (changed in place); returns 0, or 1 when it is not a trial line. */
static int
read_line(struct runctx *x, char *line, size_t len, size_t lineno)
{
	struct report *r = x->r;
	struct tline t;
	json_t *o = NULL;
	size_t s, c;
	int ret = 0;

	/* The scanner writes NULs into the line: keep a copy for jansson. */
	xgrow(&x->copy, &x->copy_cap, len + 1, 1);
	memcpy(x->copy, line, len);
	if (fast_parse(line, len, &t) != 0) {
		if ((o = slow_parse(x->copy, len, &t)) == NULL)
			return 1;
	}
	if (!t.has_format) {
		ret = 1;
		goto out;
	}
	if (t.format != JOURNAL_FORMAT) {
		/* docs/results.md: a reader skips a line of a format it does not know */
		if (r->counts.unknown_format++ == 0)
			log_warn("%s/%s:%zu: format %lld not known (this fleetmark reads %d), "
			    "line skipped", x->dir, JOURNAL_TRIALS, lineno, t.format,
			    JOURNAL_FORMAT);
		goto out;
	}
	if (t.host == NULL || t.bench == NULL || t.status == NULL) {
		ret = 1;
		goto out;
	}
	s = series_get(x, t.host, t.variant);
	if (strcmp(t.status, "ok") != 0) {
		int infra = same_str(t.kind, "infrastructure");

		r->series[s].failed++;
		r->counts.failed++;
		r->series[s].infra += infra;
		r->counts.infra += infra;
		goto out;
	}
	if (t.prof_len > 0 || (o != NULL && json_object_get(o, "profile") != NULL)) {
		json_t *prof = o != NULL ? json_incref(json_object_get(o, "profile")) :
		    json_loadb(x->copy + t.prof_off, t.prof_len, 0, NULL);

		if (report_profile_add(r, s, t.bench, t.params, prof) != 0 &&
		    r->counts.bad_profiles++ == 0)
			log_warn("%s/%s:%zu: a malformed profile, not used", x->dir,
			    JOURNAL_TRIALS, lineno);
		json_decref(prof);
	}
	/* only the rare notes that flag a difference from lmbench are parsed */
	if ((t.notes_len > 0 && memmem(x->copy + t.notes_off, t.notes_len,
	    WIRE_NOTE_UNLIKE_LMBENCH, strlen(WIRE_NOTE_UNLIKE_LMBENCH)) != NULL) ||
	    (o != NULL && json_object_get(o, "notes") != NULL)) {
		json_t *notes = o != NULL ? json_incref(json_object_get(o, "notes")) :
		    json_loadb(x->copy + t.notes_off, t.notes_len, 0, NULL);

		report_lmbench_notes(r, s, t.bench, t.params, notes);
		json_decref(notes);
	}
	if (t.metric == NULL || !t.has_value) {
		r->series[s].nometric++;
		r->counts.nometric++;
		goto out;
	}
	c = cell_get(r, t.bench, t.params, t.metric, t.unit,
	    same_str(t.direction, "higher"));
	vals_put(r, s, c, (int)t.rep, t.value);
	r->counts.used++;
out:
	json_decref(o);
	return ret;
}

static int
read_trials(struct runctx *x, char **err)
{
	char *path = xasprintf("%s/%s", x->dir, JOURNAL_TRIALS);
	FILE *fp;
	char *buf = NULL;
	size_t cap = 0, lineno = 0, corrupt = 0, first_corrupt = 0;
	ssize_t n;
	int ret = -1, rr;

	if ((fp = fopen(path, "r")) == NULL) {
		if (errno == ENOENT) {
			log_warn("%s: no trials yet", path);
			free(path);
			return 0;
		}
		*err = xasprintf("cannot open %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while ((n = getline(&buf, &cap, fp)) > 0) {
		lineno++;
		if (buf[n - 1] != '\n') {
			/* A crash while the last line was written. */
			log_warn("%s:%zu: truncated last line skipped", path, lineno);
			x->r->counts.truncated++;
			break;
		}
		x->r->counts.lines++;
		if (n == 1)
			continue;
		if ((rr = read_line(x, buf, (size_t)n - 1, lineno)) > 0) {
			corrupt++;
			if (first_corrupt == 0)
				first_corrupt = lineno;
		}
	}
	if (ferror(fp)) {
		*err = xasprintf("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if (corrupt) {
		log_warn("%s: %zu line%s, skipped (the first is line %zu)",
		    path, corrupt, corrupt == 1 ? " is not a trial line" : "s are not trial lines", first_corrupt);
		x->r->counts.corrupt += corrupt;
	}
	ret = 0;
out:
	free(buf);
	fclose(fp);
	free(path);
	return ret;
}

int
report_add_run(struct report *r, const char *dir, char **err)
{
	struct runctx x;
	char *path = xasprintf("%s/%s", dir, JOURNAL_RUN_JSON);
	json_t *f, *thr, *reg, *m;
	size_t i;
	int ret = -1;

	memset(&x, 0, sizeof(x));
	x.r = r;
	x.dir = dir;
	x.first = r->nseries;
	x.threshold = -1;
	if ((x.run = load_json_file(path, RUN_JSON_MAX, err)) == NULL)
		goto out;
	f = json_object_get(x.run, "format");
	if (!json_is_integer(f) || json_integer_value(f) != JOURNAL_FORMAT) {
		*err = xasprintf("%s: unknown format %s (this fleetmark reads %d)", path,
		    json_is_integer(f) ? "version" : "(none)", JOURNAL_FORMAT);
		if (json_is_integer(f)) {
			free(*err);
			*err = xasprintf("%s: unknown format %lld (this fleetmark reads %d)",
			    path, (long long)json_integer_value(f), JOURNAL_FORMAT);
		}
		goto out;
	}
	x.run_id = json_string_value(json_object_get(x.run, "run"));
	if (x.run_id == NULL)
		x.run_id = dir;
	x.label = json_string_value(json_object_get(x.run, "label"));
	thr = json_object_get(json_object_get(json_object_get(x.run, "plan"), "regression"),
	    "threshold");
	if (json_is_number(thr))
		x.threshold = json_number_value(thr);
	reg = json_object_get(json_object_get(json_object_get(x.run, "plan"), "regression"),
	    "metrics");
	json_array_foreach(reg, i, m) {
		char *t;

		if (!json_is_string(m) || strchr(json_string_value(m), ' ') != NULL)
			continue;
		t = xasprintf("%s%s ", x.regmetrics ? x.regmetrics : " ", json_string_value(m));
		free(x.regmetrics);
		x.regmetrics = t;
	}
	if (read_trials(&x, err) != 0)
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
	free(x.copy);
	free(x.regmetrics);
	json_decref(x.run);
	free(path);
	return ret;
}

/* --- Grids ------------------------------------------------------------------- */

struct rgrid *
rgrid_new(const char *table, const char *title, size_t nkeys, size_t ncols,
    const char *const *cols)
{
	struct rgrid *g = xcalloc(1, sizeof(*g));
	size_t i;

	g->table = xstrdup(table);
	g->title = xstrdup(title);
	g->nkeys = nkeys;
	g->ncols = ncols;
	g->cols = xcalloc(ncols, sizeof(*g->cols));
	for (i = 0; i < ncols; i++)
		g->cols[i] = xstrdup(cols[i]);
	return g;
}

size_t
rgrid_add_row(struct rgrid *g)
{
	size_t i, old = g->cap;

	if (g->nrows == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->cells = xreallocarray(g->cells, g->cap * g->ncols, sizeof(*g->cells));
		g->nums = xreallocarray(g->nums, g->cap * g->ncols, sizeof(*g->nums));
	}
	(void)old;
	for (i = 0; i < g->ncols; i++) {
		g->cells[g->nrows * g->ncols + i] = xstrdup("");
		g->nums[g->nrows * g->ncols + i] = NAN;
	}
	return g->nrows++;
}

void
rgrid_free_row(struct rgrid *g)
{
	size_t i;

	if (g->nrows == 0)
		return;
	g->nrows--;
	for (i = 0; i < g->ncols; i++)
		free(g->cells[g->nrows * g->ncols + i]);
}

void
rgrid_set(struct rgrid *g, size_t row, size_t col, const char *s, double num)
{
	size_t k = row * g->ncols + col;

	free(g->cells[k]);
	g->cells[k] = xstrdup(s);
	g->nums[k] = num;
}

void
rgrid_free(struct rgrid *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->nrows * g->ncols; i++)
		free(g->cells[i]);
	for (i = 0; i < g->ncols; i++)
		free(g->cols[i]);
	free(g->cols);
	free(g->cells);
	free(g->nums);
	free(g->table);
	free(g->title);
	free(g->text);
	free(g);
}

void
rgrids_add(struct rgrids *gs, struct rgrid *g)
{
	xgrow(&gs->g, &gs->cap, gs->n + 1, sizeof(*gs->g));
	gs->g[gs->n++] = g;
}

/* Display width of UTF-8 text: continuation bytes take no column. */
static size_t
dwidth(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void
pad(FILE *out, size_t n)
{
	while (n-- > 0)
		fputc(' ', out);
}

/* Generic aligned text: keys left-aligned, values right-aligned. */
static void
print_text(const struct rgrid *g, FILE *out)
{
	size_t *w = xcalloc(g->ncols, sizeof(*w)), i, j;

	fprintf(out, "%s\n", g->title);
	for (j = 0; j < g->ncols; j++)
		w[j] = dwidth(g->cols[j]);
	for (j = 0; j < g->nhidden; j++)
		w[j] = 0;
	for (i = 0; i < g->nrows; i++)
		for (j = 0; j < g->ncols; j++) {
			size_t l = dwidth(g->cells[i * g->ncols + j]);

			if (l > w[j])
				w[j] = l;
		}
	for (i = 0; i <= g->nrows; i++) {
		const char *const *row = i == 0 ? (const char *const *)g->cols :
		    (const char *const *)&g->cells[(i - 1) * g->ncols];
		size_t end = g->ncols;

		while (end > 1 && row[end - 1][0] == '\0')
			end--;
		for (j = g->nhidden; j < end; j++) {
			size_t l = dwidth(row[j]);

			if (j > g->nhidden)
				fputs("  ", out);
			if (j < g->nkeys || i == 0) {
				fputs(row[j], out);
				if (j + 1 < end)
					pad(out, w[j] - l);
			} else {
				pad(out, w[j] - l);
				fputs(row[j], out);
			}
		}
		fputc('\n', out);
	}
	free(w);
}

static void
md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void
print_md(const struct rgrid *g, FILE *out)
{
	size_t i, j;

	fprintf(out, "### %s\n\n|", g->title);
	for (j = g->nhidden; j < g->ncols; j++) {
		fputc(' ', out);
		md_cell(out, g->cols[j]);
		fputs(" |", out);
	}
	fputs("\n|", out);
	for (j = g->nhidden; j < g->ncols; j++)
		fputs(j < g->nkeys ? " --- |" : " ---: |", out);
	fputc('\n', out);
	for (i = 0; i < g->nrows; i++) {
		fputc('|', out);
		for (j = g->nhidden; j < g->ncols; j++) {
			fputc(' ', out);
			md_cell(out, g->cells[i * g->ncols + j]);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
}

static void
csv_cell(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL && s[0] != ' ' && (s[0] == '\0' ||
	    s[strlen(s) - 1] != ' ')) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* The shortest %g that reads back as the same double. */
static void
fmt_shortest(char *buf, size_t cap, double v)
{
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(buf, cap, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, cap, "%.17g", v);
}

static void
print_csv(const struct rgrid *g, FILE *out)
{
	size_t i, j;

	fputs("table", out);
	for (j = 0; j < g->ncols; j++) {
		fputc(',', out);
		csv_cell(out, g->cols[j]);
	}
	fputc('\n', out);
	for (i = 0; i < g->nrows; i++) {
		csv_cell(out, g->table);
		for (j = 0; j < g->ncols; j++) {
			size_t k = i * g->ncols + j;
			char num[64];

			fputc(',', out);
			if (!isnan(g->nums[k]) && j >= g->nkeys) {
				fmt_shortest(num, sizeof(num), g->nums[k]);
				fputs(num, out);
			} else {
				/* lmbench's blank cells have spaces: trim them */
				const char *s = g->cells[k];

				while (*s == ' ')
					s++;
				csv_cell(out, s);
			}
		}
		fputc('\n', out);
	}
}

/* One object per (row, value column): the row's keys, "column", "value", "text". */
static void
print_json(const struct rgrid *g, FILE *out, int *first)
{
	size_t i, j, k;

	for (i = 0; i < g->nrows; i++)
		for (j = g->nkeys; j < g->ncols; j++) {
			const char *txt = g->cells[i * g->ncols + j];
			double num = g->nums[i * g->ncols + j];
			json_t *o;
			char *s;

			while (*txt == ' ')
				txt++;
			if (*txt == '\0' && isnan(num))
				continue;
			o = json_object();
			json_object_set_new(o, "table", json_string(g->table));
			for (k = 0; k < g->nkeys; k++)
				json_object_set_new(o, g->cols[k],
				    json_string(g->cells[i * g->ncols + k]));
			json_object_set_new(o, "column", json_string(g->cols[j]));
			json_object_set_new(o, "value", isnan(num) || isinf(num) ? json_null() :
			    json_real(num));
			json_object_set_new(o, "text", json_string(txt));
			s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(15));
			fprintf(out, "%s%s", *first ? "[\n" : ",\n", s);
			*first = 0;
			free(s);
			json_decref(o);
		}
}

size_t *
report_pairs(const struct report *r, size_t base, int *fallback)
{
	const struct rseries *b = &r->series[base];
	size_t *pairs = xcalloc(r->nseries, sizeof(*pairs)), s, t;

	for (s = 0; s < r->nseries; s++) {
		const struct rseries *x = &r->series[s];

		/* in the baseline group: same run, label and variant as the baseline */
		if (s == base || (strcmp(x->run, b->run) == 0 && x->dup == b->dup &&
		    strcmp(x->label, b->label) == 0 && same_str(x->variant, b->variant))) {
			pairs[s] = (size_t)-1;
			continue;
		}
		pairs[s] = base;
		for (t = 0; t < r->nseries; t++) {
			const struct rseries *y = &r->series[t];

			if (strcmp(y->host, x->host) == 0 && strcmp(y->run, b->run) == 0 &&
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

static size_t
find_baseline(const struct report *r, const char *want, char **err)
{
	size_t i;

	if (want == NULL)
		return 0;
	for (i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i].name, want) == 0)
			return i;
	for (i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i].label, want) == 0 || same_str(r->series[i].variant,
		    want) || strcmp(r->series[i].host, want) == 0 ||
		    strcmp(r->series[i].run, want) == 0 || strcmp(r->series[i].dir, want) == 0)
			return i;
	*err = xasprintf("no series '%s' (series: %s%s)", want,
	    r->nseries ? r->series[0].name : "none", r->nseries > 1 ? ", ..." : "");
	return (size_t)-1;
}

int
report_render(const struct report *r, const struct report_opts *o, FILE *out, char **err)
{
	struct rgrids gs = { NULL, 0, 0 };
	enum report_table t = o->table;
	size_t base = 0, i;
	int regressions = 0, n, first = 1, ret = -1;

	if (r->nseries == 0) {
		*err = xstrdup("no trial lines in the runs given");
		return -1;
	}
	if ((base = find_baseline(r, o->baseline, err)) == (size_t)-1)
		return -1;
	if (t == REPORT_TABLE_AUTO) {
		int fallback;

		free(report_pairs(r, base, &fallback));
		/* lmbench's tables; else variants or runs compared; else a
		 * summary of each series, and the matrix of a sweep */
		if (report_has_lmbench(r))
			t = REPORT_TABLE_LMBENCH;
		else if (r->nseries > 1 && !fallback)
			t = REPORT_TABLE_COMPARE;
		else {
			if (report_table_summary(r, o, base, &gs, err) != 0 ||
			    report_table_matrix(r, o, base, &gs, err) < 0)
				goto out;
			t = REPORT_TABLE_AUTO;
		}
	}
	if (t == REPORT_TABLE_LMBENCH || (t == REPORT_TABLE_ALL && report_has_lmbench(r))) {
		if (report_table_lmbench(r, o, &gs, err) != 0)
			goto out;
	}
	if (t == REPORT_TABLE_DELTA || (t == REPORT_TABLE_ALL && r->nseries > 1)) {
		if (report_table_delta(r, o, base, &gs, err) != 0)
			goto out;
	}
	if (t == REPORT_TABLE_SUMMARY) {
		if (report_table_summary(r, o, base, &gs, err) != 0)
			goto out;
	}
	if (t == REPORT_TABLE_MATRIX || t == REPORT_TABLE_ALL) {
		if ((n = report_table_matrix(r, o, base, &gs, err)) < 0)
			goto out;
		if (n > 0 && t == REPORT_TABLE_MATRIX) {
			*err = xstrdup("no metric was measured over two swept parameters "
			    "(e.g. threads and pages)");
			goto out;
		}
	}
	if (t == REPORT_TABLE_COMPARE || (t == REPORT_TABLE_ALL && r->nseries > 1)) {
		if ((n = report_table_compare(r, o, base, &gs, err)) < 0)
			goto out;
		regressions += n;
	}
	if (t == REPORT_TABLE_PROFILE || (report_has_profile(r) && (t == REPORT_TABLE_ALL ||
	    o->table == REPORT_TABLE_AUTO))) {
		if (report_table_profile(r, o, base, &gs, err) != 0)
			goto out;
	}
	if (gs.n == 0) {
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
			if (g->text && gs.n > 1 && strcmp(g->table, "delta") == 0)
				fprintf(out, "%s\n", g->title);
			if (g->text)
				fputs(g->text, out);
			else
				print_text(g, out);
			break;
		case REPORT_MD:
			if (i > 0)
				fputc('\n', out);
			print_md(g, out);
			break;
		case REPORT_CSV:
			if (i > 0)
				fputc('\n', out);
			print_csv(g, out);
			break;
		case REPORT_JSON:
			print_json(g, out, &first);
			break;
		case REPORT_HTML:	/* the whole page, above */
			break;
		}
	}
	if (o->format == REPORT_JSON)
		fputs(first ? "[]\n" : "\n]\n", out);
	ret = regressions;
out:
	for (i = 0; i < gs.n; i++)
		rgrid_free(gs.g[i]);
	free(gs.g);
	return ret;
}

/* Write len bytes of text to rundir/name atomically (a hidden temporary, renamed). */
static int
write_atomic(const char *rundir, const char *name, const char *text, size_t len,
    char **err)
{
	char *path = xasprintf("%s/%s", rundir, name);
	char *tmp = xasprintf("%s/.%s.tmp", rundir, name);
	FILE *fp;
	int ret = -1;

	if ((fp = fopen(tmp, "w")) == NULL || fwrite(text, 1, len, fp) != len ||
	    fflush(fp) != 0) {
		*err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
		if (fp != NULL) {
			fclose(fp);
			unlink(tmp);
		}
		goto out;
	}
	if (fclose(fp) != 0) {
		*err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) != 0) {
		*err = xasprintf("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(path);
	free(tmp);
	return ret;
}

/* Render r with o into a new string (*text, *len); the render's result. */
static int
render_text(const struct report *r, const struct report_opts *o, char **text, size_t *len,
    char **err)
{
	FILE *mem;
	int n;

	*text = NULL;
	*len = 0;
	if ((mem = open_memstream(text, len)) == NULL) {
		*err = xasprintf("cannot write the report: %s", strerror(errno));
		return -1;
	}
	n = report_render(r, o, mem, err);
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
	if (render_text(r, &o, &text, &len, err) < 0 ||
	    write_atomic(rundir, "report.txt", text, len, err) != 0)
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
		if (render_text(r, &o, &lm, &lmlen, err) < 0)
			goto out;
	}
	o.table = REPORT_TABLE_COMPARE;
	if ((n = render_text(r, &o, &text, &len, err)) < 0)
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
	if (write_atomic(rundir, "report.txt", text, len, err) != 0)
		goto out;
	o.format = REPORT_HTML;
	if (render_text(r, &o, &html, &hlen, err) < 0 ||
	    write_atomic(rundir, "report.html", html, hlen, err) != 0)
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

/* --- small string lists shared by the tables (report-int.h) ------------------ */

size_t
strs_add(struct strs *l, const char *s)
{
	size_t i = strs_find(l, s);

	if (i != (size_t)-1)
		return i;
	xgrow(&l->s, &l->cap, l->n + 1, sizeof(*l->s));
	l->s[l->n] = xstrdup(s);
	return l->n++;
}

size_t
strs_find(const struct strs *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->s[i], s) == 0)
			return i;
	return (size_t)-1;
}

void
strs_free(struct strs *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
	memset(l, 0, sizeof(*l));
}

int
strs_is_number(const char *s)
{
	char *end;

	if (*s == '\0')
		return 0;
	(void)strtod(s, &end);
	return *end == '\0';
}

int
strs_cmp_num(const void *a, const void *b)
{
	double x = atof(*(char *const *)a), y = atof(*(char *const *)b);

	return x < y ? -1 : x > y;
}
