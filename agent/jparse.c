/*
 * jparse.c: recursive-descent JSON parser with depth and size caps.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jparse.h"

struct parser {
	const char	*s;
	size_t		 len, pos;
	char		*err;
	size_t		 errlen;
	int		 failed;
};

static struct jv *parse_value(struct parser *p, int depth);

static void
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return;
	p->failed = 1;
	n = snprintf(p->err, p->errlen, "offset %zu: ", p->pos);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static void
skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
	    p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static struct jv *
new_value(enum jv_type type)
{
	struct jv *v = calloc(1, sizeof(*v));

	if (v != NULL)
		v->type = type;
	return v;
}

void
jv_free(struct jv *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->len && (v->type == JV_ARR || v->type == JV_OBJ); i++) {
		if (v->keys != NULL)
			free(v->keys[i]);
		jv_free(v->vals[i]);
	}
	free(v->keys);
	free(v->vals);
	free(v->str);
	free(v);
}

static int
hex4(struct parser *p, unsigned int *out)
{
	unsigned int v = 0;
	int i;

	if (p->pos + 4 > p->len) {
		fail(p, "truncated \\u escape");
		return -1;
	}
	for (i = 0; i < 4; i++) {
		char c = p->s[p->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else {
			fail(p, "bad \\u escape");
			return -1;
		}
	}
	*out = v;
	return 0;
}

static size_t
put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Parse a string at p->pos (on the opening quote); returns a malloc'd copy. */
static char *
parse_string(struct parser *p, size_t *lenp)
{
	char *o;
	size_t n = 0;
	unsigned int cp, lo;

	p->pos++;
	/* decoded text is never longer than the encoded text */
	if ((o = malloc(p->len - p->pos + 1)) == NULL) {
		fail(p, "out of memory");
		return NULL;
	}
	while (p->pos < p->len) {
		unsigned char c = (unsigned char)p->s[p->pos++];

		if (c == '"') {
			o[n] = '\0';
			*lenp = n;
			return o;
		}
		if (c < 0x20) {
			fail(p, "control character in string");
			break;
		}
		if (c != '\\') {
			o[n++] = (char)c;
			continue;
		}
		if (p->pos >= p->len)
			break;
		switch (p->s[p->pos++]) {
		case '"': o[n++] = '"'; break;
		case '\\': o[n++] = '\\'; break;
		case '/': o[n++] = '/'; break;
		case 'b': o[n++] = '\b'; break;
		case 'f': o[n++] = '\f'; break;
		case 'n': o[n++] = '\n'; break;
		case 'r': o[n++] = '\r'; break;
		case 't': o[n++] = '\t'; break;
		case 'u':
			if (hex4(p, &cp) != 0)
				goto bad;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->pos + 6 > p->len || p->s[p->pos] != '\\' ||
				    p->s[p->pos + 1] != 'u') {
					fail(p, "unpaired surrogate");
					goto bad;
				}
				p->pos += 2;
				if (hex4(p, &lo) != 0)
					goto bad;
				if (lo < 0xdc00 || lo > 0xdfff) {
					fail(p, "unpaired surrogate");
					goto bad;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				fail(p, "unpaired surrogate");
				goto bad;
			}
			n += put_utf8(o + n, cp);
			break;
		default:
			p->pos--;
			fail(p, "bad escape");
			goto bad;
		}
	}
	fail(p, "unterminated string");
bad:
	free(o);
	return NULL;
}

static struct jv *
parse_number(struct parser *p)
{
	size_t start = p->pos;
	char buf[64];
	struct jv *v;

	if (p->s[p->pos] == '-')
		p->pos++;
	if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9') {
		fail(p, "bad number");
		return NULL;
	}
	while (p->pos < p->len && strchr("0123456789+-.eE", p->s[p->pos]) != NULL)
		p->pos++;
	if (p->pos - start >= sizeof(buf)) {
		fail(p, "number too long");
		return NULL;
	}
	memcpy(buf, p->s + start, p->pos - start);
	buf[p->pos - start] = '\0';
	if ((v = new_value(JV_NUM)) == NULL) {
		fail(p, "out of memory");
		return NULL;
	}
	{
		char *end;

		v->num = strtod(buf, &end);
		if (*end != '\0' || !isfinite(v->num)) {
			p->pos = start;
			fail(p, "bad number");
			free(v);
			return NULL;
		}
	}
	return v;
}

static int
literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos >= n && memcmp(p->s + p->pos, word, n) == 0) {
		p->pos += n;
		return 1;
	}
	return 0;
}

static int
append(struct parser *p, struct jv *c, char *key, struct jv *val)
{
	void *nk, *nv;

	if (c->len >= JPARSE_MAX_MEMBERS) {
		fail(p, "more than %d members", JPARSE_MAX_MEMBERS);
		return -1;
	}
	if ((nv = realloc(c->vals, (c->len + 1) * sizeof(*c->vals))) == NULL) {
		fail(p, "out of memory");
		return -1;
	}
	c->vals = nv;
	if (c->type == JV_OBJ) {
		if ((nk = realloc(c->keys, (c->len + 1) * sizeof(*c->keys))) == NULL) {
			fail(p, "out of memory");
			return -1;
		}
		c->keys = nk;
		c->keys[c->len] = key;
	}
	c->vals[c->len++] = val;
	return 0;
}

static struct jv *
parse_container(struct parser *p, int depth, int obj)
{
	struct jv *c, *val;
	char *key = NULL;
	size_t klen;

	if (depth >= JPARSE_MAX_DEPTH) {
		fail(p, "nesting deeper than %d", JPARSE_MAX_DEPTH);
		return NULL;
	}
	if ((c = new_value(obj ? JV_OBJ : JV_ARR)) == NULL) {
		fail(p, "out of memory");
		return NULL;
	}
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
		p->pos++;
		return c;
	}
	for (;;) {
		skip_ws(p);
		if (obj) {
			if (p->pos >= p->len || p->s[p->pos] != '"') {
				fail(p, "expected a member name");
				goto bad;
			}
			if ((key = parse_string(p, &klen)) == NULL)
				goto bad;
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				fail(p, "expected ':'");
				goto bad;
			}
			p->pos++;
		}
		if ((val = parse_value(p, depth + 1)) == NULL)
			goto bad;
		if (append(p, c, key, val) != 0) {
			jv_free(val);
			goto bad;
		}
		key = NULL;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
			p->pos++;
			return c;
		}
		fail(p, "expected ',' or '%c'", obj ? '}' : ']');
		goto bad;
	}
bad:
	free(key);
	jv_free(c);
	return NULL;
}

static struct jv *
parse_value(struct parser *p, int depth)
{
	struct jv *v;

	skip_ws(p);
	if (p->pos >= p->len) {
		fail(p, "unexpected end of input");
		return NULL;
	}
	switch (p->s[p->pos]) {
	case '{':
		return parse_container(p, depth, 1);
	case '[':
		return parse_container(p, depth, 0);
	case '"':
		if ((v = new_value(JV_STR)) == NULL) {
			fail(p, "out of memory");
			return NULL;
		}
		if ((v->str = parse_string(p, &v->len)) == NULL) {
			free(v);
			return NULL;
		}
		return v;
	default:
		break;
	}
	if (literal(p, "true") || literal(p, "false")) {
		if ((v = new_value(JV_BOOL)) != NULL)
			v->num = p->s[p->pos - 4] == 't';
		else
			fail(p, "out of memory");
		return v;
	}
	if (literal(p, "null"))
		return new_value(JV_NULL);
	return parse_number(p);
}

int
jv_parse(const char *text, size_t len, struct jv **out, char *err, size_t errlen)
{
	struct parser p = { text, len, 0, err, errlen, 0 };
	struct jv *v;

	if (errlen > 0)
		err[0] = '\0';
	if ((v = parse_value(&p, 0)) == NULL) {
		if (!p.failed)
			fail(&p, "out of memory");
		return -1;
	}
	skip_ws(&p);
	if (p.pos != p.len) {
		fail(&p, "trailing characters");
		jv_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

const struct jv *
jv_get(const struct jv *v, const char *key)
{
	size_t i;

	if (v == NULL || v->type != JV_OBJ)
		return NULL;
	for (i = 0; i < v->len; i++)
		if (strcmp(v->keys[i], key) == 0)
			return v->vals[i];
	return NULL;
}

const char *
jv_get_str(const struct jv *v, const char *key)
{
	const struct jv *m = jv_get(v, key);

	return (m != NULL && m->type == JV_STR) ? m->str : NULL;
}
