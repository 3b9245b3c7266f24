/*
 * rundir.c: the run directory's layout and run.json (rundir.h,
 * docs/results.md): the tree the journal keeps and rewrites.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "clock.h"
#include "fleet.h"
#include "fleet.h"
#include "fsutil.h"
#include "journal.h"
#include "log.h"
#include "plan.h"
#include "rundir.h"
#include "strv.h"
#include "utf8.h"
#include "xmalloc.h"

/* --- Status --------------------------------------------------------------------- */

static const char *const status_names[] = {
	"running", "finished", "interrupted", "failed", "detached",
};

const char *
journal_status_name(enum journal_status st)
{
	if ((unsigned)st >= sizeof(status_names) / sizeof(status_names[0]))
		return "unknown";
	return status_names[st];
}

/* --- Paths ---------------------------------------------------------------------- */

char *
rundir_path(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/*
 * DIR/SUB/HOST.EXT, the one way a host's file is named: NULL when host
 * breaks the fleet's name rule.  A host name read from a run directory
 * or an archive is anyone's text; "../../x" would name a file elsewhere.
 */
static char *
host_path(const char *dir, const char *sub, const char *host, const char *ext)
{
	if (!fleet_name_ok(host))
		return NULL;
	return xasprintf("%s/%s/%s%s", dir, sub, host, ext);
}

char *
rundir_env_path(const char *dir, const char *host)
{
	return host_path(dir, RUNDIR_HOSTS, host, ".json");
}

char *
rundir_log_path(const char *dir, const char *host)
{
	return host_path(dir, RUNDIR_LOGS, host, ".log");
}

char *
rundir_console_path(const char *dir, const char *host)
{
	return host_path(dir, RUNDIR_LOGS, host, ".console");
}

char *
rundir_restore_path(const char *dir, const char *host)
{
	return host_path(dir, RUNDIR_RESTORE, host, "");
}

int
rundir_exists(const char *dir)
{
	char *p = rundir_path(dir, RUNDIR_RUN_JSON);
	struct stat st;
	int there = stat(p, &st) == 0;

	free(p);
	return there;
}

int
rundir_mktemp(const char *parent, const char *prefix, char **out, char **err)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789";
	unsigned char rnd[6];
	char name[sizeof(rnd) + 1], *p;
	size_t i, attempt;

	*out = NULL;
	for (attempt = 0; attempt < 100; attempt++) {
		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
			/* Unique enough: a name taken is tried again. */
			unsigned long long x = (unsigned long long)clock_mono_ms() * 2654435761u ^
			    (unsigned long long)getpid() << 20 ^ attempt;

			for (i = 0; i < sizeof(rnd); i++, x >>= 8)
				rnd[i] = (unsigned char)x;
		}
		for (i = 0; i < sizeof(rnd); i++)
			name[i] = chars[rnd[i] % (sizeof(chars) - 1)];
		name[i] = '\0';
		p = xasprintf("%s/%s%s", parent, prefix, name);
		/* Not mkdtemp(3): its 0700 would make the run unreadable to the group. */
		if (mkdir(p, RUNDIR_DIR_MODE) == 0) {
			*out = p;
			return 0;
		}
		free(p);
		if (errno != EEXIST)
			break;
	}
	*err = xasprintf("cannot create a directory in %s: %s", parent, strerror(errno));
	return -1;
}

/* mkdir dir/name; again: it may be there already (as a directory). */
static int
make_dir(const char *dir, const char *name, int again, char **err)
{
	char *p = rundir_path(dir, name);
	struct stat st;
	int r = 0;

	if (mkdir(p, RUNDIR_DIR_MODE) != 0 && !(again && errno == EEXIST)) {
		*err = xasprintf("cannot create %s: %s", p, strerror(errno));
		r = -1;
	} else if (again && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) {
		*err = xasprintf("%s is not a directory", p);
		r = -1;
	}
	free(p);
	return r;
}

int
rundir_make(const char *dir, int again, char **err)
{
	char *p;
	int fd;

	if (make_dir(dir, RUNDIR_HOSTS, again, err) != 0 ||
	    make_dir(dir, RUNDIR_LOGS, again, err) != 0)
		return -1;
	p = rundir_path(dir, RUNDIR_TRIALS);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC | (again ? 0 : O_EXCL), RUNDIR_FILE_MODE);
	if (fd < 0) {
		*err = xasprintf("cannot create %s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	close(fd);
	free(p);
	return 0;
}

int
rundir_check(const char *dir, char **err)
{
	static const char *const names[] = { RUNDIR_HOSTS, RUNDIR_LOGS, RUNDIR_TRIALS };
	struct stat st;
	size_t i;
	char *p;
	int r = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) && r == 0; i++) {
		p = rundir_path(dir, names[i]);
		if (stat(p, &st) != 0) {
			if (errno != ENOENT) {
				*err = xasprintf("cannot stat %s: %s", p, strerror(errno));
				r = -1;
			}
		} else if (strcmp(names[i], RUNDIR_TRIALS) == 0 ? !S_ISREG(st.st_mode) :
		    !S_ISDIR(st.st_mode)) {
			*err = xasprintf("%s is not a %s", p, strcmp(names[i], RUNDIR_TRIALS) == 0 ?
			    "regular file" : "directory");
			r = -1;
		}
		free(p);
	}
	return r;
}

void
rundir_unmake(const char *dir)
{
	static const char *const files[] = { RUNDIR_RUN_JSON, "." RUNDIR_RUN_JSON ".tmp",
	    RUNDIR_TRIALS, RUNDIR_SPARE };
	static const char *const dirs[] = { RUNDIR_HOSTS, RUNDIR_LOGS };
	char *p;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		p = rundir_path(dir, files[i]);
		unlink(p);
		free(p);
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		p = rundir_path(dir, dirs[i]);
		rmdir(p);
		free(p);
	}
	rmdir(dir);
}

/* --- Reading -------------------------------------------------------------------- */

/* path as JSON, at most RUNDIR_MAX_JSON bytes; RUNDIR_ENOTRUN when missing. */
static int
load_file(const char *path, json_t **out, char **err)
{
	json_error_t jerr;
	char *text;
	size_t len;

	*out = NULL;
	if (fs_read_file(path, RUNDIR_MAX_JSON, &text, &len, err) != 0)
		return errno == ENOENT ? RUNDIR_ENOTRUN : -1;
	*out = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (*out == NULL) {
		*err = xasprintf("%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		return -1;
	}
	return 0;
}

int
rundir_load_json(const char *dir, json_t **out, char **err)
{
	char *path = rundir_path(dir, RUNDIR_RUN_JSON);
	json_t *o = NULL, *v;
	int r;

	*out = NULL;
	if ((r = load_file(path, &o, err)) != 0) {
		if (r == RUNDIR_ENOTRUN) {
			free(*err);
			*err = xasprintf("%s is not a run directory (no %s)", dir,
			    RUNDIR_RUN_JSON);
		}
		goto out;
	}
	r = -1;
	v = json_object_get(o, "format");
	if (!json_is_object(o) || !json_is_integer(v)) {
		*err = xasprintf("%s: not a fleetmark run (no \"format\")", path);
		goto out;
	}
	if (json_integer_value(v) != RUNDIR_FORMAT) {
		*err = xasprintf("%s: unknown format %lld (this fleetmark reads format %d)",
		    path, (long long)json_integer_value(v), RUNDIR_FORMAT);
		goto out;
	}
	*out = o;
	o = NULL;
	r = 0;
 out:
	json_decref(o);
	free(path);
	return r;
}

/* A copy of the string o[key], or NULL. */
static char *
dup_member(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return xstrdup_null(s);
}

struct rundir_run *
rundir_run_new(const json_t *run)
{
	struct rundir_run *r = xcalloc(1, sizeof(*r));
	const json_t *plan = json_object_get(run, "plan"), *a, *v, *reg;
	const char *name, *seed;
	json_t *e;
	size_t i;

	r->id = dup_member(run, "run");
	r->status = dup_member(run, "status");
	r->label = dup_member(run, "label");
	r->group = dup_member(run, "group");
	r->commit = dup_member(run, "commit");
	r->detached = json_is_true(json_object_get(run, "detached"));
	r->start = dup_member(run, "start");
	r->end = dup_member(run, "end");
	r->controller = dup_member(json_object_get(run, "controller"), "version");
	r->controller_host = dup_member(json_object_get(run, "controller"), "host");
	r->plan = dup_member(plan, "name");
	r->plan_file = dup_member(plan, "file");
	seed = json_string_value(json_object_get(plan, "seed"));
	r->seed = seed ? strtoull(seed, NULL, 10) : 0;
	if (json_is_array(a = json_object_get(plan, "points"))) {
		r->npoints = json_array_size(a);
		r->points = xcalloc(r->npoints + 1, sizeof(*r->points));
		json_array_foreach(a, i, v)
			r->points[i] = dup_member(v, "id");
	}
	if (json_is_array(a = json_object_get(plan, "variants"))) {
		r->has_variants = 1;
		r->nvariants = json_array_size(a);
	}
	reg = json_object_get(plan, "regression");
	v = json_object_get(reg, "threshold");
	r->threshold = json_is_number(v) ? json_number_value(v) : -1;
	v = json_object_get(reg, "fdr");
	r->fdr = json_is_number(v) ? json_number_value(v) : -1;
	a = json_object_get(reg, "metrics");
	r->metrics = xcalloc(json_array_size(a) + 1, sizeof(*r->metrics));
	json_array_foreach(a, i, v)
		if (json_is_string(v))
			r->metrics[r->nmetrics++] = xstrdup(json_string_value(v));
	r->fleet = dup_member(json_object_get(run, "fleet"), "file");
	a = json_object_get(run, "hosts");
	r->hosts = xcalloc(json_object_size(a) + 1, sizeof(*r->hosts));
	json_object_foreach((json_t *)a, name, e) {
		struct rundir_host *h;

		if (!fleet_name_ok(name)) {
			log_warn("run %s: run.json names a host with a bad name, left out",
			    r->id ? r->id : "?");
			continue;
		}
		h = &r->hosts[r->nhosts++];
		h->name = xstrdup(name);
		h->status = dup_member(e, "status");
		h->reason = dup_member(e, "reason");
		h->agent = dup_member(e, "agent");
		h->arch = dup_member(e, "arch");
		h->kernel = dup_member(e, "kernel");
		h->detached = dup_member(json_object_get(e, "detached"), "state");
		h->ok = json_integer_value(json_object_get(e, "ok"));
		h->failed = json_integer_value(json_object_get(e, "failed"));
	}
	return r;
}

int
rundir_load(const char *dir, struct rundir_run **out, char **err)
{
	json_t *run;
	int r;

	*out = NULL;
	if ((r = rundir_load_json(dir, &run, err)) != 0)
		return r;
	*out = rundir_run_new(run);
	json_decref(run);
	return 0;
}

void
rundir_run_free(struct rundir_run *r)
{
	size_t i;

	if (r == NULL)
		return;
	strv_free(r->points, r->npoints);
	strv_free(r->metrics, r->nmetrics);
	for (i = 0; i < r->nhosts; i++) {
		free(r->hosts[i].name);
		free(r->hosts[i].status);
		free(r->hosts[i].reason);
		free(r->hosts[i].agent);
		free(r->hosts[i].arch);
		free(r->hosts[i].kernel);
		free(r->hosts[i].detached);
	}
	free(r->hosts);
	free(r->id);
	free(r->status);
	free(r->label);
	free(r->group);
	free(r->commit);
	free(r->start);
	free(r->end);
	free(r->controller);
	free(r->controller_host);
	free(r->plan);
	free(r->plan_file);
	free(r->fleet);
	free(r);
}

const struct rundir_host *
rundir_run_host(const struct rundir_run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nhosts; i++)
		if (strcmp(r->hosts[i].name, name) == 0)
			return &r->hosts[i];
	return NULL;
}

int
rundir_check_plan(const struct rundir_run *r, const struct plan *p, char **err)
{
	size_t i;

	if (r->plan == NULL || strcmp(r->plan, p->name) != 0) {
		*err = xasprintf("the run is of plan '%s', not '%s'", r->plan ? r->plan : "?",
		    p->name);
		return -1;
	}
	if (r->points == NULL || r->npoints != p->npoints) {
		*err = xasprintf("plan '%s' has changed since the run started (%zu points, the "
		    "run has %zu)", p->name, p->npoints, r->npoints);
		return -1;
	}
	for (i = 0; i < r->npoints; i++)
		if (r->points[i] == NULL || strcmp(r->points[i], p->points[i].id) != 0) {
			*err = xasprintf("plan '%s' has changed since the run started (point "
			    "%zu is %s, the run has %s)", p->name, i + 1, p->points[i].id,
			    r->points[i] ? r->points[i] : "?");
			return -1;
		}
	if (!r->has_variants || r->nvariants != p->nvariants) {
		*err = xasprintf("plan '%s' has changed since the run started (variants)",
		    p->name);
		return -1;
	}
	return 0;
}

int
rundir_load_env(const char *dir, const char *host, json_t **out, char **err)
{
	char *path;
	int r;

	*out = NULL;
	if ((path = rundir_env_path(dir, host)) == NULL) {
		*err = xasprintf("%s: bad host name (not a fleet host name)", dir);
		return -1;
	}
	r = load_file(path, out, err) == 0 ? 0 : -1;
	free(path);
	return r;
}

/* --- JSON for the files of a run directory ----------------------------------- */

json_t *
rundir_json_str(const char *s)
{
	json_t *v;
	char *fixed;
	size_t n, i, o = 0, k;

	if (s == NULL)
		return json_null();
	if ((v = json_string(s)) != NULL)
		return v;
	n = strlen(s);
	fixed = xmalloc(n * 3 + 1);
	for (i = 0; i < n; i += k) {
		if ((k = utf8_seq(s + i, n - i)) == 0) {
			memcpy(fixed + o, "\xef\xbf\xbd", 3);
			o += 3;
			k = 1;
		} else {
			memcpy(fixed + o, s + i, k);
			o += k;
		}
	}
	fixed[o] = '\0';
	v = json_string(fixed);
	free(fixed);
	return v ? v : json_string("");
}

void
rundir_json_set(json_t *o, const char *key, json_t *v)
{
	/* Keys are ours or the plan's; a key jansson refuses (not UTF-8) is
	 * made valid.  json_object_set() leaves v to us either way. */
	if (json_object_set(o, key, v) != 0) {
		json_t *k = rundir_json_str(key);

		json_object_set(o, json_string_value(k), v);
		json_decref(k);
	}
	json_decref(v);
}

json_t *
rundir_json_strv(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, rundir_json_str(v[i]));
	return a;
}

json_t *
rundir_json_params(size_t n, char *const *keys, char *const *vals)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < n; i++)
		rundir_json_set(o, keys[i], rundir_json_str(vals[i]));
	return o;
}

static json_t *
plan_json(const struct plan *p, unsigned long long seed)
{
	json_t *o = json_object(), *a, *v, *w;
	char num[32];
	size_t i, k;

	rundir_json_set(o, "name", rundir_json_str(p->name));
	rundir_json_set(o, "file", rundir_json_str(p->file));
	rundir_json_set(o, "description", rundir_json_str(p->description));
	rundir_json_set(o, "repeat", json_integer(p->repeat));
	if (p->repeat_auto) {
		rundir_json_set(o, "repeat_auto", json_true());
		rundir_json_set(o, "repeat_max", json_integer(p->repeat_max));
	}
	rundir_json_set(o, "samples", json_integer(p->samples));
	rundir_json_set(o, "order", rundir_json_str(plan_order_name(p->order)));
	snprintf(num, sizeof(num), "%llu", seed);
	rundir_json_set(o, "seed", json_string(num));
	rundir_json_set(o, "timeout", json_real((double)p->timeout_ms / 1000.0));
	rundir_json_set(o, "trials_per_host", json_integer((json_int_t)(p->nvariants *
	    p->npoints * (size_t)p->repeat)));
	a = json_array();
	for (i = 0; i < p->nvariants; i++) {
		const struct plan_variant *pv = &p->variants[i];

		v = json_object();
		rundir_json_set(v, "name", rundir_json_str(pv->name));
		w = json_object();
		for (k = 0; k < pv->nwrites; k++)
			rundir_json_set(w, pv->writes[k].path,
			    rundir_json_str(pv->writes[k].value));
		rundir_json_set(v, "write", w);
		rundir_json_set(v, "setup", rundir_json_strv(pv->setup, pv->nsetup));
		rundir_json_set(v, "teardown", rundir_json_strv(pv->teardown,
		    pv->nteardown));
		json_array_append_new(a, v);
	}
	rundir_json_set(o, "variants", a);
	a = json_array();
	for (i = 0; i < p->npoints; i++) {
		const struct plan_point *pt = &p->points[i];

		v = json_object();
		rundir_json_set(v, "id", rundir_json_str(pt->id));
		rundir_json_set(v, "bench", rundir_json_str(pt->bench));
		rundir_json_set(v, "suite", rundir_json_str(pt->suite));
		rundir_json_set(v, "params", rundir_json_params(pt->nparams, pt->keys,
		    pt->vals));
		rundir_json_set(v, "label", rundir_json_str(pt->label));
		rundir_json_set(v, "profile", pt->profile == PLAN_PROFILE_PERF ?
		    json_string("perf") : json_null());
		if (pt->monitors != 0) {
			char *mon[PLAN_MON_COUNT];

			rundir_json_set(v, "monitor", rundir_json_strv(mon,
			    plan_monitor_names(pt->monitors, mon)));
		}
		json_array_append_new(a, v);
	}
	rundir_json_set(o, "points", a);
	if (p->has_regression) {
		v = json_object();
		rundir_json_set(v, "threshold", json_real(p->threshold));
		rundir_json_set(v, "fdr", json_real(p->fdr));
		rundir_json_set(v, "metrics", rundir_json_strv(p->metrics, p->nmetrics));
		rundir_json_set(o, "regression", v);
	} else
		rundir_json_set(o, "regression", json_null());
	return o;
}

/*
 * The fleet as the run used it: how each host was reached, never a
 * secret.  Identity keys appear as the path of the key file only; the
 * inventory holds no passphrase, and nothing of a key file is read here.
 */
static json_t *
fleet_json(const struct fleet *f, const unsigned char *sel)
{
	json_t *o = json_object(), *a = json_array(), *h;
	size_t i;

	rundir_json_set(o, "file", rundir_json_str(f->file));
	for (i = 0; i < f->nhosts; i++) {
		const struct fleet_host *fh = &f->hosts[i];

		if (sel != NULL && !sel[i])
			continue;
		h = json_object();
		rundir_json_set(h, "name", rundir_json_str(fh->name));
		rundir_json_set(h, "transport",
		    rundir_json_str(fleet_transport_name(fh->transport)));
		rundir_json_set(h, "address", rundir_json_str(fh->address));
		rundir_json_set(h, "user", rundir_json_str(fh->user));
		rundir_json_set(h, "port", fh->port ? json_integer(fh->port) : json_null());
		rundir_json_set(h, "identity", rundir_json_str(fh->identity));
		rundir_json_set(h, "known_hosts", rundir_json_str(fh->known_hosts));
		rundir_json_set(h, "host_key_check",
		    rundir_json_str(fleet_hostkey_name(fh->host_key_check)));
		rundir_json_set(h, "connect_timeout",
		    json_real((double)fh->connect_timeout_ms / 1000.0));
		rundir_json_set(h, "workdir", rundir_json_str(fh->workdir));
		rundir_json_set(h, "ssh_config", fh->ssh_config ?
		    rundir_json_str(fh->ssh_config_path) : json_false());
		rundir_json_set(h, "proxy_jump", rundir_json_str(fh->proxy_jump));
		rundir_json_set(h, "agent", rundir_json_str(fleet_agent_name(fh->agent)));
		rundir_json_set(h, "labels", rundir_json_strv(fh->labels, fh->nlabels));
		json_array_append_new(a, h);
	}
	rundir_json_set(o, "hosts", a);
	return o;
}

/* --- Writing run.json ------------------------------------------------------- */

static json_t *
iso_now(void)
{
	char b[CLOCK_ISO8601_MAX];

	clock_iso8601_now(b, sizeof(b), 0);
	return json_string(b);
}

json_t *
rundir_json_new(const struct journal_info *s, const char *id)
{
	json_t *run = json_object(), *c;
	char buf[256];

	rundir_json_set(run, "format", json_integer(RUNDIR_FORMAT));
	rundir_json_set(run, "run", rundir_json_str(id));
	rundir_json_set(run, "status", json_string(journal_status_name(JOURNAL_RUNNING)));
	rundir_json_set(run, "label", rundir_json_str(s->label));
	if (s->group != NULL)
		rundir_json_set(run, "group", rundir_json_str(s->group));
	if (s->commit != NULL)
		rundir_json_set(run, "commit", json_string(s->commit));
	clock_iso8601(buf, sizeof(buf), s->start ? s->start : time(NULL), -1);
	rundir_json_set(run, "start", json_string(buf));
	rundir_json_set(run, "end", json_null());
	rundir_json_set(run, "resumed", json_array());
	if (s->detached)
		rundir_json_set(run, "detached", json_true());
	c = json_object();
	rundir_json_set(c, "version", rundir_json_str(s->controller));
	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		rundir_json_set(c, "host", rundir_json_str(buf));
	} else
		rundir_json_set(c, "host", json_null());
	rundir_json_set(run, "controller", c);
	rundir_json_set(run, "plan", plan_json(s->plan, s->seed));
	rundir_json_set(run, "fleet", fleet_json(s->fleet, s->sel));
	rundir_json_set(run, "hosts", json_object());
	return run;
}

void
rundir_json_set_id(json_t *run, const char *id)
{
	rundir_json_set(run, "run", rundir_json_str(id));
}

void
rundir_json_set_status(json_t *run, const char *status, int ended)
{
	rundir_json_set(run, "status", json_string(status));
	rundir_json_set(run, "end", ended ? iso_now() : json_null());
}

void
rundir_json_resumed(json_t *run)
{
	json_t *resumed;

	rundir_json_set_status(run, journal_status_name(JOURNAL_RUNNING), 0);
	resumed = json_object_get(run, "resumed");
	if (!json_is_array(resumed)) {
		resumed = json_array();
		rundir_json_set(run, "resumed", resumed);
	}
	json_array_append_new(resumed, iso_now());
}

json_t *
rundir_json_host(json_t *run, const char *host, const char *status)
{
	json_t *hosts = json_object_get(run, "hosts"), *e;

	if (!json_is_object(hosts)) {
		hosts = json_object();
		rundir_json_set(run, "hosts", hosts);
	}
	if ((e = json_object_get(hosts, host)) == NULL || !json_is_object(e)) {
		e = json_object();
		rundir_json_set(e, "status", json_string(status));
		rundir_json_set(e, "reason", json_null());
		rundir_json_set(e, "agent", json_null());
		rundir_json_set(e, "arch", json_null());
		rundir_json_set(e, "kernel", json_null());
		rundir_json_set(e, "ok", json_integer(0));
		rundir_json_set(e, "failed", json_integer(0));
		rundir_json_set(hosts, host, e);
	}
	return e;
}

void
rundir_json_host_status(json_t *e, const char *status, const char *reason)
{
	rundir_json_set(e, "status", json_string(status));
	rundir_json_set(e, "reason", rundir_json_str(reason));
}

void
rundir_json_host_env(json_t *e, const json_t *env)
{
	json_t *u;

	u = json_object_get(env, "agent");
	rundir_json_set(e, "agent", json_is_string(u) ? json_incref(u) : json_null());
	u = json_object_get(env, "arch");
	rundir_json_set(e, "arch", json_is_string(u) ? json_incref(u) : json_null());
	u = json_object_get(json_object_get(env, "uname"), "release");
	rundir_json_set(e, "kernel", json_is_string(u) ? json_incref(u) : json_null());
}

void
rundir_json_host_counts(json_t *e, size_t ok, size_t failed)
{
	rundir_json_set(e, "ok", json_integer((json_int_t)ok));
	rundir_json_set(e, "failed", json_integer((json_int_t)failed));
}

/* --- Atomic replacement ----------------------------------------------------- */

int
rundir_write_json(const char *path, const json_t *o, char **err)
{
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	char *withnl;
	int r;

	if (path == NULL) {
		/* rundir_env_path() of a host name that is not one */
		free(text);
		*err = xstrdup("cannot write a host's file: bad host name");
		return -1;
	}
	if (text == NULL) {
		*err = xasprintf("cannot write %s: out of memory", path);
		return -1;
	}
	withnl = xasprintf("%s\n", text);
	free(text);
	r = fs_write_atomic(path, withnl, strlen(withnl), RUNDIR_FILE_MODE, 0, err);
	free(withnl);
	return r;
}

/* --- The spare ------------------------------------------------------------- */

int
rundir_spare_make(const char *dir, size_t size, char **err)
{
	char *p = rundir_path(dir, RUNDIR_SPARE);
	int fd, e, r = -1;

	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, RUNDIR_FILE_MODE);
	if (fd < 0) {
		*err = xasprintf("cannot create %s: %s", p, strerror(errno));
		goto out;
	}
	if ((e = posix_fallocate(fd, 0, (off_t)size)) != 0) {
		*err = xasprintf("cannot allocate %zu bytes for %s: %s", size, p, strerror(e));
		close(fd);
		unlink(p);
		goto out;
	}
	if (close(fd) != 0) {
		*err = xasprintf("cannot write %s: %s", p, strerror(errno));
		unlink(p);
		goto out;
	}
	r = 0;
 out:
	free(p);
	return r;
}

int
rundir_write_json_spare(const char *dir, const json_t *o, char **err)
{
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	struct fs_atomic a = { NULL, NULL, -1, 0 };
	size_t len;
	int r = -1;

	a.path = rundir_path(dir, RUNDIR_RUN_JSON);
	a.tmp = rundir_path(dir, RUNDIR_SPARE);
	if (text == NULL) {
		*err = xasprintf("cannot write %s: out of memory", a.path);
		goto out;
	}
	/* Over the blocks the spare holds: no O_TRUNC, cut to length after. */
	if ((a.fd = open(a.tmp, O_WRONLY | O_CLOEXEC)) < 0) {
		*err = xasprintf("cannot open %s: %s", a.tmp, strerror(errno));
		goto out;
	}
	len = strlen(text);
	text[len++] = '\n';	/* over the NUL: the length says where it ends */
	if (fs_full_write(a.fd, text, len) != 0 || ftruncate(a.fd, (off_t)len) != 0) {
		*err = xasprintf("cannot write %s: %s", a.tmp, strerror(errno));
		goto out;
	}
	/* fsync, rename over run.json, fsync the directory; releases a */
	r = fs_atomic_commit(&a, err);
 out:
	if (r != 0)
		fs_atomic_abort(&a);	/* and the spare with it */
	free(text);
	return r;
}

void
rundir_spare_remove(const char *dir)
{
	char *p = rundir_path(dir, RUNDIR_SPARE);

	unlink(p);
	free(p);
}
