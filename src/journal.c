/*
 * journal.c: the run directory (see journal.h and docs/results.md).
 *
 * Three mutexes, never held together: run_mu guards run.json (the tree
 * and the file) and the per-host status and counts, trials_mu the
 * trials.jsonl descriptor and its size, log_mu the host log descriptors
 * and their partial lines.
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
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "plan.h"
#include "trialread.h"
#include "xmalloc.h"

#define DUMP_FLAGS	(JSON_COMPACT | JSON_REAL_PRECISION(15))

struct jhost {
	char			*name;
	enum journal_host_status status;
	size_t			 ok, failed;	/* trials appended (this session) */
	int			 logfd;		/* -1: not opened yet */
	char			*partial;	/* stderr line being assembled */
	size_t			 plen;
};

struct journal {
	char		*dir;
	char		*id;
	json_t		*run;		/* run.json */
	int		 trials_fd;
	off_t		 size;		/* of trials.jsonl */
	struct jhost	**hosts;
	size_t		 nhosts, hcap;
	char		*log_err;
	pthread_mutex_t	 run_mu, trials_mu, log_mu;
};

static const char *const status_names[] = {
	"running", "finished", "interrupted", "failed",
};

static const char *const host_status_names[] = {
	"pending", "connecting", "deploying", "running", "done", "failed", "interrupted",
};

const char *
journal_status_name(enum journal_status st)
{
	if ((unsigned)st >= sizeof(status_names) / sizeof(status_names[0]))
		return "unknown";
	return status_names[st];
}

const char *
journal_host_status_name(enum journal_host_status st)
{
	if ((unsigned)st >= sizeof(host_status_names) / sizeof(host_status_names[0]))
		return "unknown";
	return host_status_names[st];
}

/* --- Small helpers ---------------------------------------------------------- */

/* "2026-11-30T04:15:02Z", or with milliseconds "2026-11-30T04:15:02.123Z". */
static void
iso_time(char *buf, size_t size, const struct timeval *tv, int ms)
{
	struct tm tm;
	time_t t = tv->tv_sec;
	size_t n;

	gmtime_r(&t, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (ms)
		snprintf(buf + n, size - n, ".%03dZ", (int)(tv->tv_usec / 1000));
	else
		snprintf(buf + n, size - n, "Z");
}

static json_t *
iso_now(void)
{
	struct timeval tv;
	char b[40];

	gettimeofday(&tv, NULL);
	iso_time(b, sizeof(b), &tv, 0);
	return json_string(b);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A JSON string of s; bytes that are not UTF-8 become U+FFFD.  NULL: null. */
static json_t *
jstr(const char *s)
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
		if ((k = utf8_seq((const unsigned char *)s + i, n - i)) == 0) {
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

static void
set(json_t *o, const char *key, json_t *v)
{
	/* Keys are ours or the plan's; a key jansson refuses (not UTF-8) is
	 * made valid.  json_object_set() leaves v to us either way. */
	if (json_object_set(o, key, v) != 0) {
		json_t *k = jstr(key);

		json_object_set(o, json_string_value(k), v);
		json_decref(k);
	}
	json_decref(v);
}

static int
full_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
fsync_dir(const char *path)
{
	int fd, r;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	r = fsync(fd);
	close(fd);
	return r;
}

/*
 * Replace dir/name with data atomically: dir/.name.tmp written and synced,
 * renamed over dir/name, dir synced.
 */
static int
write_atomic(const char *dir, const char *name, const char *data, size_t len,
    char **err)
{
	char *tmp = xasprintf("%s/.%s.tmp", dir, name);
	char *path = xasprintf("%s/%s", dir, name);
	int fd = -1, r = -1;

	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		*err = xasprintf("cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (full_write(fd, data, len) != 0 || fsync(fd) != 0) {
		*err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		*err = xasprintf("cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		*err = xasprintf("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto out;
	}
	if (fsync_dir(dir) != 0) {
		*err = xasprintf("cannot sync %s: %s", dir, strerror(errno));
		goto out;
	}
	r = 0;
 out:
	if (fd >= 0)
		close(fd);
	if (r != 0)
		unlink(tmp);
	free(tmp);
	free(path);
	return r;
}

static int
write_json_atomic(const char *dir, const char *name, const json_t *o, char **err)
{
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	char *withnl;
	int r;

	if (text == NULL) {
		*err = xasprintf("cannot write %s/%s: out of memory", dir, name);
		return -1;
	}
	withnl = xasprintf("%s\n", text);
	free(text);
	r = write_atomic(dir, name, withnl, strlen(withnl), err);
	free(withnl);
	return r;
}

static int
mkdir_p(const char *path, char **err)
{
	char *p = xstrdup(path), *s;
	int r = 0;

	for (s = p + 1; ; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			*err = xasprintf("cannot create %s: %s", p, strerror(errno));
			r = -1;
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	if (r == 0) {
		struct stat st;

		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
			*err = xasprintf("%s is not a directory", path);
			r = -1;
		}
	}
	return r;
}

/* Host names become file names: the fleet's rule, checked again here. */
static int
valid_host(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > FLEET_NAME_MAX ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	    (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("-_.", s[i])))
			return 0;
	return 1;
}

/* The host named name (added when new); NULL for a name unfit for a file. */
static struct jhost *
host_get(struct journal *j, const char *name)
{
	size_t i;
	struct jhost *h;

	for (i = 0; i < j->nhosts; i++)
		if (strcmp(j->hosts[i]->name, name) == 0)
			return j->hosts[i];
	if (!valid_host(name))
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

static json_t *
strv_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, jstr(v[i]));
	return a;
}

static json_t *
params_json(size_t n, char *const *keys, char *const *vals)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < n; i++)
		set(o, keys[i], jstr(vals[i]));
	return o;
}

static json_t *
plan_json(const struct plan *p, unsigned long long seed)
{
	json_t *o = json_object(), *a, *v, *w;
	char num[32];
	size_t i, k;

	set(o, "name", jstr(p->name));
	set(o, "file", jstr(p->file));
	set(o, "description", jstr(p->description));
	set(o, "repeat", json_integer(p->repeat));
	set(o, "samples", json_integer(p->samples));
	set(o, "order", jstr(plan_order_name(p->order)));
	snprintf(num, sizeof(num), "%llu", seed);
	set(o, "seed", json_string(num));
	set(o, "timeout", json_real((double)p->timeout_ms / 1000.0));
	set(o, "trials_per_host", json_integer((json_int_t)(p->nvariants * p->npoints *
	    (size_t)p->repeat)));
	a = json_array();
	for (i = 0; i < p->nvariants; i++) {
		const struct plan_variant *pv = &p->variants[i];

		v = json_object();
		set(v, "name", jstr(pv->name));
		w = json_object();
		for (k = 0; k < pv->nwrites; k++)
			set(w, pv->writes[k].path, jstr(pv->writes[k].value));
		set(v, "write", w);
		set(v, "setup", strv_json(pv->setup, pv->nsetup));
		set(v, "teardown", strv_json(pv->teardown, pv->nteardown));
		json_array_append_new(a, v);
	}
	set(o, "variants", a);
	a = json_array();
	for (i = 0; i < p->npoints; i++) {
		const struct plan_point *pt = &p->points[i];

		v = json_object();
		set(v, "id", jstr(pt->id));
		set(v, "bench", jstr(pt->bench));
		set(v, "suite", jstr(pt->suite));
		set(v, "params", params_json(pt->nparams, pt->keys, pt->vals));
		set(v, "label", jstr(pt->label));
		set(v, "profile", pt->profile == PLAN_PROFILE_PERF ? json_string("perf") :
		    json_null());
		json_array_append_new(a, v);
	}
	set(o, "points", a);
	if (p->has_regression) {
		v = json_object();
		set(v, "threshold", json_real(p->threshold));
		set(v, "metrics", strv_json(p->metrics, p->nmetrics));
		set(o, "regression", v);
	} else
		set(o, "regression", json_null());
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

	set(o, "file", jstr(f->file));
	for (i = 0; i < f->nhosts; i++) {
		const struct fleet_host *fh = &f->hosts[i];

		if (sel != NULL && !sel[i])
			continue;
		h = json_object();
		set(h, "name", jstr(fh->name));
		set(h, "transport", jstr(fleet_transport_name(fh->transport)));
		set(h, "address", jstr(fh->address));
		set(h, "user", jstr(fh->user));
		set(h, "port", fh->port ? json_integer(fh->port) : json_null());
		set(h, "identity", jstr(fh->identity));
		set(h, "known_hosts", jstr(fh->known_hosts));
		set(h, "host_key_check", jstr(fleet_hostkey_name(fh->host_key_check)));
		set(h, "connect_timeout", json_real((double)fh->connect_timeout_ms / 1000.0));
		set(h, "workdir", jstr(fh->workdir));
		set(h, "ssh_config", fh->ssh_config ? jstr(fh->ssh_config_path) : json_false());
		set(h, "proxy_jump", jstr(fh->proxy_jump));
		set(h, "agent", jstr(fleet_agent_name(fh->agent)));
		set(h, "labels", strv_json(fh->labels, fh->nlabels));
		json_array_append_new(a, h);
	}
	set(o, "hosts", a);
	return o;
}

/* run.json's entry for h, created when missing; run_mu held. */
static json_t *
host_entry(struct journal *j, const struct jhost *h)
{
	json_t *hosts = json_object_get(j->run, "hosts"), *e;

	if (!json_is_object(hosts)) {
		hosts = json_object();
		set(j->run, "hosts", hosts);
	}
	if ((e = json_object_get(hosts, h->name)) == NULL || !json_is_object(e)) {
		e = json_object();
		set(e, "status", json_string(journal_host_status_name(h->status)));
		set(e, "reason", json_null());
		set(e, "agent", json_null());
		set(e, "arch", json_null());
		set(e, "kernel", json_null());
		set(e, "ok", json_integer(0));
		set(e, "failed", json_integer(0));
		set(hosts, h->name, e);
	}
	return e;
}

/* Counts into run.json and rewrite it; run_mu held. */
static int
run_write(struct journal *j, char **err)
{
	size_t i;

	for (i = 0; i < j->nhosts; i++) {
		json_t *e = host_entry(j, j->hosts[i]);

		set(e, "ok", json_integer((json_int_t)j->hosts[i]->ok));
		set(e, "failed", json_integer((json_int_t)j->hosts[i]->failed));
	}
	return write_json_atomic(j->dir, JOURNAL_RUN_JSON, j->run, err);
}

static struct journal *
journal_alloc(void)
{
	struct journal *j = xcalloc(1, sizeof(*j));

	j->trials_fd = -1;
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

static void
remove_built(const char *tmp)
{
	char *p;

	p = xasprintf("%s/%s", tmp, JOURNAL_RUN_JSON);
	unlink(p);
	free(p);
	p = xasprintf("%s/.%s.tmp", tmp, JOURNAL_RUN_JSON);
	unlink(p);
	free(p);
	p = xasprintf("%s/%s", tmp, JOURNAL_TRIALS);
	unlink(p);
	free(p);
	p = xasprintf("%s/%s", tmp, JOURNAL_HOSTS_DIR);
	rmdir(p);
	free(p);
	p = xasprintf("%s/%s", tmp, JOURNAL_LOGS_DIR);
	rmdir(p);
	free(p);
	rmdir(tmp);
}

/* Open trials.jsonl for appending, and lock the run directory with it. */
static int
open_trials(struct journal *j, int create, char **err)
{
	char *path = xasprintf("%s/%s", j->dir, JOURNAL_TRIALS);
	struct stat st;
	int fd, r = -1;

	fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
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
	char *tmp = NULL, *p = NULL, *id = NULL, *final = NULL, host[256];
	json_t *run = NULL, *c;
	struct timeval tv;
	size_t i, attempt;
	int fd, r = -1;

	*out = NULL;
	if (info->results == NULL || info->plan == NULL || info->fleet == NULL) {
		*err = xstrdup("journal_create: results, plan and fleet are needed");
		return -1;
	}
	if (mkdir_p(info->results, err) != 0)
		return -1;
	tmp = xasprintf("%s/.fleetmark-run-XXXXXX", info->results);
	if (mkdtemp(tmp) == NULL) {
		*err = xasprintf("cannot create a directory in %s: %s", info->results,
		    strerror(errno));
		free(tmp);
		return -1;
	}
	p = xasprintf("%s/%s", tmp, JOURNAL_HOSTS_DIR);
	if (mkdir(p, 0755) != 0) {
		*err = xasprintf("cannot create %s: %s", p, strerror(errno));
		goto out;
	}
	free(p);
	p = xasprintf("%s/%s", tmp, JOURNAL_LOGS_DIR);
	if (mkdir(p, 0755) != 0) {
		*err = xasprintf("cannot create %s: %s", p, strerror(errno));
		goto out;
	}
	free(p);
	p = xasprintf("%s/%s", tmp, JOURNAL_TRIALS);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
		*err = xasprintf("cannot create %s: %s", p, strerror(errno));
		goto out;
	}
	close(fd);

	j = journal_alloc();
	id = info->run_id ? xstrdup(info->run_id) :
	    journal_new_run_id(info->plan->name, info->start ? info->start : time(NULL));
	run = json_object();
	set(run, "format", json_integer(JOURNAL_FORMAT));
	set(run, "run", jstr(id));
	set(run, "status", json_string(journal_status_name(JOURNAL_RUNNING)));
	set(run, "label", jstr(info->label));
	tv.tv_sec = info->start ? info->start : time(NULL);
	tv.tv_usec = 0;
	iso_time(host, sizeof(host), &tv, 0);
	set(run, "start", json_string(host));
	set(run, "end", json_null());
	set(run, "resumed", json_array());
	c = json_object();
	set(c, "version", jstr(info->controller));
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		set(c, "host", jstr(host));
	} else
		set(c, "host", json_null());
	set(run, "controller", c);
	set(run, "plan", plan_json(info->plan, info->seed));
	set(run, "fleet", fleet_json(info->fleet, info->sel));
	set(run, "hosts", json_object());
	j->run = run;
	run = NULL;
	j->dir = tmp;		/* while it is built */
	for (i = 0; i < info->fleet->nhosts; i++) {
		struct jhost *h;

		if (info->sel != NULL && !info->sel[i])
			continue;
		if ((h = host_get(j, info->fleet->hosts[i].name)) == NULL) {
			*err = xasprintf("bad host name '%s'", info->fleet->hosts[i].name);
			goto out;
		}
		host_entry(j, h);
	}

	for (attempt = 0; ; attempt++) {
		set(j->run, "run", jstr(id));
		if (run_write(j, err) != 0)
			goto out;
		if (fsync_dir(tmp) != 0) {
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
	if (fsync_dir(info->results) != 0) {
		*err = xasprintf("cannot sync %s: %s", info->results, strerror(errno));
		goto out;
	}
	j->id = id;
	id = NULL;
	if (open_trials(j, 0, err) != 0)
		goto out;
	*out = j;
	j = NULL;
	r = 0;
 out:
	if (tmp != NULL) {
		remove_built(tmp);
		if (j != NULL && j->dir == tmp)
			j->dir = NULL;
		free(tmp);
	}
	json_decref(run);
	journal_free(j);
	free(p);
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
journal_host_status(struct journal *j, const char *host, enum journal_host_status st,
    const char *reason, char **err)
{
	struct jhost *h;
	json_t *e;
	int r;

	pthread_mutex_lock(&j->run_mu);
	if ((h = host_get(j, host)) == NULL) {
		pthread_mutex_unlock(&j->run_mu);
		*err = xasprintf("bad host name '%.64s'", host);
		return -1;
	}
	h->status = st;
	e = host_entry(j, h);
	set(e, "status", json_string(journal_host_status_name(st)));
	set(e, "reason", jstr(reason));
	r = run_write(j, err);
	pthread_mutex_unlock(&j->run_mu);
	return r;
}

int
journal_host_env(struct journal *j, const char *host, const json_t *env, char **err)
{
	struct jhost *h;
	json_t *copy, *e, *u;
	char *dir, *name;
	int r;

	if (!json_is_object(env)) {
		*err = xasprintf("%s: the env facts are not an object", host);
		return -1;
	}
	pthread_mutex_lock(&j->run_mu);
	if ((h = host_get(j, host)) == NULL) {
		pthread_mutex_unlock(&j->run_mu);
		*err = xasprintf("bad host name '%.64s'", host);
		return -1;
	}
	copy = json_deep_copy(env);
	json_object_del(copy, "type");
	json_object_del(copy, "id");
	dir = xasprintf("%s/%s", j->dir, JOURNAL_HOSTS_DIR);
	name = xasprintf("%s.json", h->name);
	r = write_json_atomic(dir, name, copy, err);
	free(dir);
	free(name);
	if (r == 0) {
		e = host_entry(j, h);
		u = json_object_get(copy, "agent");
		set(e, "agent", json_is_string(u) ? json_incref(u) : json_null());
		u = json_object_get(copy, "arch");
		set(e, "arch", json_is_string(u) ? json_incref(u) : json_null());
		u = json_object_get(json_object_get(copy, "uname"), "release");
		set(e, "kernel", json_is_string(u) ? json_incref(u) : json_null());
		r = run_write(j, err);
	}
	json_decref(copy);
	pthread_mutex_unlock(&j->run_mu);
	return r;
}

int
journal_finish(struct journal *j, enum journal_status st, char **err)
{
	int r;

	pthread_mutex_lock(&j->run_mu);
	set(j->run, "status", json_string(journal_status_name(st)));
	set(j->run, "end", st == JOURNAL_RUNNING ? json_null() : iso_now());
	r = run_write(j, err);
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
	set(o, "profiler", jstr(p->profiler));
	if (p->absent != NULL) {
		set(o, "absent", jstr(p->absent));
		return o;
	}
	set(o, "event", jstr(p->event));
	set(o, "samples", json_integer(p->samples));
	a = json_array();
	for (i = 0; i < p->ntop; i++)
		json_array_append_new(a, json_pack("{s:o, s:I, s:f}", "sym",
		    jstr(p->top[i].sym), "hits", (json_int_t)p->top[i].hits, "pct",
		    p->top[i].pct));
	set(o, "top", a);
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
			set(o, k, json_string(num));
		} else if (json_is_string(v))
			set(o, k, json_incref(v));
	}
	return o;
}

/* One trial line, appended with its newline to *buf. */
static void
add_line(char **buf, size_t *len, size_t *cap, const struct journal *j,
    const struct journal_trial *t, const struct ap_point *pt,
    const struct ap_metric *m, size_t part, size_t parts)
{
	const struct ap_result *r = t->result;
	enum ap_status st = r ? r->status : t->status;
	const char *msg = r ? r->message : t->message;
	double duration = t->duration;
	json_t *o = json_object(), *a;
	size_t i, n;
	char *text;

	set(o, "format", json_integer(JOURNAL_FORMAT));
	set(o, "run", jstr(j->id));
	set(o, "host", jstr(t->host));
	set(o, "variant", jstr(t->variant));
	if (pt != NULL && t->bench != NULL && strcmp(pt->bench, t->bench) != 0) {
		/* A suite run as one trial: the line is about its member. */
		set(o, "bench", jstr(pt->bench));
		set(o, "suite", jstr(t->bench));
		set(o, "params", params_as_text(pt->params));
	} else {
		set(o, "bench", jstr(t->bench));
		set(o, "params", params_json(t->nparams, t->keys, t->vals));
	}
	set(o, "rep", json_integer(t->rep));
	set(o, "key", jstr(t->key));
	set(o, "metric", m ? jstr(m->name) : json_null());
	set(o, "unit", m ? jstr(m->unit) : json_null());
	set(o, "direction", m ? json_string(m->higher_better ? WIRE_HIGHER_BETTER :
	    WIRE_LOWER_BETTER) : json_null());
	set(o, "value", m ? json_real(m->value) : json_null());
	a = json_array();
	for (i = 0; m && i < m->nsamples; i++)
		json_array_append_new(a, json_real(m->samples[i]));
	set(o, "samples", a);
	if (m && m->iterations > 0)
		set(o, "iterations", json_integer(m->iterations));
	/* A copy: the result is the caller's, and its reference count is not
	 * ours to touch from this thread. */
	if (pt != NULL && pt->params != NULL)
		set(o, "resolved", json_deep_copy(pt->params));
	set(o, "start", json_real(t->start));
	if (duration < 0 && r != NULL)
		duration = r->duration;
	set(o, "duration", duration >= 0 ? json_real(duration) : json_null());
	set(o, "status", json_string(ap_status_name(st)));
	set(o, "kind", json_string(ap_kind_name(ap_status_kind(st))));
	if (pt != NULL && pt->message != NULL)
		msg = pt->message;
	if (msg != NULL)
		set(o, "message", jstr(msg));
	if (r != NULL && r->nnotes > 0)
		set(o, "notes", strv_json(r->notes, r->nnotes));
	if (part == 1 && (a = profile_json(t, st)) != NULL)
		set(o, "profile", a);
	set(o, "part", json_integer((json_int_t)part));
	set(o, "parts", json_integer((json_int_t)parts));

	text = json_dumps(o, DUMP_FLAGS);
	json_decref(o);
	if (text == NULL)
		return;
	n = strlen(text);
	xgrow(buf, cap, *len + n + 2, 1);
	memcpy(*buf + *len, text, n);
	(*buf)[*len + n] = '\n';
	*len += n + 1;
	free(text);
}

int
journal_append(struct journal *j, const struct journal_trial *t, char **err)
{
	const struct ap_result *r = t->result;
	char *buf = NULL;
	size_t len = 0, cap = 0, parts = 0, part = 0, i, k;
	enum ap_status st = r ? r->status : t->status;
	struct jhost *h;
	int saved, ret = -1;

	if (t->host == NULL || t->bench == NULL || t->key == NULL) {
		*err = xstrdup("journal_append: host, bench and key are needed");
		return -1;
	}
	if (!valid_host(t->host)) {
		*err = xasprintf("bad host name '%.64s'", t->host);
		return -1;
	}
	/* Lines: one per metric of each point, one for a point without any. */
	for (i = 0; r != NULL && i < r->npoints; i++)
		parts += r->points[i].nmetrics ? r->points[i].nmetrics : 1;
	if (parts == 0) {
		add_line(&buf, &len, &cap, j, t, NULL, NULL, 1, 1);
	} else {
		for (i = 0; i < r->npoints; i++) {
			const struct ap_point *pt = &r->points[i];

			if (pt->nmetrics == 0)
				add_line(&buf, &len, &cap, j, t, pt, NULL, ++part, parts);
			for (k = 0; k < pt->nmetrics; k++)
				add_line(&buf, &len, &cap, j, t, pt, &pt->metrics[k], ++part,
				    parts);
		}
	}
	if (buf == NULL) {
		*err = xstrdup("cannot format a trial line: out of memory");
		return -1;
	}

	pthread_mutex_lock(&j->trials_mu);
	if (full_write(j->trials_fd, buf, len) != 0) {
		saved = errno;
		/* Cut back what went out, so the next line starts clean. */
		if (ftruncate(j->trials_fd, j->size) != 0)
			*err = xasprintf("cannot write %s/%s: %s (and cannot cut off the "
			    "partial line: %s)", j->dir, JOURNAL_TRIALS, strerror(saved),
			    strerror(errno));
		else
			*err = xasprintf("cannot write %s/%s: %s", j->dir, JOURNAL_TRIALS,
			    strerror(saved));
		pthread_mutex_unlock(&j->trials_mu);
		goto out;
	}
	j->size += (off_t)len;
	pthread_mutex_unlock(&j->trials_mu);
	/*
	 * Sync outside the lock: host threads finishing trials at the same
	 * time share the disk's flushes instead of queueing one flush each
	 * behind the lock.  The line is
	 * whole in the file already; the sync makes it survive a power cut.
	 */
	if (fdatasync(j->trials_fd) != 0) {
		*err = xasprintf("cannot sync %s/%s: %s", j->dir, JOURNAL_TRIALS,
		    strerror(errno));
		goto out;
	}

	pthread_mutex_lock(&j->run_mu);
	if ((h = host_get(j, t->host)) != NULL) {
		if (st == AP_ST_OK)
			h->ok++;
		else
			h->failed++;
	}
	pthread_mutex_unlock(&j->run_mu);
	ret = 0;
 out:
	free(buf);
	return ret;
}

/* --- Host logs --------------------------------------------------------------- */

/* Append s (n bytes) to *out for a log: controls and non-UTF-8 as \xNN. */
static void
log_escape(char **out, size_t *len, size_t *cap, const char *s, size_t n)
{
	size_t i, k;

	xgrow(out, cap, *len + n * 4 + 2, 1);
	for (i = 0; i < n; i += k) {
		const unsigned char *u = (const unsigned char *)s + i;

		k = utf8_seq(u, n - i);
		/* C0 and C1 controls (except tab), DEL, and broken sequences */
		if (k == 0 || (k == 1 && ((u[0] < 0x20 && u[0] != '\t') || u[0] == 0x7f)) ||
		    (k == 2 && u[0] == 0xc2 && u[1] < 0xa0)) {
			*len += (size_t)snprintf(*out + *len, 5, "\\x%02x", u[0]);
			k = 1;
		} else {
			memcpy(*out + *len, s + i, k);
			*len += k;
		}
	}
	(*out)[*len] = '\0';
}

/* Write one log line for h; log_mu held. */
static int
log_line(struct journal *j, struct jhost *h, const char *tag, const char *text, size_t n)
{
	struct timeval tv;
	char ts[40], *line = NULL, *path;
	size_t len = 0, cap = 0;
	int r = 0;

	if (h->logfd < 0) {
		path = xasprintf("%s/%s/%s.log", j->dir, JOURNAL_LOGS_DIR, h->name);
		h->logfd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (h->logfd < 0) {
			if (j->log_err == NULL)
				j->log_err = xasprintf("cannot open %s: %s", path,
				    strerror(errno));
			free(path);
			return -1;
		}
		free(path);
	}
	gettimeofday(&tv, NULL);
	iso_time(ts, sizeof(ts), &tv, 1);
	xgrow(&line, &cap, strlen(ts) + strlen(tag) + 4, 1);
	len = (size_t)snprintf(line, cap, "%s %s", ts, tag);
	log_escape(&line, &len, &cap, text, n);
	xgrow(&line, &cap, len + 2, 1);
	line[len++] = '\n';
	if (full_write(h->logfd, line, len) != 0) {
		if (j->log_err == NULL)
			j->log_err = xasprintf("cannot write %s/%s/%s.log: %s", j->dir,
			    JOURNAL_LOGS_DIR, h->name, strerror(errno));
		r = -1;
	}
	free(line);
	return r;
}

int
journal_log(struct journal *j, const char *host, const char *fmt, ...)
{
	struct jhost *h;
	char *text;
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	pthread_mutex_lock(&j->log_mu);
	pthread_mutex_lock(&j->run_mu);
	h = host_get(j, host);
	pthread_mutex_unlock(&j->run_mu);
	r = h ? log_line(j, h, "", text, (size_t)n) : -1;
	pthread_mutex_unlock(&j->log_mu);
	free(text);
	return r;
}

int
journal_log_output(struct journal *j, const char *host, const void *buf, size_t len)
{
	const char *p = buf;
	struct jhost *h;
	size_t i;
	int r = 0;

	pthread_mutex_lock(&j->log_mu);
	pthread_mutex_lock(&j->run_mu);
	h = host_get(j, host);
	pthread_mutex_unlock(&j->run_mu);
	if (h == NULL) {
		pthread_mutex_unlock(&j->log_mu);
		return -1;
	}
	if (h->partial == NULL)
		h->partial = xmalloc(JOURNAL_LOG_LINE);
	for (i = 0; i < len; i++) {
		if (p[i] == '\n') {
			size_t n = h->plen;

			if (n > 0 && h->partial[n - 1] == '\r')
				n--;
			if (log_line(j, h, "stderr: ", h->partial, n) != 0)
				r = -1;
			h->plen = 0;
			continue;
		}
		h->partial[h->plen++] = p[i];
		if (h->plen == JOURNAL_LOG_LINE) {
			if (log_line(j, h, "stderr: ", h->partial, h->plen) != 0)
				r = -1;
			h->plen = 0;
		}
	}
	pthread_mutex_unlock(&j->log_mu);
	return r;
}

/* log_mu held. */
static int
log_flush(struct journal *j, struct jhost *h)
{
	int r = 0;

	if (h->plen > 0)
		r = log_line(j, h, "stderr: ", h->partial, h->plen);
	h->plen = 0;
	return r;
}

/* --- Old contents to restore (restore/HOST) ------------------------------------ */

static char *
hex_encode(const char *s)
{
	size_t i, n = strlen(s);
	char *h = xmalloc(2 * n + 1);

	for (i = 0; i < n; i++)
		snprintf(h + 2 * i, 3, "%02x", (unsigned char)s[i]);
	h[2 * n] = '\0';
	return h;
}

/* The string of hex digits h..h+len, or NULL when they are not that. */
static char *
hex_decode(const char *h, size_t len)
{
	char *s, digits[3] = { 0, 0, 0 };
	size_t i;

	if (len % 2 != 0 || strspn(h, "0123456789abcdef") < len)
		return NULL;
	s = xmalloc(len / 2 + 1);
	for (i = 0; i < len / 2; i++) {
		memcpy(digits, h + 2 * i, 2);
		s[i] = (char)strtoul(digits, NULL, 16);
		if (s[i] == '\0') {
			free(s);
			return NULL;
		}
	}
	s[len / 2] = '\0';
	return s;
}

int
journal_restore_list(struct journal *j, const char *host, char ***paths, char ***olds,
    size_t *n, char **err)
{
	char *file = xasprintf("%s/" JOURNAL_RESTORE_DIR "/%s", j->dir, host);
	char *line = NULL, *sp, *p, *o;
	size_t cap = 0, i;
	ssize_t len;
	FILE *f;
	int r = 0;

	*paths = *olds = NULL;
	*n = 0;
	if (!valid_host(host)) {
		*err = xasprintf("bad host name '%.64s'", host);
		free(file);
		return -1;
	}
	if ((f = fopen(file, "re")) == NULL) {
		if (errno != ENOENT) {
			*err = xasprintf("cannot read %s: %s", file, strerror(errno));
			r = -1;
		}
		free(file);
		return r;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] != '\n')
			break;	/* cut by a crash while it was written: never acted on */
		line[--len] = '\0';
		p = o = NULL;
		if ((sp = strchr(line, ' ')) == NULL ||
		    (p = hex_decode(line, (size_t)(sp - line))) == NULL ||
		    (o = hex_decode(sp + 1, strlen(sp + 1))) == NULL) {
			free(p);
			*err = xasprintf("%s: line %zu is damaged", file, *n + 1);
			r = -1;
			break;
		}
		for (i = 0; i < *n && strcmp((*paths)[i], p) != 0; i++)
			;
		if (i < *n) {
			free(p);
			free(o);
			continue;
		}
		*paths = xreallocarray(*paths, *n + 1, sizeof(**paths));
		*olds = xreallocarray(*olds, *n + 1, sizeof(**olds));
		(*paths)[*n] = p;
		(*olds)[*n] = o;
		(*n)++;
	}
	if (r == 0 && ferror(f)) {
		*err = xasprintf("cannot read %s: %s", file, strerror(errno));
		r = -1;
	}
	if (r != 0) {
		for (i = 0; i < *n; i++) {
			free((*paths)[i]);
			free((*olds)[i]);
		}
		free(*paths);
		free(*olds);
		*paths = *olds = NULL;
		*n = 0;
	}
	free(line);
	fclose(f);
	free(file);
	return r;
}

int
journal_restore_save(struct journal *j, const char *host, const char *path,
    const char *old, char **err)
{
	char *dir = xasprintf("%s/" JOURNAL_RESTORE_DIR, j->dir);
	char *file = xasprintf("%s/%s", dir, host), *hp, *ho, *line = NULL;
	int fd = -1, r = -1, created = 0, tries;

	if (!valid_host(host)) {
		*err = xasprintf("bad host name '%.64s'", host);
		goto out;
	}
	/* Another host's thread may remove restore/ when its file was the
	 * last one (journal_restore_clear()): make it again then. */
	for (tries = 0; fd < 0 && tries < 5; tries++) {
		if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
			*err = xasprintf("cannot create %s: %s", dir, strerror(errno));
			goto out;
		}
		if ((fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0 && errno == ENOENT) {
			fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
			created = 1;
		}
		if (fd < 0 && errno != ENOENT)
			break;
	}
	if (fd < 0) {
		*err = xasprintf("cannot create %s: %s", file, strerror(errno));
		goto out;
	}
	hp = hex_encode(path);
	ho = hex_encode(old);
	line = xasprintf("%s %s\n", hp, ho);
	free(hp);
	free(ho);
	if (full_write(fd, line, strlen(line)) != 0 || fsync(fd) != 0 ||
	    (created && fsync_dir(dir) != 0)) {
		*err = xasprintf("cannot write %s: %s", file, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(line);
	free(file);
	free(dir);
	return r;
}

int
journal_restore_clear(struct journal *j, const char *host, char **err)
{
	char *dir = xasprintf("%s/" JOURNAL_RESTORE_DIR, j->dir);
	char *file = xasprintf("%s/%s", dir, host);
	int r = 0;

	if (!valid_host(host)) {
		*err = xasprintf("bad host name '%.64s'", host);
		r = -1;
	} else if (unlink(file) == 0) {
		(void)rmdir(dir);	/* when it was the last host's */
		(void)fsync_dir(j->dir);
	} else if (errno != ENOENT) {
		*err = xasprintf("cannot remove %s: %s", file, strerror(errno));
		r = -1;
	}
	free(file);
	free(dir);
	return r;
}

int
journal_log_flush(struct journal *j, const char *host)
{
	struct jhost *h;
	int r;

	pthread_mutex_lock(&j->log_mu);
	pthread_mutex_lock(&j->run_mu);
	h = host_get(j, host);
	pthread_mutex_unlock(&j->run_mu);
	r = h ? log_flush(j, h) : -1;
	pthread_mutex_unlock(&j->log_mu);
	return r;
}

const char *
journal_log_error(const struct journal *j)
{
	return j->log_err;
}

void
journal_free(struct journal *j)
{
	size_t i;

	if (j == NULL)
		return;
	for (i = 0; i < j->nhosts; i++) {
		if (j->dir != NULL)
			log_flush(j, j->hosts[i]);
		if (j->hosts[i]->logfd >= 0)
			close(j->hosts[i]->logfd);
		free(j->hosts[i]->partial);
		free(j->hosts[i]->name);
		free(j->hosts[i]);
	}
	free(j->hosts);
	if (j->trials_fd >= 0)
		close(j->trials_fd);	/* and the lock goes with it */
	json_decref(j->run);
	pthread_mutex_destroy(&j->run_mu);
	pthread_mutex_destroy(&j->trials_mu);
	pthread_mutex_destroy(&j->log_mu);
	free(j->log_err);
	free(j->dir);
	free(j->id);
	free(j);
}

/* --- Resuming ---------------------------------------------------------------- */

static json_t *
read_run_json(const char *dir, char **err)
{
	char *path = xasprintf("%s/%s", dir, JOURNAL_RUN_JSON);
	json_error_t jerr;
	json_t *o = NULL, *v;
	struct stat st;
	FILE *f;

	if ((f = fopen(path, "re")) == NULL) {
		*err = errno == ENOENT ?
		    xasprintf("%s is not a run directory (no %s)", dir, JOURNAL_RUN_JSON) :
		    xasprintf("cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fileno(f), &st) == 0 && st.st_size > JOURNAL_MAX_RUN_JSON) {
		*err = xasprintf("%s: larger than %d bytes", path, JOURNAL_MAX_RUN_JSON);
		fclose(f);
		goto out;
	}
	o = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (o == NULL) {
		*err = xasprintf("%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		goto out;
	}
	v = json_object_get(o, "format");
	if (!json_is_object(o) || !json_is_integer(v)) {
		*err = xasprintf("%s: not a fleetmark run (no \"format\")", path);
		goto bad;
	}
	if (json_integer_value(v) != JOURNAL_FORMAT) {
		*err = xasprintf("%s: format %lld, this fleetmark reads format %d", path,
		    (long long)json_integer_value(v), JOURNAL_FORMAT);
		goto bad;
	}
	if (!json_is_string(json_object_get(o, "run"))) {
		*err = xasprintf("%s: no run id", path);
		goto bad;
	}
	goto out;
 bad:
	json_decref(o);
	o = NULL;
 out:
	free(path);
	return o;
}

int
journal_resume(const char *rundir, struct journal **out, struct trial_done **donep,
    char **err)
{
	struct journal *j = NULL;
	struct trial_done *d = NULL;
	struct trial_scan sc;
	char *path = NULL, *p;
	json_t *hosts, *e, *resumed;
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
	if ((j->run = read_run_json(j->dir, err)) == NULL)
		goto out;
	j->id = xstrdup(json_string_value(json_object_get(j->run, "run")));
	p = xasprintf("%s/%s", j->dir, JOURNAL_HOSTS_DIR);
	if (mkdir_p(p, err) != 0) {
		free(p);
		goto out;
	}
	free(p);
	p = xasprintf("%s/%s", j->dir, JOURNAL_LOGS_DIR);
	if (mkdir_p(p, err) != 0) {
		free(p);
		goto out;
	}
	free(p);
	if (open_trials(j, 1, err) != 0)
		goto out;
	path = xasprintf("%s/%s", j->dir, JOURNAL_TRIALS);
	if (trial_done_read_fd(j->trials_fd, path, &d, &sc, err) != 0)
		goto out;
	if (sc.truncated) {
		/* A crash while it was written: nothing of it can be trusted, and a
		 * line appended after it would be glued to it. */
		log_warn("%s:%zu: dropped an incomplete last line (the run was killed "
		    "while writing it)", path, sc.lines + 1);
		if (ftruncate(j->trials_fd, sc.good_size) != 0 ||
		    fdatasync(j->trials_fd) != 0) {
			*err = xasprintf("cannot cut the incomplete last line off %s: %s",
			    path, strerror(errno));
			goto out;
		}
	}
	if (sc.corrupt > 0)
		log_warn("%s:%zu: skipped %zu corrupt line%s", path, sc.first_corrupt,
		    sc.corrupt, sc.corrupt == 1 ? "" : "s");
	j->size = sc.good_size;

	hosts = json_object_get(j->run, "hosts");
	json_object_foreach(hosts, name, e) {
		struct jhost *h = host_get(j, name);

		if (h != NULL)
			h->ok = trial_done_count(d, name);
	}
	set(j->run, "status", json_string(journal_status_name(JOURNAL_RUNNING)));
	set(j->run, "end", json_null());
	resumed = json_object_get(j->run, "resumed");
	if (!json_is_array(resumed)) {
		resumed = json_array();
		set(j->run, "resumed", resumed);
	}
	json_array_append_new(resumed, iso_now());
	if (run_write(j, err) != 0)
		goto out;
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
