/*
 * yamldoc.c: YAML files into position-carrying node trees (on libyaml's event
 * parser), and the typed, strict getters the loaders share.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "pctenc.h"
#include "yamldoc.h"
#include "xmalloc.h"

struct ydoc {
	char			*file;
	struct ydoc_node	*root;
	struct ydoc_node	**all;		/* every node, for ydoc_free() */
	size_t			 nall, capall;
};

/* An open collection while parsing. */
struct frame {
	struct ydoc_node	*node;
	size_t			 cap;
	struct ydoc_node	*pending_key;	/* mapping: key waiting for its value */
};

int
ydoc_error(char **err, const struct ydoc_node *n, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (n != NULL) {
		*err = xasprintf("%s:%d:%d: %s", n->file, n->line, n->col, msg);
		free(msg);
	} else
		*err = msg;
	return -1;
}

/* An error at a position that is not (yet) a node. */
static int
pos_error(char **err, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
pos_error(char **err, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	*err = xasprintf("%s:%d:%d: %s", file, line, col, msg);
	free(msg);
	return -1;
}

const char *
ydoc_type_name(const struct ydoc_node *n)
{
	if (n == NULL)
		return "nothing";
	switch (n->type) {
	case YDOC_SCALAR:
		return ydoc_is_null(n) ? "null" : "a scalar";
	case YDOC_SEQUENCE:
		return "a list";
	case YDOC_MAPPING:
		return "a mapping";
	}
	return "?";
}

int
ydoc_is_null(const struct ydoc_node *n)
{
	if (n == NULL || n->type != YDOC_SCALAR || n->quoted)
		return 0;
	return strcmp(n->value, "") == 0 || strcmp(n->value, "~") == 0 ||
	    strcmp(n->value, "null") == 0 || strcmp(n->value, "Null") == 0 ||
	    strcmp(n->value, "NULL") == 0;
}

/* --- Parsing ------------------------------------------------------------- */

static void
node_free(struct ydoc_node *n)
{
	if (n == NULL)
		return;
	free(n->value);
	free(n->items);
	free(n->keys);
	free(n);
}

void
ydoc_free(struct ydoc *doc)
{
	size_t i;

	if (doc == NULL)
		return;
	for (i = 0; i < doc->nall; i++)
		node_free(doc->all[i]);
	free(doc->all);
	free(doc->file);
	free(doc);
}

const struct ydoc_node *
ydoc_root(const struct ydoc *doc)
{
	return doc->root;
}

const char *
ydoc_file(const struct ydoc *doc)
{
	return doc->file;
}

static struct ydoc_node *
node_new(struct ydoc *doc, enum ydoc_type type, const yaml_mark_t *m)
{
	struct ydoc_node *n = xcalloc(1, sizeof(*n));

	n->type = type;
	n->file = doc->file;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	xgrow(&doc->all, &doc->capall, doc->nall + 1, sizeof(*doc->all));
	doc->all[doc->nall++] = n;
	return n;
}

/* Line and column (1-based, columns in characters) of a byte offset. */
static void
offset_position(const char *text, size_t len, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80)
			(*col)++;
	}
}

static int
parser_error(const yaml_parser_t *p, const char *file, const char *text,
    size_t len, char **err)
{
	int line, col;
	const char *problem = p->problem ? p->problem : "malformed YAML";
	size_t off;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return pos_error(err, file, 1, 1, "out of memory parsing YAML");
	case YAML_READER_ERROR:
		offset_position(text, len, p->problem_offset, &line, &col);
		if (p->problem_value != -1)
			return pos_error(err, file, line, col,
			    "%s (byte 0x%02x): not a UTF-8 text file", problem,
			    (unsigned)p->problem_value & 0xff);
		return pos_error(err, file, line, col, "%s: not a UTF-8 text file", problem);
	default:
		break;
	}
	line = (int)p->problem_mark.line + 1;
	col = (int)p->problem_mark.column + 1;
	off = p->problem_mark.index;
	if (off < len && text[off] == '\t')
		return pos_error(err, file, line, col,
		    "tab character where indentation is expected (indent with spaces)");
	if (off < len && (text[off] == '@' || text[off] == '`'))
		return pos_error(err, file, line, col,
		    "'%c' cannot start a plain YAML value: quote it (\"%c...\")",
		    text[off], text[off]);
	if (strcmp(problem, "mapping values are not allowed in this context") == 0)
		return pos_error(err, file, line, col,
		    "%s (is the indentation right, or does a value need quotes?)", problem);
	if (p->context != NULL)
		return pos_error(err, file, line, col, "%s (%s at line %d, column %d)",
		    problem, p->context, (int)p->context_mark.line + 1,
		    (int)p->context_mark.column + 1);
	return pos_error(err, file, line, col, "%s", problem);
}

/* The anchor or tag an event carries, which we refuse; NULL if none. */
static int
check_props(const yaml_event_t *ev, const char *file, char **err)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;
	int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
		break;
	default:
		break;
	}
	if (anchor != NULL)
		return pos_error(err, file, line, col,
		    "YAML anchors are not allowed (&%.64s): write the value out", anchor);
	if (tag != NULL)
		return pos_error(err, file, line, col,
		    "YAML tags are not allowed (%.64s)", tag);
	return 0;
}

static int
key_cmp(const void *a, const void *b)
{
	const struct ydoc_node *const *x = a, *const *y = b;
	int c = strcmp((*x)->value, (*y)->value);

	if (c != 0)
		return c;
	if ((*x)->line != (*y)->line)
		return (*x)->line < (*y)->line ? -1 : 1;
	return (*x)->col < (*y)->col ? -1 : (*x)->col > (*y)->col;
}

/* Duplicate keys of a finished mapping: the later one is reported. */
static int
check_duplicates(const struct ydoc_node *map, char **err)
{
	struct ydoc_node **sorted;
	const struct ydoc_node *dup = NULL, *first = NULL;
	size_t i;

	if (map->n < 2)
		return 0;
	sorted = xreallocarray(NULL, map->n, sizeof(*sorted));
	memcpy(sorted, map->keys, map->n * sizeof(*sorted));
	qsort(sorted, map->n, sizeof(*sorted), key_cmp);
	for (i = 1; i < map->n; i++) {
		if (strcmp(sorted[i - 1]->value, sorted[i]->value) != 0)
			continue;
		/* Report the earliest second occurrence in the file. */
		if (dup == NULL || sorted[i]->line < dup->line ||
		    (sorted[i]->line == dup->line && sorted[i]->col < dup->col)) {
			size_t j = i - 1;

			while (j > 0 && strcmp(sorted[j - 1]->value, sorted[i]->value) == 0)
				j--;
			dup = sorted[i];
			first = sorted[j];
		}
	}
	free(sorted);
	if (dup != NULL)
		return ydoc_error(err, dup, "duplicate key '%.64s' (first at line %d)",
		    dup->value, first->line);
	return 0;
}

/* Attach a finished node to the open collection on top of the stack. */
static int
attach(struct frame *top, struct ydoc_node *n, char **err)
{
	struct ydoc_node *c = top->node;

	if (c->type == YDOC_SEQUENCE) {
		xgrow(&c->items, &top->cap, c->n + 1, sizeof(*c->items));
		c->items[c->n++] = n;
		return 0;
	}
	if (top->pending_key == NULL) {
		if (n->type != YDOC_SCALAR)
			return ydoc_error(err, n, "mapping keys must be plain strings, not %s",
			    ydoc_type_name(n));
		top->pending_key = n;
		return 0;
	}
	if (c->n + 1 > top->cap) {
		size_t cap = top->cap;

		xgrow(&c->items, &cap, c->n + 1, sizeof(*c->items));
		c->keys = xreallocarray(c->keys, cap, sizeof(*c->keys));
		top->cap = cap;
	}
	c->keys[c->n] = top->pending_key;
	c->items[c->n++] = n;
	top->pending_key = NULL;
	return 0;
}

int
ydoc_parse(const char *name, const char *text, size_t len,
    struct ydoc **docp, char **err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct ydoc *doc;
	struct frame stack[YDOC_MAX_DEPTH + 1];
	int depth = 0, done = 0, ndocs = 0, r = -1, have_event = 0;
	size_t nnodes = 0;

	doc = xcalloc(1, sizeof(*doc));
	doc->file = xstrdup(name);
	if (len > YDOC_MAX_BYTES) {
		pos_error(err, doc->file, 1, 1, "file too large (%zu bytes, the limit is %d)",
		    len, YDOC_MAX_BYTES);
		ydoc_free(doc);
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		pos_error(err, doc->file, 1, 1, "cannot initialise the YAML parser");
		ydoc_free(doc);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);

	while (!done) {
		struct ydoc_node *n = NULL;

		if (!yaml_parser_parse(&parser, &ev)) {
			parser_error(&parser, doc->file, text, len, err);
			goto out;
		}
		have_event = 1;
		if (check_props(&ev, doc->file, err) != 0)
			goto out;
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++ndocs > 1) {
				pos_error(err, doc->file, (int)ev.start_mark.line + 1,
				    (int)ev.start_mark.column + 1,
				    "a second YAML document: a file holds exactly one");
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			pos_error(err, doc->file, (int)ev.start_mark.line + 1,
			    (int)ev.start_mark.column + 1,
			    "YAML aliases are not allowed (*%.64s): write the value out",
			    ev.data.alias.anchor);
			goto out;
		case YAML_SCALAR_EVENT:
			n = node_new(doc, YDOC_SCALAR, &ev.start_mark);
			if (memchr(ev.data.scalar.value, '\0', ev.data.scalar.length) != NULL) {
				ydoc_error(err, n, "NUL character in a string");
				goto out;
			}
			n->value = xstrndup((const char *)ev.data.scalar.value,
			    ev.data.scalar.length);
			n->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			n = node_new(doc, ev.type == YAML_SEQUENCE_START_EVENT ?
			    YDOC_SEQUENCE : YDOC_MAPPING, &ev.start_mark);
			if (depth >= YDOC_MAX_DEPTH) {
				ydoc_error(err, n, "nesting deeper than %d levels", YDOC_MAX_DEPTH);
				goto out;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			n = stack[--depth].node;
			if (n->type == YDOC_MAPPING && check_duplicates(n, err) != 0)
				goto out;
			break;
		case YAML_NO_EVENT:
			break;
		}
		if (n != NULL && ev.type != YAML_SEQUENCE_END_EVENT &&
		    ev.type != YAML_MAPPING_END_EVENT && ++nnodes > YDOC_MAX_NODES) {
			ydoc_error(err, n, "more than %d YAML nodes", YDOC_MAX_NODES);
			goto out;
		}
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			stack[depth].node = n;
			stack[depth].cap = 0;
			stack[depth].pending_key = NULL;
			depth++;
			n = NULL;	/* attached when it ends */
		}
		if (n != NULL) {
			if (depth > 0) {
				if (attach(&stack[depth - 1], n, err) != 0)
					goto out;
			} else
				doc->root = n;
		}
		yaml_event_delete(&ev);
		have_event = 0;
	}
	if (doc->root == NULL) {
		pos_error(err, doc->file, 1, 1, "empty file: expected a YAML mapping");
		goto out;
	}
	*docp = doc;
	doc = NULL;
	r = 0;
out:
	if (have_event)
		yaml_event_delete(&ev);
	yaml_parser_delete(&parser);
	ydoc_free(doc);
	return r;
}

int
ydoc_load(const char *path, struct ydoc **docp, char **err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	ssize_t got;
	int fd, r;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return err_set(err, -1, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("%s: %s", path, S_ISDIR(st.st_mode) ?
		    "is a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	if (st.st_size > YDOC_MAX_BYTES) {
		close(fd);
		return pos_error(err, path, 1, 1, "file too large (%lld bytes, the limit is %d)",
		    (long long)st.st_size, YDOC_MAX_BYTES);
	}
	/* Read one byte past the limit, in case the file grew since fstat. */
	buf = xmalloc(YDOC_MAX_BYTES + 2);
	while (len < YDOC_MAX_BYTES + 1) {
		got = read(fd, buf + len, YDOC_MAX_BYTES + 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*err = xasprintf("%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	r = ydoc_parse(path, buf, len, docp, err);
	free(buf);
	return r;
}

/* --- Getters ------------------------------------------------------------- */

int
ydoc_string(const struct ydoc_node *n, const char **out, char **err)
{
	if (n == NULL || n->type != YDOC_SCALAR || ydoc_is_null(n))
		return ydoc_error(err, n, "expected a string, found %s", ydoc_type_name(n));
	*out = n->value;
	return 0;
}

int
ydoc_name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max && isalnum((unsigned char)s[0]) &&
	    pct_kept_span(s, n, "-_.") == n;
}

int
ydoc_parse_int(const char *s, long long *out)
{
	const char *p = s;
	char *end;
	long long v;

	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

int
ydoc_int(const struct ydoc_node *n, long long min, long long max,
    long long *out, char **err)
{
	long long v;

	if (n == NULL || n->type != YDOC_SCALAR || ydoc_is_null(n))
		return ydoc_error(err, n, "expected an integer, found %s", ydoc_type_name(n));
	if (ydoc_parse_int(n->value, &v) != 0)
		return ydoc_error(err, n, "'%.64s' is not an integer", n->value);
	if (v < min || v > max) {
		if (max == LLONG_MAX)
			return ydoc_error(err, n, "%lld is out of range (at least %lld)", v, min);
		return ydoc_error(err, n, "%lld is out of range (%lld to %lld)", v, min, max);
	}
	*out = v;
	return 0;
}

int
ydoc_bool(const struct ydoc_node *n, int *out, char **err)
{
	if (n != NULL && n->type == YDOC_SCALAR) {
		if (strcasecmp(n->value, "yes") == 0 || strcasecmp(n->value, "true") == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(n->value, "no") == 0 || strcasecmp(n->value, "false") == 0) {
			*out = 0;
			return 0;
		}
		if (!ydoc_is_null(n))
			return ydoc_error(err, n, "'%.64s' is not a boolean (yes, no, true or false)",
			    n->value);
	}
	return ydoc_error(err, n, "expected a boolean (yes, no, true or false), found %s",
	    ydoc_type_name(n));
}

/* A non-negative decimal number: digits with at most one '.'. */
static int
parse_decimal(const char *s, size_t len, double *out)
{
	char buf[64];
	size_t i, dots = 0, digits = 0;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] == '.')
			dots++;
		else if (isdigit((unsigned char)s[i]))
			digits++;
		else
			return -1;
	}
	if (dots > 1 || digits == 0 || s[0] == '.' || s[len - 1] == '.')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, NULL);
	return isfinite(*out) ? 0 : -1;
}

int
ydoc_parse_duration(const char *s, long long *out_ms)
{
	static const struct { const char *suffix; double ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	size_t len = strlen(s), num = len, i;
	double mul = 1000, v;

	while (num > 0 && isalpha((unsigned char)s[num - 1]))
		num--;
	if (num < len) {
		mul = 0;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(s + num, units[i].suffix) == 0)
				mul = units[i].ms;
		if (mul == 0)
			return -1;
	}
	if (parse_decimal(s, num, &v) != 0)
		return -1;
	v = v * mul + 0.5;
	if (v >= 9e15)
		return -1;
	*out_ms = (long long)v;
	return 0;
}

static void
format_ms(long long ms, char *buf, size_t size)
{
	if (ms % 3600000 == 0 && ms != 0)
		snprintf(buf, size, "%lldh", ms / 3600000);
	else if (ms % 60000 == 0 && ms != 0)
		snprintf(buf, size, "%lldm", ms / 60000);
	else if (ms % 1000 == 0)
		snprintf(buf, size, "%llds", ms / 1000);
	else
		snprintf(buf, size, "%lldms", ms);
}

int
ydoc_duration(const struct ydoc_node *n, long long min_ms, long long max_ms,
    long long *out_ms, char **err)
{
	long long v;
	char lo[32], hi[32];

	if (n == NULL || n->type != YDOC_SCALAR || ydoc_is_null(n))
		return ydoc_error(err, n, "expected a duration (like 90s, 5m, 1h, 500ms), found %s",
		    ydoc_type_name(n));
	if (ydoc_parse_duration(n->value, &v) != 0)
		return ydoc_error(err, n,
		    "'%.64s' is not a duration (a number with ms, s, m or h, like 90s)", n->value);
	if (v < min_ms || v > max_ms) {
		format_ms(min_ms, lo, sizeof(lo));
		format_ms(max_ms, hi, sizeof(hi));
		return ydoc_error(err, n, "duration '%.64s' is out of range (%s to %s)",
		    n->value, lo, hi);
	}
	*out_ms = v;
	return 0;
}

int
ydoc_parse_percent(const char *s, double *out)
{
	size_t len = strlen(s);
	double v;

	if (len < 2 || s[len - 1] != '%' || parse_decimal(s, len - 1, &v) != 0)
		return -1;
	*out = v;
	return 0;
}

int
ydoc_percent(const struct ydoc_node *n, double max, double *out, char **err)
{
	double v;

	if (n == NULL || n->type != YDOC_SCALAR || ydoc_is_null(n))
		return ydoc_error(err, n, "expected a percentage (like 5%%), found %s",
		    ydoc_type_name(n));
	if (ydoc_parse_percent(n->value, &v) != 0)
		return ydoc_error(err, n, "'%.64s' is not a percentage (a number and %%, like 5%%)",
		    n->value);
	if (v > max)
		return ydoc_error(err, n, "percentage '%.64s' is over %g%%", n->value, max);
	*out = v;
	return 0;
}

int
ydoc_scalar_list(const struct ydoc_node *n, size_t *count, char **err)
{
	size_t i;

	if (n == NULL || ydoc_is_null(n) || n->type == YDOC_MAPPING)
		return ydoc_error(err, n, "expected a list or a single value, found %s",
		    ydoc_type_name(n));
	if (n->type == YDOC_SCALAR) {
		*count = 1;
		return 0;
	}
	for (i = 0; i < n->n; i++)
		if (n->items[i]->type != YDOC_SCALAR || ydoc_is_null(n->items[i]))
			return ydoc_error(err, n->items[i], "expected a single value, found %s",
			    ydoc_type_name(n->items[i]));
	*count = n->n;
	return 0;
}

const struct ydoc_node *
ydoc_list_at(const struct ydoc_node *n, size_t i)
{
	if (n->type == YDOC_SCALAR)
		return i == 0 ? n : NULL;
	return i < n->n ? n->items[i] : NULL;
}

/* --- Strict mappings ----------------------------------------------------- */

/* The index of key in the mapping n; -1 when n is no mapping or has no such key. */
static long
key_index(const struct ydoc_node *n, const char *key)
{
	size_t i;

	if (n == NULL || n->type != YDOC_MAPPING)
		return -1;
	for (i = 0; i < n->n; i++)
		if (strcmp(n->keys[i]->value, key) == 0)
			return (long)i;
	return -1;
}

const struct ydoc_node *
ydoc_get_key(const struct ydoc_node *n, const char *key)
{
	long i = key_index(n, key);

	return i >= 0 ? n->keys[i] : NULL;
}

const struct ydoc_node *
ydoc_get(const struct ydoc_node *n, const char *key)
{
	long i = key_index(n, key);

	return i >= 0 ? n->items[i] : NULL;
}

int
ydoc_check_keys(const struct ydoc_node *n, const char *what,
    const char *const *known, char **err)
{
	size_t i, j, nknown = 0;
	char *hint;

	if (n == NULL || n->type != YDOC_MAPPING)
		return ydoc_error(err, n, "expected a mapping for %s, found %s", what,
		    ydoc_type_name(n));
	while (known[nknown] != NULL)
		nknown++;
	for (i = 0; i < n->n; i++) {
		for (j = 0; j < nknown; j++)
			if (strcmp(n->keys[i]->value, known[j]) == 0)
				break;
		if (j < nknown)
			continue;
		hint = ydoc_did_you_mean(n->keys[i]->value, known, nknown);
		ydoc_error(err, n->keys[i], "unknown key '%.64s' in %s%s", n->keys[i]->value,
		    what, hint);
		free(hint);
		return -1;
	}
	return 0;
}

/* --- Suggestions --------------------------------------------------------- */

int
ydoc_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int *row, prev, cur, best;

	if (la > 256 || lb > 256)	/* names are short; don't spend on garbage */
		return (int)(la > lb ? la : lb);
	row = xreallocarray(NULL, lb + 1, sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	best = row[lb];
	free(row);
	return best;
}

const char *
ydoc_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	int bestd = YDOC_SUGGEST_MAX + 1, d;
	size_t i;

	for (i = 0; i < n; i++) {
		d = ydoc_edit_distance(word, cands[i]);
		if (d < bestd && (size_t)d < strlen(word)) {
			best = cands[i];
			bestd = d;
		}
	}
	if (best != NULL || strlen(word) < 2)
		return best;
	/* A unique abbreviation: "nhm" for "nhm-ep", "desc" for "description". */
	for (i = 0; i < n; i++)
		if (strncmp(word, cands[i], strlen(word)) == 0) {
			if (best != NULL)
				return NULL;
			best = cands[i];
		}
	return best;
}

char *
ydoc_did_you_mean(const char *word, const char *const *cands, size_t n)
{
	const char *s = ydoc_suggest(word, cands, n);

	return s ? xasprintf(" (did you mean '%s'?)", s) : xstrdup("");
}
