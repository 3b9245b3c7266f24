/*
 * test-tune.c: tuning profiles: the plan's `tune:` (profiles, overrides,
 * errors), and a profile applied and undone for real through the local
 * transport on a fake /sys and /proc under a directory (tune_spec.root):
 * each item's outcome, the old contents handed to the save hook, every
 * file back byte for byte after the undo and after tune_write_back(); the
 * warning of a host that is not tuned; the env facts' differences.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "envdiff.h"
#include "fsutil.h"
#include "tap.h"
#include "transport.h"
#include "tune.h"
#include "xmalloc.h"
#include "yamldoc.h"

static const char *dir;

static char *
path(const char *name)
{
	return xasprintf("%s%s", dir, name);
}

static void
put(const char *name, const char *content)
{
	char *p = path(name), *d = xstrdup(p), *err = NULL;

	*strrchr(d, '/') = '\0';
	if (fs_mkdir_p(d, 0755, &err) != 0)
		printf("# %s\n", err);
	free(err);
	free(d);
	tap_put(p, "w", content);
	free(p);
}

static char *
get(const char *name)
{
	char *p = path(name), buf[512];
	FILE *f = fopen(p, "r");
	size_t n;

	free(p);
	if (f == NULL)
		return xstrdup("(missing)");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return xstrdup(buf);
}

static void
check_file(const char *name, const char *want, const char *what)
{
	char *got = get(name);

	is_str(got, want, what);
	free(got);
}

/* The saves, as "NAME=OLD;" with NAME the path under dir. */
static char saves[2048];

static int
save(void *arg, const char *p, const char *old, char **why)
{
	size_t n = strlen(saves);

	(void)arg;
	(void)why;
	snprintf(saves + n, sizeof(saves) - n, "%s=%s;", strncmp(p, dir, strlen(dir)) == 0 ?
	    p + strlen(dir) : p, old);
	return 0;
}

/* The spec of a `tune:` value written in YAML (NULL and *err on error). */
static struct tune_spec *
spec_of(const char *yaml, int *r, char **err)
{
	struct ydoc *doc;
	struct tune_spec *s = NULL;

	*r = ydoc_parse("plan.yaml", yaml, strlen(yaml), &doc, err);
	if (*r == 0) {
		*r = tune_spec_load(ydoc_get(ydoc_root(doc), "tune"), &s, err);
		ydoc_free(doc);
	}
	return s;
}

static const struct tune_result *
result_of(const struct tune_state *st, enum tune_item it)
{
	const struct tune_result *res;
	size_t n, i;

	res = tune_results(st, &n);
	for (i = 0; i < n; i++)
		if (res[i].item == it)
			return &res[i];
	return NULL;
}

static void
check_outcome(const struct tune_state *st, enum tune_item it, enum tune_outcome o,
    const char *detail, const char *what)
{
	const struct tune_result *r = result_of(st, it);

	ok(r != NULL && r->outcome == o && (detail == NULL || (r->detail != NULL &&
	    strstr(r->detail, detail) != NULL)), what);
	if (r != NULL)
		printf("# %s %s: %s\n", tune_item_name(it), tune_outcome_name(r->outcome),
		    r->detail ? r->detail : "-");
}

static void
parse_tests(void)
{
	struct tune_spec *s;
	char *err = NULL;
	int r;

	s = spec_of("tune: performance\n", &r, &err);
	ok(r == 0 && s != NULL && strcmp(s->profile, "performance") == 0, "tune: performance");
	ok(s && strcmp(s->value[TUNE_GOVERNOR], "performance") == 0 &&
	    strcmp(s->value[TUNE_ASLR], "off") == 0 && strcmp(s->value[TUNE_BOOST], "off") == 0 &&
	    strcmp(s->value[TUNE_CSTATES], "1") == 0 && strcmp(s->value[TUNE_IRQBALANCE], "off") == 0,
	    "the profile: governor performance, boost, ASLR, irqbalance off, C1 at most");
	ok(s && s->value[TUNE_SMT] == NULL && s->value[TUNE_THP] == NULL &&
	    s->value[TUNE_DROP_CACHES] == NULL, "SMT, THP and dropping caches only when asked");
	tune_spec_free(s);

	s = spec_of("tune:\n  smt: off\n  thp: never\n  aslr: keep\n  drop-caches: on\n", &r,
	    &err);
	ok(r == 0 && s && strcmp(s->value[TUNE_SMT], "off") == 0 &&
	    strcmp(s->value[TUNE_THP], "never") == 0 && s->value[TUNE_ASLR] == NULL &&
	    strcmp(s->value[TUNE_DROP_CACHES], "on") == 0 &&
	    strcmp(s->value[TUNE_GOVERNOR], "performance") == 0,
	    "a mapping overrides items of the performance profile; keep leaves one alone");
	tune_spec_free(s);

	s = spec_of("tune: {profile: none, thp: madvise}\n", &r, &err);
	ok(r == 0 && s && s->value[TUNE_GOVERNOR] == NULL && strcmp(s->value[TUNE_THP],
	    "madvise") == 0, "profile none with an item: that item only");
	tune_spec_free(s);

	s = spec_of("tune: none\n", &r, &err);
	ok(r == 0 && s == NULL, "tune: none is no tuning");

	s = spec_of("x: 1\ntune: perfomance\n", &r, &err);
	ok(r != 0 && err && strstr(err, "plan.yaml:2:7: tune: unknown tuning profile "
	    "'perfomance'") && strstr(err, "did you mean"), "an unknown profile: FILE:LINE:COL, "
	    "a suggestion");
	printf("# %s\n", err ? err : "-");
	free(err);
	err = NULL;
	s = spec_of("tune:\n  thp: sometimes\n", &r, &err);
	ok(r != 0 && err && strstr(err, "plan.yaml:2:8: tune: thp: bad value 'sometimes': "
	    "expected always, madvise, never, keep"), "a bad value says the ones it takes");
	printf("# %s\n", err ? err : "-");
	free(err);
	err = NULL;
	s = spec_of("tune:\n  cstates: 99\n", &r, &err);
	ok(r != 0 && err && strstr(err, "cstates: bad value '99'"), "cstates beyond 15");
	free(err);
	err = NULL;
	s = spec_of("tune:\n  aslr: off\n  turbo: off\n", &r, &err);
	ok(r != 0 && err && strstr(err, "turbo"), "an unknown item is refused");
	printf("# %s\n", err ? err : "-");
	free(err);
	err = NULL;
}

static void
untuned_tests(void)
{
	json_t *env = json_pack("{s:s, s:s, s:{s:s, s:s}, s:b}", "governor", "powersave", "boost",
	    "on", "sysctl", "kernel.randomize_va_space", "2", "kernel.numa_balancing", "0",
	    "irqbalance", 0);
	char *s = tune_untuned(env);

	is_str(s, "governor powersave, boost on, ASLR on (kernel.randomize_va_space 2)",
	    "an untuned host: governor, boost, ASLR");
	free(s);
	json_decref(env);
	env = json_pack("{s:s, s:n, s:{s:s}}", "governor", "performance", "boost",
	    "sysctl", "kernel.randomize_va_space", "0");
	ok(tune_untuned(env) == NULL, "a tuned host (or one without the facts): no warning");
	json_decref(env);
}

static void
envdiff_tests(void)
{
	json_t *a = json_pack("{s:s, s:[i,i,i], s:i, s:{s:s, s:s}, s:{s:s}, s:s}", "thp",
	    "madvise", "loadavg", 1, 2, 3, "mhz", 2400, "sysctl", "kernel.randomize_va_space", "2",
	    "vm.swappiness", "60", "uname", "nodename", "a", "microcode", "0x1");
	json_t *b = json_pack("{s:s, s:[i,i,i], s:i, s:{s:s, s:s}, s:{s:s}, s:s}", "thp",
	    "never", "loadavg", 3, 2, 1, "mhz", 2401, "sysctl", "kernel.randomize_va_space", "2",
	    "vm.swappiness", "10", "uname", "nodename", "b", "clocksource", "tsc");
	struct envdiff d;
	char line[512] = "";
	size_t i;

	envdiff_compare(a, b, &d);
	for (i = 0; i < d.n; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s:%s>%s ",
		    d.facts[i].key, d.facts[i].a, d.facts[i].b);
	is_str(line, "thp:madvise>never sysctl.vm.swappiness:60>10 microcode:0x1>(none) "
	    "clocksource:(none)>tsc ", "the facts that differ, nested keys dotted; loadavg, mhz "
	    "and the node name not compared");
	envdiff_release(&d);
	envdiff_compare(a, a, &d);
	is_int((int)d.n, 0, "a side against itself: nothing");
	envdiff_release(&d);
	json_decref(a);
	json_decref(b);
	{
		/* what a fact is: one rule for the diff and the HTML table */
		struct strv k = STRV_INIT, v = STRV_INIT;

		a = json_pack("{s:s, s:f, s:f, s:I, s:b, s:n, s:[f,s], s:{s:{s:i}}}", "type", "env",
		    "mhz", 2400.0, "x", 2.5, "big", (json_int_t)9007199254740993LL, "smt", 1, "nul",
		    "loadavg", 0.5, "a", "cpu", "boost", "max", 3);
		envdiff_flatten(a, &k, &v);
		line[0] = '\0';
		for (i = 0; i < k.n; i++)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s=%s ",
			    k.v[i], v.v[i]);
		is_str(line, "mhz=2400 x=2.5 big=9007199254740993 smt=true nul=null "
		    "loadavg=[0.5,\"a\"] cpu.boost.max=3 ", "flattened facts: no type, reals "
		    "shortest, integers exact, the rest as JSON");
		strv_clear(&k);
		strv_clear(&v);
		envdiff_flatten(NULL, &k, &v);
		is_int((int)k.n, 0, "no object, no facts");
		json_decref(a);
	}
	{
		char *s = envdiff_short("abcdefghij", 8);

		is_str(s, "abcde...", "a long value is cut with ...");
		free(s);
	}
}

int
main(void)
{
	struct transport_opts o;
	struct transport *t = NULL;
	struct tune_state *st = NULL;
	struct tune_spec *spec;
	char *err = NULL, *sum;
	json_t *j;
	int r;

	parse_tests();
	untuned_tests();
	envdiff_tests();

	if ((dir = tap_tmpdir("test-tune")) == NULL)
		return 1;
	memset(&o, 0, sizeof(o));
	o.name = "local";
	o.local = 1;
	if (transport_open(&o, &t, NULL, &err) != 0) {
		printf("Bail out! local transport: %s\n", err);
		return 1;
	}
	put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
	put("/sys/devices/system/cpu/cpufreq/boost", "1\n");
	put("/proc/sys/kernel/randomize_va_space", "2\n");
	put("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	put("/proc/sys/vm/drop_caches", "");
	put("/sys/devices/system/cpu/cpu0/cpuidle/state0/disable", "0\n");
	put("/sys/devices/system/cpu/cpu0/cpuidle/state1/disable", "0\n");
	put("/sys/devices/system/cpu/cpu0/cpuidle/state2/disable", "0\n");
	put("/sys/devices/system/cpu/cpu1/cpuidle/state2/disable", "0\n");
	/* numa_balancing a directory: there, and cannot be read or written */
	{
		char *p = path("/proc/sys/kernel/numa_balancing");

		mkdir(p, 0755);
		free(p);
	}

	if (tune_spec_profile("performance", &spec, &err) != 0)
		return 1;
	free(spec->root);
	spec->root = xstrdup(dir);
	free(spec->value[TUNE_THP]);
	spec->value[TUNE_THP] = xstrdup("never");
	spec->value[TUNE_SMT] = xstrdup("off");
	spec->value[TUNE_DROP_CACHES] = xstrdup("on");
	r = tune_apply(t, spec, save, NULL, NULL, &st, &err);
	is_int(r, 0, "apply: every item gets an outcome");
	check_outcome(st, TUNE_GOVERNOR, TUNE_APPLIED, "1 of 2 files, was powersave",
	    "governor applied: the CPU not yet at performance written");
	check_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance",
	    "cpu0's governor is performance");
	check_outcome(st, TUNE_BOOST, TUNE_APPLIED, "was 1", "boost off through cpufreq/boost");
	check_file("/sys/devices/system/cpu/cpufreq/boost", "0", "boost reads 0");
	check_outcome(st, TUNE_SMT, TUNE_UNAVAILABLE, "no smt/control",
	    "SMT on a host without smt/control: unavailable");
	check_outcome(st, TUNE_ASLR, TUNE_APPLIED, "was 2", "ASLR off");
	check_file("/proc/sys/kernel/randomize_va_space", "0", "randomize_va_space reads 0");
	check_outcome(st, TUNE_THP, TUNE_APPLIED, "was madvise", "THP as the plan says");
	check_outcome(st, TUNE_NUMA_BALANCING, TUNE_DENIED, "cannot read",
	    "NUMA balancing there but not writable: denied, with the reason");
	check_outcome(st, TUNE_IRQBALANCE, TUNE_APPLIED, "not running",
	    "irqbalance not running: nothing to stop");
	check_outcome(st, TUNE_CSTATES, TUNE_APPLIED, "2 of 2 files",
	    "C-states: every state deeper than state1 disabled");
	check_file("/sys/devices/system/cpu/cpu0/cpuidle/state2/disable", "1",
	    "cpu0 state2 disabled");
	check_file("/sys/devices/system/cpu/cpu0/cpuidle/state1/disable", "0\n",
	    "cpu0 state1 left alone");
	check_outcome(st, TUNE_DROP_CACHES, TUNE_APPLIED, "before each trial",
	    "dropping caches: tried once");
	ok(tune_changed(st) && tune_per_trial(st), "it changed the host; it acts per trial");
	ok(strstr(saves, "/proc/sys/kernel/randomize_va_space=2\n;") != NULL &&
	    strstr(saves, "cpu0/cpufreq/scaling_governor=powersave\n;") != NULL &&
	    strstr(saves, "cpu1/cpufreq") == NULL,
	    "every old content went to the save hook first; a file already right is not written");
	printf("# saves: %s\n", saves);
	j = tune_state_json(st);
	ok(json_is_object(j) && json_array_size(json_object_get(j, "items")) == 9 &&
	    strcmp(json_string_value(json_object_get(json_array_get(json_object_get(j, "items"),
	    5), "state")), "denied") == 0, "run.json's tune: nine items, numa-balancing denied");
	json_decref(j);
	sum = tune_summary(st);
	ok(strstr(sum, "aslr applied (off: was 2)") != NULL, "the summary line");
	printf("# %s\n", sum);
	free(sum);
	put("/proc/sys/vm/drop_caches", "");
	is_int(tune_before_trial(t, st, &err), 0, "before a trial: the caches dropped");
	check_file("/proc/sys/vm/drop_caches", "3", "(3 written to drop_caches)");

	r = tune_undo(t, st, 0, NULL, NULL, &err);
	is_int(r, 0, "undo");
	check_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n",
	    "the governor is back byte for byte");
	check_file("/sys/devices/system/cpu/cpufreq/boost", "1\n", "boost is back");
	check_file("/proc/sys/kernel/randomize_va_space", "2\n", "ASLR is back");
	check_file("/sys/kernel/mm/transparent_hugepage/enabled", "madvise",
	    "THP back as its chosen word (what sysfs takes)");
	check_file("/sys/devices/system/cpu/cpu0/cpuidle/state2/disable", "0\n",
	    "the idle states are back");
	check_file("/sys/devices/system/cpu/cpu1/cpuidle/state2/disable", "0\n", "on every CPU");

	/* A controller that died: its saved entries put back. */
	{
		char *p = path("/proc/sys/kernel/randomize_va_space");

		put("/proc/sys/kernel/randomize_va_space", "0");
		is_int(tune_write_back(t, p, "2\n", &err), 0, "tune_write_back() of a file");
		check_file("/proc/sys/kernel/randomize_va_space", "2\n", "... is back");
		is_int(tune_write_back(t, "service:irqbalance", "not running", &err), 0,
		    "a service that was not running is left alone");
		free(p);
	}

	/* Without a spec: nothing. */
	ok(tune_apply(t, NULL, save, NULL, NULL, &st, &err) == 0 && st == NULL,
	    "no profile: nothing applied");
	tune_spec_free(spec);
	transport_close(t);
	return tap_done();
}
