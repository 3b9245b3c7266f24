/*
 * program-build.c: build the user's own programs and put them on hosts
 * (see program.h).
 *
 * A cross build runs the plan's build line with /bin/sh in a scratch copy
 * of the sources, with a directory first on PATH whose cc, gcc and c99
 * are the architecture's cross compiler with -static (and CC=cc), so that
 * a build line written for the host's `cc` makes a static binary for the
 * board.  Results are kept in XDG_CACHE_HOME/fleetmark/programs/
 * HASH-ARCH/ (HASH: the first 16 hex digits of the program's hash) with
 * the binary's name in the file `.name`; a build that fails keeps
 * nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deploy.h"
#include "digest.h"
#include "fsutil.h"
#include "proc.h"
#include "program.h"
#include "shquote.h"
#include "strbuf.h"
#include "strv.h"
#include "transport.h"
#include "xdg.h"
#include "xmalloc.h"

#define BUILD_TIMEOUT_MS	600000		/* one build, here or on a board */
#define BUILD_OUTPUT_MAX	(1 << 20)	/* what a build may print */
#define BUILD_ERROR_LINES	8		/* of its output in the message */
#define BINARY_MAX		(256 << 20)

/* The toolchains of `make agents` (Makefile: AGENT_CC_*). */
static const struct {
	const char	*arch;
	const char	*cc;
} cross[] = {
	{ "x86_64", "musl-gcc" },
	{ "aarch64", "aarch64-linux-gnu-gcc" },
	{ "armhf", "arm-linux-gnueabihf-gcc" },
	{ "ppc64", "powerpc64-linux-gnu-gcc" },
	{ "ppc64el", "powerpc64le-linux-gnu-gcc" },
	{ "s390x", "s390x-linux-gnu-gcc" },
};

static int
on_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *colon;
	char buf[4096];
	size_t n;

	for (p = path ? path : "/usr/bin:/bin"; *p; p = colon + 1) {
		colon = strchr(p, ':');
		n = colon ? (size_t)(colon - p) : strlen(p);
		if (n > 0 && snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog) <
		    (int)sizeof(buf) && access(buf, X_OK) == 0)
			return 1;
		if (colon == NULL)
			break;
	}
	return 0;
}

const char *
program_cross_cc(const char *arch)
{
	const char *off = getenv("FLEETMARK_NO_CROSS");
	size_t i;

	if (off != NULL && *off != '\0' && strcmp(off, "0") != 0)
		return NULL;
	for (i = 0; i < sizeof(cross) / sizeof(cross[0]); i++)
		if (strcmp(cross[i].arch, arch) == 0)
			return on_path(cross[i].cc) ? cross[i].cc : NULL;
	return NULL;
}

/* The first lines of a build's output, one line each, for a message. */
static char *
first_lines(const char *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = out ? out : "";
	int n = 0;

	while (*p && n < BUILD_ERROR_LINES) {
		size_t l = strcspn(p, "\n");

		if (l > 0) {
			strbuf_addf(&sb, "\n    %.*s", (int)(l > 200 ? 200 : l), p);
			n++;
		}
		p += l;
		if (*p == '\n')
			p++;
	}
	if (sb.len == 0)
		strbuf_addstr(&sb, " (it printed nothing)");
	return strbuf_detach(&sb, NULL);
}

static int
write_file(const char *path, const char *text, mode_t mode, char **err)
{
	return fs_write_atomic(path, text, strlen(text), mode, FS_NOSYNC, err);
}

/* Copy the sources into dir by their names. */
static int
copy_sources(const struct program *p, const char *dir, char **err)
{
	char *data = NULL, *to;
	size_t i, len;
	int r = 0;

	for (i = 0; r == 0 && i < p->nsources; i++) {
		if (fs_read_file(p->sources[i], PROGRAM_MAX_SOURCE, &data, &len, err) != 0)
			return -1;
		to = xasprintf("%s/%s", dir, p->source_names[i]);
		r = fs_write_atomic(to, data, len, 0644, FS_NOSYNC, err);
		free(to);
		free(data);
		data = NULL;
	}
	return r;
}

/*
 * The executable the build made in dir: p->binary, else the one regular
 * executable file that is not a source.  A new name, or NULL with *err.
 */
static char *
find_binary(const struct program *p, const char *dir, char **err)
{
	char **names = NULL, *path, *found = NULL;
	size_t n = 0, i, count = 0;
	struct stat st;

	if (p->binary != NULL) {
		path = xasprintf("%s/%s", dir, p->binary);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
			free(path);
			err_set(err, -1, "%s: the build made no executable %s", p->name, p->binary);
			return NULL;
		}
		free(path);
		return xstrdup(p->binary);
	}
	if (fs_list_dir(dir, &names, &n, err) != 0)
		return NULL;
	for (i = 0; i < n; i++) {
		if (names[i][0] == '.' || strv_find(p->source_names, p->nsources, names[i]) !=
		    STRV_NONE)
			continue;
		path = xasprintf("%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
			count++;
			if (found == NULL)
				found = xstrdup(names[i]);
		}
		free(path);
	}
	strv_free(names, n);
	if (count == 1)
		return found;
	free(found);
	err_set(err, -1, "%s: the build made %s executable file%s; name the program with "
	    "`program:`", p->name, count == 0 ? "no" : "more than one", count == 0 ? "" : "s");
	return NULL;
}

int
program_build_local(const struct program *p, const char *arch, char **path, char **err)
{
	static const char *const cc_names[] = { "cc", "gcc", "c99" };
	const char *cc = program_cross_cc(arch);
	char *cache = NULL, *dir = NULL, *tmp = NULL, *bin = NULL, *f = NULL, *name = NULL;
	char *out = NULL, *script = NULL, *lines;
	char *argv[4];
	size_t i, len;
	int rc = -1, status;

	if (cc == NULL)
		return 1;
	cache = xdg_cache_dir("programs");
	dir = xasprintf("%s/%.16s-%s", cache, p->hash, arch);
	f = xasprintf("%s/.name", dir);
	if (access(f, R_OK) == 0 && fs_read_file(f, 256, &name, &len, err) == 0) {
		name[strcspn(name, "\n")] = '\0';
		*path = xasprintf("%s/%s", dir, name);
		if (access(*path, X_OK) == 0) {
			rc = 0;
			goto out;
		}
		free(*path);
		*path = NULL;
	}
	if (fs_mkdir_p(cache, 0755, err) != 0)
		goto out;
	tmp = xasprintf("%s/.build-%.16s-%s.XXXXXX", cache, p->hash, arch);
	if (mkdtemp(tmp) == NULL) {
		err_set(err, -1, "cannot create a build directory in %s: %s", cache,
		    strerror(errno));
		goto out;
	}
	bin = xasprintf("%s/.fleetmark-bin", tmp);
	if (fs_mkdir_p(bin, 0755, err) != 0 || copy_sources(p, tmp, err) != 0)
		goto out;
	free(script);
	script = sh_format("#!/bin/sh\nexec %q -static \"$@\"\n", cc);
	/* the names a build line calls the compiler by, each the cross compiler */
	for (i = 0; i < sizeof(cc_names) / sizeof(cc_names[0]); i++) {
		free(f);
		f = xasprintf("%s/%s", bin, cc_names[i]);
		if (write_file(f, script, 0755, err) != 0)
			goto out;
	}
	free(script);
	script = sh_format("cd %q && PATH=%q:\"$PATH\" && CC=cc && export PATH CC && "
	    "exec /bin/sh -c %q 2>&1", tmp, bin, p->build);
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = NULL;
	if (proc_capture(argv, BUILD_OUTPUT_MAX, BUILD_TIMEOUT_MS, &out, &len, &status,
	    err) != 0)
		goto out;
	if (status != 0) {
		lines = first_lines(out);
		err_set(err, -1, "%s: the build for %s (%s) failed with status %d:%s", p->name,
		    arch, cc, status, lines);
		free(lines);
		goto out;
	}
	free(name);
	if ((name = find_binary(p, tmp, err)) == NULL)
		goto out;
	free(f);
	f = xasprintf("%s/.name", tmp);
	free(script);
	script = xasprintf("%s\n", name);
	if (write_file(f, script, 0644, err) != 0)
		goto out;
	/* into place at once: a concurrent build of the same hash wins or loses whole */
	if (rename(tmp, dir) != 0 && errno != EEXIST && errno != ENOTEMPTY) {
		err_set(err, -1, "cannot move the build of %s into %s: %s", p->name, dir,
		    strerror(errno));
		goto out;
	}
	*path = xasprintf("%s/%s", dir, name);
	rc = 0;
out:
	if (tmp != NULL && access(tmp, F_OK) == 0) {
		char *rm[] = { "rm", "-rf", tmp, NULL }, *e = NULL;
		int st;

		if (proc_run(rm, &st, &e) != 0)
			free(e);
	}
	free(cache);
	free(dir);
	free(tmp);
	free(bin);
	free(f);
	free(name);
	free(out);
	free(script);
	return rc;
}

/* Build on the host with its own compiler, cached there by the hash. */
static int
build_on_host(struct transport *t, const struct program *p, const char *workdir,
    const char *dir, char **path, char **err)
{
	struct strbuf tar = STRBUF_INIT, names = STRBUF_INIT;
	struct transport_result r;
	char *data = NULL, *cmd = NULL, *vars = NULL, *lines, zero[1024];
	size_t i, len;
	int rc = TRANSPORT_ELOCAL;

	for (i = 0; i < p->nsources; i++) {
		if (fs_read_file(p->sources[i], PROGRAM_MAX_SOURCE, &data, &len, err) != 0)
			goto out;
		if (deploy_tar_add(&tar, p->source_names[i], data, len) != 0) {
			err_set(err, -1, "%s: source name %s is too long", p->name,
			    p->source_names[i]);
			goto out;
		}
		free(data);
		data = NULL;
		strbuf_addf(&names, " %s ", p->source_names[i]);
	}
	memset(zero, 0, sizeof(zero));
	strbuf_add(&tar, zero, sizeof(zero));
	/*
	 * Exit 3: no compiler; 4: the build failed (its output on stderr);
	 * 5: not exactly one executable; DEPLOY_EXIT_UNSAFE: a directory or
	 * the binary cannot be trusted (deploy.h).  The build is made in a
	 * private directory (mktemp -d) and moved into place whole, so that
	 * two controllers never see half a build; one made before is taken
	 * only when its directory and binary can be trusted.
	 */
	vars = sh_format("W=%q; d=%q; build=%q; b=%q; srcs=%q; ", workdir, dir, p->build,
	    p->binary ? p->binary : "", names.buf ? names.buf : "");
	cmd = xasprintf("%s%sfm_mk \"$W\" \"$W/programs\" || { cat > /dev/null; exit %d; }; "
	    "set -e; if ! fm_ok d \"$d\" || [ ! -s \"$d/.name\" ]; then "
	    "command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || "
	    "{ cat > /dev/null; echo 'no C compiler (cc, gcc)' >&2; exit 3; }; "
	    "command -v cc >/dev/null 2>&1 || CC=gcc; "
	    "t=$(mktemp -d \"$W/programs/.build.XXXXXX\"); cd \"$t\"; tar xf -; "
	    "if ! /bin/sh -c \"$build\" > .build.log 2>&1; then head -n %d .build.log >&2; cd /; rm -rf \"$t\"; "
	    "exit 4; fi; if [ -z \"$b\" ]; then n=0; for f in *; do "
	    "[ -f \"$f\" ] && [ -x \"$f\" ] || continue; case \"$srcs\" in *\" $f \"*) continue;; esac; "
	    "b=$f; n=$((n+1)); done; [ \"$n\" = 1 ] || { echo \"the build made $n executables\" >&2; "
	    "cd /; rm -rf \"$t\"; exit 5; }; fi; [ -x \"$b\" ] || { echo \"no executable $b\" >&2; "
	    "cd /; rm -rf \"$t\"; exit 5; }; echo \"$b\" > .name; cd /; rm -rf \"$d\"; mv \"$t\" \"$d\"; "
	    "else cat > /dev/null; fi; n=$(cat \"$d/.name\"); "
	    "fm_need d \"$d\" || exit %d; fm_need - \"$d/$n\" || exit %d; printf '%%s/%%s\\n' \"$d\" \"$n\"",
	    vars, deploy_sh_lib(), DEPLOY_EXIT_UNSAFE, BUILD_ERROR_LINES, DEPLOY_EXIT_UNSAFE,
	    DEPLOY_EXIT_UNSAFE);
	if ((rc = transport_run(t, cmd, tar.buf, tar.len, 0, BUILD_TIMEOUT_MS, &r)) != 0) {
		*err = xasprintf("%s: building %s there: %s", transport_name(t), p->name,
		    transport_error(t));
		goto out;
	}
	if (r.exit.status == DEPLOY_EXIT_UNSAFE) {
		*err = deploy_unsafe_error(t, r.err);
		transport_result_release(&r);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	if (r.exit.status != 0) {
		lines = first_lines(r.err);
		*err = xasprintf("%s: cannot build %s there (its cc): %s", transport_name(t),
		    p->name, r.exit.status == 3 ? "no C compiler (cc, gcc) and no cross "
		    "compiler here for its architecture" : lines);
		free(lines);
		transport_result_release(&r);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	*path = xstrndup(r.out, strcspn(r.out, "\n"));
	transport_result_release(&r);
	rc = 0;
out:
	strbuf_release(&tar);
	strbuf_release(&names);
	free(data);
	free(cmd);
	free(vars);
	return rc;
}

int
program_deploy(struct transport *t, const struct program *p, const char *arch,
    const char *dir, char **path, const char **how, char **err)
{
	struct transport_result r;
	char *local = NULL, *data = NULL, *remote = NULL, *hostdir = NULL, sha[65], *base;
	size_t len;
	int rc, up;

	if (p->command != NULL) {
		*path = xstrdup(p->command);
		*how = "a command";
		return 0;
	}
	rc = program_build_local(p, arch, &local, err);
	if (rc < 0) {
		char *e = *err;

		*err = xasprintf("%s: %s", transport_name(t), e);
		free(e);
		return TRANSPORT_EREMOTE;
	}
	if (rc == 1) {
		hostdir = xasprintf("%s/programs/%.16s-src", dir, p->hash);
		rc = build_on_host(t, p, dir, hostdir, path, err);
		free(hostdir);
		*how = "built there";
		return rc;
	}
	if (fs_read_file(local, BINARY_MAX, &data, &len, err) != 0) {
		rc = TRANSPORT_ELOCAL;
		goto out;
	}
	digest_sha256_hex(data, len, sha);
	base = strrchr(local, '/') + 1;
	remote = xasprintf("programs/%.16s/%s", sha, base);
	rc = deploy_put(t, p->name, data, len, dir, remote, "echo ok", &r, &up, err);
	if (rc != 0)
		goto out;
	transport_result_release(&r);
	*path = xasprintf("%s/%s", dir, remote);
	*how = up ? "uploaded" : "already there";
out:
	free(local);
	free(data);
	free(remote);
	return rc;
}
