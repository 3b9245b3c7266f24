/*
 * userconf.c: the user's config file (userconf.h), refused when others
 * could read or change it, because it holds archive credentials.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yamldoc.h"
#include "userconf.h"
#include "xmalloc.h"

char *
userconf_path(void)
{
	const char *p;

	if ((p = getenv("FLEETMARK_CONFIG")) != NULL && *p != '\0')
		return xstrdup(p);
	if ((p = getenv("XDG_CONFIG_HOME")) != NULL && *p == '/')
		return xasprintf("%s/fleetmark/config.yaml", p);
	if ((p = getenv("HOME")) == NULL || *p == '\0')
		p = "/";
	return xasprintf("%s/.config/fleetmark/config.yaml", p);
}

static int
get_str(const struct ydoc_node *map, const char *key, char **out, char **err)
{
	const struct ydoc_node *n;
	const char *s;

	if ((n = ydoc_get(map, key)) == NULL)
		return 0;
	if (ydoc_string(n, &s, err) != 0)
		return -1;
	free(*out);
	*out = xstrdup(s);
	return 0;
}

static int
load_webdav(struct userconf *uc, const struct ydoc_node *n, char **err)
{
	static const char *const known[] = { "url", "user", "password", NULL };
	const struct ydoc_node *e;
	struct userconf_webdav *w;
	size_t i, len;

	if (n->type != YDOC_SEQUENCE)
		return ydoc_error(err, n, "webdav must be a list, not %s",
		    ydoc_type_name(n));
	uc->webdav = xcalloc(n->n ? n->n : 1, sizeof(*uc->webdav));
	for (i = 0; i < n->n; i++) {
		e = n->items[i];
		if (ydoc_check_keys(e, "webdav entry", known, err) != 0)
			return -1;
		w = &uc->webdav[uc->nwebdav++];
		if (get_str(e, "url", &w->url, err) != 0 ||
		    get_str(e, "user", &w->user, err) != 0 ||
		    get_str(e, "password", &w->password, err) != 0)
			return -1;
		if (w->url == NULL)
			return ydoc_error(err, e, "webdav entry has no url");
		if (w->user == NULL)
			return ydoc_error(err, e, "webdav entry has no user");
		if (strncmp(w->url, "http://", 7) != 0 &&
		    strncmp(w->url, "https://", 8) != 0)
			return ydoc_error(err, ydoc_get(e, "url"),
			    "webdav url must start with http:// or https://");
		if (strchr(w->url, '@') != NULL)
			return ydoc_error(err, ydoc_get(e, "url"),
			    "webdav url must not carry credentials (use user and password)");
		len = strlen(w->url);
		while (len > 0 && w->url[len - 1] == '/')
			w->url[--len] = '\0';
	}
	return 0;
}

static int
load_s3(struct userconf *uc, const struct ydoc_node *n, char **err)
{
	static const char *const known[] = { "endpoint", "region",
	    "access_key_id", "secret_access_key", "session_token",
	    "path_style", NULL };
	const struct ydoc_node *v;
	int b;

	if (ydoc_check_keys(n, "s3", known, err) != 0)
		return -1;
	if (get_str(n, "endpoint", &uc->s3.endpoint, err) != 0 ||
	    get_str(n, "region", &uc->s3.region, err) != 0 ||
	    get_str(n, "access_key_id", &uc->s3.access_key_id, err) != 0 ||
	    get_str(n, "secret_access_key", &uc->s3.secret_access_key, err) != 0 ||
	    get_str(n, "session_token", &uc->s3.session_token, err) != 0)
		return -1;
	if ((v = ydoc_get(n, "path_style")) != NULL) {
		if (ydoc_bool(v, &b, err) != 0)
			return -1;
		uc->s3.path_style = b;
	}
	return 0;
}

static int
load_doc(struct userconf *uc, const struct ydoc_node *root, char **err)
{
	static const char *const known[] = { "archive", "webdav", "s3", NULL };
	static const char *const aknown[] = { "tries", "max_time", "min_rate", NULL };
	const struct ydoc_node *n, *v;
	long long ll;

	if (ydoc_check_keys(root, "config", known, err) != 0)
		return -1;
	if ((n = ydoc_get(root, "archive")) != NULL) {
		if (ydoc_check_keys(n, "archive", aknown, err) != 0)
			return -1;
		if ((v = ydoc_get(n, "tries")) != NULL) {
			if (ydoc_int(v, 1, 20, &ll, err) != 0)
				return -1;
			uc->tries = (int)ll;
		}
		if ((v = ydoc_get(n, "max_time")) != NULL &&
		    ydoc_duration(v, 1, 24LL * 3600 * 1000, &uc->max_time_ms, err) != 0)
			return -1;
		if ((v = ydoc_get(n, "min_rate")) != NULL &&
		    ydoc_int(v, 1, 1LL << 40, &uc->min_rate, err) != 0)
			return -1;
	}
	if ((n = ydoc_get(root, "webdav")) != NULL && load_webdav(uc, n, err) != 0)
		return -1;
	if ((n = ydoc_get(root, "s3")) != NULL && load_s3(uc, n, err) != 0)
		return -1;
	return 0;
}

/* All of fd, at most YDOC_MAX_BYTES: -1 with errno (EFBIG when larger). */
static int
read_fd(int fd, char **textp, size_t *lenp)
{
	char *buf = xmalloc(YDOC_MAX_BYTES + 1);
	size_t len = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf + len, YDOC_MAX_BYTES + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			explicit_bzero(buf, len);
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > YDOC_MAX_BYTES) {
			explicit_bzero(buf, len);
			free(buf);
			errno = EFBIG;
			return -1;
		}
	}
	buf[len] = '\0';
	*textp = buf;
	*lenp = len;
	return 0;
}

/*
 * The file is checked and read through one descriptor, so what is
 * checked is what is read.  A symbolic link is followed (dotfile managers
 * make them): what counts is the file it leads to, its owner and mode.
 */
int
userconf_load_file(const char *path, struct userconf **ucp, char **err)
{
	struct userconf *uc;
	struct ydoc *doc = NULL;
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd = -1, r = -1;

	uc = xcalloc(1, sizeof(*uc));
	uc->s3.path_style = -1;
	/* O_NONBLOCK: a FIFO must not hang the open */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (errno == ENOENT) {
			*ucp = uc;
			return 0;
		}
		*err = xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("%s: not a regular file", path);
		goto out;
	}
	/* It holds passwords and keys: as OpenSSH with a private key. */
	if ((st.st_mode & 077) != 0) {
		*err = xasprintf("%s: permissions %04o are too open: it holds "
		    "credentials and must not be readable or writable by group "
		    "or others (chmod 600 %s)", path,
		    (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	if (st.st_uid != getuid() && st.st_uid != 0) {
		*err = xasprintf("%s: owned by uid %u, not by you", path,
		    (unsigned)st.st_uid);
		goto out;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1 ||
	    read_fd(fd, &text, &len) != 0) {
		*err = errno == EFBIG ? xasprintf("%s: larger than %d bytes", path, YDOC_MAX_BYTES) :
		    xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (ydoc_parse(path, text, len, &doc, err) != 0)
		goto out;
	if (load_doc(uc, ydoc_root(doc), err) != 0)
		goto out;
	uc->path = xstrdup(path);
	*ucp = uc;
	uc = NULL;
	r = 0;
 out:
	if (fd != -1)
		close(fd);
	if (text != NULL) {
		explicit_bzero(text, len);
		free(text);
	}
	ydoc_free(doc);
	userconf_free(uc);
	return r;
}

int
userconf_load(struct userconf **ucp, char **err)
{
	char *path = userconf_path();
	int r;

	r = userconf_load_file(path, ucp, err);
	free(path);
	return r;
}

const struct userconf_webdav *
userconf_webdav_for(const struct userconf *uc, const char *base)
{
	const struct userconf_webdav *best = NULL;
	size_t i, len;

	if (uc == NULL)
		return NULL;
	for (i = 0; i < uc->nwebdav; i++) {
		len = strlen(uc->webdav[i].url);
		if (strncmp(base, uc->webdav[i].url, len) != 0 ||
		    (base[len] != '\0' && base[len] != '/'))
			continue;
		if (best == NULL || len > strlen(best->url))
			best = &uc->webdav[i];
	}
	return best;
}

void
userconf_free(struct userconf *uc)
{
	size_t i;

	if (uc == NULL)
		return;
	for (i = 0; i < uc->nwebdav; i++) {
		free(uc->webdav[i].url);
		free(uc->webdav[i].user);
		free_secret(uc->webdav[i].password);
	}
	free(uc->webdav);
	free(uc->s3.endpoint);
	free(uc->s3.region);
	free(uc->s3.access_key_id);
	free_secret(uc->s3.secret_access_key);
	free_secret(uc->s3.session_token);
	free(uc->path);
	free(uc);
}
