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

#include <curl/curl.h>

#include "archive.h"
#include "pctenc.h"
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
	free_secret(u->password);
	free(u->base);
	free(u);
}

/*
 * A part of cu as a string of ours (free()), or NULL when the URL has none.
 * Parts come as written (CURLU does the splitting, never the decoding).
 */
static char *
url_part(CURLU *cu, CURLUPart what)
{
	char *v = NULL, *r;

	if (curl_url_get(cu, what, &v, 0) != CURLUE_OK || v == NULL)
		return NULL;
	r = xstrdup(v);
	explicit_bzero(v, strlen(v));
	curl_free(v);
	return r;
}

/* Why CURLU refused s, in our words. */
static int
curlu_error(char **err, const char *s, CURLUcode rc)
{
	char *why;
	int r;

	switch (rc) {
	case CURLUE_OUT_OF_MEMORY:
		*err = xstrdup("out of memory parsing a URL");
		return ARCHIVE_EPERM;
	case CURLUE_BAD_FILE_URL:
		return url_error(err, s, "a file URL is file:///ABSOLUTE/PATH");
	case CURLUE_NO_HOST:
		return url_error(err, s, "no host in the URL");
	case CURLUE_BAD_HOSTNAME:
	case CURLUE_BAD_IPV6:
		return url_error(err, s, "bad character in the host name");
	case CURLUE_BAD_PORT_NUMBER:
		return url_error(err, s, "bad port number in the URL");
	case CURLUE_BAD_LOGIN:
	case CURLUE_BAD_USER:
	case CURLUE_BAD_PASSWORD:
		return url_error(err, s, "bad user or password in the URL");
	default:
		why = xasprintf("not a valid URL (libcurl: %s)", curl_url_strerror(rc));
		r = url_error(err, s, why);
		free(why);
		return r;
	}
}

/*
 * CURLU splits the URL (scheme, user, password, host, port, path); what an
 * archive URL may be beyond that is checked here, before and after it:
 * CURLU is lenient where we are not ("http:///x" is host "x" to it, an
 * empty fragment goes unnoticed) and decodes nothing we ask it not to.
 */
int
archive_url_parse(const char *s, struct archive_url **up, char **err)
{
	struct archive_url *u = NULL;
	CURLU *cu = NULL;
	CURLUcode rc;
	char *host = NULL, *port = NULL, *path = NULL, *user = NULL, *password = NULL;
	char *zone = NULL;
	const char *p, *why = NULL;
	size_t sl, len;
	int is_file, r = ARCHIVE_EINVAL;

	if ((sl = scheme_len(s)) == 0)
		return url_error(err, s, "not an archive URL (file://, http://, https:// or s3://)");
	for (p = s; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return url_error(err, s, "a URL may not contain spaces or control characters");
	}
	if (strlen(s) > 4096)
		return url_error(err, s, "URL too long");
	if (strpbrk(s + sl, "?#") != NULL)
		return url_error(err, s, "a query or fragment is not allowed in an archive URL");
	is_file = strncasecmp(s, "file", 4) == 0;
	if (!is_file && (s[sl] == '/' || s[sl] == '\0'))
		return url_error(err, s, "no host in the URL");

	if ((cu = curl_url()) == NULL)
		return curlu_error(err, s, CURLUE_OUT_OF_MEMORY);
	if ((rc = curl_url_set(cu, CURLUPART_URL, s,
	    CURLU_NON_SUPPORT_SCHEME | CURLU_PATH_AS_IS)) != CURLUE_OK) {
		curl_url_cleanup(cu);
		return curlu_error(err, s, rc);
	}
	u = xcalloc(1, sizeof(*u));
	u->scheme = url_part(cu, CURLUPART_SCHEME);	/* lowercase */
	user = url_part(cu, CURLUPART_USER);
	password = url_part(cu, CURLUPART_PASSWORD);
	host = url_part(cu, CURLUPART_HOST);
	port = url_part(cu, CURLUPART_PORT);
	zone = url_part(cu, CURLUPART_ZONEID);
	path = url_part(cu, CURLUPART_PATH);
	if (u->scheme == NULL || path == NULL) {
		why = "not a valid URL";
		goto fail;
	}

	if (is_file) {
		/* CURLU took "", localhost or 127.0.0.1 as the host and drops it. */
		u->host = xstrdup("");
		if ((u->path = pct_decode(path, strlen(path), PCT_STRICT, NULL)) == NULL) {
			why = "bad %-escape in the URL";
			goto fail;
		}
	} else {
		if (user != NULL || password != NULL) {
			if (strcmp(u->scheme, "s3") == 0) {
				why = "s3:// URLs take no credentials (use the config file or the environment)";
				goto fail;
			}
			if ((u->user = pct_decode(user, strlen(user), PCT_STRICT, NULL)) == NULL ||
			    (password != NULL && (u->password = pct_decode(password,
			    strlen(password), PCT_STRICT, NULL)) == NULL)) {
				why = "bad %-escape in the URL";
				goto fail;
			}
		}
		if (host == NULL || host[0] == '\0') {
			why = "no host in the URL";
			goto fail;
		}
		if (pct_kept_span(host, strlen(host), ".-_:[]") != strlen(host) ||
		    zone != NULL) {
			why = "bad character in the host name";
			goto fail;
		}
		u->host = port != NULL ? xasprintf("%s:%s", host, port) : xstrdup(host);
		/* CURLU's path starts with '/'; an s3 prefix does not. */
		u->path = xstrdup(strcmp(u->scheme, "s3") == 0 && path[0] == '/' ?
		    path + 1 : path);
	}
	len = strlen(u->path);
	while (len > 0 && u->path[len - 1] == '/')
		u->path[--len] = '\0';
	if (is_file) {
		if (u->path[0] != '/' && len == 0)
			u->path = (free(u->path), xstrdup("/"));
		if (u->path[0] != '/') {
			why = "a file URL is file:///ABSOLUTE/PATH";
			goto fail;
		}
	}
	if (strstr(u->path, "/../") != NULL || strstr(u->path, "/./") != NULL ||
	    (len >= 3 && strcmp(u->path + len - 3, "/..") == 0) ||
	    (len >= 2 && strcmp(u->path + len - 2, "/.") == 0) ||
	    strncmp(u->path, "../", 3) == 0 || strcmp(u->path, "..") == 0) {
		why = "'.' and '..' are not allowed in an archive URL's path";
		goto fail;
	}
	if (is_file)
		u->base = xasprintf("file://%s", u->path);
	else if (strcmp(u->scheme, "s3") == 0)
		u->base = xasprintf("s3://%s%s%s", u->host, len ? "/" : "", u->path);
	else
		u->base = xasprintf("%s://%s%s", u->scheme, u->host, u->path);
	u->display = u->base;
	*up = u;
	u = NULL;
	r = ARCHIVE_OK;
 fail:
	if (why != NULL)
		r = url_error(err, s, why);
	archive_url_free(u);
	curl_url_cleanup(cu);
	free_secret(password);
	free(user);
	free(host);
	free(port);
	free(zone);
	free(path);
	return r;
}

int
archive_valid_runid(const char *id)
{
	size_t n = strlen(id);

	return n > 0 && n <= ARCHIVE_MAX_RUNID && id[0] != '.' &&
	    pct_kept_span(id, n, "._+-") == n && strcmp(id, ARCHIVE_QUALIFY) != 0;
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
