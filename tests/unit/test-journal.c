/*
 * test-journal.c: the run directory in a temporary directory: creating
 * it (complete, with the plan and a fleet snapshot that holds key paths
 * but nothing of the keys), trial lines and their fields, appends from
 * four threads at once (lines intact, a trial's lines together), run.json
 * replaced atomically under a reader that keeps reading it, resuming a
 * run killed in the middle of a line (tests/data/journal/run-killed):
 * opened and locked without a byte or a time stamp changed, then taken
 * up; the lock, a full disk (RLIMIT_FSIZE), the spare the last run.json
 * goes into, the modes of the directories under several umasks, host env
 * files and host logs.  The reader of trials.jsonl itself is
 * test-trialread.c's.
 *
 * Run from the top of the tree (fixtures are read from tests/data/).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "agentproto.h"
#include "catalog.h"
#include "fleet.h"
#include "journal.h"
#include "trialread.h"
#include "log.h"
#include "plan.h"
#include "rundir.h"
#include "strbuf.h"
#include "tap.h"
#include "xmalloc.h"

static const char catalog_json[] =
	"{\"type\":\"bench\",\"name\":\"munmap\",\"summary\":\"m\",\"params\":["
	"{\"name\":\"threads\",\"type\":\"cpus\",\"default\":\"4\"},"
	"{\"name\":\"pages\",\"type\":\"int\",\"default\":\"8\"},"
	"{\"name\":\"accesses\",\"type\":\"int\",\"default\":\"512\"}],"
	"\"metrics\":[{\"name\":\"ns_per_munmap\",\"unit\":\"ns\",\"direction\":\"lower\"},"
	"{\"name\":\"ns_per_access\",\"unit\":\"ns\",\"direction\":\"lower\"}]}\n";

static const char plan_yaml[] =
	"name: tlb-flush-range\n"
	"repeat: 2\n"
	"samples: 3\n"
	"variants:\n"
	"  never:\n"
	"    write: { /sys/kernel/mm/transparent_hugepage/enabled: never }\n"
	"  always:\n"
	"    write: { /sys/kernel/mm/transparent_hugepage/enabled: always }\n"
	"    setup: [\"sysctl -w vm.drop_caches=3\"]\n"
	"benchmarks:\n"
	"  - bench: munmap\n"
	"    params:\n"
	"      threads: [4, 50%]\n"
	"      pages: 16\n";

static const char *tmpdir;
static char *keypath;
static struct catalog *cat;
static struct plan *plan;
static struct fleet *fleet;

#define SECRET	"SECRET-KEY-MATERIAL-b3BlbnNzaC1rZXktdjEAAAAA"

static void
setup(void)
{
	char *err = NULL, *yaml;
	FILE *f;

	if ((tmpdir = tap_tmpdir("fm-journal")) == NULL) {
		printf("Bail out! mkdtemp\n");
		exit(1);
	}
	/* A fake private key and a passphrase-looking file next to it. */
	keypath = xasprintf("%s/id_fake", tmpdir);
	f = fopen(keypath, "w");
	fprintf(f, "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n",
	    SECRET);
	fclose(f);
	if (catalog_parse("test", catalog_json, strlen(catalog_json), &cat, &err) != 0 ||
	    plan_parse("plans/tlb-flush-range.yaml", plan_yaml, strlen(plan_yaml), cat,
	    &plan, &err) != 0) {
		printf("# %s\n", err);
		exit(1);
	}
	yaml = xasprintf("defaults:\n  identity: %s\n  user: bench\n"
	    "hosts:\n"
	    "  lab-01:\n    address: 192.0.2.1\n    labels: [x86_64]\n"
	    "  lab-02:\n    address: 192.0.2.2\n    proxy_jump: bench@gw.example.org\n"
	    "  lab-03:\n    address: 192.0.2.3\n"
	    "  lab-04:\n    address: 192.0.2.4\n"
	    "  other:\n    address: 192.0.2.9\n", keypath);
	if (fleet_parse("configs/lab.yaml", yaml, strlen(yaml), &fleet, &err) != 0) {
		printf("# %s\n", err);
		exit(1);
	}
	free(yaml);
}

static json_t *
load_json(const char *path)
{
	return json_load_file(path, 0, NULL);
}

/* Whether any file under dir holds `needle`. */
static int
tree_holds(const char *dir, const char *needle)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	int found = 0;

	if (d == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		char *p, *text;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			found = tree_holds(p, needle);
		else if ((text = tap_slurp(p, NULL)) != NULL) {
			found = strstr(text, needle) != NULL;
			free(text);
		}
		free(p);
	}
	closedir(d);
	return found;
}

/* A trial's results from agent lines. */
static struct ap_trial *
result_of(const char *text, const char *id)
{
	struct agentproto *ap = agentproto_new();
	struct ap_trial *t = ap_trial_new(id);
	struct ap_event ev;
	size_t off = 0, len = strlen(text);

	while (off < len) {
		off += agentproto_feed(ap, text + off, len - off);
		while (agentproto_next(ap, &ev) > 0)
			ap_trial_add(t, &ev);
	}
	agentproto_free(ap);
	return t;
}

static const char ok_lines[] =
	"{\"type\":\"header\",\"id\":\"t1\",\"bench\":\"munmap\",\"params\":{\"threads\":4,"
	"\"pages\":16,\"accesses\":512},\"samples\":3,\"pid\":4250,\"time\":1007099946.083}\n"
	"{\"type\":\"note\",\"id\":\"t1\",\"bench\":\"munmap\",\"text\":\"THP never\"}\n"
	"{\"type\":\"metric\",\"id\":\"t1\",\"bench\":\"munmap\",\"name\":\"ns_per_munmap\","
	"\"unit\":\"ns\",\"direction\":\"lower\",\"value\":5032.1,\"min\":4990.2,\"max\":5120.7,"
	"\"count\":3,\"iterations\":2000,\"samples\":[5032.1,4990.2,5120.7]}\n"
	"{\"type\":\"metric\",\"id\":\"t1\",\"bench\":\"munmap\",\"name\":\"ns_per_access\","
	"\"unit\":\"ns\",\"direction\":\"lower\",\"value\":1.35,\"min\":1.31,\"max\":1.4,"
	"\"count\":3,\"samples\":[1.35,1.31,1.4]}\n"
	"{\"type\":\"end\",\"id\":\"t1\",\"bench\":\"munmap\",\"status\":\"ok\",\"duration\":1.234}\n";

static struct journal *
create(const char *results, const unsigned char *sel, const char *id)
{
	struct journal_info info = { 0 };
	struct journal *j = NULL;
	char *err = NULL;

	info.results = results;
	info.run_id = id;
	info.plan = plan;
	info.seed = 18446744073709551557ull;
	info.fleet = fleet;
	info.sel = sel;
	info.label = "with-patch";
	info.controller = "0.1.0";
	info.start = 1007093700;	/* 2001-11-30T04:15:00Z */
	if (journal_create(&info, &j, &err) != 0) {
		printf("# %s\n", err);
		free(err);
		return NULL;
	}
	return j;
}

static int
count_line(const struct trial_line *l, void *arg)
{
	(void)l;
	(*(size_t *)arg)++;
	return 0;
}

/* A trial's profile goes on its first line; a wanted one that never came
 * is recorded as absent; the fast reader skips it. */
static void
test_profile(void)
{
	struct plan_schedule *s = plan_expand(plan, "lab-01", 1);
	struct journal *j = create(tmpdir, NULL, "run-profile");
	struct journal_trial jt;
	struct ap_trial *t;
	struct trial_scan sc;
	char *err = NULL, *p, *text, *nl, *lines;
	json_t *l1, *l2, *prof;
	size_t len, n = 0;

	lines = xasprintf("%.*s%s%s", (int)(strstr(ok_lines, "{\"type\":\"end\"") - ok_lines),
	    ok_lines, "{\"type\":\"profile\",\"id\":\"t1\",\"bench\":\"munmap\","
	    "\"profiler\":\"perf\",\"event\":\"cpu-clock\",\"samples\":100,\"top\":"
	    "[{\"sym\":\"flush_tlb_mm_range\",\"hits\":40,\"pct\":40},"
	    "{\"sym\":\"native_flush_tlb_one_user\",\"hits\":25,\"pct\":25}]}\n",
	    "{\"type\":\"end\",\"id\":\"t1\",\"bench\":\"munmap\",\"status\":\"ok\"}\n");
	t = result_of(lines, "t1");
	journal_trial_init(&jt, "lab-01", &s->trials[0]);
	jt.result = ap_trial_result(t);
	ok(journal_append(j, &jt, &err) == 0, "append a trial with a profile");
	ap_trial_free(t);
	t = result_of(ok_lines, "t1");
	journal_trial_init(&jt, "lab-01", &s->trials[1]);
	jt.result = ap_trial_result(t);
	jt.profile = 1;
	ok(journal_append(j, &jt, &err) == 0, "append a trial whose profile never came");

	p = xasprintf("%s/trials.jsonl", journal_dir(j));
	text = tap_slurp(p, &len);
	nl = strchr(text, '\n');
	l1 = json_loadb(text, (size_t)(nl - text), 0, NULL);
	l2 = json_loadb(nl + 1, (size_t)(strchr(nl + 1, '\n') - nl - 1), 0, NULL);
	prof = json_object_get(l1, "profile");
	ok(json_integer_value(json_object_get(prof, "samples")) == 100 &&
	    strcmp(json_string_value(json_object_get(prof, "event")), "cpu-clock") == 0 &&
	    json_array_size(json_object_get(prof, "top")) == 2 &&
	    json_integer_value(json_object_get(json_array_get(json_object_get(prof, "top"),
	    0), "hits")) == 40, "the profile on the first line: event, samples, top");
	ok(l2 != NULL && json_object_get(l2, "profile") == NULL,
	    "not repeated on the trial's second line");
	nl = strchr(nl + 1, '\n');
	json_decref(l1);
	l1 = json_loadb(nl + 1, (size_t)(strchr(nl + 1, '\n') - nl - 1), 0, NULL);
	ok(strcmp(json_string_value(json_object_get(json_object_get(l1, "profile"),
	    "absent")), "the agent sent no profile") == 0,
	    "a profile asked for and not sent is absent, with why");
	json_decref(l1);
	json_decref(l2);
	ok(trialread_file(p, TRIAL_ALL, count_line, &n, &sc, &err) == 0 && n == 4 &&
	    sc.corrupt == 0, "the fast reader reads lines with profiles");
	free(text);
	free(p);
	free(lines);
	ap_trial_free(t);
	journal_free(j);
	plan_schedule_free(s);
}

/* A monitor's counters are lines of their own, with the raw delta; a
 * monitor asked for that an older agent never sent is a note. */
static void
test_monitor(void)
{
	struct plan_schedule *s = plan_expand(plan, "lab-01", 1);
	struct journal *j = create(tmpdir, NULL, "run-monitor");
	struct journal_trial jt;
	struct ap_trial *t;
	char *err = NULL, *p, *text, *lines, *l;
	json_t *o, *mon, *notes;
	size_t len, nmon = 0, nold = 0;

	lines = xasprintf("%.*s%s%s", (int)(strstr(ok_lines, "{\"type\":\"end\"") - ok_lines),
	    ok_lines, "{\"type\":\"monitor\",\"id\":\"t1\",\"bench\":\"munmap\","
	    "\"monitor\":\"interrupts\",\"seconds\":0.25,\"ops\":6000,\"counters\":"
	    "{\"tlb_shootdowns\":3000}}\n",
	    "{\"type\":\"end\",\"id\":\"t1\",\"bench\":\"munmap\",\"status\":\"ok\"}\n");
	t = result_of(lines, "t1");
	journal_trial_init(&jt, "lab-01", &s->trials[0]);
	jt.monitors = PLAN_MON_INTERRUPTS;
	jt.result = ap_trial_result(t);
	ok(journal_append(j, &jt, &err) == 0, "append a trial with a monitor line");
	ap_trial_free(t);
	t = result_of(ok_lines, "t1");
	journal_trial_init(&jt, "lab-01", &s->trials[1]);
	jt.monitors = PLAN_MON_INTERRUPTS | PLAN_MON_VMSTAT;
	jt.result = ap_trial_result(t);
	ok(journal_append(j, &jt, &err) == 0, "append a trial whose agent sent no monitor line");

	p = xasprintf("%s/trials.jsonl", journal_dir(j));
	text = tap_slurp(p, &len);
	for (l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		o = json_loadb(l, (size_t)(strchr(l, '\n') - l), 0, NULL);
		mon = json_object_get(o, "monitor");
		notes = json_object_get(o, "notes");
		if (mon != NULL && strcmp(json_string_value(json_object_get(o, "metric")),
		    "interrupts:tlb_shootdowns") == 0 && json_real_value(json_object_get(o,
		    "value")) == 0.5 && json_integer_value(json_object_get(mon, "delta")) ==
		    3000 && json_integer_value(json_object_get(mon, "ops")) == 6000 &&
		    strcmp(json_string_value(json_object_get(mon, "counter")),
		    "tlb_shootdowns") == 0)
			nmon++;
		if (json_array_size(notes) == 3 && strstr(json_string_value(json_array_get(notes,
		    2)), "monitor vmstat: the agent sent none") != NULL)
			nold++;
		json_decref(o);
	}
	is_int((int)nmon, 1, "the counter's line: per operation, with delta, ops and counter");
	is_int((int)nold, 2, "no monitor line from the agent: a note per monitor on each line");
	free(text);
	free(p);
	free(lines);
	ap_trial_free(t);
	journal_free(j);
	plan_schedule_free(s);
}

static void
test_run_id(void)
{
	char *id = journal_new_run_id("tlb-flush-range", 1007093700);
	char *id2 = journal_new_run_id("a b/../c", 1007093700);

	ok(strncmp(id, "20011130-041500-tlb-flush-range-", 32) == 0 && strlen(id) == 36 &&
	    strspn(id + 32, "0123456789abcdef") == 4, "run id: YYYYMMDD-HHMMSS-name-XXXX in UTC");
	ok(strncmp(id2, "20011130-041500-a-b-..-c-", 25) == 0 && strchr(id2, '/') == NULL,
	    "run id: the plan name made safe for a path");
	free(id);
	free(id2);
}

/* Two ids of one plan made 20 ms apart in one second sort in that order. */
static void
test_run_id_order(void)
{
	struct timespec now, gap = { 0, 20 * 1000 * 1000 };
	char *a, *b;
	int i, ordered = 1, pairs = 0;

	for (i = 0; i < 20; i++) {
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_nsec > 900 * 1000 * 1000) {
			nanosleep(&gap, NULL);
			continue;
		}
		a = journal_new_run_id("order", now.tv_sec);
		nanosleep(&gap, NULL);
		b = journal_new_run_id("order", now.tv_sec);
		if (strcmp(a, b) >= 0) {
			printf("# %s not before %s\n", a, b);
			ordered = 0;
		}
		pairs++;
		free(a);
		free(b);
	}
	ok(pairs > 0 && ordered, "run ids of one second sort in the order they were made");
	a = journal_new_run_id("order", 1007093700);
	b = journal_new_run_id("order", 1007093700);
	ok(strlen(a) == 26 && strlen(b) == 26 && strncmp(a, b, 22) == 0,
	    "... and an id for another time is still stamp, name and 4 hex");
	free(a);
	free(b);
}

static void
test_create(void)
{
	unsigned char sel[5] = { 1, 1, 1, 1, 0 };
	char *results = xasprintf("%s/results/nested", tmpdir), *p;
	struct journal *j;
	json_t *run, *hosts, *pl, *fl;
	DIR *d;
	struct dirent *e;
	int leftovers = 0;
	size_t len;

	j = create(results, sel, NULL);
	ok(j != NULL, "create a run directory (and its missing parents)");
	if (j == NULL)
		exit(1);
	ok(strncmp(journal_run_id(j), "20011130-041500-tlb-flush-range-", 32) == 0,
	    "the run id from the plan name and start time");
	p = xasprintf("%s/trials.jsonl", journal_dir(j));
	free(tap_slurp(p, &len));
	ok(access(p, F_OK) == 0 && len == 0, "an empty trials.jsonl");
	free(p);
	p = xasprintf("%s/hosts", journal_dir(j));
	ok(access(p, F_OK) == 0, "hosts/");
	free(p);
	p = xasprintf("%s/logs", journal_dir(j));
	ok(access(p, F_OK) == 0, "logs/");
	free(p);
	d = opendir(results);
	while ((e = readdir(d)) != NULL)
		leftovers += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0;
	closedir(d);
	is_int(leftovers, 0, "no temporary directory left behind");

	p = xasprintf("%s/run.json", journal_dir(j));
	run = load_json(p);
	free(p);
	ok(run != NULL, "run.json is JSON");
	ok(json_integer_value(json_object_get(run, "format")) == JOURNAL_FORMAT, "format 1");
	is_str(json_string_value(json_object_get(run, "run")), journal_run_id(j), "run id");
	is_str(json_string_value(json_object_get(run, "status")), "running", "status running");
	is_str(json_string_value(json_object_get(run, "label")), "with-patch", "label");
	is_str(json_string_value(json_object_get(run, "start")), "2001-11-30T04:15:00Z", "start");
	ok(json_is_null(json_object_get(run, "end")), "no end yet");
	is_str(json_string_value(json_object_get(json_object_get(run, "controller"), "version")),
	    "0.1.0", "controller version");
	pl = json_object_get(run, "plan");
	ok(json_array_size(json_object_get(pl, "points")) == 2 &&
	    json_array_size(json_object_get(pl, "variants")) == 2 &&
	    json_integer_value(json_object_get(pl, "trials_per_host")) == 8,
	    "the plan as resolved: points, variants, trials per host");
	is_str(json_string_value(json_object_get(pl, "seed")), "18446744073709551557",
	    "a 64-bit seed, exactly");
	is_str(json_string_value(json_object_get(json_object_get(json_array_get(
	    json_object_get(pl, "points"), 1), "params"), "threads")), "50%",
	    "parameters as the plan gave them");
	is_str(json_string_value(json_object_get(json_object_get(json_array_get(
	    json_object_get(pl, "points"), 0), "params"), "accesses")), "512",
	    "defaults filled in");
	fl = json_object_get(run, "fleet");
	is_int(json_array_size(json_object_get(fl, "hosts")), 4, "the fleet: the selected hosts only");
	is_str(json_string_value(json_object_get(json_array_get(json_object_get(fl, "hosts"), 0),
	    "identity")), keypath, "the identity key's path");
	is_str(json_string_value(json_object_get(json_array_get(json_object_get(fl, "hosts"), 1),
	    "proxy_jump")), "bench@gw.example.org", "proxy_jump");
	hosts = json_object_get(run, "hosts");
	ok(json_object_size(hosts) == 4 && strcmp(json_string_value(json_object_get(
	    json_object_get(hosts, "lab-03"), "status")), "pending") == 0, "every host pending");
	json_decref(run);

	ok(!tree_holds(journal_dir(j), SECRET), "nothing of the key's contents is written");
	ok(!tree_holds(journal_dir(j), "BEGIN OPENSSH"), "not even its armour");
	ok(tree_holds(journal_dir(j), "id_fake"), "only its path");

	{
		/* The same id again: refused, and the first one is untouched. */
		struct journal_info info = { 0 };
		struct journal *j2 = NULL;
		char *err = NULL;

		info.results = results;
		info.run_id = journal_run_id(j);
		info.plan = plan;
		info.fleet = fleet;
		ok(journal_create(&info, &j2, &err) != 0 && strstr(err, "already exists"),
		    "an existing run id is refused");
		free(err);
	}
	journal_free(j);
	free(results);
}

static void
test_lines(void)
{
	struct plan_schedule *s = plan_expand(plan, "lab-01", 1);
	struct journal *j = create(tmpdir, NULL, "run-lines");
	struct journal_trial jt;
	struct ap_trial *t = result_of(ok_lines, "t1");
	char *err = NULL, *p, *text, *nl;
	json_t *l1, *l2, *l3;
	size_t len;

	journal_trial_init(&jt, "lab-01", &s->trials[0]);
	jt.start = 1007099946.0;
	jt.result = ap_trial_result(t);
	ok(journal_append(j, &jt, &err) == 0, "append an ok trial");
	journal_trial_init(&jt, "lab-01", &s->trials[1]);
	jt.start = 1007099950.5;
	jt.duration = 0.25;
	jt.status = AP_ST_CONNECT;
	jt.message = "cannot connect to 192.0.2.1 port 22: Connection refused";
	ok(journal_append(j, &jt, &err) == 0, "append a trial that never ran");

	p = xasprintf("%s/trials.jsonl", journal_dir(j));
	text = tap_slurp(p, &len);
	free(p);
	nl = strchr(text, '\n');
	l1 = json_loadb(text, (size_t)(nl - text), 0, NULL);
	l2 = json_loadb(nl + 1, (size_t)(strchr(nl + 1, '\n') - nl - 1), 0, NULL);
	nl = strchr(nl + 1, '\n');
	l3 = json_loadb(nl + 1, (size_t)(strchr(nl + 1, '\n') - nl - 1), 0, NULL);
	ok(l1 && l2 && l3 && text[len - 1] == '\n', "three lines: two metrics, one failure");
	ok(json_integer_value(json_object_get(l1, "format")) == 1 &&
	    strcmp(json_string_value(json_object_get(l1, "run")), "run-lines") == 0 &&
	    strcmp(json_string_value(json_object_get(l1, "host")), "lab-01") == 0 &&
	    strcmp(json_string_value(json_object_get(l1, "variant")), "never") == 0 &&
	    strcmp(json_string_value(json_object_get(l1, "bench")), "munmap") == 0,
	    "format, run, host, variant, bench");
	ok(json_object_size(json_object_get(l1, "params")) == 3 &&
	    strcmp(json_string_value(json_object_get(json_object_get(l1, "params"), "pages")),
	    "16") == 0, "the full parameter set");
	ok(json_integer_value(json_object_get(l1, "rep")) == 1 &&
	    strcmp(json_string_value(json_object_get(l1, "key")), s->trials[0].key) == 0,
	    "repetition and trial key");
	ok(strcmp(json_string_value(json_object_get(l1, "metric")), "ns_per_munmap") == 0 &&
	    strcmp(json_string_value(json_object_get(l1, "unit")), "ns") == 0 &&
	    strcmp(json_string_value(json_object_get(l1, "direction")), "lower") == 0,
	    "metric, unit, direction");
	is_num(json_number_value(json_object_get(l1, "value")), 5032.1, 1e-9, "the trial's value");
	ok(json_array_size(json_object_get(l1, "samples")) == 3 &&
	    json_number_value(json_array_get(json_object_get(l1, "samples"), 1)) == 4990.2,
	    "every raw sample, in order");
	ok(strstr(text, "[5032.1,4990.2,5120.7]") != NULL, "samples written as the agent sent them");
	ok(json_integer_value(json_object_get(l1, "iterations")) == 2000 &&
	    json_object_get(l2, "iterations") == NULL, "iterations when known");
	ok(json_integer_value(json_object_get(json_object_get(l1, "resolved"), "threads")) == 4,
	    "the agent's resolved parameters");
	ok(json_number_value(json_object_get(l1, "start")) == 1007099946.0 &&
	    json_number_value(json_object_get(l1, "duration")) == 1.234,
	    "start, and the agent's duration");
	ok(strcmp(json_string_value(json_object_get(l1, "status")), "ok") == 0 &&
	    strcmp(json_string_value(json_object_get(l1, "kind")), "ok") == 0 &&
	    json_object_get(l1, "message") == NULL, "status and kind ok, no message");
	ok(strcmp(json_string_value(json_array_get(json_object_get(l1, "notes"), 0)),
	    "THP never") == 0, "the agent's notes");
	ok(json_integer_value(json_object_get(l1, "part")) == 1 &&
	    json_integer_value(json_object_get(l2, "part")) == 2 &&
	    json_integer_value(json_object_get(l2, "parts")) == 2, "parts 1 and 2 of 2");
	ok(json_is_null(json_object_get(l3, "metric")) &&
	    json_array_size(json_object_get(l3, "samples")) == 0 &&
	    json_is_null(json_object_get(l3, "value")), "a failure: no metric, no samples");
	ok(strcmp(json_string_value(json_object_get(l3, "status")), "connect") == 0 &&
	    strcmp(json_string_value(json_object_get(l3, "kind")), "infrastructure") == 0 &&
	    strstr(json_string_value(json_object_get(l3, "message")), "Connection refused") &&
	    json_number_value(json_object_get(l3, "duration")) == 0.25,
	    "status connect, kind infrastructure, the reason");
	ok(json_integer_value(json_object_get(l3, "rep")) == 1 &&
	    strcmp(json_string_value(json_object_get(l3, "variant")), "never") == 0 &&
	    strcmp(json_string_value(json_object_get(json_object_get(l3, "params"),
	    "threads")), "50%") == 0, "the failed trial's point");
	json_decref(l1);
	json_decref(l2);
	json_decref(l3);
	free(text);

	/* A benchmark failure. */
	ap_trial_free(t);
	t = result_of("{\"type\":\"header\",\"id\":\"t2\",\"bench\":\"munmap\",\"params\":{},"
	    "\"samples\":3,\"pid\":1,\"time\":1}\n"
	    "{\"type\":\"error\",\"id\":\"t2\",\"class\":\"agent-crash\",\"message\":\"munmap died "
	    "of signal 11\"}\n{\"type\":\"end\",\"id\":\"t2\",\"status\":\"agent-crash\","
	    "\"duration\":0.5}\n", "t2");
	journal_trial_init(&jt, "lab-01", &s->trials[2]);
	jt.result = ap_trial_result(t);
	ok(journal_append(j, &jt, &err) == 0, "append a crash");
	p = xasprintf("%s/trials.jsonl", journal_dir(j));
	text = tap_slurp(p, &len);
	ok(strstr(text, "\"status\":\"agent-crash\",\"kind\":\"benchmark\",\"message\":\"munmap died "
	    "of signal 11\"") != NULL, "agent-crash is the benchmark's failure");
	free(text);
	{
		struct trial_done *d = NULL;
		struct trial_scan sc;

		ok(trial_done_read(p, &d, &sc, &err) == 0 && sc.lines == 4 && sc.corrupt == 0 &&
		    !sc.truncated && trial_done_count(d, NULL) == 1 &&
		    trial_done_has(d, "lab-01", s->trials[0].key) &&
		    !trial_done_has(d, "lab-01", s->trials[1].key) &&
		    !trial_done_has(d, "lab-01", s->trials[2].key) &&
		    !trial_done_has(d, "lab-02", s->trials[0].key),
		    "read back: only the ok trial is done");
		trial_done_free(d);
	}
	free(p);
	ap_trial_free(t);
	journal_free(j);
	plan_schedule_free(s);
}

/* --- Four threads appending at once ---------------------------------------- */

#define PER_THREAD	60

struct worker {
	struct journal		*j;
	const char		*host;
	const struct plan_schedule *s;
	const struct ap_result	*r;
	int			 failures;
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct journal_trial jt;
	char *err = NULL;
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		journal_trial_init(&jt, w->host, &w->s->trials[i % w->s->ntrials]);
		jt.rep = i + 1;		/* distinct keys: */
		jt.key = xasprintf("%s#%d", w->s->trials[i % w->s->ntrials].key, i);
		jt.start = 1007099946.0 + i;
		jt.result = w->r;
		if (journal_append(w->j, &jt, &err) != 0) {
			w->failures++;
			free(err);
			err = NULL;
		}
		free((char *)jt.key);
	}
	return NULL;
}

static void
test_threads(void)
{
	struct journal *j = create(tmpdir, NULL, "run-threads");
	struct plan_schedule *s = plan_expand(plan, "lab-01", 1);
	struct ap_trial *t = result_of(ok_lines, "t1");
	struct worker w[4];
	pthread_t th[4];
	const char *hosts[4] = { "lab-01", "lab-02", "lab-03", "lab-04" };
	char *p, *text, *line, *save = NULL, *err = NULL, prev_key[256] = "";
	size_t len, lines = 0, good = 0, together = 1;
	long long prev_part = 0;
	struct trial_done *d = NULL;
	int i, failures = 0;

	for (i = 0; i < 4; i++) {
		w[i].j = j;
		w[i].host = hosts[i];
		w[i].s = s;
		w[i].r = ap_trial_result(t);
		w[i].failures = 0;
		pthread_create(&th[i], NULL, worker_main, &w[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		failures += w[i].failures;
	}
	is_int(failures, 0, "four threads appended");
	p = xasprintf("%s/trials.jsonl", journal_dir(j));
	text = tap_slurp(p, &len);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *key = json_string_value(json_object_get(o, "key"));
		long long part = json_integer_value(json_object_get(o, "part"));

		lines++;
		good += o != NULL && key != NULL;
		/* Part 2 follows part 1 of the same trial, always. */
		if (part == 2 && (prev_part != 1 || key == NULL || strcmp(key, prev_key) != 0))
			together = 0;
		snprintf(prev_key, sizeof(prev_key), "%s", key ? key : "");
		prev_part = part;
		json_decref(o);
	}
	is_int(lines, 4 * PER_THREAD * 2, "every line is there");
	is_int(good, lines, "every line is whole JSON");
	ok(together, "a trial's lines are never interleaved with another's");
	ok(trial_done_read(p, &d, NULL, &err) == 0 && trial_done_count(d, NULL) == 4 * PER_THREAD &&
	    trial_done_count(d, "lab-03") == PER_THREAD, "and every trial reads back as done");
	trial_done_free(d);
	free(text);
	free(p);
	ap_trial_free(t);
	plan_schedule_free(s);
	journal_free(j);
}

/* --- run.json is replaced atomically --------------------------------------- */

struct reader {
	const char	*path;
	atomic_int	 stop;
	int		 reads, broken;
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;

	while (!atomic_load(&r->stop)) {
		json_t *o = json_load_file(r->path, 0, NULL);

		r->reads++;
		if (o == NULL || json_object_get(o, "hosts") == NULL)
			r->broken++;
		json_decref(o);
	}
	return NULL;
}

static void
test_run_json(void)
{
	struct journal *j = create(tmpdir, NULL, "run-status");
	struct reader rd = { 0 };
	pthread_t th;
	char *err = NULL, *p, *reason;
	json_t *run, *h, *env;
	int i, fails = 0;

	p = xasprintf("%s/run.json", journal_dir(j));
	rd.path = p;
	pthread_create(&th, NULL, reader_main, &rd);
	for (i = 0; i < 150; i++) {
		reason = xasprintf("attempt %d", i);
		fails += journal_host_status(j, i % 2 ? "lab-01" : "lab-02",
		    (enum journal_host_status)(i % 7), reason, &err) != 0;
		free(reason);
	}
	atomic_store(&rd.stop, 1);
	pthread_join(th, NULL);
	is_int(fails, 0, "150 updates of run.json");
	ok(rd.reads > 0 && rd.broken == 0, "a reader never saw it half written");
	if (rd.broken)
		printf("#   %d of %d reads broken\n", rd.broken, rd.reads);

	ok(journal_host_status(j, "lab-02", JOURNAL_HOST_FAILED,
	    "hostkey: the host key of lab-02 has changed", &err) == 0, "a host fails");
	env = json_pack("{s:s, s:s, s:s, s:i, s:s, s:{s:s, s:s}, s:i}", "type", "env", "id", "e1",
	    "agent", "0.1.0", "proto", 1, "arch", "aarch64", "uname", "release", "6.1.0-13-arm64",
	    "machine", "aarch64", "cpus", 8);
	ok(journal_host_env(j, "lab-01", env, &err) == 0, "a host's env facts");
	json_decref(env);
	ok(journal_finish(j, JOURNAL_INTERRUPTED, &err) == 0, "the run is interrupted");
	run = load_json(p);
	h = json_object_get(json_object_get(run, "hosts"), "lab-02");
	ok(strcmp(json_string_value(json_object_get(h, "status")), "failed") == 0 &&
	    strstr(json_string_value(json_object_get(h, "reason")), "has changed"),
	    "run.json: the host failed, and why");
	h = json_object_get(json_object_get(run, "hosts"), "lab-01");
	ok(strcmp(json_string_value(json_object_get(h, "agent")), "0.1.0") == 0 &&
	    strcmp(json_string_value(json_object_get(h, "arch")), "aarch64") == 0 &&
	    strcmp(json_string_value(json_object_get(h, "kernel")), "6.1.0-13-arm64") == 0,
	    "run.json: agent version, arch and kernel of a host");
	ok(strcmp(json_string_value(json_object_get(run, "status")), "interrupted") == 0 &&
	    json_is_string(json_object_get(run, "end")), "run.json: status and end");
	json_decref(run);
	free(p);
	p = xasprintf("%s/hosts/lab-01.json", journal_dir(j));
	run = load_json(p);
	ok(run && json_integer_value(json_object_get(run, "cpus")) == 8 &&
	    json_object_get(run, "type") == NULL && json_object_get(run, "id") == NULL,
	    "hosts/lab-01.json: the env facts without wire members");
	json_decref(run);
	free(p);
	p = xasprintf("%s/.run.json.tmp", journal_dir(j));
	ok(access(p, F_OK) != 0, "no temporary file left");
	free(p);
	ok(journal_host_status(j, "../etc", JOURNAL_HOST_DONE, NULL, &err) != 0 &&
	    strstr(err, "bad host name"), "a host name that is not a file name is refused");
	free(err);
	journal_free(j);
}

/* --- Resume ------------------------------------------------------------------- */

/*
 * What a run directory holds, to compare: for every entry under dir, its
 * name, mode, size, mtime (to the nanosecond) and, for a file, its bytes'
 * sum.  Into buf (cut at size).
 */
static void
snapshot_walk(const char *dir, const char *rel, char *buf, size_t size, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char **names = NULL;
	size_t nn = 0, cap = 0, i, k, len;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			xgrow(&names, &cap, nn + 1, sizeof(*names));
			names[nn++] = xstrdup(e->d_name);
		}
	closedir(d);
	for (i = 0; i < nn; i++)		/* readdir's order is no order */
		for (k = i + 1; k < nn; k++)
			if (strcmp(names[k], names[i]) < 0) {
				char *t = names[i];

				names[i] = names[k];
				names[k] = t;
			}
	for (i = 0; i < nn; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]), *r = xasprintf("%s%s", rel, names[i]);
		unsigned long sum = 0;
		char *text;

		if (lstat(p, &st) == 0) {
			if (S_ISREG(st.st_mode) && (text = tap_slurp(p, &len)) != NULL) {
				for (k = 0; k < len; k++)
					sum = sum * 31 + (unsigned char)text[k];
				free(text);
			}
			if (*n < size)
				*n += (size_t)snprintf(buf + *n, size - *n, "%s %o %lld %lld.%09ld %lx\n",
				    r, (unsigned)st.st_mode, (long long)st.st_size,
				    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, sum);
			if (S_ISDIR(st.st_mode)) {
				char *sub = xasprintf("%s/", r);

				snapshot_walk(p, sub, buf, size, n);
				free(sub);
			}
		}
		free(p);
		free(r);
		free(names[i]);
	}
	free(names);
}

static void
snapshot(const char *dir, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	snapshot_walk(dir, "", buf, size, &n);
}

/* Set the mtime of dir and what is in it an hour back. */
static void
age(const char *dir)
{
	struct timespec ts[2];
	DIR *d = opendir(dir);
	struct dirent *e;

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= 3600;
	ts[1] = ts[0];
	while (d != NULL && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, "..") != 0)
			utimensat(dirfd(d), e->d_name, ts, AT_SYMLINK_NOFOLLOW);
	if (d != NULL)
		closedir(d);
}

static int
copy_file(const char *from, const char *to)
{
	size_t len;
	char *text = tap_slurp(from, &len);
	FILE *f;

	if (text == NULL || (f = fopen(to, "wb")) == NULL)
		return -1;
	fwrite(text, 1, len, f);
	fclose(f);
	free(text);
	return 0;
}

static void
test_resume(void)
{
	char *dir = xasprintf("%s/20011130-041500-tlb-flush-range-3f2a", tmpdir);
	char *trials = xasprintf("%s/trials.jsonl", dir), *rj = xasprintf("%s/run.json", dir);
	char *err = NULL, *text;
	struct journal *j = NULL, *j2 = NULL;
	struct trial_done *d = NULL;
	struct trial_scan sc;
	struct journal_trial jt, jt0;
	struct ap_trial *t;
	static char *keys[] = { "threads", "pages" }, *vals[] = { "4", "16" };
	static char snap[8192], snap2[8192];
	char *err2 = NULL, *p;
	size_t len, before;
	json_t *run;
	int lvl;

	memset(&jt0, 0, sizeof(jt0));
	jt0.host = "lab-03";
	jt0.bench = "munmap";
	jt0.key = "-/munmap/threads=4,pages=16/2";
	jt0.status = AP_ST_BENCH;
	jt0.duration = -1;

	mkdir(dir, 0755);
	if (copy_file("tests/data/journal/run-killed/run.json", rj) != 0 ||
	    copy_file("tests/data/journal/run-killed/trials.jsonl", trials) != 0) {
		printf("# cannot copy tests/data/journal/run-killed (run from the top of the tree)\n");
		exit(1);
	}
	ok(trial_done_read(trials, &d, &sc, &err) == 0 && sc.truncated && sc.lines == 3 &&
	    sc.corrupt == 0 && trial_done_count(d, NULL) == 1, "a killed run read as it is: "
	    "3 lines and a truncated one, one trial done");
	trial_done_free(d);
	d = NULL;
	free(tap_slurp(trials, &before));
	/* An hour ago, so that a rewrite shows in the mtime too. */
	age(dir);
	snapshot(dir, snap, sizeof(snap));

	/* Opened, checked and refused: the run directory is as it was. */
	ok(journal_resume(dir, &j, &d, &err) == 0, "open it for resuming");
	if (j == NULL) {
		printf("# %s\n", err);
		exit(1);
	}
	is_str(journal_run_id(j), "20011130-041500-tlb-flush-range-3f2a", "the run id from run.json");
	ok(strcmp(json_string_value(json_object_get(journal_run_json(j), "status")),
	    "running") == 0 && json_array_size(json_object_get(journal_run_json(j),
	    "resumed")) == 0, "run.json as it was found (killed: still running)");
	ok(trial_done_has(d, "lab-03", "-/munmap/threads=4,pages=16/1"), "rep 1 is done");
	ok(!trial_done_has(d, "lab-03", "-/munmap/threads=4,pages=16/2"),
	    "rep 2 timed out, and its retry was cut short: not done");
	ok(journal_resume(dir, &j2, NULL, &err) != 0 && strstr(err, "in use"),
	    "locked: a second fleetmark cannot take the same run");
	free(err);
	err = NULL;
	ok(journal_append(j, &jt0, &err) != 0 && strstr(err, "not taken up") &&
	    journal_host_status(j, "lab-03", JOURNAL_HOST_RUNNING, NULL, &err2) != 0,
	    "nothing is written before journal_resume_start()");
	free(err);
	free(err2);
	err = err2 = NULL;
	snapshot(dir, snap2, sizeof(snap2));
	is_str(snap2, snap, "opened: not a byte, not a time stamp changed");
	journal_free(j);
	trial_done_free(d);
	d = NULL;
	j = NULL;
	snapshot(dir, snap2, sizeof(snap2));
	is_str(snap2, snap, "... nor once it is let go (a refused resume)");

	ok(journal_resume(dir, &j, &d, &err) == 0, "open it again");
	lvl = log_set_level(LOG_LEVEL_QUIET);	/* the warning is expected */
	ok(j != NULL && journal_resume_start(j, &err) == 0, "take it up");
	log_set_level(lvl);
	if (j == NULL || err != NULL) {
		printf("# %s\n", err);
		exit(1);
	}
	p = xasprintf("%s/%s", dir, RUNDIR_SPARE);
	ok(access(p, F_OK) == 0, "taken up: room kept for its last run.json");
	free(p);
	ok(journal_resume_start(j, &err) != 0, "only once");
	free(err);
	err = NULL;
	text = tap_slurp(trials, &len);
	ok(len < before && len > 0 && text[len - 1] == '\n', "the incomplete last line is cut off");
	free(text);
	ok(journal_resume(dir, &j2, NULL, &err) != 0 && strstr(err, "in use"),
	    "still locked");
	free(err);
	err = NULL;

	/* Run rep 2 again: ok now. */
	t = result_of(ok_lines, "t1");
	memset(&jt, 0, sizeof(jt));
	jt.host = "lab-03";
	jt.bench = "munmap";
	jt.nparams = 2;
	jt.keys = keys;
	jt.vals = vals;
	jt.rep = 2;
	jt.key = "-/munmap/threads=4,pages=16/2";
	jt.duration = -1;
	jt.result = ap_trial_result(t);
	ok(journal_append(j, &jt, &err) == 0, "append after resuming");
	ap_trial_free(t);
	trial_done_free(d);
	d = NULL;
	ok(trial_done_read(trials, &d, &sc, &err) == 0 && !sc.truncated && sc.corrupt == 0 &&
	    sc.lines == 5 && trial_done_count(d, "lab-03") == 2,
	    "every line whole; both trials done");
	trial_done_free(d);
	run = load_json(rj);
	ok(run && strcmp(json_string_value(json_object_get(run, "status")), "running") == 0 &&
	    json_array_size(json_object_get(run, "resumed")) == 1 &&
	    json_integer_value(json_object_get(json_object_get(json_object_get(run, "hosts"),
	    "lab-03"), "ok")) == 1, "run.json: running again, when it resumed, trials ok");
	json_decref(run);
	journal_free(j);

	ok(journal_resume(tmpdir, &j, NULL, &err) != 0 && strstr(err, "not a run directory"),
	    "a directory without run.json is not resumed");
	free(err);
	free(dir);
	free(trials);
	free(rj);
}

/* --- Reading lines back (the parser itself: test-trialread.c) --------------- */

struct got {
	size_t		 n;
	char		 desc[8][512];
};

static int
collect(const struct trial_line *l, void *arg)
{
	struct got *g = arg;
	char *d;
	size_t i, len;

	if (g->n >= 8)
		return 7;
	d = g->desc[g->n++];
	len = (size_t)snprintf(d, 512, "%zu|%s|%s|%s|%lld|%s|%s|%s|%d:%.17g|", l->lineno,
	    l->host, l->variant ? l->variant : "(null)", l->bench, l->rep, l->key,
	    l->metric ? l->metric : "(null)", l->status, l->has_value, l->value);
	for (i = 0; i < l->nparams && len < 500; i++)
		len += (size_t)snprintf(d + len, 512 - len, "%s=%s,", l->keys[i], l->vals[i]);
	for (i = 0; i < l->nresolved && len < 500; i++)
		len += (size_t)snprintf(d + len, 512 - len, "%s:%s,", l->rkeys[i], l->rvals[i]);
	for (i = 0; i < l->nsamples && len < 500; i++)
		len += (size_t)snprintf(d + len, 512 - len, "%.17g;", l->samples[i]);
	if (l->message && len < 500)
		snprintf(d + len, 512 - len, "|%s", l->message);
	return 0;
}

static void
test_read_lines(void)
{
	struct journal *j = create(tmpdir, NULL, "run-read");
	struct plan_schedule *s = plan_expand(plan, "lab-02", 1);
	struct ap_trial *t = result_of(ok_lines, "t1");
	struct journal_trial jt;
	struct trial_scan sc;
	struct got g = { 0 };
	char *p, *err = NULL;

	journal_trial_init(&jt, "lab-02", &s->trials[3]);
	jt.start = 1007099946.25;
	jt.result = ap_trial_result(t);
	journal_append(j, &jt, &err);
	journal_trial_init(&jt, "lab-02", &s->trials[4]);
	jt.status = AP_ST_HOSTKEY;
	jt.message = "the host key of lab-02 changed: \"ssh-ed25519\" \xc3\xa9\t\x01";
	journal_append(j, &jt, &err);
	{
		/* Text that is not UTF-8 is written as U+FFFD, never as invalid JSON. */
		static char *bk[] = { "k\xff" }, *bv[] = { "v\xfe\xc3" };
		struct journal_trial bad = jt;

		bad.nparams = 1;
		bad.keys = bk;
		bad.vals = bv;
		bad.status = AP_ST_SETUP;
		bad.message = "sudo: \xff";
		ok(journal_append(j, &bad, &err) == 0, "append a trial with text that is not UTF-8");
	}
	p = xasprintf("%s/trials.jsonl", journal_dir(j));
	ok(trialread_file(p, TRIAL_ALL, collect, &g, &sc, &err) == 0 && g.n == 4 && sc.corrupt == 0,
	    "trialread_file: every line written");
	ok(strstr(g.desc[3], "k\xef\xbf\xbd=v\xef\xbf\xbd\xef\xbf\xbd,|sudo: \xef\xbf\xbd") != NULL,
	    "bytes that are not UTF-8 became U+FFFD");
	is_str(g.desc[0], "1|lab-02|never|munmap|2|never/munmap/threads=50%25,pages=16,accesses=512/2|"
	    "ns_per_munmap|ok|1:5032.1000000000004|threads=50%,pages=16,accesses=512,threads:4,"
	    "pages:16,accesses:512,5032.1000000000004;4990.1999999999998;5120.6999999999998;",
	    "a metric line read back: params, resolved, value, samples");
	is_str(g.desc[2], "3|lab-02|always|munmap|1|always/munmap/threads=4,pages=16,"
	    "accesses=512/1|(null)|hostkey|0:0|threads=4,pages=16,accesses=512,|the host key of "
	    "lab-02 changed: \"ssh-ed25519\" \xc3\xa9\t\x01", "a failure read back: escapes decoded");
	free(p);
	journal_free(j);
	ap_trial_free(t);
	plan_schedule_free(s);
}

/* --- A full disk ------------------------------------------------------------- */

static void
test_disk_full(void)
{
	struct journal *j = create(tmpdir, NULL, "run-full");
	struct plan_schedule *s = plan_expand(plan, "lab-01", 1);
	struct ap_trial *t = result_of(ok_lines, "t1");
	struct journal_trial jt;
	struct rlimit old, lim;
	char *p, *err = NULL, *text;
	size_t before, after, len;
	struct trial_done *d = NULL;
	struct trial_scan sc;
	int r;

	journal_trial_init(&jt, "lab-01", &s->trials[0]);
	jt.result = ap_trial_result(t);
	ok(journal_append(j, &jt, &err) == 0, "a first trial");
	p = xasprintf("%s/trials.jsonl", journal_dir(j));
	free(tap_slurp(p, &before));

	/* Room for half a trial more: the write comes up short. */
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = (rlim_t)before + 300;
	setrlimit(RLIMIT_FSIZE, &lim);
	journal_trial_init(&jt, "lab-01", &s->trials[1]);
	jt.result = ap_trial_result(t);
	r = journal_append(j, &jt, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	ok(r != 0 && err != NULL && strstr(err, "cannot write") && strstr(err, "trials.jsonl"),
	    "a full disk is reported");
	if (err)
		printf("# %s\n", err);
	free(err);
	err = NULL;
	text = tap_slurp(p, &after);
	ok(after == before && text[after - 1] == '\n', "and what was written of it is cut off");
	free(text);
	ok(journal_append(j, &jt, &err) == 0, "once there is room, appending goes on");
	ok(trial_done_read(p, &d, &sc, &err) == 0 && sc.corrupt == 0 && !sc.truncated &&
	    trial_done_count(d, NULL) == 2, "no line was damaged");
	trial_done_free(d);
	free(tap_slurp(p, &len));
	free(p);
	ap_trial_free(t);
	plan_schedule_free(s);
	journal_free(j);
}

/* --- The spare, and modes ------------------------------------------------------ */

/*
 * The run.json that says a run ended is written into the space kept for
 * it while the run went: the spare's inode becomes run.json's, so a full
 * disk cannot keep the end from being said.
 */
static void
test_spare(void)
{
	struct journal *j = create(tmpdir, NULL, "run-spare");
	char *rj, *spare, *err = NULL, *text;
	struct stat st, sp;
	size_t len;
	json_t *run;

	if (j == NULL) {
		ok(0, "spare: a run directory");
		return;
	}
	rj = xasprintf("%s/run.json", journal_dir(j));
	spare = xasprintf("%s/%s", journal_dir(j), RUNDIR_SPARE);
	ok(stat(rj, &st) == 0 && stat(spare, &sp) == 0 && S_ISREG(sp.st_mode) &&
	    sp.st_size >= 2 * st.st_size + 8192 && sp.st_blocks * 512 >= sp.st_size,
	    "a new run keeps room for its last run.json: twice its size and 8 KiB, allocated");
	ok(journal_host_status(j, "lab-01", JOURNAL_HOST_DONE, NULL, &err) == 0 &&
	    access(spare, F_OK) == 0, "rewrites during the run leave it alone");
	ok(journal_finish(j, JOURNAL_FAILED, &err) == 0, "the run ends");
	ok(stat(rj, &st) == 0 && st.st_ino == sp.st_ino && access(spare, F_OK) != 0,
	    "... its last run.json written into the spare (same inode), which is gone");
	run = load_json(rj);
	ok(run != NULL && strcmp(json_string_value(json_object_get(run, "status")), "failed") == 0 &&
	    json_is_string(json_object_get(run, "end")) &&
	    strcmp(json_string_value(json_object_get(json_object_get(json_object_get(run, "hosts"),
	    "lab-01"), "status")), "done") == 0, "... whole: status, end, the hosts");
	json_decref(run);
	text = tap_slurp(rj, &len);
	ok(text != NULL && (off_t)len == st.st_size && st.st_size < sp.st_size &&
	    text[len - 1] == '\n' && strlen(text) == len, "... cut to its length, no NUL after it");
	free(text);
	journal_free(j);
	free(rj);
	free(spare);

	/* A run that ends without writing its end (a crash aside): no spare left. */
	j = create(tmpdir, NULL, "run-spare-2");
	spare = xasprintf("%s/%s", journal_dir(j), RUNDIR_SPARE);
	ok(access(spare, F_OK) == 0, "another run, another spare");
	journal_free(j);
	ok(access(spare, F_OK) != 0, "journal_free() removes a spare not used");
	free(spare);
	free(err);
}

/* The directories follow the umask as the files do (not mkdtemp's 0700). */
static void
test_modes(void)
{
	static const mode_t masks[] = { 022, 027, 002, 077 };
	struct journal *j;
	struct stat st;
	char *p, *err = NULL, id[64];
	size_t i;
	mode_t old;
	int bad = 0;

	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		mode_t want = 0777 & ~masks[i], wantf = 0644 & ~masks[i];
		const char *sub[] = { "", "/hosts", "/logs", "/restore" };
		size_t k;

		old = umask(masks[i]);
		snprintf(id, sizeof(id), "run-mode-%03o", (unsigned)masks[i]);
		j = create(tmpdir, NULL, id);
		if (j != NULL && journal_restore_save(j, "lab-01", "/tmp/x", "old", &err) != 0)
			bad++;
		umask(old);
		if (j == NULL) {
			bad++;
			continue;
		}
		for (k = 0; k < sizeof(sub) / sizeof(sub[0]); k++) {
			p = xasprintf("%s%s", journal_dir(j), sub[k]);
			if (stat(p, &st) != 0 || (st.st_mode & 07777) != want) {
				printf("# umask %03o: %s is %03o, not %03o\n", (unsigned)masks[i], p,
				    (unsigned)(st.st_mode & 07777), (unsigned)want);
				bad++;
			}
			free(p);
		}
		p = xasprintf("%s/run.json", journal_dir(j));
		if (stat(p, &st) != 0 || (st.st_mode & 07777) != wantf)
			bad++;
		free(p);
		journal_free(j);
	}
	is_int(bad, 0, "a run directory, hosts/, logs/ and restore/ are 0777 less the umask "
	    "(022, 027, 002, 077), run.json 0644 less it");
	free(err);
}

/* --- Host logs ------------------------------------------------------------- */

static int
out(struct journal *j, const char *host, const char *s)
{
	return journal_log_output(j, host, s, strlen(s));
}

static void
test_logs(void)
{
	struct journal *j = create(tmpdir, NULL, "run-logs");
	char *p, *text, *big, *line;
	size_t len, i, nlines = 0;
	int r = 0;

	r |= journal_log(j, "lab-01", "connected as %s@%s", "bench", "192.0.2.1");
	r |= out(j, "lab-01", "warning: cpu");
	r |= out(j, "lab-01", "freq gov\x1b[31mernor\r\nsecond");
	r |= out(j, "lab-01", " line\nno newline at the end");
	r |= journal_log_flush(j, "lab-01");
	big = xmalloc(JOURNAL_LOG_LINE + 100);
	memset(big, 'y', JOURNAL_LOG_LINE + 99);
	big[JOURNAL_LOG_LINE + 99] = '\n';
	r |= journal_log_output(j, "lab-02", big, JOURNAL_LOG_LINE + 100);
	free(big);
	is_int(r, 0, "log writes");
	ok(journal_log_error(j) == NULL, "no log error");
	ok(journal_log(j, "../x", "x") != 0, "a bad host name is refused");
	p = xasprintf("%s/logs/lab-01.log", journal_dir(j));
	text = tap_slurp(p, &len);
	free(p);
	ok(text && strstr(text, "Z connected as bench@192.0.2.1\n"), "a controller event");
	ok(text && strstr(text, "Z stderr: warning: cpufreq gov\\x1b[31mernor\n") != NULL,
	    "stderr lines assembled from chunks, the escape made harmless, CR dropped");
	ok(text && strstr(text, "Z stderr: second line\n") && strstr(text,
	    "Z stderr: no newline at the end\n"), "the last line flushed");
	ok(text && strncmp(text, "20", 2) == 0 && text[10] == 'T' && text[23] == 'Z',
	    "lines are timestamped 2001-11-30T04:15:02.123Z");
	free(text);
	p = xasprintf("%s/logs/lab-02.log", journal_dir(j));
	text = tap_slurp(p, &len);
	free(p);
	for (line = text, i = 0; line && (line = strchr(line, '\n')) != NULL; line++, i++)
		nlines++;
	is_int(nlines, 2, "a long line is split");
	free(text);
	journal_free(j);
}

/* Old contents kept for a variant's undo (restore/HOST). */
static void
test_restore(void)
{
	unsigned char sel[5] = { 1, 1, 1, 1, 0 };
	struct journal *j = create(tmpdir, sel, "20011130-041500-restore-0001");
	char **paths, **olds, *err = NULL, *p;
	size_t n = 0, i;
	FILE *f;

	if (j == NULL) {
		ok(0, "restore: a run directory");
		return;
	}
	is_int(journal_restore_list(j, "lab-01", &paths, &olds, &n, &err), 0,
	    "restore: no file, nothing to restore");
	is_int((int)n, 0, "... none");
	ok(journal_restore_save(j, "lab-01", "/sys/kernel/mm/transparent_hugepage/enabled",
	    "always madvise [never]\n", &err) == 0 &&
	    journal_restore_save(j, "lab-01", "/tmp/x y", "", &err) == 0 &&
	    journal_restore_save(j, "lab-01", "/sys/kernel/mm/transparent_hugepage/enabled",
	    "[always] madvise never\n", &err) == 0, "restore: three saves");
	ok(journal_restore_save(j, "../x", "/p", "o", &err) != 0 && strstr(err, "bad host"),
	    "restore: a bad host name is refused");
	free(err);
	err = NULL;
	/* A crash in the middle of a line leaves a cut line: never acted on. */
	p = xasprintf("%s/restore/lab-01", journal_dir(j));
	if ((f = fopen(p, "a")) != NULL) {
		fputs("2f7a 6e6577", f);
		fclose(f);
	}
	is_int(journal_restore_list(j, "lab-01", &paths, &olds, &n, &err), 0, "restore: listed");
	ok(n == 2 && strcmp(paths[0], "/sys/kernel/mm/transparent_hugepage/enabled") == 0 &&
	    strcmp(olds[0], "always madvise [never]\n") == 0 && strcmp(paths[1], "/tmp/x y") == 0 &&
	    strcmp(olds[1], "") == 0, "... in order, the first old content of a path kept, "
	    "a cut last line ignored");
	for (i = 0; i < n; i++) {
		free(paths[i]);
		free(olds[i]);
	}
	free(paths);
	free(olds);
	if ((f = fopen(p, "a")) != NULL) {
		fputs("\nzz 00\n", f);
		fclose(f);
	}
	ok(journal_restore_list(j, "lab-01", &paths, &olds, &n, &err) != 0 &&
	    strstr(err, "is damaged") && n == 0 && paths == NULL, "restore: a damaged line is an error");
	free(err);
	err = NULL;
	is_int(journal_restore_clear(j, "lab-01", &err), 0, "restore: cleared");
	ok(access(p, F_OK) != 0 && errno == ENOENT, "... the file is gone");
	free(p);
	p = xasprintf("%s/restore", journal_dir(j));
	ok(access(p, F_OK) != 0, "... and restore/ with it");
	free(p);
	is_int(journal_restore_clear(j, "lab-01", &err), 0, "restore: clearing twice is fine");
	journal_free(j);
}

/*
 * A fleet of more than JOURNAL_BIG_FLEET hosts: the first change is
 * written at once, and whatever was held back is in run.json at the end.
 */
static void
test_big_fleet(void)
{
	struct strbuf y = STRBUF_INIT;
	struct journal_info info = { 0 };
	struct journal *j = NULL;
	struct fleet *big = NULL;
	char *err = NULL, *path, name[16];
	json_t *o;
	size_t i, n = 0;

	strbuf_addstr(&y, "hosts:\n");
	for (i = 0; i < JOURNAL_BIG_FLEET + 36; i++)
		strbuf_addf(&y, "  h%03zu:\n    address: 192.0.2.%zu\n", i, i % 250 + 1);
	if (fleet_parse("big.yaml", y.buf, y.len, &big, &err) != 0) {
		printf("# %s\n", err);
		exit(1);
	}
	strbuf_release(&y);
	info.results = tmpdir;
	info.run_id = "run-big";
	info.plan = plan;
	info.seed = 1;
	info.fleet = big;
	info.controller = "0.1.0";
	info.start = 1007093700;
	ok(journal_create(&info, &j, &err) == 0, "big fleet: created");
	path = xasprintf("%s/run-big/run.json", tmpdir);
	ok(journal_host_status(j, "h000", JOURNAL_HOST_CONNECTING, NULL, &err) == 0,
	    "big fleet: a host connecting");
	o = load_json(path);
	is_str(json_string_value(json_object_get(json_object_get(json_object_get(o, "hosts"),
	    "h000"), "status")), "connecting", "big fleet: the first change is written at once");
	json_decref(o);
	for (i = 0; i < JOURNAL_BIG_FLEET + 36; i++) {
		snprintf(name, sizeof(name), "h%03zu", i);
		journal_host_status(j, name, JOURNAL_HOST_RUNNING, NULL, &err);
		journal_host_status(j, name, i == 7 ? JOURNAL_HOST_FAILED : JOURNAL_HOST_DONE,
		    i == 7 ? "connect: refused" : NULL, &err);
	}
	ok(journal_finish(j, JOURNAL_FINISHED, &err) == 0, "big fleet: finished");
	o = load_json(path);
	for (i = 0; i < JOURNAL_BIG_FLEET + 36; i++) {
		const char *st;

		snprintf(name, sizeof(name), "h%03zu", i);
		st = json_string_value(json_object_get(json_object_get(json_object_get(o,
		    "hosts"), name), "status"));
		n += st != NULL && strcmp(st, i == 7 ? "failed" : "done") == 0;
	}
	is_int((int)n, JOURNAL_BIG_FLEET + 36, "big fleet: every host's last state in the end");
	json_decref(o);
	free(path);
	journal_free(j);
	fleet_free(big);
}

int
main(void)
{
	setup();
	test_run_id();
	test_run_id_order();
	test_create();
	test_lines();
	test_profile();
	test_monitor();
	test_threads();
	test_run_json();
	test_resume();
	test_read_lines();
	test_disk_full();
	test_spare();
	test_modes();
	test_logs();
	test_restore();
	test_big_fleet();
	plan_free(plan);
	fleet_free(fleet);
	catalog_free(cat);
	free(keypath);
	return tap_done();
}
