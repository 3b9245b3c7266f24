/*
 * url.c: archive URLs (file://, http(s)://, s3://), "URL/RUNID" references
 * and the names allowed for run ids and the paths inside a run: what
 * archive.h declares under "URLs".  Everything here is pure string work;
 * nothing is fetched.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "archive.h"
#include "xmalloc.h"


static const char *const schemes[] = { "file", "http", "https", "s3", NULL };

/* The length of s's "SCHEME://" for a known scheme, else 0. */
static size_t
scheme_len(const char *s)
{
	size_t i, n;

	for (i = 0; schemes[i] != NULL; i++) {
		n = strlen(schemes[i]);
		if (strncasecmp(s, schemes[i], n) == 0 && strncmp(s + n, "://", 3) == 0)
			return n + 3;
	}
	return 0;
}

int
archive_is_url(const char *s)
{
	return s != NULL && scheme_len(s) != 0;
}

char *
archive_url_display(const char *s)
{
	const char *auth, *end, *at;
	size_t sl;

	if ((auth = strstr(s, "://")) == NULL)
		return xstrdup(s);
	auth += 3;
	sl = (size_t)(auth - s);
	end = auth + strcspn(auth, "/?#");
	at = NULL;
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return xstrdup(s);
	return xasprintf("%.*s%s", (int)sl, s, at + 1);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
archive_pct_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i, o = 0;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if (s[i] != '%') {
			out[o++] = s[i];
			continue;
		}
		if (i + 2 >= n || (hi = hexval((unsigned char)s[i + 1])) < 0 ||
		    (lo = hexval((unsigned char)s[i + 2])) < 0 || (hi | lo) == 0) {
			free(out);
			return NULL;
		}
		out[o++] = (char)(hi * 16 + lo);
		i += 2;
	}
	out[o] = '\0';
	return out;
}

static int
url_error(char **err, const char *s, const char *why)
{
	char *d = archive_url_display(s);

	*err = xasprintf("%s: %s", d, why);
	free(d);
	return ARCHIVE_EINVAL;
}

void
archive_url_free(struct archive_url *u)
{
	if (u == NULL)
		return;
	free(u->scheme);
	free(u->host);
	free(u->path);
	free(u->user);
	if (u->password != NULL) {
		explicit_bzero(u->password, strlen(u->password));
		free(u->password);
	}
	free(u->base);
	free(u);
}

int
archive_url_parse(const char *s, struct archive_url **up, char **err)
{
	struct archive_url *u;
	const char *rest, *auth_end, *at = NULL, *colon, *p;
	size_t sl, len;
	char *path;

	if ((sl = scheme_len(s)) == 0)
		return url_error(err, s, "not an archive URL (file://, http://, https:// or s3://)");
	for (p = s; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return url_error(err, s, "a URL may not contain spaces or control characters");
	}
	if (strlen(s) > 4096)
		return url_error(err, s, "URL too long");
	u = xcalloc(1, sizeof(*u));
	u->scheme = xstrndup(s, sl - 3);
	for (p = u->scheme; *p != '\0'; p++)
		u->scheme[p - u->scheme] = (char)tolower((unsigned char)*p);
	rest = s + sl;
	auth_end = rest + strcspn(rest, "/");
	for (p = rest; p < auth_end; p++)
		if (*p == '@')
			at = p;

	if (strcmp(u->scheme, "file") == 0) {
		if (at != NULL || (auth_end != rest &&
		    !(auth_end - rest == 9 && strncasecmp(rest, "localhost", 9) == 0)))
			goto bad_file;
		if ((path = archive_pct_decode(auth_end, strlen(auth_end))) == NULL)
			goto bad_escape;
		u->host = xstrdup("");
		u->path = path;
	} else {
		if (strpbrk(rest, "?#") != NULL) {
			archive_url_free(u);
			return url_error(err, s, "a query or fragment is not allowed in an archive URL");
		}
		if (at != NULL) {
			if (strcmp(u->scheme, "s3") == 0) {
				archive_url_free(u);
				return url_error(err, s, "s3:// URLs take no credentials (use the config file or the environment)");
			}
			colon = memchr(rest, ':', (size_t)(at - rest));
			len = (size_t)((colon != NULL ? colon : at) - rest);
			if ((u->user = archive_pct_decode(rest, len)) == NULL)
				goto bad_escape;
			if (colon != NULL && (u->password = archive_pct_decode(colon + 1,
			    (size_t)(at - colon - 1))) == NULL)
				goto bad_escape;
			rest = at + 1;
		}
		u->host = xstrndup(rest, (size_t)(auth_end - rest));
		if (u->host[0] == '\0') {
			archive_url_free(u);
			return url_error(err, s, "no host in the URL");
		}
		for (p = u->host; *p != '\0'; p++) {
			if (!isalnum((unsigned char)*p) && strchr(".-_:[]", *p) == NULL) {
				archive_url_free(u);
				return url_error(err, s, "bad character in the host name");
			}
		}
		if (strcmp(u->scheme, "s3") == 0)
			u->path = xstrdup(*auth_end == '/' ? auth_end + 1 : auth_end);
		else
			u->path = xstrdup(auth_end);
	}
	len = strlen(u->path);
	while (len > 0 && u->path[len - 1] == '/')
		u->path[--len] = '\0';
	if (strcmp(u->scheme, "file") == 0) {
		if (u->path[0] != '/' && len == 0)
			u->path = (free(u->path), xstrdup("/"));
		if (u->path[0] != '/')
			goto bad_file;
	}
	if (strstr(u->path, "/../") != NULL || strstr(u->path, "/./") != NULL ||
	    (len >= 3 && strcmp(u->path + len - 3, "/..") == 0) ||
	    (len >= 2 && strcmp(u->path + len - 2, "/.") == 0) ||
	    strncmp(u->path, "../", 3) == 0 || strcmp(u->path, "..") == 0) {
		archive_url_free(u);
		return url_error(err, s, "'.' and '..' are not allowed in an archive URL's path");
	}
	if (strcmp(u->scheme, "file") == 0)
		u->base = xasprintf("file://%s", u->path);
	else if (strcmp(u->scheme, "s3") == 0)
		u->base = xasprintf("s3://%s%s%s", u->host, len ? "/" : "", u->path);
	else
		u->base = xasprintf("%s://%s%s", u->scheme, u->host, u->path);
	u->display = u->base;
	*up = u;
	return ARCHIVE_OK;

 bad_file:
	archive_url_free(u);
	return url_error(err, s, "a file URL is file:///ABSOLUTE/PATH");
 bad_escape:
	archive_url_free(u);
	return url_error(err, s, "bad %-escape in the URL");
}

int
archive_valid_runid(const char *id)
{
	size_t i, n = strlen(id);

	if (n == 0 || n > ARCHIVE_MAX_RUNID || id[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)id[i]) && strchr("._+-", id[i]) == NULL)
			return 0;
	return 1;
}

int
archive_valid_path(const char *p)
{
	size_t n = strlen(p), comp = 0, depth = 1, i;

	if (n == 0 || n > ARCHIVE_MAX_PATH)
		return 0;
	for (i = 0; i < n; i++) {
		if (p[i] == '/') {
			if (comp == 0 || ++depth > ARCHIVE_MAX_DEPTH)
				return 0;
			comp = 0;
			continue;
		}
		if (comp == 0 && p[i] == '.')
			return 0;	/* ".", "..", hidden files */
		if (!isalnum((unsigned char)p[i]) && strchr("._+@=,-", p[i]) == NULL)
			return 0;
		if (++comp > ARCHIVE_MAX_COMPONENT)
			return 0;
	}
	return comp != 0;
}

int
archive_split_ref(const char *ref, char **url, char **runid)
{
	size_t sl, n, i, pstart;
	int is_file;
	char *id;

	if ((sl = scheme_len(ref)) == 0)
		return ARCHIVE_EINVAL;
	n = strlen(ref);
	while (n > sl && ref[n - 1] == '/')
		n--;
	/* where the path starts: after the authority (host, bucket) */
	is_file = strncasecmp(ref, "file", 4) == 0;
	pstart = is_file ? sl : sl + strcspn(ref + sl, "/");
	for (i = n; i > 0 && ref[i - 1] != '/'; i--)
		;
	if (i == 0 || i - 1 < pstart || i >= n)
		return ARCHIVE_EINVAL;
	id = xstrndup(ref + i, n - i);
	if (!archive_valid_runid(id)) {
		free(id);
		return ARCHIVE_EINVAL;
	}
	*runid = id;
	/* keep "file:///" for a run directly under the root */
	*url = xstrndup(ref, is_file && i - 1 == pstart ? i : i - 1);
	return ARCHIVE_OK;
}
