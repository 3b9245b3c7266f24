/*
 * program.c: load a `bench: program` entry of a plan and translate its
 * regular expressions (see program.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "digest.h"
#include "fsutil.h"
#include "program.h"
#include "strbuf.h"
#include "strv.h"
#include "wire.h"
#include "xmalloc.h"
#include "yamldoc.h"

const char *const program_keys[] = {
	"bench", "name", "source", "command", "build", "program", "args", "params",
	"parse", "profile", NULL
};
static const char *const rule_keys[] = { "match", "metrics", NULL };
static const char *const metric_keys[] = { "unit", "direction", "scale", NULL };

/* --- the regular expression dialect ------------------------------------------ */

static int
re_fail(char **why, size_t at, const char *what)
{
	*why = xasprintf("%s at character %zu", what, at + 1);
	return -1;
}

/* A class escape (\d ...) outside brackets, or NULL. */
static const char *
class_outside(char c)
{
	switch (c) {
	case 'd': return "[0-9]";
	case 'D': return "[^0-9]";
	case 's': return "[[:space:]]";
	case 'S': return "[^[:space:]]";
	case 'w': return "[[:alnum:]_]";
	case 'W': return "[^[:alnum:]_]";
	default: return NULL;
	}
}

/* The same inside a bracket expression (the positive ones only). */
static const char *
class_inside(char c)
{
	switch (c) {
	case 'd': return "0-9";
	case 's': return "[:space:]";
	case 'w': return "[:alnum:]_";
	default: return NULL;
	}
}

/* A translation under way: where it is in re, and what it has written. */
struct rx {
	const char	*re;
	size_t		 i, n;		/* the next character of re, its length */
	struct strbuf	 sb;		/* the ERE so far */
	struct strv	 names;		/* a name per group so far, "" for none */
	int		 quant;		/* the last thing written can take a quantifier */
	char		**why;
	/* The parts regcomp() will build, repetitions unrolled, per open group:
	 * those before the last atom, and the last atom's (see rx_nodes()). */
	unsigned long	 tot[PROGRAM_MAX_GROUPS + 2], last[PROGRAM_MAX_GROUPS + 2];
	int		 depth;
};

/*
 * Count what was just read: an atom ('a'), a group's start ('(') or end
 * (')'), or a quantifier ('q') that makes the last atom `times` copies of
 * itself.  regcomp() copies a repeated atom once for + and up to n times
 * for {m,n}, so repetitions of repetitions grow as a product, and a rule
 * of a few hundred bytes would take the host's memory (the agent refuses
 * such a rule too): over WIRE_MAX_RE_NODES parts, the pattern is refused
 * where it went over.
 */
static int
rx_nodes(struct rx *x, char what, unsigned long times, size_t at)
{
	unsigned long *tot = x->tot, *last = x->last, v;

	switch (what) {
	case 'a':
		tot[x->depth] = wire_re_add(tot[x->depth], last[x->depth]);
		last[x->depth] = 1;
		break;
	case '(':
		tot[x->depth] = wire_re_add(tot[x->depth], last[x->depth]);
		last[x->depth] = 0;
		x->depth++;
		tot[x->depth] = last[x->depth] = 0;
		break;
	case ')':
		v = wire_re_add(wire_re_add(tot[x->depth], last[x->depth]), 1);
		x->depth--;
		last[x->depth] = v;
		break;
	case 'q':
		last[x->depth] = wire_re_add(wire_re_mul(last[x->depth], times), 1);
		break;
	}
	if (wire_re_add(tot[x->depth], last[x->depth]) > WIRE_MAX_RE_NODES) {
		*x->why = xasprintf("repetitions of repetitions make a pattern of more than "
		    "%d parts at character %zu", WIRE_MAX_RE_NODES, at + 1);
		return -1;
	}
	return 0;
}

/* An escape outside brackets: a class, a tab or the character itself. */
static int
escape(struct rx *x)
{
	const char *cls;
	char e = x->re[x->i + 1];

	if (e == '\0')
		return re_fail(x->why, x->i, "a trailing backslash");
	if ((cls = class_outside(e)) != NULL)
		strbuf_addstr(&x->sb, cls);
	else if (e == 't')
		strbuf_addch(&x->sb, '\t');
	else if (strchr(".[]()*+?{}|^$\\", e) != NULL)
		strbuf_addf(&x->sb, "\\%c", e);
	else if (isalnum((unsigned char)e))
		return re_fail(x->why, x->i, e == 'b' || e == 'B' || e == 'A' || e == 'Z' ?
		    "anchors like \\b are not supported (use ^, $ or a class)" :
		    isdigit((unsigned char)e) ? "backreferences are not supported" :
		    "unknown escape");
	else
		strbuf_addch(&x->sb, e);	/* \: \- \/ \, ... the character */
	x->i += 2;
	x->quant = 1;
	return 0;
}

/* Inside brackets, a named class [:alpha:] (or [.x.], [=x=]) as it is. */
static int
klass_named(struct rx *x)
{
	const char *re = x->re;
	const char *end = strstr(re + x->i + 2, (char[]){ re[x->i + 1], ']', 0 });

	if (end == NULL)
		return re_fail(x->why, x->i, "an unclosed character class");
	strbuf_add(&x->sb, re + x->i, (size_t)(end + 2 - (re + x->i)));
	x->i = (size_t)(end + 2 - re);
	return 0;
}

/* Inside brackets, an escape: a positive class, a tab or a plain character. */
static int
klass_escape(struct rx *x)
{
	char e = x->re[x->i + 1];
	const char *cls = class_inside(e);

	if (cls != NULL)
		strbuf_addstr(&x->sb, cls);
	else if (e == 't')
		strbuf_addch(&x->sb, '\t');
	else if (e == ']' || e == '^' || e == '-' || e == '\0' || isalnum((unsigned char)e))
		return re_fail(x->why, x->i, "this escape is not supported in [...] (write ] "
		    "first, ^ not first, - last, or use \\d \\s \\w)");
	else if (e == '[' && x->re[x->i + 2] != '\0' && strchr(".:=", x->re[x->i + 2]) != NULL)
		/* ERE would read "[." "[:" "[=" as the start of a class */
		return re_fail(x->why, x->i, "\\[ before . : or = is not supported in [...] "
		    "(write \\[ last)");
	else
		strbuf_addch(&x->sb, e);
	x->i += 2;
	return 0;
}

/* A bracket expression [...], its escapes translated. */
static int
klass(struct rx *x)
{
	const char *re = x->re;
	size_t start = x->i;

	strbuf_addch(&x->sb, '[');
	x->i++;
	if (re[x->i] == '^')
		strbuf_addch(&x->sb, re[x->i++]);
	if (re[x->i] == ']')
		strbuf_addch(&x->sb, re[x->i++]);
	for (;;) {
		if (x->i >= x->n)
			return re_fail(x->why, start, "an unclosed [");
		if (re[x->i] == ']')
			break;
		if (re[x->i] == '[' && (re[x->i + 1] == ':' || re[x->i + 1] == '.' ||
		    re[x->i + 1] == '=')) {
			if (klass_named(x) != 0)
				return -1;
		} else if (re[x->i] == '\\') {
			if (klass_escape(x) != 0)
				return -1;
		} else
			strbuf_addch(&x->sb, re[x->i++]);
	}
	strbuf_addch(&x->sb, ']');
	x->i++;
	x->quant = 1;
	return 0;
}

/* The name of a group (?P<name>...) or (?<name>...), starting at s. */
static int
group_name(struct rx *x, const char *s)
{
	const char *e = s;
	char *name;
	size_t j;

	while (isalnum((unsigned char)*e) || *e == '_')
		e++;
	if (e == s || *e != '>' || isdigit((unsigned char)*s))
		return re_fail(x->why, x->i, "a group name must be letters, digits and _ "
		    "closed by >");
	for (j = 0; j < x->names.n; j++)
		if (strlen(x->names.v[j]) == (size_t)(e - s) &&
		    strncmp(x->names.v[j], s, (size_t)(e - s)) == 0)
			return re_fail(x->why, x->i, "a group name used twice");
	name = xstrndup(s, (size_t)(e - s));
	strv_push(&x->names, name);
	free(name);
	x->i = (size_t)(e + 1 - x->re);
	return 0;
}

/* A group's opening: (, (?:, (?P<name> or (?<name>; ERE has only (. */
static int
group(struct rx *x)
{
	const char *p = x->re + x->i + 2;

	if (x->re[x->i + 1] != '?') {
		strv_push(&x->names, "");
		x->i++;
	} else if (*p == ':') {
		strv_push(&x->names, "");
		x->i += 3;
	} else if ((p[0] == 'P' && p[1] == '<') || (p[0] == '<' && p[1] != '=' && p[1] != '!')) {
		if (group_name(x, p[0] == 'P' ? p + 2 : p + 1) != 0)
			return -1;
	} else
		return re_fail(x->why, x->i, "lookaround, inline flags and (?...) other than "
		    "(?P<name>...) and (?:...) are not supported");
	if (x->names.n > PROGRAM_MAX_GROUPS)
		return re_fail(x->why, x->i, "more than 32 groups");
	strbuf_addch(&x->sb, '(');
	x->quant = 0;
	return 0;
}

/* A quantifier *, +, ? or {m,n}: greedy only, and after something to repeat. */
static int
quantifier(struct rx *x)
{
	const char *re = x->re, *e;
	size_t at = x->i;

	if (re[x->i] == '{') {
		if ((e = strchr(re + x->i, '}')) == NULL)
			return re_fail(x->why, x->i, "an unclosed {");
		strbuf_add(&x->sb, re + x->i, (size_t)(e + 1 - (re + x->i)));
		x->i = (size_t)(e + 1 - re);
	} else
		strbuf_addch(&x->sb, re[x->i++]);
	if (!x->quant)
		return re_fail(x->why, at, "a quantifier with nothing to repeat");
	if (re[x->i] == '?' || re[x->i] == '+')
		return re_fail(x->why, x->i, "lazy and possessive quantifiers are not supported");
	x->quant = 0;
	return 0;
}

/* The copies of its atom the quantifier at q makes, at most. */
static unsigned long
copies(const char *q)
{
	unsigned long m, n;
	char *e;

	if (*q == '+')
		return 2;
	if (*q != '{')
		return 1;
	m = strtoul(q + 1, &e, 10);
	n = *e == ',' && e[1] != '}' ? strtoul(e + 1, NULL, 10) : m + 1;
	return (n > m ? n : m) + 1;
}

int
program_regex(const char *re, char **ere, char ***names, size_t *ngroups, char **why)
{
	struct rx x = { .re = re, .n = strlen(re), .sb = STRBUF_INIT, .names = STRV_INIT,
	    .why = why };
	int r = 0;
	size_t at;
	char c;

	while (r == 0 && x.i < x.n) {
		at = x.i;
		c = re[x.i];
		if (c == '\\')
			r = escape(&x) || rx_nodes(&x, 'a', 0, at);
		else if (c == '[')
			r = klass(&x) || rx_nodes(&x, 'a', 0, at);
		else if (c == '(')
			r = group(&x) || rx_nodes(&x, '(', 0, at);
		else if (c == '*' || c == '+' || c == '?' || c == '{')
			r = quantifier(&x) || rx_nodes(&x, 'q', copies(re + at), at);
		else {
			strbuf_addch(&x.sb, c);
			x.quant = c != '|' && c != '^';
			x.i++;
			r = rx_nodes(&x, c == ')' && x.depth > 0 ? ')' : 'a', 0, at);
		}
	}
	if (r == 0) {
		*ere = strbuf_detach(&x.sb, NULL);
		*ngroups = x.names.n;
		*names = x.names.v;
		x.names.v = NULL;
		x.names.n = 0;
	}
	strbuf_release(&x.sb);
	strv_clear(&x.names);
	return r;
}

/* --- loading ----------------------------------------------------------------- */

void
program_free(struct program *p)
{
	size_t i, j;

	if (p == NULL)
		return;
	free(p->name);
	free(p->command);
	free(p->build);
	free(p->binary);
	strv_free(p->sources, p->nsources);
	strv_free(p->source_names, p->nsources);
	strv_free(p->args, p->nargs);
	for (i = 0; i < p->nrules; i++) {
		for (j = 0; j < p->rules[i].nmetrics; j++) {
			free(p->rules[i].metrics[j].name);
			free(p->rules[i].metrics[j].unit);
		}
		free(p->rules[i].metrics);
		free(p->rules[i].match);
		free(p->rules[i].ere);
	}
	free(p->rules);
	for (i = 0; i < p->bench.nparams; i++) {
		free(p->bench.params[i].name);
		free(p->bench.params[i].def);
		free(p->bench.params[i].help);
	}
	free(p->bench.params);
	for (i = 0; i < p->bench.nmetrics; i++) {
		free(p->bench.metrics[i].name);
		free(p->bench.metrics[i].unit);
		free(p->bench.metrics[i].help);
	}
	free(p->bench.metrics);
	free(p->bench.summary);
	free(p->bench.from);
	free(p);
}

static int
load_string(const struct ydoc_node *e, const char *key, char **out, char **err)
{
	const struct ydoc_node *n = ydoc_get(e, key);
	const char *s;

	*out = NULL;
	if (n == NULL)
		return 0;
	if (ydoc_string(n, &s, err) != 0)
		return -1;
	if (s[0] == '\0')
		return ydoc_error(err, n, "%s: empty", key);
	*out = xstrdup(s);
	return 0;
}

static int
load_sources(struct program *p, const struct ydoc_node *sn, const char *plan_file,
    struct strbuf *hashed, char **err)
{
	char *dir = fs_dirname(plan_file), *data = NULL;
	size_t i, j, n, len, total = 0;
	int r = -1;

	if (ydoc_scalar_list(sn, &n, err) != 0)
		goto out;
	if (n == 0) {
		ydoc_error(err, sn, "source: an empty list (name the files, or use command:)");
		goto out;
	}
	p->sources = xcalloc(n + 1, sizeof(*p->sources));
	p->source_names = xcalloc(n + 1, sizeof(*p->source_names));
	for (i = 0; i < n; i++) {
		const struct ydoc_node *f = ydoc_list_at(sn, i);
		const char *base = strrchr(f->value, '/');
		struct stat st;
		char *path;

		base = base ? base + 1 : f->value;
		if (f->value[0] == '/' || strstr(f->value, "..") != NULL || *base == '\0') {
			ydoc_error(err, f, "source '%.100s': a file next to the plan (a relative "
			    "path without ..)", f->value);
			goto out;
		}
		if (!ydoc_name_ok(base, PROGRAM_NAME_MAX)) {
			ydoc_error(err, f, "source '%.100s': its name must be letters, digits, "
			    "'-', '_', '.'", f->value);
			goto out;
		}
		path = xasprintf("%s/%s", dir, f->value);
		p->sources[i] = path;
		p->source_names[i] = xstrdup(base);
		p->nsources = i + 1;
		for (j = 0; j < i; j++)
			if (strcmp(p->source_names[j], base) == 0) {
				ydoc_error(err, f, "source '%.100s': another source is also called %s",
				    f->value, base);
				goto out;
			}
		if (stat(path, &st) != 0) {
			ydoc_error(err, f, "source '%.100s': %s", f->value, strerror(errno));
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			ydoc_error(err, f, "source '%.100s': not a regular file", f->value);
			goto out;
		}
		free(data);
		data = NULL;
		if (fs_read_file(path, PROGRAM_MAX_SOURCE, &data, &len, err) != 0) {
			char *e = *err;

			*err = NULL;
			ydoc_error(err, f, "source '%.100s': %s", f->value, e);
			free(e);
			goto out;
		}
		if ((total += len) > PROGRAM_MAX_SOURCE) {
			ydoc_error(err, f, "source: more than %d MB of sources", PROGRAM_MAX_SOURCE >> 20);
			goto out;
		}
		strbuf_addf(hashed, "source %s %zu\n", base, len);
		strbuf_add(hashed, data, len);
		strbuf_addch(hashed, '\n');
	}
	r = 0;
out:
	free(data);
	free(dir);
	return r;
}

/* A new metric of rule r, from `NAME: { unit, direction, scale }`. */
static int
load_metric(struct program_rule *r, const struct ydoc_node *k, const struct ydoc_node *v,
    char **err)
{
	struct program_metric *m = &r->metrics[r->nmetrics];
	const struct ydoc_node *u, *d, *s;
	const char *unit, *dir;

	if (!ydoc_name_ok(k->value, PROGRAM_NAME_MAX))
		return ydoc_error(err, k, "bad metric name '%.64s': use letters, digits, '-', "
		    "'_', '.'", k->value);
	if (v->type != YDOC_MAPPING)
		return ydoc_error(err, v, "metric %s: expected a mapping with unit and direction, "
		    "found %s", k->value, ydoc_type_name(v));
	if (ydoc_check_keys(v, "metric", metric_keys, err) != 0)
		return -1;
	if ((u = ydoc_get(v, "unit")) == NULL)
		return ydoc_error(err, v, "metric %s needs `unit:` (ns, us, ops/s, ...)", k->value);
	if ((d = ydoc_get(v, "direction")) == NULL)
		return ydoc_error(err, v, "metric %s needs `direction:` (lower or higher)",
		    k->value);
	if (ydoc_string(u, &unit, err) != 0 || ydoc_string(d, &dir, err) != 0)
		return -1;
	if (strlen(unit) > 32)
		return ydoc_error(err, u, "unit of %s: at most 32 bytes", k->value);
	if (strcmp(dir, WIRE_LOWER_BETTER) != 0 && strcmp(dir, WIRE_HIGHER_BETTER) != 0)
		return ydoc_error(err, d, "direction of %s: '%.32s' is not lower or higher",
		    k->value, dir);
	m->scale = 1;
	if ((s = ydoc_get(v, "scale")) != NULL) {
		const char *t;
		char *end;

		if (ydoc_string(s, &t, err) != 0)
			return -1;
		errno = 0;
		m->scale = strtod(t, &end);
		if (end == t || *end != '\0' || errno != 0 || !isfinite(m->scale) ||
		    m->scale == 0)
			return ydoc_error(err, s, "scale of %s: '%.32s' is not a non-zero number",
			    k->value, t);
	}
	m->name = xstrdup(k->value);
	m->unit = xstrdup(unit);
	m->higher_better = strcmp(dir, WIRE_HIGHER_BETTER) == 0;
	r->nmetrics++;
	return 0;
}

static int
load_rule(struct program *p, const struct ydoc_node *rn, char **err)
{
	struct program_rule *r = &p->rules[p->nrules];
	const struct ydoc_node *mn, *ms;
	char *why = NULL, **names = NULL, buf[256];
	size_t ng = 0, i, j;
	const char *match;
	regex_t re;
	int rc = -1, e;

	memset(r, 0, sizeof(*r));
	p->nrules++;
	if (rn->type != YDOC_MAPPING)
		return ydoc_error(err, rn, "parse: each rule is a mapping with match and metrics, "
		    "found %s", ydoc_type_name(rn));
	if (ydoc_check_keys(rn, "parse rule", rule_keys, err) != 0)
		return -1;
	if ((mn = ydoc_get(rn, "match")) == NULL)
		return ydoc_error(err, rn, "a parse rule needs `match:` (a regular expression "
		    "with named groups)");
	if ((ms = ydoc_get(rn, "metrics")) == NULL)
		return ydoc_error(err, rn, "a parse rule needs `metrics:` (the named groups' "
		    "units and directions)");
	if (ydoc_string(mn, &match, err) != 0)
		return -1;
	r->match = xstrdup(match);
	if (program_regex(match, &r->ere, &names, &ng, &why) != 0) {
		ydoc_error(err, mn, "match: %s", why);
		goto out;
	}
	if ((e = regcomp(&re, r->ere, REG_EXTENDED)) != 0) {
		regerror(e, &re, buf, sizeof(buf));
		ydoc_error(err, mn, "match: does not compile: %s", buf);
		goto out;
	}
	regfree(&re);
	if (ms->type != YDOC_MAPPING || ms->n == 0) {
		ydoc_error(err, ms, "metrics: expected a mapping of group names to units and "
		    "directions");
		goto out;
	}
	r->metrics = xcalloc(ms->n, sizeof(*r->metrics));
	for (i = 0; i < ms->n; i++) {
		if (load_metric(r, ms->keys[i], ms->items[i], err) != 0)
			goto out;
		for (j = 0; j < ng; j++)
			if (strcmp(names[j], ms->keys[i]->value) == 0)
				r->metrics[i].group = (int)j + 1;
		if (r->metrics[i].group == 0) {
			ydoc_error(err, ms->keys[i], "metric %s: no group (?P<%s>...) in the match "
			    "fills it", ms->keys[i]->value, ms->keys[i]->value);
			goto out;
		}
	}
	for (j = 0; j < ng; j++) {
		if (names[j][0] == '\0')
			continue;	/* unnamed */
		for (i = 0; i < ms->n; i++)
			if (strcmp(names[j], ms->keys[i]->value) == 0)
				break;
		if (i == ms->n) {
			ydoc_error(err, mn, "match: group '%s' is not a metric (name it under "
			    "metrics:, or make it (?:...))", names[j]);
			goto out;
		}
	}
	rc = 0;
out:
	free(why);
	strv_free(names, ng);
	return rc;
}

/*
 * Every {name} of an argument template (name: letters, digits and _, not
 * starting with a digit) names a parameter or samples; other braces are
 * kept as written.
 */
static int
check_template(const struct ydoc_node *a, const struct ydoc_node *pn, char **err)
{
	const char *s = a->value, *open, *close;
	size_t i;

	while ((open = strchr(s, '{')) != NULL && (close = strchr(open + 1, '}')) != NULL) {
		size_t n = (size_t)(close - open - 1);
		int found = n == 7 && strncmp(open + 1, "samples", 7) == 0;

		for (i = 0; i < n; i++)
			if (!(isalnum((unsigned char)open[1 + i]) || open[1 + i] == '_'))
				break;
		if (i < n || isdigit((unsigned char)open[1])) {
			s = open + 1;	/* not a {name}: kept as written (${#1}) */
			continue;
		}

		for (i = 0; !found && pn != NULL && pn->type == YDOC_MAPPING && i < pn->n; i++)
			if (strlen(pn->keys[i]->value) == n &&
			    strncmp(pn->keys[i]->value, open + 1, n) == 0)
				found = 1;
		if (!found && n > 0 && n <= 64)
			return ydoc_error(err, a, "args: unknown parameter {%.*s} (params: gives "
			    "the values; {samples} is the plan's samples)", (int)n, open + 1);
		s = close + 1;
	}
	return 0;
}

/* The catalogue entry plans are checked against: params and metrics. */
static void
make_bench(struct program *p, const struct ydoc_node *pn)
{
	struct catalog_bench *b = &p->bench;
	size_t i, j, k;

	b->name = p->name;
	b->summary = xstrdup("a program of the user's own");
	b->from = xstrdup("");
	if (pn != NULL && pn->type == YDOC_MAPPING) {
		b->params = xcalloc(pn->n + 1, sizeof(*b->params));
		for (i = 0; i < pn->n; i++) {
			b->params[i].name = xstrdup(pn->keys[i]->value);
			b->params[i].type = CATALOG_STRING;
			b->params[i].def = xstrdup("");
			b->params[i].help = xstrdup("");
		}
		b->nparams = pn->n;
	}
	for (i = 0, k = 0; i < p->nrules; i++)
		k += p->rules[i].nmetrics;
	b->metrics = xcalloc(k + 1, sizeof(*b->metrics));
	for (i = 0; i < p->nrules; i++)
		for (j = 0; j < p->rules[i].nmetrics; j++) {
			const struct program_metric *m = &p->rules[i].metrics[j];

			if (catalog_find_metric(b, m->name) != NULL)
				continue;
			b->metrics[b->nmetrics].name = xstrdup(m->name);
			b->metrics[b->nmetrics].unit = xstrdup(m->unit);
			b->metrics[b->nmetrics].help = xstrdup("");
			b->metrics[b->nmetrics++].higher_better = m->higher_better;
		}
}

int
program_load(const struct ydoc_node *e, const char *plan_file, struct program **out,
    char **err)
{
	const struct ydoc_node *nn, *sn, *an, *pn, *rn;
	struct strbuf hashed = STRBUF_INIT;
	struct program *p = xcalloc(1, sizeof(*p));
	size_t i, n;
	int r = -1;

	p->where = e;
	if (ydoc_check_keys(e, "program benchmark", program_keys, err) != 0)
		goto out;
	if ((nn = ydoc_get(e, "name")) == NULL) {
		ydoc_error(err, e, "bench: program needs `name:` (the name in tables)");
		goto out;
	}
	if (load_string(e, "name", &p->name, err) != 0)
		goto out;
	if (!ydoc_name_ok(p->name, PROGRAM_NAME_MAX) || strcmp(p->name, WIRE_BENCH_PROGRAM) == 0) {
		ydoc_error(err, nn, "bad program name '%.64s': use letters, digits, '-', '_', "
		    "'.' (and not 'program')", p->name);
		goto out;
	}
	sn = ydoc_get(e, "source");
	if (load_string(e, "command", &p->command, err) != 0 ||
	    load_string(e, "build", &p->build, err) != 0 ||
	    load_string(e, "program", &p->binary, err) != 0)
		goto out;
	if ((sn == NULL) == (p->command == NULL)) {
		ydoc_error(err, sn ? ydoc_get_key(e, "command") : e, "bench: program needs "
		    "either `source:` (files next to the plan) or `command:` (a program on "
		    "the host), not %s", sn ? "both" : "neither");
		goto out;
	}
	if (p->command != NULL && (p->build != NULL || p->binary != NULL)) {
		ydoc_error(err, ydoc_get_key(e, p->build ? "build" : "program"), "%s: only with "
		    "`source:` (a `command:` is already on the host)", p->build ? "build" : "program");
		goto out;
	}
	if (sn != NULL && p->build == NULL) {
		ydoc_error(err, e, "bench: program with `source:` needs `build:` (like \"cc -O2 "
		    "-o NAME NAME.c\")");
		goto out;
	}
	if (p->binary != NULL && (strchr(p->binary, '/') != NULL || strcmp(p->binary, ".") == 0 ||
	    strcmp(p->binary, "..") == 0)) {
		ydoc_error(err, ydoc_get(e, "program"), "program: a file name in the build "
		    "directory, without /");
		goto out;
	}
	strbuf_addf(&hashed, "fleetmark program 1\nbuild %s\nprogram %s\n",
	    p->build ? p->build : "", p->binary ? p->binary : "");
	if (sn != NULL && load_sources(p, sn, plan_file, &hashed, err) != 0)
		goto out;

	pn = ydoc_get(e, "params");
	if (pn != NULL && ydoc_is_null(pn))
		pn = NULL;
	if ((an = ydoc_get(e, "args")) != NULL) {
		if (ydoc_scalar_list(an, &n, err) != 0)
			goto out;
		if (n > PROGRAM_MAX_ARGS) {
			ydoc_error(err, an, "args: more than %d arguments", PROGRAM_MAX_ARGS);
			goto out;
		}
		p->args = xcalloc(n + 1, sizeof(*p->args));
		for (i = 0; i < n; i++) {
			const struct ydoc_node *a = ydoc_list_at(an, i);

			if (check_template(a, pn, err) != 0)
				goto out;
			p->args[p->nargs++] = xstrdup(a->value);
		}
	}
	if ((rn = ydoc_get(e, "parse")) == NULL) {
		ydoc_error(err, e, "bench: program needs `parse:` (rules of match and metrics)");
		goto out;
	}
	if (rn->type != YDOC_SEQUENCE || rn->n == 0 || rn->n > PROGRAM_MAX_RULES) {
		ydoc_error(err, rn, "parse: expected a list of 1 to %d rules", PROGRAM_MAX_RULES);
		goto out;
	}
	p->rules = xcalloc(rn->n, sizeof(*p->rules));
	for (i = 0; i < rn->n; i++)
		if (load_rule(p, rn->items[i], err) != 0)
			goto out;
	digest_sha256_hex(hashed.buf, hashed.len, p->hash);
	make_bench(p, pn);
	if (p->bench.nmetrics > PROGRAM_MAX_METRICS) {
		ydoc_error(err, rn, "parse: more than %d metrics", PROGRAM_MAX_METRICS);
		goto out;
	}
	*out = p;
	p = NULL;
	r = 0;
out:
	strbuf_release(&hashed);
	program_free(p);
	return r;
}
