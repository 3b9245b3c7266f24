/*
 * runref.c: RUN and REF arguments to local run directories (runref.h).
 * Reports, `run --baseline` and `bisect-run --baseline` all go through
 * here, so `latest` and archive URLs mean the same thing everywhere.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "fsutil.h"
#include "journal.h"
#include "log.h"
#include "rundir.h"
#include "runref.h"
#include "strbuf.h"
#include "strv.h"
#include "xmalloc.h"
#include "yamldoc.h"

#define STAMP_LEN	15	/* "YYYYMMDD-HHMMSS" */
#define HEX_LEN		4

/* The plan part of a run id, as journal_new_run_id() makes it.  A new string. */
static char *
plan_part(const char *plan)
{
	char *id = journal_new_run_id(plan, 0), *name;
	size_t n = strlen(id);

	/* "STAMP-NAME-HHHH" */
	name = xstrndup(id + STAMP_LEN + 1, n - STAMP_LEN - 1 - HEX_LEN - 1);
	free(id);
	return name;
}

static int
is_run_id(const char *id)
{
	size_t i, n = strlen(id);

	if (n < STAMP_LEN + 1 + 1 + 1 + HEX_LEN || id[8] != '-' || id[STAMP_LEN] != '-' ||
	    id[n - HEX_LEN - 1] != '-')
		return 0;
	for (i = 0; i < STAMP_LEN; i++)
		if (i != 8 && (id[i] < '0' || id[i] > '9'))
			return 0;
	return 1;
}

int
runref_id_matches(const char *id, const char *plan, const char *before)
{
	int c;

	if (!is_run_id(id))
		return 0;
	if (plan != NULL) {
		char *name = plan_part(plan);
		size_t n = strlen(name);
		int same = strlen(id) == STAMP_LEN + 1 + n + 1 + HEX_LEN &&
		    strncmp(id + STAMP_LEN + 1, name, n) == 0;

		free(name);
		if (!same)
			return 0;
	}
	if (before != NULL) {
		if (strcmp(id, before) == 0)
			return 0;
		c = strncmp(id, before, STAMP_LEN);
		if (c > 0 || (c == 0 && strcmp(id, before) > 0))
			return 0;
	}
	return 1;
}

/* Whether the run in dir is a finished run (any run with ctx->any_status)
 * of ctx's plan with one of its hosts, and not ctx->except. */
static int
run_fits(const char *dir, const struct runref_ctx *ctx)
{
	const char *finished = journal_status_name(JOURNAL_FINISHED);
	struct rundir_run *run;
	char *err = NULL;
	size_t i;
	int ok = 0;

	if (rundir_load(dir, &run, &err) != 0) {
		log_verbose("%s", err);
		free(err);
		return 0;
	}
	if (run->plan == NULL || strcmp(run->plan, ctx->plan) != 0) {
		log_verbose("%s: another plan (%s)", dir, run->plan ? run->plan : "none");
		goto out;
	}
	if (ctx->except != NULL && run->id != NULL && strcmp(run->id, ctx->except) == 0) {
		log_verbose("%s: the run compared with", dir);
		goto out;
	}
	if (ctx->group != NULL && run->group != NULL && strcmp(run->group, ctx->group) == 0) {
		log_verbose("%s: a run of the same group (%s)", dir, ctx->group);
		goto out;
	}
	if (!ctx->any_status && (run->status == NULL || strcmp(run->status, finished) != 0)) {
		log_verbose("%s: not a finished run (%s)", dir, run->status ? run->status :
		    "no status");
		goto out;
	}
	if (ctx->nhosts == 0)
		ok = 1;
	for (i = 0; i < ctx->nhosts && !ok; i++)
		ok = rundir_run_host(run, ctx->hosts[i]) != NULL;
	if (!ok)
		log_verbose("%s: no host in common", dir);
 out:
	rundir_run_free(run);
	return ok;
}

static int
same_plan(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static char *
where_looked(const struct runref_ctx *ctx, const char *in)
{
	if (ctx->plan == NULL)
		return xasprintf("no runs in %s", in);
	return xasprintf("no %s%s%srun of plan '%s'%s in %s", ctx->except ? "other " : "",
	    ctx->before ? "earlier " : "", ctx->any_status ? "" : "finished ", ctx->plan,
	    ctx->nhosts ? " on these hosts" : "", in);
}

/* Whether name (a directory entry or an archive id) may be `latest`. */
static int
id_may_fit(const char *name, const struct runref_ctx *ctx)
{
	if (ctx->except != NULL && strcmp(name, ctx->except) == 0)
		return 0;
	return ctx->plan == NULL || runref_id_matches(name, ctx->plan, ctx->before);
}

/* `latest` in the local results directory. */
static int
latest_local(const struct runref_ctx *ctx, const char *results, char **dir, char **err)
{
	char **names, *p;
	size_t n, i;
	int ret = RUNREF_ENOTFOUND;

	if (fs_list_dir(results, &names, &n, err) != 0) {
		if (errno == ENOENT && ctx->plan != NULL) {
			free(*err);
			*err = where_looked(ctx, results);
			return RUNREF_ENOTFOUND;
		}
		return -1;
	}
	/* the newest first: ids start with their time */
	for (i = n; i-- > 0 && ret != 0; ) {
		if (!id_may_fit(names[i], ctx))
			continue;
		p = xasprintf("%s/%s", results, names[i]);
		if (ctx->plan != NULL ? run_fits(p, ctx) : rundir_exists(p)) {
			*dir = p;
			ret = 0;
		} else
			free(p);
	}
	strv_free(names, n);
	if (ret != 0)
		*err = where_looked(ctx, results);
	return ret;
}

/*
 * archive_fetch() of a run that `latest` or a group looks at: a run that
 * cannot be fetched or does not verify is warned about and passed over
 * (1), so that one bad run does not hide every other; 0 fetched; -1 when
 * interrupted.
 */
static int
fetch_or_skip(const char *url, const char *id, int quiet, char **dir, char **err)
{
	char *e = NULL, *d;
	int r, level = log_get_level();

	if (quiet && level == LOG_LEVEL_INFO)
		log_set_level(LOG_LEVEL_QUIET);
	r = archive_fetch(url, id, dir, &e);
	log_set_level(level);
	if (r == 0)
		return 0;
	d = archive_url_display(url);
	if (r == ARCHIVE_ECANCELED || archive_cancelled()) {
		*err = xasprintf("%s/%s: %s", d, id, e != NULL ? e : "interrupted");
		r = -1;
	} else {
		log_warn("%s/%s: %s; left out", d, id, e);
		r = 1;
	}
	free(d);
	free(e);
	return r;
}

/* `latest` in the archive at url: the ids first, then the run.json of each. */
static int
latest_archive(const struct runref_ctx *ctx, const char *url, char **dir, char **err)
{
	char **ids = NULL, *local = NULL;
	size_t n = 0, i;
	int ret = RUNREF_ENOTFOUND, r;

	if (archive_list(url, &ids, &n, err) != 0)
		return -1;
	/* the newest run that verifies (and fits) */
	for (i = n; i-- > 0 && ret == RUNREF_ENOTFOUND;) {
		if (!id_may_fit(ids[i], ctx))
			continue;
		if ((r = fetch_or_skip(url, ids[i], 0, &local, err)) < 0) {
			ret = -1;
			break;
		}
		if (r > 0)
			continue;
		if (ctx->plan == NULL || run_fits(local, ctx)) {
			*dir = local;
			ret = 0;
		} else
			free(local);
		local = NULL;
	}
	strv_free(ids, n);
	if (ret == RUNREF_ENOTFOUND) {
		char *d = archive_url_display(url);

		*err = where_looked(ctx, d);
		free(d);
	}
	return ret;
}

static int
resolve_url(const char *ref, const struct runref_ctx *ctx, char **dir, char **err)
{
	struct runref_ctx c;
	char *url = NULL, *id = NULL, *p;
	int ret;

	if (archive_split_ref(ref, &url, &id) != 0) {
		p = archive_url_display(ref);
		*err = xasprintf("%s: not an archive run (expected URL/RUNID or URL/latest)", p);
		free(p);
		return -1;
	}
	memset(&c, 0, sizeof(c));
	if (strcmp(id, "latest") == 0) {
		if (ctx != NULL)
			c = *ctx;
		ret = latest_archive(&c, url, dir, err);
	} else
		ret = archive_fetch(url, id, dir, err) == 0 ? 0 : -1;
	free(url);
	free(id);
	return ret;
}

/* A run with a label, for label_local(). */
struct labelled {
	char	*name;		/* directory entry: the run id */
	char	*plan;		/* run.json's plan name, or NULL */
};

static int
labelled_cmp_desc(const void *a, const void *b)
{
	return strcmp(((const struct labelled *)b)->name, ((const struct labelled *)a)->name);
}

/*
 * The newest run in results whose run.json label is ref (step 5 of
 * runref.h): 0 with *dir; RUNREF_EAMBIGUOUS when it labels runs of more
 * than one plan and ctx's plan is not one of them; RUNREF_ENOTFOUND when
 * no run has that label (no message: the caller says what ref is not).
 */
static int
label_local(const char *ref, const struct runref_ctx *ctx, const char *results, char **dir,
    char **err)
{
	struct labelled *runs = NULL;
	struct rundir_run *run;
	struct dirent *de;
	struct strbuf sb;
	size_t n = 0, cap = 0, i, j, nplans = 0, pick = 0;
	char *path, *e = NULL;
	int ret = RUNREF_ENOTFOUND, found = 0;
	DIR *d;

	if ((d = opendir(results)) == NULL)
		return RUNREF_ENOTFOUND;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", results, de->d_name);
		if (rundir_load(path, &run, &e) == 0) {
			if (run->label != NULL && strcmp(run->label, ref) == 0) {
				xgrow(&runs, &cap, n + 1, sizeof(*runs));
				runs[n].name = xstrdup(de->d_name);
				runs[n++].plan = xstrdup_null(run->plan);
			}
			rundir_run_free(run);
		} else {
			free(e);
			e = NULL;
		}
		free(path);
	}
	closedir(d);
	if (n == 0)
		return RUNREF_ENOTFOUND;
	qsort(runs, n, sizeof(*runs), labelled_cmp_desc);
	/* runs[i] is the newest of its plan when no earlier entry has its plan */
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && !same_plan(runs[j].plan, runs[i].plan); j++)
			;
		if (j < i)
			continue;
		nplans++;
		if (ctx->plan != NULL && same_plan(runs[i].plan, ctx->plan) && !found) {
			pick = i;
			found = 1;
		}
	}
	if (nplans == 1 || found) {
		*dir = xasprintf("%s/%s", results, runs[pick].name);
		ret = 0;
	} else {
		strbuf_init(&sb, 0);
		strbuf_addf(&sb, "label '%s' is on runs of %zu plans (the newest of each: ", ref,
		    nplans);
		for (i = 0, j = 0; i < n; i++) {
			size_t k;

			for (k = 0; k < i && !same_plan(runs[k].plan, runs[i].plan); k++)
				;
			if (k < i)
				continue;
			strbuf_addf(&sb, "%s%s (plan %s)", j++ ? ", " : "", runs[i].name,
			    runs[i].plan ? runs[i].plan : "none");
		}
		strbuf_addstr(&sb, "); give a run id or directory");
		*err = strbuf_detach(&sb, NULL);
		ret = RUNREF_EAMBIGUOUS;
	}
	for (i = 0; i < n; i++) {
		free(runs[i].name);
		free(runs[i].plan);
	}
	free(runs);
	return ret;
}

int
runref_resolve(const char *ref, const struct runref_ctx *ctx, char **dir, char **err)
{
	static const struct runref_ctx none;
	const char *results;
	char *p;
	int r;

	if (ctx == NULL)
		ctx = &none;
	results = ctx->results ? ctx->results : "results";
	/* the order of runref.h: directory, run id, latest, URL, label */
	if (rundir_exists(ref)) {
		*dir = xstrdup(ref);
		return 0;
	}
	if (strchr(ref, '/') == NULL) {
		p = xasprintf("%s/%s", results, ref);
		if (rundir_exists(p)) {
			*dir = p;
			return 0;
		}
		free(p);
	}
	if (runref_group_split(ref, NULL, NULL, NULL) != 0) {
		*err = xasprintf("%s names a run group, and one run is needed here", ref);
		return -1;
	}
	if (strcmp(ref, "latest") == 0)
		return ctx->archive != NULL ? latest_archive(ctx, ctx->archive, dir, err) :
		    latest_local(ctx, results, dir, err);
	if (archive_is_url(ref))
		return resolve_url(ref, ctx, dir, err);
	if (!ctx->no_labels && (r = label_local(ref, ctx, results, dir, err)) !=
	    RUNREF_ENOTFOUND)
		return r;
	*err = xasprintf("%s: not a run (no %s there, nor a run id%s under %s/)", ref,
	    RUNDIR_RUN_JSON, ctx->no_labels ? "" : " or a run's label", results);
	return -1;
}

/* --- Run groups ------------------------------------------------------------- */

int
runref_group_valid(const char *id)
{
	return ydoc_name_ok(id, RUNREF_GROUP_MAX);
}

int
runref_group_split(const char *ref, char **url, char **id, char **err)
{
	const size_t plen = strlen(RUNREF_GROUP_PREFIX);
	const char *name = ref, *slash;
	size_t n = strlen(ref);

	/* a trailing slash, as URL/RUNID/ may have */
	while (n > 1 && ref[n - 1] == '/')
		n--;
	if (archive_is_url(ref)) {
		for (slash = ref + n; slash > ref && slash[-1] != '/'; slash--)
			;
		name = slash;
	}
	if ((size_t)(ref + n - name) < plen || strncmp(name, RUNREF_GROUP_PREFIX, plen) != 0)
		return 0;
	if (url == NULL)
		return 1;
	*id = xstrndup(name + plen, (size_t)(ref + n - name) - plen);
	if (!runref_group_valid(*id)) {
		*err = xasprintf("%.*s: not a valid group id (1 to %d letters, digits, '.', "
		    "'_' or '-', starting with a letter or digit)", (int)(ref + n - name), name,
		    RUNREF_GROUP_MAX);
		free(*id);
		*id = NULL;
		return -1;
	}
	*url = NULL;
	if (name > ref) {
		n = (size_t)(name - ref) - 1;
		/* keep "file:///" for a group directly under the root */
		if (n >= 2 && ref[n - 1] == '/' && ref[n - 2] == '/')
			n++;
		*url = xstrndup(ref, n);
	}
	return 1;
}

/* A run of a group, for runref_group_check(). */
struct member {
	char			*dir;
	struct rundir_run	*run;
};

static int
member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	return strcmp(x->run->id ? x->run->id : x->dir, y->run->id ? y->run->id : y->dir);
}

static void
members_free(struct member *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(m[i].dir);
		rundir_run_free(m[i].run);
	}
	free(m);
}

/* A run of a group as messages name it. */
static const char *
member_name(const struct member *m)
{
	return m->run->id ? m->run->id : m->dir;
}

static const char *
member_plan(const struct rundir_run *r)
{
	return r->plan;
}

static const char *
member_label(const struct rundir_run *r)
{
	return r->label;
}

/*
 * RUNREF_EGROUP with *err when two of the n runs at m differ in get()
 * ("group 'g': runs of two WHAT (A: PREFIX a, B: PREFIX b); RULE"), else 0.
 */
static int
members_same(const char *group, const struct member *m, size_t n,
    const char *(*get)(const struct rundir_run *), const char *what, const char *prefix,
    const char *rule, char **err)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (!same_plan(get(m[0].run), get(m[i].run)))
			return err_set(err, RUNREF_EGROUP, "group '%s': runs of two %s (%s: %s%s, "
			    "%s: %s%s); %s", group, what, member_name(&m[0]), prefix,
			    get(m[0].run) ? get(m[0].run) : "none", member_name(&m[i]), prefix,
			    get(m[i].run) ? get(m[i].run) : "none", rule);
	return 0;
}

/* The check of runref_group_check() over loaded runs. */
static int
members_check(const char *group, const struct member *m, size_t n, char **err)
{
	size_t i, j, h;
	int r;

	if ((r = members_same(group, m, n, member_plan, "plans", "plan ", "a group is one plan",
	    err)) != 0 || (r = members_same(group, m, n, member_label, "labels", "",
	    "the runs of a group have one --label, or none", err)) != 0)
		return r;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			for (h = 0; h < m[i].run->nhosts; h++)
				if (rundir_run_host(m[j].run, m[i].run->hosts[h].name) != NULL)
					return err_set(err, RUNREF_EGROUP, "group '%s': host %s is in "
					    "two runs (%s, %s); the runs of a group share no host",
					    group, m[i].run->hosts[h].name, member_name(&m[i]),
					    member_name(&m[j]));
	return 0;
}

int
runref_group_check(const char *group, char *const *dirs, size_t n, char **err)
{
	struct member *m = xcalloc(n + 1, sizeof(*m));
	size_t i;
	int ret = -1;

	for (i = 0; i < n; i++) {
		m[i].dir = xstrdup(dirs[i]);
		if (rundir_load(dirs[i], &m[i].run, err) != 0) {
			members_free(m, i + 1);
			return -1;
		}
	}
	ret = members_check(group, m, n, err);
	members_free(m, n);
	return ret;
}

/* Add the run in dir (a new string, taken) to *m when it is of group. */
static void
member_add(struct member **m, size_t *n, size_t *cap, char *dir, const char *group)
{
	struct rundir_run *run = NULL;
	char *e = NULL;

	if (rundir_load(dir, &run, &e) != 0 || run->group == NULL ||
	    strcmp(run->group, group) != 0) {
		if (e != NULL)
			log_verbose("%s", e);
		free(e);
		free(dir);
		rundir_run_free(run);
		return;
	}
	xgrow(m, cap, *n + 1, sizeof(**m));
	(*m)[*n].dir = dir;
	(*m)[(*n)++].run = run;
}

/* The runs of group in the results directory, or in the archive at url. */
static int
group_members(const char *group, const char *url, const char *results, struct member **mp,
    size_t *np, char **err)
{
	struct member *m = NULL;
	char **names = NULL, *dir;
	size_t n = 0, cap = 0, nnames = 0, i;
	int r;

	if (url == NULL) {
		if (fs_list_dir(results, &names, &nnames, err) != 0)
			return -1;
		for (i = 0; i < nnames; i++)
			member_add(&m, &n, &cap, xasprintf("%s/%s", results, names[i]), group);
	} else {
		if (archive_list(url, &names, &nnames, err) != 0)
			return -1;
		for (i = 0; i < nnames; i++) {
			/* a line a run fetched: with -v only */
			r = fetch_or_skip(url, names[i], 1, &dir, err);
			if (r < 0) {
				strv_free(names, nnames);
				members_free(m, n);
				return -1;
			}
			if (r > 0)
				continue;
			member_add(&m, &n, &cap, dir, group);
		}
	}
	strv_free(names, nnames);
	if (n == 0) {
		char *d = url != NULL ? archive_url_display(url) : xstrdup(results);

		*err = xasprintf("no run of group '%s' in %s", group, d);
		free(d);
		free(m);
		return -1;
	}
	qsort(m, n, sizeof(*m), member_cmp);
	*mp = m;
	*np = n;
	return 0;
}

int
runref_resolve_all(const char *ref, const struct runref_ctx *ctx, char ***dirs, size_t *np,
    char **err)
{
	struct member *m = NULL;
	char *url = NULL, *group = NULL, *dir = NULL, **v;
	size_t n = 0, i;
	int r;

	if (rundir_exists(ref) || (r = runref_group_split(ref, &url, &group, err)) == 0) {
		if ((r = runref_resolve(ref, ctx, &dir, err)) != 0)
			return r;
		v = xcalloc(2, sizeof(*v));
		v[0] = dir;
		*dirs = v;
		*np = 1;
		return 0;
	}
	if (r < 0)
		return RUNREF_EGROUP;
	r = group_members(group, url, ctx != NULL && ctx->results ? ctx->results : "results",
	    &m, &n, err);
	if (r == 0 && (r = members_check(group, m, n, err)) == 0) {
		v = xcalloc(n + 1, sizeof(*v));
		for (i = 0; i < n; i++) {
			v[i] = m[i].dir;
			m[i].dir = NULL;
		}
		*dirs = v;
		*np = n;
	}
	members_free(m, n);
	free(url);
	free(group);
	return r;
}
