/*
 * test-variant.c: applying and undoing plan variants, for real, on this
 * machine through the local transport (the same code path as SSH hosts:
 * one exec channel per step, values quoted); the saver hook and writing
 * back a saved old content.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "tap.h"
#include "transport.h"
#include "variant.h"
#include "xmalloc.h"

static const char *dir;

/* variant_save_fn: what was saved, as "PATH=OLD;"; refuses when asked. */
struct saves {
	char	 text[512];
	int	 refuse;
};

static int
save(void *arg, const char *p, const char *old, char **why)
{
	struct saves *sv = arg;
	size_t n = strlen(sv->text);

	if (sv->refuse) {
		*why = xstrdup("disk full");
		return -1;
	}
	snprintf(sv->text + n, sizeof(sv->text) - n, "%s=%s;", strrchr(p, '/') + 1, old);
	return 0;
}

static char *
path(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void
put(const char *name, const char *content)
{
	char *p = path(name);

	tap_put(p, "w", content);
	free(p);
}

/* The file's content (a new string; "(missing)" when absent). */
static char *
get(const char *name)
{
	char *p = path(name), buf[4096];
	FILE *f = fopen(p, "r");
	size_t n;

	free(p);
	if (f == NULL)
		return xstrdup("(missing)");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return xstrdup(buf);
}

static int
exists(const char *name)
{
	char *p = path(name);
	int r = access(p, F_OK) == 0;

	free(p);
	return r;
}

static void
check_str(char *got, const char *want, const char *what)
{
	is_str(got, want, what);
	free(got);
}

/* The list of saved writes variants and tuning profiles keep. */
static void
test_saves(void)
{
	struct variant_saves s;
	char path[] = "/sys/x";

	memset(&s, 0, sizeof(s));
	variant_saves_add(&s, path, xstrdup("1\n"));
	path[5] = 'y';
	variant_saves_add(&s, path, xstrdup("always [never]"));
	ok(s.n == 2 && strcmp(s.v[0].path, "/sys/x") == 0 && strcmp(s.v[0].old, "1\n") == 0 &&
	    strcmp(s.v[1].path, "/sys/y") == 0 && strcmp(s.v[1].old, "always [never]") == 0,
	    "saves: kept in order, the path copied, the old content taken");
	variant_saves_release(&s);
	ok(s.n == 0 && s.v == NULL, "saves: released, the list is empty again");
	variant_saves_release(&s);
	ok(s.n == 0, "saves: releasing an empty list is fine");
}

int
main(void)
{
	struct transport_opts o;
	struct transport *t = NULL;
	struct variant_state *st = NULL;
	struct plan_write w[2];
	struct plan_variant v;
	char *err = NULL, *setup[1], *teardown[1], *p1, *p2;
	int r;

	if ((dir = tap_tmpdir("test-variant")) == NULL)
		return 1;
	test_saves();
	memset(&o, 0, sizeof(o));
	o.name = "local";
	o.local = 1;
	if (transport_open(&o, &t, NULL, &err) != 0) {
		printf("Bail out! local transport: %s\n", err);
		return 1;
	}

	/* An empty variant touches nothing. */
	memset(&v, 0, sizeof(v));
	v.name = (char *)"base";
	ok(variant_is_empty(&v), "a variant without writes or commands is empty");
	r = variant_apply(t, &v, NULL, NULL, &st, &err);
	ok(r == 0 && st == NULL, "applying it succeeds with nothing to undo");

	/* A write with setup and teardown, undone byte for byte. */
	put("tunable", "5\n");
	p1 = path("tunable");
	w[0].path = p1;
	w[0].value = (char *)"7";
	setup[0] = xasprintf("touch %s/setup-ran", dir);
	teardown[0] = xasprintf("rm %s/setup-ran && touch %s/teardown-ran", dir, dir);
	v.name = (char *)"tuned";
	v.writes = w;
	v.nwrites = 1;
	v.setup = setup;
	v.nsetup = 1;
	v.teardown = teardown;
	v.nteardown = 1;
	r = variant_apply(t, &v, NULL, NULL, &st, &err);
	is_int(r, 0, "apply: write, read back, setup");
	check_str(get("tunable"), "7", "the new value is in the file");
	ok(exists("setup-ran"), "the setup command ran");
	r = variant_undo(t, st, 0, NULL, NULL, &err);
	is_int(r, 0, "undo");
	check_str(get("tunable"), "5\n", "the old content is back, newline and all");
	ok(!exists("setup-ran") && exists("teardown-ran"), "the teardown command ran");

	/* Values and paths with shell metacharacters are data. */
	put("we'ird $(x) ;`y`", "old");
	p2 = path("we'ird $(x) ;`y`");
	w[0].path = p2;
	w[0].value = (char *)"$(touch pwned) `touch pwned`; ' \" | && x";
	v.nsetup = v.nteardown = 0;
	r = variant_apply(t, &v, NULL, NULL, &st, &err);
	is_int(r, 0, "apply to a path full of metacharacters");
	check_str(get("we'ird $(x) ;`y`"), "$(touch pwned) `touch pwned`; ' \" | && x",
	    "the value arrived literally");
	r = variant_undo(t, st, 0, NULL, NULL, &err);
	check_str(get("we'ird $(x) ;`y`"), "old", "and was undone");
	ok(!exists("pwned") && access("pwned", F_OK) != 0, "nothing ran");

	/* A second write that fails: the first one is undone. */
	put("tunable", "5\n");
	w[0].path = p1;
	w[0].value = (char *)"7";
	w[1].path = (char *)"/nonexistent-dir/tunable";
	w[1].value = (char *)"1";
	v.nwrites = 2;
	free(err);
	err = NULL;
	r = variant_apply(t, &v, NULL, NULL, &st, &err);
	ok(r == -1 && err != NULL && strstr(err, "cannot read /nonexistent-dir/tunable") != NULL,
	    "a missing path fails the variant, saying which");
	if (err != NULL)
		printf("# %s\n", err);
	check_str(get("tunable"), "7", "(the first write was done)");
	r = variant_undo(t, st, 0, NULL, NULL, &err);
	is_int(r, 0, "undo after a failed apply");
	check_str(get("tunable"), "5\n", "the first write is undone");

	/* A value that does not take. */
	w[0].path = (char *)"/dev/null";
	w[0].value = (char *)"1";
	v.nwrites = 1;
	free(err);
	err = NULL;
	r = variant_apply(t, &v, NULL, NULL, &st, &err);
	ok(r == -1 && err != NULL && strstr(err, "did not take") != NULL,
	    "a value that does not read back fails the variant");
	variant_undo(t, st, 0, NULL, NULL, &err);

	/* A failing setup command: its status, and teardown still runs. */
	put("tunable", "5\n");
	w[0].path = p1;
	w[0].value = (char *)"9";
	free(setup[0]);
	setup[0] = xstrdup("echo oops >&2; exit 3");
	v.nsetup = 1;
	v.nteardown = 1;
	free(teardown[0]);
	teardown[0] = xasprintf("touch %s/teardown-2", dir);
	free(err);
	err = NULL;
	r = variant_apply(t, &v, NULL, NULL, &st, &err);
	ok(r == -1 && err != NULL && strstr(err, "setup command 1 failed: exit status 3: oops") != NULL,
	    "a failing setup command fails the variant with its status and message");
	if (err != NULL)
		printf("# %s\n", err);
	r = variant_undo(t, st, 0, NULL, NULL, &err);
	ok(exists("teardown-2"), "teardown runs after a failed setup");
	check_str(get("tunable"), "5\n", "and the write is undone");

	/* The old content is handed to the saver before the write... */
	put("tunable", "5\n");
	put("other", "x");
	w[0].path = p1;
	w[0].value = (char *)"7";
	w[1].path = path("other");
	w[1].value = (char *)"y";
	v.nwrites = 2;
	v.nsetup = v.nteardown = 0;
	free(err);
	err = NULL;
	{
		struct saves sv = { "", 0 };

		r = variant_apply_saving(t, &v, NULL, save, &sv, &st, &err);
		is_int(r, 0, "apply with a saver");
		is_str(sv.text, "tunable=5\n;other=x;", "each old content was saved, in order");
		variant_undo(t, st, 0, NULL, NULL, &err);
		/* ... and a saver that cannot keep it stops the write. */
		sv.refuse = 1;
		r = variant_apply_saving(t, &v, NULL, save, &sv, &st, &err);
		ok(r == -1 && err != NULL && strstr(err, "not written: cannot keep its old content: "
		    "disk full") != NULL, "a saver's refusal fails the variant, saying why");
		check_str(get("tunable"), "5\n", "and nothing was written");
		variant_undo(t, st, 0, NULL, NULL, &err);
	}
	free(w[1].path);

	/* Writing back an old content saved by an earlier controller. */
	put("tunable", "9");
	free(err);
	err = NULL;
	is_int(variant_write_back(t, p1, "5\n", &err), 0, "write back a saved content");
	check_str(get("tunable"), "5\n", "the file holds it again");
	put("tunable", "never");
	is_int(variant_write_back(t, p1, "always madvise [never]\n", &err), 0,
	    "write back a sysfs choice list");
	check_str(get("tunable"), "never", "as its chosen word");
	ok(variant_write_back(t, "/nonexistent-dir/x", "1", &err) == -1 && err != NULL &&
	    strstr(err, "cannot restore /nonexistent-dir/x") != NULL, "a path that cannot be "
	    "written: -1 and why");

	free(err);
	free(setup[0]);
	free(teardown[0]);
	free(p1);
	free(p2);
	transport_close(t);
	return tap_done();
}
