/*
 * pctenc.h: percent-encoding (RFC 3986 section 2.1) with the set of
 * characters left as they are chosen by the caller, and decoding.
 *
 * ASCII letters and digits are always kept; `keep` names the other bytes
 * that are (PCT_UNRESERVED for RFC 3986's unreserved set, plus "/" for a
 * URL path).  Every other byte, NUL and bytes >= 0x80 included, becomes
 * %XX with uppercase hex, as RFC 3986 and AWS SigV4 want.
 *
 * Results are new NUL-terminated strings the caller frees; encoding does
 * not fail (allocation failure ends the process, see xmalloc.h).
 */
#ifndef FLEETMARK_PCTENC_H
#define FLEETMARK_PCTENC_H

#include <stddef.h>

struct strbuf;

/* RFC 3986 unreserved characters besides letters and digits. */
#define PCT_UNRESERVED	"-._~"

/* n bytes of s percent-encoded, keeping letters, digits and keep. */
char	*pct_encode(const void *s, size_t n, const char *keep);

/* The same, appended to sb. */
void	 pct_encode_sb(struct strbuf *sb, const void *s, size_t n, const char *keep);

/*
 * How many of the first bytes of s (n bytes) pct_encode() keeps as they
 * are: n when every byte is a letter, a digit or one of keep (the check of
 * a name or host made of those characters).
 */
size_t	 pct_kept_span(const void *s, size_t n, const char *keep);

#define PCT_STRICT	0x01	/* pct_decode(): a bad escape or %00 is an error */

/*
 * n bytes of s percent-decoded (hex digits of either case); *outlen (if
 * not NULL) gets the length, which a %00 can make differ from strlen().
 * A '%' not followed by two hex digits stays as it is, unless PCT_STRICT:
 * then it, and %00, make the result NULL.
 */
char	*pct_decode(const char *s, size_t n, int flags, size_t *outlen);

#endif /* FLEETMARK_PCTENC_H */
