/*
 * session.c: one run of a plan from its run directory to its report, for
 * `run` and `bisect-run` (session.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "detach.h"
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "plan.h"
#include "progress.h"
#include "report.h"
#include "run.h"
#include "rundir.h"
#include "session.h"
#include "strbuf.h"
#include "trialread.h"
#include "xmalloc.h"

struct session {
	struct journal		*j;
	struct trial_done	*done;		/* resumed: the trials done */
	struct rundir_run	*run;		/* resumed: run.json as found */
	struct run_summary	 sum;
	enum journal_status	 status;
	char			*error;		/* the first journal error */
	int			 ran;		/* session_run() was called */
	struct fleet		*fleet;		/* session_resume_check(): the run's */
	unsigned char		*sel;		/* its hosts to run, fleet->nhosts flags */
	unsigned char		*give_up;	/* --give-up's hosts, or NULL */
};

int
session_create(const char *results, const struct session_config *c,
    struct session **out, char **err)
{
	const struct journal_info info = { .results = results, .plan = c->plan,
	    .seed = c->seed, .fleet = c->fleet, .sel = c->sel, .label = c->label,
	    .group = c->group, .commit = c->commit, .side = c->side, .boot = c->boot,
	    .run_id = c->run_id,
	    .controller = FLEETMARK_VERSION, .detached = c->mode == RUN_DETACH };
	struct session *s = xcalloc(1, sizeof(*s));

	*out = NULL;
	if (journal_create(&info, &s->j, err) != 0) {
		free(s);
		return -1;
	}
	s->status = JOURNAL_RUNNING;
	*out = s;
	return 0;
}

int
session_resume(const char *rundir, struct session **out, char **err)
{
	struct session *s = xcalloc(1, sizeof(*s));
	int r;

	*out = NULL;
	if ((r = journal_resume(rundir, &s->j, &s->done, err)) != 0) {
		free(s);
		return r;
	}
	s->run = rundir_run_new(journal_run_json(s->j));
	s->status = JOURNAL_RUNNING;
	*out = s;
	return 0;
}

/*
 * --give-up SPEC of a resumed run: the hosts SPEC selects, which must be
 * hosts of a detached run that has not finished (sel: the run's hosts).
 * A new flag array in *out; 0, or -1 with *err.
 */
static int
give_up_hosts(const struct rundir_run *run, const struct fleet *f, const char *spec,
    const unsigned char *sel, unsigned char **out, char **err)
{
	unsigned char *g;
	size_t i, n = 0;

	*out = NULL;
	if (!run->detached || (run->status != NULL && strcmp(run->status,
	    journal_status_name(JOURNAL_FINISHED)) == 0)) {
		*err = xasprintf("--give-up %s: the run is %s (--give-up is for the hosts a "
		    "detached run still waits for)", spec, run->detached ? "finished" :
		    "not a detached run");
		return -1;
	}
	g = xcalloc(f->nhosts, 1);
	if (fleet_select(f, spec, g, err) != 0) {
		free(g);
		return -1;
	}
	for (i = 0; i < f->nhosts; i++) {
		if (g[i] && !sel[i]) {
			*err = xasprintf("--give-up %s: host '%s' is not one of the run's", spec,
			    f->hosts[i].name);
			free(g);
			return -1;
		}
		n += g[i];
	}
	if (n == 0) {
		*err = xasprintf("--give-up %s: no host", spec);
		free(g);
		return -1;
	}
	*out = g;
	return 0;
}

/* How many of the trials of p on host have no ok line in done. */
static size_t
host_todo(const struct plan *p, unsigned long long seed, const struct trial_done *done,
    const char *host)
{
	struct plan_schedule *s = plan_expand(p, host, seed);
	size_t i, n = 0;

	for (i = 0; i < s->ntrials; i++)
		n += !trial_done_has(done, host, s->trials[i].key);
	plan_schedule_free(s);
	return n;
}

/* The fleet's flags of the resumed run's hosts, each of which must be in f. */
static int
run_hosts(const struct rundir_run *run, const struct fleet *f, unsigned char **out,
    char **err)
{
	unsigned char *sel = xcalloc(f->nhosts, 1);
	size_t i, k;

	*out = NULL;
	for (k = 0; k < run->nhosts; k++) {
		for (i = 0; i < f->nhosts; i++)
			if (strcmp(f->hosts[i].name, run->hosts[k].name) == 0)
				break;
		if (i == f->nhosts) {
			*err = xasprintf("host '%s' of the run is not in %s",
			    run->hosts[k].name, f->file);
			free(sel);
			return -1;
		}
		sel[i] = 1;
	}
	*out = sel;
	return 0;
}

int
session_resume_check(struct session *s, struct session_config *c,
    const struct session_resume_opts *o, size_t *todo, char **err)
{
	const struct rundir_run *run = s->run;
	const char *fleet_file = o->fleet_file;
	/* a detached run is collected (docs/detached.md) */
	int collect = run->detached && (run->status == NULL || strcmp(run->status,
	    journal_status_name(JOURNAL_FINISHED)) != 0);
	unsigned char *only = NULL;
	size_t i, k;
	int r = -1;

	*todo = 0;
	/* The fleet the run used, unless -f says otherwise. */
	if (fleet_file == NULL && run->fleet != NULL &&
	    strcmp(run->fleet, FLEET_DEFAULT_NAME) != 0)
		fleet_file = run->fleet;
	if (fleet_load(fleet_file, &s->fleet, err) != 0 ||
	    run_hosts(run, s->fleet, &s->sel, err) != 0)
		goto out;
	if (o->give_up != NULL &&
	    give_up_hosts(run, s->fleet, o->give_up, s->sel, &s->give_up, err) != 0)
		goto out;
	if (o->hosts != NULL) {
		only = xcalloc(s->fleet->nhosts, 1);
		if (fleet_select(s->fleet, o->hosts, only, err) != 0)
			goto out;
		for (i = 0; i < s->fleet->nhosts; i++)
			s->sel[i] &= only[i];
	}
	/* a host given up is not collected again, unless given up again */
	for (k = 0; collect && k < run->nhosts; k++)
		if (run->hosts[k].detached != NULL &&
		    strcmp(run->hosts[k].detached, DETACH_GIVEN_UP) == 0)
			for (i = 0; i < s->fleet->nhosts; i++)
				if (strcmp(s->fleet->hosts[i].name, run->hosts[k].name) == 0)
					s->sel[i] = 0;
	for (i = 0; s->give_up != NULL && i < s->fleet->nhosts; i++)
		s->sel[i] |= s->give_up[i];
	for (i = 0, k = 0; i < s->fleet->nhosts; i++)
		if (s->sel[i]) {
			*todo += host_todo(c->plan, run->seed, s->done, s->fleet->hosts[i].name);
			k++;
		}
	if (k == 0) {
		struct strbuf sb = STRBUF_INIT;

		for (i = 0; i < run->nhosts; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", run->hosts[i].name);
		*err = xasprintf("-H %s: no host of the run %s (its hosts: %s)",
		    o->hosts ? o->hosts : "-", session_dir(s), sb.len ? sb.buf : "none");
		strbuf_release(&sb);
		goto out;
	}
	if (*todo == 0 && run->status != NULL &&
	    strcmp(run->status, journal_status_name(JOURNAL_FINISHED)) == 0) {
		r = SESSION_NOTHING_LEFT;
		goto out;
	}
	c->fleet = s->fleet;
	c->sel = s->sel;
	c->give_up = s->give_up;
	c->seed = run->seed;
	if (collect)
		c->mode = RUN_COLLECT;
	r = 0;
 out:
	free(only);
	return r;
}

const struct rundir_run *
session_rundir(const struct session *s)
{
	return s->run;
}

const struct trial_done *
session_done(const struct session *s)
{
	return s->done;
}

const char *
session_dir(const struct session *s)
{
	return journal_dir(s->j);
}

const char *
session_id(const struct session *s)
{
	return journal_run_id(s->j);
}

enum journal_status
session_status(const struct session *s)
{
	return s->status;
}

const struct run_summary *
session_summary(const struct session *s)
{
	return &s->sum;
}

const char *
session_error(const struct session *s)
{
	return s->error;
}

enum journal_status
session_final_status(const struct run_summary *sum, int finish_failed)
{
	if (sum->journal_error != NULL || finish_failed)
		return JOURNAL_FAILED;
	return sum->interrupted ? JOURNAL_INTERRUPTED : JOURNAL_FINISHED;
}

int
session_exit_status(enum journal_status st, const struct run_summary *sum)
{
	size_t i;

	if (st == JOURNAL_INTERRUPTED)
		return CMD_EXIT_INTERRUPTED;
	if (st == JOURNAL_DETACHED)
		return CMD_EXIT_RUNNING;
	if (st != JOURNAL_FINISHED)
		return CMD_EXIT_ERROR;
	for (i = 0; i < sum->nhosts; i++)
		if (sum->hosts[i].status != JOURNAL_HOST_DONE || sum->hosts[i].failed > 0)
			return CMD_EXIT_PARTIAL;
	return CMD_EXIT_OK;
}

/*
 * Whether a host of the resumed run that this session left out (collect
 * -H, a host given up before) had failed or failed trials when it began.
 */
static int
others_failed(const struct session *s)
{
	size_t i, k;

	for (k = 0; s->run != NULL && k < s->run->nhosts; k++) {
		for (i = 0; i < s->sum.nhosts; i++)
			if (strcmp(s->sum.hosts[i].name, s->run->hosts[k].name) == 0)
				break;
		if (i == s->sum.nhosts && (s->run->hosts[k].failed > 0 ||
		    s->run->hosts[k].status == NULL || strcmp(s->run->hosts[k].status,
		    journal_host_status_name(JOURNAL_HOST_DONE)) != 0))
			return 1;
	}
	return 0;
}

int
session_exit(const struct session *s)
{
	int r = session_exit_status(s->status, &s->sum);

	/* the collect that finishes a detached run answers for all of it */
	if (r == CMD_EXIT_OK && s->run != NULL && s->run->detached && others_failed(s))
		r = CMD_EXIT_PARTIAL;
	return r;
}

/* Whether c selects a host of its fleet. */
static int
any_host(const struct session_config *c)
{
	size_t i;

	for (i = 0; i < c->fleet->nhosts; i++)
		if (c->sel == NULL || c->sel[i])
			return 1;
	return 0;
}

/* Log messages above the live progress frame instead of through it. */
static void
log_to_progress(const char *line, void *arg)
{
	progress_message(arg, line);
}

/*
 * A detached run goes on while one of its hosts is not done: one of this
 * session's, or (collect -H) one it left out that was not done before.
 * A host given up (collect --give-up) is not waited for.
 */
static int
detach_pending(const struct session *s)
{
	size_t i, k;

	for (i = 0; i < s->sum.nhosts; i++)
		if (s->sum.hosts[i].status != JOURNAL_HOST_DONE && !s->sum.hosts[i].given_up)
			return 1;
	for (k = 0; s->run != NULL && k < s->run->nhosts; k++) {
		for (i = 0; i < s->sum.nhosts; i++)
			if (strcmp(s->sum.hosts[i].name, s->run->hosts[k].name) == 0)
				break;
		if (i == s->sum.nhosts && (s->run->hosts[k].status == NULL ||
		    strcmp(s->run->hosts[k].status, journal_host_status_name(
		    JOURNAL_HOST_DONE)) != 0) && (s->run->hosts[k].detached == NULL ||
		    strcmp(s->run->hosts[k].detached, DETACH_GIVEN_UP) != 0))
			return 1;
	}
	return 0;
}

/*
 * RUN_COLLECT: the hosts (fleet->nhosts flags) whose detached agent was
 * still running at the last look, so that their journal directory is
 * there yet, even when every trial was taken from it; NULL when there are
 * none.  The caller frees it.
 */
static unsigned char *
dirs_left(const struct session *s, const struct fleet *f)
{
	unsigned char *left = NULL;
	const struct fleet_host *h;
	size_t k;

	for (k = 0; s->run != NULL && k < s->run->nhosts; k++) {
		if (s->run->hosts[k].detached == NULL ||
		    strcmp(s->run->hosts[k].detached, "running") != 0 ||
		    (h = fleet_find(f, s->run->hosts[k].name)) == NULL)
			continue;
		if (left == NULL)
			left = xcalloc(f->nhosts, 1);
		left[h - f->hosts] = 1;
	}
	return left;
}

/*
 * The deadlines a test may make short (never set in use): how long a
 * silent host is waited for, how long an agent waits for a silent
 * controller, how long a lease of our own user is given to go.
 */
static void
test_deadlines(struct run_config *rc)
{
	const char *v;

	if ((v = getenv("FLEETMARK_SILENCE_MS")) != NULL)
		rc->silence_ms = atoll(v);
	if ((v = getenv("FLEETMARK_AGENT_IDLE_MS")) != NULL)
		rc->agent_idle_ms = atoll(v);
	if ((v = getenv("FLEETMARK_LEASE_SELF_MS")) != NULL)
		rc->lease_self_ms = atoll(v);
}

int
session_run(struct session *s, const struct session_config *c, char **err)
{
	struct run_config rc = { .plan = c->plan, .fleet = c->fleet, .sel = c->sel,
	    .seed = c->seed, .journal = s->j, .done = s->done, .jobs = c->jobs,
	    .expect_kernel = c->expect_kernel, .mode = c->mode, .give_up = c->give_up };
	struct trial_done *finished = NULL;
	struct progress *prog;
	unsigned char *left = NULL;
	char *ferr = NULL, *path;
	int r;

	if (s->ran) {
		*err = xstrdup("session_run: the run has taken place already");
		return -1;
	}
	if (s->run != NULL) {
		/* Resumed: the run directory is written from here on, and only
		 * for a run that can take place. */
		if (!any_host(c)) {
			*err = xasprintf("%s: no host of the run to run on", journal_dir(s->j));
			return -1;
		}
		if (journal_resume_start(s->j, err) != 0)
			return -1;
	}
	if (c->mode == RUN_COLLECT) {
		/* what no host finished runs again, and nothing is gathered twice */
		path = rundir_path(journal_dir(s->j), RUNDIR_TRIALS);
		r = trial_finished_read(path, &finished, err);
		free(path);
		if (r != 0)
			return -1;
		rc.done = finished;
		rc.dir_left = left = dirs_left(s, c->fleet);
	}
	s->ran = 1;
	log_info("run %s", journal_dir(s->j));
	prog = rc.progress = progress_new(STDERR_FILENO, c->quiet ? PROGRESS_QUIET :
	    PROGRESS_AUTO);
	rc.wait_lock_ms = c->wait_lock_ms;
	test_deadlines(&rc);
	if (progress_mode(prog) == PROGRESS_TERMINAL)
		log_set_sink(log_to_progress, prog);
	progress_start_ticker(prog);
	r = run_execute(&rc, &s->sum, err);
	progress_end(prog);
	log_set_sink(NULL, NULL);
	progress_free(prog);
	trial_done_free(finished);
	free(left);
	if (r != 0) {
		s->status = JOURNAL_FAILED;
		if (journal_finish(s->j, s->status, &ferr) != 0)
			free(ferr);
		return -1;
	}

	if (s->sum.journal_error != NULL) {
		log_error("%s", s->sum.journal_error);
		s->error = xstrdup(s->sum.journal_error);
	}
	s->status = session_final_status(&s->sum, 0);
	if (c->mode != RUN_ATTACHED && s->status == JOURNAL_FINISHED && detach_pending(s))
		s->status = JOURNAL_DETACHED;
	if (journal_finish(s->j, s->status, &ferr) != 0) {
		/* What run.json last said stays: "running", never "finished". */
		log_error("%s", ferr);
		log_error("run.json could not be told that the run ended (%s): it still says "
		    "\"running\"; `fleetmark run --resume %s` carries on", journal_status_name(
		    session_final_status(&s->sum, 1)), journal_dir(s->j));
		if (s->error == NULL)
			s->error = ferr;
		else
			free(ferr);
		s->status = session_final_status(&s->sum, 1);
	}
	if (journal_log_error(s->j) != NULL)
		log_warn("host logs: %s", journal_log_error(s->j));
	return 0;
}

int
session_confirm(struct session *s, const struct session_config *c, char **err)
{
	struct run_config rc = { .plan = c->plan, .fleet = c->fleet, .sel = c->sel,
	    .seed = c->seed, .journal = s->j, .jobs = c->jobs,
	    .expect_kernel = c->expect_kernel };
	struct run_summary sum;
	struct progress *prog;
	char *ferr = NULL;
	size_t i, k;
	int r;

	if (!s->ran || s->status != JOURNAL_FINISHED) {
		*err = xstrdup("session_confirm: the run has not finished");
		return -1;
	}
	memset(&sum, 0, sizeof(sum));
	prog = rc.progress = progress_new(STDERR_FILENO, c->quiet ? PROGRESS_QUIET :
	    PROGRESS_AUTO);
	test_deadlines(&rc);
	if (progress_mode(prog) == PROGRESS_TERMINAL)
		log_set_sink(log_to_progress, prog);
	progress_start_ticker(prog);
	r = run_execute(&rc, &sum, err);
	progress_end(prog);
	log_set_sink(NULL, NULL);
	progress_free(prog);
	if (r != 0)
		return -1;
	for (k = 0; k < sum.nhosts; k++)
		for (i = 0; i < s->sum.nhosts; i++)
			if (strcmp(s->sum.hosts[i].name, sum.hosts[k].name) == 0) {
				s->sum.hosts[i].ok += sum.hosts[k].ok;
				s->sum.hosts[i].failed += sum.hosts[k].failed;
				s->sum.hosts[i].ntrials += sum.hosts[k].ntrials;
			}
	s->sum.ok += sum.ok;
	s->sum.failed += sum.failed;
	if (sum.journal_error != NULL) {
		log_error("%s", sum.journal_error);
		if (s->error == NULL)
			s->error = xstrdup(sum.journal_error);
	}
	if (sum.interrupted)
		s->sum.interrupted = 1;
	run_summary_release(&sum);
	if (journal_finish(s->j, s->status, &ferr) != 0) {
		log_error("%s", ferr);
		free(ferr);
	}
	return 0;
}

int
session_report(struct session *s, const char *basedir, FILE *out)
{
	const char *dir = journal_dir(s->j);
	char *err = NULL;
	int n, r, lvl;

	if (basedir != NULL) {
		if ((n = report_write_baseline(dir, basedir, out, &err)) >= 0)
			return n;
		log_warn("report against the baseline: %s", err);
		free(err);
		err = NULL;
	}
	n = 0;
	if (report_write_run(dir, out, &err) != 0) {
		log_warn("report: %s", err);
		free(err);
		err = NULL;
		n = -1;
	}
	/* The page reads the same files again: what reading them had to say
	 * ("N lines not ok", lines skipped) was said once, above. */
	lvl = n == 0 ? log_set_level(LOG_LEVEL_QUIET) : log_get_level();
	r = report_write_html(dir, &err);
	log_set_level(lvl);
	if (r != 0) {
		log_warn("report.html: %s", err);
		free(err);
	}
	return n;
}

void
session_free(struct session *s)
{
	if (s == NULL)
		return;
	run_summary_release(&s->sum);
	journal_free(s->j);
	trial_done_free(s->done);
	rundir_run_free(s->run);
	free(s->error);
	fleet_free(s->fleet);
	free(s->sel);
	free(s->give_up);
	free(s);
}
