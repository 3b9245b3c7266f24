/*
 * ab/state.c: an ab directory and its ab.json (abdir.h): loaded (trusted
 * only when it is the user's own), checked, written and changed one boot
 * at a time under a lock; a new directory, or one taken up again with
 * --resume; the plan, fleet and hosts a command works on.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ab.h"
#include "ab-int.h"
#include "board.h"
#include "catalog.h"
#include "cmd.h"
#include "fleet.h"
#include "fsutil.h"
#include "journal.h"
#include "log.h"
#include "plan.h"
#include "rundir.h"
#include "strbuf.h"
#include "strv.h"
#include "utf8.h"
#include "verdict.h"
#include "xmalloc.h"

const char *
ab_side_name(enum ab_side s)
{
	return s == AB_A ? "A" : "B";
}

/* Whether member key of o is a string (or, with null_ok, null). */
static int
has_str(const json_t *o, const char *key, int null_ok)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) || (null_ok && json_is_null(v));
}

/* Whether a done boot's run is a directory of DIR/boots, as boots.c names them. */
static int
run_valid(const char *run)
{
	size_t n = strlen(AB_BOOTS);

	return strncmp(run, AB_BOOTS, n) == 0 && run[n] == '/' && run[n + 1] != '\0' &&
	    run[n + 1] != '.' && strchr(run + n + 1, '/') == NULL;
}

/*
 * "classes", when there: each host's inventory labels, sorted (the hosts
 * whose labels are the same are a class, judged pooled as well): an
 * object of hosts of "hosts", each an array of names by the fleet's rule.
 * NULL, or what is wrong.
 */
static const char *
classes_invalid(const json_t *o)
{
	const json_t *cl = json_object_get(o, "classes"), *labels, *l;
	const char *host;
	size_t i;

	if (cl == NULL)
		return NULL;
	if (!json_is_object(cl))
		return "\"classes\" is not an object";
	json_object_foreach((json_t *)cl, host, labels) {
		if (!json_is_array(json_object_get(json_object_get(o, "sequences"), host)))
			return "\"classes\" names a host that \"hosts\" does not";
		if (!json_is_array(labels) || json_array_size(labels) == 0 ||
		    json_array_size(labels) > AB_MAX_LABELS)
			return "a host's \"classes\" entry is not an array of labels";
		json_array_foreach(labels, i, l)
			if (!json_is_string(l) || !fleet_name_ok(json_string_value(l)))
				return "a host's \"classes\" entry is not an array of labels";
	}
	return NULL;
}

/*
 * Whether o has every member the code reads without checking: the plan,
 * the sides, the hosts, the threshold and each host's sequence.  NULL,
 * or what is wrong (a static string).
 */
static const char *
state_invalid(const json_t *o)
{
	const json_t *seq, *b, *h, *hosts = json_object_get(o, "hosts"),
	    *seqs = json_object_get(o, "sequences"), *sides = json_object_get(o, "sides");
	const char *host, *v;
	size_t i, k;

	if (!has_str(o, "plan", 0) || !has_str(o, "plan_name", 0))
		return "\"plan\" or \"plan_name\" missing or not a string";
	if (!has_str(o, "fleet", 1))
		return "\"fleet\" is neither a string nor null";
	if (!json_is_integer(json_object_get(o, "plan_seed")))
		return "\"plan_seed\" missing or not an integer";
	if (!json_is_number(json_object_get(o, "threshold")) ||
	    !(json_number_value(json_object_get(o, "threshold")) >= 0))
		return "\"threshold\" missing or not a number of 0 or more";
	for (k = 0; k < 2; k++) {
		const json_t *sd = json_object_get(sides, k ? "B" : "A");

		if (!json_is_object(sd) || !has_str(sd, "command", 0) ||
		    !has_str(sd, "label", 0) || !has_str(sd, "expect", 1))
			return "\"sides\" lacks side A's or B's \"command\", \"label\" or "
			    "\"expect\"";
	}
	if (!json_is_array(hosts) || json_array_size(hosts) == 0 || !json_is_object(seqs) ||
	    json_object_size(seqs) != json_array_size(hosts))
		return "\"hosts\" and \"sequences\" do not name the same hosts";
	json_array_foreach(hosts, i, h)
		if (!json_is_string(h) || !json_is_array(json_object_get(seqs,
		    json_string_value(h))))
			return "\"hosts\" and \"sequences\" do not name the same hosts";
	if ((v = classes_invalid(o)) != NULL)
		return v;
	json_object_foreach((json_t *)seqs, host, seq) {
		json_array_foreach(seq, i, b) {
			if ((v = json_string_value(json_object_get(b, "side"))) == NULL ||
			    (strcmp(v, "A") != 0 && strcmp(v, "B") != 0) ||
			    !json_is_integer(json_object_get(b, "block")) ||
			    json_integer_value(json_object_get(b, "block")) < 0 ||
			    json_integer_value(json_object_get(b, "boot")) != (json_int_t)i + 1)
				return "a boot without its \"boot\", \"side\" or \"block\"";
			if ((v = json_string_value(json_object_get(b, "state"))) == NULL ||
			    (strcmp(v, ST_PENDING) != 0 && strcmp(v, ST_RUNNING) != 0 &&
			    strcmp(v, ST_DONE) != 0 && strcmp(v, ST_FAILED) != 0))
				return "a boot of no known \"state\"";
			if (!has_str(b, "run", 1) && json_object_get(b, "run") != NULL)
				return "a boot's \"run\" is not a string";
			if (ab_jstr(b, "run") != NULL && !run_valid(ab_jstr(b, "run")))
				return "a boot's \"run\" is not a directory of boots/";
		}
	}
	return NULL;
}

/*
 * Load dir's ab.json into *out.  What it says is acted on (its plan and
 * fleet are loaded, its sides compared with those given): the directory
 * and the file must be the user's and written by no one else, as the
 * directory is made (AB_DIR_MODE) and the file written (RUNDIR_FILE_MODE).
 */
static int
state_load(const char *dir, int trusted, json_t **out, char **err)
{
	char *path = xasprintf("%s/%s", dir, AB_JSON), *why = NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *bad;
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
	if (trusted && (fs_check_owner(path, &st, &why) != 0 || (stat(dir, &st) != 0 &&
	    (why = xasprintf("%s: %s", dir, strerror(errno))) != NULL) ||
	    fs_check_owner(dir, &st, &why) != 0)) {
		*err = xasprintf("%s: not trusted: an ab.json others can change is not "
		    "acted on (chmod go-w)", why);
		goto out;
	}
	/* A file of any size is not read whole: AB_MAX_JSON is many hosts' boots */
	strbuf_init_max(&sb, AB_MAX_JSON);
	if (strbuf_read_fd(&sb, fd) != 0) {
		*err = errno == EFBIG ? xasprintf("%s: larger than %d bytes: not an ab.json",
		    path, AB_MAX_JSON) : xasprintf("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if ((o = json_loadb(sb.buf, sb.len, JSON_REJECT_DUPLICATES, &je)) == NULL) {
		*err = xasprintf("%s:%d:%d: %s", path, je.line, je.column, je.text);
		goto out;
	}
	if (!json_is_object(o) || json_integer_value(json_object_get(o, "format")) !=
	    AB_FORMAT) {
		*err = xasprintf("%s: not an ab.json of format %d", path, AB_FORMAT);
		goto out;
	}
	if ((bad = state_invalid(o)) != NULL) {
		*err = xasprintf("%s: not an ab.json of format %d: %s", path, AB_FORMAT, bad);
		goto out;
	}
	*out = o;
	o = NULL;
	r = 0;
 out:
	if (fd >= 0)
		close(fd);
	json_decref(o);
	strbuf_release(&sb);
	free(why);
	free(path);
	return r;
}

int
ab_state_load(const char *dir, json_t **out, char **err)
{
	return state_load(dir, 1, out, err);
}

/* For a report, which runs nothing ab.json says: a copy of anyone's is read. */
int
ab_state_read(const char *dir, json_t **out, char **err)
{
	return state_load(dir, 0, out, err);
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
 * dir's ab.json loaded under its lock, with *b the boot idx of host in it:
 * the lock's fd (close it, json_decref(*o)), or -1 with *err.
 */
static int
boot_locked(const char *dir, const char *host, size_t idx, json_t **o, json_t **b,
    char **err)
{
	char *lock = xasprintf("%s/%s", dir, AB_LOCK);
	int fd;

	*o = NULL;
	if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 ||
	    flock(fd, LOCK_EX) != 0) {
		*err = xasprintf("cannot lock %s: %s", lock, strerror(errno));
		goto fail;
	}
	if (ab_state_load(dir, o, err) != 0)
		goto fail;
	*b = json_array_get(json_object_get(json_object_get(*o, "sequences"), host), idx);
	if (*b == NULL) {
		*err = xasprintf("%s/%s: no boot %zu of %s", dir, AB_JSON, idx + 1, host);
		goto fail;
	}
	free(lock);
	return fd;
 fail:
	if (fd >= 0)
		close(fd);
	json_decref(*o);
	*o = NULL;
	free(lock);
	return -1;
}

/*
 * Set boot idx of host in dir's ab.json to state (run, class, reason and
 * the boot's id, kernel and command line when not NULL), under the lock
 * that keeps the hosts' children from writing at once: the file is read
 * again, changed in that one entry, replaced.
 */
int
ab_state_set(const char *dir, const char *host, size_t idx, const char *state,
    const char *run, const char *class, const char *reason, const struct board_boot *bb,
    char **err)
{
	json_t *o = NULL, *b;
	int fd, r = -1;

	if ((fd = boot_locked(dir, host, idx, &o, &b, err)) < 0)
		return -1;
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
	close(fd);
	json_decref(o);
	return r;
}

int
ab_state_recovered(const char *dir, const char *host, size_t idx, int cycle,
    const char *why, char **err)
{
	json_t *o = NULL, *b, *list;
	int fd, r;

	if ((fd = boot_locked(dir, host, idx, &o, &b, err)) < 0)
		return -1;
	if (!json_is_array(list = json_object_get(b, "recovered"))) {
		list = json_array();
		json_object_set_new(b, "recovered", list);
	}
	json_array_append_new(list, json_pack("{s:i, s:o}", "cycle", cycle, "reason",
	    rundir_json_str(why)));
	r = state_write(dir, o, err);
	close(fd);
	json_decref(o);
	return r;
}

const char *
ab_jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The plan, the catalogue and the fleet; the hosts of -H (or of ab.json). */
int
ab_load_inputs(const char *plan_file, const char *fleet_file, const char *host_spec,
    struct ab_ctx *c, char **err)
{
	unsigned char *sel = NULL;
	char *agent = NULL;
	size_t i;
	int code = CMD_EXIT_ERROR;

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

/* ab.json's "classes": each host's labels, sorted; hosts without none. */
static json_t *
classes_new(const struct ab_ctx *c)
{
	json_t *cl = json_object();
	size_t i, k;

	for (i = 0; i < c->nhosts; i++) {
		const struct fleet_host *h = c->hosts[i];
		char **v;
		json_t *a;

		if (h->nlabels == 0 || h->nlabels > AB_MAX_LABELS)
			continue;
		v = xreallocarray(NULL, h->nlabels, sizeof(*v));
		memcpy(v, h->labels, h->nlabels * sizeof(*v));
		strv_sort(v, h->nlabels);
		a = json_array();
		for (k = 0; k < h->nlabels; k++)
			json_array_append_new(a, json_string(v[k]));
		free(v);
		json_object_set_new(cl, h->name, a);
	}
	return cl;
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
	json_object_set_new(st, "classes", classes_new(c));
	for (k = 0; k < 2; k++)
		json_object_set_new(sides, ab_side_name((enum ab_side)k), json_pack("{s:o, s:o, s:o}",
		    "command", rundir_json_str(o->side[k].cmd), "label",
		    rundir_json_str(o->side[k].label), "expect",
		    rundir_json_str(o->side[k].expect)));
	json_object_set_new(st, "sides", sides);
	json_object_set_new(st, "order", json_string(ab_order_name(order)));
	json_object_set_new(st, "seed", json_integer((json_int_t)seed));
	json_object_set_new(st, "boots_per_side", json_integer(o->boots));
	json_object_set_new(st, "threshold", json_real(thr));
	if (o->same)
		json_object_set_new(st, "same_sides", json_true());
	for (i = 0; i < c->nhosts; i++) {
		json_t *seq = json_array();

		for (k = 0; k < (size_t)o->boots * 2; k++)
			json_array_append_new(seq, json_pack("{s:I, s:s, s:I, s:s}", "boot",
			    (json_int_t)(k + 1), "side", ab_side_name(sv[k]), "block",
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

struct ab_ctx *
ab_ctx_new(void)
{
	struct ab_ctx *c = xcalloc(1, sizeof(*c));

	c->runlock = -1;
	return c;
}

const char *
ab_ctx_dir(const struct ab_ctx *c)
{
	return c->dir;
}

void
ab_ctx_free(struct ab_ctx *c)
{
	if (c == NULL)
		return;
	if (c->runlock >= 0)
		close(c->runlock);
	json_decref(c->state);
	free(c->dir);
	free(c->hosts);
	fleet_free(c->f);
	plan_free(c->p);
	catalog_free(c->cat);
	free(c);
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
		const char *name = ab_side_name((enum ab_side)k);

		if (strcmp(ab_jstr(json_object_get(sides, name), "command"), o->side[k].cmd) != 0) {
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
int
ab_resume_setup(const struct ab_cmdopts *o, struct ab_ctx *c, char **err)
{
	json_t *hosts, *v;
	struct strbuf spec = STRBUF_INIT;
	size_t i;
	int code;

	c->dir = xstrdup(o->resume);
	if (ab_state_load(c->dir, &c->state, err) != 0 || resume_sides(o, c, err) != 0)
		return CMD_EXIT_USAGE;
	hosts = json_object_get(c->state, "hosts");
	json_array_foreach(hosts, i, v) {
		if (i > 0)
			strbuf_addch(&spec, ',');
		strbuf_addstr(&spec, json_string_value(v) ? json_string_value(v) : "");
	}
	code = ab_load_inputs(o->plan_file ? o->plan_file : ab_jstr(c->state, "plan"),
	    o->fleet_file ? o->fleet_file : ab_jstr(c->state, "fleet"), spec.buf, c, err);
	strbuf_release(&spec);
	if (code != 0)
		return code;
	if (strcmp(c->p->name, ab_jstr(c->state, "plan_name")) != 0) {
		/* ab.json's name as text from a file: its controls as \xNN */
		char *rec = utf8_escaped(ab_jstr(c->state, "plan_name"), 0),
		    *now = utf8_escaped(c->p->name, 0);

		*err = xasprintf("%s: the plan is '%s', not '%s'", o->resume, rec, now);
		free(rec);
		free(now);
		return CMD_EXIT_USAGE;
	}
	if (!o->dry && take_runlock(c, err) != 0)
		return CMD_EXIT_ERROR;
	return 0;
}

/* A new ab directory under o->outdir with its ab.json. */
int
ab_new_setup(const struct ab_cmdopts *o, struct ab_ctx *c, enum ab_order order, char **err)
{
	char *name = xasprintf("ab-%s", c->p->name), *id = journal_new_run_id(name, time(NULL));
	uint64_t seed = plan_seed(c->p);
	double thr = o->thr >= 0 ? o->thr : c->p->has_regression ? c->p->threshold :
	    VERDICT_THRESHOLD;
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
