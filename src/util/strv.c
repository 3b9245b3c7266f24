/*
 * strv.c: vectors of malloc'd strings, bare or growing (strv.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "xmalloc.h"

void
strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

size_t
strv_find(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return i;
	return STRV_NONE;
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
strv_sort(char **v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp);
}

char **
strv_dup(const char *const *v, size_t n)
{
	char **o = xcalloc(n + 1, sizeof(*o));
	size_t i;

	for (i = 0; i < n; i++)
		o[i] = xstrdup_null(v[i]);
	return o;
}

/* Take s (malloc'd) as the last string. */
static void
append(struct strv *sv, char *s)
{
	xgrow(&sv->v, &sv->cap, sv->n + 2, sizeof(*sv->v));
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strv_push(struct strv *sv, const char *s)
{
	append(sv, xstrdup(s));
}

size_t
strv_push_unique(struct strv *sv, const char *s)
{
	size_t i = strv_find(sv->v, sv->n, s);

	if (i != STRV_NONE)
		return i;
	strv_push(sv, s);
	return sv->n - 1;
}

void
strv_pushf(struct strv *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void
strv_clear(struct strv *sv)
{
	strv_free(sv->v, sv->n);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
