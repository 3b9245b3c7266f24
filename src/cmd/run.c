/*
 * cmd/run.c: `fleetmark run PLAN [-f FLEET] [-H HOSTS] [-o DIR] [--label NAME]
 * [-j N] [--resume RUN] [--dry-run]`: run a plan on a fleet in a run
 * session (session.h: the run directory, progress, the run engine, the
 * final status), and print a summary with the numbers and the run
 * directory's path.
 *
 * `--resume RUN` (a run directory, or a run id under -o DIR) takes a run
 * up again; PLAN may then be left out (the plan file run.json records is
 * read), and a plan, given or read, must be the run's (rundir_check_plan()).
 * Every check (the run, the plan, the fleet, -H) comes before anything
 * is written: a resume that is refused leaves the run directory as it was.
 *
 * Exit status: session.h's (0 every trial ok; 3 the run finished but some
 * hosts or trials failed, results kept; 130 interrupted by SIGINT or
 * SIGTERM: the run directory says "interrupted" and --resume carries on;
 * 1 the run failed), and 4 a significant regression against --baseline;
 * 1 an error; 2 bad usage or invalid input.
 *
 * `--baseline history` judges the run against the plan's history
 * (nightly.h), with a confirmation round in the same run directory.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "abdir.h"
#include "archive.h"
#include "board.h"
#include "boot.h"
#include "bootspec.h"
#include "catalog.h"
#include "cmd.h"
#include "detach.h"
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "nightly.h"
#include "plan.h"
#include "proc.h"
#include "report.h"
#include "run.h"
#include "rundir.h"
#include "runref.h"
#include "series.h"
#include "session.h"
#include "stats.h"
#include "strbuf.h"
#include "trialread.h"
#include "tune.h"
#include "verdict.h"
#include "xmalloc.h"
#include "yamldoc.h"

#define DEFAULT_RESULTS		"results"

/*
 * The first SIGINT or SIGTERM stops the run cleanly (variants undone, the
 * run directory marked interrupted); a second one, for a person who will
 * not wait for that, ends the process at once.
 */
static void
on_signal(int sig)
{
	static const char msg[] = "\nfleetmark: interrupted again: exiting now; variants "
	    "may not have been undone\n";

	(void)sig;
	if (run_stop_requested()) {
		ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);

		(void)n;
		proc_groups_end_all();	/* _exit skips atexit: jumps and hooks too */
		_exit(CMD_EXIT_INTERRUPTED);
	}
	run_request_stop();
}

static void
catch_signals(void)
{
	cmd_catch_signals(on_signal);
	signal(SIGPIPE, SIG_IGN);
}

/* --- the summary of the numbers -------------------------------------------- */

/* Index of host in the summary (fleet order), for sorting. */
static size_t
host_rank(const struct run_summary *sum, const char *host)
{
	size_t i;

	for (i = 0; i < sum->nhosts; i++)
		if (strcmp(sum->hosts[i].name, host) == 0)
			return i;
	return sum->nhosts;
}

/* A line of the numbers: its series, in fleet order, then as first seen. */
struct numrow {
	size_t			 rank, order;
	const struct series	*s;
};

static int
cmp_numrow(const void *a, const void *b)
{
	const struct numrow *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const char *
or_dash(const char *s)
{
	return s != NULL && *s != '\0' ? s : "-";
}

/* Read trials.jsonl and print one line per series (host, variant, bench, params, metric). */
static void
print_numbers(const struct run_summary *sum, const char *dir)
{
	char *path = rundir_path(dir, RUNDIR_TRIALS), *err = NULL;
	struct series_store *st = series_store_new(SERIES_VALUES);
	struct numrow *rows;
	size_t i, k, n, w[6] = { 4, 7, 5, 6, 6, 4 };

	if (series_store_read(st, path, TRIAL_LENIENT, NULL, NULL, NULL, &err) != 0)
		free(err);	/* then what was read is shown */
	free(path);
	if ((n = series_store_n(st)) == 0) {
		series_store_free(st);
		return;
	}
	rows = xcalloc(n, sizeof(*rows));
	for (i = 0; i < n; i++) {
		const struct series *s = series_store_at(st, i);
		const char *c[6] = { s->key.host, or_dash(s->key.variant), s->key.bench,
		    or_dash(s->key.params), s->key.metric, or_dash(s->key.unit) };

		rows[i] = (struct numrow){ host_rank(sum, s->key.host), i, s };
		for (k = 0; k < 6; k++)
			if (strlen(c[k]) > w[k])
				w[k] = strlen(c[k]) > 60 ? 60 : strlen(c[k]);
	}
	qsort(rows, n, sizeof(*rows), cmp_numrow);
	printf("\n%-*s  %-*s  %-*s  %-*s  %-*s  %12s  %-*s  %s\n", (int)w[0], "host",
	    (int)w[1], "variant", (int)w[2], "bench", (int)w[3], "params", (int)w[4], "metric",
	    "median", (int)w[5], "unit", "trials");
	for (i = 0; i < n; i++) {
		const struct series *s = rows[i].s;

		printf("%-*s  %-*s  %-*s  %-*.60s  %-*s  %12.6g  %-*s  %zu\n", (int)w[0],
		    s->key.host, (int)w[1], or_dash(s->key.variant), (int)w[2], s->key.bench,
		    (int)w[3], or_dash(s->key.params), (int)w[4], s->key.metric,
		    stats_median(s->v, s->n), (int)w[5], or_dash(s->key.unit), s->n);
	}
	free(rows);
	series_store_free(st);
}

/* The per-host table. */
static void
print_hosts(struct session *s)
{
	const struct run_summary *sum = session_summary(s);
	size_t i, wn = 4;

	for (i = 0; i < sum->nhosts; i++)
		if (strlen(sum->hosts[i].name) > wn)
			wn = strlen(sum->hosts[i].name);
	printf("%-*s  %-11s  %5s  %6s  %7s  %s\n", (int)wn, "host", "status", "ok", "failed",
	    "skipped", "reason");
	for (i = 0; i < sum->nhosts; i++) {
		const struct run_host *h = &sum->hosts[i];

		printf("%-*s  %-11s  %5zu  %6zu  %7zu  %s\n", (int)wn, h->name,
		    journal_host_status_name(h->status), h->ok, h->failed,
		    h->skipped,
		    h->reason ? h->reason : h->not_run ? "interrupted" : "-");
	}
	printf("\n");
	fflush(stdout);
}

/*
 * The per-host table, then the report: against basedir when there is one
 * (the number of regressions, >= 0), else the run's own tables (0).  Our
 * own medians when the report cannot be made.
 */
static int
print_summary(struct session *s, const char *basedir)
{
	const struct run_summary *sum = session_summary(s);
	int n;

	print_hosts(s);
	if ((n = session_report(s, basedir, stdout)) < 0) {
		print_numbers(sum, session_dir(s));
		n = 0;
	}
	printf("\nrun directory: %s\n", session_dir(s));
	fflush(stdout);
	return n;
}

/* Whether a REF means `latest` (of the plan), resolved once the run is over. */
static int
is_latest(const char *ref)
{
	size_t n = strlen(ref);

	return strcmp(ref, "latest") == 0 || (n > 7 && strcmp(ref + n - 7, "/latest") == 0);
}

/*
 * The baseline of a finished run: *basedir set, or NULL with a note on
 * stdout when `latest` found nothing (a first night).  -1 on an error.
 */
static int
find_baseline(const char *ref, const struct plan *p, const struct run_summary *sum,
    const char *run_id, const char *group, const char *results, const char *push,
    char **basedir)
{
	struct runref_ctx ctx;
	const char **hosts = xcalloc(sum->nhosts + 1, sizeof(*hosts));
	char *err = NULL;
	size_t i;
	int r;

	for (i = 0; i < sum->nhosts; i++)
		hosts[i] = sum->hosts[i].name;
	memset(&ctx, 0, sizeof(ctx));
	ctx.results = results;
	ctx.archive = push;
	ctx.plan = p->name;
	ctx.hosts = hosts;
	ctx.nhosts = sum->nhosts;
	ctx.before = run_id;
	ctx.group = group;
	*basedir = NULL;
	r = runref_resolve(ref, &ctx, basedir, &err);
	free(hosts);
	if (r == RUNREF_ENOTFOUND) {
		printf("baseline: none: %s; nothing to compare with (a first night?)\n", err);
		log_info("no baseline: %s", err);
		free(err);
		return 0;
	}
	if (r != 0) {
		char *d = archive_url_display(ref);

		log_error("baseline %s: %s", d, err);
		free(d);
		free(err);
		return -1;
	}
	return 0;
}

/* "baseline: URL/RUNID" for a run from an archive, else the directory. */
static void
print_baseline(const char *ref, const char *push, const char *basedir)
{
	const char *id = strrchr(basedir, '/') ? strrchr(basedir, '/') + 1 : basedir;
	char *d = archive_url_display(archive_is_url(ref) ? ref : push ? push : "");

	if (archive_is_url(ref) && !is_latest(ref))
		printf("baseline: %s (%s)\n", d, basedir);
	else if (archive_is_url(ref) || push != NULL)
		printf("baseline: %.*s/%s (%s)\n", (int)strlen(d) - (archive_is_url(ref) ? 7 : 0),
		    d, id, basedir);
	else
		printf("baseline: %s\n", basedir);
	free(d);
}

/* --- --baseline history ------------------------------------------------------ */

static int
is_history(const char *ref)
{
	return strcmp(ref, "history") == 0;
}

/* Whether s is a commit id: 4 to 64 hex digits, as git prints them. */
static int
commit_valid(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	return s[n] == '\0' && n >= 4 && n <= 64;
}

/*
 * Boot each host of csel whose rows to confirm are measured after a
 * fresh boot (nightly.h: its boot: NIGHTLY_BOOT_TEST entry, tonight's
 * kernel) into that entry, and check the boot (boot_into(): a new boot
 * id, --expect-kernel's kernel).  A host that does not come back, or
 * comes back wrong, is left out of the round (its csel cleared, counted
 * in *lost): its rows stay unconfirmed.  1 when a stop came, else 0.
 */
static int
fresh_boots(const struct nightly *n, const struct session_config *cfg, unsigned char *csel,
    int *lost)
{
	const struct fleet *f = cfg->fleet;
	size_t i, k, rows;

	*lost = 0;
	for (i = 0; i < f->nhosts; i++) {
		const struct fleet_host *h = &f->hosts[i];
		long long wait_ms = h->boot_timeout_ms > 0 ? h->boot_timeout_ms :
		    FLEET_DEFAULT_BOOT_TIMEOUT;
		char *expect = cfg->expect_kernel ? xstrdup(cfg->expect_kernel) : NULL;
		char *err = NULL;
		struct bootspec b;
		struct board_boot bb;
		int r;

		for (k = 0, rows = 0; csel[i] && k < n->n; k++)
			rows += n->rows[k].state == NIGHTLY_TO_CONFIRM && n->rows[k].fresh &&
			    strcmp(n->rows[k].key.host, h->name) == 0;
		if (rows == 0) {
			free(expect);
			continue;
		}
		log_info("%s: a fresh boot of tonight's kernel (boot: %s) before measuring %zu "
		    "row%s again", h->name, NIGHTLY_BOOT_TEST, rows, rows == 1 ? "" : "s");
		if (boot_spec_for_host("boot", NIGHTLY_BOOT_TEST, h, &b, &err) != 0 ||
		    setenv("FLEETMARK_HOST", h->name, 1) != 0) {
			log_error("%s: %s: its rows stay unconfirmed", h->name, err ? err :
			    "setenv FLEETMARK_HOST");
			free(err);
			free(expect);
			csel[i] = 0;
			(*lost)++;
			continue;
		}
		r = boot_into("confirmation boot", h, &b, wait_ms, cfg->quiet ? NULL : stderr,
		    &expect, &bb, &err);
		bootspec_release(&b);
		free(expect);
		if (r == BOOT_INTO_STOPPED) {
			board_boot_release(&bb);
			free(err);
			return 1;
		}
		if (r != 0) {
			log_error("%s: the fresh boot before the confirmation: %s: its rows stay "
			    "unconfirmed", h->name, err);
			csel[i] = 0;
			(*lost)++;
		} else
			log_info("%s: booted afresh: boot id %s, kernel %s", h->name, bb.boot_id,
			    bb.release);
		board_boot_release(&bb);
		free(err);
	}
	return 0;
}

/*
 * --baseline history for a finished run: judge it against the plan's
 * history in source (nightly.h) and run the confirmation round; *out the
 * verdict, or NULL with a note on stdout when there is no history yet (a
 * first night).  -1 on an error.
 */
static int
history_verdict(const struct plan *p, struct session *s, const struct session_config *cfg,
    const char *source, struct nightly **out, int *lost)
{
	struct nightly_opts o;
	struct session_config cc = *cfg;
	struct plan cp;
	unsigned char *csel;
	char *err = NULL, *d;
	size_t k;
	int r;

	*out = NULL;
	*lost = 0;
	nightly_opts_init(&o, p);
	o.source = source;
	o.fleet = cfg->fleet;
	d = archive_url_display(source);
	if ((r = nightly_judge(session_dir(s), &o, out, &err)) == NIGHTLY_ENOHISTORY) {
		printf("baseline: none: %s; nothing to compare with (a first night?)\n", err);
		log_info("no history: %s", err);
		free(err);
		free(d);
		return 0;
	}
	if (r != 0) {
		log_error("baseline history in %s: %s", d, err);
		free(err);
		free(d);
		return -1;
	}
	free(d);
	if ((k = nightly_to_confirm(*out)) == 0)
		return 0;
	log_info("%zu change%s would fail the night: measuring %s again (%d round%s of %d "
	    "trials)", k, k == 1 ? "" : "s", k == 1 ? "it" : "them", p->confirm,
	    p->confirm == 1 ? "" : "s", p->repeat);
	csel = xcalloc(cfg->fleet->nhosts + 1, 1);
	nightly_round_plan(*out, p, cfg->fleet, cfg->sel, &cp, csel);
	cc.plan = &cp;
	cc.sel = csel;
	if (fresh_boots(*out, cfg, csel, lost) != 0)
		r = 0;		/* stopped: as an interrupted round, below */
	else if (memchr(csel, 1, cfg->fleet->nhosts) == NULL)
		r = 0;		/* every host lost in its fresh boot: no round */
	else
		r = session_confirm(s, &cc, &err);
	free(cp.points);
	free(cp.variants);
	free(csel);
	if (r == 0 && run_stop_requested()) {
		/* what was not measured again is not confirmed, nor a regression */
		log_warn("confirmation round interrupted: the changes stay unconfirmed");
		return 0;
	}
	if (r != 0 || nightly_confirm(*out, session_dir(s), &err) != 0) {
		log_error("confirmation round: %s", err);
		free(err);
		return -1;
	}
	return 0;
}

/* The verdict on stdout and into the run directory (nightly_write()). */
static void
history_write(const struct nightly *n, const char *dir)
{
	char *err = NULL;

	printf("\n");
	if (nightly_render(n, REPORT_TEXT, stdout, &err) != 0 || fflush(stdout) != 0) {
		log_warn("the verdict: %s", err ? err : "cannot write it");
		free(err);
		err = NULL;
	}
	if (nightly_write(n, dir, &err) != 0) {
		log_warn("%s", err);
		free(err);
	}
}

/* --- the command -------------------------------------------------------------- */

static int
dry_run(const char *plan, const char *fleet, const char *hosts)
{
	char *av[8];
	int ac = 0;

	av[ac++] = (char *)"plan";
	if (fleet != NULL) {
		av[ac++] = (char *)"-f";
		av[ac++] = (char *)fleet;
	}
	if (hosts != NULL) {
		av[ac++] = (char *)"-H";
		av[ac++] = (char *)hosts;
	}
	av[ac++] = (char *)plan;
	av[ac] = NULL;
	optind = 0;
	printf("dry run: nothing is contacted and nothing is written\n");
	return cmd_plan.handler(ac, av);
}

/* Whether name is one of the comma-separated words of list (-H names;
 * @labels need the fleet, which a dry run does not load). */
static int
in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p != NULL && *p != '\0'; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

/*
 * The run directory --resume RUN names: RUN when it is one, else the run
 * id RUN under results.  A new string in *dir; -1 with *err otherwise.
 */
static int
resume_dir(const char *ref, const char *results, char **dir, char **err)
{
	struct stat st;
	char *p;

	*dir = NULL;
	if (archive_is_url(ref)) {
		p = archive_url_display(ref);
		*err = xasprintf("--resume %s: a run in an archive is not resumed (pull it, "
		    "then resume the copy)", p);
		free(p);
		return -1;
	}
	if (rundir_exists(ref)) {
		*dir = xstrdup(ref);
		return 0;
	}
	if (strchr(ref, '/') == NULL && *ref != '.') {
		p = xasprintf("%s/%s", results, ref);
		if (rundir_exists(p)) {
			*dir = p;
			return 0;
		}
		free(p);
	}
	if (stat(ref, &st) == 0 && S_ISDIR(st.st_mode))
		*err = xasprintf("%s is not a run directory (no %s)", ref, RUNDIR_RUN_JSON);
	else
		*err = xasprintf("%s: not a run directory, nor a run id under %s/", ref,
		    results);
	return -1;
}

/*
 * The plan file of the run in dir, as its run.json records it, for a
 * --resume without PLAN: a new string in *path.  0, or the exit status
 * (with *err): an unreadable run.json is an error, as session_resume()
 * has it, and one without a plan file bad input.
 */
static int
recorded_plan(const char *dir, char **path, char **err)
{
	struct rundir_run *run = NULL;
	int r;

	*path = NULL;
	if ((r = rundir_load(dir, &run, err)) != 0)
		return r == RUNDIR_ENOTRUN ? CMD_EXIT_USAGE : CMD_EXIT_ERROR;
	if (run->plan_file == NULL || *run->plan_file == '\0')
		*err = xasprintf("%s: run.json records no plan file; give the plan: "
		    "`fleetmark run PLAN --resume %s`", dir, dir);
	else
		*path = xstrdup(run->plan_file);
	rundir_run_free(run);
	return *path != NULL ? 0 : CMD_EXIT_USAGE;
}

/*
 * --resume of a run given --tune PROFILE, without --tune now, of a plan
 * without tune:: that profile again (its hosts' run.json entries name it),
 * so that the rest of the run is measured as its start was.  *spec stays
 * NULL when no host recorded one.  0, or -1 with *err.
 */
static int
recorded_tune(const char *dir, struct tune_spec **spec, char **err)
{
	const char *host, *name = NULL;
	json_t *run, *h;
	int r = 0;

	*spec = NULL;
	if (rundir_load_json(dir, &run, err) != 0)
		return -1;
	json_object_foreach(json_object_get(run, "hosts"), host, h) {
		name = json_string_value(json_object_get(json_object_get(h, "tune"), "profile"));
		if (name != NULL)
			break;
	}
	if (name != NULL && strcmp(name, "none") != 0)
		r = tune_spec_profile(name, spec, err);
	json_decref(run);
	return r;
}

/*
 * --dry-run --resume: the trials a resume would run, per host of the run,
 * read without touching the run directory (no lock, nothing rewritten).
 */
static int
dry_resume(const struct plan *p, const char *rundir, const char *hosts_spec)
{
	struct trial_done *done = NULL;
	struct rundir_run *run = NULL;
	char *path, *err = NULL;
	size_t i, k, left, total = 0;
	int rc = CMD_EXIT_USAGE;

	if (rundir_load(rundir, &run, &err) != 0 || rundir_check_plan(run, p, &err) != 0)
		goto out;
	path = rundir_path(rundir, RUNDIR_TRIALS);
	if (trial_done_read(path, &done, NULL, &err) != 0) {
		free(path);
		rc = CMD_EXIT_ERROR;
		goto out;
	}
	free(path);
	printf("dry run: nothing is contacted and nothing is written\n");
	printf("resuming %s (plan %s): %zu trials already ok\n", rundir, p->name,
	    trial_done_count(done, NULL));
	for (k = 0; k < run->nhosts; k++) {
		const char *name = run->hosts[k].name;
		struct plan_schedule *s;

		if (hosts_spec != NULL && !in_list(hosts_spec, name))
			continue;
		s = plan_expand(p, name, run->seed);
		for (i = 0, left = 0; i < s->ntrials; i++)
			left += !trial_done_has(done, name, s->trials[i].key);
		printf("\nhost %s: %zu of %zu trials to run\n", name, left, s->ntrials);
		for (i = 0; i < s->ntrials; i++) {
			const struct plan_trial *t = &s->trials[i];

			if (trial_done_has(done, name, t->key))
				continue;
			printf("  %-10s %-12s %-40.40s rep %d\n", t->variant->name ? t->variant->name :
			    "-", t->point->bench, *t->point->label ? t->point->label : "-", t->rep);
		}
		total += left;
		plan_schedule_free(s);
	}
	printf("\ntotal: %zu trials to run\n", total);
	rc = fflush(stdout) == 0 ? CMD_EXIT_OK : CMD_EXIT_ERROR;
 out:
	if (err != NULL)
		log_error("%s", err);
	free(err);
	trial_done_free(done);
	rundir_run_free(run);
	return rc;
}

/* What the command line asks for. */
struct run_opts {
	const char	*plan_file;	/* PLAN, or NULL: the one --resume's run.json names */
	const char	*fleet_file;	/* -f, or NULL */
	const char	*hosts_spec;	/* -H, or NULL */
	const char	*results;	/* -o, or DEFAULT_RESULTS */
	const char	*label, *group, *commit;
	const char	*resume;	/* --resume RUN, or NULL */
	const char	*give_up;	/* --give-up HOSTS, or NULL */
	const char	*push, *baseline, *tune;
	int		 jobs, dry, quiet, detach;
};

/*
 * Parse the command line into o, and cfg's expect_kernel and wait_lock_ms.
 * Returns -1 when the command goes on, else its exit status (-h, a bad
 * option or a combination that cannot be), said on stderr.
 */
static int
parse_options(int argc, char **argv, struct run_opts *o, struct session_config *cfg)
{
	static const struct option longopts[] = {
		{ "label", required_argument, NULL, 'L' },
		{ "group", required_argument, NULL, 'G' },
		{ "resume", required_argument, NULL, 'R' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "push", required_argument, NULL, 'P' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "expect-kernel", required_argument, NULL, 'K' },
		{ "tune", required_argument, NULL, 'T' },
		{ "commit", required_argument, NULL, 'C' },
		{ "wait-lock", required_argument, NULL, 'W' },
		{ "detach", no_argument, NULL, 'D' },
		{ "give-up", required_argument, NULL, 'U' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *outdir = NULL;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "f:H:o:j:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->fleet_file = optarg;
			break;
		case 'H':
			o->hosts_spec = optarg;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'L':
			/* the group ids' rule: a label names a series ("host/label") and a
			 * run (compare LABEL), and is printed in tables */
			if (!runref_group_valid(optarg)) {
				log_error("--label: expected a name (1 to %d letters, digits, "
				    "'.', '_' or '-', starting with a letter or digit), not '%.80s'",
				    RUNREF_GROUP_MAX, optarg);
				return CMD_EXIT_USAGE;
			}
			o->label = optarg;
			break;
		case 'G':
			if (!runref_group_valid(optarg)) {
				log_error("--group: expected a group id (1 to %d letters, digits, "
				    "'.', '_' or '-', starting with a letter or digit), not '%.80s'",
				    RUNREF_GROUP_MAX, optarg);
				return CMD_EXIT_USAGE;
			}
			o->group = optarg;
			break;
		case 'R':
			o->resume = optarg;
			break;
		case 'n':
			o->dry = 1;
			break;
		case 'j':
			errno = 0;
			o->jobs = (int)strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || o->jobs < 1) {
				log_error("-j: expected a number of hosts of at least 1, not '%s'",
				    optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'P':
			if (cmd_archive_option("--push", optarg) != 0)
				return CMD_EXIT_USAGE;
			o->push = optarg;
			break;
		case 'B':
			o->baseline = optarg;
			break;
		case 'K':
			if (*optarg == '\0') {
				log_error("--expect-kernel: an empty string matches every kernel");
				return CMD_EXIT_USAGE;
			}
			cfg->expect_kernel = optarg;
			break;
		case 'T':
			o->tune = optarg;
			break;
		case 'D':
			o->detach = 1;
			break;
		case 'U':
			o->give_up = optarg;
			break;
		case 'C':
			if (!commit_valid(optarg)) {
				log_error("--commit: expected a commit id (4 to 64 hex digits), "
				    "not '%.80s'", optarg);
				return CMD_EXIT_USAGE;
			}
			o->commit = optarg;
			break;
		case 'W':
			if (ydoc_parse_duration(optarg, &cfg->wait_lock_ms) != 0 ||
			    cfg->wait_lock_ms < 0) {
				log_error("--wait-lock: expected a duration such as 10m or 90s, "
				    "not '%s'", optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		default:
			if ((c = cmd_common_option(&cmd_run, c, argv, &o->quiet)) >= 0)
				return c;
			break;
		}
	}
	/* PLAN, or with --resume RUN, PLAN or nothing (run.json names it) */
	if (optind + 1 != argc && !(o->resume != NULL && optind == argc))
		return cmd_usage(&cmd_run, 0);
	o->plan_file = optind < argc ? argv[optind] : NULL;
	o->results = outdir ? outdir : DEFAULT_RESULTS;
	if (log_get_level() == LOG_LEVEL_QUIET)
		o->quiet = 1;
	if (o->detach && (o->resume != NULL || o->baseline != NULL || o->push != NULL ||
	    o->tune != NULL)) {
		log_error("--detach: the controller is not there when the run ends; %s is "
		    "for a run it stays with", o->resume ? "--resume (collect carries on a "
		    "detached run)" : o->baseline ? "--baseline" : o->push ? "--push" :
		    "--tune");
		return CMD_EXIT_USAGE;
	}
	if (o->give_up != NULL && (o->resume == NULL || o->dry)) {
		log_error("--give-up: for the hosts of a detached run being collected "
		    "(`fleetmark collect RUN --give-up HOSTS`)");
		return CMD_EXIT_USAGE;
	}
	return -1;
}

/*
 * The catalogue and the plan (o->plan_file; recorded: the one run.json in
 * rdir names), with --tune's profile, or on --resume the profile the run
 * was given, checked for --detach.  0, or the exit status with *err.
 */
static int
load_plan(const struct run_opts *o, const char *rdir, int recorded, struct catalog **cat,
    struct plan **p, char **err)
{
	char *agent, *e;

	if ((agent = catalog_agent_path(err)) == NULL || catalog_load(agent, cat, err) != 0) {
		free(agent);
		return CMD_EXIT_ERROR;
	}
	free(agent);
	if (plan_load(o->plan_file, *cat, p, err) != 0) {
		if (recorded) {
			e = *err;
			*err = xasprintf("%s (the plan %s/%s records; give the plan: `fleetmark "
			    "run PLAN --resume %s`)", e, rdir, RUNDIR_RUN_JSON, o->resume);
			free(e);
		}
		return CMD_EXIT_USAGE;
	}
	if (o->tune != NULL) {
		struct tune_spec *ts;

		if (tune_spec_profile(o->tune, &ts, err) != 0)
			return CMD_EXIT_USAGE;
		tune_spec_free((*p)->tune);
		(*p)->tune = ts;
	} else if (o->resume != NULL && (*p)->tune == NULL &&
	    recorded_tune(rdir, &(*p)->tune, err) != 0)
		return CMD_EXIT_ERROR;
	if (o->detach && detach_plan_check(*p, err) != 0)
		return CMD_EXIT_USAGE;
	return 0;
}

/*
 * A run that is judged: what the hosts' qualifications (in the results
 * directory, or in the archive the run goes to or its baseline comes
 * from) say it can see.
 */
static void
qualify_warn(const struct run_opts *o, const struct plan *p, const struct fleet *f,
    const unsigned char *sel)
{
	char *url = NULL, *runid = NULL;

	if (o->push != NULL)
		url = xstrdup(o->push);
	else if (o->baseline != NULL && archive_is_url(o->baseline) &&
	    archive_split_ref(o->baseline, &url, &runid) != 0)
		url = NULL;
	ab_qualify_warn_nights(o->results, url, p, f, sel, p->has_regression ? p->threshold :
	    VERDICT_THRESHOLD);
	free(runid);
	free(url);
}

/* A baseline that is not `latest` is checked before the hours of a run. */
static int
check_baseline(const struct run_opts *o, char **basedir, char **err)
{
	struct runref_ctx bctx;
	char *e;

	if (o->baseline == NULL || is_latest(o->baseline) || is_history(o->baseline))
		return 0;
	memset(&bctx, 0, sizeof(bctx));
	bctx.results = o->results;
	if (runref_resolve(o->baseline, &bctx, basedir, err) == 0)
		return 0;
	e = *err;	/* names the REF, without credentials */
	*err = xasprintf("baseline %s", e);
	free(e);
	return archive_is_url(o->baseline) ? CMD_EXIT_ERROR : CMD_EXIT_USAGE;
}

/*
 * --resume: take the run in rdir up again into *s, for the hosts it has
 * left (session_resume_check()), said on stderr.  -1 when the run goes
 * on; CMD_EXIT_OK when nothing is left to run (said on stdout); else the
 * exit status with *err.
 */
static int
resume_run(const struct run_opts *o, const char *rdir, struct session_config *cfg,
    struct session **s, char **err)
{
	const struct session_resume_opts ro = { .fleet_file = o->fleet_file,
	    .hosts = o->hosts_spec, .give_up = o->give_up };
	const struct rundir_run *run;
	size_t todo;
	int r;

	if ((r = session_resume(rdir, s, err)) != 0)
		/* Not a run directory is bad input; anything else an error. */
		return r == RUNDIR_ENOTRUN ? CMD_EXIT_USAGE : CMD_EXIT_ERROR;
	run = session_rundir(*s);
	if (rundir_check_plan(run, cfg->plan, err) != 0)
		return CMD_EXIT_USAGE;
	if (o->group != NULL && (run->group == NULL || strcmp(run->group, o->group) != 0)) {
		*err = xasprintf("--group %s: the run %s is of %s%s (a resumed run keeps "
		    "its group)", o->group, rdir, run->group ? "group " : "no group",
		    run->group ? run->group : "");
		return CMD_EXIT_USAGE;
	}
	if ((r = session_resume_check(*s, cfg, &ro, &todo, err)) < 0)
		return CMD_EXIT_USAGE;
	if (r == SESSION_NOTHING_LEFT) {
		printf("nothing left to run: every trial of %s on %s is ok; the run is "
		    "left as it is\n", session_dir(*s), o->hosts_spec ? o->hosts_spec :
		    "its hosts");
		return CMD_EXIT_OK;
	}
	if (run_check_limits(cfg->fleet, cfg->sel, o->jobs, err) != 0)
		return CMD_EXIT_ERROR;
	if (cfg->mode == RUN_COLLECT)
		log_info("collecting %s: %zu trials already ok, the hosts' journals "
		    "next", session_dir(*s), trial_done_count(session_done(*s), NULL));
	else
		log_info("resuming %s: %zu trials already ok, %zu to run", session_dir(*s),
		    trial_done_count(session_done(*s), NULL), todo);
	return -1;
}

/* A detached run (run --detach, or collect) left running: the exit status. */
static int
print_detached(struct session *s, enum run_mode mode)
{
	const struct run_summary *sum = session_summary(s);
	int code;
	size_t i, k;

	print_hosts(s);
	code = session_exit(s);
	for (i = 0, k = 0; i < sum->nhosts; i++)
		k += sum->hosts[i].status == JOURNAL_HOST_RUNNING;
	if (mode == RUN_DETACH) {
		printf("detached: %zu of %zu hosts run the trials on their own; "
		    "`fleetmark collect %s` gathers the results (--wait: until every "
		    "host is done)\n", k, sum->nhosts, session_dir(s));
		code = k == sum->nhosts ? CMD_EXIT_OK : CMD_EXIT_PARTIAL;
	} else
		printf("not finished: %zu of %zu hosts still run their trials%s; "
		    "`fleetmark collect %s` again later\n", k, sum->nhosts,
		    k < sum->nhosts ? ", or were not reached" : "", session_dir(s));
	printf("run directory: %s\n", session_dir(s));
	fflush(stdout);
	return code;
}

/* --push: a finished run into the archive url.  0, or -1 (said). */
static int
push_run(struct session *s, const char *url)
{
	/* the URL in messages without a user:password */
	char *d = archive_url_display(url), *err = NULL;
	int r = 0;

	if (session_status(s) != JOURNAL_FINISHED)
		log_warn("the run did not finish: not pushed to %s", d);
	else if (archive_push(session_dir(s), url, &err) != 0) {
		log_error("push to %s: %s", d, err);
		log_error("the run is kept in %s; `fleetmark push %s %s` pushes it again",
		    session_dir(s), session_dir(s), d);
		free(err);
		r = -1;
	} else
		log_info("pushed %s to %s", session_id(s), d);
	free(d);
	return r;
}

/*
 * After a run that took place, not left detached: the verdict against
 * --baseline (a run, or the history), the summary, --push.  *basedir: the
 * baseline run checked before the run, or NULL (`latest` is found now).
 * The exit status.
 */
static int
run_finish(const struct run_opts *o, const struct plan *p, struct session *s,
    const struct session_config *cfg, char **basedir)
{
	enum journal_status st = session_status(s);
	struct nightly *verdict = NULL;
	int code, regressions, failed = 0, lost = 0;

	/* the history before this run is pushed, which it leaves out anyway */
	if (o->baseline != NULL && is_history(o->baseline) && st == JOURNAL_FINISHED &&
	    history_verdict(p, s, cfg, o->push ? o->push : o->results, &verdict, &lost) != 0)
		failed = 1;
	/* `latest` before this run is pushed, so it is never this run */
	if (o->baseline != NULL && !is_history(o->baseline) && *basedir == NULL &&
	    st == JOURNAL_FINISHED && find_baseline(o->baseline, p, session_summary(s),
	    session_id(s), o->group != NULL ? o->group : session_rundir(s) != NULL ?
	    session_rundir(s)->group : NULL, o->results, o->push, basedir) != 0)
		failed = 1;
	if (*basedir != NULL && st == JOURNAL_FINISHED)
		print_baseline(o->baseline, o->push, *basedir);
	regressions = print_summary(s, st == JOURNAL_FINISHED ? *basedir : NULL);
	if (verdict != NULL) {
		history_write(verdict, session_dir(s));
		regressions = nightly_regressions(verdict);
	}
	if (regressions > 0)
		log_warn("%d significant regression%s against %s", regressions,
		    regressions == 1 ? "" : "s", verdict != NULL ? "the history" : *basedir);
	nightly_free(verdict);
	if (o->push != NULL && push_run(s, o->push) != 0)
		failed = 1;
	code = session_exit(s);
	if (failed)
		code = CMD_EXIT_ERROR;
	else if (code == CMD_EXIT_INTERRUPTED)
		log_error("interrupted: %zu trials not run; `fleetmark run --resume %s` runs "
		    "them", session_summary(s)->not_run, session_dir(s));
	else if (code != CMD_EXIT_ERROR && regressions > 0)
		code = CMD_EXIT_REGRESSION;	/* says more than failed trials do */
	else if (code == CMD_EXIT_OK && lost > 0)
		code = CMD_EXIT_PARTIAL;	/* a host lost in its fresh boot */
	return code;
}

static int
run_main(int argc, char **argv)
{
	struct run_opts o;
	struct catalog *cat = NULL;
	struct fleet *f = NULL;
	struct plan *p = NULL;
	struct session *s = NULL;
	struct session_config cfg;
	unsigned char *sel = NULL;
	char *err = NULL, *basedir = NULL, *rdir = NULL, *rplan = NULL;
	int code;

	memset(&o, 0, sizeof(o));
	memset(&cfg, 0, sizeof(cfg));
	if ((code = parse_options(argc, argv, &o, &cfg)) >= 0)
		return code;
	if (o.dry && o.resume == NULL)
		return dry_run(o.plan_file, o.fleet_file, o.hosts_spec);

	/* Nothing below writes to the run being resumed before session_run(). */
	code = CMD_EXIT_USAGE;
	if (o.resume != NULL) {
		if (resume_dir(o.resume, o.results, &rdir, &err) != 0)
			goto fail;
		if (o.plan_file == NULL) {
			if ((code = recorded_plan(rdir, &rplan, &err)) != 0)
				goto fail;
			o.plan_file = rplan;
		}
	}
	if ((code = load_plan(&o, rdir, rplan != NULL, &cat, &p, &err)) != 0)
		goto fail;
	if (o.dry) {
		code = dry_resume(p, rdir, o.hosts_spec);
		goto out;
	}
	/* bisect-run's install hook runs us with the commit it installed */
	if (o.commit == NULL && getenv("FLEETMARK_COMMIT") != NULL &&
	    commit_valid(getenv("FLEETMARK_COMMIT")))
		o.commit = getenv("FLEETMARK_COMMIT");
	if ((code = check_baseline(&o, &basedir, &err)) != 0)
		goto fail;

	cfg.plan = p;
	cfg.label = o.label;
	cfg.group = o.group;
	cfg.commit = o.commit;
	cfg.jobs = o.jobs;
	cfg.quiet = o.quiet;
	if (o.resume != NULL) {
		if ((code = resume_run(&o, rdir, &cfg, &s, &err)) == CMD_EXIT_OK)
			goto out;
		if (code >= 0)
			goto fail;
	} else {
		code = CMD_EXIT_USAGE;
		if (fleet_load(o.fleet_file, &f, &err) != 0 ||
		    plan_select(p, f, o.hosts_spec, &sel, &err) != 0)
			goto fail;
		cfg.fleet = f;
		cfg.sel = sel;
		cfg.seed = plan_seed(p);
		code = CMD_EXIT_ERROR;
		if (run_check_limits(f, sel, o.jobs, &err) != 0)
			goto fail;
		/* a run that is judged: what the hosts' qualifications say it can see */
		if (p->has_regression || o.baseline != NULL)
			qualify_warn(&o, p, f, sel);
		cfg.mode = o.detach ? RUN_DETACH : RUN_ATTACHED;
		if (session_create(o.results, &cfg, &s, &err) != 0)
			goto fail;
	}

	catch_signals();
	log_verbose("Ctrl-C stops the run cleanly; a second one exits at once");
	if (session_run(s, &cfg, &err) != 0) {
		code = CMD_EXIT_ERROR;
		goto fail;
	}
	if (session_status(s) == JOURNAL_DETACHED)
		code = print_detached(s, cfg.mode);
	else
		code = run_finish(&o, p, s, &cfg, &basedir);
	goto out;
 fail:
	log_error("%s", err);
 out:
	session_free(s);
	free(err);
	free(basedir);
	free(rdir);
	free(rplan);
	free(sel);
	plan_free(p);
	fleet_free(f);
	catalog_free(cat);
	return code;
}

static const struct cmd_option run_options[] = {
	{ 'f', NULL, "FLEET", "the inventory (fleetmark-fleet(5)); with --resume, the one the run "
	    "recorded", "the embedded fleet: one host, local, this machine, without SSH" },
	{ 'H', NULL, "HOSTS", "only these hosts: names, globs, @labels, @a&@b, !excluded, comma "
	    "separated (narrows the plan's hosts:)", "every host the plan names" },
	{ 'o', NULL, "DIR", "where run directories are made (created when missing)", "results" },
	{ 0, "label", "NAME", "the run's name in reports (letters, digits, . _ -), e.g. "
	    "with-patch", "each host's kernel "
	    "release" },
	{ 0, "group", "ID", "the run group (letters, digits, . _ -): controllers that "
	    "share a fleet run the same plan on their own hosts with one ID, and report, "
	    "compare and history merge the group's runs (group:ID, URL/group:ID); --baseline "
	    "latest never takes a run of the same group", NULL },
	{ 'j', NULL, "N", "at most N hosts at once; logins and agent starts are paced anyway",
	    "all, at most 1024" },
	{ 0, "resume", "RUN", "carry on with a stopped run (its run directory, or its run id "
	    "under -o): run the trials that have no ok result yet, in the original order, on the "
	    "run's hosts (or -H, some of them); PLAN may be left out (the plan run.json records "
	    "is read, and must still be the same); a resume that is refused writes nothing",
	    NULL },
	{ 0, "push", "URL", "when the run has finished, upload it (report included) to an archive: "
	    "file://, http(s):// (WebDAV), s3://", NULL },
	{ 0, "baseline", "REF", "when the run has finished, compare it with REF (a run directory, a "
	    "run id, latest: the newest earlier finished run of this plan on a common host, or an "
	    "archive URL/RUNID); a significant regression of the plan's regression metrics exits 4; "
	    "history: judge each series against its nights since the last change point (the "
	    "--push archive, else -o), one-sided, measure what would fail the night again "
	    "(regression.confirm: after a fresh boot into the host's boot: test entry where it "
	    "has one, else in the night's boot), Benjamini-Hochberg over the night's rows "
	    "(regression.fdr)",
	    NULL },
	{ 0, "expect-kernel", "STRING", "the boot check: on each host, and again after every "
	    "power cycle and fresh boot, the running kernel (uname -r, uname -v or /proc/cmdline) must contain "
	    "STRING, else the host's trials fail with class boot and nothing is measured "
	    "(docs/boards.md)", NULL },
	{ 0, "tune", "PROFILE", "set the hosts up with a tuning profile before the first trial "
	    "and put them back after the last (performance: governor, boost off, ASLR off, NUMA "
	    "balancing off, irqbalance stopped, C-states limited; none: no tuning); it replaces "
	    "the plan's tune: (docs/environment.md); --resume takes the profile the run was "
	    "given again", "the plan's tune:, else none" },
	{ 0, "commit", "SHA", "the commit this run measures, recorded in run.json: the nightly "
	    "verdict and history print the git bisect lines between two nights' commits",
	    "FLEETMARK_COMMIT when set (bisect-run's install hook), else none" },
	{ 0, "wait-lock", "DURATION", "when another run holds a host's lease, wait up to DURATION "
	    "(90s, 10m, 2h) for it; a dead holder's lease is taken at once", "fail that host "
	    "with the holder's name (class locked): at once, or after 15 s when the holder is "
	    "this user@controller" },
	{ 0, "detach", NULL, "hand each host its whole trial list and return: the agent there "
	    "runs it on its own, journals it on the host and holds the host's lease, and "
	    "`fleetmark collect` gathers the results later (docs/detached.md); not with "
	    "variants, tune:, repeat: auto, --baseline or --push", NULL },
	{ 0, "give-up", "HOSTS", "with --resume of a detached run (collect): do not wait for "
	    "these hosts any more; the trials their agents did not journal fail as agent-lost, "
	    "and no later collect reaches them (docs/detached.md)", NULL },
	{ 0, "dry-run", NULL, "show the trials each host would run (as `fleetmark plan`); with "
	    "--resume, the trials a resume would run; contact nothing, write nothing", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit run_exits[] = {
	{ 0, "every trial on every host is ok; with --detach, every host took its list" },
	{ 1, "an error: the run directory could not be written, the agent catalogue could not "
	    "be read, a --push that failed (the run is kept), a latest baseline that could "
	    "not be read, a --resume of a run in use or damaged" },
	{ 2, "bad usage or invalid input: the plan or inventory (FILE:LINE:COL), an unknown "
	    "host in -H, a --resume of another plan, of a plan changed since, of no run" },
	{ 3, "the run finished, but some hosts or trials failed (results kept); with "
	    "--detach, some hosts could not take their list (collect runs it)" },
	{ 4, "with --baseline: a significant regression (it wins over 3)" },
	{ 5, "with --resume of a detached run: hosts still run their trials (collect again "
	    "later)" },
	{ 130, "interrupted by SIGINT or SIGTERM; the message says how to resume" },
	{ -1, NULL }
};

static const struct cmd_example run_examples[] = {
	{ "fleetmark run plans/smoke.yaml", "a few seconds on this machine, no SSH" },
	{ "fleetmark run plans/lmbench.yaml -f lab.yaml -H @x86_64 --label with-patch",
	    "the lmbench tables of every x86_64 host, labelled for a compare" },
	{ "fleetmark run plans/lmbench.yaml -f lab.yaml --push file:///srv/fleetmark "
	    "--baseline history -q", "a nightly check against the history: exit 4 on a "
	    "regression that holds" },
	{ "fleetmark run --resume 20261130-064816-lmbench-264e", "carry on with a stopped run, "
	    "named by its run id: its plan and inventory are the ones it recorded" },
	{ NULL, NULL }
};

static const struct cmd_help run_help = {
	"Runs a test plan (fleetmark-plan(5)) on the hosts of an inventory, all hosts "
	"in parallel, each host one trial at a time: connect (SSH, or the local "
	"transport), deploy the agent, then the plan's variants and trials in order.  "
	"Each finished trial is appended to the run directory at once, so a crash loses "
	"at most the trials in flight.\n\n"
	"Progress goes to stderr (one line per host on a terminal, timestamped lines "
	"elsewhere; with -v also each trial's values).  When the run ends, stdout gets "
	"a table of the hosts, the report's tables (also written to report.txt and "
	"report.html) and the run directory's path.\n\n"
	"Ctrl-C stops cleanly: variants are undone, run.json says interrupted, and the "
	"command that carries on is printed.  A second Ctrl-C exits at once.",
	run_options, NULL, run_exits, run_examples,
	"docs/guide.md (running, the run directory, resuming), docs/nightly.md, "
	"fleetmark-plan(5), fleetmark-fleet(5)", 0
};

const struct cmd_entry cmd_run = {
	"run",
	"PLAN [-f FLEET] [-H HOSTS] [-o DIR] [--label NAME] [--group ID] [-j N] [--resume RUN] "
	"[--push URL] [--baseline REF] [--tune PROFILE] [--commit SHA] [--wait-lock DURATION] "
	"[--expect-kernel STRING] [--detach] [--dry-run] [-q] [-v]",
	"run a test plan on a fleet and keep the results in a run directory", run_main,
	&run_help
};
