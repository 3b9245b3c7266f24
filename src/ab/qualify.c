/*
 * ab/qualify.c: what `fleetmark qualify` makes of an A/A ab (abdir.h):
 * the boots of one kernel on both sides judged as an ab's, each row's
 * variance components turned into what the host can see (ab_qualify_row(),
 * ab.h), printed, kept in DIR/qualify.json and in each host's record,
 * OUTDIR/qualify/HOST.json, with the night sd of the host's nightly runs
 * when they are given (history.h); and the warning an ab gives before its first
 * reboot when a host's record says its boots cannot see the threshold.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ab.h"
#include "ab-int.h"
#include "archive.h"
#include "cmd.h"
#include "fleet.h"
#include "fsutil.h"
#include "history.h"
#include "log.h"
#include "numfmt.h"
#include "plan.h"
#include "report.h"
#include "rgrid.h"
#include "rundir.h"
#include "verdict.h"
#include "xmalloc.h"

#define QUALIFY_FORMAT		1
#define QUALIFY_MAX_JSON	(4 << 20)

static const char *const qual_cols[] = {
	"host", "metric", "point", "boots", "trial sd", "boot sd", "night sd", "detectable",
	"boots a side", "K&J trials a boot", "boots a side at K&J", "a night detects",
	"nights for it"
};

/* Every boot of host's sequence done. */
static int
host_done(const struct ab_ctx *c, const char *host)
{
	json_t *seq = json_object_get(json_object_get(c->state, "sequences"), host), *b;
	size_t i;

	if (json_array_size(seq) == 0)
		return 0;
	json_array_foreach(seq, i, b)
		if (strcmp(ab_jstr(b, "state"), ST_DONE) != 0)
			return 0;
	return 1;
}

/*
 * What a trial and a boot cost on h, seconds: a trial by the plan's model
 * (0 when some trial has none), a boot what the sequence took beyond its
 * trials, at least a second.
 */
static void
costs(const struct ab_ctx *c, const struct fleet_host *h, double secs, size_t boots,
    double *cost_boot, double *cost_trial)
{
	struct plan_schedule *s = plan_expand(c->p, h->name, plan_seed(c->p));
	struct plan_estimate e;

	plan_estimate_schedule(c->cat, c->p, s, &e);
	*cost_trial = e.unknown == 0 && s->ntrials > 0 ? e.secs / (double)s->ntrials : 0;
	*cost_boot = boots > 0 ? secs / (double)boots - e.secs : 0;
	if (*cost_boot < 1)
		*cost_boot = 1;
	plan_schedule_free(s);
}

/* A row's nights: those of its series' last segment (since its last change). */
struct night {
	double	rsd;		/* night to night, percent of the mean; NAN: < 2 nights */
	size_t	n;
};

static int
night_of(const struct history *h, const struct ab_qrow *q, struct night *out)
{
	size_t i;

	for (i = 0; h != NULL && i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		const struct history_segment *g;
		const char *var = s->key.variant ? s->key.variant : "";

		if (strcmp(s->key.host, q->host) != 0 || strcmp(var, q->variant) != 0 ||
		    strcmp(s->key.bench, q->bench) != 0 || strcmp(s->key.params, q->params) != 0 ||
		    strcmp(s->key.metric, q->metric) != 0 || s->nsegments == 0)
			continue;
		g = &s->segments[s->nsegments - 1];
		out->n = g->n;
		out->rsd = g->n >= 2 && g->mean != 0 ? 100 * g->sd / fabs(g->mean) : NAN;
		return 1;
	}
	return 0;
}

static const char *
row_point(const struct ab_qrow *q)
{
	return *q->params ? q->params : "-";
}

static void
set_count(struct rgrid *g, size_t row, size_t col, size_t n, double thr)
{
	char buf[64];

	if (n == 0)
		snprintf(buf, sizeof(buf), "-");
	else if (n > AB_PLAN_CAP)
		snprintf(buf, sizeof(buf), "> %d", AB_PLAN_CAP);
	else
		snprintf(buf, sizeof(buf), "%zu for %g%%", n, thr);
	rgrid_set(g, row, col, buf, n > 0 && n <= AB_PLAN_CAP ? (double)n : NAN);
}

/*
 * The sd of a night's mean of the logs: the history's nights' relative sd
 * when there are 2 or more, else a boot's (a night is a boot and its
 * trials: between + within / trials).  NAN when neither can be told.
 */
static double
night_sd_log(const struct ab_qrow *q, const struct night *nt)
{
	double v = q->j.comp.var_between;

	if (nt != NULL && isfinite(nt->rsd))
		return nt->rsd / 100;
	if (!isfinite(v) || !(q->trials >= 1))
		return NAN;
	if (isfinite(q->j.comp.var_within))
		v += q->j.comp.var_within / q->trials;
	return sqrt(v);
}

static void
add_grid_row(struct rgrid *g, const struct ab_qrow *q, const struct ab_qual *a,
    size_t boots, double thr, const struct night *nt, double night_det, size_t nights)
{
	char buf[64], name[256];
	size_t row = rgrid_add_row(g);

	snprintf(name, sizeof(name), "%s.%s%s%s", q->bench, q->metric, *q->variant ? " " : "",
	    q->variant);
	rgrid_set(g, row, 0, q->host, NAN);
	rgrid_set(g, row, 1, name, NAN);
	rgrid_set(g, row, 2, row_point(q), NAN);
	snprintf(buf, sizeof(buf), "%zu", boots);
	rgrid_set(g, row, 3, buf, (double)boots);
	numfmt_rsd(buf, sizeof(buf), q->j.comp.within);
	rgrid_set(g, row, 4, isnan(q->j.comp.within) ? "-" : buf, q->j.comp.within);
	numfmt_rsd(buf, sizeof(buf), q->j.comp.between);
	rgrid_set(g, row, 5, isnan(q->j.comp.between) ? "-" : buf, q->j.comp.between);
	if (nt != NULL && isfinite(nt->rsd))
		snprintf(buf, sizeof(buf), "±%.1f%% (%zu)", nt->rsd, nt->n);
	else
		snprintf(buf, sizeof(buf), "-");
	rgrid_set(g, row, 6, buf, nt != NULL ? nt->rsd : NAN);
	numfmt_detectable(buf, sizeof(buf), a->detectable);
	rgrid_set(g, row, 7, buf, a->detectable);
	set_count(g, row, 8, a->needed, thr);
	if (a->kj > 0)
		snprintf(buf, sizeof(buf), "%u", a->kj);
	else
		snprintf(buf, sizeof(buf), "-");
	rgrid_set(g, row, 9, buf, a->kj > 0 ? (double)a->kj : NAN);
	set_count(g, row, 10, a->needed_kj, thr);
	numfmt_detectable(buf, sizeof(buf), night_det);
	rgrid_set(g, row, 11, buf, night_det);
	if (nights > 0)
		snprintf(buf, sizeof(buf), "%zu for %g%%", nights, thr);
	else
		snprintf(buf, sizeof(buf), isfinite(night_det) ? "none" : "-");
	rgrid_set(g, row, 12, buf, nights > 0 ? (double)nights : NAN);
}

static json_t *
num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
row_json(const struct ab_qrow *q, const struct ab_qual *a, const struct night *nt,
    double night_det, size_t window, size_t nights)
{
	json_t *o = json_object();

	json_object_set_new(o, "bench", rundir_json_str(q->bench));
	json_object_set_new(o, "metric", rundir_json_str(q->metric));
	json_object_set_new(o, "params", rundir_json_str(q->params));
	json_object_set_new(o, "variant", rundir_json_str(q->variant));
	json_object_set_new(o, "unit", rundir_json_str(q->unit));
	json_object_set_new(o, "higher_is_better", json_boolean(q->higher));
	json_object_set_new(o, "trials_a_boot", num_or_null(q->trials));
	json_object_set_new(o, "trial_sd", num_or_null(q->j.comp.within));
	json_object_set_new(o, "boot_sd", num_or_null(q->j.comp.between));
	json_object_set_new(o, "night_sd", num_or_null(nt != NULL ? nt->rsd : NAN));
	json_object_set_new(o, "nights", nt != NULL ? json_integer((json_int_t)nt->n) :
	    json_null());
	json_object_set_new(o, "var_within", num_or_null(q->j.comp.var_within));
	json_object_set_new(o, "var_between", num_or_null(q->j.comp.var_between));
	json_object_set_new(o, "pair_sd", num_or_null(a->sd_d));
	json_object_set_new(o, "alpha", num_or_null(q->j.alpha));
	json_object_set_new(o, "prior_df", json_real(q->j.moderated ? q->j.prior_df : 0));
	json_object_set_new(o, "detectable", num_or_null(a->detectable));
	json_object_set_new(o, "boots_needed", a->needed > 0 && a->needed <= AB_PLAN_CAP ?
	    json_integer((json_int_t)a->needed) : json_null());
	json_object_set_new(o, "kj_trials", a->kj > 0 ? json_integer(a->kj) : json_null());
	json_object_set_new(o, "boots_needed_kj", a->needed_kj > 0 &&
	    a->needed_kj <= AB_PLAN_CAP ? json_integer((json_int_t)a->needed_kj) : json_null());
	json_object_set_new(o, "night_detectable", num_or_null(night_det));
	json_object_set_new(o, "night_window", json_integer((json_int_t)window));
	json_object_set_new(o, "nights_needed", nights > 0 ? json_integer((json_int_t)nights) :
	    json_null());
	json_object_set_new(o, "aa_verdict", json_string(ab_kind_name(q->j.kind)));
	return o;
}

static int
write_json(const char *path, json_t *o, char **err)
{
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	int r;

	r = fs_write_atomic(path, text, strlen(text), RUNDIR_FILE_MODE, 0, err);
	free(text);
	return r;
}

static void
print_grid(const struct rgrid *g, enum report_format fmt)
{
	size_t base = 0;
	int first = 1;

	switch (fmt) {
	case REPORT_MD:
		rgrid_print_md(g, stdout, &base);
		break;
	case REPORT_CSV:
		rgrid_print_csv(g, stdout);
		break;
	case REPORT_JSON:
		rgrid_print_json(g, stdout, &first);
		fputs(first ? "[]\n" : "\n]\n", stdout);
		break;
	default:
		rgrid_print_text(g, stdout);
		break;
	}
}

/* The record at path put in the archive at url as host's: 0, or 1 (said why). */
static int
push_record(const char *url, const char *host, const char *path)
{
	char *err = NULL, *d;

	if (archive_put_qualify(url, host, path, &err) != 0) {
		log_error("%s: its qualification was not pushed: %s", host, err);
		free(err);
		return 1;
	}
	d = archive_url_display(url);
	log_info("%s: qualification pushed, %s/%s/%s.json", host, d, ARCHIVE_QUALIFY, host);
	free(d);
	return 0;
}

int
ab_qualify_report(const struct ab_cmdopts *o, const struct ab_ctx *c, double secs,
    const struct history *h, char **err)
{
	struct ab_qrow *rows = NULL;
	struct rgrid *g = NULL;
	json_t *all = NULL, *hosts = json_object();
	double thr = json_real_value(json_object_get(c->state, "threshold"));
	char title[256], stamp[32], *path = NULL, *qdir = NULL;
	size_t n = 0, i, k, boots = (size_t)o->boots;
	size_t window = c->p->nights > 0 ? (size_t)c->p->nights : PLAN_DEFAULT_NIGHTS;
	size_t unpushed = 0;
	time_t now = time(NULL);
	int r = -1;

	if (ab_judge_dir(c, thr, &rows, &n, err) != 0)
		goto out;
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(title, sizeof(title), "What each host can see: one kernel on both sides, "
	    "%zu boots a side; threshold %g%%, 95%% power%s", boots, thr, h != NULL ?
	    "; the night sd over the nights since the last change" : "");
	g = rgrid_new("qualify", title, 3, sizeof(qual_cols) / sizeof(qual_cols[0]),
	    qual_cols);
	qdir = xasprintf("%s/%s", o->outdir, AB_QUALIFY_DIR);
	for (i = 0; i < c->nhosts; i++) {
		const struct fleet_host *fh = c->hosts[i];
		json_t *rec, *jrows = json_array();
		double cb, ct;

		costs(c, fh, secs, 2 * boots, &cb, &ct);
		for (k = 0; k < n; k++) {
			struct ab_qual a;
			struct night nt;
			int has_nt;
			double nd, nsd;
			size_t nn;
			double alpha = rows[k].j.alpha > 0 ? rows[k].j.alpha : PLAN_DEFAULT_FDR;

			if (strcmp(rows[k].host, fh->name) != 0)
				continue;
			ab_qualify_row(&rows[k].j.comp, rows[k].trials, boots, alpha,
			    rows[k].j.prior_df, thr, cb, ct, &a);
			has_nt = night_of(h, &rows[k], &nt);
			nsd = night_sd_log(&rows[k], has_nt ? &nt : NULL);
			nd = ab_night_detectable(nsd, window, alpha, AB_POWER);
			nn = ab_nights_needed(nsd, thr, alpha, AB_POWER);
			add_grid_row(g, &rows[k], &a, boots, thr, has_nt ? &nt : NULL, nd, nn);
			json_array_append_new(jrows, row_json(&rows[k], &a, has_nt ? &nt : NULL,
			    nd, window, nn));
			if (rows[k].j.kind == AB_WORSE)
				log_warn("%s: %s.%s %s judged worse, %+.1f%%, with one kernel on both "
				    "sides: noise by construction", fh->name, rows[k].bench,
				    rows[k].metric, row_point(&rows[k]), rows[k].j.change);
		}
		rec = json_object();
		json_object_set_new(rec, "format", json_integer(QUALIFY_FORMAT));
		json_object_set_new(rec, "host", json_string(fh->name));
		json_object_set_new(rec, "date", json_string(stamp));
		json_object_set_new(rec, "dir", rundir_json_str(c->dir));
		json_object_set_new(rec, "plan_name", rundir_json_str(c->p->name));
		json_object_set_new(rec, "boots_per_side", json_integer((json_int_t)boots));
		json_object_set_new(rec, "threshold", json_real(thr));
		json_object_set_new(rec, "power", json_real(AB_POWER));
		json_object_set_new(rec, "cost_boot", json_real(cb));
		json_object_set_new(rec, "cost_trial", ct > 0 ? json_real(ct) : json_null());
		json_object_set_new(rec, "complete", json_boolean(host_done(c, fh->name)));
		json_object_set_new(rec, "history", h != NULL ? json_string(h->source) :
		    json_null());
		json_object_set_new(rec, "rows", jrows);
		if (host_done(c, fh->name)) {
			/* only a host whose boots all ran is qualified */
			free(path);
			path = xasprintf("%s/%s.json", qdir, fh->name);
			if (fs_mkdir_p(qdir, RUNDIR_DIR_MODE, err) != 0 ||
			    write_json(path, rec, err) != 0) {
				json_decref(rec);
				goto out;
			}
			log_info("%s: qualified, %s", fh->name, path);
			if (o->push != NULL)
				unpushed += push_record(o->push, fh->name, path);
		} else
			log_warn("%s: not every boot done: no record kept in %s", fh->name, qdir);
		json_object_set_new(hosts, fh->name, rec);
	}
	all = json_object();
	json_object_set_new(all, "format", json_integer(QUALIFY_FORMAT));
	json_object_set_new(all, "date", json_string(stamp));
	json_object_set_new(all, "dir", rundir_json_str(c->dir));
	json_object_set_new(all, "hosts", hosts);
	hosts = NULL;
	free(path);
	path = xasprintf("%s/%s", c->dir, AB_QUALIFY_JSON);
	if (write_json(path, all, err) != 0)
		goto out;
	if (n == 0 && o->fmt == REPORT_JSON)
		printf("[]\n");
	else if (n == 0 && o->fmt != REPORT_CSV)
		printf("no boot measured: nothing to qualify\n");
	else
		print_grid(g, o->fmt);
	fflush(stdout);
	if (unpushed > 0) {
		char *d = archive_url_display(o->push);

		*err = xasprintf("%zu host%s qualification%s not pushed to %s (kept in %s)",
		    unpushed, unpushed == 1 ? "'s" : "s'", unpushed == 1 ? " was" : "s were",
		    d, qdir);
		free(d);
		goto out;
	}
	r = 0;
 out:
	json_decref(all);
	json_decref(hosts);
	rgrid_free(g);
	free(path);
	free(qdir);
	ab_qrows_free(rows, n);
	return r;
}

int
ab_qualify_history(const struct ab_ctx *c, const char *source, struct history **out,
    char **err)
{
	struct history_opts ho;
	const char **names = xcalloc(c->nhosts ? c->nhosts : 1, sizeof(*names));
	size_t i;
	int r;

	for (i = 0; i < c->nhosts; i++)
		names[i] = c->hosts[i]->name;
	history_opts_init(&ho);
	ho.plan = c->p->name;
	ho.hosts = names;
	ho.nhosts = c->nhosts;
	r = history_load(source, &ho, out, err);
	free(names);
	if (r == 0)
		return 0;
	return r == HISTORY_EINPUT ? CMD_EXIT_USAGE : CMD_EXIT_ERROR;
}

/* Whether the plan measures bench. */
static int
plan_has_bench(const struct plan *p, const char *bench)
{
	size_t i;

	for (i = 0; i < p->npoints; i++)
		if (strcmp(p->points[i].bench, bench) == 0)
			return 1;
	return 0;
}

/* Whether the plan's regression counts bench.metric (every metric when it names none). */
static int
plan_counts(const struct plan *p, const char *bench, const char *metric)
{
	return !p->has_regression || plan_metric_counts(p->metrics, p->nmetrics, bench, metric);
}

/*
 * text (len bytes, from name) as a record: a JSON object, or NULL (with
 * say, a warning that says why).
 */
static json_t *
record_parse(const char *host, const char *name, const char *text, size_t len, int say)
{
	json_error_t je;
	json_t *rec;

	if ((rec = json_loadb(text, len, 0, &je)) == NULL) {
		if (say)
			log_warn("%s: its qualification does not read: %s:%d:%d: %s", host, name,
			    je.line, je.column, je.text);
		return NULL;
	}
	if (!json_is_object(rec)) {
		if (say)
			log_warn("%s: its qualification does not read: %s: not a JSON object",
			    host, name);
		json_decref(rec);
		return NULL;
	}
	return rec;
}

/* host's record in outdir, or NULL: none, or one that does not read. */
static json_t *
record_local(const char *outdir, const char *host, int say)
{
	char *path = xasprintf("%s/%s/%s.json", outdir, AB_QUALIFY_DIR, host), *data = NULL;
	char *err = NULL;
	json_t *rec = NULL;
	size_t len;

	if (access(path, F_OK) != 0 && errno == ENOENT)
		goto out;		/* not qualified: nothing to say */
	if (fs_read_file(path, QUALIFY_MAX_JSON, &data, &len, &err) != 0) {
		if (say)
			log_warn("%s: its qualification does not read: %s", host, err);
		goto out;
	}
	rec = record_parse(host, path, data, len, say);
 out:
	free(data);
	free(err);
	free(path);
	return rec;
}

/*
 * host's record in the archive at url (archive.h), or NULL.  An archive
 * that cannot be read (not a record it lacks, nor one that is bad) sets
 * *unread: the caller asks it for no other host's, so that an archive
 * that is down costs one round of retries, not one a host.
 */
static json_t *
record_archived(const char *url, const char *host, int say, int *unread)
{
	char *text = NULL, *err = NULL, *d, *name;
	json_t *rec = NULL;
	size_t len;
	int r;

	r = archive_get_qualify(url, host, &text, &len, &err);
	if (r == 0) {
		d = archive_url_display(url);
		name = xasprintf("%s/%s/%s.json", d, ARCHIVE_QUALIFY, host);
		rec = record_parse(host, name, text, len, say);
		free(name);
		free(d);
	} else if (r == ARCHIVE_ETRANSIENT || r == ARCHIVE_ECANCELED) {
		*unread = 1;
		if (say)
			log_warn("the hosts' qualifications in the archive are not read: %s", err);
	} else if (r != ARCHIVE_ENOTFOUND && say) {
		log_warn("%s: its qualification does not read: %s", host, err);
	}
	free(text);
	free(err);
	return rec;
}

/*
 * host's record (a JSON object), or NULL: none, or none that reads (with
 * say, a warning for each that does not): the one in outdir, or the one
 * in the archive at *url (NULL: none) when that one is newer by its date;
 * an archive that cannot be read is warned about once and *url set to
 * NULL.  *whence (when not NULL) is set to what the warnings say of it:
 * its date, and the archive's URL when it came from there.
 */
static json_t *
record_load(const char *outdir, const char **urlp, const char *host, int say,
    char **whence)
{
	json_t *mine = record_local(outdir, host, say), *theirs = NULL;
	const char *dm, *dt, *url = urlp != NULL ? *urlp : NULL;
	int unread = 0;
	char *d;

	if (url != NULL) {
		theirs = record_archived(url, host, say, &unread);
		if (unread)
			*urlp = NULL;
	}
	dm = mine != NULL ? ab_jstr(mine, "date") : NULL;
	dt = theirs != NULL ? ab_jstr(theirs, "date") : NULL;
	if (theirs != NULL && (mine == NULL || (dt != NULL && (dm == NULL ||
	    strcmp(dt, dm) > 0)))) {
		json_decref(mine);
		if (whence != NULL) {
			d = archive_url_display(url);
			*whence = xasprintf("%s, %s", dt ? dt : "?", d);
			free(d);
		}
		return theirs;
	}
	json_decref(theirs);
	if (mine != NULL && whence != NULL)
		*whence = xstrdup(dm ? dm : "?");
	return mine;
}

/*
 * One host's record against the ab about to run: with say, a warning for
 * each row o->boots cannot see the threshold in; *most the most boots a
 * side a counted row of the plan needs to see it, of those that need no
 * more than AB_AUTO_BOOTS (0: none, or no record).
 */
static void
check_host(const struct ab_cmdopts *o, const struct ab_ctx *c, const char *host, double thr,
    int say, long long *most)
{
	json_t *rec, *row;
	char *whence = NULL;
	size_t i;

	*most = 0;
	if ((rec = record_load(o->outdir, NULL, host, say, &whence)) == NULL)
		return;
	json_array_foreach(json_object_get(rec, "rows"), i, row) {
		const char *bench = ab_jstr(row, "bench"), *metric = ab_jstr(row, "metric");
		const char *params = ab_jstr(row, "params");
		double sd = json_number_value(json_object_get(row, "pair_sd"));
		double alpha = json_number_value(json_object_get(row, "alpha"));
		double df0 = json_number_value(json_object_get(row, "prior_df"));
		double d;
		size_t need;
		char dbuf[NUMFMT_MAX];

		if (bench == NULL || metric == NULL || !plan_has_bench(c->p, bench) ||
		    !json_is_number(json_object_get(row, "pair_sd")) || !(alpha > 0))
			continue;
		need = ab_boots_needed(sd, df0, thr, alpha, AB_POWER);
		if (need > 0 && need <= AB_AUTO_BOOTS && (long long)need > *most &&
		    plan_counts(c->p, bench, metric))
			*most = (long long)need;
		d = ab_detectable(sd, (size_t)o->boots, df0, alpha, AB_POWER);
		if (!say || !(d > thr))
			continue;
		numfmt_detectable(dbuf, sizeof(dbuf), d);
		if (need > AB_PLAN_CAP)
			log_warn("%s: %s.%s %s: %lld boots a side detect %s, not the threshold "
			    "%g%%; more than %d boots a side would (qualified %s)", host, bench,
			    metric, params && *params ? params : "-", o->boots, dbuf, thr, AB_PLAN_CAP,
			    whence);
		else
			log_warn("%s: %s.%s %s: %lld boots a side detect %s, not the threshold "
			    "%g%%; %zu boots a side would (qualified %s)", host, bench, metric,
			    params && *params ? params : "-", o->boots, dbuf, thr, need, whence);
	}
	json_decref(rec);
	free(whence);
}

void
ab_qualify_warn(struct ab_cmdopts *o, const struct ab_ctx *c)
{
	double thr = o->thr >= 0 ? o->thr : c->p->has_regression ? c->p->threshold :
	    VERDICT_THRESHOLD;
	long long most = 0, m;
	size_t i;

	if (!o->boots_set) {
		for (i = 0; i < c->nhosts; i++) {
			check_host(o, c, c->hosts[i]->name, thr, 0, &m);
			if (m > most)
				most = m;
		}
		if (most > o->boots) {
			log_info("%lld boots a side, from the hosts' qualifications: what the "
			    "counted rows that can see %g%% in up to %d boots need (--boots "
			    "sets it)", most, thr, AB_AUTO_BOOTS);
			o->boots = most;
		}
	}
	for (i = 0; i < c->nhosts; i++)
		check_host(o, c, c->hosts[i]->name, thr, 1, &m);
}

void
ab_qualify_warn_nights(const char *outdir, const char *url, const struct plan *p,
    const struct fleet *f, const unsigned char *sel, double thr)
{
	size_t i, k;

	for (i = 0; i < f->nhosts; i++) {
		const char *host = f->hosts[i].name;
		json_t *rec, *row;
		char *date = NULL;

		if (sel != NULL && !sel[i])
			continue;
		if ((rec = record_load(outdir, &url, host, 1, &date)) == NULL)
			continue;
		json_array_foreach(json_object_get(rec, "rows"), k, row) {
			const char *bench = ab_jstr(row, "bench"), *metric = ab_jstr(row, "metric");
			const char *params = ab_jstr(row, "params");
			double d = json_number_value(json_object_get(row, "night_detectable"));
			json_t *need = json_object_get(row, "boots_needed");
			json_t *nights = json_object_get(row, "nights_needed");
			char dbuf[NUMFMT_MAX], nbuf[96];

			if (bench == NULL || metric == NULL || !plan_has_bench(p, bench) ||
			    !plan_counts(p, bench, metric) ||
			    !json_is_number(json_object_get(row, "night_detectable")) || !(d > thr))
				continue;
			numfmt_detectable(dbuf, sizeof(dbuf), d);
			if (json_is_integer(nights))
				snprintf(nbuf, sizeof(nbuf), "%lld nights before it (regression.nights) "
				    "would, or ", (long long)json_integer_value(nights));
			else
				snprintf(nbuf, sizeof(nbuf), "no number of nights would; ");
			if (json_is_integer(need))
				log_warn("%s: %s.%s %s: a night detects %s, not the threshold %g%%: "
				    "its verdicts will say noisy or cannot judge; %san ab of %lld boots "
				    "a side (qualified %s)", host, bench, metric,
				    params && *params ? params : "-", dbuf, thr, nbuf,
				    (long long)json_integer_value(need), date);
			else
				log_warn("%s: %s.%s %s: a night detects %s, not the threshold %g%%: "
				    "its verdicts will say noisy or cannot judge; %smore than %d "
				    "boots a side of an ab would be needed: more hosts, or a larger "
				    "threshold (qualified %s)", host, bench, metric,
				    params && *params ? params : "-", dbuf, thr, nbuf, AB_PLAN_CAP, date);
		}
		json_decref(rec);
		free(date);
	}
}
