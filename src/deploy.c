/*
 * deploy.c: get a working agent onto a host (see deploy.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents.h"
#include "deploy.h"
#include "digest.h"
#include "fsutil.h"
#include "proc.h"
#include "shquote.h"
#include "strbuf.h"
#include "strv.h"
#include "transport.h"
#include "wire.h"
#include "xmalloc.h"

#define STEP_TIMEOUT_MS		30000		/* a quick command on the host */
#define UPLOAD_TIMEOUT_MS	300000		/* a binary over a slow link */
#define BUILD_TIMEOUT_MS	600000		/* compiling on a slow board */
#define SOURCE_MAX		(4 << 20)	/* the agent's sources, bounded */

void
deploy_result_release(struct deploy_result *res)
{
	if (res == NULL)
		return;
	free(res->path);
	free(res->version);
	free(res->dir);
	free(res->own_dir);
	memset(res, 0, sizeof(*res));
}

char *
deploy_expand_dir(const char *dir, const char *home)
{
	if (strcmp(dir, "~") == 0)
		return xstrdup(home);
	if (strncmp(dir, "~/", 2) == 0)
		return xasprintf("%s/%s", home, dir + 2);
	return xstrdup(dir);
}

/* --- the source archive ------------------------------------------------------ */

/* One regular file as a ustar member (name under 100 bytes). */
static int
tar_add(struct strbuf *t, const char *name, const char *data, size_t len)
{
	unsigned char h[512];
	unsigned int sum = 0;
	size_t i;

	if (strlen(name) >= 100)
		return -1;
	memset(h, 0, sizeof(h));
	memcpy(h, name, strlen(name));
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)len);
	/* a fixed time stamp: the same sources always hash the same */
	snprintf((char *)h + 136, 12, "%011llo", 1700000000ULL);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < sizeof(h); i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	strbuf_add(t, h, sizeof(h));
	strbuf_add(t, data, len);
	memset(h, 0, sizeof(h));
	if (len % 512)
		strbuf_add(t, h, 512 - len % 512);
	return 0;
}

int
deploy_tar_add(struct strbuf *t, const char *name, const void *data, size_t len)
{
	return tar_add(t, name, data, len);
}

/* Whether the file name of directory sub is one of the agent's sources. */
static int
is_source(const char *sub, const char *name)
{
	size_t l = strlen(name);

	/* of include/, the agent needs only the wire format */
	if (strcmp(sub, "include") == 0 && strcmp(name, "wire.h") != 0)
		return 0;
	return strcmp(name, "Makefile") == 0 || (l > 2 && name[l - 2] == '.' &&
	    (name[l - 1] == 'c' || name[l - 1] == 'h'));
}

/* Add every *.c, *.h and Makefile of top/sub, in name order. */
static int
tar_add_dir(struct strbuf *t, const char *top, const char *sub, char **err)
{
	char *dir = xasprintf("%s/%s", top, sub), **names, *path, *name, *data, *e;
	size_t n, i, len;
	int rc = -1, en;

	if (fs_list_dir(dir, &names, &n, &e) != 0) {
		en = errno;
		free(e);
		*err = xasprintf("agent sources: %s: %s", dir, strerror(en));
		free(dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!is_source(sub, names[i]))
			continue;
		path = xasprintf("%s/%s", dir, names[i]);
		name = xasprintf("%s/%s", sub, names[i]);
		if (fs_read_file(path, SOURCE_MAX, &data, &len, &e) != 0) {
			*err = xasprintf("agent sources: %s", e);
			free(e);
			free(path);
			free(name);
			goto out;
		}
		if (tar_add(t, name, data, len) != 0 || t->len > SOURCE_MAX) {
			*err = xasprintf("agent sources: %s: name too long or sources too big", path);
			free(data);
			free(path);
			free(name);
			goto out;
		}
		free(data);
		free(path);
		free(name);
	}
	rc = 0;
out:
	strv_free(names, n);
	free(dir);
	return rc;
}

/* Where the agent's sources are: a source tree, or the installed copy. */
static char *
source_top(void)
{
	char *top = agents_source_tree(), *exe, *p;
	struct stat st;

	if (top != NULL)
		return top;
	if ((exe = proc_exe_dir()) == NULL)
		return NULL;
	p = xasprintf("%s/../lib/fleetmark/src", exe);
	free(exe);
	if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
		return p;
	free(p);
	return NULL;
}

int
deploy_source_archive(unsigned char **tar, size_t *len, char sha256[65], char **err)
{
	struct strbuf t = STRBUF_INIT;
	unsigned char zero[1024];
	char *top;

	if ((top = source_top()) == NULL) {
		*err = xstrdup("the agent's sources are not available (not running "
		    "from a source tree, and no installed copy)");
		return -1;
	}
	if (tar_add_dir(&t, top, "agent", err) != 0 ||
	    tar_add_dir(&t, top, "agent/bench", err) != 0 ||
	    tar_add_dir(&t, top, "include", err) != 0) {
		free(top);
		strbuf_release(&t);
		return -1;
	}
	free(top);
	memset(zero, 0, sizeof(zero));
	strbuf_add(&t, zero, sizeof(zero));
	digest_sha256_hex(t.buf, t.len, sha256);
	*tar = (unsigned char *)strbuf_detach(&t, len);
	return 0;
}

/* --- on the host ------------------------------------------------------------- */

/* Run cmd with optional input; 0 and res filled, or a code with *err set. */
static int
step(struct transport *t, const char *what, const char *cmd, const void *in,
    size_t inlen, int timeout_ms, struct transport_result *res, char **err)
{
	int r;

	memset(res, 0, sizeof(*res));
	if ((r = transport_run(t, cmd, in, inlen, 0, timeout_ms, res)) != 0) {
		*err = xasprintf("%s: %s: %s", transport_name(t), what, transport_error(t));
		transport_result_release(res);
		return r;
	}
	return 0;
}

/* The first line of s, trimmed, into a new string. */
static char *
first_line(const char *s)
{
	size_t n = strcspn(s ? s : "", "\r\n");

	return xstrndup(s ? s : "", n);
}

/* Check `agent version` output: "fleetmark-agent V protocol N ARCH". */
static int
check_version(struct transport *t, const char *out, struct deploy_result *res,
    char **err)
{
	char *line = first_line(out), v[32];
	int proto = -1;

	if (sscanf(line, "fleetmark-agent %31s protocol %d", v, &proto) != 2) {
		*err = xasprintf("%s: the deployed agent does not run there (it said \"%.120s\")",
		    transport_name(t), line);
		free(line);
		return TRANSPORT_EREMOTE;
	}
	if (proto != WIRE_PROTO) {
		*err = xasprintf("%s: the agent there speaks protocol %d, this controller %d",
		    transport_name(t), proto, WIRE_PROTO);
		free(line);
		return TRANSPORT_EREMOTE;
	}
	res->version = line;
	return 0;
}

/*
 * Cached when the file $p is there and its sum matches: sha256sum ($h)
 * where the host has it (the busybox of small boards has no cksum), else
 * the POSIX cksum ($c, "CRC SIZE"); a host with neither gets the upload,
 * which verifies.  Sets ok=1 when cached.
 */
#define CACHE_CHECK	"ok=; if [ -x \"$p\" ]; then " \
	"if command -v sha256sum >/dev/null 2>&1; then s=$(sha256sum < \"$p\"); " \
	"[ \"${s%% *}\" = \"$h\" ] && ok=1; " \
	"elif command -v cksum >/dev/null 2>&1; then " \
	"[ \"$(cksum < \"$p\")\" = \"$c\" ] && ok=1; fi; fi; "

/* deploy_put(); absent: the first step found no cached copy, so none is
 * looked for again and the upload makes the directory. */
static int
put(struct transport *t, const char *what, const void *data, size_t len,
    const char *path, const char *then, int absent, struct transport_result *out,
    int *uploaded, char **err)
{
	struct transport_result r;
	char sha[65], *cmd = NULL, *want = NULL, *dir = NULL;
	int rc;

	*uploaded = 0;
	dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
	if (absent)
		goto upload;
	digest_sha256_hex(data, len, sha);
	want = xasprintf("%u %zu", transport_cksum(data, len), len);
	cmd = sh_format("p=%q; h=%q; c=%q; %s"
	    "if [ -n \"$ok\" ]; then %s; else mkdir -p \"${p%%/*}\" && echo upload; fi",
	    path, sha, want, CACHE_CHECK, then);
	if ((rc = step(t, "checking the cache", cmd, NULL, 0, STEP_TIMEOUT_MS, &r, err)) != 0)
		goto out;
	if (r.exit.status == 0 && strncmp(r.out, "upload", 6) != 0) {
		*out = r;
		goto out;
	}
	if (r.exit.status != 0) {
		*err = xasprintf("%s: cannot create %s: %.200s", transport_name(t), dir, r.err);
		transport_result_release(&r);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	transport_result_release(&r);
upload:
	/* `then` in the upload's own channel: one round trip fewer */
	memset(out, 0, sizeof(*out));
	if ((rc = transport_upload_run(t, data, len, path, 0755, then, UPLOAD_TIMEOUT_MS,
	    out)) != 0) {
		*err = xasprintf("%s: uploading %s: %s", transport_name(t), what,
		    transport_error(t));
		goto out;
	}
	*uploaded = 1;
out:
	free(cmd);
	free(want);
	free(dir);
	return rc;
}

int
deploy_put(struct transport *t, const char *what, const void *data, size_t len,
    const char *path, const char *then, struct transport_result *out, int *uploaded,
    char **err)
{
	return put(t, what, data, len, path, then, 0, out, uploaded, err);
}

/*
 * The agent binaries, each read and summed once for the whole run (a
 * thousand hosts' uploads share one copy), kept until the program ends.
 */
struct bin_cache {
	char		*path;
	char		*data;
	size_t		 len;
	char		 sha256[65];
	char		*want;		/* "CRC SIZE", as cksum prints it */
};

static pthread_mutex_t bins_mu = PTHREAD_MUTEX_INITIALIZER;
static struct bin_cache *bins;
static size_t nbins, bins_cap;

static const struct bin_cache *
bin_load(const char *path, char **err)
{
	struct bin_cache *b = NULL;
	char *data;
	size_t i, len;

	pthread_mutex_lock(&bins_mu);
	for (i = 0; i < nbins; i++)
		if (strcmp(bins[i].path, path) == 0) {
			b = &bins[i];
			goto out;
		}
	if (fs_read_file(path, 256 << 20, &data, &len, err) != 0)
		goto out;
	xgrow(&bins, &bins_cap, nbins + 1, sizeof(*bins));
	b = &bins[nbins++];
	b->path = xstrdup(path);
	b->data = data;
	b->len = len;
	digest_sha256_hex(data, len, b->sha256);
	b->want = xasprintf("%u %zu", transport_cksum(data, len), len);
out:
	pthread_mutex_unlock(&bins_mu);
	return b;
}

/*
 * The prebuilt agent: cached says what the first step found (1: there
 * and intact, 0: not there, -1: not looked for).  An intact copy was
 * checked by `version` when it was uploaded; serve's hello checks it
 * again (its protocol), so it costs no channel of its own.
 */
static int
deploy_prebuilt(struct transport *t, const char *dir, const struct agent_bin *bin,
    int cached, struct deploy_result *res, char **err)
{
	const struct bin_cache *b;
	struct transport_result r;
	char *path = NULL, *what = NULL;
	int rc;

	if ((b = bin_load(bin->path, err)) == NULL)
		return TRANSPORT_ELOCAL;
	memcpy(res->sha256, b->sha256, sizeof(res->sha256));
	path = xasprintf("%s/agents/%.16s/" AGENTS_BINARY, dir, res->sha256);
	if (cached == 1) {
		res->path = path;
		return 0;
	}
	what = xasprintf("the %s agent", bin->arch);
	rc = put(t, what, b->data, b->len, path, "\"$p\" version", cached == 0, &r,
	    &res->uploaded, err);
	if (rc != 0)
		goto out;
	rc = check_version(t, r.out, res, err);
	transport_result_release(&r);
	if (rc == 0) {
		res->path = path;
		path = NULL;
	}
out:
	free(what);
	free(path);
	return rc;
}

/*
 * For the first step: the cache check of every prebuilt agent in the
 * work directory $d, "cached PREFIX" for each one there intact (only the
 * host's own architecture's is, as a rule).  NULL when there is none.
 */
static char *
cached_check(const struct agent_set *set)
{
	const struct bin_cache *b;
	struct strbuf sb = STRBUF_INIT;
	char *e = NULL, *q;
	size_t i;

	for (i = 0; set != NULL && i < set->n; i++) {
		if ((b = bin_load(set->bins[i].path, &e)) == NULL) {
			free(e);
			e = NULL;
			continue;
		}
		/* hex and digits: nothing to quote */
		q = xasprintf("%.16s %s %s", b->sha256, b->sha256, b->want);
		strbuf_addf(&sb, "%s'%s'", sb.len ? " " : "for e in ", q);
		free(q);
	}
	if (sb.len == 0)
		return NULL;
	strbuf_addf(&sb, "; do set -- $e; p=\"$d/agents/$1/" AGENTS_BINARY "\"; h=$2; "
	    "c=\"$3 $4\"; [ -x \"$p\" ] || continue; %s[ -z \"$ok\" ] || "
	    "echo \"cached $1\"; done", CACHE_CHECK);
	return strbuf_detach(&sb, NULL);
}

static int
deploy_source(struct transport *t, const char *dir, struct deploy_result *res,
    char **err)
{
	struct transport_result r;
	unsigned char *tar = NULL;
	char *cmd = NULL, *sub = NULL;
	size_t len;
	int rc;

	if (deploy_source_archive(&tar, &len, res->sha256, err) != 0)
		return TRANSPORT_ELOCAL;
	sub = xasprintf("src/%.16s", res->sha256);
	res->path = xasprintf("%s/%s", dir, sub);	/* the build directory, for now */
	/*
	 * Build in a private directory and move it into place, so that two
	 * controllers building at once never see a half-built agent.  No
	 * make is needed: one compiler call.  Exit 3: no compiler.
	 */
	cmd = sh_format("set -e; d=%q; a=\"$d/agent/" AGENTS_BINARY "\"; "
	    "if [ ! -x \"$a\" ]; then "
	    "cc=$(command -v cc || command -v gcc || command -v clang || true); "
	    "[ -n \"$cc\" ] || { cat > /dev/null; echo 'no C compiler (cc, gcc, clang)' >&2; exit 3; }; "
	    "t=\"$d.tmp.$$\"; rm -rf \"$t\"; mkdir -p \"$t\"; cd \"$t\"; tar xf -; cd agent; "
	    "\"$cc\" -std=c99 -D_GNU_SOURCE -O2 -I. -I../include -o " AGENTS_BINARY
	    " *.c bench/*.c -lpthread -lm; cd /; rm -rf \"$d\"; mv \"$t\" \"$d\"; "
	    "else cat > /dev/null; fi; \"$a\" version", res->path);
	rc = step(t, "building the agent", cmd, tar, len, BUILD_TIMEOUT_MS, &r, err);
	if (rc != 0)
		goto out;
	if (r.exit.status != 0) {
		char *line = first_line(r.err);

		*err = xasprintf("%s: cannot build the agent from source there (%s %s): %s",
		    transport_name(t), res->os, res->machine,
		    r.exit.status == 3 ? "no C compiler (cc, gcc, clang)" : line);
		free(line);
		transport_result_release(&r);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	res->built = 1;
	res->uploaded = 1;
	free(res->path);
	res->path = NULL;
	if ((rc = check_version(t, r.out, res, err)) == 0)
		res->path = xasprintf("%s/%s/agent/" AGENTS_BINARY, dir, sub);
	transport_result_release(&r);
out:
	free(tar);
	free(cmd);
	free(sub);
	return rc;
}

int
deploy_agent(struct transport *t, const char *workdir, enum fleet_agent mode,
    struct deploy_result *res, char **err)
{
	struct agent_set *set = NULL;
	const struct agent_bin *bin = NULL;
	struct transport_result r;
	char *dir = NULL, *cmd, *wd, *check = NULL, home[1024];
	int rc, cached = -1;

	memset(res, 0, sizeof(*res));
	*err = NULL;
	if (mode != FLEET_AGENT_SOURCE) {
		set = agents_find();
		check = cached_check(set);
	}
	/*
	 * The work directory, "~" expanded there: when it (or its agents/ or
	 * programs/) exists but this login user cannot write it -- root and
	 * a bench user sharing /tmp/fleetmark, whoever came second -- the
	 * user's own WORKDIR-UID instead, said on a fourth line.
	 */
	if (strcmp(workdir, "~") == 0)
		wd = xstrdup("d=\"$HOME\"");
	else if (strncmp(workdir, "~/", 2) == 0)
		wd = sh_format("d=\"$HOME\"/%q", workdir + 2);
	else
		wd = sh_format("d=%q", workdir);
	/* and, in the same channel, whether a prebuilt agent is there already */
	cmd = xasprintf("uname -s; uname -m; printf '%%s\\n' \"$HOME\"; %s; w=; "
	    "for x in \"$d\" \"$d/agents\" \"$d/programs\"; do "
	    "[ ! -e \"$x\" ] || { [ -w \"$x\" ] && [ -x \"$x\" ]; } || w=1; done; "
	    "[ -z \"$w\" ] || { d=\"$d-$(id -u)\"; printf 'other %%s\\n' \"$d\"; }%s%s",
	    wd, check != NULL ? "; " : "", check != NULL ? check : "");
	free(wd);
	free(check);
	rc = step(t, "finding its architecture", cmd, NULL, 0, STEP_TIMEOUT_MS, &r, err);
	free(cmd);
	if (rc != 0) {
		agents_free(set);
		return rc;
	}
	if (r.exit.status != 0 || sscanf(r.out, "%31s %31s %1023s", res->os,
	    res->machine, home) != 3 || home[0] != '/') {
		*err = xasprintf("%s: uname failed there: %.200s", transport_name(t), r.err);
		transport_result_release(&r);
		agents_free(set);
		return TRANSPORT_EREMOTE;
	}
	if ((wd = strstr(r.out, "\nother /")) != NULL) {
		wd += strlen("\nother ");
		res->own_dir = xstrndup(wd, strcspn(wd, "\n"));
	}
	snprintf(res->arch, sizeof(res->arch), "%s", agents_arch_for_machine(res->machine));
	if (strcmp(res->os, "Linux") != 0) {
		transport_result_release(&r);
		agents_free(set);
		return err_set(err, TRANSPORT_EREMOTE,
		    "%s: the agent runs on Linux only, this host runs %s",
		    transport_name(t), res->os);
	}
	dir = res->own_dir != NULL ? xstrdup(res->own_dir) : deploy_expand_dir(workdir, home);
	res->dir = xstrdup(dir);
	if (set != NULL)
		bin = agents_lookup(set, res->arch);
	if (bin != NULL) {
		const struct bin_cache *b = bin_load(bin->path, err);
		char *line = NULL;

		if (b != NULL) {
			line = xasprintf("\ncached %.16s\n", b->sha256);
			cached = strstr(r.out, line) != NULL;
		}
		free(line);
		free(*err);
		*err = NULL;
	}
	transport_result_release(&r);
	if (bin != NULL)
		rc = deploy_prebuilt(t, dir, bin, cached, res, err);
	else if (mode == FLEET_AGENT_PREBUILT) {
		*err = xasprintf("%s: no prebuilt agent for %s (%s); run 'make agents' "
		    "or set 'agent: source' for a host with a compiler",
		    transport_name(t), res->arch, res->machine);
		rc = TRANSPORT_EREMOTE;
	} else {
		rc = deploy_source(t, dir, res, err);
		if (rc != 0 && mode == FLEET_AGENT_AUTO && *err != NULL) {
			char *e = xasprintf("%s (no prebuilt agent for %s either)", *err, res->arch);

			free(*err);
			*err = e;
		}
	}
	agents_free(set);
	free(dir);
	if (rc != 0)
		deploy_result_release(res);
	return rc;
}
