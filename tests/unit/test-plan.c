/*
 * test-plan.c: test plans against a small benchmark catalogue: matrix
 * expansion and counts, suites, defaults, validation errors at the right
 * position, host selection, and the order of trials (interleave,
 * sequential, shuffle with a seed) grouped by variant.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "yamldoc.h"
#include "fleet.h"
#include "plan.h"
#include "strv.h"
#include "tap.h"
#include "xmalloc.h"

/* What `fleetmark-agent list --json` says, cut down to what is tested. */
static const char catalog_json[] =
	"{\"type\":\"bench\",\"name\":\"lat_syscall\",\"summary\":\"s\",\"params\":["
	"{\"name\":\"op\",\"type\":\"enum\",\"default\":\"null\",\"choices\":\"null|read|write\"}],"
	"\"metrics\":[{\"name\":\"latency\",\"unit\":\"us\",\"direction\":\"lower\"}]}\n"
	"{\"type\":\"bench\",\"name\":\"munmap\",\"summary\":\"m\",\"params\":["
	"{\"name\":\"threads\",\"type\":\"cpus\",\"default\":\"4\",\"min\":0,\"max\":1024},"
	"{\"name\":\"pages\",\"type\":\"int\",\"default\":\"8\",\"min\":1,\"max\":262144},"
	"{\"name\":\"accesses\",\"type\":\"int\",\"default\":\"512\",\"min\":1}],"
	"\"metrics\":[{\"name\":\"ns_per_munmap\",\"unit\":\"ns\",\"direction\":\"lower\"},"
	"{\"name\":\"ns_per_access\",\"unit\":\"ns\",\"direction\":\"lower\"}],"
	"\"limits\":[{\"product\":[\"threads\",\"accesses\"],\"max\":4194304},"
	"{\"product\":[\"threads\"],\"max\":1},{\"sum\":[\"a\",\"b\"],\"max\":1}]}\n"
	"{\"type\":\"bench\",\"name\":\"exec\",\"summary\":\"e\",\"params\":["
	"{\"name\":\"command\",\"type\":\"string\",\"default\":\"true\"},"
	"{\"name\":\"copies\",\"type\":\"cpus\",\"default\":\"1\"}],"
	"\"metrics\":[{\"name\":\"runs_per_hour\",\"unit\":\"runs/h\",\"direction\":\"higher\"}]}\n"
	"{\"type\":\"note\",\"text\":\"lines of other types are ignored\"}\n"
	"{\"type\":\"bench\",\"name\":\"minisuite\",\"summary\":\"x\",\"params\":[],\"metrics\":[],"
	"\"suite\":[{\"bench\":\"lat_syscall\",\"params\":\"op=null\"},"
	"{\"bench\":\"lat_syscall\",\"params\":\"op=read\"},"
	"{\"bench\":\"munmap\",\"params\":\"threads=2 pages=4\"}]}\n";

static struct catalog *cat;

static struct plan *
load(const char *text, char **err)
{
	struct plan *p = NULL;

	*err = NULL;
	if (plan_parse("p.yaml", text, strlen(text), cat, &p, err) != 0)
		return NULL;
	return p;
}

static int
fails_with(const char *text, const char *want)
{
	char *err;
	struct plan *p = load(text, &err);
	int r = p == NULL && err != NULL && strstr(err, want) != NULL;

	if (!r)
		printf("#   got \"%s\"\n#   want \"%s\"\n", err ? err : "(loaded)", want);
	plan_free(p);
	free(err);
	return r;
}

static void
test_catalog(void)
{
	const struct catalog_bench *b;
	struct catalog *c = NULL;
	char *err = NULL, *why = NULL;

	ok(catalog_parse("test", catalog_json, strlen(catalog_json), &cat, &err) == 0,
	    "the catalogue parses");
	if (cat == NULL) {
		printf("# %s\n", err);
		exit(1);
	}
	is_int(cat->nbenches, 4, "four benchmarks, other lines ignored");
	b = catalog_find(cat, "munmap");
	ok(b && b->nparams == 3 && b->params[0].type == CATALOG_CPUS, "params with types");
	ok(b && catalog_find_metric(b, "ns_per_access") != NULL, "metrics");
	b = catalog_find(cat, "minisuite");
	ok(b && b->nmembers == 3 && b->members[2].nparams == 2 &&
	    strcmp(b->members[2].vals[1], "4") == 0, "suite members with their params");
	b = catalog_find(cat, "munmap");
	ok(catalog_check_value(&b->params[0], "50%", &why) == 0, "cpus: N%");
	ok(catalog_check_value(&b->params[0], "0%", &why) != 0, "cpus: 0% refused");
	free(why);
	ok(catalog_check_value(&b->params[1], "16K", &why) == 0, "int: K suffix");
	ok(catalog_check_value(&b->params[1], "1.5", &why) != 0, "int: not a decimal");
	free(why);
	ok(catalog_check_value(&b->params[1], " 8", &why) != 0, "int: no leading blank");
	free(why);
	why = NULL;
	ok(b && b->params[1].has_min && b->params[1].min == 1 && b->params[1].has_max &&
	    b->params[1].max == 262144 && b->params[2].has_min && !b->params[2].has_max,
	    "ranges: min and max, either may be absent");
	ok(b && b->nlimits == 1 && strcmp(b->limits[0].a, "threads") == 0 &&
	    b->limits[0].max == 4194304, "limits of a form not known are left to the agent");
	ok(catalog_check_value(&b->params[1], "0", &why) != 0 && why &&
	    strcmp(why, "0 is out of range (1 to 262144)") == 0, "int: below its range");
	free(why);
	why = NULL;
	ok(catalog_check_value(&b->params[1], "1M", &why) != 0 && why &&
	    strcmp(why, "1M is out of range (1 to 262144)") == 0, "int: a suffixed value above");
	free(why);
	why = NULL;
	ok(catalog_check_value(&b->params[1], "256K", &why) == 0, "int: the upper end with a suffix");
	ok(catalog_check_value(&b->params[0], "2000", &why) != 0, "cpus: a count above its range");
	free(why);
	why = NULL;
	ok(catalog_check_value(&b->params[0], "400%", &why) == 0,
	    "cpus: N% is left to the agent, which knows the host");
	free(why);
	ok(catalog_parse("bad", "{\"type\":\"bench\"", 15, &c, &err) != 0 &&
	    strstr(err, "bad: line 1: not JSON"), "malformed catalogue line");
	free(err);
	err = NULL;
	ok(catalog_parse("empty", "", 0, &c, &err) != 0 && strstr(err, "no benchmark"),
	    "an empty catalogue is an error");
	free(err);
	err = NULL;
	ok(catalog_parse("s", "{\"type\":\"bench\",\"name\":\"s\",\"suite\":[{\"bench\":\"x\"}]}\n",
	    52, &c, &err) != 0 && strstr(err, "unknown benchmark x"), "suite member must exist");
	free(err);
}

static void
test_matrix(void)
{
	struct plan *p;
	char *err;
	size_t i, n;

	p = load("benchmarks:\n"
	    "  - bench: munmap\n"
	    "    params:\n"
	    "      threads: [4, 8, 16]\n"
	    "      pages: [8, 16, 32]\n"
	    "      accesses: 512\n"
	    "  - bench: exec\n"
	    "  - bench: minisuite\n", &err);
	ok(p != NULL, "a matrix plan loads");
	if (p == NULL) {
		printf("# %s\n", err);
		free(err);
		return;
	}
	is_str(p->name, "p", "name defaults to the file name");
	is_int(p->repeat, PLAN_DEFAULT_REPEAT, "repeat default");
	is_int(p->samples, PLAN_DEFAULT_SAMPLES, "samples default");
	is_int(p->timeout_ms, PLAN_DEFAULT_TIMEOUT, "timeout default");
	is_int(p->order, PLAN_ORDER_INTERLEAVE, "order default interleave");
	is_int(p->nvariants, 1, "no variants: one implicit variant");
	ok(p->variants[0].name == NULL, "the implicit variant has no name");
	is_int(p->npoints, 3 * 3 + 1 + 3, "3x3 matrix + 1 + a 3-member suite");
	is_str(p->points[0].label, "threads=4 pages=8 accesses=512", "first point");
	is_str(p->points[1].label, "threads=4 pages=16 accesses=512",
	    "the last axis varies fastest");
	is_str(p->points[3].label, "threads=8 pages=8 accesses=512", "then the first axis");
	is_str(p->points[8].label, "threads=16 pages=32 accesses=512", "last matrix point");
	is_str(p->points[9].bench, "exec", "then the next benchmark");
	is_str(p->points[9].label, "", "no params given");
	is_str(p->points[9].vals[0], "true", "the default filled in");
	ok(!p->points[9].given[0], "and marked as not given");
	is_str(p->points[12].bench, "munmap", "suite members are points of their own");
	is_str(p->points[12].suite, "minisuite", "remembering their suite");
	is_str(p->points[12].id, "munmap/threads=2,pages=4,accesses=512",
	    "id: full parameter set in catalogue order");
	for (n = 0, i = 0; i < p->npoints; i++)
		n += p->points[i].where->line == 2;
	is_int(n, 9, "matrix points remember their benchmark entry");
	plan_free(p);

	p = load("benchmarks:\n  - bench: exec\n    params:\n"
	    "      command: \"a, b/c=d e%\"\n      copies: 50%\n", &err);
	ok(p != NULL, "string and N% values load");
	if (p) {
		char *key = plan_trial_key(&p->variants[0], &p->points[0], 2);

		is_str(p->points[0].vals[1], "50%", "N% is kept as text for the agent");
		is_str(key, "-/exec/command=a%2C%20b%2Fc%3Dd%20e%25,copies=50%25/2",
		    "trial key escapes separators");
		free(key);
		is_str(p->points[0].label, "command=\"a, b/c=d e%\" copies=50%",
		    "label quotes a value with blanks");
		plan_free(p);
	}
	free(err);
}

static void
test_errors(void)
{
	ok(fails_with("hots: [all]\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:1: unknown key 'hots' in plan (did you mean 'hosts'?)"), "unknown top key");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params:\n      pages: [8, 0]\n",
	    "p.yaml:4:18: parameter pages of munmap: 0 is out of range (1 to 262144)"),
	    "a value out of the catalogue's range, at its position");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params:\n      threads: [4, 1024]\n"
	    "      accesses: 8192\n",
	    "p.yaml:5:17: munmap threads=1024 accesses=8192: threads x accesses is 1024 x 8192, "
	    "more than 4194304"), "a product over the catalogue's limit, at the later value");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params:\n      accesses: 2000000\n",
	    "p.yaml:4:17: munmap accesses=2000000: threads x accesses is 4 x 2000000"),
	    "a limit broken with a default");
	ok(fails_with("benchmarks:\n  - bench: munmapp\n",
	    "p.yaml:2:12: unknown benchmark 'munmapp' (did you mean 'munmap'?)"), "unknown bench");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params:\n      thread: 4\n",
	    "p.yaml:4:7: unknown parameter 'thread' for munmap (did you mean 'threads'?)"),
	    "unknown param");
	ok(fails_with("benchmarks:\n  - bench: lat_syscall\n    params: {op: [read, wrte]}\n",
	    "p.yaml:3:25: parameter op of lat_syscall: 'wrte' is not one of null|read|write "
	    "(did you mean 'write'?)"), "bad enum value, at the value");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params: {pages: []}\n",
	    "p.yaml:3:21: parameter pages has an empty list"), "empty axis");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params: {pages: {a: 1}}\n",
	    "p.yaml:3:21: parameter pages: expected a value or a list of values"),
	    "mapping as a param value");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params: {pages: }\n",
	    "parameter pages has no value"), "missing param value");
	ok(fails_with("benchmarks:\n  - bench: minisuite\n    params: {op: read}\n",
	    "p.yaml:3:5: minisuite is a suite of 3 points: it takes no params"), "suite with params");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    profile: oprofile\n",
	    "p.yaml:3:14: bad profile 'oprofile'"), "bad profile");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    monitor: [interrupts, vmstats]\n",
	    "p.yaml:3:27: unknown monitor 'vmstats': expected interrupts, vmstat or perf-stat "
	    "(did you mean 'vmstat'?)"), "a misspelt monitor, with a suggestion");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    monitor: [vmstat, vmstat]\n",
	    "p.yaml:3:23: monitor vmstat is listed twice"), "a monitor twice");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    monitor: {interrupts: 1}\n",
	    "p.yaml:3:14: monitor must be a list of monitors"), "monitor as a mapping");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    monitors: [vmstat]\n",
	    "did you mean 'monitor'"), "the key misspelt");
	{
		char *err = NULL;
		struct plan *p = load("benchmarks:\n  - bench: munmap\n    params: {pages: [4, 8]}\n"
		    "    monitor: [perf-stat, interrupts]\n  - bench: minisuite\n"
		    "    monitor: vmstat\n", &err);

		ok(p != NULL && p->npoints == 5 && p->points[0].monitors ==
		    (PLAN_MON_INTERRUPTS | PLAN_MON_PERF_STAT) && p->points[1].monitors ==
		    p->points[0].monitors && p->points[2].monitors == PLAN_MON_VMSTAT &&
		    p->points[4].monitors == PLAN_MON_VMSTAT, "monitors on every point of a "
		    "matrix and of a suite; one name alone is a list of one");
		plan_free(p);
		free(err);
	}
	ok(fails_with("benchmarks:\n  - params: {}\n", "p.yaml:2:5: a benchmark entry needs `bench:`"),
	    "entry without bench");
	ok(fails_with("benchmarks:\n  - bench: munmap\n  - bench: munmap\n",
	    "p.yaml:3:5: munmap is measured twice (also by the benchmark at line 2)"),
	    "the same point twice");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params: {pages: [8, 8]}\n",
	    "munmap pages=8 is measured twice"), "the same value twice on an axis");
	ok(fails_with("benchmarks:\n  - bench: minisuite\n  - bench: lat_syscall\n    params: {op: read}\n",
	    "lat_syscall op=read is measured twice"), "a point of a suite and the same point again");
	ok(fails_with("repeat: 0\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:9: 0 is out of range (1 to 10000)"), "repeat 0");
	ok(fails_with("samples: 1001\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:10: 1001 is out of range (1 to 1000)"), "samples over the wire limit");
	ok(fails_with("order: random\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:8: bad order 'random': expected interleave, sequential or shuffle"),
	    "bad order");
	ok(fails_with("timeout: 0.5s\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:10: duration '0.5s' is out of range (1s to 24h)"), "timeout too short");
	ok(fails_with("name: \"a b\"\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:7: bad plan name 'a b'"), "bad name");
	ok(fails_with("benchmarks: []\n", "p.yaml:1:13: benchmarks: expected a list of benchmark "
	    "entries, with at least one"), "no benchmarks");
	ok(fails_with("name: x\n", "p.yaml:1:1: the plan has no `benchmarks:`"), "benchmarks missing");
	ok(fails_with("hosts: []\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:8: hosts: an empty list selects no host"), "empty hosts");
	ok(fails_with("variants:\n  v1:\n    write: {/sys/a/../b: \"1\"}\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:3:13: bad path '/sys/a/../b'"), "write path with ..");
	ok(fails_with("variants:\n  v1:\n    setup: [\"\"]\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:3:13: an empty setup command"), "empty setup command");
	ok(fails_with("variants:\n  \"-x\": {}\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:2:3: bad variant name '-x'"), "bad variant name");
	ok(fails_with("variants: {}\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:11: variants: expected a mapping of variant names to settings, with at least one"),
	    "empty variants");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  metrics: [munmap.ns_per_acess]\n",
	    "p.yaml:4:13: regression metric 'munmap.ns_per_acess': munmap has no metric "
	    "'ns_per_acess' (did you mean 'ns_per_access'?)"), "unknown metric");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  metrics: [munmp.ns_per_access]\n",
	    "unknown benchmark 'munmp' (did you mean 'munmap'?)"), "metric of an unknown bench");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  metrics: [latency]\n",
	    "expected BENCH.METRIC"), "metric without bench");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  metrics: [lat_syscall.latency]\n",
	    "the plan does not run lat_syscall"), "metric of a bench the plan does not run");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  threshold: 5\n",
	    "p.yaml:4:14: '5' is not a percentage"), "threshold without %");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  nights: 1\n",
	    "p.yaml:4:11: 1 is out of range (2 to 365)"), "regression.nights below 2");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  confirm: -1\n",
	    "p.yaml:4:12: -1 is out of range (0 to 10)"), "regression.confirm below 0");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  fdr: 0%\n",
	    "regression.fdr '0%': expected a false discovery rate between 0 and 1"),
	    "regression.fdr of 0%");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params:\n"
	    "      threads: [1,2,3,4,5,6,7,8,9,10]\n      pages: [1,2,3,4,5,6,7,8,9,10]\n"
	    "      accesses: [1,2,3,4,5,6,7,8,9,10]\nrepeat: 200\n",
	    "is more than 100000 trials per host"), "too many trials");
	ok(fails_with("repeat: 1000\nbenchmarks:\n  - bench: munmap\n    params:\n"
	    "      pages: [1,2,3,4,5,6,7,8,9,10]\n      accesses: [1,2,3,4,5,6,7,8,9,10]\n"
	    "  - bench: lat_syscall\n  - bench: munmap\n",
	    "p.yaml:7:5: 1 variants x 101 points x repeat 1000 is more than 100000 trials "
	    "per host"), "too many trials: refused at the entry that goes over");
}

/* repeat: auto, repeat_max and regression.fdr: read and refused as documented. */
static void
test_auto(void)
{
	struct plan *p;
	char *err = NULL;

	p = load("repeat: auto\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(p && p->repeat_auto && p->repeat == PLAN_AUTO_MIN_REPEAT &&
	    p->repeat_max == PLAN_DEFAULT_REPEAT_MAX, "repeat: auto: 3 rounds first, at most 20");
	ok(p && p->fdr == PLAN_DEFAULT_FDR, "regression.fdr: 0.05 by default");
	plan_free(p);
	p = load("repeat: auto\nrepeat_max: 8\nbenchmarks:\n  - bench: munmap\n"
	    "regression:\n  fdr: 0.1\n", &err);
	ok(p && p->repeat_max == 8 && p->fdr == 0.1, "repeat_max: 8, fdr: 0.1");
	plan_free(p);
	p = load("benchmarks:\n  - bench: munmap\nregression:\n  fdr: 1%\n", &err);
	ok(p && fabs(p->fdr - 0.01) < 1e-12, "fdr: a percentage too");
	plan_free(p);
	p = load("repeat: 4\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(p && !p->repeat_auto && p->repeat == 4, "a fixed repeat is as before");
	plan_free(p);
	ok(fails_with("repeat: 5\nrepeat_max: 8\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:2:13: repeat_max is the most trials of `repeat: auto`; this plan's repeat is "
	    "fixed"), "repeat_max without repeat: auto");
	ok(fails_with("repeat: auto\nrepeat_max: 2\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:2:13:"), "repeat_max below the 3 first rounds");
	ok(fails_with("repeat: often\nbenchmarks:\n  - bench: munmap\n",
	    "p.yaml:1:9: bad repeat 'often': expected a number of trials from 1 to 10000, or "
	    "auto"), "repeat: a number or auto");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  fdr: 2\n",
	    "p.yaml:4:8: regression.fdr '2': expected a false discovery rate between 0 and 1"),
	    "fdr above 1");
	ok(fails_with("benchmarks:\n  - bench: munmap\nregression:\n  fdr: 0\n",
	    "regression.fdr '0'"), "fdr of 0");
	ok(fails_with("benchmarks:\n  - bench: munmap\n    params:\n"
	    "      threads: [1,2,3,4,5,6,7,8,9,10]\n      pages: [1,2,3,4,5,6,7,8,9,10]\n"
	    "repeat: auto\nrepeat_max: 1001\n",
	    "repeat up to 1001 is more than 100000 trials per host"),
	    "too many trials at repeat_max");
}

/* regression.nights, confirm and fdr, and the repetitions of a confirmation round */
static void
test_regression_keys(void)
{
	char *err = NULL;
	struct plan *p = load("repeat: 2\nbenchmarks:\n  - bench: lat_syscall\n", &err);
	struct plan_schedule *s;

	ok(p != NULL && p->nights == 7 && p->confirm == 1 && fabs(p->fdr - 0.05) < 1e-12,
	    "defaults: 7 nights, 1 confirmation round, fdr 0.05");
	if (p != NULL) {
		p->rep_base = 2;
		s = plan_expand(p, "h", 1);
		ok(s->ntrials == 2 && s->trials[0].rep == 3 && s->trials[1].rep == 4 &&
		    strstr(s->trials[1].key, "/4") != NULL,
		    "rep_base 2: the round's repetitions are 3 and 4, keys apart from the night's");
		plan_schedule_free(s);
	}
	plan_free(p);
	p = load("benchmarks:\n  - bench: munmap\nregression:\n  nights: 14\n  confirm: 0\n"
	    "  fdr: 10%\n", &err);
	ok(p != NULL && p->nights == 14 && p->confirm == 0 && fabs(p->fdr - 0.1) < 1e-12,
	    "nights 14, confirm 0, fdr 10%");
	plan_free(p);
	p = load("benchmarks:\n  - bench: munmap\nregression:\n  fdr: 0.01\n", &err);
	ok(p != NULL && fabs(p->fdr - 0.01) < 1e-12, "fdr 0.01");
	plan_free(p);
	free(err);
}

static struct plan *
order_plan(const char *order)
{
	char *text = xasprintf(
	    "repeat: 3\norder: %s\nseed: 42\n"
	    "variants:\n  on:\n    write: {/sys/x: \"1\"}\n  off:\n    write: {/sys/x: \"0\"}\n"
	    "    setup: \"echo 3 > /proc/sys/vm/drop_caches\"\n    teardown: []\n"
	    "benchmarks:\n  - bench: munmap\n    params: {pages: [8, 16]}\n"
	    "  - bench: lat_syscall\n", order), *err = NULL;
	struct plan *p = load(text, &err);

	if (p == NULL)
		printf("# %s\n", err);
	free(text);
	free(err);
	return p;
}

/* "pages=8/1 pages=16/1 -/1 ..." for the trials of variant v. */
static char *
sequence(const struct plan_schedule *s, size_t v)
{
	char *out = xstrdup(""), *next;
	size_t i;

	for (i = s->variant_start[v]; i < s->variant_start[v + 1]; i++) {
		const struct plan_trial *t = &s->trials[i];

		next = xasprintf("%s%s%s/%d", out, *out ? " " : "",
		    *t->point->label ? t->point->label : "-", t->rep);
		free(out);
		out = next;
	}
	return out;
}

static void
test_order(void)
{
	struct plan_schedule *s, *s2;
	struct plan *p;
	char *seq, *seq2;
	size_t i;
	int same = 1, counts[3][4];

	p = order_plan("interleave");
	ok(p != NULL, "interleave plan loads");
	if (p == NULL)
		return;
	is_int(p->nvariants, 2, "two variants");
	is_str(p->variants[1].name, "off", "variants in the order written");
	ok(p->variants[1].nsetup == 1 && p->variants[1].nteardown == 0, "setup as a scalar");
	s = plan_expand(p, "h", 0);
	is_int(s->ntrials, 2 * 3 * 3, "2 variants x 3 points x repeat 3");
	ok(s->variant_start[0] == 0 && s->variant_start[1] == 9 && s->variant_start[2] == 18,
	    "trials grouped by variant");
	ok(s->trials[0].variant == &p->variants[0] && s->trials[8].variant == &p->variants[0] &&
	    s->trials[9].variant == &p->variants[1], "each group is one variant");
	seq = sequence(s, 0);
	is_str(seq, "pages=8/1 pages=16/1 -/1 pages=8/2 pages=16/2 -/2 pages=8/3 pages=16/3 -/3",
	    "interleave: every point's first repetition, then the second, ...");
	free(seq);
	seq = sequence(s, 1);
	is_str(seq, "pages=8/1 pages=16/1 -/1 pages=8/2 pages=16/2 -/2 pages=8/3 pages=16/3 -/3",
	    "the same order inside the second variant");
	free(seq);
	is_str(s->trials[0].key, "on/munmap/threads=4,pages=8,accesses=512/1", "trial key");
	is_str(s->trials[17].key, "off/lat_syscall/op=null/3", "trial key of the last trial");
	plan_schedule_free(s);
	plan_free(p);

	p = order_plan("sequential");
	s = plan_expand(p, "h", 0);
	seq = sequence(s, 0);
	is_str(seq, "pages=8/1 pages=8/2 pages=8/3 pages=16/1 pages=16/2 pages=16/3 -/1 -/2 -/3",
	    "sequential: all repetitions of a point together");
	free(seq);
	plan_schedule_free(s);
	plan_free(p);

	p = order_plan("shuffle");
	is_int(plan_seed(p), 42, "the plan's seed");
	s = plan_expand(p, "h", 42);
	s2 = plan_expand(p, "other-host", 42);
	is_int(s->ntrials, 18, "shuffle keeps every trial");
	for (i = 0; i < s->ntrials; i++)
		same &= strcmp(s->trials[i].key, s2->trials[i].key) == 0;
	ok(same, "the same seed gives the same order (on every host)");
	seq = sequence(s, 0);
	seq2 = sequence(s, 1);
	ok(strcmp(seq, "pages=8/1 pages=16/1 -/1 pages=8/2 pages=16/2 -/2 pages=8/3 pages=16/3 -/3")
	    != 0, "shuffle is not the interleave order");
	ok(strcmp(seq, seq2) != 0, "each variant is shuffled on its own");
	is_str(seq, "pages=16/1 pages=16/2 -/1 -/2 -/3 pages=8/1 pages=8/2 pages=8/3 pages=16/3",
	    "seed 42 gives this very order (changing it breaks reproducing old runs)");
	free(seq);
	free(seq2);
	/* Every (point, repetition) exactly once per variant, reps in order. */
	memset(counts, 0, sizeof(counts));
	for (i = s->variant_start[0]; i < s->variant_start[1]; i++) {
		const struct plan_trial *t = &s->trials[i];
		size_t pi = (size_t)(t->point - p->points);

		counts[pi][t->rep]++;
		if (t->rep > 1)
			ok(counts[pi][t->rep - 1] == 1, "repetitions are numbered in running order");
	}
	for (i = 0; i < 3; i++)
		ok(counts[i][1] == 1 && counts[i][2] == 1 && counts[i][3] == 1,
		    "each repetition of a point exactly once");
	ok(s->trials[0].variant == &p->variants[0] && s->trials[9].variant == &p->variants[1],
	    "shuffling stays inside each variant");
	plan_schedule_free(s2);
	s2 = plan_expand(p, "h", 43);
	for (same = 1, i = 0; i < s->ntrials; i++)
		same &= strcmp(s->trials[i].key, s2->trials[i].key) == 0;
	ok(!same, "another seed, another order");
	plan_schedule_free(s2);
	plan_schedule_free(s);
	plan_free(p);
}

static void
test_hosts(void)
{
	static const char fleet_text[] =
	    "hosts:\n  a: {address: x, labels: [arm]}\n  b: {address: y, labels: [x86]}\n"
	    "  c: {address: z, labels: [x86]}\n";
	unsigned char sel[3], only[3];
	struct fleet *f = NULL;
	struct plan *p;
	char *err = NULL;

	fleet_parse("f.yaml", fleet_text, strlen(fleet_text), &f, &err);
	ok(f != NULL, "fleet loads");
	if (f == NULL)
		return;
	p = load("benchmarks:\n  - bench: munmap\n", &err);
	ok(plan_hosts(p, f, NULL, sel, &err) == 0 && sel[0] && sel[1] && sel[2],
	    "no hosts: means all");
	plan_free(p);
	p = load("hosts: [a, \"@x86\"]\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(plan_hosts(p, f, NULL, sel, &err) == 0 && sel[0] && sel[1] && sel[2],
	    "a name and a label");
	memset(only, 0, sizeof(only));
	only[1] = 1;
	ok(plan_hosts(p, f, only, sel, &err) == 0 && !sel[0] && sel[1] && !sel[2],
	    "-H narrows the plan's hosts");
	plan_free(p);
	p = load("hosts: a\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(plan_hosts(p, f, only, sel, &err) != 0 &&
	    strstr(err, "p.yaml:1:8: no host selected"), "-H and the plan's hosts do not meet");
	free(err);
	err = NULL;
	plan_free(p);
	p = load("hosts: [b, d]\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(plan_hosts(p, f, NULL, sel, &err) != 0, "unknown host in the plan");
	is_str(err, "p.yaml:1:12: unknown host 'd' in f.yaml", "at its position");
	free(err);
	err = NULL;
	plan_free(p);
	p = load("hosts: \"@arn\"\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(plan_hosts(p, f, NULL, sel, &err) != 0 &&
	    strstr(err, "p.yaml:1:8: no host has label 'arn' in f.yaml (did you mean 'arm'?)"),
	    "unknown label in the plan");
	free(err);
	err = NULL;
	plan_free(p);
	p = load("hosts: [\"@x86\", \"!c\"]\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(plan_hosts(p, f, NULL, sel, &err) == 0 && !sel[0] && sel[1] && !sel[2],
	    "an exclusion in the plan's hosts");
	plan_free(p);
	p = load("hosts: [\"*\", \"!@x86&!b\"]\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(plan_hosts(p, f, NULL, sel, &err) == 0 && sel[0] && sel[1] && sel[2],
	    "a word with '&' is an inclusion even when it starts with '!'");
	plan_free(p);
	p = load("hosts: [a, \"!a\"]\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(plan_hosts(p, f, NULL, sel, &err) != 0, "the plan excludes all it names");
	is_str(err, "p.yaml:1:12: every host selected is excluded", "at the last word");
	free(err);
	err = NULL;
	plan_free(p);
	p = load("hosts: [a, \"b&&c\"]\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(p == NULL && err != NULL && strstr(err, "p.yaml:1:12: bad host 'b&&c': expected all, "
	    "a host name, a glob or @label"), "a pattern with an empty term");
	free(err);
	err = NULL;
	p = load("hosts: [\"a;reboot\"]\nbenchmarks:\n  - bench: munmap\n", &err);
	ok(p == NULL && err != NULL && strstr(err, "p.yaml:1:9: bad host 'a;reboot'"),
	    "a pattern with a character no name has");
	free(err);
	fleet_free(f);
}

static void
test_cpu_warnings(void)
{
	char *err, **w;
	struct plan *p = load("benchmarks:\n"
	    "  - bench: munmap\n    params: {threads: [1, 4, 50%, 8, 200%], pages: [8, 16]}\n"
	    "  - bench: exec\n    params: {copies: 2}\n"
	    "  - bench: lat_syscall\n", &err);
	size_t n;

	ok(p != NULL, "a plan with thread counts loads");
	if (p == NULL)
		return;
	n = plan_cpu_warnings(p, "h1", 2, &w);
	is_int(n, 1, "one warning for the entry that asks for more tasks than 2 CPUs");
	if (n == 1)
		is_str(w[0], "p.yaml:2:5: munmap threads 4, 8, 200% are more than the 2 CPUs of "
		    "host h1: the tasks share CPUs, so the numbers measure oversubscription too",
		    "it names each value once, N% resolved, at the entry's position");
	strv_free(w, n);
	n = plan_cpu_warnings(p, "h1", 8, &w);
	is_int(n, 1, "on 8 CPUs only 200% is too many");
	if (n == 1)
		ok(strstr(w[0], "threads 200% is more than the 8 CPUs of host h1") != NULL,
		    "one value: is");
	strv_free(w, n);
	n = plan_cpu_warnings(p, "h1", 0, &w);
	ok(n == 0 && w == NULL, "none when the CPU count is not known");
	plan_free(p);
	p = load("benchmarks:\n  - bench: munmap\n    params: {threads: [1, 100%]}\n", &err);
	n = p ? plan_cpu_warnings(p, "h1", 3, &w) : 1;
	ok(n == 0 && w == NULL, "none when every count fits");
	plan_free(p);
}

int
main(void)
{
	test_catalog();
	test_matrix();
	test_errors();
	test_order();
	test_hosts();
	test_auto();
	test_regression_keys();
	test_cpu_warnings();
	catalog_free(cat);
	return tap_done();
}
