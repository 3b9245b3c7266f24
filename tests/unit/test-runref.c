/*
 * test-runref: RUN and REF arguments to local run directories: a path, a
 * run id under the results directory, plain `latest` (the newest run), and
 * `latest` in a context (the newest earlier finished run of the same plan
 * with a host in common; compare's newest other run of a plan, of any
 * status), labels (the newest run with the label; ambiguous across plans
 * unless the context's plan decides) and the order in which a ref is
 * tried, over the fixtures in tests/data/runref/ (see its README).  Archive URLs are tested end to end (tests/e2e/t602-nightly.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "runref.h"
#include "tap.h"

#define RES	"tests/data/runref/results"
#define CUR	"20011130-023000-nightly-eeee"

static const char *
resolve(const char *ref, const struct runref_ctx *ctx, int *rc)
{
	static char buf[512];
	char *dir = NULL, *err = NULL;

	*rc = runref_resolve(ref, ctx, &dir, &err);
	snprintf(buf, sizeof(buf), "%s", *rc == 0 ? dir : err ? err : "(no message)");
	free(dir);
	free(err);
	return buf;
}

int
main(void)
{
	static const char *const lab01[] = { "lab-01" };
	static const char *const lab02[] = { "lab-02" };
	static const char *const lab03[] = { "lab-03", "lab-04" };
	struct runref_ctx ctx;
	const char *got;
	int rc;

	log_set_level(LOG_LEVEL_QUIET);
	memset(&ctx, 0, sizeof(ctx));
	ctx.results = RES;

	got = resolve("latest", &ctx, &rc);
	is_int(rc, 0, "plain latest: found");
	is_str(got, RES "/20011130-033000-nightly-ffff", "plain latest: the newest run by name");
	got = resolve("20011129-050000-other-dddd", &ctx, &rc);
	is_str(got, RES "/20011129-050000-other-dddd", "a run id under the results directory");
	got = resolve(RES "/20011129-023000-nightly-bbbb", &ctx, &rc);
	is_str(got, RES "/20011129-023000-nightly-bbbb", "a run directory as given");
	got = resolve("notes", &ctx, &rc);
	is_int(rc, -1, "a directory without run.json is not a run");
	ok(strstr(got, "notes: not a run") != NULL, "and the message says so");
	got = resolve("nosuch", NULL, &rc);
	ok(rc == -1 && strstr(got, "under results/") != NULL,
	    "no context: the results directory is ./results");

	ctx.plan = "nightly";
	ctx.hosts = lab01;
	ctx.nhosts = 1;
	ctx.before = CUR;
	got = resolve("latest", &ctx, &rc);
	is_int(rc, 0, "latest of plan nightly on lab-01 before the current run: found");
	is_str(got, RES "/20011128-023000-nightly-aaaa",
	    "not itself, not later, not interrupted, not another host, not a renamed plan");
	ctx.hosts = lab02;
	got = resolve("latest", &ctx, &rc);
	is_str(got, RES "/20011129-023000-nightly-bbbb", "on lab-02: the lab-02 run");
	ctx.hosts = lab03;
	ctx.nhosts = 2;
	got = resolve("latest", &ctx, &rc);
	is_int(rc, RUNREF_ENOTFOUND, "no run with a host in common: not found, not an error");
	is_str(got, "no earlier finished run of plan 'nightly' on these hosts in " RES,
	    "the note says what was looked for and where");
	ctx.hosts = NULL;
	ctx.nhosts = 0;
	ctx.plan = "other";
	got = resolve("latest", &ctx, &rc);
	is_str(got, RES "/20011129-050000-other-dddd", "another plan: its own latest");
	ctx.plan = "nightly";
	ctx.before = "20011128-023000-nightly-aaaa";
	got = resolve("latest", &ctx, &rc);
	is_int(rc, RUNREF_ENOTFOUND, "the first night: nothing earlier");
	ctx.before = NULL;
	got = resolve("latest", &ctx, &rc);
	is_str(got, RES "/20011130-033000-nightly-ffff", "no current run: the newest finished");
	ctx.results = "tests/data/runref/nosuch";
	got = resolve("latest", &ctx, &rc);
	is_int(rc, RUNREF_ENOTFOUND, "no results directory yet: not found (a first night)");
	ctx.plan = NULL;
	got = resolve("latest", &ctx, &rc);
	ok(rc == -1 && strstr(got, "cannot open tests/data/runref/nosuch") != NULL,
	    "plain latest without a results directory: an error");

	/* compare A latest: the newest other run of A's plan, of any status */
	memset(&ctx, 0, sizeof(ctx));
	ctx.results = RES;
	ctx.plan = "nightly";
	ctx.except = "20011130-033000-nightly-ffff";
	ctx.any_status = 1;
	got = resolve("latest", &ctx, &rc);
	is_str(got, RES "/20011130-023000-nightly-eeee",
	    "compare's latest: not A itself, and a running run is a run");
	ctx.any_status = 0;
	got = resolve("latest", &ctx, &rc);
	is_str(got, RES "/20011129-023000-nightly-bbbb",
	    "except without any_status: the newest finished run but A");
	ctx.plan = "other";
	ctx.except = "20011129-050000-other-dddd";
	ctx.any_status = 1;
	got = resolve("latest", &ctx, &rc);
	is_int(rc, RUNREF_ENOTFOUND, "the only run of its plan: no other");
	is_str(got, "no other run of plan 'other' in " RES, "and the note says so");

	/* labels: the newest run with the label, after every other kind of ref */
	memset(&ctx, 0, sizeof(ctx));
	ctx.results = RES;
	got = resolve("patched", &ctx, &rc);
	is_int(rc, 0, "a label names a run");
	is_str(got, RES "/20011130-033000-nightly-ffff", "the run with that label");
	got = resolve("base", &ctx, &rc);
	is_str(got, RES "/20011129-023000-nightly-bbbb",
	    "a label on two runs of one plan: the newer");
	got = resolve("20011129-023000-nightly-bbbb", &ctx, &rc);
	is_str(got, RES "/20011129-023000-nightly-bbbb",
	    "a run id before a label (eeee is labelled with bbbb's id)");
	got = resolve("shared", &ctx, &rc);
	is_int(rc, RUNREF_EAMBIGUOUS, "a label on runs of two plans is ambiguous");
	is_str(got, "label 'shared' is on runs of 2 plans (the newest of each: "
	    "20011129-050000-other-dddd (plan other), 20011129-040000-nightly-cccc "
	    "(plan nightly)); give a run id or directory", "the message names the candidates");
	ctx.plan = "nightly";
	got = resolve("shared", &ctx, &rc);
	is_str(got, RES "/20011129-040000-nightly-cccc",
	    "the context's plan decides (whatever the run's status)");
	ctx.plan = "renamed";
	got = resolve("shared", &ctx, &rc);
	is_int(rc, RUNREF_EAMBIGUOUS, "a context plan that is neither: still ambiguous");
	ctx.plan = NULL;
	ctx.no_labels = 1;
	got = resolve("patched", &ctx, &rc);
	is_int(rc, -1, "no_labels: a label is not a run");
	is_str(got, "patched: not a run (no run.json there, nor a run id under " RES "/)",
	    "and the message does not offer labels");
	ctx.no_labels = 0;
	got = resolve("nosuch", &ctx, &rc);
	is_str(got, "nosuch: not a run (no run.json there, nor a run id or a run's label "
	    "under " RES "/)", "nothing at all: says what was tried");

	ok(runref_id_matches("20011130-023000-my-plan-1a2b", "my plan", NULL),
	    "the plan part as run ids spell it (a space becomes -)");
	ok(!runref_id_matches("20011130-023000-my-plan-x-1a2b", "my plan", NULL),
	    "a longer plan name is another plan");
	ok(!runref_id_matches("2001113-0023000-nightly-1a2b", "nightly", NULL),
	    "not a run id");
	ok(runref_id_matches("20011130-023000-nightly-0000", "nightly", CUR),
	    "the same second, sorting first: earlier");
	ok(!runref_id_matches("20011130-023000-nightly-ffff", "nightly", CUR),
	    "the same second, sorting after: not earlier");
	ok(!runref_id_matches(CUR, "nightly", CUR), "never the run itself");
	return tap_done();
}
