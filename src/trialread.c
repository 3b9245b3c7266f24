/*
 * trialread.c: the one reader of trials.jsonl (see trialread.h): a strict
 * JSON parser made for trial lines, working in place and taking only the
 * members asked for; the line splitter over a file or a buffer; and the
 * done set of --resume, built on them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentproto.h"
#include "fleet.h"
#include "rundir.h"
#include "strmap.h"
#include "trialread.h"
#include "utf8.h"
#include "xmalloc.h"

/* --- The done set ------------------------------------------------------------ */

struct trial_done {
	struct strmap	set;	/* "host\nkey" (a host has no newline) */
};

static void
done_add(struct trial_done *d, const char *host, const char *key)
{
	char *hk = xasprintf("%s\n%s", host, key);

	(void)strmap_add(&d->set, hk, 0);
	free(hk);
}

int
trial_done_has(const struct trial_done *d, const char *host, const char *key)
{
	char *hk;
	int r;

	if (d == NULL || d->set.n == 0)
		return 0;
	hk = xasprintf("%s\n%s", host, key);
	r = strmap_get(&d->set, hk) != STRMAP_NONE;
	free(hk);
	return r;
}

size_t
trial_done_count(const struct trial_done *d, const char *host)
{
	const char *hk;
	size_t i = 0, n = 0, hl;

	if (d == NULL)
		return 0;
	if (host == NULL)
		return d->set.n;
	hl = strlen(host);
	while (strmap_next(&d->set, &i, &hk, NULL))
		if (strncmp(hk, host, hl) == 0 && hk[hl] == '\n')
			n++;
	return n;
}

void
trial_done_free(struct trial_done *d)
{
	if (d == NULL)
		return;
	strmap_release(&d->set);
	free(d);
}

/* --- Parsing a line ---------------------------------------------------------- */

/*
 * In place: a string is decoded where it is and NUL-terminated where its
 * closing quote was; a number of params or resolved has a NUL written
 * after its text.  What is skipped is only checked, never changed (the
 * profile is handed out as the text it is).
 */

/* Names and values of params or resolved, grown as lines need. */
struct kv {
	const char	**keys, **vals;
	size_t		 cap;
};

struct lp {
	char		*p;		/* where parsing is; the line ends in a NUL */
	unsigned int	 fields;	/* enum trial_field */
	int		 mistyped;	/* a member asked for had another type */
	struct kv	 params, resolved;
	const char	**notes;
	size_t		 ncap;
	double		*samples;
	size_t		 scap;
	char		 ptext[TRIALREAD_PARAMS_TEXT];
	size_t		 plen;
	/* Why the line is not a trial line: the first failure found. */
	const char	*why;		/* static text, or NULL */
	const char	*at;		/* where in the line */
	const char	*mkey;		/* the member being read, mklen bytes */
	size_t		 mklen;
	const char	*wkey;		/* the first member of a wrong type */
	size_t		 wklen;
	char		 whybuf[TRIALREAD_WHY_MAX];
};

/* Note why the line fails (the first reason wins) and fail: -1. */
static int
fail(struct lp *l, const char *why, const char *at)
{
	if (l->why == NULL) {
		l->why = why;
		l->at = at;
	}
	return -1;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
c_locale_init(void)
{
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static void
ws(struct lp *l)
{
	while (*l->p == ' ' || *l->p == '\t' || *l->p == '\r' || *l->p == '\n')
		l->p++;
}

static int
expect(struct lp *l, char c)
{
	ws(l);
	if (*l->p != c)
		return -1;
	l->p++;
	return 0;
}

/* Past blanks, whether the next byte is c (consumed if it is). */
static int
eat(struct lp *l, char c)
{
	return expect(l, c) == 0;
}

/*
 * After a member or an element: 1 past the closing byte `close`, 0 past a
 * comma (another one follows), -1 at anything else.
 */
static int
item_end(struct lp *l, char close)
{
	ws(l);
	if (*l->p == close) {
		l->p++;
		return 1;
	}
	return *l->p++ == ',' ? 0 : -1;
}

static int
hex4(const char *s, unsigned int *out)
{
	int i;

	*out = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];
		unsigned int h;

		if (c >= '0' && c <= '9')
			h = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			h = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			h = (unsigned int)(c - 'A' + 10);
		else
			return -1;
		*out = (*out << 4) | h;
	}
	return 0;
}

/*
 * The escape at r (its backslash): the code point in *cp; returns the
 * bytes it takes, or 0 when it is not one JSON allows (a lone surrogate,
 * \u0000 as the line's strings are NUL-terminated).
 */
static size_t
escape(const char *r, unsigned int *cp)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	unsigned int lo;

	if (r[1] != 'u') {
		if (r[1] == '\0' || (e = strchr(from, r[1])) == NULL)
			return 0;
		*cp = (unsigned char)to[e - from];
		return 2;
	}
	if (hex4(r + 2, cp) != 0)
		return 0;
	if (*cp >= 0xd800 && *cp <= 0xdbff) {
		if (r[6] != '\\' || r[7] != 'u' || hex4(r + 8, &lo) != 0 ||
		    lo < 0xdc00 || lo > 0xdfff)
			return 0;
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
		return 12;
	}
	if ((*cp >= 0xdc00 && *cp <= 0xdfff) || *cp == 0)
		return 0;
	return 6;
}

/* Write cp as UTF-8 at w; returns the bytes written (never more than the
 * escape it came from took, so that writing stays behind reading). */
static size_t
utf8_put(char *w, unsigned int cp)
{
	if (cp < 0x80) {
		w[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		w[0] = (char)(0xc0 | (cp >> 6));
		w[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		w[0] = (char)(0xe0 | (cp >> 12));
		w[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		w[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	w[0] = (char)(0xf0 | (cp >> 18));
	w[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	w[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	w[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The bytes a string holds as they are: printable ASCII but '"' and '\\'. */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* '"' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,	/* '\\' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/*
 * A string (l->p at its quote).  With out, decoded in place and
 * NUL-terminated, its length in *len (may be NULL); without, only
 * checked.
 */
static int
string(struct lp *l, const char **out, size_t *len)
{
	char *start, *r, *w = NULL;
	unsigned int cp;
	size_t k;

	start = r = l->p + 1;
	for (;;) {
		unsigned char c;

		/* What needs no decoding, at the speed of a table lookup. */
		if (w == NULL)
			while (plain[(unsigned char)*r])
				r++;
		c = (unsigned char)*r;
		if (plain[c]) {
			*w++ = (char)c;
			r++;
			continue;
		}
		if (c == '"')
			break;
		if (c >= 0x80) {
			/* 4: utf8_seq() stops at the NUL that ends the line */
			if ((k = utf8_seq(r, 4)) == 0)
				return fail(l, "invalid UTF-8", r);
			if (w != NULL) {
				memmove(w, r, k);
				w += k;
			}
			r += k;
			continue;
		}
		if (c == '\0')
			return fail(l, "a string not closed, or a NUL byte", r);
		if (c != '\\')
			return fail(l, "a control character in a string", r);
		if ((k = escape(r, &cp)) == 0)
			return fail(l, "a bad escape in a string", r);
		if (out != NULL) {
			if (w == NULL)
				w = r;	/* decoding starts at the first escape */
			w += utf8_put(w, cp);
		}
		r += k;
	}
	if (out != NULL) {
		if (w == NULL)
			w = r;
		*w = '\0';
		*out = start;
		if (len != NULL)
			*len = (size_t)(w - start);
	}
	l->p = r + 1;
	return 0;
}

static const double pow10_tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * A number (l->p at its first character): its text is [*s, l->p)
 * afterwards.  Exact in the common case (at most 19 digits, a mantissa
 * below 2^53 and a power of ten up to 22: one correctly rounded
 * operation, Clinger's fast path), else strtod in the C locale.  *is_int
 * tells whether it was written as an integer.  out NULL: only checked,
 * the value computed only when it might not be finite.
 */
static int
num(struct lp *l, double *out, const char **s, int *is_int)
{
	const char *p, *q;
	unsigned long long w = 0;
	int nd = 0, nint = 0, frac = 0, e = 0, eneg = 0, neg = 0, integer = 1;
	double d;
	char *end;

	p = *s = l->p;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9') {
		for (; *p >= '0' && *p <= '9'; p++, nint++)
			if (nd < 19) {
				w = w * 10 + (unsigned long long)(*p - '0');
				nd++;
			} else
				nd = 99;
	} else
		return fail(l, "not a JSON value", *s);
	if (*p == '.') {
		integer = 0;
		q = ++p;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (w == 0 && *p == '0' && nd == 0) {
				frac++;		/* leading zeros of 0.00x */
				continue;
			}
			if (nd < 19) {
				w = w * 10 + (unsigned long long)(*p - '0');
				nd++;
				frac++;
			} else
				nd = 99;
		}
		if (p == q)
			return fail(l, "a bad number", *s);
	}
	if (*p == 'e' || *p == 'E') {
		integer = 0;
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if (!(*p >= '0' && *p <= '9'))
			return fail(l, "a bad number", *s);
		for (; *p >= '0' && *p <= '9'; p++)
			if (e < 10000)
				e = e * 10 + (*p - '0');
	}
	l->p = (char *)p;
	*is_int = integer;
	e = eneg ? -e : e;
	if (out == NULL && nint + e <= 300)
		return 0;	/* below 10^300: finite */
	e -= frac;
	if (nd <= 19 && w <= (1ull << 53) && e >= -22 && e <= 22) {
		d = (double)w;
		d = e < 0 ? d / pow10_tab[-e] : d * pow10_tab[e];
		if (out != NULL)
			*out = neg ? -d : d;
		return 0;
	}
	pthread_once(&c_locale_once, c_locale_init);
	if (c_locale == (locale_t)0)
		return fail(l, "a number this system cannot read", *s);
	d = strtod_l(*s, &end, c_locale);
	if (end != p || !isfinite(d))
		return fail(l, "a number out of range", *s);
	if (out != NULL)
		*out = d;
	return 0;
}

static int
word(struct lp *l, const char *w, size_t n)
{
	if (strncmp(l->p, w, n) != 0)
		return -1;
	l->p += n;
	return 0;
}

/* Whether a null is next (and then take it). */
static int
null(struct lp *l)
{
	ws(l);
	return word(l, "null", 4) == 0;
}

/* A member's name and the colon after it: 0, or -1 when they are not next. */
static int
key(struct lp *l, const char **k, size_t *klen)
{
	ws(l);
	if (*l->p != '"')
		return fail(l, "expected a member name", l->p);
	if (string(l, k, klen) != 0)
		return -1;
	if (expect(l, ':') != 0)
		return fail(l, "expected ':'", l->p);
	return 0;
}

/* Check any value and skip it, changing nothing. */
static int
skip(struct lp *l, int depth)
{
	const char *s;
	int is_int, r;

	if (depth > TRIALREAD_MAX_DEPTH)
		return fail(l, "nested too deep", l->p);
	ws(l);
	switch (*l->p) {
	case '"':
		return string(l, NULL, NULL);
	case '{':
		l->p++;
		if (eat(l, '}'))
			return 0;
		do {
			if (key(l, NULL, NULL) != 0 || skip(l, depth + 1) != 0)
				return -1;
		} while ((r = item_end(l, '}')) == 0);
		return r > 0 ? 0 : -1;
	case '[':
		l->p++;
		if (eat(l, ']'))
			return 0;
		do {
			if (skip(l, depth + 1) != 0)
				return -1;
		} while ((r = item_end(l, ']')) == 0);
		return r > 0 ? 0 : -1;
	case 't':
		r = word(l, "true", 4);
		break;
	case 'f':
		r = word(l, "false", 5);
		break;
	case 'n':
		r = word(l, "null", 4);
		break;
	default:
		return num(l, NULL, &s, &is_int);
	}
	return r == 0 ? 0 : fail(l, "not a JSON value", l->p);
}

/*
 * A value of another type than the member asked for: checked and
 * skipped, and the line marked (corrupt unless TRIAL_LENIENT).
 */
static int
wrong(struct lp *l)
{
	if (!l->mistyped) {
		l->wkey = l->mkey;
		l->wklen = l->mklen;
	}
	l->mistyped = 1;
	return skip(l, 1);
}

static int
is_num(const struct lp *l)
{
	return *l->p == '-' || (*l->p >= '0' && *l->p <= '9');
}

/* A string member; null is NULL when null_ok, else a wrong type. */
static int
get_str(struct lp *l, const char **out, int null_ok)
{
	*out = NULL;
	ws(l);
	if (*l->p == '"')
		return string(l, out, NULL);
	if (null_ok && null(l))
		return 0;
	return wrong(l);
}

/* A number member; null is if_null. */
static int
get_num(struct lp *l, double *out, double if_null)
{
	const char *s;
	int is_int;

	*out = if_null;
	ws(l);
	if (is_num(l))
		return num(l, out, &s, &is_int);
	if (null(l))
		return 0;
	return wrong(l);
}

/* The integer written in [s, end) (JSON's syntax, checked), or -1 when
 * it is outside long long. */
static int
int_text(const char *s, const char *end, long long *out)
{
	unsigned long long v = 0, max = LLONG_MAX;
	int neg = *s == '-';

	if (neg) {
		s++;
		max++;
	}
	for (; s < end; s++) {
		if (v > (max - (unsigned long long)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	*out = neg ? (v == max ? LLONG_MIN : -(long long)v) : (long long)v;
	return 0;
}

/* An integer member (no null); as jansson, a number written otherwise (a
 * fraction, an exponent) is of another type, one too large corrupt. */
static int
get_int(struct lp *l, long long *out, long long if_wrong)
{
	const char *s;
	int is_int;

	*out = if_wrong;
	ws(l);
	if (!is_num(l))
		return wrong(l);
	if (num(l, NULL, &s, &is_int) != 0)
		return -1;
	if (!is_int) {
		if (!l->mistyped) {
			l->wkey = l->mkey;
			l->wklen = l->mklen;
		}
		l->mistyped = 1;
		return 0;
	}
	if (int_text(s, l->p, out) != 0)
		return fail(l, "an integer out of range", s);
	return 0;
}

/* Append to params_text, cut at its size. */
static void
ptext_add(struct lp *l, const char *s, size_t n)
{
	size_t room = sizeof(l->ptext) - 1 - l->plen;

	if (n > room)
		n = room;
	memcpy(l->ptext + l->plen, s, n);
	l->plen += n;
	l->ptext[l->plen] = '\0';
}

/*
 * An object of names to text or numbers (params, resolved): the values
 * as text, into keys and vals when given (NULL: not kept), and params
 * text when text.  A number's text is cut out of the line by writing a
 * NUL after it, over the ',' or '}' that must follow, which is why that
 * byte is looked at first.  A value of another type is left out (and
 * marks the line).
 */
static int
pairs(struct lp *l, struct kv *kv, size_t *n, int text)
{
	const char *k, *v, *s;
	size_t klen, vlen = 0;
	double d;
	int is_int;
	char next, *e, num_text[32];

	*n = 0;
	ws(l);
	if (null(l))
		return 0;
	if (*l->p != '{')
		return wrong(l);
	l->p++;
	if (eat(l, '}'))
		return 0;
	for (;;) {
		if (key(l, &k, &klen) != 0)
			return -1;
		ws(l);
		if (*l->p == '"') {
			if (string(l, &v, &vlen) != 0)
				return -1;
			ws(l);
			next = *l->p;
			is_int = 1;
		} else if (is_num(l)) {
			if (num(l, &d, &s, &is_int) != 0)
				return -1;
			v = s;
			e = l->p;
			vlen = (size_t)(e - s);
			ws(l);
			next = *l->p;
			*e = '\0';	/* over a blank, or the separator kept in next */
		} else {
			if (wrong(l) != 0)
				return -1;
			ws(l);
			next = *l->p;
			v = NULL;
		}
		if (v != NULL && kv != NULL) {
			if (*n >= kv->cap) {
				if (kv->cap >= TRIALREAD_MAX_PARAMS)
					return -1;
				kv->cap = kv->cap ? kv->cap * 2 : 16;
				kv->keys = xreallocarray(kv->keys, kv->cap, sizeof(*kv->keys));
				kv->vals = xreallocarray(kv->vals, kv->cap, sizeof(*kv->vals));
			}
			kv->keys[*n] = k;
			kv->vals[*n] = v;
			(*n)++;
		}
		if (v != NULL && text) {
			if (l->plen > 0)
				ptext_add(l, ",", 1);
			ptext_add(l, k, klen);
			ptext_add(l, "=", 1);
			if (!is_int) {
				/* a real: %g, as reports always named it */
				vlen = (size_t)snprintf(num_text, sizeof(num_text), "%g", d);
				v = num_text;
			}
			ptext_add(l, v, vlen);
		}
		l->p++;
		if (next == '}')
			return 0;
		if (next != ',')
			return -1;
	}
}

/*
 * An array (samples, notes), each element read by elem(l, i): 0, or -1
 * when it is not JSON, or 1 when it is of another type, which marks the
 * line and leaves the array empty.
 */
static int
array(struct lp *l, size_t *n, int (*elem)(struct lp *, size_t))
{
	char *start;
	int r;

	*n = 0;
	ws(l);
	if (*l->p != '[')
		return wrong(l);
	start = l->p++;
	if (eat(l, ']'))
		return 0;
	for (;;) {
		ws(l);
		if ((r = elem(l, *n)) > 0) {
			*n = 0;
			l->p = start;
			return wrong(l);
		}
		if (r < 0)
			return -1;
		(*n)++;
		if ((r = item_end(l, ']')) != 0)
			return r > 0 ? 0 : -1;
	}
}

static int
sample(struct lp *l, size_t i)
{
	const char *s;
	int is_int;

	if (!is_num(l))
		return 1;
	if (i >= l->scap) {
		if (l->scap >= TRIALREAD_MAX_SAMPLES)
			return -1;
		l->scap = l->scap ? l->scap * 2 : 1024;
		l->samples = xreallocarray(l->samples, l->scap, sizeof(*l->samples));
	}
	return num(l, &l->samples[i], &s, &is_int) != 0 ? -1 : 0;
}

static int
note(struct lp *l, size_t i)
{
	if (*l->p != '"')
		return 1;
	if (i >= l->ncap) {
		if (l->ncap >= TRIALREAD_MAX_NOTES)
			return -1;
		l->ncap = l->ncap ? l->ncap * 2 : 16;
		l->notes = xreallocarray(l->notes, l->ncap, sizeof(*l->notes));
	}
	if (string(l, &l->notes[i], NULL) != 0)
		return -1;
	return 0;
}

/* Any value, checked, handed out as the text it is (not NUL-terminated). */
static int
raw(struct lp *l, const char **text, size_t *len)
{
	const char *v;

	ws(l);
	v = l->p;
	if (skip(l, 1) != 0)
		return -1;
	*text = v;
	*len = (size_t)(l->p - v);
	return 0;
}

/* The value of member k (klen bytes), into tl when it is asked for. */
static int
member(struct lp *l, const char *k, size_t klen, struct trial_line *tl, int *has_format)
{
	unsigned int f = l->fields;
	int r;

#define NAMED(name)	(klen == sizeof(name) - 1 && memcmp(k, name, sizeof(name) - 1) == 0)
#define IS(name, field)	(NAMED(name) && (f & (field)))
	switch (k[0]) {
	case 'b':
		if (NAMED("bench"))
			return get_str(l, &tl->bench, 0);
		break;
	case 'd':
		if (IS("direction", TRIAL_METRIC)) {
			r = get_str(l, &tl->direction, 1);
			tl->higher_better = tl->direction != NULL &&
			    strcmp(tl->direction, WIRE_HIGHER_BETTER) == 0;
			return r;
		}
		if (IS("duration", TRIAL_TIMES))
			return get_num(l, &tl->duration, -1);
		break;
	case 'f':
		if (NAMED("format")) {
			int before = l->mistyped;

			l->mistyped = 0;
			r = get_int(l, &tl->format, 0);
			*has_format = r == 0 && !l->mistyped;
			l->mistyped |= before;
			return r;
		}
		break;
	case 'h':
		if (NAMED("host"))
			return get_str(l, &tl->host, 0);
		break;
	case 'i':
		if (IS("iterations", TRIAL_ITERATIONS))
			return get_int(l, &tl->iterations, 0);
		break;
	case 'k':
		if (IS("key", TRIAL_KEY))
			return get_str(l, &tl->key, 0);
		if (IS("kind", TRIAL_KIND))
			return get_str(l, &tl->kind, 0);
		if (IS("kernel", TRIAL_KERNEL))
			return raw(l, &tl->kernel, &tl->kernel_len);
		break;
	case 'm':
		if (IS("metric", TRIAL_METRIC))
			return get_str(l, &tl->metric, 1);
		if (IS("message", TRIAL_MESSAGE))
			return get_str(l, &tl->message, 1);
		break;
	case 'n':
		if (IS("notes", TRIAL_NOTES))
			return array(l, &tl->nnotes, note);
		break;
	case 'p':
		if (IS("params", TRIAL_PARAMS | TRIAL_PARAMS_TEXT)) {
			l->plen = 0;
			l->ptext[0] = '\0';
			return pairs(l, f & TRIAL_PARAMS ? &l->params : NULL, &tl->nparams,
			    (f & TRIAL_PARAMS_TEXT) != 0);
		}
		if (IS("part", TRIAL_PARTS))
			return get_int(l, &tl->part, 1);
		if (IS("parts", TRIAL_PARTS))
			return get_int(l, &tl->parts, 1);
		if (IS("profile", TRIAL_PROFILE))
			return raw(l, &tl->profile, &tl->profile_len);
		break;
	case 'r':
		if (IS("run", TRIAL_RUN))
			return get_str(l, &tl->run, 0);
		if (IS("rep", TRIAL_REP))
			return get_int(l, &tl->rep, 0);
		if (IS("resolved", TRIAL_RESOLVED))
			return pairs(l, &l->resolved, &tl->nresolved, 0);
		break;
	case 's':
		if (IS("samples", TRIAL_SAMPLES))
			return array(l, &tl->nsamples, sample);
		if (IS("start", TRIAL_TIMES))
			return get_num(l, &tl->start, 0);
		if (NAMED("status"))
			return get_str(l, &tl->status, 0);
		if (IS("suite", TRIAL_SUITE))
			return get_str(l, &tl->suite, 1);
		break;
	case 'u':
		if (IS("unit", TRIAL_METRIC))
			return get_str(l, &tl->unit, 1);
		break;
	case 'v':
		if (IS("variant", TRIAL_VARIANT))
			return get_str(l, &tl->variant, 1);
		if (IS("value", TRIAL_VALUE)) {
			ws(l);
			tl->has_value = is_num(l);
			return get_num(l, &tl->value, 0);
		}
		break;
	}
#undef IS
#undef NAMED
	return skip(l, 1);
}

/*
 * One line of n bytes (NUL-terminated, in a buffer it may change) into
 * *tl.  A NUL inside ends the parsing early: the line is corrupt.
 */
/*
 * Why the line at text is corrupt, for a warning: a new text in
 * l->whybuf ("not JSON: invalid UTF-8 at byte 12").
 */
static const char *
why_text(struct lp *l, const char *text)
{
	const char *why = l->why ? l->why : "not JSON";

	if (l->why != NULL && strcmp(l->why, "a member of the wrong type") == 0 &&
	    l->wkey != NULL)
		snprintf(l->whybuf, sizeof(l->whybuf), "\"%.*s\" is of the wrong type",
		    (int)(l->wklen > 40 ? 40 : l->wklen), l->wkey);
	else if (l->at != NULL)
		snprintf(l->whybuf, sizeof(l->whybuf), "not JSON: %s at byte %zu", why,
		    (size_t)(l->at - text) + 1);
	else
		snprintf(l->whybuf, sizeof(l->whybuf), "%s", why);
	return l->whybuf;
}

static enum trial_reject
parse_members(struct lp *l, char *text, size_t n, struct trial_line *tl)
{
	const char *k;
	size_t lineno = tl->lineno, klen;
	int has_format = 0, r;

	memset(tl, 0, sizeof(*tl));
	tl->lineno = lineno;
	tl->duration = -1;
	tl->part = tl->parts = 1;
	tl->params_text = l->ptext;
	l->ptext[0] = '\0';
	l->plen = 0;
	l->mistyped = 0;
	l->why = NULL;
	l->mkey = l->wkey = NULL;
	l->mklen = l->wklen = 0;
	if (n == 0)
		return TRIAL_EMPTY;
	l->p = text;
	if (expect(l, '{') != 0) {
		fail(l, "not a JSON object", l->p);
		return TRIAL_CORRUPT;
	}
	ws(l);
	if (*l->p == '}') {
		fail(l, "an empty object", NULL);
		return TRIAL_CORRUPT;
	}
	do {
		if (key(l, &k, &klen) != 0)
			return TRIAL_CORRUPT;
		l->mkey = k;
		l->mklen = klen;
		if (member(l, k, klen, tl, &has_format) != 0) {
			fail(l, "not JSON", l->p);
			return TRIAL_CORRUPT;
		}
	} while ((r = item_end(l, '}')) == 0);
	if (r < 0) {
		fail(l, "expected ',' or '}'", l->p - 1);
		return TRIAL_CORRUPT;
	}
	ws(l);
	if (l->p != text + n) {
		fail(l, "text after the object", l->p);
		return TRIAL_CORRUPT;
	}
	if (!has_format) {
		fail(l, "no integer \"format\"", NULL);
		return TRIAL_CORRUPT;
	}
	/* The arrays as they are now that they have grown. */
	tl->keys = l->params.keys;
	tl->vals = l->params.vals;
	tl->rkeys = l->resolved.keys;
	tl->rvals = l->resolved.vals;
	tl->notes = l->notes;
	tl->samples = l->samples;
	if (tl->format != RUNDIR_FORMAT)
		return TRIAL_OTHER_FORMAT;
	/* What makes a trial line (the JSON is good: forget what probes found). */
	l->why = NULL;
	if (l->mistyped && !(l->fields & TRIAL_LENIENT))
		fail(l, "a member of the wrong type", NULL);
	else if (tl->host == NULL)
		fail(l, "no \"host\" string", NULL);
	else if (!fleet_name_ok(tl->host))
		/* it names files (hosts/HOST.json): never a path */
		fail(l, "\"host\" is not a host name (letters, digits, '-', '_', '.')", NULL);
	else if (tl->bench == NULL)
		fail(l, "no \"bench\" string", NULL);
	else if (tl->status == NULL)
		fail(l, "no \"status\" string", NULL);
	else if (tl->rep < 0)
		fail(l, "a negative \"rep\"", NULL);
	else if ((l->fields & TRIAL_KEY) && tl->key == NULL)
		fail(l, "no \"key\" string", NULL);
	else if ((l->fields & TRIAL_PARTS) && (tl->part < 1 || tl->parts < tl->part))
		fail(l, "\"part\" not within 1..\"parts\"", NULL);
	if (l->why != NULL)
		return TRIAL_CORRUPT;
	tl->st = ap_status_parse(tl->status);
	return TRIAL_OK;
}

static enum trial_reject
parse_line(struct lp *l, char *text, size_t n, struct trial_line *tl)
{
	enum trial_reject rj = parse_members(l, text, n, tl);

	if (rj == TRIAL_CORRUPT)
		tl->why = why_text(l, text);
	return rj;
}

/* --- Reading lines ----------------------------------------------------------- */

/* Where the bytes come from: a file, or memory. */
struct src {
	int		 fd;		/* -1: mem */
	const char	*path;
	const char	*mem;
	size_t		 left;
};

static ssize_t
src_read(struct src *s, char *buf, size_t n)
{
	if (s->fd >= 0)
		return read(s->fd, buf, n);
	if (n > s->left)
		n = s->left;
	if (n == 0)
		return 0;
	memcpy(buf, s->mem, n);
	s->mem += n;
	s->left -= n;
	return (ssize_t)n;
}

/* Read from the start, a line at a time, bounded. */
static int
read_lines(struct src *src, unsigned int fields, trial_line_fn fn, void *arg,
    struct trial_scan *sc, char **err)
{
	size_t cap = 1 << 20, len = 0, start, n;
	char *buf, *nl;
	struct lp *l = xcalloc(1, sizeof(*l));
	struct trial_line tl;
	enum trial_reject rj;
	off_t consumed = 0;
	int skipping = 0, r = -1, stop = 0;
	ssize_t got;

	memset(sc, 0, sizeof(*sc));
	l->fields = fields;
	if (src->fd < 0 && src->left < cap)
		cap = src->left + 1;	/* a small buffer: it fits */
	buf = xmalloc(cap + 1);
	if (src->fd >= 0 && lseek(src->fd, 0, SEEK_SET) < 0) {
		*err = xasprintf("cannot read %s: %s", src->path, strerror(errno));
		goto out;
	}
	while (!stop) {
		if (len == cap) {
			if (cap <= TRIALREAD_MAX_LINE) {
				cap *= 2;
				buf = xreallocarray(buf, cap + 1, 1);
			} else {
				/* Longer than any trial line: dropped as it comes. */
				skipping = 1;
				consumed += (off_t)len;
				len = 0;
			}
		}
		got = src_read(src, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*err = xasprintf("cannot read %s: %s", src->path, strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
		start = 0;
		while (!stop && (nl = memchr(buf + start, '\n', len - start)) != NULL) {
			n = (size_t)(nl - (buf + start));
			*nl = '\0';
			sc->lines++;
			tl.lineno = sc->lines;
			if (skipping || n > TRIALREAD_MAX_LINE) {
				rj = TRIAL_CORRUPT;
				snprintf(l->whybuf, sizeof(l->whybuf), "longer than %d bytes",
				    TRIALREAD_MAX_LINE);
				tl.why = l->whybuf;
			} else
				rj = parse_line(l, buf + start, n, &tl);
			skipping = 0;
			if (rj != TRIAL_OK) {
				long long format = tl.format;
				const char *why = tl.why;

				if (rj == TRIAL_EMPTY)
					why = "an empty line";
				else if (rj == TRIAL_OTHER_FORMAT)
					why = "another format";
				if (sc->corrupt++ == 0) {
					sc->first_corrupt = sc->lines;
					snprintf(sc->first_why, sizeof(sc->first_why), "%s", why);
				}
				sc->empty += rj == TRIAL_EMPTY;
				sc->other_format += rj == TRIAL_OTHER_FORMAT;
				memset(&tl, 0, sizeof(tl));
				tl.lineno = sc->lines;
				tl.reject = rj;
				tl.why = why;
				if (rj == TRIAL_OTHER_FORMAT)
					tl.format = format;
			}
			if (fn != NULL && (rj == TRIAL_OK || (fields & TRIAL_REJECTS)) &&
			    (stop = fn(&tl, arg)) != 0)
				r = stop;
			start += n + 1;
			sc->good_size = consumed + (off_t)start;
		}
		memmove(buf, buf + start, len - start);
		consumed += (off_t)start;
		len -= start;
	}
	if (!stop)
		sc->truncated = len > 0 || skipping;
	if (r == -1)
		r = 0;
 out:
	free(l->params.keys);
	free(l->params.vals);
	free(l->resolved.keys);
	free(l->resolved.vals);
	free(l->notes);
	free(l->samples);
	free(l);
	free(buf);
	return r;
}

int
trialread_fd(int fd, const char *path, unsigned int fields, trial_line_fn fn,
    void *arg, struct trial_scan *scan, char **err)
{
	struct src src = { fd, path, NULL, 0 };
	struct trial_scan local;

	return read_lines(&src, fields, fn, arg, scan ? scan : &local, err);
}

/*
 * Open the trials file at path into *fd, with *scan zeroed: *fd is -1 when
 * there is no such file (a run with no trials yet).  -1 with *err when it
 * is there but cannot be opened.
 */
static int
open_lines(const char *path, int *fd, struct trial_scan *scan, char **err)
{
	memset(scan, 0, sizeof(*scan));
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 || errno == ENOENT)
		return 0;
	*err = xasprintf("cannot open %s: %s", path, strerror(errno));
	return -1;
}

int
trialread_file(const char *path, unsigned int fields, trial_line_fn fn, void *arg,
    struct trial_scan *scan, char **err)
{
	struct trial_scan local;
	int fd, r;

	if (scan == NULL)
		scan = &local;
	if (open_lines(path, &fd, scan, err) != 0)
		return -1;
	if (fd < 0)
		return 0;
	r = trialread_fd(fd, path, fields, fn, arg, scan, err);
	close(fd);
	return r;
}

int
trialread_buf(const void *buf, size_t len, unsigned int fields, trial_line_fn fn,
    void *arg, struct trial_scan *scan)
{
	struct src src = { -1, "(memory)", buf, len };
	struct trial_scan local;
	char *err = NULL;
	int r;

	r = read_lines(&src, fields, fn, arg, scan ? scan : &local, &err);
	free(err);	/* memory cannot fail to read */
	return r;
}

/* --- The done set from the lines ------------------------------------------------ */

/* Trials done: the lines of one append of one trial, as they are read. */
struct group {
	struct trial_done	*d;
	char			*host, *key;
	long long		 next, parts;
	size_t			 lineno;	/* of the last line taken */
	int			 ok;
	int			 finished;	/* a benchmark's failure counts too */
};

static void
group_reset(struct group *g)
{
	free(g->host);
	free(g->key);
	g->host = g->key = NULL;
	g->next = g->parts = 0;
}

static int
group_line(const struct trial_line *tl, void *arg)
{
	struct group *g = arg;

	if (strchr(tl->host, '\n') != NULL)
		return 0;
	if (tl->part == 1) {
		group_reset(g);
		g->host = xstrdup(tl->host);
		g->key = xstrdup(tl->key);
		g->parts = tl->parts;
		g->next = 1;
		g->ok = 1;
	} else if (g->host == NULL || tl->lineno != g->lineno + 1 || g->next != tl->part ||
	    g->parts != tl->parts || strcmp(g->host, tl->host) != 0 ||
	    strcmp(g->key, tl->key) != 0) {
		group_reset(g);		/* a piece of an append not seen whole */
		return 0;
	}
	g->lineno = tl->lineno;
	g->ok = g->ok && (tl->st == AP_ST_OK || (g->finished &&
	    ap_status_kind(tl->st) == AP_KIND_BENCHMARK));
	if (++g->next > g->parts) {
		if (g->ok)
			done_add(g->d, g->host, g->key);
		group_reset(g);
	}
	return 0;
}

static int
done_read(struct src *src, int finished, struct trial_done **out, struct trial_scan *scan,
    char **err)
{
	struct trial_done *d = xcalloc(1, sizeof(*d));
	struct group g = { d, NULL, NULL, 0, 0, 0, 0, finished };
	struct trial_scan local;
	int r;

	if (scan == NULL)
		scan = &local;
	r = read_lines(src, TRIAL_KEY | TRIAL_PARTS, group_line, &g, scan, err);
	group_reset(&g);
	scan->trials_ok = d->set.n;
	if (r != 0) {
		trial_done_free(d);
		return -1;
	}
	*out = d;
	return 0;
}

int
trial_done_read_fd(int fd, const char *path, struct trial_done **out,
    struct trial_scan *scan, char **err)
{
	struct src src = { fd, path, NULL, 0 };

	return done_read(&src, 0, out, scan, err);
}

struct trial_done *
trial_done_read_buf(const void *buf, size_t len, struct trial_scan *scan)
{
	struct src src = { -1, "(memory)", buf, len };
	struct trial_done *d = NULL;
	char *err = NULL;

	if (done_read(&src, 0, &d, scan, &err) != 0) {
		free(err);	/* memory cannot fail to read */
		d = xcalloc(1, sizeof(*d));
	}
	return d;
}

int
trial_done_read(const char *path, struct trial_done **out, struct trial_scan *scan,
    char **err)
{
	struct trial_scan local;
	int fd, r;

	if (scan == NULL)
		scan = &local;
	if (open_lines(path, &fd, scan, err) != 0)
		return -1;
	if (fd < 0) {
		*out = xcalloc(1, sizeof(**out));
		return 0;
	}
	r = trial_done_read_fd(fd, path, out, scan, err);
	close(fd);
	return r;
}

int
trial_finished_read(const char *path, struct trial_done **out, char **err)
{
	struct trial_scan scan;
	struct src src = { -1, path, NULL, 0 };
	int r;

	if (open_lines(path, &src.fd, &scan, err) != 0)
		return -1;
	if (src.fd < 0) {
		*out = xcalloc(1, sizeof(**out));
		return 0;
	}
	r = done_read(&src, 1, out, &scan, err);
	close(src.fd);
	return r;
}
