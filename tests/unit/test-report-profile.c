/*
 * test-report-profile: the profile table over two hand-written runs
 * (tests/data/report/profile-base, profile-patch: the readprofile numbers
 * of the 2002 mail in shared/examples/other-outputs.txt split over two
 * trials, a patch run where path_lookup got cheaper and d_lookup appears,
 * trials whose profile is absent, a malformed profile and a failed trial)
 * in every format against the reviewed golden files, and what the tables
 * must say whatever their layout.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "report.h"
#include "tap.h"

#define DATA	"tests/data/report/"

static char *
render(const struct report *r, enum report_table t, enum report_format f, int *rc)
{
	struct report_opts o;
	char *out = NULL, *err = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&out, &len);

	report_opts_init(&o);
	o.table = t;
	o.format = f;
	*rc = report_render(r, &o, mem, &err);
	fclose(mem);
	if (*rc < 0)
		printf("# render: %s\n", err);
	free(err);
	return out;
}

static struct report *
load(const char *a, const char *b)
{
	struct report *r = report_new();
	char *err = NULL;

	if (report_add_run(r, a, &err) != 0 || (b && report_add_run(r, b, &err) != 0)) {
		printf("# load: %s\n", err);
		free(err);
	}
	return r;
}

static void
test_golden(void)
{
	static const struct {
		enum report_format f;
		const char *file;
	} fmts[] = {
		{ REPORT_TEXT, DATA "golden/profile.text" },
		{ REPORT_MD, DATA "golden/profile.md" },
		{ REPORT_CSV, DATA "golden/profile.csv" },
		{ REPORT_JSON, DATA "golden/profile.json" },
	};
	struct report *r = load(DATA "profile-base", DATA "profile-patch");
	struct report_counts c;
	size_t i;
	char *out, *want, what[128];
	int rc;

	report_counts(r, &c);
	ok(c.bad_profiles == 1 && c.failed == 1, "the malformed profile and the failed "
	    "trial are counted, not used");
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		out = render(r, REPORT_TABLE_PROFILE, fmts[i].f, &rc);
		want = tap_slurp(fmts[i].file, NULL);
		snprintf(what, sizeof(what), "equals %s", fmts[i].file);
		ok(rc == 0 && want != NULL && strcmp(out, want) == 0, what);
		if (want == NULL || strcmp(out, want) != 0)
			printf("# got:\n%s", out);
		free(out);
		free(want);
	}
	out = render(r, REPORT_TABLE_PROFILE, REPORT_TEXT, &rc);
	/* readprofile's lines, as the mail has them, from the summed trials */
	ok(strstr(out, "Hits Percentage Function") && strstr(out, "75185 100.00 total") &&
	    strstr(out, "11215  14.92 path_lookup"), "text: readprofile's header, total "
	    "and hits summed over the two base trials");
	ok(strstr(out, "lab-01/base (2 trials)") && strstr(out, "lab-01/patch (1 trial)"),
	    "text: series side by side, trials counted");
	/* the change table: path_lookup (-6.20 points) first, d_lookup new */
	{
		const char *chg = strstr(out, "profile change:");
		const char *pl = chg ? strstr(chg, "\npath_lookup ") : NULL;
		const char *dl = chg ? strstr(chg, "\nd_lookup ") : NULL;
		const char *ad = chg ? strstr(chg, "\natomic_dec_and_lock ") : NULL;

		ok(pl && dl && ad && pl < dl && dl < ad, "change: sorted by the largest change");
		ok(pl && strstr(pl, "-6.20") && strstr(pl, "0.58x") && dl &&
		    strstr(dl, "new"), "change: percentage points and ratio");
	}
	ok(strstr(out, "board-armhf/base: 2 trials without profile: perf not found") &&
	    strstr(out, "lab-01/patch: 1 trial without profile: perf_event_paranoid=2"),
	    "absent profiles counted with their reason");
	free(out);
	out = render(r, REPORT_TABLE_PROFILE, REPORT_HTML, &rc);
	ok(rc == 0 && strstr(out, "data-table=\"profile\"") &&
	    strstr(out, "data-table=\"profile-change\"") &&
	    strstr(out, "data-table=\"profile-absent\"") && strstr(out, "path_lookup"),
	    "html: the profile, change and absence tables");
	free(out);
	out = render(r, REPORT_TABLE_AUTO, REPORT_TEXT, &rc);
	ok(rc >= 0 && strstr(out, "profile change:") != NULL, "auto: profiles included");
	free(out);
	out = render(r, REPORT_TABLE_ALL, REPORT_TEXT, &rc);
	ok(rc >= 0 && strstr(out, "Hits Percentage Function") != NULL, "all: profiles included");
	free(out);
	report_free(r);
}

static void
test_edges(void)
{
	struct report *r;
	enum report_table t;
	char *out;
	int rc;

	ok(report_table_parse("profile", &t) == 0 && t == REPORT_TABLE_PROFILE,
	    "--table profile parses");
	/* one series: a listing, no change table */
	r = load(DATA "profile-base", NULL);
	out = render(r, REPORT_TABLE_PROFILE, REPORT_TEXT, &rc);
	ok(rc == 0 && strstr(out, "75185 100.00 total") && !strstr(out, "profile change"),
	    "one series: its listing, no change");
	free(out);
	report_free(r);
	/* runs without profiles: the table says so */
	r = load(DATA "munmap-base", NULL);
	out = render(r, REPORT_TABLE_PROFILE, REPORT_TEXT, &rc);
	ok(rc < 0, "no profile anywhere: --table profile is an error");
	free(out);
	out = render(r, REPORT_TABLE_AUTO, REPORT_TEXT, &rc);
	ok(rc >= 0 && strstr(out, "Hits Percentage") == NULL, "auto without profiles: none");
	free(out);
	report_free(r);
}

int
main(void)
{
	log_set_level(LOG_LEVEL_QUIET);
	test_golden();
	test_edges();
	return tap_done();
}
