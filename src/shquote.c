/*
 * shquote.c: POSIX sh quoting of values and command lines (see shquote.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shquote.h"
#include "xmalloc.h"

/* Characters no POSIX shell treats specially anywhere in a word. */
static int
plain_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("_-./:@%+,", c) != NULL);
}

int
sh_is_plain(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (*p == '\0')
		return 0;
	for (; *p != '\0'; p++)
		if (!plain_char(*p))
			return 0;
	return 1;
}

/* A growing string: len bytes used of cap, always NUL-terminated. */
struct sbuf {
	char	*s;
	size_t	 len, cap;
};

static void
sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;

		while (b->len + n + 1 > cap)
			cap *= 2;
		b->s = xreallocarray(b->s, cap, 1);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
sbuf_quote(struct sbuf *b, const char *s)
{
	const char *q;

	if (sh_is_plain(s)) {
		sbuf_add(b, s, strlen(s));
		return;
	}
	sbuf_add(b, "'", 1);
	while ((q = strchr(s, '\'')) != NULL) {
		sbuf_add(b, s, (size_t)(q - s));
		sbuf_add(b, "'\\''", 4);
		s = q + 1;
	}
	sbuf_add(b, s, strlen(s));
	sbuf_add(b, "'", 1);
}

char *
sh_quote(const char *s)
{
	struct sbuf b = { NULL, 0, 0 };

	sbuf_add(&b, "", 0);
	sbuf_quote(&b, s);
	return b.s;
}

void
sh_quote_append(char **buf, const char *s)
{
	struct sbuf b;

	b.s = *buf;
	b.len = b.s != NULL ? strlen(b.s) : 0;
	b.cap = b.s != NULL ? b.len + 1 : 0;
	sbuf_add(&b, "", 0);
	sbuf_quote(&b, s);
	*buf = b.s;
}

char *
sh_join(const char *const *argv, int argc)
{
	struct sbuf b = { NULL, 0, 0 };
	int i;

	sbuf_add(&b, "", 0);
	for (i = 0; argc < 0 ? argv[i] != NULL : i < argc; i++) {
		if (i > 0)
			sbuf_add(&b, " ", 1);
		sbuf_quote(&b, argv[i]);
	}
	return b.s;
}

static void
bad_format(const char *fmt, const char *why)
{
	fprintf(stderr, "fleetmark: internal error: sh_format(\"%s\"): %s\n", fmt, why);
	abort();
}

char *
sh_format(const char *fmt, ...)
{
	struct sbuf b = { NULL, 0, 0 };
	char num[64];
	const char *p, *s;
	va_list ap;

	sbuf_add(&b, "", 0);
	va_start(ap, fmt);
	for (p = fmt; *p != '\0'; p++) {
		if (*p != '%') {
			s = strchr(p, '%');
			if (s == NULL)
				s = p + strlen(p);
			sbuf_add(&b, p, (size_t)(s - p));
			p = s - 1;
			continue;
		}
		p++;
		switch (*p) {
		case '%':
			sbuf_add(&b, "%", 1);
			break;
		case 'q':
			if ((s = va_arg(ap, const char *)) == NULL)
				bad_format(fmt, "NULL for %q");
			sbuf_quote(&b, s);
			break;
		case 's':
			if ((s = va_arg(ap, const char *)) == NULL)
				bad_format(fmt, "NULL for %s");
			sbuf_add(&b, s, strlen(s));
			break;
		case 'd':
			snprintf(num, sizeof(num), "%d", va_arg(ap, int));
			sbuf_add(&b, num, strlen(num));
			break;
		case 'u':
			snprintf(num, sizeof(num), "%u", va_arg(ap, unsigned int));
			sbuf_add(&b, num, strlen(num));
			break;
		case 'o':
			snprintf(num, sizeof(num), "%o", va_arg(ap, unsigned int));
			sbuf_add(&b, num, strlen(num));
			break;
		case 'x':
			snprintf(num, sizeof(num), "%x", va_arg(ap, unsigned int));
			sbuf_add(&b, num, strlen(num));
			break;
		case 'z':
			if (p[1] != 'u')
				bad_format(fmt, "unknown conversion");
			p++;
			snprintf(num, sizeof(num), "%zu", va_arg(ap, size_t));
			sbuf_add(&b, num, strlen(num));
			break;
		case 'l':
			if (p[1] == 'l' && p[2] == 'd')
				snprintf(num, sizeof(num), "%lld", va_arg(ap, long long));
			else if (p[1] == 'l' && p[2] == 'u')
				snprintf(num, sizeof(num), "%llu", va_arg(ap, unsigned long long));
			else
				bad_format(fmt, "unknown conversion");
			p += 2;
			sbuf_add(&b, num, strlen(num));
			break;
		default:
			bad_format(fmt, "unknown conversion");
		}
	}
	va_end(ap);
	return b.s;
}
