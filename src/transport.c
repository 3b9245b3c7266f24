/*
 * transport.c: what both transports share: error classes, bounded channel
 * buffers, reading and waiting on exec channels, transport_run() and the
 * cksum-verified upload.  The backends are transport/ssh.c and
 * transport/local.c; what they share with this file is in
 * transport/transport-int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "pace.h"
#include "shquote.h"
#include "strbuf.h"
#include "transport.h"
#include "transport/transport-int.h"
#include "xmalloc.h"

#define UPLOAD_MAX_FILE	(256LL << 20)

const char *
transport_class(int code)
{
	switch (code) {
	case 0:
		return "ok";
	case TRANSPORT_ETIMEOUT:
	case TRANSPORT_EAGAIN:
		return "timeout";
	case TRANSPORT_EHOSTKEY:
		return "hostkey";
	case TRANSPORT_EAUTH:
		return "auth";
	case TRANSPORT_EVERIFY:
	case TRANSPORT_EREMOTE:
		return "deploy";
	default:
		return "connect";
	}
}

int
transport_fail(struct transport *t, int code, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	free(t->errmsg);
	t->errmsg = m;
	return code;
}

const char *
transport_signame(int sig)
{
	const char *s = sigabbrev_np(sig);

	return s != NULL ? s : "UNKNOWN";
}

int
transport_open(const struct transport_opts *o, struct transport **out,
    struct transport_info *info, char **err)
{
	struct transport_info scratch;

	if (info == NULL)
		info = &scratch;
	memset(info, 0, sizeof(*info));
	if (err != NULL)
		*err = NULL;
	transport_global_init();
	if (o->local)
		return transport_local_open(o, out, info, err);
	return transport_ssh_open(o, out, info, err);
}

void
transport_close(struct transport *t)
{
	if (t == NULL)
		return;
	t->ops->close(t);
	free(t->name);
	free(t->errmsg);
	free(t);
}

const char *
transport_name(const struct transport *t)
{
	return t->name;
}

const struct transport_info *
transport_get_info(const struct transport *t)
{
	return &t->info;
}

const char *
transport_error(const struct transport *t)
{
	return t->errmsg != NULL ? t->errmsg : "";
}

int
transport_keepalive(struct transport *t)
{
	return t->ops->keepalive(t);
}

/* --- bounded buffers ------------------------------------------------------------- */

size_t
tbuf_room(const struct tbuf *b)
{
	if (b->len < b->cap)
		return b->cap - b->len;
	return b->discard ? 16384 : 0;
}

void
tbuf_put(struct tbuf *b, const void *p, size_t n)
{
	size_t take = b->cap - b->len;

	if (take > n)
		take = n;
	if (take == 0)
		goto out;
	/*
	 * Allocated as it fills: a thousand hosts' channels that never hold
	 * more than a few lines cost a few KB each, not cap twice over.
	 */
	if (b->len + take > b->alloc) {
		size_t a = b->alloc ? b->alloc : 4096;

		while (a < b->len + take)
			a *= 2;
		if (a > b->cap)
			a = b->cap;
		b->b = xreallocarray(b->b, a, 1);
		b->alloc = a;
	}
	memcpy(b->b + b->len, p, take);
	b->len += take;
out:
	b->dropped += n - take;
}

/* Take up to len bytes from the front of b. */
static size_t
tbuf_take(struct tbuf *b, void *buf, size_t len)
{
	if (len > b->len)
		len = b->len;
	if (len == 0)
		return 0;
	memcpy(buf, b->b, len);
	memmove(b->b, b->b + len, b->len - len);
	b->len -= len;
	return len;
}

/* --- channels ---------------------------------------------------------------------- */

static long long
deadline_after(int timeout_ms)
{
	return pace_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
}

int
tchan_open(struct transport *t, const char *cmdline, size_t cap, int timeout_ms,
    struct tchan **out)
{
	struct tchan *c;
	int r;

	if (cap == 0)
		cap = TRANSPORT_CHAN_CAP;
	c = xcalloc(1, sizeof(*c));
	c->t = t;
	c->out.cap = cap;
	c->err.cap = cap;
	c->err.discard = 1;
	c->exit.status = -1;
	if ((r = t->ops->chan_open(c, cmdline, deadline_after(timeout_ms))) != 0) {
		free(c->out.b);
		free(c->err.b);
		free(c);
		return r;
	}
	*out = c;
	return 0;
}

int
tchan_write(struct tchan *c, const void *buf, size_t len, int timeout_ms)
{
	if (c->stdin_closed)
		return transport_fail(c->t, TRANSPORT_ELOCAL, "%s: write after closing input",
		    c->t->name);
	if (len == 0)
		return 0;
	return c->t->ops->chan_write(c, buf, len, deadline_after(timeout_ms));
}

int
tchan_close_stdin(struct tchan *c)
{
	if (c->stdin_closed)
		return 0;
	c->stdin_closed = 1;
	return c->t->ops->chan_close_stdin(c);
}

ssize_t
tchan_read(struct tchan *c, int want, int *from, void *buf, size_t len, int timeout_ms)
{
	long long deadline = deadline_after(timeout_ms);
	int r, idle = 0;

	if (len == 0 || (want & TCHAN_ANY) == 0)
		return 0;
	for (;;) {
		if ((want & TCHAN_STDOUT) && c->out.len > 0) {
			if (from != NULL)
				*from = TCHAN_STDOUT;
			return (ssize_t)tbuf_take(&c->out, buf, len);
		}
		if ((want & TCHAN_STDERR) && c->err.len > 0) {
			if (from != NULL)
				*from = TCHAN_STDERR;
			return (ssize_t)tbuf_take(&c->err, buf, len);
		}
		if ((!(want & TCHAN_STDOUT) || c->out.eof) &&
		    (!(want & TCHAN_STDERR) || c->err.eof))
			return 0;
		if (idle)	/* nothing more can happen, yet no end of file */
			return 0;
		r = c->t->ops->chan_pump(c, deadline);
		if (r == 0)
			idle = 1;
		else if (r < 0)
			return r;
	}
}

int
tchan_wait(struct tchan *c, int timeout_ms, struct tchan_exit *ex)
{
	long long deadline = deadline_after(timeout_ms);
	int r;

	c->out.discard = 1;
	c->err.discard = 1;
	while (!(c->exit.exited && c->out.eof && c->err.eof)) {
		r = c->t->ops->chan_pump(c, deadline);
		if (r == 0)
			break;
		if (r == TRANSPORT_EAGAIN) {
			r = transport_fail(c->t, TRANSPORT_ETIMEOUT,
			    "%s: command still running after %d ms", c->t->name, timeout_ms);
			if (ex != NULL)
				*ex = c->exit;
			return r;
		}
		if (r < 0)
			return r;
	}
	if (ex != NULL)
		*ex = c->exit;
	return 0;
}

const struct tchan_exit *
tchan_exit_info(const struct tchan *c)
{
	return &c->exit;
}

size_t
tchan_dropped(const struct tchan *c, int stream)
{
	return stream == TCHAN_STDERR ? c->err.dropped : c->out.dropped;
}

void
tchan_free(struct tchan *c)
{
	if (c == NULL)
		return;
	c->t->ops->chan_free(c);
	free(c->out.b);
	free(c->err.b);
	free(c);
}

/* --- conveniences ------------------------------------------------------------------ */

static char *
take_all(struct tbuf *b, size_t *lenp)
{
	char *s = xmalloc(b->len + 1);

	if (b->len > 0)
		memcpy(s, b->b, b->len);
	s[b->len] = '\0';
	*lenp = b->len;
	return s;
}

int
transport_run(struct transport *t, const char *cmdline, const void *in, size_t inlen,
    size_t max, int timeout_ms, struct transport_result *res)
{
	long long deadline = deadline_after(timeout_ms), left;
	struct tchan *c = NULL;
	int r;

	memset(res, 0, sizeof(*res));
	res->exit.status = -1;
	if (max == 0)
		max = TRANSPORT_RUN_MAX;
	if ((r = tchan_open(t, cmdline, max, timeout_ms, &c)) != 0)
		goto out;
	c->out.discard = 1;
	left = deadline - pace_now_ms();
	if (in != NULL && inlen > 0 &&
	    (r = tchan_write(c, in, inlen, left > 0 ? (int)left : 0)) != 0)
		goto out;
	if ((r = tchan_close_stdin(c)) != 0)
		goto out;
	left = deadline - pace_now_ms();
	r = tchan_wait(c, left > 0 ? (int)left : 0, &res->exit);
out:
	if (c != NULL) {
		res->out = take_all(&c->out, &res->outlen);
		res->err = take_all(&c->err, &res->errlen);
		res->out_dropped = c->out.dropped;
		res->err_dropped = c->err.dropped;
		res->exit = c->exit;
		tchan_free(c);
	} else {
		res->out = xstrdup("");
		res->err = xstrdup("");
	}
	return r;
}

void
transport_result_release(struct transport_result *res)
{
	if (res == NULL)
		return;
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

/* The POSIX cksum CRC: polynomial 0x04C11DB7, MSB first, length appended. */
unsigned
transport_cksum(const void *data, size_t len)
{
	static uint32_t tab[256];
	static int ready;
	const unsigned char *p = data;
	uint32_t crc = 0;
	size_t i, n;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		/* Racing threads compute the same table: harmless. */
		for (i = 0; i < 256; i++) {
			uint32_t c = (uint32_t)i << 24;
			int k;

			for (k = 0; k < 8; k++)
				c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
			tab[i] = c;
		}
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	for (i = 0; i < len; i++)
		crc = (crc << 8) ^ tab[(crc >> 24) ^ p[i]];
	for (n = len; n != 0; n >>= 8)
		crc = (crc << 8) ^ tab[((crc >> 24) ^ n) & 0xff];
	return ~crc;
}

/* The first line of s, at most 200 bytes, for messages. */
static char *
first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return xstrndup(s, n > 200 ? 200 : n);
}

int
transport_upload(struct transport *t, const void *data, size_t len, const char *path,
    mode_t mode, int timeout_ms)
{
	return transport_upload_run(t, data, len, path, mode, NULL, timeout_ms, NULL);
}

int
transport_upload_run(struct transport *t, const void *data, size_t len, const char *path,
    mode_t mode, const char *then, int timeout_ms, struct transport_result *out)
{
	struct transport_result res;
	char crc[16], sha[DIGEST_SHA256_HEX], md5[DIGEST_MD5_HEX];
	char tool[16], value[160], *cmd, *line, *p, *after, *mk, *dir;
	const char *want;
	unsigned long long rsize;
	int r, ok;

	snprintf(crc, sizeof(crc), "%u", transport_cksum(data, len));
	digest_sha256_hex(data, len, sha);
	digest_md5_hex(data, len, md5);
	/* `then` in the same shell, its status the channel's */
	after = then != NULL ? sh_format("p=%q; %s; exit $?;", path, then) : xstrdup("");
	if ((p = strrchr(path, '/')) == NULL)
		dir = xstrdup(".");
	else
		dir = p == path ? xstrdup("/") : xstrndup(path, (size_t)(p - path));
	mk = then != NULL ? sh_format("(umask 022; mkdir -p %q) 2>/dev/null; ", dir) : xstrdup("");
	/*
	 * The bytes go to a new file of a name no one can guess, made by
	 * mktemp (O_EXCL, mode 0600) in the file's own directory: a name
	 * planted there beforehand (a symbolic link) is never written
	 * through.  The host checks what arrived with the first of cksum,
	 * sha256sum and md5sum it has (Debian's busybox-static has no cksum)
	 * against our sums before it moves the file into place, and reports
	 * its own: we compare again.
	 */
	cmd = sh_format("%sumask 077; t=$(mktemp %q/.fleetmark-upload.XXXXXX) || "
	    "{ echo 'cannot make a temporary file there (mktemp)' >&2; exit 1; }; "
	    "if cat >\"$t\"; then set -- $(wc -c <\"$t\"); n=$1; "
	    "if command -v cksum >/dev/null 2>&1; then set -- cksum $(cksum <\"$t\"); w=%q; "
	    "elif command -v sha256sum >/dev/null 2>&1; then set -- sha256 $(sha256sum <\"$t\"); w=%q; "
	    "elif command -v md5sum >/dev/null 2>&1; then set -- md5 $(md5sum <\"$t\"); w=%q; "
	    "else set -- none none; w=; fi; "
	    "if [ \"$2\" = \"$w\" ] && [ \"$n\" = %zu ] && chmod %o \"$t\" && mv -f \"$t\" %q; "
	    "then echo \"fleetmark-upload ok $1 $2 $n\"; %s exit 0; fi; "
	    "echo \"fleetmark-upload bad $1 $2 $n\"; fi; rm -f \"$t\"; exit 1",
	    mk, dir, crc, sha, md5, len, (unsigned)(mode & 07777), path, after);
	free(after);
	free(mk);
	free(dir);
	r = transport_run(t, cmd, data, len, then != NULL ? 0 : 4096, timeout_ms, &res);
	free(cmd);
	if (r != 0) {
		char *m = xstrdup(transport_error(t));

		line = first_line(res.err);
		/* The command ended early: what it said is the reason. */
		if (r == TRANSPORT_EREMOTE && *line != '\0')
			transport_fail(t, r, "upload to %s:%s: %s", t->name, path, line);
		else
			transport_fail(t, r, "upload to %s:%s: %s", t->name, path, m);
		free(line);
		free(m);
		goto out;
	}
	p = strstr(res.out, "fleetmark-upload ");
	if (p == NULL || sscanf(p, "fleetmark-upload %*s %15s %159s %llu", tool, value,
	    &rsize) != 3) {
		line = first_line(*res.err ? res.err : res.out);
		r = transport_fail(t, TRANSPORT_EREMOTE, "upload to %s:%s failed (exit status "
		    "%d)%s%s", t->name, path, res.exit.status, *line ? ": " : "", line);
		free(line);
		goto out;
	}
	want = strcmp(tool, "cksum") == 0 ? crc : strcmp(tool, "sha256") == 0 ? sha :
	    strcmp(tool, "md5") == 0 ? md5 : NULL;
	ok = want != NULL && strcmp(value, want) == 0 && rsize == len;
	if (ok && strncmp(p, "fleetmark-upload ok ", 20) == 0) {
		r = 0;
		if (out != NULL) {
			/* what `then` printed: everything after the upload's line */
			after = strchr(p, '\n');
			after = after != NULL ? after + 1 : p + strlen(p);
			*out = res;
			out->outlen -= (size_t)(after - res.out);
			memmove(out->out, after, out->outlen + 1);
			return 0;
		}
		goto out;
	}
	if (want == NULL)
		r = transport_fail(t, TRANSPORT_EREMOTE, "upload to %s:%s: the host has no "
		    "cksum, sha256sum or md5sum to verify it with", t->name, path);
	else if (!ok)
		r = transport_fail(t, TRANSPORT_EVERIFY, "upload to %s:%s: %s mismatch: sent "
		    "%s and %zu bytes, %s and %llu bytes arrived", t->name, path, tool, want, len,
		    value, rsize);
	else {
		line = first_line(res.err);
		r = transport_fail(t, TRANSPORT_EREMOTE, "upload to %s:%s: cannot put the file "
		    "in place%s%s", t->name, path, *line ? ": " : "", line);
		free(line);
	}
out:
	transport_result_release(&res);
	return r;
}

int
transport_upload_file(struct transport *t, const char *local_path, const char *path,
    mode_t mode, int timeout_ms)
{
	struct strbuf data = STRBUF_INIT;
	struct stat st;
	int fd, r;

	if ((fd = open(local_path, O_RDONLY | O_CLOEXEC)) < 0)
		return transport_fail(t, TRANSPORT_ELOCAL, "upload to %s: cannot open %s: %s",
		    t->name, local_path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > UPLOAD_MAX_FILE) {
		close(fd);
		return transport_fail(t, TRANSPORT_ELOCAL, "upload to %s: %s is not a regular "
		    "file of at most %lld bytes", t->name, local_path, UPLOAD_MAX_FILE);
	}
	strbuf_init_max(&data, UPLOAD_MAX_FILE);
	strbuf_grow(&data, (size_t)st.st_size);
	r = strbuf_read_fd(&data, fd);
	close(fd);
	if (r != 0) {
		strbuf_release(&data);
		return transport_fail(t, TRANSPORT_ELOCAL, "upload to %s: cannot read %s",
		    t->name, local_path);
	}
	r = transport_upload(t, data.buf, data.len, path, mode, timeout_ms);
	strbuf_release(&data);
	return r;
}
