/*
 * tune.c: tuning profiles applied on a host for a whole run, and undone;
 * the untuned-host warning.  See tune.h and docs/environment.md.  What a
 * profile asks for, as plans load it, is tune-spec.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "shquote.h"
#include "strbuf.h"
#include "transport.h"
#include "tune.h"
#include "variant.h"
#include "xmalloc.h"

#define PROBE_MAX	(256 * 1024)	/* bytes of a probe's listing */
#define SERVICE_PFX	"service:"

static const char *const outcome_names[] = { "applied", "unavailable", "denied" };

struct tune_state {
	char			*profile;
	struct tune_result	 res[TUNE_NITEMS];
	size_t			 nres;
	struct variant_saves	 saved;		/* in the order written */
	int			 changed;
	int			 drop;		/* drop caches before each trial */
	char			*root;
};

const char *
tune_outcome_name(enum tune_outcome o)
{
	return (unsigned)o <= TUNE_DENIED ? outcome_names[o] : "?";
}

/* --- Applying -------------------------------------------------------------- */

/* One file a probe found: its path and what it holds (first line, cut). */
struct found {
	char	*path;
	char	*content;
};

static void
found_free(struct found *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(f[i].path);
		free(f[i].content);
	}
	free(f);
}

static int
lost(int r)
{
	return r == TRANSPORT_ELOST || r == TRANSPORT_ECONNECT || r == TRANSPORT_ETIMEOUT;
}

/*
 * The files matching glob (fixed text: a shell pattern) under root, with
 * their contents, read as the login user (sysfs and /proc/sys are
 * readable by everyone).  0, or VARIANT_ELOST / -1 with *err.
 */
static int
probe(struct transport *t, const char *root, const char *glob, struct found **out,
    size_t *n, char **err)
{
	struct transport_result res;
	struct found *f = NULL;
	char *cmd, *line, *tab, *nl, *why;
	size_t k = 0;
	int r;

	*out = NULL;
	*n = 0;
	cmd = sh_format("R=%q; for f in \"$R\"%s; do [ -e \"$f\" ] && printf '%%s\\t%%s\\n' "
	    "\"$f\" \"$(head -c 256 \"$f\" 2>/dev/null | head -n 1 | tr -d '\\t')\"; done; "
	    "exit 0", root, glob);
	r = transport_run(t, cmd, NULL, 0, PROBE_MAX, VARIANT_CMD_TIMEOUT_MS, &res);
	free(cmd);
	if (r != 0 || res.exit.status != 0) {
		why = variant_step_error(t, r, &res);
		*err = xasprintf("%s: cannot look for %s: %s", transport_name(t), glob, why);
		free(why);
		transport_result_release(&res);
		return r != 0 && lost(r) ? VARIANT_ELOST : -1;
	}
	for (line = res.out; line != NULL && *line != '\0'; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		if ((tab = strchr(line, '\t')) == NULL)
			continue;
		*tab = '\0';
		f = xreallocarray(f, k + 1, sizeof(*f));
		f[k].path = xstrdup(line);
		f[k].content = xstrdup(tab + 1);
		k++;
	}
	transport_result_release(&res);
	*out = f;
	*n = k;
	return 0;
}

/* Whether content shows value: as it is, or as the chosen word of a sysfs
 * choice list ("always [madvise] never"). */
static int
shows(const char *content, const char *value)
{
	char *b = xasprintf("[%s]", value);
	int r = strcmp(content, value) == 0 || strstr(content, b) != NULL;

	free(b);
	return r;
}

/* The chosen word of a choice list, or the content: a new string. */
static char *
chosen(const char *content)
{
	const char *a = strchr(content, '['), *b = a ? strchr(a, ']') : NULL;

	if (a != NULL && b != NULL && b > a + 1)
		return xstrndup(a + 1, (size_t)(b - a - 1));
	return xstrdup(content);
}

struct applying {
	struct transport	*t;
	struct tune_state	*st;
	variant_save_fn		 save;
	variant_log_fn		 log;
	void			*arg;
	const struct tune_spec	*spec;
};

static void
result(struct applying *a, enum tune_item it, enum tune_outcome o, const char *value,
    char *detail)
{
	struct tune_result *r = &a->st->res[a->st->nres++];
	char *line;

	r->item = it;
	r->outcome = o;
	r->value = xstrdup(value);
	r->detail = detail;
	if (a->log != NULL) {
		line = xasprintf("tune %s: %s %s (%s)%s%s", a->st->profile, tune_item_name(it),
		    tune_outcome_name(o), value, detail ? ": " : "", detail ? detail : "");
		a->log(a->arg, line);
		free(line);
	}
}

/* err without its leading "HOST: " (the reason of a denied item). */
static char *
reason(struct transport *t, char *err)
{
	const char *name = transport_name(t);
	size_t n = strlen(name);
	char *r;

	if (strncmp(err, name, n) == 0 && strncmp(err + n, ": ", 2) == 0) {
		r = xstrdup(err + n + 2);
		free(err);
		return r;
	}
	return err;
}

/*
 * Write value into every file of f that does not show it yet.  The item's
 * outcome: applied ("was OLD" of the first file changed, or "already"),
 * or denied at the first failure.  0, or VARIANT_ELOST.
 */
static int
write_all(struct applying *a, enum tune_item it, const char *shown, const char *value,
    struct found *f, size_t n)
{
	char *old, *err = NULL, *was = NULL;
	size_t i, changed = 0;
	int r;

	for (i = 0; i < n; i++) {
		if (shows(f[i].content, value))
			continue;
		old = NULL;
		r = variant_write(a->t, f[i].path, value, a->save, a->arg, &old, &err);
		if (old != NULL)
			variant_saves_add(&a->st->saved, f[i].path, old);
		if (r != 0) {
			free(was);
			if (r == VARIANT_ELOST) {
				result(a, it, TUNE_DENIED, shown, reason(a->t, err));
				return VARIANT_ELOST;
			}
			result(a, it, TUNE_DENIED, shown, reason(a->t, err));
			return 0;
		}
		if (was == NULL)
			was = chosen(f[i].content);
		changed++;
		a->st->changed = 1;
	}
	if (changed == 0)
		result(a, it, TUNE_APPLIED, shown, xstrdup("already so"));
	else if (n > 1)
		result(a, it, TUNE_APPLIED, shown, xasprintf("%zu of %zu files, was %s",
		    changed, n, was));
	else
		result(a, it, TUNE_APPLIED, shown, xasprintf("was %s", was));
	free(was);
	return 0;
}

/* An item that is one file (or the first of a few that exists). */
static int
one_file(struct applying *a, enum tune_item it, const char *glob, const char *value,
    const char *shown, const char *missing)
{
	struct found *f;
	size_t n;
	char *err = NULL;
	int r;

	if ((r = probe(a->t, a->spec->root, glob, &f, &n, &err)) != 0) {
		result(a, it, TUNE_DENIED, shown, reason(a->t, err));
		return r == VARIANT_ELOST ? r : 0;
	}
	if (n == 0)
		result(a, it, TUNE_UNAVAILABLE, shown, xstrdup(missing));
	else
		r = write_all(a, it, shown, value, f, n);
	found_free(f, n);
	return r;
}

static int
do_boost(struct applying *a, const char *v)
{
	struct found *f;
	size_t n;
	char *err = NULL;
	int r, off = strcmp(v, "off") == 0;

	if ((r = probe(a->t, a->spec->root, "/sys/devices/system/cpu/intel_pstate/no_turbo",
	    &f, &n, &err)) == 0 && n == 1) {
		r = write_all(a, TUNE_BOOST, v, off ? "1" : "0", f, n);
		found_free(f, n);
		return r;
	}
	if (r == 0) {
		found_free(f, n);
		return one_file(a, TUNE_BOOST, "/sys/devices/system/cpu/cpufreq/boost",
		    off ? "0" : "1", v, "no intel_pstate/no_turbo or cpufreq/boost on this host");
	}
	result(a, TUNE_BOOST, TUNE_DENIED, v, reason(a->t, err));
	return r == VARIANT_ELOST ? r : 0;
}

static int
do_smt(struct applying *a, const char *v)
{
	struct found *f;
	size_t n;
	char *err = NULL;
	int r;

	if ((r = probe(a->t, a->spec->root, "/sys/devices/system/cpu/smt/control", &f, &n,
	    &err)) != 0) {
		result(a, TUNE_SMT, TUNE_DENIED, v, reason(a->t, err));
		return r == VARIANT_ELOST ? r : 0;
	}
	if (n == 0)
		result(a, TUNE_SMT, TUNE_UNAVAILABLE, v, xstrdup("no smt/control on this host"));
	else if (strcmp(f[0].content, "on") != 0 && strcmp(f[0].content, "off") != 0)
		result(a, TUNE_SMT, TUNE_UNAVAILABLE, v, xasprintf("smt/control is %s",
		    f[0].content));
	else
		r = write_all(a, TUNE_SMT, v, v, f, 1);
	found_free(f, n);
	return r;
}

/* The index N of a ".../stateN/disable" path, or -1. */
static int
state_index(const char *path)
{
	const char *p = strstr(path, "/cpuidle/state");
	char *end;
	long v;

	if (p == NULL)
		return -1;
	v = strtol(p + strlen("/cpuidle/state"), &end, 10);
	return *end == '/' && v >= 0 && v < 100 ? (int)v : -1;
}

static int
do_cstates(struct applying *a, const char *v)
{
	struct found *f;
	size_t n, i, k = 0;
	char *err = NULL;
	int r, lim = atoi(v);

	if ((r = probe(a->t, a->spec->root,
	    "/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable", &f, &n, &err)) != 0) {
		result(a, TUNE_CSTATES, TUNE_DENIED, v, reason(a->t, err));
		return r == VARIANT_ELOST ? r : 0;
	}
	/* the states deeper than the limit, to disable */
	for (i = 0; i < n; i++) {
		if (state_index(f[i].path) > lim) {
			struct found tmp = f[k];

			f[k++] = f[i];
			f[i] = tmp;
		}
	}
	if (n == 0)
		result(a, TUNE_CSTATES, TUNE_UNAVAILABLE, v,
		    xstrdup("no cpuidle states on this host"));
	else if (k == 0)
		result(a, TUNE_CSTATES, TUNE_APPLIED, v, xasprintf("no state deeper than "
		    "state%d", lim));
	else
		r = write_all(a, TUNE_CSTATES, v, "1", f, k);
	found_free(f, n);
	return r;
}

/* Run inner as root; 0, 1 (failed there: *why) or a TRANSPORT_E* code. */
static int
root_step(struct transport *t, const char *inner, int timeout_ms, char **why)
{
	struct transport_result res;
	int r;

	*why = NULL;
	r = variant_run_root(t, inner, timeout_ms, &res);
	if (r != 0 || res.exit.status != 0)
		*why = variant_step_error(t, r, &res);
	transport_result_release(&res);
	return r != 0 ? r : *why != NULL ? 1 : 0;
}

/* The shell command that stops or starts a service (name: fixed text). */
static char *
service_cmd(const char *name, const char *verb)
{
	return sh_format("if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; "
	    "then systemctl %q %q; elif command -v service >/dev/null 2>&1; then service %q %q; "
	    "else echo 'neither systemctl nor service here' >&2; exit 1; fi", verb, name, name,
	    verb);
}

static int
do_irqbalance(struct applying *a, const char *v)
{
	struct transport_result res;
	char *cmd, *why = NULL, *e = NULL;
	int r;

	cmd = sh_format("R=%q; grep -qx irqbalance \"$R\"/proc/[0-9]*/comm 2>/dev/null",
	    a->spec->root);
	r = transport_run(a->t, cmd, NULL, 0, 0, VARIANT_CMD_TIMEOUT_MS, &res);
	free(cmd);
	if (r != 0) {
		why = variant_step_error(a->t, r, &res);
		transport_result_release(&res);
		result(a, TUNE_IRQBALANCE, TUNE_DENIED, v, why);
		return lost(r) ? VARIANT_ELOST : 0;
	}
	r = res.exit.status;
	transport_result_release(&res);
	if (r != 0) {
		result(a, TUNE_IRQBALANCE, TUNE_APPLIED, v, xstrdup("not running"));
		return 0;
	}
	if (a->save != NULL && a->save(a->arg, SERVICE_PFX "irqbalance", "running", &e) != 0) {
		result(a, TUNE_IRQBALANCE, TUNE_DENIED, v, xasprintf("not stopped: cannot "
		    "keep its state: %s", e));
		free(e);
		return 0;
	}
	variant_saves_add(&a->st->saved, SERVICE_PFX "irqbalance", xstrdup("running"));
	cmd = service_cmd("irqbalance", "stop");
	r = root_step(a->t, cmd, VARIANT_CMD_TIMEOUT_MS, &why);
	free(cmd);
	if (r != 0) {
		result(a, TUNE_IRQBALANCE, TUNE_DENIED, v, xasprintf("cannot stop it: %s", why));
		free(why);
		return r < 0 && lost(r) ? VARIANT_ELOST : 0;
	}
	a->st->changed = 1;
	result(a, TUNE_IRQBALANCE, TUNE_APPLIED, v, xstrdup("stopped, was running"));
	return 0;
}

static const char drop_cmd[] = "sync; printf 3 > \"$R\"/proc/sys/vm/drop_caches";

static int
do_drop_caches(struct applying *a, const char *v)
{
	struct found *f;
	size_t n;
	char *err = NULL, *cmd, *why = NULL;
	int r;

	if ((r = probe(a->t, a->spec->root, "/proc/sys/vm/drop_caches", &f, &n, &err)) != 0) {
		result(a, TUNE_DROP_CACHES, TUNE_DENIED, v, reason(a->t, err));
		return r == VARIANT_ELOST ? r : 0;
	}
	found_free(f, n);
	if (n == 0) {
		result(a, TUNE_DROP_CACHES, TUNE_UNAVAILABLE, v,
		    xstrdup("no /proc/sys/vm/drop_caches on this host"));
		return 0;
	}
	/* once now: whether it may be done at all */
	cmd = sh_format("R=%q; %s", a->spec->root, drop_cmd);
	r = root_step(a->t, cmd, VARIANT_CMD_TIMEOUT_MS, &why);
	free(cmd);
	if (r != 0) {
		result(a, TUNE_DROP_CACHES, TUNE_DENIED, v, why);
		return r < 0 && lost(r) ? VARIANT_ELOST : 0;
	}
	a->st->drop = 1;
	result(a, TUNE_DROP_CACHES, TUNE_APPLIED, v, xstrdup("before each trial"));
	return 0;
}

static int
do_governor(struct applying *a, const char *v)
{
	return one_file(a, TUNE_GOVERNOR,
	    "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor", v, v,
	    "no cpufreq governor on this host");
}

static int
do_aslr(struct applying *a, const char *v)
{
	return one_file(a, TUNE_ASLR, "/proc/sys/kernel/randomize_va_space",
	    strcmp(v, "off") == 0 ? "0" : strcmp(v, "on") == 0 ? "2" : v, v,
	    "no kernel.randomize_va_space on this host");
}

static int
do_thp(struct applying *a, const char *v)
{
	return one_file(a, TUNE_THP, "/sys/kernel/mm/transparent_hugepage/enabled",
	    v, v, "no transparent huge pages on this host");
}

static int
do_numa_balancing(struct applying *a, const char *v)
{
	return one_file(a, TUNE_NUMA_BALANCING, "/proc/sys/kernel/numa_balancing",
	    strcmp(v, "off") == 0 ? "0" : "1", v,
	    "no kernel.numa_balancing on this host");
}

/* How each item is applied: 0, or -1 when the connection is lost. */
static int (*const appliers[TUNE_NITEMS])(struct applying *, const char *) = {
	[TUNE_GOVERNOR] = do_governor,
	[TUNE_BOOST] = do_boost,
	[TUNE_SMT] = do_smt,
	[TUNE_ASLR] = do_aslr,
	[TUNE_THP] = do_thp,
	[TUNE_NUMA_BALANCING] = do_numa_balancing,
	[TUNE_IRQBALANCE] = do_irqbalance,
	[TUNE_CSTATES] = do_cstates,
	[TUNE_DROP_CACHES] = do_drop_caches,
};

int
tune_apply(struct transport *t, const struct tune_spec *spec, variant_save_fn save,
    variant_log_fn log, void *arg, struct tune_state **out, char **err)
{
	struct applying a;
	const char *v;
	size_t i;
	int r = 0;

	*out = NULL;
	if (spec == NULL)
		return 0;
	a.t = t;
	a.st = xcalloc(1, sizeof(*a.st));
	a.st->profile = xstrdup(spec->profile);
	a.st->root = xstrdup(spec->root);
	a.save = save;
	a.log = log;
	a.arg = arg;
	a.spec = spec;
	*out = a.st;
	for (i = 0; i < TUNE_NITEMS && r == 0; i++) {
		if ((v = spec->value[i]) == NULL)
			continue;
		r = appliers[i](&a, v);
	}
	if (r != 0) {
		*err = xasprintf("%s: tune %s: the connection is lost", transport_name(t),
		    spec->profile);
		return VARIANT_ELOST;
	}
	return 0;
}

const struct tune_result *
tune_results(const struct tune_state *st, size_t *n)
{
	*n = st != NULL ? st->nres : 0;
	return st != NULL ? st->res : NULL;
}

int
tune_changed(const struct tune_state *st)
{
	return st != NULL && st->changed;
}

int
tune_per_trial(const struct tune_state *st)
{
	return st != NULL && st->drop;
}

json_t *
tune_state_json(const struct tune_state *st)
{
	json_t *o = json_object(), *items = json_array(), *it;
	size_t i;

	json_object_set_new(o, "profile", json_string(st->profile));
	for (i = 0; i < st->nres; i++) {
		const struct tune_result *r = &st->res[i];

		it = json_object();
		json_object_set_new(it, "item", json_string(tune_item_name(r->item)));
		json_object_set_new(it, "state", json_string(tune_outcome_name(r->outcome)));
		json_object_set_new(it, "value", json_string(r->value));
		json_object_set_new(it, "detail", r->detail ? json_string(r->detail) :
		    json_null());
		json_array_append_new(items, it);
	}
	json_object_set_new(o, "items", items);
	return o;
}

char *
tune_summary(const struct tune_state *st)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; st != NULL && i < st->nres; i++) {
		const struct tune_result *r = &st->res[i];

		strbuf_addf(&sb, "%s%s %s (%s%s%s)", i ? ", " : "", tune_item_name(r->item),
		    tune_outcome_name(r->outcome), r->value, r->detail ? ": " : "",
		    r->detail ? r->detail : "");
	}
	return strbuf_detach(&sb, NULL);
}

int
tune_before_trial(struct transport *t, const struct tune_state *st, char **err)
{
	char *cmd, *why = NULL;
	int r;

	if (!tune_per_trial(st))
		return 0;
	cmd = sh_format("R=%q; %s", st->root, drop_cmd);
	r = root_step(t, cmd, VARIANT_CMD_TIMEOUT_MS, &why);
	free(cmd);
	if (r == 0)
		return 0;
	*err = xasprintf("%s: tune %s: cannot drop the caches: %s", transport_name(t),
	    st->profile, why);
	free(why);
	return r < 0 && lost(r) ? VARIANT_ELOST : -1;
}

static int
write_back(struct transport *t, const char *path, const char *old, int timeout_ms,
    char **err)
{
	char *cmd, *why = NULL;
	int r;

	if (strncmp(path, SERVICE_PFX, strlen(SERVICE_PFX)) != 0)
		return variant_write_back(t, path, old, err);
	if (strcmp(old, "running") != 0)
		return 0;
	cmd = service_cmd(path + strlen(SERVICE_PFX), "start");
	r = root_step(t, cmd, timeout_ms, &why);
	free(cmd);
	if (r == 0)
		return 0;
	*err = xasprintf("%s: cannot start %s again: %s", transport_name(t),
	    path + strlen(SERVICE_PFX), why);
	free(why);
	return r < 0 && lost(r) ? VARIANT_ELOST : -1;
}

int
tune_write_back(struct transport *t, const char *path, const char *old, char **err)
{
	return write_back(t, path, old, VARIANT_CMD_TIMEOUT_MS, err);
}

void
tune_state_free(struct tune_state *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->nres; i++) {
		free(st->res[i].value);
		free(st->res[i].detail);
	}
	variant_saves_release(&st->saved);
	free(st->profile);
	free(st->root);
	free(st);
}

int
tune_undo(struct transport *t, struct tune_state *st, int timeout_ms, variant_log_fn log,
    void *arg, char **err)
{
	char *first = NULL, *e = NULL, *line;
	size_t i;
	int r, gone = 0;

	if (st == NULL)
		return 0;
	if (timeout_ms <= 0)
		timeout_ms = VARIANT_CMD_TIMEOUT_MS;
	for (i = st->saved.n; i-- > 0 && !gone; ) {
		r = write_back(t, st->saved.v[i].path, st->saved.v[i].old, timeout_ms, &e);
		if (r != 0) {
			if (first == NULL)
				first = xasprintf("tune %s: %s", st->profile, e);
			free(e);
			e = NULL;
			gone = r == VARIANT_ELOST;
		} else if (log != NULL) {
			line = xasprintf("tune %s: restored %s", st->profile, st->saved.v[i].path);
			log(arg, line);
			free(line);
		}
	}
	tune_state_free(st);
	if (first != NULL) {
		*err = first;
		return -1;
	}
	return 0;
}

/* --- Without a profile ------------------------------------------------------ */

char *
tune_untuned(const json_t *env)
{
	struct strbuf sb = STRBUF_INIT;
	const json_t *sys = json_object_get(env, "sysctl");
	const char *s;
	char *out;

	s = json_string_value(json_object_get(env, "governor"));
	if (s != NULL && strcmp(s, "performance") != 0)
		strbuf_addf(&sb, ", governor %s", s);
	s = json_string_value(json_object_get(env, "boost"));
	if (s != NULL && strcmp(s, "on") == 0)
		strbuf_addstr(&sb, ", boost on");
	s = json_string_value(json_object_get(sys, "kernel.randomize_va_space"));
	if (s != NULL && strcmp(s, "0") != 0)
		strbuf_addf(&sb, ", ASLR on (kernel.randomize_va_space %s)", s);
	s = json_string_value(json_object_get(sys, "kernel.numa_balancing"));
	if (s != NULL && strcmp(s, "0") != 0)
		strbuf_addstr(&sb, ", NUMA balancing on");
	if (json_is_true(json_object_get(env, "irqbalance")))
		strbuf_addstr(&sb, ", irqbalance running");
	if (sb.len == 0) {
		strbuf_release(&sb);
		return NULL;
	}
	out = strbuf_detach(&sb, NULL);
	memmove(out, out + 2, strlen(out + 2) + 1);	/* the first ", " */
	return out;
}
