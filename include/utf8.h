/*
 * utf8.h: UTF-8 as the controller meets it in text from hosts, plans and
 * files: sequence lengths, validity, controls, and the width text takes in
 * a terminal or a table.
 *
 * Valid means RFC 3629: no overlong forms, no surrogates (U+D800..DFFF),
 * nothing above U+10FFFF.  Widths count code points: every code point
 * takes one column (no double-width or combining characters), which is
 * what the tables and the progress lines assume for alignment.  Nothing
 * here allocates but the escaping, into a strbuf.
 */
#ifndef FLEETMARK_UTF8_H
#define FLEETMARK_UTF8_H

#include <stddef.h>
#include <stdio.h>

struct strbuf;

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

/*
 * Text from outside (a run directory, an archive, a host, an agent, the
 * command line) made safe for a terminal: every control (C0, DEL, C1)
 * and every byte that is not valid UTF-8 becomes "\xNN", so no escape
 * sequence, bell or carriage return of theirs reaches the screen.  keep
 * spares tabs and newlines where they are the text's own layout (a
 * report's lines), never in one cell or one message.  This is the one
 * escaper: log.c runs every message through it, and the text, Markdown
 * and CSV reports their cells and their whole output.
 */
#define UTF8_KEEP_TAB	0x1
#define UTF8_KEEP_NL	0x2

/* Append the n bytes at s to sb, escaped. */
void	utf8_escape(struct strbuf *sb, const void *s, size_t n, unsigned int keep);

/* The NUL-terminated s escaped: a new string (s itself when there is
 * nothing to escape is not promised: always free the result). */
char	*utf8_escaped(const char *s, unsigned int keep);

/* Write the n bytes at s to out, escaped: 0, or EOF when writing failed. */
int	utf8_fwrite_escaped(FILE *out, const void *s, size_t n, unsigned int keep);

/*
 * A renderer's whole output escaped: fn(arg, mem) writes into memory,
 * and what it wrote goes to out escaped.  fn's return (negative: nothing
 * is written), or -1 when the memory or out could not be written.
 */
int	utf8_render_escaped(FILE *out, unsigned int keep,
	    int (*fn)(void *arg, FILE *mem), void *arg);

#endif /* FLEETMARK_UTF8_H */
