/*
 * test-serieskey: the names of a series (serieskey.c): copies that own
 * their strings, the order of series, equal texts for equal keys only.
 */
#include <stdlib.h>
#include <string.h>

#include "serieskey.h"
#include "strbuf.h"
#include "tap.h"

static void
test_dup(void)
{
	char host[] = "h1", params[] = "n=2";
	struct series_key b = { host, NULL, "lat_ctx", params, "latency", NULL }, k;

	series_key_dup(&k, &b);
	host[0] = 'x';
	params[0] = 'x';
	is_str(k.host, "h1", "dup: the host is a copy");
	is_str(k.params, "n=2", "dup: the params are a copy");
	ok(k.variant == NULL, "dup: a NULL variant stays NULL");
	is_str(k.unit, "", "dup: a NULL unit becomes \"\"");
	series_key_release(&k);
	ok(k.host == NULL && k.unit == NULL, "release: the key is zeroed");
	series_key_release(&k);
	ok(1, "release: twice is fine");

	b.params = NULL;
	b.variant = "fast";
	b.unit = "us";
	series_key_dup(&k, &b);
	is_str(k.params, "", "dup: NULL params become \"\"");
	is_str(k.variant, "fast", "dup: the variant");
	is_str(k.unit, "us", "dup: the unit");
	series_key_release(&k);
}

static void
test_cmp(void)
{
	struct series_key a = { "h", NULL, "lat_ctx", "procs=2", "latency", "us" };
	struct series_key b = a;

	is_int(series_key_cmp(&a, &b), 0, "cmp: equal keys");
	b.unit = "ns";
	is_int(series_key_cmp(&a, &b), 0, "cmp: the unit is not compared");
	b.params = "procs=16";
	ok(series_key_cmp(&a, &b) < 0 && series_key_cmp(&b, &a) > 0,
	    "cmp: params in version order (procs=2 before procs=16)");
	b = a;
	b.host = "h10";
	a.host = "h9";
	ok(series_key_cmp(&a, &b) < 0, "cmp: hosts in version order (h9 before h10)");
	b = a;
	b.bench = "bw_pipe";
	ok(series_key_cmp(&b, &a) < 0, "cmp: bench first (bw_pipe before lat_ctx)");
	b = a;
	b.variant = "fast";
	ok(series_key_cmp(&a, &b) < 0 && series_key_cmp(&b, &a) > 0,
	    "cmp: no variant before a variant");
	a.variant = "slow";
	ok(series_key_cmp(&b, &a) < 0, "cmp: variants by name");
	b = a;
	b.metric = "bandwidth";
	ok(series_key_cmp(&b, &a) < 0, "cmp: metric after params");
}

static void
test_text(void)
{
	struct series_key a = { "h", NULL, "b", "", "m", "" }, b = a;
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;

	series_key_text(&a, &x);
	series_key_text(&b, &y);
	is_str(x.buf, y.buf, "text: equal keys, equal texts");
	b.unit = "us";
	series_key_text(&b, &y);
	is_str(x.buf, y.buf, "text: the unit is not in it");
	b.variant = "";
	series_key_text(&b, &y);
	ok(strcmp(x.buf, y.buf) != 0, "text: no variant is not an empty variant");
	/* the parts cannot run into each other */
	a = (struct series_key){ "h", NULL, "ab", "", "m", "" };
	b = (struct series_key){ "h", NULL, "a", "b", "m", "" };
	series_key_text(&a, &x);
	series_key_text(&b, &y);
	ok(strcmp(x.buf, y.buf) != 0, "text: bench \"ab\" is not bench \"a\" with params \"b\"");
	strbuf_release(&x);
	strbuf_release(&y);
}

int
main(void)
{
	test_dup();
	test_cmp();
	test_text();
	return tap_done();
}
