/*
 * strbuf.h: a growable string buffer (after git's strbuf and curl's dynbuf).
 *
 * A struct strbuf holds `len` bytes at `buf`, always followed by a NUL, so
 * buf is a C string at any time, before the first addition too (it then
 * points at a shared empty string that must not be written to).  The bytes
 * themselves may hold NULs (strbuf_add()).  `len` and `buf` may be read
 * directly; change them only through the functions below.
 *
 *	struct strbuf sb = STRBUF_INIT;
 *
 *	strbuf_addf(&sb, "%s:%d", host, port);
 *	use(sb.buf);
 *	strbuf_release(&sb);
 *
 * A cap (strbuf_init_max()) bounds what data from remote hosts and servers
 * can make the controller allocate: an addition that would make the
 * buffer longer than `max` bytes is refused whole, leaves the buffer as it
 * was, marks it too big (strbuf_toobig(), sticky until strbuf_reset()) and
 * returns -1 with errno EFBIG.  Without a cap, additions cannot fail.
 *
 * Ownership: the buffer owns buf until strbuf_detach() hands it to the
 * caller (who frees it with free()) or strbuf_release() frees it; both
 * leave the buffer empty and ready for use again, with its cap.
 * Allocation failure ends the process (xmalloc.h).
 */
#ifndef FLEETMARK_STRBUF_H
#define FLEETMARK_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char	*buf;		/* len bytes and a NUL */
	size_t	 len;
	size_t	 alloc;		/* bytes allocated at buf; 0: buf is the shared "" */
	size_t	 max;		/* the cap on len; 0: none */
	int	 toobig;	/* an addition was refused */
};

/* Not to be written to: what an empty buffer's buf points at. */
extern char strbuf_empty[];

#define STRBUF_INIT	{ strbuf_empty, 0, 0, 0, 0 }

/* An empty buffer with room for `hint` bytes (0: allocate later). */
void	 strbuf_init(struct strbuf *sb, size_t hint);

/* An empty buffer that will not grow past max bytes (0: no cap). */
void	 strbuf_init_max(struct strbuf *sb, size_t max);

/* Free the bytes; the buffer is empty again (the cap stays). */
void	 strbuf_release(struct strbuf *sb);

/*
 * The bytes as a malloc'd NUL-terminated string for the caller to free
 * (an empty one if nothing was added); *lenp (if not NULL) gets their
 * length.  The buffer is empty again.
 */
char	*strbuf_detach(struct strbuf *sb, size_t *lenp);

/* Empty the buffer, keeping its memory; clears the too-big mark. */
void	 strbuf_reset(struct strbuf *sb);

/* Cut the buffer to its first len bytes (len <= sb->len). */
void	 strbuf_setlen(struct strbuf *sb, size_t len);

/* The number of bytes in the buffer. */
static inline size_t
strbuf_length(const struct strbuf *sb)
{
	return sb->len;
}

/* Whether an addition was refused for the cap since the last reset. */
static inline int
strbuf_toobig(const struct strbuf *sb)
{
	return sb->toobig;
}

/*
 * Make room for `extra` more bytes without adding them; 0, or -1 (EFBIG)
 * when the cap does not allow them.
 */
int	 strbuf_grow(struct strbuf *sb, size_t extra);

/*
 * Append n bytes (which may hold NULs), a string, one byte, or printf
 * output.  0, or -1 with errno EFBIG when the cap would be passed (the
 * buffer is then left as it was).
 */
int	 strbuf_add(struct strbuf *sb, const void *data, size_t n);
int	 strbuf_addstr(struct strbuf *sb, const char *s);
int	 strbuf_addch(struct strbuf *sb, int c);
int	 strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	 strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	    __attribute__((format(printf, 2, 0)));

/*
 * Append everything readable from fd until end of file (EINTR is
 * retried).  0, or -1 with errno set: the read's error, or EFBIG when the
 * cap was reached (the bytes read up to the cap stay in the buffer).
 */
int	 strbuf_read_fd(struct strbuf *sb, int fd);

#endif /* FLEETMARK_STRBUF_H */
