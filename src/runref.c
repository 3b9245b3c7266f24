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
#include "journal.h"
#include "log.h"
#include "rundir.h"
#include "runref.h"
#include "strv.h"
#include "xmalloc.h"

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

/* Whether the run in dir is a finished run of ctx's plan with one of its hosts. */
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
	if (run->status == NULL || strcmp(run->status, finished) != 0) {
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
cmp_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

static char *
where_looked(const struct runref_ctx *ctx, const char *in)
{
	if (ctx->plan == NULL)
		return xasprintf("no runs in %s", in);
	return xasprintf("no earlier finished run of plan '%s'%s in %s", ctx->plan,
	    ctx->nhosts ? " on these hosts" : "", in);
}

/* `latest` in the local results directory. */
static int
latest_local(const struct runref_ctx *ctx, const char *results, char **dir, char **err)
{
	struct dirent *de;
	char **names = NULL, *p;
	size_t n = 0, cap = 0, i;
	int ret = RUNREF_ENOTFOUND;
	DIR *d;

	if ((d = opendir(results)) == NULL) {
		if (errno == ENOENT && ctx->plan != NULL) {
			*err = where_looked(ctx, results);
			return RUNREF_ENOTFOUND;
		}
		*err = xasprintf("cannot open %s: %s", results, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (ctx->plan != NULL && !runref_id_matches(de->d_name, ctx->plan, ctx->before))
			continue;
		xgrow(&names, &cap, n + 1, sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_desc);
	for (i = 0; i < n && ret != 0; i++) {
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

/* `latest` in the archive at url: the ids first, then the run.json of each. */
static int
latest_archive(const struct runref_ctx *ctx, const char *url, char **dir, char **err)
{
	char **ids = NULL, *local = NULL, *e = NULL;
	size_t n = 0, i;
	int ret = RUNREF_ENOTFOUND;

	if (archive_list(url, &ids, &n, err) != 0)
		return -1;
	for (i = n; i-- > 0 && ret == RUNREF_ENOTFOUND;) {
		if (!runref_id_matches(ids[i], ctx->plan, ctx->before))
			continue;
		if (ctx->plan == NULL) {
			if (archive_fetch(url, ids[i], &local, err) != 0)
				ret = -1;
			else {
				*dir = local;
				ret = 0;
			}
			break;
		}
		if (archive_fetch(url, ids[i], &local, &e) != 0) {
			char *d = archive_url_display(url);

			*err = xasprintf("%s/%s: %s", d, ids[i], e);
			free(d);
			free(e);
			ret = -1;
			break;
		}
		if (run_fits(local, ctx)) {
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
	struct runref_ctx c = { NULL, NULL, NULL, NULL, 0, NULL };
	char *url = NULL, *id = NULL, *p;
	int ret;

	if (archive_split_ref(ref, &url, &id) != 0) {
		p = archive_url_display(ref);
		*err = xasprintf("%s: not an archive run (expected URL/RUNID or URL/latest)", p);
		free(p);
		return -1;
	}
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

int
runref_resolve(const char *ref, const struct runref_ctx *ctx, char **dir, char **err)
{
	static const struct runref_ctx none = { NULL, NULL, NULL, NULL, 0, NULL };
	const char *results;
	char *p;

	if (ctx == NULL)
		ctx = &none;
	results = ctx->results ? ctx->results : "results";
	if (archive_is_url(ref))
		return resolve_url(ref, ctx, dir, err);
	if (strcmp(ref, "latest") == 0)
		return ctx->archive != NULL ? latest_archive(ctx, ctx->archive, dir, err) :
		    latest_local(ctx, results, dir, err);
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
	*err = xasprintf("%s: not a run (no %s there, nor a run id under %s/)", ref,
	    RUNDIR_RUN_JSON, results);
	return -1;
}
