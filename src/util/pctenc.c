/*
 * pctenc.c: percent-encoding with a chosen set kept, and decoding (pctenc.h).
 */
#include <stdlib.h>
#include <string.h>

#include "pctenc.h"
#include "strbuf.h"
#include "xmalloc.h"

static int
kept(unsigned char c, const char *keep)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr(keep, c) != NULL);
}

void
pct_encode_sb(struct strbuf *sb, const void *s, size_t n, const char *keep)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = s;
	char esc[3];
	size_t i, run;

	strbuf_grow(sb, n);
	for (i = 0; i < n; i += run) {
		if ((run = pct_kept_span(p + i, n - i, keep)) > 0) {
			strbuf_add(sb, p + i, run);
			continue;
		}
		esc[0] = '%';
		esc[1] = hex[p[i] >> 4];
		esc[2] = hex[p[i] & 15];
		strbuf_add(sb, esc, 3);
		run = 1;
	}
}

size_t
pct_kept_span(const void *s, size_t n, const char *keep)
{
	const unsigned char *p = s;
	size_t i;

	for (i = 0; i < n && kept(p[i], keep); i++)
		;
	return i;
}

char *
pct_encode(const void *s, size_t n, const char *keep)
{
	struct strbuf sb = STRBUF_INIT;

	pct_encode_sb(&sb, s, n, keep);
	return strbuf_detach(&sb, NULL);
}

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
pct_decode(const char *s, size_t n, int flags, size_t *outlen)
{
	char *out = xmalloc(n + 1);
	size_t i, o = 0;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if (s[i] != '%') {
			out[o++] = s[i];
			continue;
		}
		if (i + 2 < n && (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0 &&
		    (!(flags & PCT_STRICT) || (hi | lo) != 0)) {
			out[o++] = (char)(hi << 4 | lo);
			i += 2;
		} else if (flags & PCT_STRICT) {
			free(out);
			return NULL;
		} else
			out[o++] = s[i];
	}
	out[o] = '\0';
	if (outlen != NULL)
		*outlen = o;
	return out;
}
