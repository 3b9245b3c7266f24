/*
 * strv.h: vectors of malloc'd strings (after git's strvec).
 *
 * Two forms share these functions.  A bare vector is a `char **v` with
 * its count kept beside it, as structs hold them (a host's labels, a plan
 * point's keys, an S3 listing's keys): strv_free(), strv_find() and
 * strv_sort() take the array and the count.  A struct strv is a vector
 * built by appending; it stays NULL-terminated (v[n] == NULL once anything
 * was added), so sv.v can be handed to execv() as an argv.
 *
 *	struct strv av = STRV_INIT;
 *
 *	strv_push(&av, "ssh");
 *	strv_pushf(&av, "-p%d", port);
 *	run(av.v);
 *	strv_clear(&av);
 *
 * Ownership: a vector owns each of its strings and the array; freeing it
 * frees both.  NULL entries are allowed in a bare vector (an open-addressing
 * table) and are skipped by strv_free().  Allocation failure ends the
 * process (xmalloc.h).
 */
#ifndef FLEETMARK_STRV_H
#define FLEETMARK_STRV_H

#include <stddef.h>

/* What strv_find() returns for a string that is not there. */
#define STRV_NONE	((size_t)-1)

/* Free v[0..n-1] and v; v may be NULL (n is then ignored). */
void	 strv_free(char **v, size_t n);

/* The index of the first string equal to s in v[0..n-1], or STRV_NONE. */
size_t	 strv_find(char *const *v, size_t n, const char *s);

/* Sort v[0..n-1] in strcmp() order (n may be 0 with v NULL). */
void	 strv_sort(char **v, size_t n);

/* A copy of v[0..n-1] (NULL entries stay NULL), NULL-terminated. */
char	**strv_dup(const char *const *v, size_t n);

struct strv {
	char	**v;		/* n strings and a NULL; NULL before the first push */
	size_t	  n;
	size_t	  cap;
};

#define STRV_INIT	{ NULL, 0, 0 }

/* Append a copy of s. */
void	 strv_push(struct strv *sv, const char *s);

/*
 * Append a copy of s unless the vector holds it already; its index either
 * way.  A linear search: for the short lists of distinct names (a table's
 * parameters, a cell's notes) built in order of first appearance.
 */
size_t	 strv_push_unique(struct strv *sv, const char *s);

/* Append a formatted string. */
void	 strv_pushf(struct strv *sv, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Free the strings and the array; the vector is empty again (STRV_INIT). */
void	 strv_clear(struct strv *sv);

#endif /* FLEETMARK_STRV_H */
