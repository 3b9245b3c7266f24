/*
 * utf8.c: UTF-8 sequence lengths, validity and widths, and the escaping
 * of text from outside for a terminal (utf8.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "utf8.h"

#define CONT(c)	(((c) & 0xc0) == 0x80)

size_t
utf8_seq(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t len, i;
	unsigned int cp;

	if (n == 0)
		return 0;
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
		if (!CONT(s[i]))
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int
utf8_valid(const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i, k;

	for (i = 0; i < n; i += k)
		if ((k = utf8_seq(s + i, n - i)) == 0)
			return 0;
	return 1;
}

int
utf8_is_control(const void *p, size_t k)
{
	const unsigned char *s = p;

	return (k == 1 && (s[0] < 0x20 || s[0] == 0x7f)) ||
	    (k == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}

size_t
utf8_width_n(const char *s, size_t n)
{
	size_t w = 0, i;

	for (i = 0; i < n; i++)
		if (!CONT((unsigned char)s[i]))
			w++;
	return w;
}

size_t
utf8_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++)
		if (!CONT((unsigned char)*s))
			w++;
	return w;
}

size_t
utf8_cut(const char *s, size_t n)
{
	while (n > 0 && CONT((unsigned char)s[n]))
		n--;
	return n;
}

void
utf8_escape(struct strbuf *sb, const void *p, size_t n, unsigned int keep)
{
	const unsigned char *s = p;
	size_t i = 0, k, run;

	while (i < n) {
		/* printable ASCII, the common case, in one piece */
		for (run = i; run < n && s[run] >= 0x20 && s[run] < 0x7f; run++)
			;
		if (run > i) {
			strbuf_add(sb, s + i, run - i);
			i = run;
			continue;
		}
		k = utf8_seq(s + i, n - i);
		if (k == 0 || (utf8_is_control(s + i, k) &&
		    !(s[i] == '\t' && (keep & UTF8_KEEP_TAB)) &&
		    !(s[i] == '\n' && (keep & UTF8_KEEP_NL)))) {
			/* a C1 control's second byte is escaped alone next */
			strbuf_addf(sb, "\\x%02x", s[i]);
			k = 1;
		} else
			strbuf_add(sb, s + i, k);
		i += k;
	}
}

char *
utf8_escaped(const char *s, unsigned int keep)
{
	struct strbuf sb = STRBUF_INIT;

	utf8_escape(&sb, s, strlen(s), keep);
	return strbuf_detach(&sb, NULL);
}

int
utf8_fwrite_escaped(FILE *out, const void *s, size_t n, unsigned int keep)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	utf8_escape(&sb, s, n, keep);
	r = fwrite(sb.buf, 1, sb.len, out) == sb.len ? 0 : EOF;
	strbuf_release(&sb);
	return r;
}

int
utf8_render_escaped(FILE *out, unsigned int keep, int (*fn)(void *arg, FILE *mem),
    void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int r;

	if ((mem = open_memstream(&text, &len)) == NULL)
		return -1;
	r = fn(arg, mem);
	if (fclose(mem) != 0 && r >= 0)
		r = -1;
	if (r >= 0 && utf8_fwrite_escaped(out, text, len, keep) != 0)
		r = -1;
	free(text);
	return r;
}
