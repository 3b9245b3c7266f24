/*
 * variant.c: apply a plan variant on a host (write tunables, run setup
 * commands) and undo it (teardown, old values back), each step one exec
 * channel.  See variant.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "shquote.h"
#include "transport.h"
#include "variant.h"
#include "xmalloc.h"

struct variant_state {
	const struct plan_variant *v;
	int		 sudo;		/* login user is not root */
	struct variant_saves saved;	/* writes done, in order */
	int		 setup_started;	/* teardown is due */
};

int
variant_is_empty(const struct plan_variant *v)
{
	return v == NULL || v->nwrites + v->nsetup + v->nteardown == 0;
}

void
variant_state_free(struct variant_state *st)
{
	if (st == NULL)
		return;
	variant_saves_release(&st->saved);
	free(st);
}

void
variant_saves_add(struct variant_saves *s, const char *path, char *old)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n].path = xstrdup(path);
	s->v[s->n].old = old;
	s->n++;
}

void
variant_saves_release(struct variant_saves *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].old);
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static void
vlog(variant_log_fn log, void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
vlog(variant_log_fn log, void *arg, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (log == NULL)
		return;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	log(arg, s);
	free(s);
}

/* The first line of what a host said, printable ASCII only, at most 200 bytes. */
static char *
first_line(const char *s)
{
	char *out = xmalloc(201);
	size_t n = 0;

	for (; s != NULL && *s != '\0' && *s != '\n' && n < 200; s++)
		out[n++] = (*s >= 0x20 && *s <= 0x7e) ? *s : '?';
	out[n] = '\0';
	return out;
}

/*
 * Run inner (a command line) as root: as is when the login user is root,
 * else through sudo -n sh -c, inner quoted as one word.
 */
static int
run_as_root(struct transport *t, int sudo, const char *inner, int timeout_ms,
    struct transport_result *res)
{
	char *cmd = sudo ? sh_format("sudo -n sh -c %q", inner) : xstrdup(inner);
	int r;

	r = transport_run(t, cmd, NULL, 0, VARIANT_MAX_OLD, timeout_ms, res);
	free(cmd);
	return r;
}

/* Why a step failed, from the transport or the command's output. */
static char *
step_error(struct transport *t, int r, const struct transport_result *res)
{
	char *line, *msg;

	if (r != 0)
		return xasprintf("%s: %s", transport_class(r), transport_error(t));
	line = first_line(res->errlen ? res->err : res->out);
	if (res->exit.status == -1)
		msg = xasprintf("killed by signal %s%s%s", res->exit.signal,
		    *line ? ": " : "", line);
	else
		msg = xasprintf("exit status %d%s%s", res->exit.status, *line ? ": " : "",
		    line);
	free(line);
	return msg;
}

/*
 * Why a file under debugfs cannot be read, when the reason is debugfs
 * itself (why: the failed read's message): not mounted, no such file in
 * this kernel, or the kernel refusing access.  A new string, or NULL.
 */
static char *
debugfs_hint(struct transport *t, const char *path, const char *why)
{
	struct transport_result res;
	int r, mounted;

	if (strncmp(path, VARIANT_DEBUGFS "/", strlen(VARIANT_DEBUGFS) + 1) != 0)
		return NULL;
	if (strstr(why, "Operation not permitted") != NULL ||
	    strstr(why, "Permission denied") != NULL)
		return xstrdup("the kernel refuses access to debugfs (kernel lockdown, "
		    "debugfs=off or no-mount on its command line, or a virtual machine that "
		    "forbids it): the variant cannot be applied on this host");
	if (strstr(why, "No such file or directory") == NULL)
		return NULL;
	r = transport_run(t, "grep -q '^[^ ]* " VARIANT_DEBUGFS " debugfs ' /proc/mounts",
	    NULL, 0, 0, VARIANT_CMD_TIMEOUT_MS, &res);
	mounted = r == 0 && res.exit.status == 0;
	transport_result_release(&res);
	if (r != 0)
		return NULL;
	if (!mounted)
		return xstrdup("debugfs is not mounted at " VARIANT_DEBUGFS " (as root: mount "
		    "-t debugfs none " VARIANT_DEBUGFS ")");
	return xstrdup("debugfs is mounted, and this kernel has no such file there (an "
	    "older or newer kernel, or another architecture, has other knobs)");
}

int
variant_run_root(struct transport *t, const char *inner, int timeout_ms,
    struct transport_result *res)
{
	const struct transport_info *info = transport_get_info(t);

	return run_as_root(t, strcmp(info->user, "root") != 0, inner, timeout_ms, res);
}

char *
variant_step_error(struct transport *t, int r, const struct transport_result *res)
{
	return step_error(t, r, res);
}

/* s without one trailing newline: a new string. */
static char *
chomp(const char *s, size_t len)
{
	if (len > 0 && s[len - 1] == '\n')
		len--;
	return xstrndup(s, len);
}

/* The bracketed word of a sysfs choice list ("a [b] c" -> "b"), or NULL. */
static char *
bracketed(const char *s)
{
	const char *a = strchr(s, '['), *b;

	if (a == NULL || (b = strchr(a, ']')) == NULL || b == a + 1)
		return NULL;
	return xstrndup(a + 1, (size_t)(b - a - 1));
}

/* Whether the content read back shows value. */
static int
took(const char *value, const char *readback)
{
	char *r = chomp(readback, strlen(readback)), *w, *v;
	int ok;

	v = chomp(value, strlen(value));
	ok = strcmp(r, v) == 0;
	if (!ok && (w = bracketed(r)) != NULL) {
		ok = strcmp(w, v) == 0;
		free(w);
	}
	free(r);
	free(v);
	return ok;
}

/*
 * Write value into path (as root), and read it back into *readback.
 * Returns 0, 1 when the command failed there (*why says how), or a
 * negative TRANSPORT_E* code.
 */
static int
write_value(struct transport *t, int sudo, const char *path, const char *value,
    int timeout_ms, char **readback, char **why)
{
	struct transport_result res;
	char *inner;
	int r;

	inner = sh_format("printf %%s %q > %q && cat %q", value, path, path);
	r = run_as_root(t, sudo, inner, timeout_ms, &res);
	free(inner);
	if (r != 0 || res.exit.status != 0)
		*why = step_error(t, r, &res);
	else
		*readback = xstrndup(res.out, res.outlen);
	transport_result_release(&res);
	return r != 0 ? r : (*why != NULL ? 1 : 0);
}

static int
lost(int r)
{
	return r == TRANSPORT_ELOST || r == TRANSPORT_ECONNECT || r == TRANSPORT_ETIMEOUT;
}

/* The result of a failed step: the host is lost, or the variant cannot be applied. */
static int
failed(int r)
{
	return r != 0 && lost(r) ? VARIANT_ELOST : -1;
}

/*
 * One write of variant_write(): read path's old content (as root), hand it
 * to save, write value and check that it took.  *old gets the old content
 * once it is saved (the write may then have happened, in part).  0, 1
 * (the step failed there, *why says which and why) or a negative
 * TRANSPORT_E* code (with *why).
 */
static int
write_saving(struct transport *t, int sudo, const char *path, const char *value,
    variant_save_fn save, void *arg, char **old, char **why)
{
	struct transport_result res;
	char *inner, *e = NULL, *back = NULL, *shown, *o, *hint;
	int r;

	*old = NULL;
	inner = sh_format("cat %q", path);
	r = run_as_root(t, sudo, inner, VARIANT_CMD_TIMEOUT_MS, &res);
	free(inner);
	if (r != 0 || res.exit.status != 0) {
		e = step_error(t, r, &res);
		transport_result_release(&res);
		hint = r == 0 ? debugfs_hint(t, path, e) : NULL;
		*why = xasprintf("cannot read %s: %s%s%s", path, e, hint ? ": " : "",
		    hint ? hint : "");
		free(hint);
		free(e);
		return r != 0 ? r : 1;
	}
	if (res.out_dropped > 0) {
		transport_result_release(&res);
		*why = xasprintf("%s holds more than %d bytes: not saved, not written", path,
		    VARIANT_MAX_OLD);
		return 1;
	}
	o = xstrndup(res.out, res.outlen);
	transport_result_release(&res);
	if (save != NULL && save(arg, path, o, &e) != 0) {
		*why = xasprintf("%s not written: cannot keep its old content: %s", path, e);
		free(e);
		free(o);
		return 1;
	}
	*old = o;
	r = write_value(t, sudo, path, value, VARIANT_CMD_TIMEOUT_MS, &back, &e);
	if (r != 0) {
		hint = r > 0 ? debugfs_hint(t, path, e) : NULL;
		*why = xasprintf("cannot write %s: %s%s%s", path, e, hint ? ": " : "",
		    hint ? hint : "");
		free(hint);
		free(e);
		return r;
	}
	if (!took(value, back)) {
		shown = first_line(back);
		*why = xasprintf("%s did not take the value: it reads \"%s\" after writing",
		    path, shown);
		free(shown);
		free(back);
		return 1;
	}
	free(back);
	return 0;
}

int
variant_write(struct transport *t, const char *path, const char *value,
    variant_save_fn save, void *arg, char **old, char **err)
{
	const struct transport_info *info = transport_get_info(t);
	char *why = NULL;
	int r;

	r = write_saving(t, strcmp(info->user, "root") != 0, path, value, save, arg, old,
	    &why);
	if (r == 0)
		return 0;
	*err = xasprintf("%s: %s", transport_name(t), why);
	free(why);
	return r > 0 ? -1 : failed(r);
}

int
variant_apply(struct transport *t, const struct plan_variant *v, variant_log_fn log,
    void *arg, struct variant_state **out, char **err)
{
	return variant_apply_saving(t, v, log, NULL, arg, out, err);
}

int
variant_apply_saving(struct transport *t, const struct plan_variant *v,
    variant_log_fn log, variant_save_fn save, void *arg, struct variant_state **out,
    char **err)
{
	const struct transport_info *info = transport_get_info(t);
	struct variant_state *st;
	struct transport_result res;
	char *why = NULL, *shown;
	size_t i;
	int r;

	*out = NULL;
	if (variant_is_empty(v))
		return 0;
	st = xcalloc(1, sizeof(*st));
	st->v = v;
	st->sudo = strcmp(info->user, "root") != 0;
	*out = st;
	for (i = 0; i < v->nwrites; i++) {
		const struct plan_write *w = &v->writes[i];
		char *old = NULL;

		r = write_saving(t, st->sudo, w->path, w->value, save, arg, &old, &why);
		if (old != NULL) {
			/* Saved before writing: a write that fails half-way is undone too. */
			variant_saves_add(&st->saved, w->path, old);
		}
		if (r != 0) {
			*err = xasprintf("%s: variant %s: %s", transport_name(t),
			    v->name ? v->name : "-", why);
			free(why);
			return r > 0 ? -1 : failed(r);
		}
		shown = first_line(st->saved.v[st->saved.n - 1].old);
		vlog(log, arg, "variant %s: wrote %s (was \"%s\")", v->name ? v->name : "-",
		    w->path, shown);
		free(shown);
	}
	if (v->nsetup + v->nteardown > 0)
		st->setup_started = 1;
	for (i = 0; i < v->nsetup; i++) {
		/* A shell command written by the plan's author: run as given. */
		r = transport_run(t, v->setup[i], NULL, 0, 0, VARIANT_CMD_TIMEOUT_MS, &res);
		if (r != 0 || res.exit.status != 0) {
			why = step_error(t, r, &res);
			transport_result_release(&res);
			*err = xasprintf("%s: variant %s: setup command %zu failed: %s",
			    transport_name(t), v->name ? v->name : "-", i + 1, why);
			free(why);
			return failed(r);
		}
		transport_result_release(&res);
		vlog(log, arg, "variant %s: setup command %zu done", v->name ? v->name : "-",
		    i + 1);
	}
	return 0;
}

/* Write old back to path (a sysfs choice list as its chosen word); as write_value(). */
static int
restore_one(struct transport *t, int sudo, const char *path, const char *old,
    int timeout_ms, char **why)
{
	char *restore, *back = NULL;
	int r;

	*why = NULL;
	if ((restore = bracketed(old)) == NULL)
		restore = xstrdup(old);
	r = write_value(t, sudo, path, restore, timeout_ms, &back, why);
	if (r == 0 && !took(restore, back)) {
		*why = xstrdup("the old value did not take");
		r = 1;
	}
	free(back);
	free(restore);
	return r;
}

int
variant_write_back(struct transport *t, const char *path, const char *old, char **err)
{
	const struct transport_info *info = transport_get_info(t);
	char *why = NULL;
	int r;

	r = restore_one(t, strcmp(info->user, "root") != 0, path, old,
	    VARIANT_CMD_TIMEOUT_MS, &why);
	if (r == 0)
		return 0;
	*err = xasprintf("%s: cannot restore %s: %s", transport_name(t), path, why);
	free(why);
	return r > 0 ? -1 : failed(r);
}

int
variant_undo(struct transport *t, struct variant_state *st, int timeout_ms,
    variant_log_fn log, void *arg, char **err)
{
	struct transport_result res;
	const char *name;
	char *why = NULL, *first = NULL;
	size_t i;
	int r, gone = 0;

	if (st == NULL)
		return 0;
	if (timeout_ms <= 0)
		timeout_ms = VARIANT_CMD_TIMEOUT_MS;
	name = st->v->name ? st->v->name : "-";
	for (i = 0; st->setup_started && i < st->v->nteardown && !gone; i++) {
		r = transport_run(t, st->v->teardown[i], NULL, 0, 0, timeout_ms, &res);
		if (r != 0 || res.exit.status != 0) {
			why = step_error(t, r, &res);
			if (first == NULL)
				first = xasprintf("%s: variant %s: teardown command %zu failed: %s",
				    transport_name(t), name, i + 1, why);
			free(why);
			gone = lost(r);
		} else
			vlog(log, arg, "variant %s: teardown command %zu done", name, i + 1);
		transport_result_release(&res);
	}
	for (i = st->saved.n; i-- > 0 && !gone; ) {
		const struct variant_saved *s = &st->saved.v[i];

		r = restore_one(t, st->sudo, s->path, s->old, timeout_ms, &why);
		if (why != NULL) {
			if (first == NULL)
				first = xasprintf("%s: variant %s: cannot restore %s: %s",
				    transport_name(t), name, s->path, why);
			gone = lost(r);
		} else
			vlog(log, arg, "variant %s: restored %s", name, s->path);
		free(why);
	}
	if (gone && first != NULL) {
		why = first;
		first = xasprintf("%s (the connection is lost: not restored)", why);
		free(why);
	}
	variant_state_free(st);
	if (first != NULL) {
		*err = first;
		return -1;
	}
	return 0;
}
