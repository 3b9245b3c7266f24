/*
 * strbuf.c: the growable string buffer with an optional cap (strbuf.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "xmalloc.h"

#define READ_CHUNK	65536

char strbuf_empty[1];

void
strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->buf = strbuf_empty;
	sb->len = sb->alloc = sb->max = 0;
	sb->toobig = 0;
	if (hint > 0)
		(void)strbuf_grow(sb, hint);
}

void
strbuf_init_max(struct strbuf *sb, size_t max)
{
	strbuf_init(sb, 0);
	sb->max = max;
}

void
strbuf_release(struct strbuf *sb)
{
	size_t max = sb->max;

	if (sb->alloc > 0)
		free(sb->buf);
	strbuf_init(sb, 0);
	sb->max = max;
}

char *
strbuf_detach(struct strbuf *sb, size_t *lenp)
{
	char *s;

	if (lenp != NULL)
		*lenp = sb->len;
	s = sb->alloc > 0 ? sb->buf : xstrdup("");
	sb->alloc = 0;
	strbuf_release(sb);
	return s;
}

void
strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
	sb->toobig = 0;
}

void
strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > sb->len)
		abort();	/* a programming error */
	if (sb->alloc == 0)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

int
strbuf_grow(struct strbuf *sb, size_t extra)
{
	char *b;

	if (extra > (size_t)-1 - sb->len - 1 ||
	    (sb->max != 0 && sb->len + extra > sb->max)) {
		sb->toobig = 1;
		errno = EFBIG;
		return -1;
	}
	if (sb->len + extra + 1 <= sb->alloc)
		return 0;
	b = sb->alloc > 0 ? sb->buf : NULL;
	xgrow(&b, &sb->alloc, sb->len + extra + 1, 1);
	if (sb->buf == strbuf_empty)
		b[0] = '\0';
	sb->buf = b;
	return 0;
}

int
strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	if (strbuf_grow(sb, n) != 0)
		return -1;
	if (n > 0)
		memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	if (sb->alloc > 0)
		sb->buf[sb->len] = '\0';
	return 0;
}

int
strbuf_addstr(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

int
strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;

	return strbuf_add(sb, &ch, 1);
}

int
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return 0;	/* an encoding error: nothing to add */
	if (strbuf_grow(sb, (size_t)n) != 0)
		return -1;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}

int
strbuf_read_fd(struct strbuf *sb, int fd)
{
	size_t room;
	ssize_t got;
	char probe;

	for (;;) {
		if (sb->max != 0 && sb->len == sb->max) {
			/* at the cap: is there more? */
			while ((got = read(fd, &probe, 1)) < 0 && errno == EINTR)
				;
			if (got <= 0)
				return got < 0 ? -1 : 0;
			sb->toobig = 1;
			errno = EFBIG;
			return -1;
		}
		/* the room there is (strbuf_grow() may have made some), else more */
		if (sb->alloc <= sb->len + 1) {
			room = READ_CHUNK;
			if (sb->max != 0 && sb->max - sb->len < room)
				room = sb->max - sb->len;
			if (strbuf_grow(sb, room) != 0)
				return -1;
		}
		room = sb->alloc - sb->len - 1;
		if (sb->max != 0 && sb->max - sb->len < room)
			room = sb->max - sb->len;
		got = read(fd, sb->buf + sb->len, room);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			return 0;
		sb->len += (size_t)got;
		sb->buf[sb->len] = '\0';
	}
}
