/*
 * shquote.c: POSIX sh quoting of values and command lines (see shquote.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shquote.h"
#include "strbuf.h"
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

static void
quote_into(struct strbuf *b, const char *s)
{
	const char *q;

	if (sh_is_plain(s)) {
		strbuf_addstr(b, s);
		return;
	}
	strbuf_addch(b, '\'');
	while ((q = strchr(s, '\'')) != NULL) {
		strbuf_add(b, s, (size_t)(q - s));
		strbuf_add(b, "'\\''", 4);
		s = q + 1;
	}
	strbuf_addstr(b, s);
	strbuf_addch(b, '\'');
}

char *
sh_quote(const char *s)
{
	struct strbuf b = STRBUF_INIT;

	quote_into(&b, s);
	return strbuf_detach(&b, NULL);
}

void
sh_quote_append(char **buf, const char *s)
{
	struct strbuf b = STRBUF_INIT;

	if (*buf != NULL)
		strbuf_addstr(&b, *buf);
	quote_into(&b, s);
	free(*buf);
	*buf = strbuf_detach(&b, NULL);
}

char *
sh_join(const char *const *argv, int argc)
{
	struct strbuf b = STRBUF_INIT;
	int i;

	for (i = 0; argc < 0 ? argv[i] != NULL : i < argc; i++) {
		if (i > 0)
			strbuf_addch(&b, ' ');
		quote_into(&b, argv[i]);
	}
	return strbuf_detach(&b, NULL);
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
	struct strbuf b = STRBUF_INIT;
	const char *p, *s;
	va_list ap;

	va_start(ap, fmt);
	for (p = fmt; *p != '\0'; p++) {
		if (*p != '%') {
			s = strchr(p, '%');
			if (s == NULL)
				s = p + strlen(p);
			strbuf_add(&b, p, (size_t)(s - p));
			p = s - 1;
			continue;
		}
		p++;
		switch (*p) {
		case '%':
			strbuf_addch(&b, '%');
			break;
		case 'q':
			if ((s = va_arg(ap, const char *)) == NULL)
				bad_format(fmt, "NULL for %q");
			quote_into(&b, s);
			break;
		case 's':
			if ((s = va_arg(ap, const char *)) == NULL)
				bad_format(fmt, "NULL for %s");
			strbuf_addstr(&b, s);
			break;
		case 'd':
			strbuf_addf(&b, "%d", va_arg(ap, int));
			break;
		case 'u':
			strbuf_addf(&b, "%u", va_arg(ap, unsigned int));
			break;
		case 'o':
			strbuf_addf(&b, "%o", va_arg(ap, unsigned int));
			break;
		case 'x':
			strbuf_addf(&b, "%x", va_arg(ap, unsigned int));
			break;
		case 'z':
			if (p[1] != 'u')
				bad_format(fmt, "unknown conversion");
			p++;
			strbuf_addf(&b, "%zu", va_arg(ap, size_t));
			break;
		case 'l':
			if (p[1] == 'l' && p[2] == 'd')
				strbuf_addf(&b, "%lld", va_arg(ap, long long));
			else if (p[1] == 'l' && p[2] == 'u')
				strbuf_addf(&b, "%llu", va_arg(ap, unsigned long long));
			else
				bad_format(fmt, "unknown conversion");
			p += 2;
			break;
		default:
			bad_format(fmt, "unknown conversion");
		}
	}
	va_end(ap);
	return strbuf_detach(&b, NULL);
}
