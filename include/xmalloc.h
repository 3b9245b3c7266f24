/*
 * xmalloc.h: allocation wrappers that never return NULL.
 *
 * On out-of-memory they print a message and exit: there is nothing useful
 * a controller can do without memory (OpenSSH's xmalloc.c).  Everything
 * they return is released with free().
 */
#ifndef FLEETMARK_XMALLOC_H
#define FLEETMARK_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t size);
void	*xcalloc(size_t nmemb, size_t size);
/* realloc(ptr, nmemb * size), refusing a product that overflows. */
void	*xreallocarray(void *ptr, size_t nmemb, size_t size);
char	*xstrdup(const char *s);
/* xstrdup(s), or NULL when s is NULL: for copying optional strings. */
char	*xstrdup_null(const char *s);
/* A copy of the first n bytes of s, NUL-terminated. */
char	*xstrndup(const char *s, size_t n);
/* A newly allocated formatted string. */
char	*xasprintf(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));
/* The same with a va_list, for functions that take a format themselves. */
char	*xvasprintf(const char *fmt, va_list ap)
	    __attribute__((format(printf, 1, 0)));

/*
 * The error convention (docs/internals.md, "Errors"): *err = a newly
 * allocated formatted message for the caller to free, and code returned,
 * so that a failure reads `return err_set(err, -1, "cannot open %s", p)`.
 */
int	 err_set(char **err, int code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/*
 * Overwrite the secret string s (a password, a key) with zeros that the
 * compiler may not optimise away, then free it; NULL is fine.  For every
 * secret the controller holds, so that none outlives its use in memory.
 */
void	 free_secret(char *s);

/*
 * Grow *arr (of *cap elements of size each) so that it holds at least
 * `need` elements; capacity doubles.  For arrays built by appending.
 */
void	 xgrow(void *arrp, size_t *cap, size_t need, size_t size);

#endif /* FLEETMARK_XMALLOC_H */
