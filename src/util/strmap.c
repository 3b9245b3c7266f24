/*
 * strmap.c: a map of strings to indices (strmap.h).
 *
 * A key is kept with its length, so that a key of parts (strmap_addv())
 * can hold NULs between them; a string key is its bytes without the NUL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "xmalloc.h"

#define FIRST_SIZE	64	/* slots of a map's first table */
#define FNV_BASIS	14695981039346656037ULL
#define FNV_PRIME	1099511628211ULL

uint64_t
strmap_hash(const char *s)
{
	uint64_t h = FNV_BASIS;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= FNV_PRIME;
	}
	return h;
}

/* The hash of the n bytes at p. */
static uint64_t
hash_bytes(const char *p, size_t n)
{
	uint64_t h = FNV_BASIS;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= FNV_PRIME;
	}
	return h;
}

/* The slot of the len bytes at k: where they are, or the empty one where they would go. */
static size_t
slot(const struct strmap *m, const char *k, size_t len, uint64_t h)
{
	size_t i = (size_t)h & (m->size - 1);

	while (m->keys[i] != NULL && (m->lens[i] != len || memcmp(m->keys[i], k, len) != 0))
		i = (i + 1) & (m->size - 1);
	return i;
}

size_t
strmap_get(const struct strmap *m, const char *k)
{
	size_t i, len;

	if (m->size == 0)
		return STRMAP_NONE;
	len = strlen(k);
	i = slot(m, k, len, hash_bytes(k, len));
	return m->keys[i] != NULL ? m->vals[i] : STRMAP_NONE;
}

/* Room for one more key: at most half the slots taken, so probes stay short. */
static void
grow(struct strmap *m)
{
	struct strmap g = { NULL, NULL, NULL, m->size ? m->size * 2 : FIRST_SIZE, m->n };
	size_t i, j;

	g.keys = xcalloc(g.size, sizeof(*g.keys));
	g.lens = xcalloc(g.size, sizeof(*g.lens));
	g.vals = xcalloc(g.size, sizeof(*g.vals));
	for (i = 0; i < m->size; i++)
		if (m->keys[i] != NULL) {
			j = slot(&g, m->keys[i], m->lens[i], hash_bytes(m->keys[i], m->lens[i]));
			g.keys[j] = m->keys[i];
			g.lens[j] = m->lens[i];
			g.vals[j] = m->vals[i];
		}
	free(m->keys);
	free(m->lens);
	free(m->vals);
	*m = g;
}

/* Slot i (empty) given the len bytes at k (copied, a NUL after them) and v. */
static void
take(struct strmap *m, size_t i, const char *k, size_t len, size_t v)
{
	m->keys[i] = xmalloc(len + 1);
	memcpy(m->keys[i], k, len);
	m->keys[i][len] = '\0';
	m->lens[i] = len;
	m->vals[i] = v;
	m->n++;
}

/* The slot of string key k, taken for it with value v when it is new. */
static size_t
slot_add(struct strmap *m, const char *k, size_t v)
{
	size_t i, len = strlen(k);

	if ((m->n + 1) * 2 > m->size)
		grow(m);
	i = slot(m, k, len, hash_bytes(k, len));
	if (m->keys[i] == NULL)
		take(m, i, k, len, v);
	return i;
}

size_t
strmap_add(struct strmap *m, const char *k, size_t v)
{
	size_t i = slot_add(m, k, v);	/* first: it may move vals */

	return m->vals[i];
}

void
strmap_put(struct strmap *m, const char *k, size_t v)
{
	size_t i = slot_add(m, k, v);	/* first: it may move vals */

	m->vals[i] = v;
}

/* Whether the len bytes at key are the n parts joined by NULs. */
static int
parts_equal(const char *key, size_t len, const char *const *parts, const size_t *plen,
    size_t n)
{
	size_t j, off = 0;

	for (j = 0; j < n; j++) {
		if (off + plen[j] > len || memcmp(key + off, parts[j], plen[j]) != 0)
			return 0;
		off += plen[j];
		if (j + 1 < n && (off >= len || key[off++] != '\0'))
			return 0;
	}
	return off == len;
}

size_t
strmap_addv(struct strmap *m, const char *const *parts, size_t n, size_t v)
{
	size_t plen[8], *pl = n <= 8 ? plen : xcalloc(n, sizeof(*pl));
	uint64_t h = FNV_BASIS;
	size_t i, j, len = 0;
	const char *p;
	char *k;

	/* the hash of the joined bytes, and the parts' lengths, in one pass */
	for (j = 0; j < n; j++) {
		if (j > 0)
			h *= FNV_PRIME;		/* the NUL between: h ^= 0 */
		for (p = parts[j]; *p; p++) {
			h ^= (unsigned char)*p;
			h *= FNV_PRIME;
		}
		pl[j] = (size_t)(p - parts[j]);
		len += pl[j] + (j > 0);
	}
	if ((m->n + 1) * 2 > m->size)
		grow(m);
	for (i = (size_t)h & (m->size - 1); m->keys[i] != NULL; i = (i + 1) & (m->size - 1))
		if (m->lens[i] == len && parts_equal(m->keys[i], len, parts, pl, n)) {
			v = m->vals[i];
			goto out;
		}
	k = xmalloc(len + 1);
	for (j = 0, len = 0; j < n; j++) {
		if (j > 0)
			k[len++] = '\0';
		memcpy(k + len, parts[j], pl[j]);
		len += pl[j];
	}
	k[len] = '\0';
	m->keys[i] = k;
	m->lens[i] = len;
	m->vals[i] = v;
	m->n++;
 out:
	if (pl != plen)
		free(pl);
	return v;
}

int
strmap_next(const struct strmap *m, size_t *iter, const char **key, size_t *val)
{
	for (; *iter < m->size; (*iter)++)
		if (m->keys[*iter] != NULL) {
			*key = m->keys[*iter];
			if (val != NULL)
				*val = m->vals[*iter];
			(*iter)++;
			return 1;
		}
	return 0;
}

void
strmap_release(struct strmap *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->size; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->lens);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
