/*
 * test-strmap: the map of strings to indices (strmap.c): lookups of keys
 * there and not, replacing, adding once, growth past many tables, every
 * key visited once, keys made of parts, and a map released twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "tap.h"

static void
test_basic(void)
{
	struct strmap m = STRMAP_INIT;
	char key[] = "lab-01";

	ok(strmap_get(&m, "x") == STRMAP_NONE, "get: an empty map has nothing");
	strmap_put(&m, key, 7);
	key[0] = 'X';
	is_int(strmap_get(&m, "lab-01"), 7, "put: the key is a copy");
	ok(strmap_get(&m, "Xab-01") == STRMAP_NONE, "get: a key not put");
	ok(strmap_get(&m, "") == STRMAP_NONE, "get: the empty key, not put");
	strmap_put(&m, "lab-01", 9);
	is_int(strmap_get(&m, "lab-01"), 9, "put: replaces the value");
	is_int(m.n, 1, "put: replacing adds no key");
	is_int(strmap_add(&m, "lab-01", 3), 9, "add: an old key keeps its value");
	is_int(strmap_add(&m, "lab-02", 3), 3, "add: a new key takes the value");
	is_int(strmap_get(&m, "lab-02"), 3, "add: and has it");
	strmap_put(&m, "", 0);
	is_int(strmap_get(&m, ""), 0, "the empty string is a key like any");
	is_int(m.n, 3, "three keys");
	strmap_release(&m);
	ok(m.n == 0 && m.size == 0 && strmap_get(&m, "lab-01") == STRMAP_NONE,
	    "release: empty again");
	strmap_release(&m);
	strmap_release(NULL);
	ok(1, "release: twice, and NULL, are fine");
}

static void
test_growth(void)
{
	struct strmap m = STRMAP_INIT;
	enum { N = 20000 };
	unsigned char *seen = calloc(N, 1);
	char k[32];
	const char *key;
	size_t i, it = 0, v, bad = 0, visits = 0;

	for (i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "host-%zu\x1fmetric", i);
		strmap_put(&m, k, i);
	}
	is_int(m.n, N, "growth: every key held");
	ok(m.size >= 2 * N, "growth: at most half the slots taken");
	for (i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "host-%zu\x1fmetric", i);
		bad += strmap_get(&m, k) != i;
	}
	is_int(bad, 0, "growth: every key finds its value after the tables grew");
	while (strmap_next(&m, &it, &key, &v)) {
		visits++;
		snprintf(k, sizeof(k), "host-%zu\x1fmetric", v);
		if (v >= N || seen[v]++ || strcmp(k, key) != 0)
			bad++;
	}
	ok(visits == N && bad == 0, "next: every key once, with its value");
	it = 0;
	ok(strmap_next(&m, &it, &key, NULL), "next: the value may be left out");
	strmap_release(&m);
	it = 0;
	ok(!strmap_next(&m, &it, &key, &v), "next: an empty map has no key");
	free(seen);
}

static void
test_parts(void)
{
	struct strmap m = STRMAP_INIT;
	const char *a[] = { "lat_pipe", "size=1", "usecs" }, *b[] = { "lat_pipe", "size=1",
	    "usecs" }, *c[] = { "lat_pipe", "size=1\x1fusecs", "" },
	    *d[] = { "lat_pipe", "", "size=1usecs" }, *e[] = { "lat_pipe" };
	char buf[32];
	const char *k;
	size_t i, it = 0, bad = 0;

	is_int(strmap_addv(&m, a, 3, 0), 0, "parts: a new key takes the value");
	is_int(strmap_addv(&m, b, 3, 1), 0, "parts: equal parts are the same key");
	is_int(strmap_addv(&m, c, 3, 2), 2, "parts: a separator byte inside a part is no part "
	    "boundary");
	is_int(strmap_addv(&m, d, 3, 3), 3, "parts: nor is a move of bytes between parts");
	is_int(strmap_addv(&m, a, 2, 4), 4, "parts: fewer parts, another key");
	is_int(strmap_addv(&m, e, 1, 5), 5, "parts: one part");
	is_int(strmap_get(&m, "lat_pipe"), 5, "parts: one part is the string key");
	is_int(strmap_get(&m, "lat_pipe\x1fsize=1\x1fusecs"), STRMAP_NONE,
	    "parts: more are no string key");
	ok(strmap_next(&m, &it, &k, NULL) && strcmp(k, "lat_pipe") == 0,
	    "parts: next hands out the first part");
	for (i = 0; i < 3000; i++) {
		const char *p[3] = { "bench", buf, "metric" };

		snprintf(buf, sizeof(buf), "n=%zu", i);
		bad += strmap_addv(&m, p, 3, 100 + i) != 100 + i;
	}
	for (i = 0; i < 3000; i++) {
		const char *p[3] = { "bench", buf, "metric" };

		snprintf(buf, sizeof(buf), "n=%zu", i);
		bad += strmap_addv(&m, p, 3, 0) != 100 + i;
	}
	is_int(bad, 0, "parts: found again after the tables grew");
	is_int(strmap_addv(&m, a, 3, 9), 0, "parts: the first key too");
	strmap_release(&m);
}

static void
test_hash(void)
{
	/* FNV-1a's published values: the hash is not changed by accident */
	ok(strmap_hash("") == 0xcbf29ce484222325ULL, "hash: of \"\" is the offset basis");
	ok(strmap_hash("a") == 0xaf63dc4c8601ec8cULL, "hash: of \"a\"");
	ok(strmap_hash("foobar") == 0x85944171f73967e8ULL, "hash: of \"foobar\"");
}

int
main(void)
{
	test_basic();
	test_growth();
	test_parts();
	test_hash();
	return tap_done();
}
