/*
 * test-rundir: the run directory API (rundir.h): the paths of its files,
 * its skeleton and the check that it can be taken up again, the hidden
 * directory it is built in (its mode follows the umask), the spare the
 * last run.json is written over, run.json read into a struct rundir_run
 * (the fixture of a killed run in tests/data/journal/run-killed/, and
 * run.json files that are not runs), the check that a run is of a plan,
 * and the run.json tree the journal builds and rewrites.  The run.json
 * journal_create() writes is tested in test-journal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "plan.h"
#include "rundir.h"
#include "tap.h"
#include "xmalloc.h"

#define KILLED	"tests/data/journal/run-killed"

static const char *tmpdir;

/* rundir_load() of a directory holding a run.json of text. */
static int
load_text(const char *text, struct rundir_run **run, char **err)
{
	char *dir = xasprintf("%s/t", tmpdir), *p = xasprintf("%s/run.json", dir);
	int r;

	mkdir(dir, 0755);
	tap_put(p, "w", text);
	r = rundir_load(dir, run, err);
	unlink(p);
	rmdir(dir);
	free(p);
	free(dir);
	return r;
}

static void
test_paths(void)
{
	char *p;

	p = rundir_path("results/x", RUNDIR_RUN_JSON);
	is_str(p, "results/x/run.json", "rundir_path: run.json");
	free(p);
	p = rundir_path("results/x", RUNDIR_TRIALS);
	is_str(p, "results/x/trials.jsonl", "rundir_path: trials.jsonl");
	free(p);
	p = rundir_env_path("results/x", "lab-03");
	is_str(p, "results/x/hosts/lab-03.json", "hosts/NAME.json");
	free(p);
	p = rundir_log_path("results/x", "lab-03");
	is_str(p, "results/x/logs/lab-03.log", "logs/NAME.log");
	free(p);
	p = rundir_restore_path("results/x", "lab-03");
	is_str(p, "results/x/restore/lab-03", "restore/NAME");
	free(p);
	ok(rundir_exists(KILLED), "rundir_exists: a run directory");
	ok(!rundir_exists("tests/data/journal"), "rundir_exists: a directory without run.json");
}

static void
test_skeleton(void)
{
	char *dir = xasprintf("%s/new", tmpdir), *p, *err = NULL;
	struct stat st;

	mkdir(dir, 0755);
	ok(rundir_make(dir, 0, &err) == 0, "rundir_make");
	p = xasprintf("%s/trials.jsonl", dir);
	ok(stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0, "an empty trials.jsonl");
	free(p);
	p = xasprintf("%s/hosts", dir);
	ok(stat(p, &st) == 0 && S_ISDIR(st.st_mode), "hosts/");
	free(p);
	p = xasprintf("%s/logs", dir);
	ok(stat(p, &st) == 0 && S_ISDIR(st.st_mode), "logs/");
	free(p);
	ok(rundir_make(dir, 0, &err) != 0 && err && strstr(err, "cannot create"),
	    "made twice: an error");
	free(err);
	err = NULL;
	ok(rundir_make(dir, 1, &err) == 0, "again (a resumed run): what is there is kept");
	ok(rundir_check(dir, &err) == 0, "rundir_check: a skeleton can be taken up again");
	p = xasprintf("%s/logs", dir);
	rmdir(p);
	ok(rundir_check(dir, &err) == 0, "... and one that misses a part");
	tap_put(p, "w", "");
	ok(rundir_check(dir, &err) != 0 && err && strstr(err, "logs is not a directory") &&
	    access(p, F_OK) == 0, "rundir_check: a file where logs/ should be, said without "
	    "touching anything");
	free(err);
	err = NULL;
	ok(rundir_make(dir, 1, &err) != 0 && err && strstr(err, "logs is not a directory"),
	    "again, with a file where logs/ should be: an error");
	unlink(p);
	free(p);
	free(err);
	err = NULL;
	p = xasprintf("%s/trials.jsonl", dir);
	unlink(p);
	mkdir(p, 0755);
	ok(rundir_check(dir, &err) != 0 && err && strstr(err, "not a regular file"),
	    "rundir_check: a directory where trials.jsonl should be");
	rmdir(p);
	free(p);
	free(err);
	err = NULL;
	rundir_unmake(dir);
	ok(access(dir, F_OK) != 0, "rundir_unmake removes what it made, and the directory");
	free(dir);
}

static void
test_load(void)
{
	struct rundir_run *run = NULL;
	const struct rundir_host *h;
	char *err = NULL;

	ok(rundir_load(KILLED, &run, &err) == 0, "rundir_load: the killed run");
	if (run == NULL) {
		printf("# %s (run from the top of the tree)\n", err);
		exit(1);
	}
	ok(run->id != NULL && strstr(run->id, "-041500-tlb-flush-range-3f2a") != NULL,
	    "the run id");
	is_str(run->status, "running", "status");
	is_str(run->label, "with-patch", "label");
	ok(run->start != NULL && run->end == NULL, "start, and no end while running");
	is_str(run->controller, "0.1.0", "the controller's version");
	is_str(run->plan, "tlb-flush-range", "plan.name");
	is_str(run->plan_file, "plans/tlb-flush-range.yaml", "plan.file");
	ok(run->seed == 1, "plan.seed, from its decimal string");
	ok(run->npoints == 1 && strcmp(run->points[0], "munmap/threads=4,pages=16") == 0,
	    "plan.points' ids");
	ok(run->has_variants && run->nvariants == 1, "plan.variants");
	ok(run->threshold < 0 && run->nmetrics == 0, "no regression: threshold < 0, no metrics");
	is_str(run->fleet, "configs/lab.yaml", "fleet.file");
	is_int(run->nhosts, 1, "one host");
	h = rundir_run_host(run, "lab-03");
	ok(h != NULL && strcmp(h->status, "running") == 0 && h->reason == NULL &&
	    strcmp(h->arch, "x86_64") == 0 && strcmp(h->kernel, "6.1.0-13-amd64") == 0 &&
	    h->ok == 0 && h->failed == 0, "the host's entry");
	ok(rundir_run_host(run, "lab-04") == NULL, "a host not in the run");
	rundir_run_free(run);

	ok(load_text("{\"format\": 1, \"plan\": {\"regression\": {\"threshold\": 7.5, "
	    "\"metrics\": [\"munmap.ns\", 3, \"exec.seconds\"]}}, \"hosts\": {\"b\": {}, "
	    "\"a\": {}}}", &run, &err) == 0, "a sparse run.json reads");
	if (run != NULL) {
		ok(run->id == NULL && run->status == NULL && run->plan == NULL && run->seed == 0 &&
		    run->points == NULL && !run->has_variants, "what it lacks is NULL or 0");
		ok(run->threshold == 7.5 && run->nmetrics == 2 &&
		    strcmp(run->metrics[1], "exec.seconds") == 0,
		    "regression: the threshold, and the metrics that are strings");
		ok(run->nhosts == 2 && strcmp(run->hosts[0].name, "b") == 0 &&
		    strcmp(run->hosts[1].name, "a") == 0, "hosts in the file's order");
		rundir_run_free(run);
	}

	is_int(rundir_load("/nonexistent/run", &run, &err), RUNDIR_ENOTRUN,
	    "no run.json: RUNDIR_ENOTRUN");
	ok(err && strstr(err, "/nonexistent/run is not a run directory (no run.json)"),
	    "... saying so");
	free(err);
	err = NULL;
	ok(load_text("{\"format\": 2, \"run\": \"x\"}", &run, &err) == -1 && run == NULL &&
	    err && strstr(err, "unknown format 2 (this fleetmark reads format 1)"),
	    "another format: refused");
	free(err);
	err = NULL;
	ok(load_text("{\"run\": \"x\"}", &run, &err) == -1 && err &&
	    strstr(err, "not a fleetmark run"), "no format: not a run");
	free(err);
	err = NULL;
	ok(load_text("[1]", &run, &err) == -1 && err && strstr(err, "not a fleetmark run"),
	    "not an object: not a run");
	free(err);
	err = NULL;
	ok(load_text("{\"format\": 1,", &run, &err) == -1 && err && strstr(err, "run.json:1:"),
	    "not JSON: the file, line and column");
	free(err);
	err = NULL;
	ok(load_text("{\"format\": 1, \"run\": \"a\", \"run\": \"b\"}", &run, &err) == -1 &&
	    err && strstr(err, "duplicate"), "a duplicate member: refused");
	free(err);
}

static void
test_check_plan(void)
{
	struct plan_point pts[2];
	struct plan p;
	struct rundir_run *run = NULL;
	char *err = NULL;

	memset(&p, 0, sizeof(p));
	memset(pts, 0, sizeof(pts));
	p.name = (char *)"tlb-flush-range";
	p.points = pts;
	p.npoints = 1;
	p.nvariants = 1;
	pts[0].id = (char *)"munmap/threads=4,pages=16";
	pts[1].id = (char *)"munmap/threads=8,pages=16";
	if (rundir_load(KILLED, &run, &err) != 0) {
		printf("# %s\n", err);
		exit(1);
	}
	ok(rundir_check_plan(run, &p, &err) == 0, "the plan of the run");
	p.name = (char *)"smoke";
	ok(rundir_check_plan(run, &p, &err) != 0 && err &&
	    strstr(err, "the run is of plan 'tlb-flush-range', not 'smoke'"), "another plan");
	free(err);
	err = NULL;
	p.name = (char *)"tlb-flush-range";
	p.npoints = 2;
	ok(rundir_check_plan(run, &p, &err) != 0 && err && strstr(err, "(2 points, the run "
	    "has 1)"), "a point more");
	free(err);
	err = NULL;
	p.npoints = 1;
	p.points = pts + 1;
	ok(rundir_check_plan(run, &p, &err) != 0 && err && strstr(err, "point 1 is "
	    "munmap/threads=8,pages=16, the run has munmap/threads=4,pages=16"), "another point");
	free(err);
	err = NULL;
	p.points = pts;
	p.nvariants = 2;
	ok(rundir_check_plan(run, &p, &err) != 0 && err && strstr(err, "(variants)"),
	    "a variant more");
	free(err);
	rundir_run_free(run);
}

static void
test_tree(void)
{
	json_t *run = json_object(), *e, *env;
	char *dir = xasprintf("%s/w", tmpdir), *p, *err = NULL, *s;
	struct rundir_run *r = NULL;

	rundir_json_set(run, "format", json_integer(RUNDIR_FORMAT));
	rundir_json_set_id(run, "20011130-041500-x-0000");
	e = rundir_json_host(run, "lab-01", "pending");
	ok(e != NULL && e == rundir_json_host(run, "lab-01", "running"),
	    "rundir_json_host: an entry made once");
	rundir_json_host_status(e, "failed", "connect: refused");
	env = json_pack("{s:s, s:s, s:{s:s}}", "agent", "0.1.0", "arch", "aarch64", "uname",
	    "release", "6.6.0");
	rundir_json_host_env(e, env);
	json_decref(env);
	rundir_json_host_counts(e, 3, 1);
	rundir_json_set_status(run, "finished", 1);
	rundir_json_resumed(run);
	ok(strcmp(json_string_value(json_object_get(run, "status")), "running") == 0 &&
	    json_is_null(json_object_get(run, "end")) &&
	    json_array_size(json_object_get(run, "resumed")) == 1,
	    "rundir_json_resumed: running again, no end, when it resumed");
	rundir_json_set_status(run, "interrupted", 1);
	ok(json_is_string(json_object_get(run, "end")), "rundir_json_set_status: ended, an end");

	mkdir(dir, 0755);
	p = rundir_path(dir, RUNDIR_RUN_JSON);
	ok(rundir_write_json(p, run, &err) == 0, "rundir_write_json");
	free(p);
	p = xasprintf("%s/.run.json.tmp", dir);
	ok(access(p, F_OK) != 0, "... leaves no temporary");
	free(p);
	ok(rundir_load(dir, &r, &err) == 0 && strcmp(r->id, "20011130-041500-x-0000") == 0 &&
	    strcmp(r->status, "interrupted") == 0 && r->nhosts == 1 &&
	    strcmp(r->hosts[0].status, "failed") == 0 &&
	    strcmp(r->hosts[0].reason, "connect: refused") == 0 &&
	    strcmp(r->hosts[0].agent, "0.1.0") == 0 && strcmp(r->hosts[0].arch, "aarch64") == 0 &&
	    strcmp(r->hosts[0].kernel, "6.6.0") == 0 && r->hosts[0].ok == 3 &&
	    r->hosts[0].failed == 1, "read back as written");
	rundir_run_free(r);
	p = rundir_path(dir, "sub/none.json");
	ok(rundir_write_json(p, run, &err) != 0 && err && strstr(err, "cannot create"),
	    "a write that cannot be made: an error naming the temporary");
	free(p);
	free(err);
	err = NULL;

	env = json_string("\xff" "ab\xc3");
	ok(env == NULL, "jansson refuses bytes that are not UTF-8");
	env = rundir_json_str("\xff" "ab\xc3");
	s = json_dumps(env, JSON_ENCODE_ANY);
	is_str(s, "\"\xef\xbf\xbd" "ab\xef\xbf\xbd\"", "rundir_json_str: U+FFFD for them");
	free(s);
	json_decref(env);
	ok(json_is_null(e = rundir_json_str(NULL)), "rundir_json_str(NULL): null");
	json_decref(e);

	p = rundir_path(dir, RUNDIR_HOSTS);
	mkdir(p, 0755);
	free(p);
	p = rundir_env_path(dir, "lab-01");
	tap_put(p, "w", "{\"arch\": \"x86_64\"}\n");
	ok(rundir_load_env(dir, "lab-01", &env, &err) == 0 &&
	    strcmp(json_string_value(json_object_get(env, "arch")), "x86_64") == 0,
	    "rundir_load_env");
	json_decref(env);
	unlink(p);
	free(p);
	ok(rundir_load_env(dir, "lab-02", &env, &err) != 0 && env == NULL && err != NULL,
	    "rundir_load_env: no such host");
	free(err);
	err = NULL;
	ok(rundir_load_env(dir, "../x", &env, &err) != 0 && err && strstr(err, "bad host name"),
	    "rundir_load_env: a host name with a '/'");
	free(err);
	json_decref(run);
	tap_rmtree(dir);
	free(dir);
}

/* The hidden directory a run is built in follows the umask (not 0700). */
static void
test_mktemp(void)
{
	char *a = NULL, *b = NULL, *err = NULL, *prefix = xasprintf("%s/.fleetmark-run-", tmpdir);
	struct stat st;
	mode_t old = umask(027);

	ok(rundir_mktemp(tmpdir, ".fleetmark-run-", &a, &err) == 0 &&
	    rundir_mktemp(tmpdir, ".fleetmark-run-", &b, &err) == 0, "rundir_mktemp, twice");
	umask(old);
	ok(a && b && strcmp(a, b) != 0 && strncmp(a, prefix, strlen(prefix)) == 0 &&
	    strlen(a) == strlen(prefix) + 6, "two new names: the prefix and six characters");
	ok(a && stat(a, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750,
	    "0777 less the umask (027: 0750), not mkdtemp's 0700");
	if (a)
		rmdir(a);
	if (b)
		rmdir(b);
	free(a);
	ok(rundir_mktemp("/nonexistent", ".x-", &a, &err) != 0 && err &&
	    strstr(err, "cannot create a directory in /nonexistent") && a == NULL,
	    "a parent that is not there");
	free(err);
	free(b);
	free(prefix);
}

/* The spare: run.json written over it, and without one, nothing changed. */
static void
test_spare(void)
{
	char *dir = xasprintf("%s/spare", tmpdir), *rj = xasprintf("%s/run.json", dir);
	char *sp = xasprintf("%s/" RUNDIR_SPARE, dir), *err = NULL, *text;
	json_t *o = json_pack("{s:i, s:s}", "format", 1, "status", "failed");
	struct stat st, st2;
	FILE *f;
	size_t n;

	mkdir(dir, 0755);
	tap_put(rj, "w", "{\"format\": 1, \"status\": \"running\"}\n");
	ok(rundir_write_json_spare(dir, o, &err) != 0 && err && strstr(err, RUNDIR_SPARE),
	    "no spare: an error");
	free(err);
	err = NULL;
	text = NULL;
	if ((f = fopen(rj, "r")) != NULL) {
		text = xmalloc(256);
		n = fread(text, 1, 255, f);
		text[n] = '\0';
		fclose(f);
	}
	ok(text && strstr(text, "running"), "... and run.json as it was");
	free(text);
	ok(rundir_spare_make(dir, 65536, &err) == 0 && stat(sp, &st) == 0 &&
	    st.st_size == 65536 && (long long)st.st_blocks * 512 >= 65536,
	    "rundir_spare_make: 64 KiB, allocated");
	ok(rundir_write_json_spare(dir, o, &err) == 0, "run.json written over the spare");
	ok(stat(rj, &st2) == 0 && st2.st_ino == st.st_ino && st2.st_size < 100 &&
	    access(sp, F_OK) != 0, "... which became run.json, cut to length");
	json_decref(o);
	o = json_load_file(rj, 0, NULL);
	is_str(o ? json_string_value(json_object_get(o, "status")) : NULL, "failed",
	    "... holding what was written");
	json_decref(o);
	ok(rundir_spare_make(dir, 4096, &err) == 0, "another spare");
	rundir_spare_remove(dir);
	ok(access(sp, F_OK) != 0, "rundir_spare_remove");
	unlink(rj);
	rmdir(dir);
	free(dir);
	free(rj);
	free(sp);
}

int
main(void)
{
	if ((tmpdir = tap_tmpdir("fm-rundir")) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_paths();
	test_skeleton();
	test_mktemp();
	test_spare();
	test_load();
	test_check_plan();
	test_tree();
	return tap_done();
}
