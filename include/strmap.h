/*
 * strmap.h: a map of strings to indices, for the tables that find a
 * series, a cell or a trial by its name while a journal is read: FNV-1a,
 * open addressing with linear probing, grown to twice its size when half
 * full, so a lookup is a hash and about one strcmp().
 *
 *	struct strmap m = STRMAP_INIT;
 *
 *	if ((i = strmap_get(&m, name)) == STRMAP_NONE)
 *		strmap_put(&m, name, i = n++);
 *	...
 *	strmap_release(&m);
 *
 * The map owns copies of its keys; a value is any size_t but STRMAP_NONE,
 * which is what a lookup of a key not there returns.  `n` (keys held) may
 * be read directly; the other members are the map's.  The order of
 * strmap_next() is the slots', not the order keys were put in.
 */
#ifndef FLEETMARK_STRMAP_H
#define FLEETMARK_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#define STRMAP_NONE	((size_t)-1)	/* no such key */

struct strmap {
	char	**keys;		/* by slot; NULL: empty */
	size_t	 *lens;		/* each key's bytes (parts: with their NULs) */
	size_t	 *vals;
	size_t	  size;		/* slots: 0 or a power of two */
	size_t	  n;		/* keys held */
};

#define STRMAP_INIT	{ NULL, NULL, NULL, 0, 0 }

/* The 64-bit FNV-1a hash of s, the map's. */
uint64_t strmap_hash(const char *s);

/* The value of k, or STRMAP_NONE. */
size_t	strmap_get(const struct strmap *m, const char *k);

/* Map k (copied when new) to v, replacing what it mapped to. */
void	strmap_put(struct strmap *m, const char *k, size_t v);

/*
 * The value of k; when k is not there, map it (copied) to v first and
 * return v.  One lookup where strmap_get() then strmap_put() take two.
 */
size_t	strmap_add(struct strmap *m, const char *k, size_t v);

/*
 * strmap_add() for a key made of n parts (n >= 1): the strings joined by
 * NUL bytes, which no part can hold, so that two lists of parts are one
 * key exactly when they are equal part by part, and a lookup needs no
 * buffer to join them in (a report's cell: bench, params, metric, a
 * million times).  A key of two parts or more is never a string key (a
 * string holds no NUL); strmap_next() hands it out as its first part.
 */
size_t	strmap_addv(struct strmap *m, const char *const *parts, size_t n, size_t v);

/*
 * The keys one by one: start with *iter 0; each call that returns 1 sets
 * *key (borrowed: valid while the map is not changed) and, when val is not
 * NULL, *val; 0 after the last.
 *
 *	size_t it = 0, v;
 *	const char *k;
 *
 *	while (strmap_next(&m, &it, &k, &v))
 *		use(k, v);
 */
int	strmap_next(const struct strmap *m, size_t *iter, const char **key, size_t *val);

/* Free the keys and the slots; the map is empty again.  NULL is fine. */
void	strmap_release(struct strmap *m);

#endif /* FLEETMARK_STRMAP_H */
