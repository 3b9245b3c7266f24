/*
 * test-history: `fleetmark history`'s reading (history.c) on run
 * directories written here under a temporary directory, every date in
 * 2001: the nights of a plan (finished runs only, in start order, a run id
 * once), the series (host, variant, bench, params, metric) with the mean,
 * sd and count of each night's ok trials and its label, the plan chosen or
 * refused, the filters, --since, the threshold, the change points found
 * in a step and not in an A/A series, the cache (a second load reads no
 * trials.jsonl; a changed or new run is read again; a corrupt cache file
 * is read past), run groups (a group's runs are one night, together
 * where its first run started; --group; a group left out; a host in two
 * runs of a group), and the json and csv renderings.
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "history.h"
#include "log.h"
#include "tap.h"
#include "xmalloc.h"

static const char *tmpdir;
static char *cache;

/* Normal noise from libc's seeded erand48() (the same numbers everywhere). */
static unsigned short seed48v[3] = { 1, 2, 3 };

static double
normal(void)
{
	double u = erand48(seed48v), v = erand48(seed48v);

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

/*
 * A run directory ROOT/ID of plan `plan` started on day `day` of January
 * 2001, with hosts "a" and "b" (kernels "k-a-DAY" and "k-b-DAY"), no
 * trials yet.  label NULL: none.  threshold < 0: none in the plan.
 */
static char *
mkrun(const char *root, const char *plan, int day, const char *status, const char *label,
    double threshold)
{
	char *dir, *p, *t, *id;

	id = xasprintf("200101%02d-023000-%s-%04x", day, plan, day);
	dir = xasprintf("%s/%s", root, id);
	if (mkdir(root, 0755) != 0 && errno != EEXIST) {
		printf("Bail out! mkdir %s\n", root);
		exit(1);
	}
	mkdir(dir, 0755);
	p = xasprintf("%s/run.json", dir);
	t = xasprintf("{\"format\": 1, \"run\": \"%s\", \"status\": \"%s\", \"label\": %s%s%s, "
	    "\"start\": \"2001-01-%02dT02:30:00Z\", \"end\": null, \"plan\": {\"name\": \"%s\", "
	    "\"regression\": {\"threshold\": %s, \"metrics\": []}}, \"hosts\": {"
	    "\"a\": {\"status\": \"done\", \"kernel\": \"k-a-%d\"}, "
	    "\"b\": {\"status\": \"done\", \"kernel\": \"k-b-%d\"}}}\n", id, status,
	    label ? "\"" : "", label ? label : "null", label ? "\"" : "", day, plan,
	    threshold >= 0 ? "7.5" : "null", day, day);
	tap_put(p, "w", t);
	free(p);
	free(t);
	p = xasprintf("%s/trials.jsonl", dir);
	tap_put(p, "w", "");
	free(p);
	free(id);
	return dir;
}

/* A trial line in dir's trials.jsonl; variant and params may be NULL. */
static void
trial(const char *dir, const char *host, const char *variant, const char *bench,
    const char *params, const char *metric, const char *direction, double value,
    const char *status)
{
	char *p = xasprintf("%s/trials.jsonl", dir), *t, *v = NULL;

	if (variant != NULL)
		v = xasprintf("\"%s\"", variant);
	t = xasprintf("{\"format\":1,\"run\":\"x\",\"host\":\"%s\",\"variant\":%s,\"bench\":"
	    "\"%s\",\"params\":{%s},\"rep\":1,\"key\":\"k\",\"metric\":\"%s\",\"unit\":\"ns\","
	    "\"direction\":\"%s\",\"value\":%.17g,\"samples\":[%.17g],\"start\":978316200.0,"
	    "\"duration\":1.0,\"status\":\"%s\",\"kind\":\"%s\",\"part\":1,\"parts\":1}\n",
	    host, v ? v : "null", bench, params ? params : "", metric, direction, value, value,
	    status, strcmp(status, "ok") == 0 ? "ok" : "benchmark");
	tap_put(p, "a", t);
	free(p);
	free(t);
	free(v);
}

static const struct history_series *
find(const struct history *h, const char *host, const char *variant, const char *bench,
    const char *params, const char *metric)
{
	size_t i;

	for (i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];

		if (strcmp(s->key.host, host) == 0 && strcmp(s->key.bench, bench) == 0 &&
		    strcmp(s->key.params, params) == 0 && strcmp(s->key.metric, metric) == 0 &&
		    ((variant == NULL && s->key.variant == NULL) ||
		    (variant != NULL && s->key.variant != NULL && strcmp(s->key.variant, variant) == 0)))
			return s;
	}
	return NULL;
}

/*
 * A run ROOT/ID of plan "g" on the one host `host`, started on day `day`
 * of January 2001 at 02:30:SEC, of run group `group` (NULL: none), with one
 * trial of lat (op=null) at value.
 */
static void
mkgrun(const char *root, int day, int sec, const char *host, const char *group, double value)
{
	char *id, *dir, *p, *t;

	id = xasprintf("200101%02d-0230%02d-g-%s%03d", day, sec, host, sec);
	dir = xasprintf("%s/%s", root, id);
	if ((mkdir(root, 0755) != 0 && errno != EEXIST) || mkdir(dir, 0755) != 0) {
		printf("Bail out! mkdir %s\n", dir);
		exit(1);
	}
	p = xasprintf("%s/run.json", dir);
	t = xasprintf("{\"format\": 1, \"run\": \"%s\", \"status\": \"finished\", "
	    "\"label\": null, \"group\": %s%s%s, \"start\": \"2001-01-%02dT02:30:%02dZ\", "
	    "\"plan\": {\"name\": \"g\"}, \"hosts\": {\"%s\": {\"status\": \"done\", "
	    "\"kernel\": \"k\"}}}\n", id, group ? "\"" : "", group ? group : "null",
	    group ? "\"" : "", day, sec, host);
	tap_put(p, "w", t);
	free(p);
	p = xasprintf("%s/trials.jsonl", dir);
	tap_put(p, "w", "");
	free(p);
	trial(dir, host, NULL, "lat", "\"op\":\"null\"", "us", "lower", value, "ok");
	free(t);
	free(dir);
	free(id);
}

static int
load(const char *src, const struct history_opts *o, struct history **h, char **err)
{
	struct history_opts d;

	if (o == NULL) {
		history_opts_init(&d);
		d.cache = cache;
		o = &d;
	}
	*err = NULL;
	*h = NULL;
	return history_load(src, o, h, err);
}

static char *render(const struct history *h, enum report_format f, int nights);

/* --- Series ------------------------------------------------------------------- */

static void
test_series(void)
{
	char *root = xasprintf("%s/series", tmpdir), *d1, *d2, *d3, *d4, *d5, *err;
	const struct history_series *s;
	struct history_opts o;
	struct history *h;
	int r;

	d2 = mkrun(root, "p", 2, "finished", NULL, -1);
	d1 = mkrun(root, "p", 1, "finished", NULL, -1);
	d3 = mkrun(root, "p", 3, "running", NULL, -1);
	d4 = mkrun(root, "q", 4, "finished", NULL, -1);
	d5 = mkrun(root, "p", 5, "finished", "with \\\"patch\\\", v2", 7.5);
	trial(d1, "a", NULL, "lat", "\"op\":\"null\"", "us", "lower", 1.0, "ok");
	trial(d1, "a", NULL, "lat", "\"op\":\"null\"", "us", "lower", 3.0, "ok");
	trial(d1, "a", NULL, "lat", "\"op\":\"null\"", "us", "lower", 99.0, "bench");
	trial(d1, "b", NULL, "lat", "\"op\":\"null\"", "us", "lower", 2.0, "ok");
	trial(d1, "a", NULL, "lat", "\"op\":\"read\"", "us", "lower", 5.0, "ok");
	trial(d1, "a", "never", "bw", NULL, "mb", "higher", 10.0, "ok");
	trial(d1, "a", "always", "bw", NULL, "mb", "higher", 20.0, "ok");
	trial(d2, "a", NULL, "lat", "\"op\":\"null\"", "us", "lower", 4.0, "ok");
	trial(d3, "a", NULL, "lat", "\"op\":\"null\"", "us", "lower", 50.0, "ok");
	trial(d4, "a", NULL, "lat", "\"op\":\"null\"", "us", "lower", 60.0, "ok");
	trial(d5, "b", NULL, "lat", "\"op\":\"null\"", "us", "lower", 6.0, "ok");

	r = load(root, NULL, &h, &err);
	is_int(r, HISTORY_EINPUT, "two plans and no --plan: refused as bad input");
	ok(err != NULL && strstr(err, "2 plans") != NULL && strstr(err, "p (3 runs)") &&
	    strstr(err, "q (1 run)") && strstr(err, "--plan"),
	    "... naming the plans with their finished runs, and --plan");
	if (err)
		printf("# %s\n", err);
	free(err);

	history_opts_init(&o);
	o.cache = "";
	o.plan = "p";
	r = load(root, &o, &h, &err);
	is_int(r, 0, "--plan p: loaded");
	if (r != 0) {
		printf("# %s\n", err);
		free(err);
		goto out;
	}
	is_str(h->plan, "p", "the plan");
	is_int(h->nruns, 3, "three nights: the finished runs of p (not the running one)");
	is_str(h->runs[0].start, "2001-01-01T02:30:00Z", "in the order of their start");
	is_str(h->runs[2].id, "20010105-023000-p-0005", "the last night");
	is_int(h->counts.listed, 5, "five runs looked at");
	is_int(h->counts.others, 2, "two of them not nights");
	is_num(h->threshold, 7.5, 0, "the threshold: the newest night's plan's");
	is_int(h->nseries, 5, "five series: (a, null), (a, read), (b, null), two variants");

	s = find(h, "a", NULL, "lat", "op=null", "us");
	ok(s != NULL, "series a lat op=null us");
	if (s != NULL) {
		is_int(s->n, 2, "... on two nights (no trial on day 5)");
		is_num(s->nights[0].value, 2.0, 1e-12, "... the mean of the ok trials only");
		is_num(s->nights[0].sd, sqrt(2.0), 1e-12, "... their sd");
		is_int(s->nights[0].n, 2, "... their count");
		is_num(s->nights[1].value, 4.0, 1e-12, "... the second night");
		ok(isnan(s->nights[1].sd), "... one trial: no sd");
		is_str(s->nights[0].label, "k-a-1", "... labelled with the host's kernel");
		is_int(s->higher, 0, "... lower is better");
		is_str(s->key.unit, "ns", "... its unit");
		is_int(s->nparams, 1, "... one parameter");
		is_str(s->pkeys[0], "op", "... its key");
		is_str(s->pvals[0], "null", "... and value");
		is_int(s->nsegments, 1, "... one segment (too short to split)");
		is_int(s->nchanges, 0, "... no change point");
	}
	s = find(h, "b", NULL, "lat", "op=null", "us");
	ok(s != NULL && s->n == 2 && strcmp(s->nights[1].label, "with \"patch\", v2") == 0,
	    "series b: the night of a labelled run carries the run's label");
	{
		char *t = render(h, REPORT_JSON, 0);
		json_error_t je;
		json_t *a = json_loads(t, 0, &je), *e;
		size_t i;
		int found = 0;

		json_array_foreach(a, i, e)
			found += json_is_string(json_object_get(e, "label")) &&
			    strcmp(json_string_value(json_object_get(e, "label")),
			    "with \"patch\", v2") == 0;
		ok(json_is_array(a) && found == 1, "json: a label with quotes and a comma, escaped");
		json_decref(a);
		free(t);
		t = render(h, REPORT_CSV, 0);
		ok(strstr(t, ",\"with \"\"patch\"\", v2\",") != NULL, "csv: the same label quoted");
		free(t);
	}
	s = find(h, "a", "always", "bw", "", "mb");
	ok(s != NULL && s->higher && s->n == 1 && s->nights[0].value == 20.0,
	    "a variant is a series of its own (higher is better)");
	ok(find(h, "a", "never", "bw", "", "mb") != NULL, "... and the other variant");
	ok(strcmp(h->series[0].key.bench, "bw") == 0 && strcmp(h->series[h->nseries - 1].key.params,
	    "op=read") == 0, "series sorted by bench, then params");
	history_free(h);

	/* the threshold: the newest night's plan, then the option */
	o.threshold = 12;
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->threshold == 12, "--threshold wins over the plan's");
	history_free(h);
	free(err);

	/* filters */
	o.threshold = -1;
	o.hosts = (const char *const[]){ "b" };
	o.nhosts = 1;
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->nseries == 1 && strcmp(h->series[0].key.host, "b") == 0,
	    "-H b: only host b's series");
	history_free(h);
	free(err);
	o.hosts = (const char *const[]){ "zz" };
	r = load(root, &o, &h, &err);
	is_int(r, HISTORY_EINPUT, "-H zz: bad input");
	ok(err && strstr(err, "no host 'zz'") && strstr(err, "(hosts: a, b)"),
	    "... naming the hosts there are");
	free(err);
	o.nhosts = 0;
	o.metric = "lat.us";
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->nseries == 3, "--metric lat.us: the three lat series");
	history_free(h);
	free(err);
	o.metric = "bw";
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->nseries == 2, "--metric bw: every metric of bench bw");
	history_free(h);
	free(err);
	o.metric = "lat.ms";
	r = load(root, &o, &h, &err);
	is_int(r, HISTORY_EINPUT, "--metric lat.ms: bad input");
	ok(err && strstr(err, "no metric 'lat.ms'") && strstr(err, "bw.mb, lat.us"),
	    "... naming the metrics there are");
	free(err);
	o.metric = NULL;

	/* --since */
	o.since = "2001-01-02";
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->nruns == 2, "--since 2001-01-02: two nights");
	history_free(h);
	free(err);
	o.since = "2001-01-05T02:30:01Z";
	r = load(root, &o, &h, &err);
	is_int(r, HISTORY_EINPUT, "--since after the last night: bad input");
	ok(err && strstr(err, "since 2001-01-05T02:30:01Z"), "... saying since when");
	free(err);
	o.since = "2001-02-30";
	r = load(root, &o, &h, &err);
	ok(r == HISTORY_EINPUT && err && strstr(err, "bad --since"), "a bad --since: bad input");
	free(err);
	o.since = NULL;

	o.plan = "nope";
	r = load(root, &o, &h, &err);
	is_int(r, HISTORY_EINPUT, "an unknown plan: bad input");
	ok(err && strstr(err, "no finished run of plan 'nope'") && strstr(err, "p (3 runs)"),
	    "... naming the plans there are");
	free(err);
 out:
	free(d1);
	free(d2);
	free(d3);
	free(d4);
	free(d5);
	free(root);
}

static void
test_bad_sources(void)
{
	char *root = xasprintf("%s/empty", tmpdir), *p, *err;
	struct history *h;
	int r;

	mkdir(root, 0755);
	r = load(root, NULL, &h, &err);
	ok(r == HISTORY_EINPUT && err && strstr(err, "no runs in"), "an empty directory: no runs");
	free(err);
	p = xasprintf("%s/nothing-here", tmpdir);
	r = load(p, NULL, &h, &err);
	ok(r == HISTORY_EINPUT && err && strstr(err, "cannot open"),
	    "a directory that is not there: bad input");
	free(err);
	free(p);
	p = mkrun(root, "p", 1, "interrupted", NULL, -1);
	r = load(p, NULL, &h, &err);
	ok(r == HISTORY_EINPUT && err && strstr(err, "is a run directory"),
	    "a run directory: bad input, pointing at its parent");
	free(err);
	r = load(root, NULL, &h, &err);
	ok(r == HISTORY_EINPUT && err && strstr(err, "no finished runs"),
	    "only an interrupted run: no finished runs");
	free(err);
	free(p);
	free(root);
	ok(history_since_valid("2001-12-31") && history_since_valid("2000-02-29") &&
	    history_since_valid("2001-01-01T23:59:60Z"), "--since: dates and times");
	ok(!history_since_valid("2001-02-29") && !history_since_valid("1900-02-29") &&
	    !history_since_valid("2001-1-01") && !history_since_valid("yesterday") &&
	    !history_since_valid("2001-01-01T24:00:00Z") && !history_since_valid("2001-01-01 "),
	    "--since: no 29 February 2001 or 1900, no short fields, no words");
}

/* --- Change points ------------------------------------------------------------- */

static void
test_changes(void)
{
	char *root = xasprintf("%s/steps", tmpdir), *d, *err;
	const struct history_series *s;
	struct history *h;
	int day, r, t;

	for (day = 1; day <= 24; day++) {
		d = mkrun(root, "p", day, "finished", NULL, -1);
		for (t = 0; t < 3; t++) {
			double night = 1 + 0.01 * normal();

			trial(d, "a", NULL, "lat", NULL, "us", "lower",
			    100 * night * (day >= 16 ? 1.10 : 1) * (1 + 0.003 * normal()), "ok");
			trial(d, "a", NULL, "bw", NULL, "mb", "higher",
			    50 * night * (day >= 18 ? 1.08 : 1) * (1 + 0.003 * normal()), "ok");
			trial(d, "b", NULL, "lat", NULL, "us", "lower",
			    100 * (1 + 0.01 * normal()) * (1 + 0.003 * normal()), "ok");
		}
		free(d);
	}
	r = load(root, NULL, &h, &err);
	is_int(r, 0, "24 nights: loaded");
	if (r != 0) {
		printf("# %s\n", err);
		free(err);
		free(root);
		return;
	}
	is_num(h->threshold, 5, 0, "no threshold anywhere: 5%");
	s = find(h, "a", NULL, "lat", "", "us");
	ok(s != NULL && s->nchanges == 1, "a +10% step: one change point");
	if (s != NULL && s->nchanges == 1) {
		is_int(s->changes[0].night, 15, "... on night 16 (index 15)");
		ok(s->changes[0].worse, "... worse: lower is better");
		is_num(s->changes[0].pct, 10, 2, "... of about +10%");
		ok(s->changes[0].p <= 0.05, "... with p <= 0.05");
		is_str(s->nights[s->changes[0].night].label, "k-a-16", "... the night after: k-a-16");
		is_int(s->nsegments, 2, "... two segments");
		is_int(s->segments[1].start, 15, "... the second from the change");
		is_int(s->segments[1].change, 0, "... starting with it");
		is_int(s->nights[20].segment, 1, "... night 21 in it");
		is_num(s->segments[0].mean, s->changes[0].before, 1e-9, "... the means agree");
	}
	s = find(h, "a", NULL, "bw", "", "mb");
	ok(s != NULL && s->nchanges == 1 && s->changes[0].night == 17 && !s->changes[0].worse,
	    "a +8% step of a higher-is-better metric on night 18: better");
	s = find(h, "b", NULL, "lat", "", "us");
	ok(s != NULL && s->nchanges == 0 && s->nsegments == 1, "an A/A series: no change point");
	is_int(h->nchanges, 2, "two change points in all");
	is_int(h->nworse, 1, "one worse");
	history_free(h);
	free(root);
}

/* --- The cache ---------------------------------------------------------------------- */

static size_t
files_in(const char *dir)
{
	char *cmd = xasprintf("ls -A '%s' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	size_t n = 0;

	if (p != NULL) {
		if (fscanf(p, "%zu", &n) != 1)
			n = 0;
		pclose(p);
	}
	free(cmd);
	return n;
}

/* Whether a and b have the same series, nights and values, exactly. */
static int
same(const struct history *a, const struct history *b)
{
	size_t i, k;

	if (a->nseries != b->nseries || a->nruns != b->nruns)
		return 0;
	for (i = 0; i < a->nseries; i++) {
		const struct history_series *x = &a->series[i], *y = &b->series[i];

		if (strcmp(x->key.params, y->key.params) != 0 || x->n != y->n || x->nchanges != y->nchanges)
			return 0;
		for (k = 0; k < x->n; k++)
			if (x->nights[k].value != y->nights[k].value || x->nights[k].n != y->nights[k].n ||
			    strcmp(x->nights[k].label, y->nights[k].label) != 0 ||
			    !(x->nights[k].sd == y->nights[k].sd || (isnan(x->nights[k].sd) &&
			    isnan(y->nights[k].sd))))
				return 0;
	}
	return 1;
}

static void
test_cache(void)
{
	char *root = xasprintf("%s/cached", tmpdir), *own = xasprintf("%s/cache2", tmpdir);
	char *dirs[8], *err, *p;
	struct history_opts o;
	struct history *h, *h1 = NULL, *h0 = NULL;
	int day, r;

	for (day = 1; day <= 8; day++) {
		dirs[day - 1] = mkrun(root, "p", day, day == 8 ? "running" : "finished", NULL, -1);
		trial(dirs[day - 1], "a", NULL, "lat", "\"n\":\"1\"", "us", "lower", 10 + day, "ok");
		trial(dirs[day - 1], "a", NULL, "lat", "\"n\":\"1\"", "us", "lower", 11 + day, "ok");
		trial(dirs[day - 1], "b", "v", "lat", "\"n\":\"1\"", "us", "lower", 0.1 * day, "ok");
	}
	free(mkrun(root, "q", 9, "finished", NULL, -1));
	history_opts_init(&o);
	o.cache = own;
	o.plan = "p";

	r = load(root, &o, &h1, &err);
	ok(r == 0 && h1->counts.read == 7 && h1->counts.cached == 0,
	    "first load: the 7 nights read from trials.jsonl");
	free(err);
	is_int(files_in(own), 9, "... a cache file for each run (other plans and running too)");
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->counts.read == 0 && h->counts.cached == 7,
	    "second load: no trials.jsonl read, all 7 from the cache");
	ok(r == 0 && same(h, h1), "... the same series, nights, values and labels");
	history_free(h);
	free(err);

	o.cache = "";
	r = load(root, &o, &h0, &err);
	ok(r == 0 && h0->counts.read == 7 && same(h0, h1), "without a cache: the same history");
	free(err);
	o.cache = own;

	/* a changed run: appended to (size), or rewritten (time) */
	trial(dirs[2], "a", NULL, "lat", "\"n\":\"1\"", "us", "lower", 100, "ok");
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->counts.read == 1 && h->counts.cached == 6,
	    "a trial appended to one run: that run read again, the others cached");
	ok(r == 0 && h->series[0].nights[2].n == 3 && fabs(h->series[0].nights[2].value -
	    (13 + 14 + 100) / 3.0) < 1e-9, "... its new trial counted");
	history_free(h);
	free(err);

	/* the running run finishes: run.json changes */
	p = xasprintf("%s/run.json", dirs[7]);
	{
		char *cmd = xasprintf("sed -i 's/\"running\"/\"finished\"/' '%s'", p);

		if (system(cmd) != 0)
			printf("# %s failed\n", cmd);
		free(cmd);
	}
	free(p);
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->nruns == 8 && h->counts.read == 1 && h->counts.cached == 7,
	    "the running run finished: 8 nights, it alone read");
	history_free(h);
	free(err);

	/* a new night */
	free(mkrun(root, "p", 10, "finished", NULL, -1));
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->nruns == 9 && h->counts.read == 1 && h->counts.cached == 8,
	    "a new night: it alone read");
	history_free(h);
	free(err);

	/* a corrupt cache file is no error: the run is read again */
	{
		char *cmd = xasprintf("for f in '%s'/*.jsonl; do printf 'garbage' >\"$f\"; done",
		    own);

		if (system(cmd) != 0)
			printf("# %s failed\n", cmd);
		free(cmd);
	}
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->counts.read == 9 && h->counts.cached == 0,
	    "every cache file corrupt: all read again, no error");
	history_free(h);
	free(err);
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->counts.cached == 9, "... and cached again");
	history_free(h);
	free(err);

	/* the cache directory cannot be made: a warning, then no cache */
	o.cache = "/proc/no-such-cache";
	log_set_level(LOG_LEVEL_QUIET);
	r = load(root, &o, &h, &err);
	log_set_level(LOG_LEVEL_INFO);
	ok(r == 0 && h->counts.read == 9, "a cache that cannot be made: read, no error");
	history_free(h);
	free(err);

	/* a copy of a run elsewhere in the directory: one night */
	{
		char *cmd = xasprintf("cp -r '%s' '%s/copy-of-day-1'", dirs[0], root);

		if (system(cmd) != 0)
			printf("# %s failed\n", cmd);
		free(cmd);
	}
	o.cache = own;
	log_set_level(LOG_LEVEL_QUIET);
	r = load(root, &o, &h, &err);
	log_set_level(LOG_LEVEL_INFO);
	ok(r == 0 && h->nruns == 9, "a copy of a run (the same run id) counts once");
	history_free(h);
	free(err);

	for (day = 0; day < 8; day++)
		free(dirs[day]);
	history_free(h0);
	history_free(h1);
	free(own);
	free(root);
}

/* --- Rendering ----------------------------------------------------------------- */

static char *
render(const struct history *h, enum report_format f, int nights)
{
	struct history_render_opts o = { f, nights };
	char *buf = NULL, *err = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (history_render(h, &o, out, &err) != 0)
		printf("# %s\n", err);
	free(err);
	fclose(out);
	return buf;
}

static void
test_render(void)
{
	char *root = xasprintf("%s/steps", tmpdir), *err, *s;
	struct history *h;
	json_error_t je;
	json_t *a, *o;
	size_t i, changes = 0;
	int r;

	r = load(root, NULL, &h, &err);
	if (r != 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	s = render(h, REPORT_JSON, 0);
	a = json_loads(s, 0, &je);
	ok(json_is_array(a) && json_array_size(a) == 3 * 24, "json: an object per (series, night)");
	json_array_foreach(a, i, o) {
		json_t *c = json_object_get(o, "change");

		if (json_is_object(c)) {
			changes++;
			if (strcmp(json_string_value(json_object_get(o, "bench")), "lat") == 0)
				ok(json_integer_value(json_object_get(o, "n")) == 3 &&
				    strcmp(json_string_value(json_object_get(c, "direction")), "worse") == 0 &&
				    json_number_value(json_object_get(c, "pct")) > 5 &&
				    json_number_value(json_object_get(c, "p")) <= 0.05 &&
				    strcmp(json_string_value(json_object_get(o, "label")), "k-a-16") == 0 &&
				    strcmp(json_string_value(json_array_get(json_object_get(c, "labels"),
				    0)), "k-a-15") == 0, "json: the change's night: n, direction, "
				    "pct, p, labels");
		} else if (!json_is_null(c))
			changes = 1000;
	}
	is_int(changes, 2, "json: change on the two change nights, null on the others");
	o = json_array_get(a, 0);
	ok(json_is_string(json_object_get(o, "host")) && json_is_object(json_object_get(o,
	    "params")) && json_is_string(json_object_get(o, "run")) &&
	    json_is_string(json_object_get(o, "start")) && json_is_number(json_object_get(o,
	    "value")), "json: host, params, run, start, value");
	json_decref(a);
	free(s);

	s = render(h, REPORT_CSV, 0);
	ok(strncmp(s, "host,variant,bench,params,metric,unit,direction,start,run,label,value,",
	    70) == 0, "csv: the header");
	ok(strstr(s, ",worse,k-a-15,k-a-16\n") != NULL, "csv: the change's row");
	free(s);

	s = render(h, REPORT_TEXT, 0);
	ok(strstr(s, "2 worse") == NULL && strstr(s, "1 worse, 1 better") != NULL,
	    "text: the count of change points");
	ok(strstr(s, "k-a-15 -> k-a-16") != NULL, "text: the labels around the change");
	free(s);

	s = render(h, REPORT_HTML, 0);
	ok(strstr(s, "data-chart=\"history\"") != NULL && strstr(s, "<script") == NULL &&
	    strstr(s, "data-changes=\"1\"") != NULL, "html: charts, a change marked, no script");
	ok(strstr(s, ">2001-01-16</a>") != NULL && strstr(s, ">2001-01-16</a>") <
	    strstr(s, ">2001-01-18</a>"), "html: the change points' table in date order, "
	    "not the series'");
	free(s);
	history_free(h);
	free(root);
}

static void
test_cache_dir(void)
{
	char *old = getenv("XDG_CACHE_HOME") ? xstrdup(getenv("XDG_CACHE_HOME")) : NULL;
	char *home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL, *d;

	setenv("XDG_CACHE_HOME", "/srv/cache", 1);
	d = history_cache_dir();
	is_str(d, "/srv/cache/fleetmark/history", "cache dir: $XDG_CACHE_HOME/fleetmark/history");
	free(d);
	setenv("XDG_CACHE_HOME", "relative/cache", 1);
	setenv("HOME", "/home/me", 1);
	d = history_cache_dir();
	is_str(d, "/home/me/.cache/fleetmark/history", "... a relative one is ignored: ~/.cache");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	d = history_cache_dir();
	is_str(d, "/tmp/.cache/fleetmark/history", "... no HOME: under /tmp");
	free(d);
	if (old != NULL)
		setenv("XDG_CACHE_HOME", old, 1);
	if (home != NULL)
		setenv("HOME", home, 1);
	free(old);
	free(home);
}

static void
test_groups(void)
{
	char *root = xasprintf("%s/groups", tmpdir), *err, *text;
	const struct history_series *s;
	struct history_opts o;
	struct history *h;
	int r;

	mkgrun(root, 1, 0, "a", NULL, 10);	/* a night of its own */
	mkgrun(root, 1, 0, "b", NULL, 20);	/* and so is this one */
	mkgrun(root, 2, 0, "a", "n2", 11);	/* two controllers, one night */
	mkgrun(root, 2, 20, "b", "n2", 21);
	mkgrun(root, 2, 10, "c", NULL, 30);	/* between n2's starts */
	mkgrun(root, 3, 30, "b", "n3", 22);
	mkgrun(root, 3, 5, "a", "n3", 12);	/* n3 starts here */
	mkgrun(root, 4, 0, "a", "tw", 13);	/* a host in two runs of a group */
	mkgrun(root, 4, 1, "a", "tw", 14);

	history_opts_init(&o);
	o.cache = "";
	log_set_level(LOG_LEVEL_QUIET);
	r = load(root, &o, &h, &err);
	log_set_level(LOG_LEVEL_INFO);
	is_int(r, 0, "runs of groups: loaded");
	if (r != 0) {
		printf("# %s\n", err);
		free(err);
		free(root);
		return;
	}
	is_int(h->nruns, 9, "nine runs");
	is_int(h->nnights, 6, "six nights: each group's runs are one");
	ok(h->nruns == 9 && h->runs[2].group && strcmp(h->runs[2].group, "n2") == 0 &&
	    h->runs[3].group && strcmp(h->runs[3].group, "n2") == 0 &&
	    h->runs[2].night == h->runs[3].night && h->runs[4].group == NULL &&
	    h->runs[4].night == h->runs[3].night + 1,
	    "a group's runs together, where its first started, before a run that started "
	    "between them");
	ok(h->nruns == 9 && strcmp(h->runs[5].id, "20010103-023005-g-a005") == 0 &&
	    h->runs[5].night == h->runs[6].night, "n3: its first run first");
	s = find(h, "a", NULL, "lat", "op=null", "us");
	ok(s != NULL && s->n == 4, "host a: four nights (1, n2, n3, tw)");
	if (s != NULL && s->n == 4)
		ok(s->nights[3].value == 14 && strcmp(h->runs[s->nights[3].run].id,
		    "20010104-023001-g-a001") == 0, "a host twice in a group: the later run's value");
	s = find(h, "b", NULL, "lat", "op=null", "us");
	ok(s != NULL && s->n == 3 && s->nights[1].value == 21 && s->nights[2].value == 22,
	    "host b: its nights, n2 and n3 from the group's other runs");
	text = render(h, REPORT_TEXT, 0);
	ok(text != NULL && strstr(text, ": 6 nights (9 runs: a run group's are one night) "
	    "from 2001-01-01 to ") != NULL, "the heading counts nights, and says the runs");
	free(text);
	text = render(h, REPORT_JSON, 0);
	ok(text != NULL && strstr(text, "\"run\":\"20010102-023020-g-b020\",\"group\":\"n2\"") &&
	    strstr(text, "\"run\":\"20010101-023000-g-a000\",\"group\":null"),
	    "json: each night's group, or null");
	free(text);
	history_free(h);

	o.group = "n*";
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->nruns == 4 && h->nnights == 2, "--group 'n*': the runs of n2 and n3");
	history_free(h);
	o.group = "nosuch";
	r = load(root, &o, &h, &err);
	is_int(r, HISTORY_EINPUT, "--group matching none: no finished runs (bad input)");
	free(err);
	o.group = NULL;
	o.exclude_group = "tw";
	r = load(root, &o, &h, &err);
	ok(r == 0 && h->nruns == 7 && h->nnights == 5, "exclude_group: that group left out");
	history_free(h);
	free(root);
}

int
main(void)
{
	if ((tmpdir = tap_tmpdir("test-history")) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	cache = xasprintf("%s/cache", tmpdir);
	test_series();
	test_bad_sources();
	test_changes();
	test_cache();
	test_render();
	test_cache_dir();
	test_groups();
	free(cache);
	return tap_done();
}
