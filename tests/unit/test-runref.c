/*
 * test-runref: RUN and REF arguments to local run directories: a path, a
 * run id under the results directory, plain `latest` (the newest run), and
 * `latest` in a context (the newest earlier finished run of the same plan
 * with a host in common; compare's newest other run of a plan, of any
 * status), labels (the newest run with the label; ambiguous across plans
 * unless the context's plan decides) and the order in which a ref is
 * tried, and run groups (group:ID, the group id, what may be one group,
 * `latest` that never names a run of the current group), over the
 * fixtures in tests/data/runref/ (see its README).  Archive URLs are tested end to end (tests/e2e/t602-nightly.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "runref.h"
#include "strv.h"
#include "tap.h"

#define RES	"tests/data/runref/results"
#define CUR	"20011130-023000-nightly-eeee"
#define GRP	"tests/data/runref/groups"

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

/* runref_resolve_all(): the directories' last components, or the message. */
static const char *
resolve_all(const char *ref, const struct runref_ctx *ctx, int *rc)
{
	static char buf[1024];
	char **dirs = NULL, *err = NULL;
	size_t n = 0, i, len = 0;
	const char *p;

	*rc = runref_resolve_all(ref, ctx, &dirs, &n, &err);
	buf[0] = '\0';
	if (*rc != 0)
		snprintf(buf, sizeof(buf), "%s", err ? err : "(no message)");
	for (i = 0; i < n && len < sizeof(buf); i++) {
		p = strrchr(dirs[i], '/');
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "",
		    p ? p + 1 : dirs[i]);
	}
	strv_free(dirs, n);
	free(err);
	return buf;
}

static void
test_groups(void)
{
	static const char *const lab01[] = { "lab-01" };
	struct runref_ctx ctx;
	char *url = NULL, *id = NULL, *err = NULL;
	const char *got;
	int rc;

	ok(runref_group_valid("rack1") && runref_group_valid("night-2026-12-01_a.b"),
	    "group ids: letters, digits, . _ -");
	ok(!runref_group_valid("") && !runref_group_valid("-x") && !runref_group_valid(".x") &&
	    !runref_group_valid("a/b") && !runref_group_valid("a b") &&
	    !runref_group_valid("a:b"), "not empty, no leading - or ., no / space or :");
	ok(runref_group_valid("0123456789012345678901234567890123456789012345678901234567890123") &&
	    !runref_group_valid("01234567890123456789012345678901234567890123456789012345678901234"),
	    "at most 64 bytes");

	is_int(runref_group_split("group:rack1", &url, &id, &err), 1, "group:ID is a group");
	ok(url == NULL && id != NULL && strcmp(id, "rack1") == 0, "local, its id");
	free(id);
	id = NULL;
	is_int(runref_group_split("https://dav.example.org/runs/group:rack1/", &url, &id, &err),
	    1, "URL/group:ID is a group");
	ok(url != NULL && strcmp(url, "https://dav.example.org/runs") == 0 && id != NULL &&
	    strcmp(id, "rack1") == 0, "the archive URL and the id");
	free(url);
	free(id);
	url = id = NULL;
	is_int(runref_group_split("file:///group:rack1", &url, &id, &err), 1,
	    "file:///group:ID: a group at the root");
	ok(url != NULL && strcmp(url, "file:///") == 0, "whose archive is file:///");
	free(url);
	free(id);
	url = id = NULL;
	is_int(runref_group_split("latest", &url, &id, &err), 0, "latest is not a group");
	is_int(runref_group_split("results/group:x", &url, &id, &err), 0,
	    "a path is not a group ref");
	is_int(runref_group_split("https://dav.example.org/group:x/20011201-023000-a-aaaa",
	    &url, &id, &err), 0, "URL/RUNID under a group-like folder is a run");
	is_int(runref_group_split("group:a/b", &url, &id, &err), -1, "a bad id: an error");
	ok(err != NULL && strstr(err, "not a valid group id") != NULL, "that says so");
	free(err);
	err = NULL;

	memset(&ctx, 0, sizeof(ctx));
	ctx.results = GRP;
	got = resolve_all("group:night-2", &ctx, &rc);
	is_int(rc, 0, "group:night-2: found");
	is_str(got, "20011202-023000-nightly-bbbb 20011202-023001-nightly-cccc",
	    "every run of the group, by run id, and no other");
	got = resolve_all("20011201-023000-nightly-aaaa", &ctx, &rc);
	is_str(got, "20011201-023000-nightly-aaaa", "another ref: one run");
	got = resolve_all("group:nosuch", &ctx, &rc);
	is_int(rc, -1, "a group with no run: an error");
	is_str(got, "no run of group 'nosuch' in " GRP, "that says where it looked");
	got = resolve_all("group:mixed", &ctx, &rc);
	is_int(rc, RUNREF_EGROUP, "a group of two plans: refused");
	is_str(got, "group 'mixed': runs of two plans (20011203-023000-nightly-dddd: plan "
	    "nightly, 20011203-023000-other-eeee: plan other); a group is one plan",
	    "naming the runs and their plans");
	got = resolve_all("group:twice", &ctx, &rc);
	is_int(rc, RUNREF_EGROUP, "a host in two runs of a group: refused");
	is_str(got, "group 'twice': host lab-03 is in two runs (20011204-023000-nightly-ffff, "
	    "20011204-023001-nightly-9999); the runs of a group share no host",
	    "naming the host and the runs");
	got = resolve_all("group:labels", &ctx, &rc);
	is_int(rc, RUNREF_EGROUP, "a group of two labels: refused");
	is_str(got, "group 'labels': runs of two labels (20011206-023000-nightly-1111: patched, "
	    "20011206-023001-nightly-2222: none); the runs of a group have one --label, or none",
	    "naming the runs and their labels");
	got = resolve_all("group:bad/id", &ctx, &rc);
	is_int(rc, RUNREF_EGROUP, "a bad group id: bad input");
	got = resolve("group:night-2", &ctx, &rc);
	is_int(rc, -1, "runref_resolve(): a group is not one run");
	is_str(got, "group:night-2 names a run group, and one run is needed here",
	    "and says so");

	/* latest from a run of a group: never another run of its own group */
	ctx.plan = "nightly";
	ctx.hosts = lab01;
	ctx.nhosts = 1;
	ctx.before = "20011202-023001-nightly-cccc";
	got = resolve("latest", &ctx, &rc);
	is_str(got, GRP "/20011202-023000-nightly-bbbb", "latest without a group: the newest");
	ctx.group = "night-2";
	got = resolve("latest", &ctx, &rc);
	is_str(got, GRP "/20011201-023000-nightly-aaaa",
	    "latest of a group's run: not a run of the same group");
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
	test_groups();
	return tap_done();
}
