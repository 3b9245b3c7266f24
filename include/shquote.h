/*
 * shquote.h: quoting for POSIX sh, so that no value from a plan or an
 * inventory reaches a remote shell as anything but one literal word.
 *
 * An SSH exec request carries one string that the remote login shell runs
 * with `sh -c`; the local transport does the same with /bin/sh.  Every
 * command line fleetmark sends is built here: values are quoted with
 * sh_quote() (or %q of sh_format()), and only fixed text written in
 * fleetmark's own source goes in unquoted.
 *
 * Quoting is POSIX single-quoting: the value goes between single quotes,
 * and each single quote in it becomes '\'' (close, escaped quote, reopen).
 * Inside single quotes sh interprets nothing: not $, `, \, ;, newlines,
 * globs, nor bytes that are not UTF-8.  A value made only of characters
 * that are never special (letters, digits and "_-./:@%+,") is left bare
 * for readability; the empty string becomes ''.  C strings cannot carry
 * NUL, so every value can be quoted.
 *
 * The remote login shell must be a POSIX sh (sh, bash, dash, ksh, zsh,
 * busybox ash); csh and fish quote differently.
 *
 * Every function returns a new string the caller frees; they do not fail
 * (allocation failure ends the process, see xmalloc.h).
 */
#ifndef FLEETMARK_SHQUOTE_H
#define FLEETMARK_SHQUOTE_H

#include <stddef.h>

/* s as one sh word. */
char	*sh_quote(const char *s);

/* Append s as one sh word to the NUL-terminated *buf (reallocated). */
void	 sh_quote_append(char **buf, const char *s);

/*
 * argv[0..argc-1] (argc < 0: up to a NULL entry) as one command line:
 * each word quoted, separated by single spaces.  An empty list gives "".
 */
char	*sh_join(const char *const *argv, int argc);

/*
 * A command line from a format in which:
 *	%q	a const char * value, quoted (NULL is an error: aborts)
 *	%s	a const char * inserted as is: only for fixed text from
 *		fleetmark's source, never for a value
 *	%d %u %o %x %lld %llu %zu	integers (they need no quoting)
 *	%%	a percent sign
 * Any other conversion aborts (a programming error).
 */
char	*sh_format(const char *fmt, ...);

/* Whether s would be left bare by sh_quote() (non-empty, no special byte). */
int	 sh_is_plain(const char *s);

#endif /* FLEETMARK_SHQUOTE_H */
