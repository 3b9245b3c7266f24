/*
 * test-detach.c: detached runs: the host directory the agent accepts, the
 * trial ids of a list, a collect answer's trials put together, the
 * "detached" line, and the trials collect does not run again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agent.h"
#include "agentproto.h"
#include "cmd.h"
#include "journal.h"
#include "run.h"
#include "rundir.h"
#include "session.h"
#include "detach.h"
#include "tap.h"
#include "trialread.h"
#include "xmalloc.h"

static void
test_dir(void)
{
	ok(detach_dir_valid("/tmp/fleetmark/runs/20011201-170000-smoke-1a2b"), "a run's directory");
	ok(detach_dir_valid("/home/bench/.fm/runs/r.1_x-2"), "under any work directory");
	ok(!detach_dir_valid("tmp/fleetmark/runs/r1"), "not a relative path");
	ok(!detach_dir_valid("/tmp/fleetmark/r1"), "not outside runs/");
	ok(!detach_dir_valid("/tmp/fleetmark/runs/"), "not runs/ itself");
	ok(!detach_dir_valid("/tmp/fleetmark/runs/.."), "not a dot name");
	ok(!detach_dir_valid("/tmp/../etc/runs/r1"), "not with ..");
	ok(!detach_dir_valid("/tmp//runs/r1"), "not with //");
	ok(!detach_dir_valid("/tmp/runs/r 1"), "not with a blank in the run id");
	ok(!detach_dir_valid("/tmp/x'y/runs/r1"), "not with a quote");
	ok(!detach_dir_valid(NULL), "not NULL");
}

static void
test_index(void)
{
	size_t i = 99;
	char *d;

	ok(detach_trial_index("t1", 3, &i) == 0 && i == 0, "t1 is the first trial");
	ok(detach_trial_index("t3", 3, &i) == 0 && i == 2, "t3 the third");
	ok(detach_trial_index("t4", 3, &i) != 0, "t4 is past a list of 3");
	ok(detach_trial_index("t0", 3, &i) != 0, "t0 is none");
	ok(detach_trial_index("t01", 3, &i) != 0, "nor a leading zero");
	ok(detach_trial_index("t-1", 3, &i) != 0, "nor a sign");
	ok(detach_trial_index("x1", 3, &i) != 0, "nor another letter");
	ok(detach_trial_index("t", 3, &i) != 0, "nor no number");
	ok(detach_trial_index("t99999999999999999999999", 3, &i) != 0, "nor a huge one");
	ok(detach_trial_index(NULL, 3, &i) != 0, "nor NULL");
	d = detach_host_dir("/tmp/fleetmark/", "r1");
	is_str(d, "/tmp/fleetmark/runs/r1", "the host directory");
	free(d);
}

/* Feed text to a gather; the trials it ended, as "t1:ok,t2:timeout,". */
static char *
gather(const char *text, size_t n, size_t *foreign)
{
	struct agentproto *ap = agentproto_new();
	struct detach_gather *g = detach_gather_new(n);
	size_t off = 0, len = strlen(text), idx;
	struct ap_event ev;
	struct ap_trial *t;
	char out[256] = "";
	double start;

	*foreign = 0;
	while (off < len || agentproto_next(ap, &ev) > 0) {
		if (off < len)
			off += agentproto_feed(ap, text + off, len - off);
		while (agentproto_next(ap, &ev) > 0) {
			if (detach_gather_add(g, &ev, &idx, foreign) == 1 &&
			    (t = detach_gather_take(g, idx, &start)) != NULL) {
				snprintf(out + strlen(out), sizeof(out) - strlen(out), "t%zu:%s@%g,",
				    idx + 1, ap_status_name(ap_trial_result(t)->status), start);
				ap_trial_free(t);
			}
		}
	}
	ok(detach_gather_take(g, 0, &start) == NULL, "a trial is taken once");
	detach_gather_free(g);
	agentproto_free(ap);
	return xstrdup(out);
}

#define HDR(id, t) "{\"type\":\"header\",\"id\":\"" id "\",\"bench\":\"lat_syscall\"," \
	"\"params\":{\"op\":\"null\"},\"samples\":1,\"pid\":9,\"time\":" t "}\n"
#define MET(id) "{\"type\":\"metric\",\"id\":\"" id "\",\"bench\":\"lat_syscall\"," \
	"\"name\":\"latency\",\"unit\":\"us\",\"direction\":\"lower\",\"value\":1,\"min\":1," \
	"\"max\":1,\"count\":1,\"samples\":[1]}\n"
#define END(id, st) "{\"type\":\"end\",\"id\":\"" id "\",\"status\":\"" st "\"}\n"

static void
test_gather(void)
{
	size_t foreign;
	char *s;

	s = gather(HDR("t2", "100") MET("t2") END("t2", "ok") HDR("t1", "200")
	    "{\"type\":\"error\",\"id\":\"t1\",\"class\":\"timeout\",\"message\":\"late\"}\n"
	    END("t1", "timeout")
	    "{\"type\":\"detached\",\"id\":\"collect\",\"state\":\"done\",\"trials\":3,"
	    "\"lines\":6}\n", 3, &foreign);
	is_str(s, "t2:ok@100,t1:timeout@200,", "each trial ends with its end line, with its "
	    "header's time");
	is_int(foreign, 0, "no line is foreign");
	free(s);
	s = gather(HDR("t1", "1") MET("t1") HDR("t9", "2") END("t9", "ok") END("t1", "ok")
	    END("t1", "ok") HDR("t3", "3") MET("t3"), 3, &foreign);
	is_str(s, "t1:ok@1,", "a trial without its end (a torn journal) is not taken, "
	    "and an end again is nobody's");
	is_int(foreign, 3, "lines of an id past the list, and after a trial's end, are foreign");
	free(s);
}

static void
test_line(void)
{
	struct agentproto *ap = agentproto_new();
	static const char text[] =
	    "{\"type\":\"detached\",\"id\":\"d\",\"state\":\"running\",\"pid\":42,\"trials\":7}\n"
	    "{\"type\":\"detached\",\"id\":\"c\",\"state\":\"asleep\"}\n"
	    "{\"type\":\"lease\",\"id\":\"l\",\"status\":\"held\",\"run\":\"r\",\"pid\":42,"
	    "\"detached\":true}\n";
	struct ap_event ev;
	size_t off = 0;
	int n = 0;

	while (off < sizeof(text) - 1 || n < 3) {
		off += agentproto_feed(ap, text + off, sizeof(text) - 1 - off);
		if (agentproto_next(ap, &ev) <= 0)
			continue;
		if (n == 0)
			ok(ev.type == AP_DETACHED && strcmp(ev.u.detached.state, "running") == 0 &&
			    ev.u.detached.pid == 42 && ev.u.detached.trials == 7 &&
			    ev.u.detached.lines == -1, "a detached line: state, pid, trials");
		else if (n == 1)
			ok(ev.type == AP_BAD_OUTPUT && strstr(ev.u.bad.message, "asleep") != NULL,
			    "a state this controller does not know is bad output");
		else
			ok(ev.type == AP_LEASE && ev.u.lease.detached && ev.u.lease.pid == 42,
			    "a lease held by a detached agent says so");
		n++;
	}
	agentproto_free(ap);
}

static void
test_finished(void)
{
	struct trial_done *d = NULL, *ok_only = NULL;
	char *err = NULL;

	ok(trial_finished_read("tests/data/journal/trials-finished.jsonl", &d, &err) == 0,
	    "the finished set is read");
	ok(trial_done_has(d, "lab-01", "-/lat_syscall/op=null/1"), "an ok trial is finished");
	ok(trial_done_has(d, "lab-01", "-/lat_syscall/op=null/2"),
	    "so is a benchmark's failure (it ran)");
	ok(!trial_done_has(d, "lab-01", "-/lat_syscall/op=null/3"),
	    "an infrastructure failure is not: collect runs it again");
	ok(trial_done_read("tests/data/journal/trials-finished.jsonl", &ok_only, NULL, &err) == 0 &&
	    trial_done_count(ok_only, NULL) == 1, "while --resume's done set has the ok one only");
	trial_done_free(d);
	trial_done_free(ok_only);
	d = NULL;
	ok(trial_finished_read("/nonexistent/trials.jsonl", &d, &err) == 0 &&
	    trial_done_count(d, NULL) == 0, "a missing file has none");
	trial_done_free(d);
	free(err);
}

static void
test_status(void)
{
	struct run_host h[2];
	struct run_summary sum;
	struct rundir_run *r;
	json_t *o;

	memset(h, 0, sizeof(h));
	memset(&sum, 0, sizeof(sum));
	h[0].status = JOURNAL_HOST_DONE;
	h[1].status = JOURNAL_HOST_RUNNING;
	sum.hosts = h;
	sum.nhosts = 2;
	is_str(journal_status_name(JOURNAL_DETACHED), "detached", "the run status detached");
	is_int(session_exit_status(JOURNAL_DETACHED, &sum), CMD_EXIT_RUNNING,
	    "a detached run not finished exits 5");
	o = json_pack("{s:i, s:s, s:s, s:b}", "format", 1, "run", "r1", "status", "detached",
	    "detached", 1);
	r = rundir_run_new(o);
	ok(r->detached && strcmp(r->status, "detached") == 0, "run.json's detached is read");
	rundir_run_free(r);
	json_decref(o);
	o = json_pack("{s:i, s:s}", "format", 1, "run", "r2");
	r = rundir_run_new(o);
	ok(!r->detached, "and is false without it");
	rundir_run_free(r);
	json_decref(o);
}

int
main(void)
{
	test_status();
	test_dir();
	test_index();
	test_gather();
	test_line();
	test_finished();
	return tap_done();
}
