/*
 * jline.c: bounded JSON line writer (see jline.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jline.h"

static void
put(struct jline *j, const char *s, size_t n)
{
	if (j->overflow || j->len + n + 16 > sizeof(j->buf)) {
		j->overflow = 1;
		return;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

static void
puts_(struct jline *j, const char *s)
{
	put(j, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
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

static void
put_string(struct jline *j, const char *val, size_t n)
{
	const unsigned char *s = (const unsigned char *)val;
	char esc[8];
	size_t i = 0, l;

	if (n > JLINE_MAX_STR)
		n = JLINE_MAX_STR;
	put(j, "\"", 1);
	while (i < n && !j->overflow) {
		if (s[i] == '"' || s[i] == '\\') {
			esc[0] = '\\';
			esc[1] = (char)s[i];
			put(j, esc, 2);
			i++;
		} else if (s[i] == '\n') {
			put(j, "\\n", 2);
			i++;
		} else if (s[i] == '\t') {
			put(j, "\\t", 2);
			i++;
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", s[i]);
			put(j, esc, 6);
			i++;
		} else if ((l = utf8_len(s + i, n - i)) == 0) {
			put(j, "\\ufffd", 6);
			i++;
		} else {
			put(j, (const char *)s + i, l);
			i += l;
		}
	}
	put(j, "\"", 1);
}

static void
member(struct jline *j, const char *key)
{
	if (!j->first[j->depth])
		put(j, ",", 1);
	j->first[j->depth] = 0;
	if (key != NULL) {
		put_string(j, key, strlen(key));
		put(j, ":", 1);
	}
}

void
jl_begin(struct jline *j, const char *type, const char *id)
{
	j->len = 0;
	j->depth = 0;
	j->overflow = 0;
	j->first[0] = 1;
	put(j, "{", 1);
	jl_str(j, "type", type);
	if (id != NULL)
		jl_str(j, "id", id);
}

void
jl_strn(struct jline *j, const char *key, const char *val, size_t n)
{
	member(j, key);
	put_string(j, val, n);
}

void
jl_str(struct jline *j, const char *key, const char *val)
{
	if (val == NULL) {
		jl_null(j, key);
		return;
	}
	jl_strn(j, key, val, strlen(val));
}

void
jl_num(struct jline *j, const char *key, double v)
{
	char b[40];

	member(j, key);
	if (isnan(v) || isinf(v)) {
		puts_(j, "null");
		return;
	}
	/* times since the epoch keep their milliseconds */
	snprintf(b, sizeof(b), fabs(v) >= 1e9 && fabs(v) < 1e12 ? "%.3f" : "%.10g", v);
	puts_(j, b);
}

void
jl_int(struct jline *j, const char *key, long long v)
{
	char b[32];

	member(j, key);
	snprintf(b, sizeof(b), "%lld", v);
	puts_(j, b);
}

void
jl_bool(struct jline *j, const char *key, int v)
{
	member(j, key);
	puts_(j, v ? "true" : "false");
}

void
jl_null(struct jline *j, const char *key)
{
	member(j, key);
	puts_(j, "null");
}

static void
open_(struct jline *j, const char *key, const char *c)
{
	member(j, key);
	if (j->depth + 1 >= JLINE_MAX_DEPTH) {
		j->overflow = 1;
		return;
	}
	put(j, c, 1);
	j->first[++j->depth] = 1;
	j->closer[j->depth] = *c == '{' ? '}' : ']';
}

void
jl_obj(struct jline *j, const char *key)
{
	open_(j, key, "{");
}

void
jl_arr(struct jline *j, const char *key)
{
	open_(j, key, "[");
}

void
jl_close(struct jline *j)
{
	if (j->depth == 0)
		return;
	/* put() keeps slack at the end of the buffer, so this always fits */
	j->buf[j->len++] = j->closer[j->depth--];
}

int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t w;

	while (len > 0) {
		if ((w = write(fd, p, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int
jl_emit(struct jline *j, int fd)
{
	if (j->overflow) {
		static const char msg[] = "{\"type\":\"error\",\"class\":\"bench\","
		    "\"message\":\"agent line too long, dropped\"}\n";

		return write_all(fd, msg, sizeof(msg) - 1);
	}
	while (j->depth > 0)
		jl_close(j);
	j->buf[j->len++] = '}';
	j->buf[j->len++] = '\n';
	return write_all(fd, j->buf, j->len);
}
