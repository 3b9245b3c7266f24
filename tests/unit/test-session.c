/*
 * test-session: the run session's two rules (session.h), the final status
 * of a run that took place and the exit status that follows from it, for
 * every combination of an interruption, a failed journal write during the
 * run, a failed journal_finish() and the hosts' fates; a resumed session
 * that is refused, or cannot run on any host, writing nothing; and the
 * hosts session_resume_check() finds a resumed run to have left.
 * The session run end to end is tested by tests/e2e (t400, t403, t408,
 * t410 and t603).  Run from the top of the tree (a fixture is copied from
 * tests/data/journal/run-killed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog.h"
#include "cmd.h"
#include "fleet.h"
#include "fsutil.h"
#include "plan.h"
#include "run.h"
#include "rundir.h"
#include "session.h"
#include "tap.h"
#include "xmalloc.h"

/* dir/name's bytes and mtime, "LEN:SEC.NSEC:BYTES", a new string. */
static char *
state(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), *data = NULL, *err = NULL, *s;
	struct stat st;
	size_t len = 0;

	if (stat(p, &st) != 0 || fs_read_file(p, 0, &data, &len, &err) != 0) {
		free(err);
		s = xasprintf("%s: missing", name);
	} else
		s = xasprintf("%zu:%lld.%09ld:%s", len, (long long)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec, data);
	free(data);
	free(p);
	return s;
}

static void
copy(const char *from, const char *to)
{
	char *data = NULL, *err = NULL;
	size_t len = 0;

	if (fs_read_file(from, 0, &data, &len, &err) != 0 ||
	    fs_write_atomic(to, data, len, 0644, FS_NOSYNC, &err) != 0) {
		printf("Bail out! %s (run from the top of the tree)\n", err);
		exit(1);
	}
	free(data);
}

/* A copy of tests/data/journal/run-killed (plan tlb-flush-range, host
 * lab-03, not finished) in tmp/name: its path, a new string. */
static char *
fixture(const char *tmp, const char *name)
{
	char *dir = xasprintf("%s/%s", tmp, name), *p;

	mkdir(dir, 0755);
	p = xasprintf("%s/run.json", dir);
	copy("tests/data/journal/run-killed/run.json", p);
	free(p);
	p = xasprintf("%s/trials.jsonl", dir);
	copy("tests/data/journal/run-killed/trials.jsonl", p);
	free(p);
	return dir;
}

/* A resumed session writes nothing until session_run() takes it up, and
 * that only for a run that has a host to run on. */
static void
test_resume_untouched(const char *tmp)
{
	char *dir, *p, *err = NULL, *rj0, *tj0, *rj1, *tj1;
	const char yaml[] = "hosts:\n  lab-03:\n    address: 192.0.2.3\n";
	struct session_config cfg;
	struct session *s = NULL;
	struct fleet *f = NULL;
	unsigned char sel[1] = { 0 };

	if (fleet_parse("lab.yaml", yaml, strlen(yaml), &f, &err) != 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	dir = fixture(tmp, "run");
	rj0 = state(dir, "run.json");
	tj0 = state(dir, "trials.jsonl");

	ok(session_resume(dir, &s, &err) == 0 && s != NULL && session_rundir(s) != NULL,
	    "session_resume: opened");
	memset(&cfg, 0, sizeof(cfg));
	cfg.fleet = f;
	cfg.sel = sel;		/* -H of no host of the run */
	cfg.quiet = 1;
	ok(s != NULL && session_run(s, &cfg, &err) != 0 && err != NULL &&
	    strstr(err, "no host of the run"), "session_run with no host: refused");
	free(err);
	err = NULL;
	session_free(s);
	rj1 = state(dir, "run.json");
	tj1 = state(dir, "trials.jsonl");
	ok(strcmp(rj0, rj1) == 0 && strcmp(tj0, tj1) == 0,
	    "... run.json and trials.jsonl as they were, bytes and mtimes (the incomplete "
	    "last line too)");
	p = xasprintf("%s/%s", dir, RUNDIR_SPARE);
	ok(access(p, F_OK) != 0, "... no spare made");
	free(p);
	free(rj0);
	free(tj0);
	free(rj1);
	free(tj1);
	free(dir);
	fleet_free(f);
}

static const char munmap_json[] =
	"{\"type\":\"bench\",\"name\":\"munmap\",\"summary\":\"m\",\"params\":["
	"{\"name\":\"threads\",\"type\":\"cpus\",\"default\":\"4\"},"
	"{\"name\":\"pages\",\"type\":\"int\",\"default\":\"8\"}],\"metrics\":"
	"[{\"name\":\"ns_per_munmap\",\"unit\":\"ns\",\"direction\":\"lower\"}]}\n";

/*
 * session_resume_check() on a fresh session of the run-killed fixture
 * with fleet file `fleet` and o: its return, and its message in *msg
 * (a new string, or NULL); *cfg as it left it.  The session in *out.
 */
static int
check(const char *dir, const struct plan *p, const struct session_resume_opts *o,
    struct session_config *cfg, size_t *todo, char **msg, struct session **out)
{
	char *err = NULL;
	int r;

	memset(cfg, 0, sizeof(*cfg));
	cfg->plan = p;
	*msg = NULL;
	if (session_resume(dir, out, &err) != 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	r = session_resume_check(*out, cfg, o, todo, &err);
	*msg = err;
	return r;
}

/* Which hosts a resumed run has left (session_resume_check()). */
static void
test_resume_check(const char *tmp)
{
	const char plan_yaml[] = "name: tlb-flush-range\nrepeat: 2\nsamples: 3\n"
	    "benchmarks:\n  - bench: munmap\n    params:\n      threads: 4\n      pages: 16\n";
	const char lab[] = "hosts:\n  lab-01:\n    address: 192.0.2.1\n"
	    "  lab-03:\n    address: 192.0.2.3\n";
	const char other[] = "hosts:\n  lab-01:\n    address: 192.0.2.1\n";
	struct session_resume_opts o;
	struct session_config cfg;
	struct catalog *cat = NULL;
	struct plan *p = NULL;
	struct session *s = NULL;
	char *dir, *fleet, *fleet2, *msg = NULL, *err = NULL, *rj0, *rj1;
	size_t todo = 0;

	dir = fixture(tmp, "check");
	fleet = xasprintf("%s/lab.yaml", tmp);
	fleet2 = xasprintf("%s/other.yaml", tmp);
	if (catalog_parse("test", munmap_json, strlen(munmap_json), &cat, &err) != 0 ||
	    plan_parse("p.yaml", plan_yaml, strlen(plan_yaml), cat, &p, &err) != 0 ||
	    fs_write_atomic(fleet, lab, strlen(lab), 0644, FS_NOSYNC, &err) != 0 ||
	    fs_write_atomic(fleet2, other, strlen(other), 0644, FS_NOSYNC, &err) != 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	rj0 = state(dir, "run.json");
	memset(&o, 0, sizeof(o));
	o.fleet_file = fleet;

	is_int(check(dir, p, &o, &cfg, &todo, &msg, &s), 0, "the run's host, from -f: 0");
	ok(cfg.fleet != NULL && cfg.fleet->nhosts == 2 && cfg.sel != NULL && !cfg.sel[0] &&
	    cfg.sel[1], "... lab-03 selected, lab-01 not");
	ok(cfg.seed == session_rundir(s)->seed && cfg.mode == RUN_ATTACHED &&
	    cfg.give_up == NULL, "... the run's seed, attached (not a detached run)");
	is_int((long long)todo, 1, "... 1 trial left (rep 1 is ok in trials.jsonl, rep 2 not)");
	session_free(s);

	o.hosts = "lab-01";
	is_int(check(dir, p, &o, &cfg, &todo, &msg, &s), -1, "-H of no host of the run: -1");
	ok(msg != NULL && strstr(msg, "-H lab-01: no host of the run") != NULL &&
	    strstr(msg, "(its hosts: lab-03)") != NULL, "... naming the run's hosts");
	free(msg);
	session_free(s);

	o.hosts = NULL;
	o.give_up = "lab-03";
	is_int(check(dir, p, &o, &cfg, &todo, &msg, &s), -1, "--give-up of an attached run: -1");
	ok(msg != NULL && strstr(msg, "not a detached run") != NULL, "... saying so");
	free(msg);
	session_free(s);

	o.give_up = NULL;
	o.fleet_file = fleet2;
	is_int(check(dir, p, &o, &cfg, &todo, &msg, &s), -1, "a fleet without the run's host: -1");
	ok(msg != NULL && strstr(msg, "host 'lab-03' of the run is not in") != NULL,
	    "... naming the host");
	free(msg);
	session_free(s);

	rj1 = state(dir, "run.json");
	ok(strcmp(rj0, rj1) == 0, "run.json as it was: nothing written by the checks");
	free(rj0);
	free(rj1);
	free(fleet);
	free(fleet2);
	free(dir);
	plan_free(p);
	catalog_free(cat);
}

int
main(void)
{
	struct run_host hosts[2];
	struct run_summary sum;
	const char *tmp;
	char jerr[] = "cannot write results/x/trials.jsonl: No space left on device";

	memset(&sum, 0, sizeof(sum));
	memset(hosts, 0, sizeof(hosts));
	hosts[0].status = hosts[1].status = JOURNAL_HOST_DONE;
	sum.hosts = hosts;
	sum.nhosts = 2;

	is_int(session_final_status(&sum, 0), JOURNAL_FINISHED, "nothing went wrong: finished");
	is_int(session_final_status(&sum, 1), JOURNAL_FAILED,
	    "journal_finish() failed: failed");
	sum.interrupted = 1;
	is_int(session_final_status(&sum, 0), JOURNAL_INTERRUPTED, "interrupted");
	is_int(session_final_status(&sum, 1), JOURNAL_FAILED,
	    "interrupted, and journal_finish() failed: failed");
	sum.journal_error = jerr;
	is_int(session_final_status(&sum, 0), JOURNAL_FAILED,
	    "interrupted, and a journal write failed: failed (run's rule, now bisect-run's)");
	sum.interrupted = 0;
	is_int(session_final_status(&sum, 0), JOURNAL_FAILED, "a journal write failed: failed");
	sum.journal_error = NULL;

	is_int(session_exit_status(JOURNAL_FINISHED, &sum), CMD_EXIT_OK,
	    "finished, every host done, no trial failed: 0");
	hosts[1].failed = 1;
	is_int(session_exit_status(JOURNAL_FINISHED, &sum), CMD_EXIT_PARTIAL,
	    "finished, a trial failed: 3");
	hosts[1].failed = 0;
	hosts[0].status = JOURNAL_HOST_FAILED;
	is_int(session_exit_status(JOURNAL_FINISHED, &sum), CMD_EXIT_PARTIAL,
	    "finished, a host given up: 3");
	is_int(session_exit_status(JOURNAL_INTERRUPTED, &sum), CMD_EXIT_INTERRUPTED,
	    "interrupted: 130");
	is_int(session_exit_status(JOURNAL_FAILED, &sum), CMD_EXIT_ERROR, "failed: 1");
	is_int(session_exit_status(JOURNAL_RUNNING, &sum), CMD_EXIT_ERROR,
	    "still running (never ended): 1");
	is_int(CMD_EXIT_INTERRUPTED, 130, "130 is 128 + SIGINT");
	if ((tmp = tap_tmpdir("fm-session")) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_resume_untouched(tmp);
	test_resume_check(tmp);
	return tap_done();
}
