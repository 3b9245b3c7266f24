/*
 * cmd/ab.c: `fleetmark ab PLAN -H HOSTS -A SIDE -B SIDE [--boots N]
 * [--order abba|alternate|random] ...`: two kernels (sides A and B) on
 * the same hosts in alternating boots, judged with the boot as the unit
 * (docs/ab.md; the statistics are ab.h's).
 *
 * A side is a command run here through /bin/sh -c (boot.h) that makes
 * the host boot into that side; each boot is checked (the boot id
 * changed, the kernel contains what is expected) before the plan runs on
 * the host as a run of its own, DIR/boots/HOST-NN-SIDE/.  Each host has
 * its own sequence, in a child process of its own (the run machinery
 * keeps process-wide state: the stop flag, the log sink, the progress
 * display); ab.json records every boot's state, rewritten after each
 * boot under a lock, so that --resume goes on where the sequence stopped.
 * A resume takes nothing from ab.json that it would run: the sides are
 * given again and must be those recorded, and ab.json and its directory
 * must be the user's own, written by no one else (fs_check_owner()).
 * At the end the boots' trial values are judged per (host, metric,
 * point) row (ab_judge_rows()) and the table printed and kept in ab.txt.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ab.h"
#include "board.h"
#include "boot.h"
#include "catalog.h"
#include "cmd.h"
#include "fleet.h"
#include "fsutil.h"
#include "journal.h"
#include "log.h"
#include "numfmt.h"
#include "pace.h"
#include "plan.h"
#include "report.h"
#include "rgrid.h"
#include "run.h"
#include "rundir.h"
#include "series.h"
#include "session.h"
#include "strbuf.h"
#include "verdict.h"
#include "xmalloc.h"
#include "yamldoc.h"

#define AB_JSON			"ab.json"
#define AB_TXT			"ab.txt"
#define AB_BOOTS		"boots"
#define AB_LOCK			".ab.lock"	/* held while ab.json is rewritten */
#define AB_RUNLOCK		".ab.run"	/* held while a command runs the sequence */
#define AB_FORMAT		1
#define AB_MAX_JSON		(16 << 20)
#define AB_DIR_MODE		0755		/* whatever the umask: see state_load() */
#define DEFAULT_RESULTS		"results"
#define DEFAULT_BOOTS		2
#define DEFAULT_BOOT_MS		300000		/* a host without boot_timeout: */
#define MAX_BOOTS		99		/* boots a side (two digits a name) */

/* A boot's state in ab.json. */
#define ST_PENDING		"pending"
#define ST_RUNNING		"running"	/* under way: its side command ran */
#define ST_DONE			"done"
#define ST_FAILED		"failed"

struct ab_side_opt {
	const char	*cmd;
	const char	*label;
	const char	*expect;
};

struct ab_cmdopts {
	const char	*plan_file, *fleet_file, *host_spec, *outdir, *resume;
	struct ab_side_opt side[2];
	const char	*order_s;
	long long	 boots;
	double		 thr;		/* < 0: the plan's, else VERDICT_THRESHOLD */
	enum report_format fmt;
	int		 dry, quiet;
};

/* What a command works on: the plan, the fleet, the hosts and ab.json. */
struct ab_ctx {
	struct catalog	*cat;
	struct plan	*p;
	struct fleet	*f;
	char		*dir;		/* the ab directory */
	json_t		*state;		/* ab.json */
	const struct fleet_host **hosts;
	size_t		 nhosts;
	int		 runlock;	/* fd of AB_RUNLOCK, or -1 */
};

/* --- signals ------------------------------------------------------------------- */

static pid_t children[256];
static size_t nchildren;

static void
on_signal(int sig)
{
	size_t i;

	(void)sig;
	run_request_stop();
	/* The parent passes it on: each child stops its sequence cleanly. */
	for (i = 0; i < nchildren; i++)
		if (children[i] > 0)
			kill(children[i], SIGTERM);
}

/* --- ab.json ------------------------------------------------------------------- */

static const char *
side_name(enum ab_side s)
{
	return s == AB_A ? "A" : "B";
}

/* Whether o's sequences are what the code below reads without checking. */
static int
state_valid(const json_t *o)
{
	const json_t *seq, *b, *h, *sides = json_object_get(o, "sides");
	const char *host, *v;
	size_t i;

	if (!json_is_object(json_object_get(sides, "A")) ||
	    !json_is_object(json_object_get(sides, "B")) ||
	    !json_is_string(json_object_get(json_object_get(sides, "A"), "command")) ||
	    !json_is_string(json_object_get(json_object_get(sides, "B"), "command")) ||
	    !json_is_array(json_object_get(o, "hosts")))
		return 0;
	json_array_foreach(json_object_get(o, "hosts"), i, h)
		if (!json_is_array(json_object_get(json_object_get(o, "sequences"),
		    json_string_value(h) ? json_string_value(h) : "")))
			return 0;
	json_object_foreach((json_t *)json_object_get(o, "sequences"), host, seq) {
		if (!json_is_array(seq))
			return 0;
		json_array_foreach(seq, i, b) {
			if ((v = json_string_value(json_object_get(b, "side"))) == NULL ||
			    (strcmp(v, "A") != 0 && strcmp(v, "B") != 0) ||
			    !json_is_string(json_object_get(b, "state")) ||
			    !json_is_integer(json_object_get(b, "block")) ||
			    !json_is_integer(json_object_get(b, "boot")))
				return 0;
		}
	}
	return 1;
}

/*
 * Load dir's ab.json into *out.  What it says is acted on (its plan and
 * fleet are loaded, its sides compared with those given): the directory
 * and the file must be the user's and written by no one else, as the
 * directory is made (AB_DIR_MODE) and the file written (RUNDIR_FILE_MODE).
 */
static int
state_load(const char *dir, json_t **out, char **err)
{
	char *path = xasprintf("%s/%s", dir, AB_JSON), *why = NULL;
	struct stat st;
	json_error_t je;
	json_t *o = NULL;
	int fd = -1, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*err = errno == ENOENT ? xasprintf("%s is not an ab directory (no %s)", dir,
		    AB_JSON) : xasprintf("cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*err = xasprintf("%s: not a regular file", path);
		goto out;
	}
	if (fs_check_owner(path, &st, &why) != 0 || (stat(dir, &st) != 0 &&
	    (why = xasprintf("%s: %s", dir, strerror(errno))) != NULL) ||
	    fs_check_owner(dir, &st, &why) != 0) {
		*err = xasprintf("%s: not trusted: an ab.json others can change is not "
		    "acted on (chmod go-w)", why);
		goto out;
	}
	if ((o = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je)) == NULL) {
		*err = xasprintf("%s:%d:%d: %s", path, je.line, je.column, je.text);
		goto out;
	}
	if (!json_is_object(o) || json_integer_value(json_object_get(o, "format")) !=
	    AB_FORMAT || !json_is_object(json_object_get(o, "sequences")) ||
	    !json_is_object(json_object_get(o, "sides")) || !state_valid(o)) {
		*err = xasprintf("%s: not an ab.json of format %d", path, AB_FORMAT);
		goto out;
	}
	*out = o;
	o = NULL;
	r = 0;
 out:
	if (fd >= 0)
		close(fd);
	json_decref(o);
	free(why);
	free(path);
	return r;
}

static int
state_write(const char *dir, const json_t *o, char **err)
{
	char *path = xasprintf("%s/%s", dir, AB_JSON);
	int r = rundir_write_json(path, o, err);

	free(path);
	return r;
}

/*
 * Set boot idx of host in dir's ab.json to state (run, class, reason and
 * the boot's id, kernel and command line when not NULL), under the lock that keeps the hosts' children from writing
 * at once: the file is read again, changed in that one entry, replaced.
 */
static int
state_set(const char *dir, const char *host, size_t idx, const char *state,
    const char *run, const char *class, const char *reason, const struct board_boot *bb,
    char **err)
{
	char *lock = xasprintf("%s/%s", dir, AB_LOCK);
	json_t *o = NULL, *b;
	int fd, r = -1;

	if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 ||
	    flock(fd, LOCK_EX) != 0) {
		*err = xasprintf("cannot lock %s: %s", lock, strerror(errno));
		goto out;
	}
	if (state_load(dir, &o, err) != 0)
		goto out;
	b = json_array_get(json_object_get(json_object_get(o, "sequences"), host), idx);
	if (b == NULL) {
		*err = xasprintf("%s/%s: no boot %zu of %s", dir, AB_JSON, idx + 1, host);
		goto out;
	}
	json_object_set_new(b, "state", json_string(state));
	if (run != NULL)
		json_object_set_new(b, "run", rundir_json_str(run));
	else
		json_object_del(b, "run");
	if (class != NULL)
		json_object_set_new(b, "class", json_string(class));
	else
		json_object_del(b, "class");
	if (reason != NULL)
		json_object_set_new(b, "reason", rundir_json_str(reason));
	else
		json_object_del(b, "reason");
	/* What the boot measured ran on: the boot check's facts. */
	if (bb != NULL) {
		json_object_set_new(b, "boot_id", rundir_json_str(bb->boot_id));
		json_object_set_new(b, "kernel", rundir_json_str(bb->release));
		json_object_set_new(b, "cmdline", rundir_json_str(bb->cmdline));
	} else {
		json_object_del(b, "boot_id");
		json_object_del(b, "kernel");
		json_object_del(b, "cmdline");
	}
	r = state_write(dir, o, err);
 out:
	if (fd >= 0)
		close(fd);
	json_decref(o);
	free(lock);
	return r;
}

static const char *
jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* --- one boot ------------------------------------------------------------------ */

/* DIR/boots/HOST-NN-SIDE's name under boots/. */
static char *
boot_run_id(const char *host, size_t idx, enum ab_side s)
{
	return xasprintf("%s-%02zu-%s", host, idx + 1, side_name(s));
}

/* Rename a partial run directory of a boot under way aside, never reused. */
static int
set_aside(const char *path, char **err)
{
	char *to = NULL;
	int i, r = -1;

	for (i = 0; i < 100; i++) {
		free(to);
		to = i == 0 ? xasprintf("%s.interrupted", path) :
		    xasprintf("%s.interrupted.%d", path, i);
		if (access(to, F_OK) != 0)
			break;
	}
	if (rename(path, to) != 0) {
		*err = xasprintf("cannot rename %s to %s: %s", path, to, strerror(errno));
		goto out;
	}
	log_warn("%s: a boot under way when it stopped: set aside as %s", path, to);
	r = 0;
 out:
	free(to);
	return r;
}

/* What one host's child is given. */
struct host_job {
	const struct ab_ctx	*c;
	const struct fleet_host	*h;
	const unsigned char	*sel;		/* only h */
	json_t			*seq;		/* the host's sequence (borrowed) */
	int			 quiet;
};

/*
 * Wait up to wait_ms for h to answer with a boot id other than old_id: a
 * side command may return while the host is still going down.  The boot
 * read last is in *bb either way (board_boot_check() then says the boot
 * id did not change); -1 with *why when the host never answered.
 */
static int
wait_boot(const struct fleet_host *h, long long wait_ms, const char *old_id,
    struct board_boot *bb, char **why)
{
	long long deadline = pace_now_ms() + wait_ms;

	for (;;) {
		if (boot_wait_host(h, deadline - pace_now_ms(), bb, why) != 0)
			return -1;
		if (strcmp(bb->boot_id, old_id) != 0 || run_stop_requested() ||
		    pace_now_ms() + BOOT_POLL_MS >= deadline)
			return 0;
		log_verbose("%s: still boot id %s: waiting for the reboot", h->name, old_id);
		board_boot_release(bb);
		memset(bb, 0, sizeof(*bb));
		usleep(BOOT_POLL_MS * 1000);
	}
}

/* The result of one boot. */
enum boot_result {
	BOOT_OK,
	BOOT_PARTIAL,		/* done, some trials failed */
	BOOT_FAILED,		/* the host fails: recorded */
	BOOT_STOPPED,		/* interrupted: left under way */
	BOOT_ERROR,		/* ab.json could not be written */
};

/* Record the boot failed with class and reason; the host stops. */
static enum boot_result
boot_fail(const struct host_job *j, size_t idx, const char *class, const char *reason)
{
	char *err = NULL;

	log_error("%s: boot %zu: %s: %s", j->h->name, idx + 1, class, reason);
	if (state_set(j->c->dir, j->h->name, idx, ST_FAILED, NULL, class, reason, NULL, &err) != 0) {
		log_error("%s", err);
		free(err);
		return BOOT_ERROR;
	}
	return BOOT_FAILED;
}

/* What a command printed as one line: its lines joined by " | ". */
static char *
one_line(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p, *e;

	for (p = text; *p != '\0'; p = *e ? e + 1 : e) {
		e = p + strcspn(p, "\r\n");
		if (e > p) {
			if (sb.len > 0)
				strbuf_addstr(&sb, " | ");
			strbuf_add(&sb, p, (size_t)(e - p));
		}
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * Boot j->h into the side of boot idx, check the boot, run the plan.
 * Nothing is measured unless the boot id changed and the kernel is the
 * one expected (when one is).
 */
static enum boot_result
do_boot(const struct host_job *j, size_t idx)
{
	const struct ab_ctx *c = j->c;
	const struct fleet_host *h = j->h;
	json_t *b = json_array_get(j->seq, idx);
	enum ab_side side = strcmp(jstr(b, "side"), "B") == 0 ? AB_B : AB_A;
	json_t *sd = json_object_get(json_object_get(c->state, "sides"), side_name(side));
	const char *cmd = jstr(sd, "command"), *label = jstr(sd, "label");
	char *expect = jstr(sd, "expect") ? xstrdup(jstr(sd, "expect")) : NULL;
	char *id = boot_run_id(h->name, idx, side), *boots = xasprintf("%s/%s", c->dir,
	    AB_BOOTS), *path = xasprintf("%s/%s", boots, id), *rel = xasprintf("%s/%s",
	    AB_BOOTS, id);
	char *old_id = NULL, *output = NULL, *err = NULL, *why = NULL, *what, num[16];
	struct session_config cfg;
	struct session *s = NULL;
	struct board_boot bb;
	long long wait_ms = h->boot_timeout_ms > 0 ? h->boot_timeout_ms : DEFAULT_BOOT_MS;
	enum boot_result res = BOOT_ERROR;
	int st, code;

	memset(&bb, 0, sizeof(bb));
	what = xasprintf("%s side %s (boot %zu)", h->name, side_name(side), idx + 1);
	if (access(path, F_OK) == 0 && set_aside(path, &err) != 0)
		goto error;
	if (state_set(c->dir, h->name, idx, ST_RUNNING, NULL, NULL, NULL, NULL, &err) != 0)
		goto error;
	/* A host may still be booting (a resumed sequence): up to its boot time. */
	if (boot_wait_host(h, wait_ms, &bb, &err) != 0) {
		if (run_stop_requested()) {
			res = BOOT_STOPPED;
			goto out;
		}
		why = xasprintf("no boot id before the side command: %s", err ? err : "?");
		res = boot_fail(j, idx, "boot", why);
		goto out;
	}
	old_id = xstrdup(bb.boot_id);
	board_boot_release(&bb);
	memset(&bb, 0, sizeof(bb));
	snprintf(num, sizeof(num), "%zu", idx + 1);
	if (setenv("FLEETMARK_HOST", h->name, 1) != 0 ||
	    setenv("FLEETMARK_SIDE", side_name(side), 1) != 0 ||
	    setenv("FLEETMARK_BOOT", num, 1) != 0) {
		err = xasprintf("setenv: %s", strerror(errno));
		goto error;
	}
	if (boot_hook_output(what, cmd, j->quiet ? NULL : stderr, &expect, &output, &st,
	    &err) != 0) {
		res = boot_fail(j, idx, "boot", err);
		goto out;
	}
	/* ^C reaches the side command too: a stop, not a failing side */
	if (run_stop_requested()) {
		res = BOOT_STOPPED;
		goto out;
	}
	if (st != 0) {
		char *said = one_line(output);

		why = xasprintf("side %s command exited %d%s%s", side_name(side), st,
		    *said ? ": " : "", said);
		free(said);
		res = boot_fail(j, idx, "boot", why);
		goto out;
	}
	if (wait_boot(h, wait_ms, old_id, &bb, &err) != 0) {
		if (run_stop_requested()) {
			res = BOOT_STOPPED;
			goto out;
		}
		why = xasprintf("did not come back within %.0f s: %s", (double)wait_ms / 1000,
		    err ? err : "?");
		res = boot_fail(j, idx, "boot", why);
		goto out;
	}
	if (run_stop_requested()) {
		res = BOOT_STOPPED;
		goto out;
	}
	/* Nothing is measured on a kernel other than the one asked for. */
	if (board_boot_check(&bb, old_id, expect, &err) != 0) {
		res = boot_fail(j, idx, "boot", err);
		goto out;
	}
	log_info("%s: boot %zu (%s): boot id %s, kernel %s", h->name, idx + 1,
	    side_name(side), bb.boot_id, bb.release);

	memset(&cfg, 0, sizeof(cfg));
	cfg.plan = c->p;
	cfg.fleet = c->f;
	cfg.sel = j->sel;
	cfg.seed = (unsigned long long)json_integer_value(json_object_get(c->state,
	    "plan_seed"));
	cfg.label = label;
	cfg.quiet = j->quiet;
	cfg.expect_kernel = expect;
	cfg.run_id = id;
	cfg.side = side_name(side);
	cfg.boot = (unsigned)(idx + 1);
	if (session_create(boots, &cfg, &s, &err) != 0)
		goto error;
	if (session_run(s, &cfg, &err) != 0) {
		res = boot_fail(j, idx, "run", err);
		goto out;
	}
	if (session_status(s) == JOURNAL_INTERRUPTED || run_stop_requested()) {
		res = BOOT_STOPPED;
		goto out;
	}
	if (session_status(s) == JOURNAL_FAILED) {
		res = boot_fail(j, idx, "run", session_error(s) ? session_error(s) : "failed");
		goto out;
	}
	session_report(s, NULL, NULL);
	code = session_exit(s);
	if (state_set(c->dir, h->name, idx, ST_DONE, rel, NULL, NULL, &bb, &err) != 0)
		goto error;
	res = code == CMD_EXIT_OK ? BOOT_OK : BOOT_PARTIAL;
	goto out;
 error:
	log_error("%s", err);
	res = BOOT_ERROR;
 out:
	session_free(s);
	board_boot_release(&bb);
	free(what);
	free(expect);
	free(id);
	free(boots);
	free(path);
	free(rel);
	free(old_id);
	free(output);
	free(err);
	free(why);
	return res;
}

/* A host's sequence from its first boot not done: the child's exit status. */
static int
host_sequence(const struct host_job *j)
{
	size_t i, n = json_array_size(j->seq);
	int code = CMD_EXIT_OK;

	for (i = 0; i < n; i++) {
		if (strcmp(jstr(json_array_get(j->seq, i), "state"), ST_DONE) == 0)
			continue;
		if (run_stop_requested())
			return CMD_EXIT_INTERRUPTED;
		switch (do_boot(j, i)) {
		case BOOT_OK:
			break;
		case BOOT_PARTIAL:
			code = CMD_EXIT_PARTIAL;
			break;
		case BOOT_FAILED:
			return CMD_EXIT_PARTIAL;
		case BOOT_STOPPED:
			return CMD_EXIT_INTERRUPTED;
		case BOOT_ERROR:
			return CMD_EXIT_ERROR;
		}
	}
	return run_stop_requested() && i < n ? CMD_EXIT_INTERRUPTED : code;
}

/*
 * Each host's sequence in a child of its own; the worst of their exit
 * statuses (interrupted first, then an error, then a failure).
 */
static int
run_hosts(const struct ab_ctx *c, int quiet)
{
	json_t *seqs = json_object_get(c->state, "sequences");
	size_t i, k;
	int st, code = CMD_EXIT_OK, rank = 0;

	cmd_catch_signals(on_signal);
	signal(SIGPIPE, SIG_IGN);
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < c->nhosts && i < sizeof(children) / sizeof(children[0]); i++) {
		struct host_job j;
		unsigned char *sel;
		pid_t pid;

		if ((pid = fork()) < 0) {
			log_error("cannot fork: %s", strerror(errno));
			run_request_stop();
			break;
		}
		if (pid > 0) {
			children[nchildren++] = pid;
			continue;
		}
		nchildren = 0;
		sel = xcalloc(c->f->nhosts, 1);
		for (k = 0; k < c->f->nhosts; k++)
			sel[k] = &c->f->hosts[k] == c->hosts[i];
		j.c = c;
		j.h = c->hosts[i];
		j.sel = sel;
		j.seq = json_object_get(seqs, c->hosts[i]->name);
		j.quiet = quiet || c->nhosts > 1;
		st = host_sequence(&j);
		fflush(stdout);
		fflush(stderr);
		_exit(st);
	}
	for (i = 0; i < nchildren; i++) {
		int r, w;

		while ((r = waitpid(children[i], &w, 0)) < 0 && errno == EINTR)
			;
		children[i] = 0;
		st = r < 0 ? CMD_EXIT_ERROR : WIFEXITED(w) ? WEXITSTATUS(w) : CMD_EXIT_ERROR;
		k = st == CMD_EXIT_INTERRUPTED ? 3 : st == CMD_EXIT_ERROR ? 2 :
		    st == CMD_EXIT_OK ? 0 : 1;
		if ((int)k > rank) {
			rank = (int)k;
			code = st;
		}
	}
	nchildren = 0;
	if (run_stop_requested() && code == CMD_EXIT_OK)
		code = CMD_EXIT_INTERRUPTED;
	return code;
}

/* --- the verdict --------------------------------------------------------------- */

/* One row: a (host, variant, bench, params, metric) and its boots' values. */
struct vrow {
	char		*host, *variant, *bench, *params, *metric, *unit;
	int		 higher;
	struct ab_boot	*boots;
	size_t		 nboots, cap;
};

struct vrows {
	struct vrow	*r;
	size_t		 n, cap;
};

static struct vrow *
vrow_get(struct vrows *vs, const struct series *s)
{
	const struct series_key *k = &s->key;
	const char *var = k->variant ? k->variant : "";
	size_t i;

	for (i = 0; i < vs->n; i++)
		if (strcmp(vs->r[i].host, k->host) == 0 && strcmp(vs->r[i].variant, var) == 0 &&
		    strcmp(vs->r[i].bench, k->bench) == 0 &&
		    strcmp(vs->r[i].params, k->params) == 0 &&
		    strcmp(vs->r[i].metric, k->metric) == 0)
			return &vs->r[i];
	xgrow(&vs->r, &vs->cap, vs->n + 1, sizeof(*vs->r));
	memset(&vs->r[vs->n], 0, sizeof(vs->r[0]));
	vs->r[vs->n].host = xstrdup(k->host);
	vs->r[vs->n].variant = xstrdup(var);
	vs->r[vs->n].bench = xstrdup(k->bench);
	vs->r[vs->n].params = xstrdup(k->params);
	vs->r[vs->n].metric = xstrdup(k->metric);
	vs->r[vs->n].unit = xstrdup(k->unit ? k->unit : "");
	vs->r[vs->n].higher = s->higher;
	return &vs->r[vs->n++];
}

static void
vrows_free(struct vrows *vs)
{
	size_t i, k;

	for (i = 0; i < vs->n; i++) {
		struct vrow *r = &vs->r[i];

		for (k = 0; k < r->nboots; k++)
			free((double *)r->boots[k].v);
		free(r->boots);
		free(r->host);
		free(r->variant);
		free(r->bench);
		free(r->params);
		free(r->metric);
		free(r->unit);
	}
	free(vs->r);
}

/* The boots done of every host into rows: each boot's values of each series. */
static int
collect_rows(const struct ab_ctx *c, struct vrows *vs, char **err)
{
	json_t *seqs = json_object_get(c->state, "sequences"), *seq, *b;
	const char *host;
	size_t i, k;

	json_object_foreach(seqs, host, seq) {
		json_array_foreach(seq, i, b) {
			struct series_store *st;
			char *path;
			int r;

			if (strcmp(jstr(b, "state"), ST_DONE) != 0 || jstr(b, "run") == NULL)
				continue;
			st = series_store_new(SERIES_VALUES);
			path = xasprintf("%s/%s/%s", c->dir, jstr(b, "run"), RUNDIR_TRIALS);
			r = series_store_read(st, path, 0, NULL, NULL, NULL, err);
			free(path);
			if (r != 0) {
				series_store_free(st);
				return -1;
			}
			for (k = 0; k < series_store_n(st); k++) {
				const struct series *s = series_store_at(st, k);
				struct vrow *row;
				struct ab_boot *ab;

				if (strcmp(s->key.host, host) != 0 || s->n == 0)
					continue;
				row = vrow_get(vs, s);
				xgrow(&row->boots, &row->cap, row->nboots + 1, sizeof(*row->boots));
				ab = &row->boots[row->nboots++];
				ab->side = strcmp(jstr(b, "side"), "B") == 0 ? AB_B : AB_A;
				ab->boot = (unsigned)i;
				ab->block = (unsigned)json_integer_value(json_object_get(b, "block"));
				{
					double *v = xreallocarray(NULL, s->n, sizeof(*v));

					memcpy(v, s->v, s->n * sizeof(*v));
					ab->v = v;
				}
				ab->n = s->n;
			}
			series_store_free(st);
		}
	}
	return 0;
}

/* Whether the plan's regression.metrics count this row (all when none). */
static int
row_counts(const struct plan *p, const struct vrow *r)
{
	size_t i, nb = strlen(r->bench);

	if (p->nmetrics == 0)
		return 1;
	for (i = 0; i < p->nmetrics; i++)
		if (strncmp(p->metrics[i], r->bench, nb) == 0 && p->metrics[i][nb] == '.' &&
		    strcmp(p->metrics[i] + nb + 1, r->metric) == 0)
			return 1;
	return 0;
}

/* A side's mean of the row's trial values (every boot of the side). */
static double
side_mean(const struct vrow *r, enum ab_side side)
{
	double sum = 0;
	size_t i, k, n = 0;

	for (i = 0; i < r->nboots; i++)
		for (k = 0; r->boots[i].side == side && k < r->boots[i].n; k++) {
			sum += r->boots[i].v[k];
			n++;
		}
	return n ? sum / (double)n : NAN;
}

static const char *const verdict_cols[] = {
	"host", "metric", "point", "A mean", "B mean", "change", "interval", "p", "q",
	"verdict", "reason"
};
static const char *const plan_cols[] = {
	"host", "metric", "point", "pairs", "between boots", "within a boot", "detectable",
	"boots a side"
};

static void
fill_grids(const struct vrows *vs, const struct ab_row *rows, double thr,
    struct rgrid *g, struct rgrid *pg)
{
	char buf[64], name[256];
	size_t i, row;

	for (i = 0; i < vs->n; i++) {
		const struct vrow *r = &vs->r[i];
		const struct ab_judgement *jd = &rows[i].j;
		double am = side_mean(r, AB_A), bm = side_mean(r, AB_B);

		snprintf(name, sizeof(name), "%s.%s%s%s%s", r->bench, r->metric,
		    rows[i].counts ? "" : " (not counted)", *r->variant ? " " : "", r->variant);
		row = rgrid_add_row(g);
		rgrid_set(g, row, 0, r->host, NAN);
		rgrid_set(g, row, 1, name, NAN);
		rgrid_set(g, row, 2, *r->params ? r->params : "-", NAN);
		numfmt_mean(buf, sizeof(buf), am);
		rgrid_set(g, row, 3, buf, am);
		numfmt_mean(buf, sizeof(buf), bm);
		rgrid_set(g, row, 4, buf, bm);
		numfmt_change(buf, sizeof(buf), jd->change);
		rgrid_set(g, row, 5, isnan(jd->change) ? "-" : buf, jd->change);
		numfmt_interval(buf, sizeof(buf), jd->lo, jd->hi);
		rgrid_set(g, row, 6, isnan(jd->lo) ? "-" : buf, NAN);
		numfmt_p(buf, sizeof(buf), jd->p_worse);
		rgrid_set(g, row, 7, buf, jd->p_worse);
		numfmt_p(buf, sizeof(buf), jd->q);
		rgrid_set(g, row, 8, buf, jd->q);
		rgrid_set(g, row, 9, ab_kind_name(jd->kind), NAN);
		rgrid_set(g, row, 10, jd->reason, NAN);

		row = rgrid_add_row(pg);
		rgrid_set(pg, row, 0, r->host, NAN);
		rgrid_set(pg, row, 1, name, NAN);
		rgrid_set(pg, row, 2, *r->params ? r->params : "-", NAN);
		snprintf(buf, sizeof(buf), "%zu", jd->pairs);
		rgrid_set(pg, row, 3, buf, (double)jd->pairs);
		numfmt_rsd(buf, sizeof(buf), jd->comp.between);
		rgrid_set(pg, row, 4, isnan(jd->comp.between) ? "-" : buf, jd->comp.between);
		numfmt_rsd(buf, sizeof(buf), jd->comp.within);
		rgrid_set(pg, row, 5, isnan(jd->comp.within) ? "-" : buf, jd->comp.within);
		if (isfinite(jd->detectable))
			snprintf(buf, sizeof(buf), "%.1f%%", jd->detectable);
		else
			snprintf(buf, sizeof(buf), "-");
		rgrid_set(pg, row, 6, buf, jd->detectable);
		if (jd->needed == 0)
			snprintf(buf, sizeof(buf), "-");
		else if (jd->needed > AB_PLAN_CAP)
			snprintf(buf, sizeof(buf), "> %d", AB_PLAN_CAP);
		else
			snprintf(buf, sizeof(buf), "%zu for %g%%", jd->needed, thr);
		rgrid_set(pg, row, 7, buf, jd->needed > 0 && jd->needed <= AB_PLAN_CAP ?
		    (double)jd->needed : NAN);
	}
}

static void
print_grids(FILE *out, enum report_format fmt, struct rgrid *g, struct rgrid *pg)
{
	size_t base = 0;
	int first = 1;

	switch (fmt) {
	case REPORT_MD:
		rgrid_print_md(g, out, &base);
		fputc('\n', out);
		rgrid_print_md(pg, out, &base);
		break;
	case REPORT_CSV:
		rgrid_print_csv(g, out);
		rgrid_print_csv(pg, out);
		break;
	case REPORT_JSON:
		rgrid_print_json(g, out, &first);
		rgrid_print_json(pg, out, &first);
		fputs(first ? "[]\n" : "\n]\n", out);
		break;
	default:
		rgrid_print_text(g, out);
		fputc('\n', out);
		rgrid_print_text(pg, out);
		break;
	}
}

/* What each host's sequence came to, for the end of the table. */
static void
print_hosts(FILE *out, const json_t *state)
{
	json_t *seq, *b;
	const char *host;
	size_t i, done;

	json_object_foreach(json_object_get(state, "sequences"), host, seq) {
		const json_t *failed = NULL;

		done = 0;
		json_array_foreach(seq, i, b) {
			if (strcmp(jstr(b, "state"), ST_DONE) == 0)
				done++;
			else if (failed == NULL && strcmp(jstr(b, "state"), ST_FAILED) == 0)
				failed = b;
		}
		if (failed != NULL)
			fprintf(out, "%s: failed (%s) at boot %lld: %s; %zu of %zu boots done\n",
			    host, jstr(failed, "class") ? jstr(failed, "class") : "boot",
			    (long long)json_integer_value(json_object_get(failed, "boot")),
			    jstr(failed, "reason") ? jstr(failed, "reason") : "?", done,
			    json_array_size(seq));
		else
			fprintf(out, "%s: %zu of %zu boots done\n", host, done, json_array_size(seq));
	}
}

/*
 * Judge the boots done, print the table (fmt) and write ab.txt.  Each
 * row is one host's: rows of a class's hosts pooled (ab.h can judge them
 * as a family of their own) are a later step, as are an A/A run and the
 * qualification of a host.  The
 * number of counted rows where B is worse (> 0: exit 4), or -1 with *err.
 */
static int
verdict(const struct ab_ctx *c, enum report_format fmt, char **err)
{
	struct vrows vs;
	struct ab_row *rows = NULL;
	struct ab_host *hs = NULL;
	struct ab_opts ao;
	struct rgrid *g = NULL, *pg = NULL;
	struct fs_atomic a;
	FILE *fp;
	char *path = NULL, title[256];
	double thr = json_real_value(json_object_get(c->state, "threshold"));
	size_t i, worse;
	int r = -1;

	memset(&vs, 0, sizeof(vs));
	if (collect_rows(c, &vs, err) != 0)
		goto out;
	rows = xcalloc(vs.n ? vs.n : 1, sizeof(*rows));
	hs = xcalloc(vs.n ? vs.n : 1, sizeof(*hs));
	for (i = 0; i < vs.n; i++) {
		hs[i].boots = vs.r[i].boots;
		hs[i].nboots = vs.r[i].nboots;
		rows[i].hosts = &hs[i];
		rows[i].nhosts = 1;
		rows[i].higher = vs.r[i].higher;
		rows[i].counts = row_counts(c->p, &vs.r[i]);
	}
	memset(&ao, 0, sizeof(ao));
	ao.fdr = c->p->has_regression ? c->p->fdr : PLAN_DEFAULT_FDR;
	ao.threshold = thr;
	ao.gate = AB_GATE_CHANGE;
	worse = ab_judge_rows(rows, vs.n, &ao);

	snprintf(title, sizeof(title), "B (%s) against A (%s), the boot as the unit; "
	    "threshold %g%%", jstr(json_object_get(json_object_get(c->state, "sides"), "B"),
	    "label"), jstr(json_object_get(json_object_get(c->state, "sides"), "A"), "label"),
	    thr);
	g = rgrid_new("ab", title, 3, sizeof(verdict_cols) / sizeof(verdict_cols[0]),
	    verdict_cols);
	g->left_last = 1;
	pg = rgrid_new("ab-design", "What the boots can see: the variance components "
	    "and the smallest change detected with 95% power", 3,
	    sizeof(plan_cols) / sizeof(plan_cols[0]), plan_cols);
	fill_grids(&vs, rows, thr, g, pg);

	if (vs.n == 0 && fmt == REPORT_JSON)
		printf("[]\n");
	else if (vs.n == 0 && fmt != REPORT_CSV)
		printf("no boot measured: nothing to judge\n");
	else if (vs.n > 0)
		print_grids(stdout, fmt, g, pg);
	/* CSV and JSON stay one document: the hosts' states go to stderr */
	if (fmt == REPORT_CSV || fmt == REPORT_JSON) {
		print_hosts(stderr, c->state);
	} else {
		putchar('\n');
		print_hosts(stdout, c->state);
	}
	fflush(stdout);

	path = xasprintf("%s/%s", c->dir, AB_TXT);
	if (fs_atomic_open(&a, path, RUNDIR_FILE_MODE, FS_NOSYNC, err) != 0)
		goto out;
	if ((fp = fs_atomic_stream(&a)) == NULL) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		fs_atomic_abort(&a);
		goto out;
	}
	if (vs.n == 0)
		fprintf(fp, "no boot measured: nothing to judge\n");
	else
		print_grids(fp, REPORT_TEXT, g, pg);
	fputc('\n', fp);
	print_hosts(fp, c->state);
	if (fclose(fp) != 0) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		fs_atomic_abort(&a);
		goto out;
	}
	if (fs_atomic_commit(&a, err) != 0)
		goto out;
	r = (int)worse;
 out:
	rgrid_free(g);
	rgrid_free(pg);
	free(path);
	free(rows);
	free(hs);
	vrows_free(&vs);
	return r;
}

/* --- setting up ---------------------------------------------------------------- */

/* The host names of -H, refused when one is named twice. */
static int
check_hosts_twice(const char *spec, char **err)
{
	size_t len = strlen(spec);
	char *copy = xstrdup(spec), *p, *q, *end = copy + len;
	int r = 0;

	for (p = copy; p < end; p++)
		if (*p == ',')
			*p = '\0';
	for (p = copy; p < end && r == 0; p += strlen(p) + 1)
		for (q = p + strlen(p) + 1; *p != '\0' && q < end; q += strlen(q) + 1)
			if (strcmp(p, q) == 0) {
				*err = xasprintf("-H %s: host '%s' is named twice", spec, p);
				r = -1;
				break;
			}
	free(copy);
	return r;
}

/* The plan, the catalogue and the fleet; the hosts of -H (or of ab.json). */
static int
load_inputs(const struct ab_cmdopts *o, const char *plan_file, const char *fleet_file,
    const char *host_spec, struct ab_ctx *c, char **err)
{
	unsigned char *sel = NULL;
	char *agent = NULL;
	size_t i;
	int code = CMD_EXIT_ERROR;

	(void)o;
	if ((agent = catalog_agent_path(err)) == NULL || catalog_load(agent, &c->cat, err) != 0)
		goto out;
	code = CMD_EXIT_USAGE;
	if (plan_load(plan_file, c->cat, &c->p, err) != 0)
		goto out;
	if (fleet_load(fleet_file, &c->f, err) != 0 ||
	    plan_select(c->p, c->f, host_spec, &sel, err) != 0)
		goto out;
	c->hosts = xcalloc(c->f->nhosts, sizeof(*c->hosts));
	for (i = 0; i < c->f->nhosts; i++)
		if (sel[i])
			c->hosts[c->nhosts++] = &c->f->hosts[i];
	code = 0;
 out:
	free(sel);
	free(agent);
	return code;
}

/* A new ab.json for o: the sides, the order, each host's sequence pending. */
static json_t *
state_new(const struct ab_cmdopts *o, const struct ab_ctx *c, enum ab_order order,
    uint64_t seed, double thr)
{
	json_t *st = json_object(), *sides = json_object(), *seqs = json_object(), *hosts;
	enum ab_side *sv = xcalloc((size_t)o->boots * 2, sizeof(*sv));
	unsigned *bv = xcalloc((size_t)o->boots * 2, sizeof(*bv));
	char stamp[32];
	time_t now = time(NULL);
	size_t i, k;

	ab_order_sides(order, seed, (size_t)o->boots, sv, bv);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	json_object_set_new(st, "format", json_integer(AB_FORMAT));
	json_object_set_new(st, "start", json_string(stamp));
	json_object_set_new(st, "plan", rundir_json_str(o->plan_file));
	json_object_set_new(st, "plan_name", rundir_json_str(c->p->name));
	json_object_set_new(st, "plan_seed", json_integer((json_int_t)plan_seed(c->p)));
	json_object_set_new(st, "fleet", rundir_json_str(o->fleet_file));
	hosts = json_array();
	for (i = 0; i < c->nhosts; i++)
		json_array_append_new(hosts, rundir_json_str(c->hosts[i]->name));
	json_object_set_new(st, "hosts", hosts);
	for (k = 0; k < 2; k++)
		json_object_set_new(sides, side_name((enum ab_side)k), json_pack("{s:o, s:o, s:o}",
		    "command", rundir_json_str(o->side[k].cmd), "label",
		    rundir_json_str(o->side[k].label), "expect",
		    rundir_json_str(o->side[k].expect)));
	json_object_set_new(st, "sides", sides);
	json_object_set_new(st, "order", json_string(ab_order_name(order)));
	json_object_set_new(st, "seed", json_integer((json_int_t)seed));
	json_object_set_new(st, "boots_per_side", json_integer(o->boots));
	json_object_set_new(st, "threshold", json_real(thr));
	for (i = 0; i < c->nhosts; i++) {
		json_t *seq = json_array();

		for (k = 0; k < (size_t)o->boots * 2; k++)
			json_array_append_new(seq, json_pack("{s:I, s:s, s:I, s:s}", "boot",
			    (json_int_t)(k + 1), "side", side_name(sv[k]), "block",
			    (json_int_t)bv[k], "state", ST_PENDING));
		json_object_set_new(seqs, c->hosts[i]->name, seq);
	}
	json_object_set_new(st, "sequences", seqs);
	free(sv);
	free(bv);
	return st;
}

/* Take the run lock of an ab directory: one command at a time runs it. */
static int
take_runlock(struct ab_ctx *c, char **err)
{
	char *path = xasprintf("%s/%s", c->dir, AB_RUNLOCK);
	int r = -1;

	if ((c->runlock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
		*err = xasprintf("cannot open %s: %s", path, strerror(errno));
	else if (flock(c->runlock, LOCK_EX | LOCK_NB) != 0)
		*err = xasprintf("%s is in use by another fleetmark", c->dir);
	else
		r = 0;
	free(path);
	return r;
}

/* --dry-run: each host's sequence and the machine time it takes. */
static int
dry_run(const struct ab_cmdopts *o, const struct ab_ctx *c, enum ab_order order, uint64_t seed)
{
	enum ab_side *sv = xcalloc((size_t)o->boots * 2, sizeof(*sv));
	size_t i, k, n = (size_t)o->boots * 2;
	double worst = 0;

	ab_order_sides(order, seed, (size_t)o->boots, sv, NULL);
	printf("dry run: nothing is contacted and nothing is written\n");
	printf("order %s%s, %lld boots a side\n", ab_order_name(order),
	    order == AB_ORDER_RANDOM ? " (seed recorded when it runs)" : "", o->boots);
	for (i = 0; i < c->nhosts; i++) {
		const struct fleet_host *h = c->hosts[i];
		struct plan_schedule *s = plan_expand(c->p, h->name, plan_seed(c->p));
		struct plan_estimate e;
		long long bt = h->boot_timeout_ms > 0 ? h->boot_timeout_ms : DEFAULT_BOOT_MS;
		double total;

		plan_estimate_schedule(c->cat, c->p, s, &e);
		printf("%s:", h->name);
		for (k = 0; k < n; k++)
			printf(" %s", side_name(sv[k]));
		total = (double)n * (e.secs + (double)bt / 1000);
		printf("\n  %zu boots, each the plan's %zu trials (about %.0f s by the model%s%s%s) "
		    "and a boot of at most %.0f s (%s): at most about %.0f s\n", n, s->ntrials,
		    e.secs, e.unknown ? "; without a model: " : "", e.unknown ? e.names : "",
		    e.unknown ? "" : "", (double)bt / 1000, h->boot_timeout_ms > 0 ?
		    "its boot_timeout" : "no boot_timeout: the default", total);
		worst = total > worst ? total : worst;
		plan_schedule_free(s);
	}
	printf("machine time: the hosts run at once, at most about %.0f s\n", worst);
	free(sv);
	return CMD_EXIT_OK;
}

static void
ctx_release(struct ab_ctx *c)
{
	if (c->runlock >= 0)
		close(c->runlock);
	json_decref(c->state);
	free(c->dir);
	free(c->hosts);
	fleet_free(c->f);
	plan_free(c->p);
	catalog_free(c->cat);
}

/*
 * --resume: whether the sides given are those ab.json recorded.  Its own
 * are never run: a run directory may come from an archive, or have been
 * changed by someone else since.
 */
static int
resume_sides(const struct ab_cmdopts *o, const struct ab_ctx *c, char **err)
{
	const json_t *sides = json_object_get(c->state, "sides");
	size_t k;

	for (k = 0; k < 2; k++) {
		const char *name = side_name((enum ab_side)k);

		if (strcmp(jstr(json_object_get(sides, name), "command"), o->side[k].cmd) != 0) {
			*err = xasprintf("%s/%s: side %s is not the -%s given: the ab was started "
			    "with another side %s command, which a resume does not run", c->dir,
			    AB_JSON, name, name, name);
			return -1;
		}
	}
	return 0;
}

/*
 * --resume DIR: the hosts as ab.json records them, the plan and fleet as
 * given or else as recorded (as `run --resume` has it), the sides given
 * again (resume_sides()).  Nothing is written before each is checked,
 * and nothing at all with --dry-run.
 */
static int
resume_setup(const struct ab_cmdopts *o, struct ab_ctx *c, char **err)
{
	json_t *hosts, *v;
	struct strbuf spec = STRBUF_INIT;
	size_t i;
	int code;

	c->dir = xstrdup(o->resume);
	if (state_load(c->dir, &c->state, err) != 0 || resume_sides(o, c, err) != 0)
		return CMD_EXIT_USAGE;
	hosts = json_object_get(c->state, "hosts");
	json_array_foreach(hosts, i, v) {
		if (i > 0)
			strbuf_addch(&spec, ',');
		strbuf_addstr(&spec, json_string_value(v) ? json_string_value(v) : "");
	}
	code = load_inputs(o, o->plan_file ? o->plan_file : jstr(c->state, "plan"),
	    o->fleet_file ? o->fleet_file : jstr(c->state, "fleet"), spec.buf, c, err);
	strbuf_release(&spec);
	if (code != 0)
		return code;
	if (strcmp(c->p->name, jstr(c->state, "plan_name") ? jstr(c->state, "plan_name") :
	    "") != 0) {
		*err = xasprintf("%s: the plan is '%s', not '%s'", o->resume,
		    jstr(c->state, "plan_name"), c->p->name);
		return CMD_EXIT_USAGE;
	}
	if (!o->dry && take_runlock(c, err) != 0)
		return CMD_EXIT_ERROR;
	return 0;
}

/* A new ab directory under o->outdir with its ab.json. */
static int
new_setup(const struct ab_cmdopts *o, struct ab_ctx *c, enum ab_order order, double thr,
    char **err)
{
	char *name = xasprintf("ab-%s", c->p->name), *id = journal_new_run_id(name, time(NULL));
	uint64_t seed = plan_seed(c->p);
	int r = CMD_EXIT_ERROR;

	c->dir = xasprintf("%s/%s", o->outdir, id);
	if (fs_mkdir_p(o->outdir, RUNDIR_DIR_MODE, err) != 0)
		goto out;
	if (mkdir(c->dir, AB_DIR_MODE) != 0) {
		*err = xasprintf("cannot create %s: %s", c->dir, strerror(errno));
		goto out;
	}
	c->state = state_new(o, c, order, seed, thr);
	if (state_write(c->dir, c->state, err) != 0 || take_runlock(c, err) != 0)
		goto out;
	log_info("ab %s", c->dir);
	r = 0;
 out:
	free(name);
	free(id);
	return r;
}

/* --- the command --------------------------------------------------------------- */

static int
parse_options(int argc, char **argv, struct ab_cmdopts *o)
{
	static const struct option longopts[] = {
		{ "boots", required_argument, NULL, 'n' },
		{ "order", required_argument, NULL, 'O' },
		{ "label-a", required_argument, NULL, 'a' },
		{ "label-b", required_argument, NULL, 'b' },
		{ "expect-a", required_argument, NULL, 'x' },
		{ "expect-b", required_argument, NULL, 'y' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "resume", required_argument, NULL, 'R' },
		{ "format", required_argument, NULL, 'F' },
		{ "dry-run", no_argument, NULL, 'D' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:H:A:B:o:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->fleet_file = optarg;
			break;
		case 'H':
			o->host_spec = optarg;
			break;
		case 'A':
			o->side[AB_A].cmd = optarg;
			break;
		case 'B':
			o->side[AB_B].cmd = optarg;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'n':
			if (ydoc_parse_int(optarg, &o->boots) != 0 || o->boots < 2 ||
			    o->boots > MAX_BOOTS) {
				log_error("--boots: expected a number from 2 to %d, not '%s'",
				    MAX_BOOTS, optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'O':
			o->order_s = optarg;
			break;
		case 'a':
			o->side[AB_A].label = optarg;
			break;
		case 'b':
			o->side[AB_B].label = optarg;
			break;
		case 'x':
			o->side[AB_A].expect = *optarg ? optarg : NULL;
			break;
		case 'y':
			o->side[AB_B].expect = *optarg ? optarg : NULL;
			break;
		case 'T':
			if (cmd_threshold_option(optarg, &o->thr) != 0)
				return CMD_EXIT_USAGE;
			break;
		case 'R':
			o->resume = optarg;
			break;
		case 'F':
			if (report_format_parse(optarg, &o->fmt) != 0 || o->fmt == REPORT_HTML) {
				log_error("unknown format '%s' (text, md, csv, json)", optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'D':
			o->dry = 1;
			break;
		default:
			if ((c = cmd_common_option(&cmd_ab, c, argv, &o->quiet)) >= 0)
				return c;
			break;
		}
	}
	if (optind + 1 == argc)
		o->plan_file = argv[optind];
	else if (optind != argc || o->resume == NULL)
		return cmd_usage(&cmd_ab, 0);
	if (o->resume != NULL && (o->side[AB_A].cmd == NULL || o->side[AB_B].cmd == NULL)) {
		log_error("--resume %s: give both sides again: -A CMD and -B CMD, as the ab "
		    "was started (the commands its ab.json records are not run)", o->resume);
		return CMD_EXIT_USAGE;
	}
	if (o->resume != NULL)
		return -1;
	if (o->side[AB_A].cmd == NULL || o->side[AB_B].cmd == NULL) {
		log_error("give both sides: -A CMD and -B CMD");
		return CMD_EXIT_USAGE;
	}
	if (o->host_spec == NULL) {
		log_error("give the hosts: -H HOSTS");
		return CMD_EXIT_USAGE;
	}
	if (log_get_level() == LOG_LEVEL_QUIET)
		o->quiet = 1;
	return -1;
}

static int
ab_main(int argc, char **argv)
{
	struct ab_cmdopts o;
	struct ab_ctx c;
	enum ab_order order = AB_ORDER_ABBA;
	char *err = NULL;
	int code, worse;

	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	c.runlock = -1;
	o.outdir = DEFAULT_RESULTS;
	o.boots = DEFAULT_BOOTS;
	o.thr = -1;
	if ((code = parse_options(argc, argv, &o)) >= 0)
		return code;
	if (o.order_s != NULL && ab_order_parse(o.order_s, &order) != 0) {
		log_error("--order: expected abba, alternate or random, not '%s'", o.order_s);
		return CMD_EXIT_USAGE;
	}
	if (o.host_spec != NULL && check_hosts_twice(o.host_spec, &err) != 0) {
		code = CMD_EXIT_USAGE;
		goto fail;
	}
	if (o.resume != NULL) {
		if ((code = resume_setup(&o, &c, &err)) != 0)
			goto fail;
	} else {
		if ((code = load_inputs(&o, o.plan_file, o.fleet_file, o.host_spec, &c, &err)) != 0)
			goto fail;
		if (o.thr < 0)
			o.thr = c.p->has_regression ? c.p->threshold : VERDICT_THRESHOLD;
		if (o.side[AB_A].label == NULL)
			o.side[AB_A].label = "A";
		if (o.side[AB_B].label == NULL)
			o.side[AB_B].label = "B";
		if (o.dry) {
			code = dry_run(&o, &c, order, plan_seed(c.p));
			goto out;
		}
		if ((code = new_setup(&o, &c, order, o.thr, &err)) != 0)
			goto fail;
	}
	if (o.dry) {
		printf("dry run: %s is taken up from each host's first boot not done\n", c.dir);
		code = CMD_EXIT_OK;
		goto out;
	}
	code = run_hosts(&c, o.quiet);
	/* the children wrote ab.json: read it again for the verdict */
	json_decref(c.state);
	c.state = NULL;
	if (state_load(c.dir, &c.state, &err) != 0) {
		code = CMD_EXIT_ERROR;
		goto fail;
	}
	if (code == CMD_EXIT_INTERRUPTED) {
		log_error("interrupted: `fleetmark ab --resume %s -A SIDE -B SIDE`, with the "
		    "sides it was started with, goes on", c.dir);
		goto out;
	}
	if ((worse = verdict(&c, o.fmt, &err)) < 0) {
		code = CMD_EXIT_ERROR;
		goto fail;
	}
	if (worse > 0 && code == CMD_EXIT_OK)
		code = CMD_EXIT_REGRESSION;
	else if (worse > 0 && code == CMD_EXIT_PARTIAL)
		code = CMD_EXIT_REGRESSION;
	goto out;
 fail:
	log_error("%s", err);
 out:
	free(err);
	ctx_release(&c);
	return code;
}

static const struct cmd_option ab_options[] = {
	{ 'H', NULL, "HOSTS", "the hosts (names or @labels, comma-separated), each with its "
	    "own sequence of boots, in parallel", NULL },
	{ 'A', NULL, "CMD", "side A: a shell command run here that makes the host boot "
	    "into kernel A, with FLEETMARK_HOST, FLEETMARK_SIDE and FLEETMARK_BOOT in its "
	    "environment; a FLEETMARK_EXPECT_KERNEL=STRING line it prints sets the boot "
	    "check", NULL },
	{ 'B', NULL, "CMD", "side B, the same", NULL },
	{ 0, "boots", "N", "boots a side, at least 2", "2" },
	{ 0, "order", "ORDER", "abba (blocks AB, BA, ...), alternate (AB, AB, ...) or random "
	    "(each block AB or BA, the seed recorded)", "abba" },
	{ 0, "label-a", "LABEL", "side A's label, the label of its boots' runs", "A" },
	{ 0, "label-b", "LABEL", "side B's label", "B" },
	{ 0, "expect-a", "STRING", "the boot check of side A: the kernel (uname -r, uname -v "
	    "or /proc/cmdline) must contain STRING", "no kernel check" },
	{ 0, "expect-b", "STRING", "the same for side B", "no kernel check" },
	{ 0, "threshold", "PCT", "the smallest change that counts", "the plan's, else 5%" },
	{ 0, "format", "FORMAT", "the table as text, md, csv or json", "text" },
	{ 0, "resume", "DIR", "go on with the ab directory DIR from each host's first boot "
	    "not done (PLAN, -f and -H come from its ab.json); -A and -B must be given "
	    "again, the commands it was started with", NULL },
	{ 0, "dry-run", NULL, "print each host's sequence of boots and the machine time it "
	    "takes; nothing is contacted or written", NULL },
	{ 'f', NULL, "FLEET", "the inventory", "the embedded fleet" },
	{ 'o', NULL, "DIR", "where the ab directory is made", "results" },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit ab_exits[] = {
	{ 0, "every boot done, no trial failed, B not worse on a counted row" },
	{ 1, "something failed: ab.json could not be written, a run could not start" },
	{ 2, "bad usage or input: a side missing, a host named twice, --boots below 2, an "
	    "unknown order, a plan or fleet that does not load; a resume whose sides are not "
	    "those of ab.json, or whose ab.json others can write" },
	{ 3, "a host failed (a side command that failed, a host that did not come back, a "
	    "wrong kernel: class boot), or trials failed" },
	{ 4, "B is significantly worse than A on a counted row" },
	{ 130, "interrupted: --resume goes on" },
	{ -1, NULL }
};

static const struct cmd_example ab_examples[] = {
	{ "fleetmark ab plans/syscall.yaml -f lab.yaml -H lab-07 -A 'ssh root@lab-07 "
	    "grub-reboot old && ssh root@lab-07 reboot' -B 'ssh root@lab-07 grub-reboot new "
	    "&& ssh root@lab-07 reboot' --expect-a 6.6.0 --expect-b 6.7.0 --boots 4",
	    "4 boots of each kernel in the order ABBA ABBA, judged by boot" },
	{ NULL, NULL }
};

static const struct cmd_help ab_help = {
	"Two kernels (sides A and B) on the same hosts in alternating boots, judged with "
	"the boot as the unit: each side command makes the host boot into its kernel, the "
	"boot is checked (a new boot id, the kernel expected), and the plan runs on the "
	"host as a run of its own under DIR/boots/.  The verdict pairs each A boot with the "
	"B boot of its block (a paired t-test on the log scale, Benjamini-Hochberg over the "
	"rows, then the threshold), and says what the boots can see.",
	ab_options, NULL, ab_exits, ab_examples, "docs/ab.md", 0
};

const struct cmd_entry cmd_ab = {
	"ab",
	"PLAN [-f FLEET] -H HOSTS -A SIDE -B SIDE [--boots N] "
	"[--order abba|alternate|random] [--label-a L] [--label-b L] [--expect-a S] "
	"[--expect-b S] [--threshold X%] [--format F] [-o DIR] [--resume DIR] [--dry-run] "
	"[-q] [-v]",
	"two kernels in alternating boots on the same hosts, judged by boot",
	ab_main,
	&ab_help,
};
