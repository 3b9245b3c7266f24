/*
 * utf8.h: UTF-8 as the controller meets it in text from hosts, plans and
 * files: sequence lengths, validity, controls, and the width text takes in
 * a terminal or a table.
 *
 * Valid means RFC 3629: no overlong forms, no surrogates (U+D800..DFFF),
 * nothing above U+10FFFF.  Widths count code points: every code point
 * takes one column (no double-width or combining characters), which is
 * what the tables and the progress lines assume for alignment.  Nothing
 * here allocates.
 */
#ifndef FLEETMARK_UTF8_H
#define FLEETMARK_UTF8_H

#include <stddef.h>

/*
 * The length (1 to 4) of the valid UTF-8 sequence at s, of which n >= 1
 * bytes may be read, or 0 when it is not valid or cut short by n.
 */
size_t	utf8_seq(const void *s, size_t n);

/* Whether all n bytes at s are valid UTF-8. */
int	utf8_valid(const void *s, size_t n);

/*
 * Whether the valid sequence of k bytes at s (k from utf8_seq()) is a
 * control: C0 (U+0000..001F, tab included), DEL, or C1 (U+0080..009F).
 */
int	utf8_is_control(const void *s, size_t k);

/* Columns of the NUL-terminated s: its bytes that do not continue a sequence. */
size_t	utf8_width(const char *s);

/* The same for the first n bytes of s. */
size_t	utf8_width_n(const char *s, size_t n);

/*
 * The longest prefix of s no longer than n bytes that does not cut a
 * sequence in two: n, or less when s[n] continues a sequence (s holds
 * more than n bytes).
 */
size_t	utf8_cut(const char *s, size_t n);

#endif /* FLEETMARK_UTF8_H */
