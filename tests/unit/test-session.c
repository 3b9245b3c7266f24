/*
 * test-session: the run session's two rules (session.h), the final status
 * of a run that took place and the exit status that follows from it, for
 * every combination of an interruption, a failed journal write during the
 * run, a failed journal_finish() and the hosts' fates; and a resumed
 * session that is refused, or cannot run on any host, writing nothing.
 * The session run end to end is tested by tests/e2e (t400, t403, t408,
 * t410 and t603).  Run from the top of the tree (a fixture is copied from
 * tests/data/journal/run-killed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "fleet.h"
#include "fsutil.h"
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

/* A resumed session writes nothing until session_run() takes it up, and
 * that only for a run that has a host to run on. */
static void
test_resume_untouched(void)
{
	const char *tmp = tap_tmpdir("fm-session");
	char *dir, *p, *err = NULL, *rj0, *tj0, *rj1, *tj1;
	const char yaml[] = "hosts:\n  lab-03:\n    address: 192.0.2.3\n";
	struct session_config cfg;
	struct session *s = NULL;
	struct fleet *f = NULL;
	unsigned char sel[1] = { 0 };

	if (tmp == NULL || fleet_parse("lab.yaml", yaml, strlen(yaml), &f, &err) != 0) {
		printf("Bail out! %s\n", err ? err : "mkdtemp");
		exit(1);
	}
	dir = xasprintf("%s/run", tmp);
	mkdir(dir, 0755);
	p = xasprintf("%s/run.json", dir);
	copy("tests/data/journal/run-killed/run.json", p);
	free(p);
	p = xasprintf("%s/trials.jsonl", dir);
	copy("tests/data/journal/run-killed/trials.jsonl", p);
	free(p);
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

int
main(void)
{
	struct run_host hosts[2];
	struct run_summary sum;
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
	is_int(session_exit_status(JOURNAL_INTERRUPTED, &sum), SESSION_EXIT_INTERRUPTED,
	    "interrupted: 130");
	is_int(session_exit_status(JOURNAL_FAILED, &sum), CMD_EXIT_ERROR, "failed: 1");
	is_int(session_exit_status(JOURNAL_RUNNING, &sum), CMD_EXIT_ERROR,
	    "still running (never ended): 1");
	is_int(SESSION_EXIT_INTERRUPTED, 130, "130 is 128 + SIGINT");
	test_resume_untouched();
	return tap_done();
}
