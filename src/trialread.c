/*
 * trialread.c: reading trials.jsonl back (see trialread.h and
 * docs/results.md): the done set --resume trusts, and a fast parser of
 * trial lines made for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentproto.h"
#include "journal.h"
#include "trialread.h"
#include "xmalloc.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* --- Reading trials.jsonl ---------------------------------------------------- */

struct trial_done {
	char	**slots;	/* "host\nkey", open addressing */
	size_t	  cap;		/* a power of two */
	size_t	  n;
};

static unsigned long long
hash(const char *s)
{
	unsigned long long h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static char **
done_slot(const struct trial_done *d, const char *hk)
{
	size_t i = (size_t)hash(hk) & (d->cap - 1);

	while (d->slots[i] != NULL && strcmp(d->slots[i], hk) != 0)
		i = (i + 1) & (d->cap - 1);
	return &d->slots[i];
}

static void
done_add(struct trial_done *d, const char *host, const char *key)
{
	char *hk = xasprintf("%s\n%s", host, key), **s;
	size_t i;

	if ((d->n + 1) * 2 > d->cap) {
		struct trial_done bigger = { NULL, d->cap ? d->cap * 2 : 1024, 0 };

		bigger.slots = xcalloc(bigger.cap, sizeof(*bigger.slots));
		for (i = 0; i < d->cap; i++)
			if (d->slots[i] != NULL)
				*done_slot(&bigger, d->slots[i]) = d->slots[i];
		free(d->slots);
		d->slots = bigger.slots;
		d->cap = bigger.cap;
	}
	s = done_slot(d, hk);
	if (*s != NULL) {
		free(hk);
		return;
	}
	*s = hk;
	d->n++;
}

int
trial_done_has(const struct trial_done *d, const char *host, const char *key)
{
	char *hk;
	int r;

	if (d == NULL || d->n == 0)
		return 0;
	hk = xasprintf("%s\n%s", host, key);
	r = *done_slot(d, hk) != NULL;
	free(hk);
	return r;
}

size_t
trial_done_count(const struct trial_done *d, const char *host)
{
	size_t i, n = 0, hl;

	if (d == NULL)
		return 0;
	if (host == NULL)
		return d->n;
	hl = strlen(host);
	for (i = 0; i < d->cap; i++)
		if (d->slots[i] != NULL && strncmp(d->slots[i], host, hl) == 0 &&
		    d->slots[i][hl] == '\n')
			n++;
	return n;
}

void
trial_done_free(struct trial_done *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->cap; i++)
		free(d->slots[i]);
	free(d->slots);
	free(d);
}

/* --- Reading trial lines ------------------------------------------------------ */

/*
 * A reader made for speed: jansson takes about 13 us for a trial line with
 * 11 samples (13 s for a million), this well under 1 us.  It parses JSON
 * strictly (RFC 8259 syntax, UTF-8, no NUL) in place in the line buffer,
 * keeps the members a trial line has and skips any other, so that later
 * formats may add members.  Nesting is bounded.
 */

#define LINE_MAX_PARAMS		256
#define LINE_MAX_SAMPLES	(1 << 20)
#define LINE_MAX_NOTES		256
#define LINE_MAX_DEPTH		32

struct lp {
	char		*p;		/* where parsing is; the line ends in a NUL */
	const char	*keys[LINE_MAX_PARAMS], *vals[LINE_MAX_PARAMS];
	const char	*rkeys[LINE_MAX_PARAMS], *rvals[LINE_MAX_PARAMS];
	const char	*notes[LINE_MAX_NOTES];
	double		*samples;
	size_t		 scap;
};

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

/* A string, decoded in place and NUL-terminated where its closing quote was. */
static int
str(struct lp *l, const char **out)
{
	char *start, *r, *w;
	unsigned int cp, lo;
	size_t k;

	ws(l);
	if (*l->p != '"')
		return -1;
	start = r = w = l->p + 1;
	for (;;) {
		unsigned char c = (unsigned char)*r;

		if (c == '"')
			break;
		if (c < 0x20)
			return -1;	/* a control, or the NUL that ends the line */
		if (c >= 0x80) {
			if ((k = utf8_seq((const unsigned char *)r, 4)) == 0)
				return -1;
			while (k-- > 0)
				*w++ = *r++;
			continue;
		}
		if (c != '\\') {
			*w++ = *r++;
			continue;
		}
		switch (r[1]) {
		case '"':
		case '\\':
		case '/':
			*w++ = r[1];
			r += 2;
			continue;
		case 'b':
			*w++ = '\b';
			r += 2;
			continue;
		case 'f':
			*w++ = '\f';
			r += 2;
			continue;
		case 'n':
			*w++ = '\n';
			r += 2;
			continue;
		case 'r':
			*w++ = '\r';
			r += 2;
			continue;
		case 't':
			*w++ = '\t';
			r += 2;
			continue;
		case 'u':
			break;
		default:
			return -1;
		}
		if (hex4(r + 2, &cp) != 0)
			return -1;
		r += 6;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (r[0] != '\\' || r[1] != 'u' || hex4(r + 2, &lo) != 0 ||
			    lo < 0xdc00 || lo > 0xdfff)
				return -1;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			r += 6;
		} else if ((cp >= 0xdc00 && cp <= 0xdfff) || cp == 0)
			return -1;
		/* Never longer than its escape: writing stays behind reading. */
		if (cp < 0x80)
			*w++ = (char)cp;
		else if (cp < 0x800) {
			*w++ = (char)(0xc0 | (cp >> 6));
			*w++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*w++ = (char)(0xe0 | (cp >> 12));
			*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*w++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*w++ = (char)(0xf0 | (cp >> 18));
			*w++ = (char)(0x80 | ((cp >> 12) & 0x3f));
			*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*w++ = (char)(0x80 | (cp & 0x3f));
		}
	}
	*w = '\0';
	l->p = r + 1;
	*out = start;
	return 0;
}

static const double pow10_tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * A number: its text is [*s, l->p) afterwards.  Exact in the common case
 * (at most 19 digits, a mantissa below 2^53 and a power of ten up to 22:
 * one correctly rounded operation, Clinger's fast path), else strtod in
 * the C locale.  *is_int tells whether it was written as an integer.
 */
static int
num(struct lp *l, double *out, const char **s, int *is_int)
{
	const char *p, *q;
	unsigned long long w = 0;
	int nd = 0, frac = 0, e = 0, eneg = 0, neg = 0, integer = 1;
	char *end;

	ws(l);
	p = *s = l->p;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9') {
		for (; *p >= '0' && *p <= '9'; p++)
			if (nd < 19) {
				w = w * 10 + (unsigned long long)(*p - '0');
				nd++;
			} else
				nd = 99;
	} else
		return -1;
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
			return -1;
	}
	if (*p == 'e' || *p == 'E') {
		integer = 0;
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if (!(*p >= '0' && *p <= '9'))
			return -1;
		for (; *p >= '0' && *p <= '9'; p++)
			if (e < 10000)
				e = e * 10 + (*p - '0');
	}
	l->p = (char *)p;
	*is_int = integer;
	e = (eneg ? -e : e) - frac;
	if (nd <= 19 && w <= (1ull << 53) && e >= -22 && e <= 22) {
		double d = (double)w;

		d = e < 0 ? d / pow10_tab[-e] : d * pow10_tab[e];
		*out = neg ? -d : d;
		return 0;
	}
	pthread_once(&c_locale_once, c_locale_init);
	if (c_locale == (locale_t)0)
		return -1;
	*out = strtod_l(*s, &end, c_locale);
	if (end != p || !isfinite(*out))
		return -1;
	return 0;
}

static int
integer(struct lp *l, long long *out)
{
	const char *s;
	double d;
	int is_int;

	if (num(l, &d, &s, &is_int) != 0 || !is_int || d > 9e15 || d < -9e15)
		return -1;
	*out = (long long)d;
	return 0;
}

static int
word(struct lp *l, const char *w)
{
	size_t n = strlen(w);

	ws(l);
	if (strncmp(l->p, w, n) != 0)
		return -1;
	l->p += n;
	return 0;
}

static int
is_null(struct lp *l)
{
	ws(l);
	return strncmp(l->p, "null", 4) == 0 && word(l, "null") == 0;
}

static int
str_or_null(struct lp *l, const char **out)
{
	if (is_null(l)) {
		*out = NULL;
		return 0;
	}
	return str(l, out);
}

static int
num_or_null(struct lp *l, double *out, double if_null)
{
	const char *s;
	int is_int;

	if (is_null(l)) {
		*out = if_null;
		return 0;
	}
	return num(l, out, &s, &is_int);
}

/* Skip any value. */
static int
skip(struct lp *l, int depth)
{
	const char *s;
	double d;
	int is_int;

	if (depth > LINE_MAX_DEPTH)
		return -1;
	ws(l);
	switch (*l->p) {
	case '"':
		return str(l, &s);
	case '{':
		l->p++;
		ws(l);
		if (*l->p == '}') {
			l->p++;
			return 0;
		}
		for (;;) {
			if (str(l, &s) != 0 || expect(l, ':') != 0 || skip(l, depth + 1) != 0)
				return -1;
			ws(l);
			if (*l->p == '}') {
				l->p++;
				return 0;
			}
			if (*l->p++ != ',')
				return -1;
		}
	case '[':
		l->p++;
		ws(l);
		if (*l->p == ']') {
			l->p++;
			return 0;
		}
		for (;;) {
			if (skip(l, depth + 1) != 0)
				return -1;
			ws(l);
			if (*l->p == ']') {
				l->p++;
				return 0;
			}
			if (*l->p++ != ',')
				return -1;
		}
	case 't':
		return word(l, "true");
	case 'f':
		return word(l, "false");
	case 'n':
		return word(l, "null");
	default:
		return num(l, &d, &s, &is_int);
	}
}

/*
 * An object of names to strings or numbers (params, resolved): values as
 * text.  A number's text is cut out of the line by writing a NUL after
 * it, over the ',' or '}' that must follow, which is why that byte is
 * looked at first.
 */
static int
pairs(struct lp *l, const char **keys, const char **vals, size_t *n)
{
	const char *s;
	double d;
	int is_int;
	char next;

	*n = 0;
	if (is_null(l))
		return 0;
	if (expect(l, '{') != 0)
		return -1;
	ws(l);
	if (*l->p == '}') {
		l->p++;
		return 0;
	}
	for (;;) {
		if (*n >= LINE_MAX_PARAMS || str(l, &keys[*n]) != 0 || expect(l, ':') != 0)
			return -1;
		ws(l);
		if (*l->p == '"') {
			if (str(l, &vals[*n]) != 0)
				return -1;
			ws(l);
			next = *l->p;
		} else {
			char *e;

			if (num(l, &d, &s, &is_int) != 0)
				return -1;
			vals[*n] = s;
			e = l->p;
			ws(l);
			next = *l->p;
			*e = '\0';	/* over a blank, or the separator kept in next */
		}
		(*n)++;
		l->p++;
		if (next == '}')
			return 0;
		if (next != ',')
			return -1;
	}
}

static int
samples(struct lp *l, size_t *n)
{
	const char *s;
	int is_int;

	*n = 0;
	if (expect(l, '[') != 0)
		return -1;
	ws(l);
	if (*l->p == ']') {
		l->p++;
		return 0;
	}
	for (;;) {
		if (*n >= l->scap) {
			if (l->scap >= LINE_MAX_SAMPLES)
				return -1;
			l->scap = l->scap ? l->scap * 2 : 1024;
			l->samples = xreallocarray(l->samples, l->scap, sizeof(*l->samples));
		}
		if (num(l, &l->samples[*n], &s, &is_int) != 0)
			return -1;
		(*n)++;
		ws(l);
		if (*l->p == ']') {
			l->p++;
			return 0;
		}
		if (*l->p++ != ',')
			return -1;
	}
}

static int
notes(struct lp *l, size_t *n)
{
	*n = 0;
	if (expect(l, '[') != 0)
		return -1;
	ws(l);
	if (*l->p == ']') {
		l->p++;
		return 0;
	}
	for (;;) {
		if (*n >= LINE_MAX_NOTES || str(l, &l->notes[*n]) != 0)
			return -1;
		(*n)++;
		ws(l);
		if (*l->p == ']') {
			l->p++;
			return 0;
		}
		if (*l->p++ != ',')
			return -1;
	}
}

/* One line (NUL-terminated, in a buffer it may change) into *jl. */
static int
parse_trial_line(struct lp *l, char *text, struct trial_line *jl)
{
	const char *k;
	size_t lineno = jl->lineno;
	int r = 0;

	memset(jl, 0, sizeof(*jl));
	jl->lineno = lineno;
	jl->duration = -1;
	jl->part = jl->parts = 1;
	jl->keys = l->keys;
	jl->vals = l->vals;
	jl->rkeys = l->rkeys;
	jl->rvals = l->rvals;
	jl->notes = l->notes;
	jl->samples = l->samples;
	l->p = text;
	if (expect(l, '{') != 0)
		return -1;
	ws(l);
	if (*l->p == '}')
		return -1;
	for (;;) {
		if (str(l, &k) != 0 || expect(l, ':') != 0)
			return -1;
		switch (k[0]) {
		case 'b':
			r = strcmp(k, "bench") == 0 ? str(l, &jl->bench) : skip(l, 1);
			break;
		case 'd':
			if (strcmp(k, "direction") == 0) {
				r = str_or_null(l, &jl->direction);
				jl->higher_better = jl->direction &&
				    strcmp(jl->direction, WIRE_HIGHER_BETTER) == 0;
			} else if (strcmp(k, "duration") == 0)
				r = num_or_null(l, &jl->duration, -1);
			else
				r = skip(l, 1);
			break;
		case 'f':
			r = strcmp(k, "format") == 0 ? integer(l, &jl->format) : skip(l, 1);
			break;
		case 'h':
			r = strcmp(k, "host") == 0 ? str(l, &jl->host) : skip(l, 1);
			break;
		case 'i':
			r = strcmp(k, "iterations") == 0 ? integer(l, &jl->iterations) : skip(l, 1);
			break;
		case 'k':
			if (strcmp(k, "key") == 0)
				r = str(l, &jl->key);
			else if (strcmp(k, "kind") == 0)
				r = str(l, &jl->kind);
			else
				r = skip(l, 1);
			break;
		case 'm':
			if (strcmp(k, "metric") == 0)
				r = str_or_null(l, &jl->metric);
			else if (strcmp(k, "message") == 0)
				r = str_or_null(l, &jl->message);
			else
				r = skip(l, 1);
			break;
		case 'n':
			r = strcmp(k, "notes") == 0 ? notes(l, &jl->nnotes) : skip(l, 1);
			break;
		case 'p':
			if (strcmp(k, "params") == 0)
				r = pairs(l, l->keys, l->vals, &jl->nparams);
			else if (strcmp(k, "part") == 0)
				r = integer(l, &jl->part);
			else if (strcmp(k, "parts") == 0)
				r = integer(l, &jl->parts);
			else
				r = skip(l, 1);
			break;
		case 'r':
			if (strcmp(k, "run") == 0)
				r = str(l, &jl->run);
			else if (strcmp(k, "rep") == 0)
				r = integer(l, &jl->rep);
			else if (strcmp(k, "resolved") == 0)
				r = pairs(l, l->rkeys, l->rvals, &jl->nresolved);
			else
				r = skip(l, 1);
			break;
		case 's':
			if (strcmp(k, "samples") == 0) {
				r = samples(l, &jl->nsamples);
				jl->samples = l->samples;
			} else if (strcmp(k, "start") == 0)
				r = num_or_null(l, &jl->start, 0);
			else if (strcmp(k, "status") == 0)
				r = str(l, &jl->status);
			else if (strcmp(k, "suite") == 0)
				r = str_or_null(l, &jl->suite);
			else
				r = skip(l, 1);
			break;
		case 'u':
			r = strcmp(k, "unit") == 0 ? str_or_null(l, &jl->unit) : skip(l, 1);
			break;
		case 'v':
			if (strcmp(k, "variant") == 0)
				r = str_or_null(l, &jl->variant);
			else if (strcmp(k, "value") == 0) {
				if (!is_null(l)) {
					r = num_or_null(l, &jl->value, 0);
					jl->has_value = r == 0;
				}
			} else
				r = skip(l, 1);
			break;
		default:
			r = skip(l, 1);
			break;
		}
		if (r != 0)
			return -1;
		ws(l);
		if (*l->p == '}')
			break;
		if (*l->p++ != ',')
			return -1;
	}
	l->p++;
	ws(l);
	if (*l->p != '\0')
		return -1;
	/* What makes a trial line. */
	if (jl->format != JOURNAL_FORMAT || jl->host == NULL || jl->key == NULL ||
	    jl->bench == NULL || jl->status == NULL || jl->part < 1 || jl->parts < jl->part)
		return -1;
	jl->st = ap_status_parse(jl->status);
	return 0;
}

/* Read fd from its start, a line at a time, bounded. */
static int
read_lines_fd(int fd, const char *path, trial_line_fn fn, void *arg,
    struct trial_scan *sc, char **err)
{
	size_t cap = 1 << 20, len = 0, start, n;
	char *buf = xmalloc(cap + 1), *nl;
	struct lp *l = xcalloc(1, sizeof(*l));
	struct trial_line jl;
	off_t consumed = 0;
	int skipping = 0, r = -1, stop = 0;
	ssize_t got;

	memset(sc, 0, sizeof(*sc));
	if (lseek(fd, 0, SEEK_SET) < 0) {
		*err = xasprintf("cannot read %s: %s", path, strerror(errno));
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
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*err = xasprintf("cannot read %s: %s", path, strerror(errno));
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
			jl.lineno = sc->lines;
			if (skipping || memchr(buf + start, '\0', n) != NULL ||
			    parse_trial_line(l, buf + start, &jl) != 0) {
				if (sc->corrupt++ == 0)
					sc->first_corrupt = sc->lines;
				skipping = 0;
			} else if (fn != NULL && (stop = fn(&jl, arg)) != 0)
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
	free(l->samples);
	free(l);
	free(buf);
	return r;
}

int
trialread_file(const char *path, trial_line_fn fn, void *arg,
    struct trial_scan *scan, char **err)
{
	struct trial_scan local;
	int fd, r;

	if (scan == NULL)
		scan = &local;
	memset(scan, 0, sizeof(*scan));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;
		*err = xasprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	r = read_lines_fd(fd, path, fn, arg, scan, err);
	close(fd);
	return r;
}

/* Trials done: the lines of one append of one trial, as they are read. */
struct group {
	struct trial_done	*d;
	char			*host, *key;
	long long		 next, parts;
	size_t			 lineno;	/* of the last line taken */
	int			 ok;
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
group_line(const struct trial_line *jl, void *arg)
{
	struct group *g = arg;

	if (strchr(jl->host, '\n') != NULL)
		return 0;
	if (jl->part == 1) {
		group_reset(g);
		g->host = xstrdup(jl->host);
		g->key = xstrdup(jl->key);
		g->parts = jl->parts;
		g->next = 1;
		g->ok = 1;
	} else if (g->host == NULL || jl->lineno != g->lineno + 1 || g->next != jl->part ||
	    g->parts != jl->parts || strcmp(g->host, jl->host) != 0 ||
	    strcmp(g->key, jl->key) != 0) {
		group_reset(g);		/* a piece of an append not seen whole */
		return 0;
	}
	g->lineno = jl->lineno;
	g->ok = g->ok && jl->st == AP_ST_OK;
	if (++g->next > g->parts) {
		if (g->ok)
			done_add(g->d, g->host, g->key);
		group_reset(g);
	}
	return 0;
}

static int
done_fd(int fd, const char *path, struct trial_done *d, struct trial_scan *sc,
    char **err)
{
	struct group g = { d, NULL, NULL, 0, 0, 0, 0 };
	int r;

	r = read_lines_fd(fd, path, group_line, &g, sc, err);
	group_reset(&g);
	sc->trials_ok = d->n;
	return r;
}

int
trial_done_read(const char *path, struct trial_done **out, struct trial_scan *scan,
    char **err)
{
	struct trial_done *d = xcalloc(1, sizeof(*d));
	struct trial_scan local;
	int fd;

	if (scan == NULL)
		scan = &local;
	memset(scan, 0, sizeof(*scan));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno == ENOENT) {
			*out = d;
			return 0;
		}
		*err = xasprintf("cannot open %s: %s", path, strerror(errno));
		trial_done_free(d);
		return -1;
	}
	if (done_fd(fd, path, d, scan, err) != 0) {
		close(fd);
		trial_done_free(d);
		return -1;
	}
	close(fd);
	*out = d;
	return 0;
}

int
trial_done_read_fd(int fd, const char *path, struct trial_done **out,
    struct trial_scan *scan, char **err)
{
	struct trial_done *d = xcalloc(1, sizeof(*d));

	if (done_fd(fd, path, d, scan, err) != 0) {
		trial_done_free(d);
		return -1;
	}
	*out = d;
	return 0;
}
