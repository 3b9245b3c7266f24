/*
 * test-series: the series store (series.c): which lines go into a series
 * and which series, the params text, the running mean and spread, the
 * values with their repetitions, samples and notes, pooling in line
 * order, the caller's callback on every line, a missing file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "serieskey.h"
#include "strbuf.h"
#include "tap.h"
#include "trialread.h"

static const char *dir;

/* A trial line as the journal writes it. */
static void
line(FILE *f, const char *host, const char *variant, const char *params, int rep,
    const char *metric, const char *value, const char *status)
{
	fprintf(f, "{\"format\":1,\"run\":\"r\",\"host\":\"%s\",\"variant\":%s%s%s,"
	    "\"bench\":\"lat_pipe\",\"params\":{%s},\"rep\":%d,"
	    "\"key\":\"-/lat_pipe/%s/%d\",\"metric\":%s%s%s,\"unit\":\"us\","
	    "\"direction\":\"lower\",\"value\":%s,\"samples\":[1,2],\"notes\":[\"n%d\"],"
	    "\"status\":\"%s\"}\n", host, variant ? "\"" : "", variant ? variant : "null",
	    variant ? "\"" : "", params, rep, params[0] ? "p" : "-", rep,
	    metric ? "\"" : "", metric ? metric : "null", metric ? "\"" : "", value, rep,
	    status);
}

static char *
write_trials(void)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/trials.jsonl", dir);
	f = fopen(path, "w");
	line(f, "h1", NULL, "\"size\":\"512\",\"n\":2", 1, "usecs", "6", "ok");
	line(f, "h2", NULL, "\"size\":\"512\",\"n\":2", 1, "usecs", "9", "ok");
	line(f, "h1", NULL, "\"size\":\"512\",\"n\":2", 2, "usecs", "8", "ok");
	line(f, "h1", "fast", "\"size\":\"512\",\"n\":2", 1, "usecs", "1", "ok");
	line(f, "h1", NULL, "\"size\":\"512\",\"n\":2", 3, "usecs", "7", "timeout");
	line(f, "h1", NULL, "\"size\":\"512\",\"n\":2", 3, NULL, "7", "ok");
	line(f, "h1", NULL, "\"size\":\"512\",\"n\":2", 3, "usecs", "1e999", "ok");
	line(f, "h1", NULL, "", 1, "usecs", "3", "ok");
	line(f, "h1", NULL, "\"size\":\"512\",\"n\":2", 3, "usecs", "10", "ok");
	fclose(f);
	return path;
}

static int
count_line(const struct trial_line *l, void *arg)
{
	(void)l;
	(*(int *)arg)++;
	return 0;
}

static int
host_h1(const struct series *s, void *arg)
{
	(void)arg;
	return strcmp(s->key.host, "h1") == 0;
}

static void
test_read(void)
{
	struct series_store *st = series_store_new(SERIES_VALUES);
	struct series_key k = { "h1", NULL, "lat_pipe", "size=512,n=2", "usecs", NULL };
	const struct series *s;
	char *path = write_trials(), *err = NULL;
	double *pool = NULL;
	size_t n;
	int lines = 0;

	ok(series_store_read(st, path, TRIAL_REP | TRIAL_KEY, count_line, &lines, NULL,
	    &err) == 0, "read: the file reads");
	/* 1e999 is out of range: not a trial line, so not handed out */
	is_int(lines, 8, "read: the callback sees every trial line, taken or not");
	is_int(series_store_n(st), 4, "read: four series (host, variant, params apart)");
	s = series_store_at(st, 0);
	is_str(s->key.host, "h1", "order: the first seen first");
	is_str(s->key.params, "size=512,n=2", "params: k=v in the line's order");
	is_str(s->key.unit, "us", "the unit of the first line");
	is_str(s->point, "lat_pipe/p", "point: the trial key's middle");
	ok(s->nparams == 2 && strcmp(s->pkeys[1], "n") == 0 && strcmp(s->pvals[1], "2") == 0,
	    "params: the names and values kept");
	is_int(s->n, 3, "not ok, no metric: not taken");
	ok(s->v[0] == 6 && s->v[1] == 8 && s->v[2] == 10, "values: in line order");
	ok(s->rep[0] == 1 && s->rep[2] == 3, "values: with their repetitions");
	is_num(s->mean, 8, 1e-12, "mean");
	is_num(series_sd(s), 2, 1e-12, "sd");
	ok(!s->higher, "direction: lower");
	ok(series_store_find(st, &k) == s, "find: by key");
	k.variant = "fast";
	s = series_store_find(st, &k);
	ok(s != NULL && s->n == 1 && isnan(series_sd(s)), "find: a variant is its own "
	    "series; one value has no sd");
	k.variant = NULL;
	k.params = "";
	s = series_store_find(st, &k);
	ok(s != NULL && s->v[0] == 3 && s->nparams == 0, "find: no params is \"\"");
	k.host = "h3";
	ok(series_store_find(st, &k) == NULL, "find: a key not there");
	n = series_store_pool(st, host_h1, NULL, &pool);
	ok(n == 5 && pool[0] == 6 && pool[1] == 8 && pool[2] == 1 && pool[3] == 3 &&
	    pool[4] == 10, "pool: the matching series' values in line order");
	free(pool);
	series_store_free(st);

	st = series_store_new(0);
	ok(series_store_read(st, path, 0, NULL, NULL, NULL, &err) == 0 &&
	    series_store_n(st) == 4, "without values: the same series");
	s = series_store_at(st, 0);
	ok(s->v == NULL && s->n == 3 && s->mean == 8 && strcmp(s->point, "") == 0,
	    "without values: count and mean only, no point without TRIAL_KEY");
	is_int(series_store_pool(st, host_h1, NULL, &pool), 0, "pool: nothing without values");
	ok(pool == NULL, "pool: and no array");
	series_store_free(st);
	series_store_free(NULL);
}

static void
test_extra(void)
{
	struct series_store *st = series_store_new(SERIES_SAMPLES | SERIES_NOTES);
	const struct series *s;
	char *err = NULL;

	ok(series_store_read(st, write_trials(), TRIAL_REP, NULL, NULL, NULL, &err) == 0,
	    "extra: the file reads");
	s = series_store_at(st, 0);
	ok(s->v != NULL && s->x != NULL, "extra: values kept with samples and notes");
	ok(s->x[1].nsamples == 2 && s->x[1].samples[1] == 2, "extra: the samples");
	ok(s->x[1].nnotes == 1 && strcmp(s->x[1].notes[0], "n2") == 0, "extra: the notes");
	series_store_free(st);
}

static void
test_missing(void)
{
	struct series_store *st = series_store_new(SERIES_VALUES);
	char path[512], *err = NULL;

	snprintf(path, sizeof(path), "%s/none.jsonl", dir);
	ok(series_store_read(st, path, 0, NULL, NULL, NULL, &err) == 0 &&
	    series_store_n(st) == 0, "a missing file has no series");
	series_store_free(st);
}

static void
test_params_text(void)
{
	const char *k[] = { "a", "b" }, *v[] = { "1", NULL };
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "old");
	series_params_text(&sb, 2, k, v);
	is_str(sb.buf, "a=1,b=", "params text: k=v, a NULL value as \"\"");
	series_params_text(&sb, 0, k, v);
	is_str(sb.buf, "", "params text: none is \"\"");
	strbuf_release(&sb);
}

int
main(void)
{
	if ((dir = tap_tmpdir("test-series")) == NULL) {
		printf("Bail out! no temporary directory\n");
		return 1;
	}
	test_read();
	test_extra();
	test_missing();
	test_params_text();
	return tap_done();
}
