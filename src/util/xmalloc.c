/*
 * xmalloc.c: allocation wrappers that die on out-of-memory (the one place
 * outside main.c and cmd-*.c allowed to end the process).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmalloc.h"

static void __attribute__((noreturn))
oom(size_t n)
{
	/* No stdio: it may want memory itself. */
	char msg[96];
	int len = snprintf(msg, sizeof(msg), "fleetmark: out of memory (%zu bytes)\n", n);

	if (len > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)len);
	_exit(1);
}

void *
xmalloc(size_t size)
{
	void *p;

	if (size == 0)
		size = 1;
	if ((p = malloc(size)) == NULL)
		oom(size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if ((p = calloc(nmemb, size)) == NULL)
		oom(nmemb * size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	if (nmemb * size == 0)
		nmemb = size = 1;
	if ((p = realloc(ptr, nmemb * size)) == NULL)
		oom(nmemb * size);
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrdup_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		oom(strlen(fmt));
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

int
err_set(char **err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*err = xvasprintf(fmt, ap);
	va_end(ap);
	return code;
}

void
free_secret(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void
xgrow(void *arrp, size_t *cap, size_t need, size_t size)
{
	void **arr = arrp;
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			oom(SIZE_MAX);
		n *= 2;
	}
	*arr = xreallocarray(*arr, n, size);
	*cap = n;
}
