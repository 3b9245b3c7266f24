/*
 * cmd/bisect.c: `fleetmark bisect-run PLAN -H HOST --metric
 * BENCH.METRIC[params] (--baseline REF | --good VALUE) [--threshold 5%]
 * [--install CMD] [--reboot CMD] [--wait 300s] [--tries N] [-f FLEET]
 * [-o DIR]`: one step of `git bisect run` (docs/bisect.md).
 *
 * The step: the install hook (a local shell command; FLEETMARK_COMMIT and
 * FLEETMARK_HOST in its environment), the reboot hook, a wait until the
 * host answers SSH again (connect and log in, with a deadline), the plan
 * on that host only (a run directory under results/, labelled with the
 * short commit), then the metric's trial values at the given parameters
 * against good: the baseline run's values on the same host, or --good.
 *
 * Exit status, git's, from verdict.h's rule (docs/reports.md, "The
 * verdict"; Welch's t-test against the baseline's trials, or a one-sample
 * t-test against --good):
 *   0    good: the change's 95% interval stays below worse by the
 *        threshold, or the values are significantly better
 *   1    bad: significantly worse (p < 0.05, and the far end of the
 *        interval reaches the threshold)
 *   125  skip: too noisy or not significant, fewer than 3 values, the host
 *        unreachable, trials failed, or a hook failed with an exit status
 *        below 128; never "bad" for any of these.  Also when the boot
 *        check fails (board.h): with a kernel to expect (--expect-kernel,
 *        or the FLEETMARK_EXPECT_KERNEL=STRING line the install hook
 *        printed), the host's boot id must have changed across the reboot
 *        hook and its kernel must contain the string.  --tries N measures
 *        (waits for the host and runs the plan) up to N times before
 *        giving 125.
 *   128  abort the bisection: bad usage, a plan or fleet that does not
 *        load, a metric or point the plan does not have, a baseline
 *        without values, or a hook that exited 128 or more (or was
 *        killed, or ran past its time).  130: interrupted.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agentproto.h"
#include "board.h"
#include "boot.h"
#include "catalog.h"
#include "cmd.h"
#include "yamldoc.h"
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "numfmt.h"
#include "plan.h"
#include "proc.h"
#include "run.h"
#include "runref.h"
#include "series.h"
#include "session.h"
#include "stats.h"
#include "strv.h"
#include "trialread.h"
#include "verdict.h"
#include "xmalloc.h"

#define BISECT_GOOD		0
#define BISECT_BAD		1
#define BISECT_SKIP		125
#define BISECT_ABORT		128
#define DEFAULT_RESULTS		"results"
#define DEFAULT_WAIT_MS		300000
#define DEFAULT_TRIES		2
#define MIN_VALUES		3
#define SHORT_COMMIT		12

/* What is measured: BENCH.METRIC[k=v,k=v]. */
struct want {
	char	*bench;
	char	*metric;
	char	**keys, **vals;		/* the [params], may be none */
	size_t	 nparams;
	int	 higher;		/* higher is better */
	const char *unit;
	const char *spec;		/* as given */
};

struct values {
	double	*v;
	size_t	 n, cap;
	size_t	 failed;		/* lines of the host and bench not ok */
	size_t	 infra;			/* of those, infrastructure failures */
	char	 kind[32];		/* the first failure's class */
};

static void
want_free(struct want *w)
{
	if (w == NULL)
		return;
	strv_free(w->keys, w->nparams);
	strv_free(w->vals, w->nparams);
	free(w->bench);
	free(w->metric);
}

/* Parse "BENCH.METRIC[k=v,k=v]" (the brackets optional). */
static int
want_parse(const char *s, struct want *w, char **err)
{
	const char *dot = strchr(s, '.'), *br = strchr(s, '['), *p, *e;
	size_t cap = 0;

	memset(w, 0, sizeof(*w));
	w->spec = s;
	if (dot == NULL || dot == s || (br != NULL && br < dot) || dot[1] == '\0' ||
	    dot + 1 == br) {
		*err = xasprintf("--metric '%s': expected BENCH.METRIC[params] (like "
		    "exec.seconds[copies=50])", s);
		return -1;
	}
	w->bench = xstrndup(s, (size_t)(dot - s));
	if (br == NULL) {
		w->metric = xstrdup(dot + 1);
		return 0;
	}
	w->metric = xstrndup(dot + 1, (size_t)(br - dot - 1));
	if (s[strlen(s) - 1] != ']') {
		*err = xasprintf("--metric '%s': the parameters end with ']'", s);
		return -1;
	}
	for (p = br + 1; *p != ']'; p = *e == ',' ? e + 1 : e) {
		const char *eq;

		for (e = p; *e != ',' && *e != ']'; e++)
			;
		eq = memchr(p, '=', (size_t)(e - p));
		if (eq == NULL || eq == p) {
			*err = xasprintf("--metric '%s': expected k=v parameters, not '%.*s'", s,
			    (int)(e - p), p);
			return -1;
		}
		xgrow(&w->keys, &cap, w->nparams + 1, sizeof(*w->keys));
		w->vals = xreallocarray(w->vals, cap, sizeof(*w->vals));
		w->keys[w->nparams] = xstrndup(p, (size_t)(eq - p));
		w->vals[w->nparams++] = xstrndup(eq + 1, (size_t)(e - eq - 1));
	}
	return 0;
}

/* Whether every k=v wanted is among keys/vals. */
static int
params_match(const struct want *w, size_t n, char *const *keys, char *const *vals)
{
	size_t i, j;

	for (i = 0; i < w->nparams; i++) {
		for (j = 0; j < n; j++)
			if (strcmp(keys[j], w->keys[i]) == 0 && strcmp(vals[j], w->vals[i]) == 0)
				break;
		if (j == n)
			return 0;
	}
	return 1;
}

/* The metric in the catalogue, and a point of the plan that measures it. */
static int
want_check(struct want *w, const struct catalog *cat, const struct plan *p, char **err)
{
	const struct catalog_bench *b = plan_program_bench(p, w->bench);
	const struct catalog_metric *m;
	size_t i, n = 0;

	if (b == NULL)
		b = catalog_find(cat, w->bench);

	if (b == NULL) {
		*err = xasprintf("--metric %s: unknown benchmark '%s'", w->spec, w->bench);
		return -1;
	}
	if ((m = catalog_find_metric(b, w->metric)) == NULL) {
		*err = xasprintf("--metric %s: %s has no metric '%s'", w->spec, w->bench,
		    w->metric);
		return -1;
	}
	w->higher = m->higher_better;
	w->unit = m->unit;
	for (i = 0; i < p->npoints; i++)
		if (strcmp(p->points[i].bench, w->bench) == 0 &&
		    params_match(w, p->points[i].nparams, p->points[i].keys, p->points[i].vals))
			n++;
	if (n == 0) {
		*err = xasprintf("--metric %s: plan '%s' has no %s point with those parameters",
		    w->spec, p->name, w->bench);
		return -1;
	}
	if (n > 1 && w->nparams == 0)
		log_warn("--metric %s: %zu points of the plan match; their values are pooled "
		    "(give [params] to pick one)", w->spec, n);
	return 0;
}

struct collect {
	const struct want	*w;
	const char		*host;
	struct values		*out;
};

/* A line not ok of the host, bench and params wanted: a failure counted. */
static int
collect_failure(const struct trial_line *l, void *arg)
{
	struct collect *c = arg;
	struct values *v = c->out;

	if (strcmp(l->status, "ok") == 0 || strcmp(l->host, c->host) != 0 ||
	    strcmp(l->bench, c->w->bench) != 0 ||
	    !params_match(c->w, l->nparams, (char *const *)l->keys, (char *const *)l->vals) ||
	    (l->metric != NULL && strcmp(l->metric, c->w->metric) != 0))
		return 0;
	if (v->failed++ == 0)
		snprintf(v->kind, sizeof(v->kind), "%s", l->status);
	v->infra += l->st >= 0 && ap_status_kind((enum ap_status)l->st) == AP_KIND_INFRA;
	return 0;
}

/* Whether s is a series of the host, bench, params and metric wanted. */
static int
collect_match(const struct series *s, void *arg)
{
	const struct collect *c = arg;

	return strcmp(s->key.host, c->host) == 0 && strcmp(s->key.bench, c->w->bench) == 0 &&
	    strcmp(s->key.metric, c->w->metric) == 0 &&
	    params_match(c->w, s->nparams, s->pkeys, s->pvals);
}

/* The metric's trial values of host in the run directory dir, the points' pooled. */
static int
collect(const char *dir, const char *host, const struct want *w, struct values *out,
    char **err)
{
	struct collect c = { w, host, out };
	struct series_store *st = series_store_new(SERIES_VALUES);
	char *path = xasprintf("%s/%s", dir, JOURNAL_TRIALS);
	int r;

	memset(out, 0, sizeof(*out));
	r = series_store_read(st, path, 0, collect_failure, &c, NULL, err);
	if (r == 0)
		out->n = out->cap = series_store_pool(st, collect_match, &c, &out->v);
	series_store_free(st);
	free(path);
	return r;
}

/* --- hooks and the host --------------------------------------------------- */

/* A hook's exit status as the step's exit. */
static int
hook_verdict(const char *what, int st)
{
	if (st == 0)
		return BISECT_GOOD;
	if (st >= 128) {
		log_error("%s hook exited %d: aborting the bisection", what, st);
		return BISECT_ABORT;
	}
	log_error("%s hook exited %d: this commit is skipped", what, st);
	return BISECT_SKIP;
}

/* Run a hook; BISECT_GOOD (0) when it succeeded, else the step's exit.
 * The install hook's FLEETMARK_EXPECT_KERNEL= line goes into *expect. */
static int
hook(const char *what, const char *cmd, long long timeout_ms, char **expect)
{
	char *err = NULL;
	int st;

	if (boot_hook(what, cmd, timeout_ms, stdout, expect, &st, &err) != 0) {
		log_error("%s", err);
		free(err);
		return BISECT_ABORT;
	}
	return hook_verdict(what, st);
}

static void
on_signal(int sig)
{
	(void)sig;
	run_request_stop();
}

/*
 * Run the plan on the host of sel in a run session (session.h); the run
 * directory in *dir.  -1 with *err when the run could not start or failed.
 */
static int
run_plan(const struct plan *p, const struct fleet *f, const unsigned char *sel,
    const char *results, const char *label, const char *expect, long long wait_lock_ms,
    int quiet, char **dir, char **err)
{
	struct session_config cfg;
	struct session *s = NULL;
	int ret = -1;

	memset(&cfg, 0, sizeof(cfg));
	cfg.plan = p;
	cfg.fleet = f;
	cfg.sel = sel;
	cfg.seed = plan_seed(p);
	cfg.label = label;
	/* the commit the install hook installed, recorded in run.json */
	if (getenv("FLEETMARK_COMMIT") != NULL && *getenv("FLEETMARK_COMMIT") != '\0')
		cfg.commit = getenv("FLEETMARK_COMMIT");
	cfg.quiet = quiet;
	cfg.expect_kernel = expect;
	cfg.wait_lock_ms = wait_lock_ms;
	if (session_create(results, &cfg, &s, err) != 0 || session_run(s, &cfg, err) != 0)
		goto out;
	if (session_status(s) == JOURNAL_FAILED) {
		*err = xstrdup(session_error(s));
		goto out;
	}
	session_report(s, NULL, NULL);
	*dir = xstrdup(session_dir(s));
	ret = 0;
 out:
	session_free(s);
	return ret;
}

/* --- the verdict ------------------------------------------------------------ */

struct good {
	const double	*v;	/* the baseline's values, or NULL */
	size_t		 n;
	double		 value;	/* --good, when v is NULL */
	const char	*what;	/* "baseline" or "good" */
};

/*
 * verdict.h's rule, as an exit status and a line without the commit: good
 * or better is good, bad is bad, noisy or not significant is skip.
 */
static int
decide(const struct want *w, const struct good *g, const struct values *v, double thr,
    char **line)
{
	struct verdict_row vr;
	const struct verdict *d = &vr.v;
	char ptxt[NUMFMT_MAX], btxt[64] = "", rtxt[VERDICT_WHY_MAX], *why = NULL;
	int code;

	memset(&vr, 0, sizeof(vr));
	verdict_judge(v->v, v->n, g->v, g->n, g->value, w->higher, thr, &vr.v);
	vr.judgeable = verdict_judgeable(d, v->n, g->v ? g->n : 0, 0, stats_sd(v->v, v->n),
	    g->v ? stats_sd(g->v, g->n) : NAN, thr, &vr.needed, &vr.spread);
	vr.held = 1;	/* one row: no false-discovery step */
	code = !vr.judgeable ? BISECT_SKIP : d->kind == VERDICT_GOOD ||
	    d->kind == VERDICT_BETTER ? BISECT_GOOD : d->kind == VERDICT_BAD ? BISECT_BAD :
	    BISECT_SKIP;
	numfmt_p(ptxt, sizeof(ptxt), d->p);
	verdict_why(&vr, g->v && g->n < v->n ? g->n : v->n, w->higher, thr, 0, rtxt,
	    sizeof(rtxt));
	if (g->v != NULL)
		snprintf(btxt, sizeof(btxt), ", the baseline's %.1f%% (n=%zu)", d->good_rsd, g->n);
	if (!vr.judgeable && !isnan(vr.spread))
		why = xasprintf(": cannot judge: rsd %.1f%% (n=%zu)%s: %s", d->rsd, v->n, btxt,
		    rtxt);
	else if (!vr.judgeable)
		why = xasprintf(": cannot judge: rsd %.1f%% (n=%zu)%s against %g%%: %s", d->rsd,
		    v->n, btxt, thr, rtxt);
	else if (d->kind == VERDICT_NOT_SIGNIFICANT)
		why = xasprintf(": not significant, and %s", rtxt);
	else if (d->kind == VERDICT_NOISY && g->v != NULL && verdict_noisy(d->good_rsd, g->n, thr))
		why = xasprintf(": %s (the baseline: rsd %.1f%%, n=%zu)", rtxt, d->good_rsd,
		    g->n);
	else if (d->kind == VERDICT_NOISY)
		why = xasprintf(": %s", rtxt);
	*line = xasprintf("%s: %s mean %.4g %s vs %s %.4g %s (%+.1f%%, %s by %.1f%%; %s p=%s; "
	    "rsd %.1f%%, n=%zu; threshold %g%%)%s", code == BISECT_GOOD ? "good" :
	    code == BISECT_BAD ? "bad" : "skip", w->spec, d->now, w->unit, g->what, d->good,
	    w->unit, d->change, d->worse >= 0 ? "worse" : "better", fabs(d->worse),
	    g->v ? "Welch" : "one-sample t", ptxt, d->rsd, v->n, thr, why ? why : "");
	free(why);
	return code;
}

/* --- the command ------------------------------------------------------------- */

/* The commit being tested: `git rev-parse HEAD` here, or NULL. */
static char *
head_commit(void)
{
	/* quietly: outside a git tree there is just no commit */
	char *argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"exec git rev-parse HEAD 2>/dev/null", NULL };
	char *out = NULL, *err = NULL;
	size_t len = 0;
	int st;

	if (proc_capture(argv, 4096, 30000, &out, &len, &st, &err) != 0 || st != 0) {
		log_verbose("git rev-parse HEAD: %s", err ? err : "not in a git tree");
		free(err);
		free(out);
		return NULL;
	}
	out[strcspn(out, "\r\n")] = '\0';
	if (*out == '\0') {
		free(out);
		return NULL;
	}
	return out;
}

static int
usage_abort(void)
{
	cmd_usage(&cmd_bisect, 0);
	return BISECT_ABORT;
}

/* The value of a duration option (like is an example), or -1, said. */
static int
duration_option(const char *opt, const char *like, const char *arg, long long *ms)
{
	if (ydoc_parse_duration(arg, ms) == 0 && *ms >= 0)
		return 0;
	log_error("%s: expected a duration like %s, not '%s'", opt, like, arg);
	return -1;
}

/* What the command line asks for. */
struct bisect_opts {
	const char	*plan_file, *fleet_file, *host_spec, *metric, *outdir;
	const char	*baseline;	/* --baseline REF, or NULL */
	const char	*good_s;	/* --good VALUE as given, or NULL */
	const char	*install, *reboot;	/* the hooks, or NULL */
	char		*expect;	/* --expect-kernel, or what the install hook
					 * says to expect; NULL: none */
	double		 thr, goodv;
	long long	 wait_ms, tries, wait_lock_ms;
	int		 quiet;
};

/* What one bisect-run measures, and what it found. */
struct bisect {
	struct catalog		*cat;
	struct fleet		*f;
	struct plan		*p;
	unsigned char		*sel;
	const struct fleet_host	*h;	/* the one host of sel */
	struct want		 w;
	struct values		 base, v;	/* the baseline's values; this commit's */
	struct good		 g;
	char			*basedir, *label, *old_id;
	char			*dir;	/* the last run directory, or NULL */
	char			*line;	/* the last verdict's line, or NULL */
	char			*why;	/* why the last try was skipped, or NULL */
};

static void
bisect_release(struct bisect *b)
{
	free(b->basedir);
	free(b->label);
	free(b->dir);
	free(b->line);
	free(b->why);
	free(b->old_id);
	free(b->base.v);
	free(b->v.v);
	free(b->sel);
	want_free(&b->w);
	plan_free(b->p);
	fleet_free(b->f);
	catalog_free(b->cat);
}

/*
 * Parse the command line into o.  Returns -1 when the command goes on,
 * else its exit status (a usage error aborts the bisection).
 */
static int
parse_options(int argc, char **argv, struct bisect_opts *o)
{
	static const struct option longopts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "good", required_argument, NULL, 'g' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "install", required_argument, NULL, 'I' },
		{ "reboot", required_argument, NULL, 'r' },
		{ "wait", required_argument, NULL, 'w' },
		{ "tries", required_argument, NULL, 't' },
		{ "expect-kernel", required_argument, NULL, 'K' },
		{ "wait-lock", required_argument, NULL, 'L' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "f:H:o:m:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->fleet_file = optarg;
			break;
		case 'H':
			o->host_spec = optarg;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'm':
			o->metric = optarg;
			break;
		case 'B':
			o->baseline = optarg;
			break;
		case 'g':
			o->good_s = optarg;
			errno = 0;
			o->goodv = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || errno != 0 || !isfinite(o->goodv)) {
				log_error("--good: expected a number, not '%s'", optarg);
				return BISECT_ABORT;
			}
			break;
		case 'T':
			if (ydoc_parse_percent(optarg, &o->thr) != 0 ||
			    !(o->thr > 0 && o->thr <= 1000)) {
				log_error("--threshold: expected a percentage like 5%%, not '%s'",
				    optarg);
				return BISECT_ABORT;
			}
			break;
		case 'I':
			o->install = optarg;
			break;
		case 'r':
			o->reboot = optarg;
			break;
		case 'w':
			if (duration_option("--wait", "300s", optarg, &o->wait_ms) != 0)
				return BISECT_ABORT;
			break;
		case 't':
			if (ydoc_parse_int(optarg, &o->tries) != 0 || o->tries < 1 ||
			    o->tries > 100) {
				log_error("--tries: expected a number from 1 to 100, not '%s'", optarg);
				return BISECT_ABORT;
			}
			break;
		case 'L':
			if (duration_option("--wait-lock", "10m", optarg, &o->wait_lock_ms) != 0)
				return BISECT_ABORT;
			break;
		case 'K':
			free(o->expect);
			o->expect = *optarg ? xstrdup(optarg) : NULL;
			break;
		default:
			/* a usage error aborts the bisection */
			if ((c = cmd_common_option(&cmd_bisect, c, argv, &o->quiet)) >= 0)
				return c == CMD_EXIT_USAGE ? BISECT_ABORT : c;
			break;
		}
	}
	if (optind + 1 != argc || o->host_spec == NULL || o->metric == NULL ||
	    (o->baseline == NULL) == (o->good_s == NULL)) {
		if (optind + 1 == argc && o->host_spec != NULL && o->metric != NULL)
			log_error("give one of --baseline REF and --good VALUE");
		return usage_abort();
	}
	o->plan_file = argv[optind];
	if (log_get_level() == LOG_LEVEL_QUIET)
		o->quiet = 1;
	return -1;
}

/* --baseline: the metric's values on the host in the baseline run. */
static int
bisect_baseline(const struct bisect_opts *o, struct bisect *b, char **err)
{
	struct runref_ctx ctx;
	const char *hosts[1] = { b->h->name };

	memset(&ctx, 0, sizeof(ctx));
	ctx.results = o->outdir;
	ctx.plan = b->p->name;
	ctx.hosts = hosts;
	ctx.nhosts = 1;
	if (runref_resolve(o->baseline, &ctx, &b->basedir, err) != 0 ||
	    collect(b->basedir, b->h->name, &b->w, &b->base, err) != 0)
		return -1;
	if (b->base.n < 2) {
		*err = xasprintf("baseline %s has %zu value%s of %s on %s: too few to compare "
		    "with", b->basedir, b->base.n, b->base.n == 1 ? "" : "s", b->w.spec,
		    b->h->name);
		return -1;
	}
	b->g.v = b->base.v;
	b->g.n = b->base.n;
	b->g.what = "baseline";
	log_info("baseline %s: %zu values of %s on %s", b->basedir, b->base.n, b->w.spec,
	    b->h->name);
	return 0;
}

/*
 * Everything that can be checked before touching anything: the metric,
 * the plan, the one host, and what is good (the baseline's values, or
 * --good).  0, or -1 with *err.
 */
static int
bisect_load(const struct bisect_opts *o, struct bisect *b, char **err)
{
	char *agent = NULL;
	size_t i, nsel = 0;
	int r = -1;

	if (want_parse(o->metric, &b->w, err) != 0)
		goto out;
	if ((agent = catalog_agent_path(err)) == NULL ||
	    catalog_load(agent, &b->cat, err) != 0)
		goto out;
	if (plan_load(o->plan_file, b->cat, &b->p, err) != 0 ||
	    want_check(&b->w, b->cat, b->p, err) != 0)
		goto out;
	if (fleet_load(o->fleet_file, &b->f, err) != 0 ||
	    plan_select(b->p, b->f, o->host_spec, &b->sel, err) != 0)
		goto out;
	for (i = 0; i < b->f->nhosts; i++)
		if (b->sel[i]) {
			b->h = &b->f->hosts[i];
			nsel++;
		}
	if (nsel != 1) {
		*err = xasprintf("-H %s: bisect-run measures one host, not %zu", o->host_spec,
		    nsel);
		goto out;
	}
	if (o->baseline != NULL) {
		r = bisect_baseline(o, b, err);
		goto out;
	}
	b->g.value = o->goodv;
	b->g.what = "good";
	r = 0;
 out:
	free(agent);
	return r;
}

/*
 * Up to --tries times, while the verdict is skip: wait for the host,
 * check its kernel, run the plan and judge this commit's values.  The
 * verdict (BISECT_GOOD, BISECT_BAD or BISECT_SKIP, with b->line, or
 * b->why for a try that judged nothing), or -1 with *err when a run's
 * values cannot be read.  Interrupted: stops at once.
 */
static int
bisect_tries(const struct bisect_opts *o, struct bisect *b, char **err)
{
	const struct fleet_host *h = b->h;
	struct board_boot bb;
	int code = BISECT_SKIP, try;

	memset(&bb, 0, sizeof(bb));
	for (try = 1; try <= o->tries && code == BISECT_SKIP; try++) {
		free(b->why);
		b->why = NULL;
		if (try > 1)
			log_info("try %d of %lld", try, o->tries);
		if (boot_wait_host(h, o->wait_ms, o->expect != NULL ? &bb : NULL, err) != 0) {
			b->why = xasprintf("skip: %s did not answer SSH within %.0f s: %s",
			    h->name, (double)o->wait_ms / 1000, *err ? *err : "?");
			free(*err);
			*err = NULL;
			if (run_stop_requested())
				break;
			log_warn("%s", b->why);
			continue;
		}
		/* Nothing is measured on a kernel other than the one asked for. */
		if (o->expect != NULL && board_boot_check(&bb, b->old_id, o->expect, err) != 0) {
			b->why = xasprintf("skip: boot: %s: %s", h->name, *err);
			free(*err);
			*err = NULL;
			board_boot_release(&bb);
			log_error("%s", b->why);
			break;
		}
		if (o->expect != NULL)
			log_info("%s: boot id %s, kernel %s", h->name, bb.boot_id, bb.release);
		board_boot_release(&bb);
		free(b->dir);
		b->dir = NULL;
		if (run_plan(b->p, b->f, b->sel, o->outdir, b->label, o->expect, o->wait_lock_ms,
		    o->quiet, &b->dir, err) != 0) {
			b->why = xasprintf("skip: the run failed: %s", *err);
			free(*err);
			*err = NULL;
			log_warn("%s", b->why);
			continue;
		}
		if (run_stop_requested())
			break;
		free(b->v.v);
		if (collect(b->dir, h->name, &b->w, &b->v, err) != 0)
			return -1;
		if (b->v.n < MIN_VALUES) {
			b->why = xasprintf("skip: %zu value%s of %s on %s (need %d); %zu trial "
			    "line%s failed (%zu infrastructure%s%s)", b->v.n, b->v.n == 1 ? "" :
			    "s", b->w.spec, h->name, MIN_VALUES, b->v.failed, b->v.failed == 1 ?
			    "" : "s", b->v.infra, b->v.failed ? ", first: " : "", b->v.kind);
			log_warn("%s", b->why);
			continue;
		}
		free(b->line);
		code = decide(&b->w, &b->g, &b->v, o->thr, &b->line);
		if (code == BISECT_SKIP)
			log_warn("%s", b->line);
	}
	return code;
}

static int
bisect_main(int argc, char **argv)
{
	struct bisect_opts o;
	struct bisect b;
	char *err = NULL, *commit = NULL, shortc[SHORT_COMMIT + 1];
	int code;

	memset(&o, 0, sizeof(o));
	memset(&b, 0, sizeof(b));
	o.outdir = DEFAULT_RESULTS;
	o.thr = VERDICT_THRESHOLD;
	o.wait_ms = DEFAULT_WAIT_MS;
	o.tries = DEFAULT_TRIES;
	if ((code = parse_options(argc, argv, &o)) >= 0) {
		free(o.expect);
		return code;
	}
	if (bisect_load(&o, &b, &err) != 0)
		goto fail;

	commit = head_commit();
	snprintf(shortc, sizeof(shortc), "%s", commit ? commit : "unknown");
	b.label = xasprintf("%s", shortc);
	if (setenv("FLEETMARK_COMMIT", commit ? commit : "", 1) != 0 ||
	    setenv("FLEETMARK_HOST", b.h->name, 1) != 0) {
		err = xasprintf("setenv: %s", strerror(errno));
		goto fail;
	}
	cmd_catch_signals(on_signal);

	if (o.install != NULL && (code = hook("install", o.install, 0, &o.expect)) != BISECT_GOOD)
		goto verdict_hook;
	if (o.expect != NULL)
		log_info("the kernel must contain '%s'", o.expect);
	/* The boot check is asked for by a kernel to expect: a reboot hook
	 * may also only restart a service, which changes no boot id. */
	if (o.reboot != NULL && o.expect != NULL)
		b.old_id = boot_id_before(b.h);
	if (o.reboot != NULL && (code = hook("reboot", o.reboot, o.wait_ms, NULL)) != BISECT_GOOD)
		goto verdict_hook;
	if ((code = bisect_tries(&o, &b, &err)) < 0)
		goto fail;
	if (run_stop_requested()) {
		log_error("interrupted");
		code = CMD_EXIT_INTERRUPTED;
		goto out;
	}
	printf("bisect-run %s %s%s%s\n", shortc, b.line && (code != BISECT_SKIP ||
	    b.why == NULL) ? b.line : b.why ? b.why : "skip", b.dir ? "; run " : "",
	    b.dir ? b.dir : "");
	fflush(stdout);
	goto out;
 verdict_hook:
	printf("bisect-run %s %s: a hook failed (%s)\n", shortc,
	    code == BISECT_SKIP ? "skip" : "abort", code == BISECT_SKIP ? "skipped" : "aborting");
	fflush(stdout);
	goto out;
 fail:
	log_error("%s", err);
	code = BISECT_ABORT;
 out:
	free(err);
	free(commit);
	free(o.expect);
	bisect_release(&b);
	return code;
}

static const struct cmd_option bisect_options[] = {
	{ 'H', NULL, "HOST", "the one host to measure on (a name or a @label of one host)",
	    NULL },
	{ 'm', "metric", "BENCH.METRIC[k=v,...]", "what is judged: a metric of a benchmark "
	    "of the plan, at the point the parameters pick (without them, every point of "
	    "the benchmark pooled)", NULL },
	{ 0, "baseline", "REF", "good is this run's trial values on the same host: a run "
	    "directory, a run id, latest, an archive URL/RUNID", NULL },
	{ 0, "good", "VALUE", "good is this value, in the metric's unit (a one-sample t-test)",
	    NULL },
	{ 0, "threshold", "PCT", "the smallest change that counts", "5%" },
	{ 0, "install", "CMD", "a shell command run here first, with FLEETMARK_COMMIT and "
	    "FLEETMARK_HOST in its environment: build and install what is tested", NULL },
	{ 0, "reboot", "CMD", "a shell command run after the install, returning once the host "
	    "is going down; ended with what it started if it runs past --wait", NULL },
	{ 0, "wait", "DURATION", "how long the reboot hook may run, and how long to wait for "
	    "the host to answer SSH again", "300s" },
	{ 0, "tries", "N", "measure up to N times before giving up with 125", "2" },
	{ 0, "expect-kernel", "STRING", "the boot check: the host's kernel (uname -r, uname -v "
	    "or /proc/cmdline) must contain STRING and, with --reboot, its boot id must have "
	    "changed, else 125 and nothing is measured; the install hook may print "
	    "FLEETMARK_EXPECT_KERNEL=STRING instead (docs/boards.md)", "no boot check" },
	{ 0, "wait-lock", "DURATION", "when another run holds the host's lease, wait up to "
	    "DURATION for it before measuring (as run --wait-lock)", "a locked host is a "
	    "failed trial: 125" },
	{ 'f', NULL, "FLEET", "the inventory", "the embedded fleet" },
	{ 'o', NULL, "DIR", "where the step's run directory is made", "results" },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit bisect_exits[] = {
	{ 0, "good: not significantly worse by the threshold, or better" },
	{ 1, "bad: significantly worse (p < 0.05, the 95% interval reaching the threshold)" },
	{ 125, "skip: noisy or not significant, too few values, trials failed, the host did "
	    "not come back, did not reboot or runs another kernel than the one asked for, a "
	    "hook exited 1 to 127" },
	{ 128, "abort the bisection: bad usage, a plan or fleet that does not load, a metric "
	    "or point the plan lacks, a baseline without values, a hook that exited 128 or "
	    "more" },
	{ 130, "interrupted" },
	{ -1, NULL }
};

static const struct cmd_example bisect_examples[] = {
	{ "git bisect run fleetmark bisect-run plans/exec.yaml -f lab.yaml -H lab-07 "
	    "--metric 'exec.seconds[copies=50]' --baseline RUN-ID --install ./install "
	    "--reboot ./reboot", "each step installs the commit, reboots lab-07, measures" },
	{ NULL, NULL }
};

static const struct cmd_help bisect_help = {
	"One step of `git bisect run`: the install hook, the reboot hook, a wait "
	"until the host answers SSH again, the plan on that host only (a run directory "
	"labelled with the short commit), then the metric's trial values against good: "
	"the baseline run's values on the same host (Welch's t-test), or --good.  "
	"Give one of --baseline and --good.  The answer is git's exit status; an "
	"infrastructure failure is never bad.",
	bisect_options, NULL, bisect_exits, bisect_examples, "docs/bisect.md", 0
};

const struct cmd_entry cmd_bisect = {
	"bisect-run",
	"PLAN -H HOST --metric BENCH.METRIC[params] (--baseline REF | --good VALUE) "
	"[--threshold 5%] [--install CMD] [--reboot CMD] [--wait 300s] [--tries N] "
	"[--expect-kernel STRING] [--wait-lock DURATION] [-f FLEET] [-o DIR] [-q] [-v]",
	"one step of `git bisect run`: install, reboot, measure (0 good, 1 bad, 125 skip)",
	bisect_main,
	&bisect_help,
};
