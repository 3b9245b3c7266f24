/*
 * journal.c: the run directory (see journal.h and docs/results.md); the
 * host logs are in hostlog.c, and the struct and its locks in
 * journal-int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "agentproto.h"
#include "clock.h"
#include "fleet.h"
#include "fsutil.h"
#include "journal/journal-int.h"
#include "log.h"
#include "plan.h"
#include "strbuf.h"
#include "trialread.h"
#include "utf8.h"
#include "xmalloc.h"
#include "yamldoc.h"

#define DUMP_FLAGS	(JSON_COMPACT | JSON_REAL_PRECISION(15))

static const char *const host_status_names[] = {
	"pending", "connecting", "deploying", "running", "done", "failed", "interrupted",
};

const char *
journal_host_status_name(enum journal_host_status st)
{
	if ((unsigned)st >= sizeof(host_status_names) / sizeof(host_status_names[0]))
		return "unknown";
	return host_status_names[st];
}

/* --- Hosts ------------------------------------------------------------------- */

/* Host names become file names: the fleet's rule, checked again here. */
int
journal_valid_host(const char *s)
{
	return ydoc_name_ok(s, FLEET_NAME_MAX);
}

/* The host named name (added when new); NULL for a name unfit for a file. */
struct jhost *
journal_host_get(struct journal *j, const char *name)
{
	size_t i;
	struct jhost *h;

	for (i = 0; i < j->nhosts; i++)
		if (strcmp(j->hosts[i]->name, name) == 0)
			return j->hosts[i];
	if (!journal_valid_host(name))
		return NULL;
	/* Entries are allocated one by one: a pointer to one stays valid
	 * while the array grows under another thread. */
	xgrow(&j->hosts, &j->hcap, j->nhosts + 1, sizeof(*j->hosts));
	h = j->hosts[j->nhosts++] = xcalloc(1, sizeof(*h));
	h->name = xstrdup(name);
	h->logfd = -1;
	return h;
}

/* --- run.json ---------------------------------------------------------------- */

/*
 * The host named host with run_mu taken (the caller unlocks it); NULL
 * with *err and run_mu free for a name unfit for a file.
 */
static struct jhost *
host_locked(struct journal *j, const char *host, char **err)
{
	struct jhost *h;

	pthread_mutex_lock(&j->run_mu);
	if ((h = journal_host_get(j, host)) == NULL) {
		pthread_mutex_unlock(&j->run_mu);
		*err = xasprintf("bad host name '%.64s'", host);
	}
	return h;
}

/* run.json's entry for h, created when missing; run_mu held. */
static json_t *
host_entry(struct journal *j, const struct jhost *h)
{
	return rundir_json_host(j->run, h->name, journal_host_status_name(h->status));
}

/*
 * Counts into run.json and rewrite it; run_mu held.  last: the run's end,
 * written into the spare when there is one (rundir.h), so that a full
 * disk does not keep it from being said.
 */
static int
run_write(struct journal *j, int last, char **err)
{
	char *path, *e = NULL;
	size_t i;
	int r;

	if (j->pending) {
		*err = xasprintf("%s: not taken up yet (journal_resume_start())", j->dir);
		return -1;
	}
	for (i = 0; i < j->nhosts; i++)
		rundir_json_host_counts(host_entry(j, j->hosts[i]), j->hosts[i]->ok,
		    j->hosts[i]->failed);
	if (last && j->spare) {
		j->spare = 0;	/* used up, or removed, either way */
		if (rundir_write_json_spare(j->dir, j->run, &e) == 0)
			return 0;
		log_debug("%s", e);
		free(e);
	}
	path = rundir_path(j->dir, RUNDIR_RUN_JSON);
	r = rundir_write_json(path, j->run, err);
	free(path);
	return r;
}

/*
 * run.json after a host's state, env or profile changed: at once in a
 * small fleet; in one of more than JOURNAL_BIG_FLEET hosts at most every
 * JOURNAL_BIG_MS, the news left for the next change, the next trial or
 * the end (journal_finish()).  A big fleet's run.json holds every host's
 * facts, and rewriting it (with two fsyncs) on each of its hosts' four or
 * five changes grew with the square of the fleet: a thousand hosts waited
 * on each other's rewrites for most of a run.  run_mu held.
 */
static int
run_write_soon(struct journal *j, char **err)
{
	long long now = clock_mono_ms();

	if (j->nhosts > JOURNAL_BIG_FLEET && now - j->run_written < JOURNAL_BIG_MS) {
		j->run_dirty = 1;
		return 0;
	}
	j->run_dirty = 0;
	j->run_written = now;
	return run_write(j, 0, err);
}

/*
 * Keep room for the last run.json (rundir_spare_make()): twice what it
 * holds now and 8 KiB, for the hosts' states, reasons and counts it will
 * gain.  A run does not start without that room: a disk that fills up
 * would leave its run.json saying "running" for ever.  0, or -1 with *err.
 */
static int
make_spare(struct journal *j, const char *dir, char **err)
{
	char *path = rundir_path(dir, RUNDIR_RUN_JSON), *e = NULL;
	struct stat st;
	int r = -1;

	if (stat(path, &st) != 0)
		*err = xasprintf("cannot stat %s: %s", path, strerror(errno));
	else if (rundir_spare_make(dir, 2 * (size_t)st.st_size + 8192, &e) != 0) {
		*err = xasprintf("%s: no room kept for run.json's last write, so the run is "
		    "not started (free some space)", e ? e : dir);
		free(e);
	} else {
		j->spare = 1;
		r = 0;
	}
	free(path);
	return r;
}

static struct journal *
journal_alloc(void)
{
	struct journal *j = xcalloc(1, sizeof(*j));

	j->trials_fd = -1;
	j->cut = -1;
	pthread_mutex_init(&j->run_mu, NULL);
	pthread_mutex_init(&j->trials_mu, NULL);
	pthread_mutex_init(&j->log_mu, NULL);
	return j;
}

char *
journal_new_run_id(const char *plan_name, time_t when)
{
	char stamp[32], name[65];
	unsigned char rnd[2];
	struct timespec now;
	struct tm tm;
	size_t i;

	gmtime_r(&when, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (i = 0; plan_name && plan_name[i] && i < sizeof(name) - 1; i++) {
		char c = plan_name[i];

		name[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-') ? c : '-';
	}
	name[i] = '\0';
	if (i == 0 || name[0] == '.')
		name[0] = 'x', name[1] = '\0';
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		struct timeval tv;
		unsigned int x;

		gettimeofday(&tv, NULL);
		x = (unsigned int)tv.tv_usec ^ (unsigned int)getpid() * 2654435761u;
		rnd[0] = (unsigned char)(x >> 8);
		rnd[1] = (unsigned char)x;
	}
	/*
	 * Ids sort by name everywhere (latest, history, an archive's
	 * listing), so two runs of one plan started in the same second must
	 * sort in the order they started: the first byte is the fraction of
	 * that second, in 1/256 s, whenever the id is for now.
	 */
	if (clock_gettime(CLOCK_REALTIME, &now) == 0 && now.tv_sec == when)
		rnd[0] = (unsigned char)((unsigned long long)now.tv_nsec * 256 /
		    1000000000ull);
	return xasprintf("%s-%s-%02x%02x", stamp, name, rnd[0], rnd[1]);
}

/* Rename a built directory into place unless something is there. */
static int
rename_noreplace(const char *from, const char *to)
{
	struct stat st;

#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	/* A file system without renameat2: nearly as good, the ids are random. */
	if (lstat(to, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

/*
 * Open trials.jsonl for appending, and lock the run directory with it.
 * An existing one on read-only media is opened for reading (j->read_only):
 * a run that has nothing left to run is still looked at, and
 * journal_resume_start() refuses the others.
 */
static int
open_trials(struct journal *j, int create, char **err)
{
	char *path = rundir_path(j->dir, RUNDIR_TRIALS);
	struct stat st;
	int fd, r = -1;

	fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0),
	    RUNDIR_FILE_MODE);
	if (fd < 0 && !create && (errno == EROFS || errno == EACCES || errno == EPERM)) {
		j->read_only = errno;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		*err = xasprintf("cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		*err = errno == EWOULDBLOCK ?
		    xasprintf("%s is in use by another fleetmark", j->dir) :
		    xasprintf("cannot lock %s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		*err = xasprintf("cannot stat %s: %s", path, strerror(errno));
		goto out;
	}
	j->size = st.st_size;
	j->trials_fd = fd;
	fd = -1;
	r = 0;
 out:
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}

int
journal_create(const struct journal_info *info, struct journal **out, char **err)
{
	struct journal *j = NULL;
	char *tmp = NULL, *id = NULL, *final = NULL;
	size_t i, attempt;
	int r = -1;

	*out = NULL;
	if (info->results == NULL || info->plan == NULL || info->fleet == NULL) {
		*err = xstrdup("journal_create: results, plan and fleet are needed");
		return -1;
	}
	if (fs_mkdir_p(info->results, RUNDIR_DIR_MODE, err) != 0 ||
	    rundir_mktemp(info->results, ".fleetmark-run-", &tmp, err) != 0)
		return -1;
	if (rundir_make(tmp, 0, err) != 0)
		goto out;

	j = journal_alloc();
	id = info->run_id ? xstrdup(info->run_id) :
	    journal_new_run_id(info->plan->name, info->start ? info->start : time(NULL));
	j->run = rundir_json_new(info, id);
	j->dir = tmp;		/* while it is built */
	for (i = 0; i < info->fleet->nhosts; i++) {
		struct jhost *h;

		if (info->sel != NULL && !info->sel[i])
			continue;
		if ((h = journal_host_get(j, info->fleet->hosts[i].name)) == NULL) {
			*err = xasprintf("bad host name '%s'", info->fleet->hosts[i].name);
			goto out;
		}
		host_entry(j, h);
	}

	for (attempt = 0; ; attempt++) {
		rundir_json_set_id(j->run, id);
		if (run_write(j, 0, err) != 0)
			goto out;
		if (attempt == 0 && make_spare(j, tmp, err) != 0)
			goto out;
		if (fs_fsync_dir(tmp) != 0) {
			*err = xasprintf("cannot sync %s: %s", tmp, strerror(errno));
			goto out;
		}
		free(final);
		final = xasprintf("%s/%s", info->results, id);
		if (rename_noreplace(tmp, final) == 0)
			break;
		if (errno != EEXIST && errno != ENOTEMPTY) {
			*err = xasprintf("cannot rename %s to %s: %s", tmp, final,
			    strerror(errno));
			goto out;
		}
		if (info->run_id != NULL || attempt >= 8) {
			*err = xasprintf("%s already exists", final);
			goto out;
		}
		free(id);
		id = journal_new_run_id(info->plan->name, info->start ? info->start :
		    time(NULL));
	}
	/* From here on the directory is in place: errors leave it there. */
	j->dir = final;
	final = NULL;
	free(tmp);
	tmp = NULL;
	if (fs_fsync_dir(info->results) != 0) {
		*err = xasprintf("cannot sync %s: %s", info->results, strerror(errno));
		goto out;
	}
	j->id = id;
	id = NULL;
	j->side = info->side != NULL ? xstrdup(info->side) : NULL;
	j->boot = info->boot;
	if (open_trials(j, 0, err) != 0)
		goto out;
	*out = j;
	j = NULL;
	r = 0;
 out:
	if (tmp != NULL) {
		rundir_unmake(tmp);
		if (j != NULL && j->dir == tmp)
			j->dir = NULL;
		free(tmp);
	}
	journal_free(j);
	free(id);
	free(final);
	return r;
}

const char *
journal_run_id(const struct journal *j)
{
	return j->id;
}

const char *
journal_dir(const struct journal *j)
{
	return j->dir;
}

const json_t *
journal_run_json(const struct journal *j)
{
	return j->run;
}

int
journal_host_board(struct journal *j, const char *host, const char *what,
    const char *trial, const char *reason, char **err)
{
	struct jhost *h;
	json_t *e, *a, *ev;
	char when[64];
	int r;

	if ((h = host_locked(j, host, err)) == NULL)
		return -1;
	e = host_entry(j, h);
	if ((a = json_object_get(e, "board")) == NULL || !json_is_array(a)) {
		a = json_array();
		json_object_set_new(e, "board", a);
	}
	clock_iso8601_now(when, sizeof(when), 0);
	ev = json_pack("{s:s, s:s}", "time", when, "event", what);
	if (trial != NULL)
		json_object_set_new(ev, "trial", json_string(trial));
	if (reason != NULL)
		json_object_set_new(ev, "reason", rundir_json_str(reason));
	json_array_append_new(a, ev);
	r = run_write(j, 0, err);
	pthread_mutex_unlock(&j->run_mu);
	return r;
}

int
journal_host_status(struct journal *j, const char *host, enum journal_host_status st,
    const char *reason, char **err)
{
	struct jhost *h;
	int r;

	if ((h = host_locked(j, host, err)) == NULL)
		return -1;
	h->status = st;
	rundir_json_host_status(host_entry(j, h), journal_host_status_name(st), reason);
	r = run_write_soon(j, err);
	pthread_mutex_unlock(&j->run_mu);
	return r;
}

int
journal_host_env(struct journal *j, const char *host, const json_t *env, char **err)
{
	struct jhost *h;
	json_t *copy;
	char *path;
	int r;

	if (!json_is_object(env)) {
		*err = xasprintf("%s: the env facts are not an object", host);
		return -1;
	}
	if ((h = host_locked(j, host, err)) == NULL)
		return -1;
	pthread_mutex_unlock(&j->run_mu);
	copy = json_deep_copy(env);
	json_object_del(copy, "type");
	json_object_del(copy, "id");
	/*
	 * The host's own file outside the lock: a big fleet's hosts sync
	 * theirs at the same time instead of one after another.
	 */
	path = rundir_env_path(j->dir, h->name);
	r = rundir_write_json(path, copy, err);
	free(path);
	if (r == 0) {
		pthread_mutex_lock(&j->run_mu);
		rundir_json_host_env(host_entry(j, h), copy);
		r = run_write_soon(j, err);
		pthread_mutex_unlock(&j->run_mu);
	}
	json_decref(copy);
	return r;
}

/* A member of the host's run.json entry (a copy of v), and rewrite run.json. */
static int
host_member(struct journal *j, const char *host, const char *key, const json_t *v,
    char **err)
{
	struct jhost *h;
	int r;

	if ((h = host_locked(j, host, err)) == NULL)
		return -1;
	rundir_json_set(host_entry(j, h), key, json_deep_copy(v));
	r = run_write_soon(j, err);
	pthread_mutex_unlock(&j->run_mu);
	return r;
}

int
journal_host_tune(struct journal *j, const char *host, const json_t *tune, char **err)
{
	return host_member(j, host, "tune", tune, err);
}

int
journal_host_detached(struct journal *j, const char *host, const json_t *state,
    char **err)
{
	return host_member(j, host, "detached", state, err);
}

int
journal_host_detached_state(struct journal *j, const char *host, const char *state,
    char **err)
{
	char when[CLOCK_ISO8601_MAX];
	struct jhost *h;
	json_t *e, *d;
	int r;

	if ((h = host_locked(j, host, err)) == NULL)
		return -1;
	e = host_entry(j, h);
	d = json_object_get(e, "detached");
	d = json_is_object(d) ? json_deep_copy(d) : json_object();
	clock_iso8601_now(when, sizeof(when), 0);
	json_object_set_new(d, "state", json_string(state));
	json_object_set_new(d, "time", json_string(when));
	rundir_json_set(e, "detached", d);
	r = run_write_soon(j, err);
	pthread_mutex_unlock(&j->run_mu);
	return r;
}

int
journal_finish(struct journal *j, enum journal_status st, char **err)
{
	int r;

	pthread_mutex_lock(&j->run_mu);
	rundir_json_set_status(j->run, journal_status_name(st), st != JOURNAL_RUNNING &&
	    st != JOURNAL_DETACHED);
	r = run_write(j, st != JOURNAL_RUNNING, err);
	pthread_mutex_unlock(&j->run_mu);
	return r;
}

/* --- Trial lines ------------------------------------------------------------- */

void
journal_trial_init(struct journal_trial *jt, const char *host, const struct plan_trial *pt)
{
	memset(jt, 0, sizeof(*jt));
	jt->host = host;
	jt->variant = pt->variant ? pt->variant->name : NULL;
	jt->bench = pt->point->bench;
	jt->nparams = pt->point->nparams;
	jt->keys = pt->point->keys;
	jt->vals = pt->point->vals;
	jt->rep = pt->rep;
	jt->key = pt->key;
	jt->duration = -1;
	jt->profile = pt->point->profile == PLAN_PROFILE_PERF;
	jt->monitors = pt->point->monitors;
}

/*
 * The trial's notes, and for an ok trial one for each monitor asked for
 * that sent no line (an agent of protocol 2 or older); NULL for none.
 */
static json_t *
notes_json(const struct journal_trial *t, enum ap_status st)
{
	const struct ap_result *r = t->result;
	json_t *a = NULL;
	size_t k;
	char *n;

	if (r != NULL && r->nnotes > 0)
		a = rundir_json_strv(r->notes, r->nnotes);
	for (k = 0; r != NULL && st == AP_ST_OK && k < PLAN_MON_COUNT; k++) {
		if (!(t->monitors & (1u << k)) || (r->monitors & (1u << k)))
			continue;
		if (a == NULL)
			a = json_array();
		n = xasprintf("monitor %s: the agent sent none (an agent older than "
		    "protocol 4 has no monitors)", plan_monitor_name(k));
		json_array_append_new(a, rundir_json_str(n));
		free(n);
	}
	return a;
}

/* A monitor's counter behind a secondary metric (docs/results.md). */
static json_t *
monitor_json(const struct ap_metric *m)
{
	const char *counter = strchr(m->name, ':');
	json_t *o = json_object();

	rundir_json_set(o, "name", rundir_json_str(m->monitor));
	rundir_json_set(o, "counter", rundir_json_str(counter ? counter + 1 : m->name));
	rundir_json_set(o, "delta", json_integer(m->delta));
	rundir_json_set(o, "ops", m->ops > 0 ? json_integer(m->ops) : json_null());
	rundir_json_set(o, "seconds", m->seconds >= 0 ? json_real(m->seconds) : json_null());
	return o;
}

/* A trial's profile as its first line carries it (docs/results.md). */
static json_t *
profile_json(const struct journal_trial *t, enum ap_status st)
{
	const struct ap_profile *p = t->result ? t->result->profile : NULL;
	json_t *o, *a;
	size_t i;

	if (p == NULL) {
		if (!t->profile || st != AP_ST_OK)
			return NULL;
		return json_pack("{s:s, s:s}", "profiler", WIRE_PROFILE_PERF, "absent",
		    "the agent sent no profile");
	}
	o = json_object();
	rundir_json_set(o, "profiler", rundir_json_str(p->profiler));
	if (p->absent != NULL) {
		rundir_json_set(o, "absent", rundir_json_str(p->absent));
		return o;
	}
	rundir_json_set(o, "event", rundir_json_str(p->event));
	rundir_json_set(o, "samples", json_integer(p->samples));
	a = json_array();
	for (i = 0; i < p->ntop; i++)
		json_array_append_new(a, json_pack("{s:o, s:I, s:f}", "sym",
		    rundir_json_str(p->top[i].sym), "hits", (json_int_t)p->top[i].hits,
		    "pct", p->top[i].pct));
	rundir_json_set(o, "top", a);
	return o;
}

/* The agent's resolved parameters as text, for lines of a suite member. */
static json_t *
params_as_text(const json_t *params)
{
	json_t *o = json_object(), *v;
	const char *k;
	char num[32];

	json_object_foreach((json_t *)params, k, v) {
		if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
			rundir_json_set(o, k, json_string(num));
		} else if (json_is_string(v))
			rundir_json_set(o, k, json_incref(v));
	}
	return o;
}

/* One trial line, appended with its newline to sb. */
static void
add_line(struct strbuf *sb, const struct journal *j,
    const struct journal_trial *t, const struct ap_point *pt,
    const struct ap_metric *m, size_t part, size_t parts)
{
	const struct ap_result *r = t->result;
	enum ap_status st = r ? r->status : t->status;
	const char *msg = r ? r->message : t->message;
	double duration = t->duration;
	json_t *o = json_object(), *a;
	size_t i;
	char *text;

	rundir_json_set(o, "format", json_integer(RUNDIR_FORMAT));
	rundir_json_set(o, "run", rundir_json_str(j->id));
	rundir_json_set(o, "host", rundir_json_str(t->host));
	rundir_json_set(o, "variant", rundir_json_str(t->variant));
	if (pt != NULL && t->bench != NULL && strcmp(pt->bench, t->bench) != 0) {
		/* A suite run as one trial: the line is about its member. */
		rundir_json_set(o, "bench", rundir_json_str(pt->bench));
		rundir_json_set(o, "suite", rundir_json_str(t->bench));
		rundir_json_set(o, "params", params_as_text(pt->params));
	} else {
		rundir_json_set(o, "bench", rundir_json_str(t->bench));
		rundir_json_set(o, "params", rundir_json_params(t->nparams, t->keys,
		    t->vals));
	}
	rundir_json_set(o, "rep", json_integer(t->rep));
	/* Absent from an ordinary run's lines, which stay as they were. */
	if (j->side != NULL)
		rundir_json_set(o, "side", rundir_json_str(j->side));
	if (j->boot > 0)
		rundir_json_set(o, "boot", json_integer(j->boot));
	rundir_json_set(o, "key", rundir_json_str(t->key));
	rundir_json_set(o, "metric", m ? rundir_json_str(m->name) : json_null());
	rundir_json_set(o, "unit", m ? rundir_json_str(m->unit) : json_null());
	rundir_json_set(o, "direction", m ? json_string(m->higher_better ?
	    WIRE_HIGHER_BETTER : WIRE_LOWER_BETTER) : json_null());
	rundir_json_set(o, "value", m ? json_real(m->value) : json_null());
	a = json_array();
	for (i = 0; m && i < m->nsamples; i++)
		json_array_append_new(a, json_real(m->samples[i]));
	rundir_json_set(o, "samples", a);
	if (m && m->iterations > 0)
		rundir_json_set(o, "iterations", json_integer(m->iterations));
	/* A copy: the result is the caller's, and its reference count is not
	 * ours to touch from this thread. */
	if (pt != NULL && pt->params != NULL)
		rundir_json_set(o, "resolved", json_deep_copy(pt->params));
	rundir_json_set(o, "start", json_real(t->start));
	if (duration < 0 && r != NULL)
		duration = r->duration;
	rundir_json_set(o, "duration", duration >= 0 ? json_real(duration) : json_null());
	rundir_json_set(o, "status", json_string(ap_status_name(st)));
	rundir_json_set(o, "kind", json_string(ap_kind_name(ap_status_kind(st))));
	if (pt != NULL && pt->message != NULL)
		msg = pt->message;
	if (msg != NULL)
		rundir_json_set(o, "message", rundir_json_str(msg));
	if ((a = notes_json(t, st)) != NULL)
		rundir_json_set(o, "notes", a);
	if (r != NULL && r->kernel != NULL)
		rundir_json_set(o, "kernel", json_deep_copy(r->kernel));
	if (m != NULL && m->monitor != NULL)
		rundir_json_set(o, "monitor", monitor_json(m));
	if (part == 1 && (a = profile_json(t, st)) != NULL)
		rundir_json_set(o, "profile", a);
	rundir_json_set(o, "part", json_integer((json_int_t)part));
	rundir_json_set(o, "parts", json_integer((json_int_t)parts));

	text = json_dumps(o, DUMP_FLAGS);
	json_decref(o);
	if (text == NULL)
		return;
	strbuf_addstr(sb, text);
	strbuf_addch(sb, '\n');
	free(text);
}

int
journal_append(struct journal *j, const struct journal_trial *t, char **err)
{
	const struct ap_result *r = t->result;
	struct strbuf buf = STRBUF_INIT;
	size_t parts = 0, part = 0, i, k;
	enum ap_status st = r ? r->status : t->status;
	struct jhost *h;
	char *e = NULL;
	int saved, ret = -1;

	if (t->host == NULL || t->bench == NULL || t->key == NULL) {
		*err = xstrdup("journal_append: host, bench and key are needed");
		return -1;
	}
	if (!journal_valid_host(t->host)) {
		*err = xasprintf("bad host name '%.64s'", t->host);
		return -1;
	}
	if (j->pending) {
		*err = xasprintf("%s: not taken up yet (journal_resume_start())", j->dir);
		return -1;
	}
	/* Lines: one per metric of each point, one for a point without any. */
	for (i = 0; r != NULL && i < r->npoints; i++)
		parts += r->points[i].nmetrics ? r->points[i].nmetrics : 1;
	if (parts == 0) {
		add_line(&buf, j, t, NULL, NULL, 1, 1);
	} else {
		for (i = 0; i < r->npoints; i++) {
			const struct ap_point *pt = &r->points[i];

			if (pt->nmetrics == 0)
				add_line(&buf, j, t, pt, NULL, ++part, parts);
			for (k = 0; k < pt->nmetrics; k++)
				add_line(&buf, j, t, pt, &pt->metrics[k], ++part, parts);
		}
	}
	if (buf.len == 0) {
		*err = xstrdup("cannot format a trial line: out of memory");
		return -1;
	}

	pthread_mutex_lock(&j->trials_mu);
	if (fs_full_write(j->trials_fd, buf.buf, buf.len) != 0) {
		saved = errno;
		/* Cut back what went out, so the next line starts clean. */
		if (ftruncate(j->trials_fd, j->size) != 0)
			*err = xasprintf("cannot write %s/%s: %s (and cannot cut off the "
			    "partial line: %s)", j->dir, RUNDIR_TRIALS, strerror(saved),
			    strerror(errno));
		else
			*err = xasprintf("cannot write %s/%s: %s", j->dir, RUNDIR_TRIALS,
			    strerror(saved));
		pthread_mutex_unlock(&j->trials_mu);
		goto out;
	}
	j->size += (off_t)buf.len;
	pthread_mutex_unlock(&j->trials_mu);
	/*
	 * Sync outside the lock: host threads finishing trials at the same
	 * time share the disk's flushes instead of queueing one flush each
	 * behind the lock.  The line is
	 * whole in the file already; the sync makes it survive a power cut.
	 */
	if (fdatasync(j->trials_fd) != 0) {
		*err = xasprintf("cannot sync %s/%s: %s", j->dir, RUNDIR_TRIALS,
		    strerror(errno));
		goto out;
	}

	pthread_mutex_lock(&j->run_mu);
	if ((h = journal_host_get(j, t->host)) != NULL) {
		if (st == AP_ST_OK)
			h->ok++;
		else
			h->failed++;
	}
	/* a big fleet's states held back (run_write_soon()); the next change says it */
	if (j->run_dirty && run_write_soon(j, &e) != 0) {
		log_debug("%s", e);
		free(e);
	}
	pthread_mutex_unlock(&j->run_mu);
	ret = 0;
 out:
	strbuf_release(&buf);
	return ret;
}

void
journal_free(struct journal *j)
{
	size_t i;

	if (j == NULL)
		return;
	for (i = 0; i < j->nhosts; i++) {
		if (j->dir != NULL)
			hostlog_flush(j, j->hosts[i]);
		if (j->hosts[i]->logfd >= 0)
			close(j->hosts[i]->logfd);
		free(j->hosts[i]->partial);
		free(j->hosts[i]->name);
		free(j->hosts[i]);
	}
	free(j->hosts);
	if (j->spare && j->dir != NULL)
		rundir_spare_remove(j->dir);	/* the run ended without it */
	if (j->trials_fd >= 0)
		close(j->trials_fd);	/* and the lock goes with it */
	json_decref(j->run);
	pthread_mutex_destroy(&j->run_mu);
	pthread_mutex_destroy(&j->trials_mu);
	pthread_mutex_destroy(&j->log_mu);
	free(j->log_err);
	free(j->side);
	free(j->dir);
	free(j->id);
	free(j);
}

/* --- Resuming ---------------------------------------------------------------- */

int
journal_resume(const char *rundir, struct journal **out, struct trial_done **donep,
    char **err)
{
	struct journal *j = NULL;
	struct trial_done *d = NULL;
	struct trial_scan sc;
	struct stat st;
	char *path = NULL, *p;
	json_t *hosts, *e;
	const char *name;
	size_t n;
	int r = -1;

	*out = NULL;
	if (donep)
		*donep = NULL;
	j = journal_alloc();
	n = strlen(rundir);
	while (n > 1 && rundir[n - 1] == '/')
		n--;
	j->dir = xstrndup(rundir, n);
	if ((r = rundir_load_json(j->dir, &j->run, err)) != 0)
		goto out;
	r = -1;
	if (!json_is_string(json_object_get(j->run, "run"))) {
		p = rundir_path(j->dir, RUNDIR_RUN_JSON);
		*err = xasprintf("%s: no run id", p);
		free(p);
		goto out;
	}
	j->id = xstrdup(json_string_value(json_object_get(j->run, "run")));
	if (rundir_check(j->dir, err) != 0)
		goto out;
	/*
	 * Locked and read, nothing written: the caller may still refuse the
	 * run.  A missing trials.jsonl is made (and locked) when it is taken up.
	 */
	path = rundir_path(j->dir, RUNDIR_TRIALS);
	memset(&sc, 0, sizeof(sc));
	if (stat(path, &st) == 0) {
		if (open_trials(j, 0, err) != 0 ||
		    trial_done_read_fd(j->trials_fd, path, &d, &sc, err) != 0)
			goto out;
	} else if (errno != ENOENT) {
		*err = xasprintf("cannot stat %s: %s", path, strerror(errno));
		goto out;
	} else
		d = trial_done_read_buf("", 0, &sc);	/* none done */
	if (sc.truncated) {
		j->cut = sc.good_size;
		j->cut_line = sc.lines + 1;
	}
	if (sc.corrupt > 0)
		log_warn("%s:%zu: skipped %zu corrupt line%s", path, sc.first_corrupt,
		    sc.corrupt, sc.corrupt == 1 ? "" : "s");
	j->size = sc.good_size;

	hosts = json_object_get(j->run, "hosts");
	json_object_foreach(hosts, name, e) {
		struct jhost *h = journal_host_get(j, name);

		if (h != NULL)
			h->ok = trial_done_count(d, name);
	}
	j->pending = 1;
	*out = j;
	j = NULL;
	if (donep) {
		*donep = d;
		d = NULL;
	}
	r = 0;
 out:
	free(path);
	trial_done_free(d);
	journal_free(j);
	return r;
}

int
journal_resume_start(struct journal *j, char **err)
{
	char *path = rundir_path(j->dir, RUNDIR_TRIALS);
	int r = -1;

	if (!j->pending) {
		*err = xasprintf("%s: not a run being resumed, or taken up already", j->dir);
		goto out;
	}
	if (j->read_only) {
		*err = xasprintf("cannot write %s: %s", path, strerror(j->read_only));
		goto out;
	}
	/* What a crash left half made, before anything else. */
	if (rundir_make(j->dir, 1, err) != 0)
		goto out;
	if (j->trials_fd < 0 && open_trials(j, 1, err) != 0)
		goto out;
	if (j->cut >= 0) {
		/* A crash while it was written: nothing of it can be trusted, and a
		 * line appended after it would be glued to it. */
		log_warn("%s:%zu: dropped an incomplete last line (the run was killed "
		    "while writing it)", path, j->cut_line);
		if (ftruncate(j->trials_fd, j->cut) != 0 || fdatasync(j->trials_fd) != 0) {
			*err = xasprintf("cannot cut the incomplete last line off %s: %s",
			    path, strerror(errno));
			goto out;
		}
		j->size = j->cut;
		j->cut = -1;
	}
	/* the room for run.json's last write first: without it, nothing is
	 * taken up and run.json stays as it was */
	if (make_spare(j, j->dir, err) != 0)
		goto out;
	pthread_mutex_lock(&j->run_mu);
	j->pending = 0;
	rundir_json_resumed(j->run);
	if ((r = run_write(j, 0, err)) != 0) {
		/* run.json as it was: the run is not taken up */
		j->pending = 1;
		pthread_mutex_unlock(&j->run_mu);
		goto out;
	}
	pthread_mutex_unlock(&j->run_mu);
 out:
	free(path);
	return r;
}
