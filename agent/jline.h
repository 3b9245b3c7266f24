/*
 * jline.h: building one JSON line of the wire format.
 *
 * A `struct jline` is a fixed buffer of WIRE_MAX_LINE bytes: nothing the
 * agent writes can exceed what the controller accepts.  Strings are
 * escaped and made valid UTF-8 (invalid bytes become U+FFFD), and each
 * string is cut at JLINE_MAX_STR bytes.  A line that would overflow is
 * replaced by an error line when emitted, never cut in the middle.
 */
#ifndef FLEETMARK_JLINE_H
#define FLEETMARK_JLINE_H

#include <stddef.h>

#include "wire.h"

#define JLINE_MAX_STR	8192
#define JLINE_MAX_DEPTH	8

struct jline {
	char	buf[WIRE_MAX_LINE];
	size_t	len;
	int	depth;
	int	first[JLINE_MAX_DEPTH];	/* no member written yet at this depth */
	char	closer[JLINE_MAX_DEPTH];	/* '}' or ']' for each open container */
	int	overflow;
};

/* Start a line: {"type":TYPE and, when id is not NULL, "id":ID. */
void	jl_begin(struct jline *j, const char *type, const char *id);

/* Members of the current object (key) or elements of the current array (key NULL). */
void	jl_str(struct jline *j, const char *key, const char *val);
void	jl_strn(struct jline *j, const char *key, const char *val, size_t n);
void	jl_num(struct jline *j, const char *key, double v);	/* NaN/inf: null */
void	jl_int(struct jline *j, const char *key, long long v);
void	jl_bool(struct jline *j, const char *key, int v);
void	jl_null(struct jline *j, const char *key);
void	jl_obj(struct jline *j, const char *key);	/* open a nested object */
void	jl_arr(struct jline *j, const char *key);	/* open a nested array */
void	jl_close(struct jline *j);			/* close the innermost one */

/*
 * Close every open object and write the line with its newline to fd in one
 * write where possible.  Returns 0, or -1 when the write failed.
 */
int	jl_emit(struct jline *j, int fd);

/* Write all of buf, retrying on EINTR and short writes; 0 or -1. */
int	write_all(int fd, const void *buf, size_t len);

#endif /* FLEETMARK_JLINE_H */
