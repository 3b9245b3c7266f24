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
	free(res->why);
	free(res->sum_sha);
	free(res->sum_ck);
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
 * What every command on a host starts with: $u (the login user's uid),
 * umask 022, and these functions.  A directory or file is trusted only
 * as ssh trusts ~/.ssh: it belongs to the login user or root, and
 * neither its group nor others may write it; a symbolic link is never
 * trusted in its place.  `ls -ldn` and `id -u` are in every POSIX
 * system and every busybox.
 *   fm_ok T PATH	PATH is of type T (d or -) and trusted
 *   fm_bad PATH	"unsafe UID MODE PATH" (UID "none" when PATH is missing)
 *   fm_need T PATH...	fm_ok of each, else fm_bad on stderr and 1
 *   fm_mk DIR...	each made (0755) when missing, then trusted and
 *			writable, else fm_bad on stderr and 1
 *   fm_sum FILE	"sha256 HEX" with the first SHA-256 tool there is
 *			(sha256sum, busybox's, shasum, openssl), else the
 *			POSIX "cksum CRC SIZE"
 */
#define SH_LIB	"u=$(id -u); umask 022; " \
	"fm_ok() { set -- \"$1\" $(ls -ldn \"$2\" 2>/dev/null); [ $# -ge 4 ] || return 1; " \
	"case $2 in \"$1\"????[!w]??[!w]*) ;; *) return 1;; esac; " \
	"[ \"$4\" = \"$u\" ] || [ \"$4\" = 0 ]; }; " \
	"fm_bad() { set -- \"$1\" $(ls -ldn \"$1\" 2>/dev/null); " \
	"echo \"unsafe ${4:-none} ${2:-missing} $1\"; }; " \
	"fm_need() { fm_t=$1; shift; for fm_x; do fm_ok \"$fm_t\" \"$fm_x\" || " \
	"{ fm_bad \"$fm_x\" >&2; return 1; }; done; }; " \
	"fm_mk() { for fm_x; do [ -e \"$fm_x\" ] || [ -L \"$fm_x\" ] || " \
	"mkdir -m 755 \"$fm_x\" 2>/dev/null || :; fm_ok d \"$fm_x\" && [ -w \"$fm_x\" ] && " \
	"[ -x \"$fm_x\" ] || { fm_bad \"$fm_x\" >&2; return 1; }; done; }; " \
	"fm_sum() { if command -v sha256sum >/dev/null 2>&1; then set -- $(sha256sum < \"$1\"); " \
	"elif busybox sha256sum </dev/null >/dev/null 2>&1; then " \
	"set -- $(busybox sha256sum < \"$1\"); " \
	"elif command -v shasum >/dev/null 2>&1; then set -- $(shasum -a 256 < \"$1\"); " \
	"elif command -v openssl >/dev/null 2>&1; then " \
	"set -- $(openssl dgst -sha256 -r < \"$1\"); " \
	"else set -- $(cksum < \"$1\"); echo \"cksum $1 $2\"; return; fi; echo \"sha256 $1\"; }; "

/*
 * The work directory $1 (made when missing) as fm_w, its physical path,
 * when it, every directory above it and the directories of ours in it
 * can be trusted.  Above it, a directory others may write must be sticky
 * (as /tmp is), so that no one else can move what is ours.  Else fm_bad
 * of the first that cannot, and 1.
 */
#define SH_WORK	"fm_work() { fm_w=; [ -e \"$1\" ] || [ -L \"$1\" ] || " \
	"{ mkdir -p \"${1%/*}\" 2>/dev/null; mkdir -m 755 \"$1\" 2>/dev/null; }; " \
	"fm_p=$(cd -P \"$1\" 2>/dev/null && pwd -P) || { fm_bad \"$1\"; return 1; }; " \
	"fm_a=$fm_p; while [ -n \"$fm_a\" ]; do fm_a=${fm_a%/*}; " \
	"set -- $(ls -ldn \"${fm_a:-/}\" 2>/dev/null); { [ \"$3\" = \"$u\" ] || [ \"$3\" = 0 ]; } && " \
	"case $1 in d????????[tT]*|d????[!w]??[!w]*) ;; *) false;; esac || " \
	"{ fm_bad \"${fm_a:-/}\"; return 1; }; done; " \
	"for fm_y in \"$fm_p\" \"$fm_p/agents\" \"$fm_p/src\" \"$fm_p/programs\" \"$fm_p/runs\" " \
	"\"$fm_p/scratch-$u\"; do [ -e \"$fm_y\" ] || [ -L \"$fm_y\" ] || continue; " \
	"fm_ok d \"$fm_y\" && [ -w \"$fm_y\" ] && [ -x \"$fm_y\" ] || { fm_bad \"$fm_y\"; return 1; }; " \
	"done; fm_w=$fm_p; }; "

/* The sum of the file $p is $ws (SHA-256) or $wc (cksum), as fm_sum says. */
#define SH_SUM_OK	"{ fm_s=$(fm_sum \"$p\"); [ \"$fm_s\" = \"$ws\" ] || [ \"$fm_s\" = \"$wc\" ]; }"

#define EXIT_UNSAFE	DEPLOY_EXIT_UNSAFE

/*
 * The shell words of every directory from dir down to the one path is in
 * (path is under dir), quoted, each after a space.
 */
static char *
dir_chain(const char *dir, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(dir), i;
	char *q, *sub;

	q = sh_quote(dir);
	strbuf_addf(&sb, " %s", q);
	free(q);
	if (strncmp(path, dir, n) != 0 || path[n] != '/')
		return strbuf_detach(&sb, NULL);
	for (i = n + 1; path[i] != '\0'; i++) {
		if (path[i] != '/')
			continue;
		sub = xstrndup(path, i);
		q = sh_quote(sub);
		strbuf_addf(&sb, " %s", q);
		free(q);
		free(sub);
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * "unsafe UID MODE PATH" (fm_bad) as words for a message, or NULL when
 * line is not one.
 */
static char *
unsafe_text(const char *line)
{
	char uid[32], mode[32], *m, *p;
	int off = 0;
	size_t n;

	if (line == NULL || sscanf(line, "unsafe %31s %31s %n", uid, mode, &off) != 2 ||
	    off == 0)
		return NULL;
	n = strcspn(line + off, "\r\n");
	if (strcmp(uid, "none") == 0)
		m = xasprintf("%.*s cannot be made or entered", (int)n, line + off);
	else
		m = xasprintf("%.*s belongs to uid %s and has mode %s", (int)n, line + off, uid,
		    mode);
	/* what a host printed reaches a terminal: no control characters */
	for (p = m; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return m;
}

/* The first fm_bad line of s, as unsafe_text() has it, or NULL. */
static char *
find_unsafe(const char *s)
{
	const char *p = s;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, "unsafe ", 7) == 0)
			return unsafe_text(p);
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return NULL;
}

const char *
deploy_sh_lib(void)
{
	return SH_LIB;
}

char *
deploy_unsafe_error(struct transport *t, const char *err)
{
	char *why = find_unsafe(err), *m;

	if (why == NULL)
		why = first_line(err);
	m = xasprintf("%s: %s (a directory or file an agent or program is run from must "
	    "belong to the login user or root, and no one else may write it)",
	    transport_name(t), *why != '\0' ? why : "a directory there cannot be trusted");
	free(why);
	return m;
}

/* $ws and $wc for SH_SUM_OK, of data (len bytes). */
static char *
sum_words(const void *data, size_t len)
{
	char sha[65];

	digest_sha256_hex(data, len, sha);
	/* hex and digits: nothing to quote */
	return xasprintf("ws='sha256 %s'; wc='cksum %u %zu'; ", sha,
	    transport_cksum(data, len), len);
}
/*
 * deploy_put(); absent: the first step found no cached copy, so none is
 * looked for again and the upload makes the directories.  Whichever way,
 * `then` runs in the same command that found every directory from dir
 * down trusted (fm_mk) and the file trusted and of the right sum.
 */
static int
put(struct transport *t, const char *what, const void *data, size_t len,
    const char *dir, const char *rel, const char *then, int absent,
    struct transport_result *out, int *uploaded, char **err)
{
	struct transport_result r;
	char *cmd = NULL, *sums = NULL, *path, *chain = NULL, *after = NULL, *d;
	int rc;

	*uploaded = 0;
	path = xasprintf("%s/%s", dir, rel);
	chain = dir_chain(dir, path);
	sums = sum_words(data, len);
	/* after the upload: the same checks, in its own channel */
	after = xasprintf(SH_LIB "%sfm_mk%s && fm_need - \"$p\" || exit %d; " SH_SUM_OK
	    " || { echo \"$p changed once in place\" >&2; exit %d; }; %s", sums, chain,
	    EXIT_UNSAFE, EXIT_UNSAFE, then);
	if (absent)
		goto upload;
	cmd = sh_format("p=%q; ", path);
	d = xasprintf("%s" SH_LIB "%sfm_mk%s || exit %d; if fm_ok - \"$p\" && [ -x \"$p\" ] && "
	    SH_SUM_OK "; then %s; else echo upload; fi", cmd, sums, chain, EXIT_UNSAFE, then);
	free(cmd);
	cmd = d;
	if ((rc = step(t, "checking the cache", cmd, NULL, 0, STEP_TIMEOUT_MS, &r, err)) != 0)
		goto out;
	if (r.exit.status == EXIT_UNSAFE) {
		*err = deploy_unsafe_error(t, r.err);
		transport_result_release(&r);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	if (r.exit.status == 0 && strncmp(r.out, "upload", 6) != 0) {
		*out = r;
		goto out;
	}
	if (r.exit.status != 0) {
		d = first_line(r.err);
		*err = xasprintf("%s: cannot create the directory of %s: %.200s",
		    transport_name(t), path, d);
		free(d);
		transport_result_release(&r);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	transport_result_release(&r);
upload:
	/* `then` in the upload's own channel: one round trip fewer */
	memset(out, 0, sizeof(*out));
	if ((rc = transport_upload_run(t, data, len, path, 0755, after, UPLOAD_TIMEOUT_MS,
	    out)) != 0) {
		*err = xasprintf("%s: uploading %s: %s", transport_name(t), what,
		    transport_error(t));
		goto out;
	}
	if (out->exit.status == EXIT_UNSAFE) {
		*err = deploy_unsafe_error(t, out->err);
		transport_result_release(out);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	*uploaded = 1;
out:
	free(cmd);
	free(sums);
	free(chain);
	free(after);
	free(path);
	return rc;
}

int
deploy_put(struct transport *t, const char *what, const void *data, size_t len,
    const char *dir, const char *rel, const char *then, struct transport_result *out,
    int *uploaded, char **err)
{
	return put(t, what, data, len, dir, rel, then, 0, out, uploaded, err);
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
 * again (its protocol), so it costs no channel of its own; the command
 * that starts it checks its sum again (deploy_serve_cmd()).
 */
static int
deploy_prebuilt(struct transport *t, const char *dir, const struct agent_bin *bin,
    int cached, struct deploy_result *res, char **err)
{
	const struct bin_cache *b;
	struct transport_result r;
	char *rel = NULL, *what = NULL;
	int rc;

	if ((b = bin_load(bin->path, err)) == NULL)
		return TRANSPORT_ELOCAL;
	memcpy(res->sha256, b->sha256, sizeof(res->sha256));
	res->sum_sha = xasprintf("sha256 %s", b->sha256);
	res->sum_ck = xasprintf("cksum %s", b->want);
	rel = xasprintf("agents/%.16s/" AGENTS_BINARY, res->sha256);
	if (cached == 1) {
		res->path = xasprintf("%s/%s", dir, rel);
		free(rel);
		return 0;
	}
	what = xasprintf("the %s agent", bin->arch);
	rc = put(t, what, b->data, b->len, dir, rel, "\"$p\" version", cached == 0, &r,
	    &res->uploaded, err);
	if (rc != 0)
		goto out;
	rc = check_version(t, r.out, res, err);
	transport_result_release(&r);
	if (rc == 0)
		res->path = xasprintf("%s/%s", dir, rel);
out:
	free(what);
	free(rel);
	return rc;
}

/*
 * For the first step: the cache check of every prebuilt agent in the
 * work directory $d, "cached PREFIX" for each one there trusted and
 * intact (only the host's own architecture's is, as a rule).  NULL when
 * there is none.
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
	strbuf_addf(&sb, "; do set -- $e; p=\"$d/agents/$1/" AGENTS_BINARY "\"; "
	    "ws=\"sha256 $2\"; wc=\"cksum $3 $4\"; fm_ok d \"$d/agents\" && "
	    "fm_ok d \"$d/agents/$1\" && fm_ok - \"$p\" && [ -x \"$p\" ] && " SH_SUM_OK
	    " && echo \"cached $1\"; done");
	return strbuf_detach(&sb, NULL);
}

/*
 * Build the agent from source in WORKDIR/src/SUM, or take the one built
 * there before when every directory down to it and the binary are
 * trusted: only this user (or root) can have put it there.  A build is
 * made in a private directory (mktemp -d) and moved into place, so that
 * two controllers building at once never see a half-built agent.  No
 * make is needed: one compiler call.  The command prints "built" when
 * it built, the binary's sum, then runs its `version`.
 */
static int
deploy_source(struct transport *t, const char *dir, struct deploy_result *res,
    char **err)
{
	struct transport_result r;
	unsigned char *tar = NULL;
	char *cmd = NULL, *sub = NULL, *vars = NULL, *line = NULL, *nl;
	const char *sum;
	size_t len;
	int rc;

	if (deploy_source_archive(&tar, &len, res->sha256, err) != 0)
		return TRANSPORT_ELOCAL;
	sub = xasprintf("%s/src/%.16s", dir, res->sha256);
	vars = sh_format("W=%q; d=%q; ", dir, sub);
	/* Exit 3: no compiler; EXIT_UNSAFE: a directory or file not trusted. */
	cmd = xasprintf("%s" SH_LIB "a=\"$d/agent/" AGENTS_BINARY "\"; "
	    "fm_mk \"$W\" \"$W/src\" || { cat > /dev/null; exit %d; }; "
	    "if fm_ok d \"$d\" && fm_ok d \"$d/agent\" && fm_ok - \"$a\" && [ -x \"$a\" ]; then "
	    "cat > /dev/null; else "
	    "cc=$(command -v cc || command -v gcc || command -v clang || :); "
	    "[ -n \"$cc\" ] || { cat > /dev/null; echo 'no C compiler (cc, gcc, clang)' >&2; exit 3; }; "
	    "t=$(mktemp -d \"$W/src/.build.XXXXXX\") || { cat > /dev/null; exit 1; }; "
	    "( cd \"$t\" && tar xf - && cd agent && \"$cc\" -std=c99 -D_GNU_SOURCE -O2 -I. "
	    "-I../include -o " AGENTS_BINARY " *.c bench/*.c -lpthread -lm ) || "
	    "{ rm -rf \"$t\"; exit 1; }; rm -rf \"$d\"; mv \"$t\" \"$d\" || exit 1; echo built; fi; "
	    "fm_need d \"$d\" \"$d/agent\" && fm_need - \"$a\" || exit %d; "
	    "printf 'sum %%s\\n' \"$(fm_sum \"$a\")\"; \"$a\" version",
	    vars, EXIT_UNSAFE, EXIT_UNSAFE);
	rc = step(t, "building the agent", cmd, tar, len, BUILD_TIMEOUT_MS, &r, err);
	if (rc != 0)
		goto out;
	if (r.exit.status == EXIT_UNSAFE) {
		*err = deploy_unsafe_error(t, r.err);
		transport_result_release(&r);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	sum = r.out;
	if (strncmp(sum, "built\n", 6) == 0) {
		res->built = 1;
		res->uploaded = 1;
		sum += 6;
	}
	if (r.exit.status != 0 || strncmp(sum, "sum ", 4) != 0 ||
	    (nl = strchr(sum, '\n')) == NULL) {
		line = first_line(r.err);
		*err = xasprintf("%s: cannot build the agent from source there (%s %s): %s",
		    transport_name(t), res->os, res->machine,
		    r.exit.status == 3 ? "no C compiler (cc, gcc, clang)" : line);
		transport_result_release(&r);
		rc = TRANSPORT_EREMOTE;
		goto out;
	}
	/* the host's own sum of what it built: the start checks it again */
	res->sum_sha = xstrndup(sum + 4, (size_t)(nl - sum - 4));
	res->sum_ck = xstrdup(res->sum_sha);
	if ((rc = check_version(t, nl + 1, res, err)) == 0)
		res->path = xasprintf("%s/agent/" AGENTS_BINARY, sub);
	transport_result_release(&r);
out:
	free(tar);
	free(cmd);
	free(sub);
	free(vars);
	free(line);
	return rc;
}

/*
 * The first step's output: "work PATH" (the work directory, trusted),
 * "other PATH" (this user's WORKDIR-UID instead) or neither, after a
 * line "unsafe ..." for each directory that could not be used.
 */
static int
take_workdir(struct transport *t, const char *workdir, const char *out,
    struct deploy_result *res, char **err)
{
	const char *p;
	char *why = NULL, *why2 = NULL, *dir;
	int n = 0;

	for (p = out; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "unsafe ", 7) == 0 && n++ < 2) {
			if (why == NULL)
				why = unsafe_text(p);
			else
				why2 = unsafe_text(p);
		} else if (strncmp(p, "work /", 6) == 0 || strncmp(p, "other /", 7) == 0) {
			p = strchr(p, ' ') + 1;
			dir = xstrndup(p, strcspn(p, "\n"));
			res->dir = dir;
			if (why != NULL) {
				res->own_dir = xstrdup(dir);
				res->why = why;
				why = NULL;
			}
			break;
		}
	}
	if (res->dir == NULL)
		err_set(err, TRANSPORT_EREMOTE, "%s: no work directory there can be trusted: %s%s%s "
		    "(the work directory '%s' must belong to the login user or root, writable by "
		    "no one else, and so must the directories above it unless sticky like /tmp)",
		    transport_name(t), why != NULL ? why : "?", why2 != NULL ? ", and " : "",
		    why2 != NULL ? why2 : "", workdir);
	free(why);
	free(why2);
	return res->dir != NULL ? 0 : TRANSPORT_EREMOTE;
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
	 * The work directory, "~" expanded there, used when it can be
	 * trusted; else -- root and a bench user sharing /tmp/fleetmark,
	 * whoever came second, or a directory someone else made -- the
	 * user's own WORKDIR-UID when that can be; else none.
	 */
	if (strcmp(workdir, "~") == 0)
		wd = xstrdup("d=\"$HOME\"");
	else if (strncmp(workdir, "~/", 2) == 0)
		wd = sh_format("d=\"$HOME\"/%q", workdir + 2);
	else
		wd = sh_format("d=%q", workdir);
	/* and, in the same channel, whether a prebuilt agent is there already */
	cmd = xasprintf("uname -s; uname -m; printf '%%s\\n' \"$HOME\"; %s; " SH_LIB "%s"
	    "if fm_work \"$d\"; then echo \"work $fm_w\"; elif fm_work \"$d-$u\"; then "
	    "echo \"other $fm_w\"; else exit 0; fi; d=$fm_w%s%s; exit 0",
	    wd, SH_WORK, check != NULL ? "; " : "", check != NULL ? check : "");
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
	snprintf(res->arch, sizeof(res->arch), "%s", agents_arch_for_machine(res->machine));
	if (strcmp(res->os, "Linux") != 0) {
		transport_result_release(&r);
		agents_free(set);
		return err_set(err, TRANSPORT_EREMOTE,
		    "%s: the agent runs on Linux only, this host runs %s",
		    transport_name(t), res->os);
	}
	wd = deploy_expand_dir(workdir, home);
	rc = take_workdir(t, wd, r.out, res, err);
	free(wd);
	if (rc != 0) {
		transport_result_release(&r);
		agents_free(set);
		deploy_result_release(res);
		return rc;
	}
	dir = xstrdup(res->dir);
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

char *
deploy_serve_cmd(const struct deploy_result *res, const char *idle)
{
	char *chain = dir_chain(res->dir, res->path), *vars, *cmd;

	/* no sum known: nothing matches, and nothing is run */
	vars = sh_format("p=%q; ws=%q; wc=%q; s=%q; i=%q; ", res->path,
	    res->sum_sha != NULL ? res->sum_sha : "-", res->sum_ck != NULL ? res->sum_ck : "-",
	    res->dir, idle);
	/*
	 * The scratch directory is per login user (a work directory is often
	 * shared: root and bench); when it cannot be made or trusted, the
	 * agent's default ($TMPDIR or /tmp, where it makes its own with
	 * mkdtemp).
	 */
	cmd = xasprintf("%s" SH_LIB "fm_need d%s && fm_need - \"$p\" || exit 126; " SH_SUM_OK
	    " || { echo \"$p is not the agent deployed (its sum is $fm_s)\" >&2; exit 126; }; "
	    "s=\"$s/scratch-$u\"; [ -e \"$s\" ] || [ -L \"$s\" ] || mkdir -m 700 \"$s\" 2>/dev/null; "
	    "if fm_ok d \"$s\" && [ -w \"$s\" ]; then TMPDIR=$s; export TMPDIR; fi; "
	    "exec \"$p\" serve --idle \"$i\"", vars, chain);
	free(vars);
	free(chain);
	return cmd;
}
