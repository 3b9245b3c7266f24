/*
 * archive-webdav.c: http:// and https:// archives on a WebDAV server
 * (nginx's dav module with dav-ext, Apache mod_dav, ...).  Files are PUT
 * after MKCOL of their parent collections, top down (once per session);
 * listings are PROPFIND Depth: 1
 * (webdav.h).  Credentials: the URL's user:password, else the user config
 * file's webdav entry for the URL, else ~/.netrc.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "archive.h"
#include "http.h"
#include "log.h"
#include "pctenc.h"
#include "strv.h"
#include "userconf.h"
#include "webdav.h"
#include "xmalloc.h"
#include "xmldoc.h"

struct dav {
	char		*root;		/* scheme://host/path, no trailing slash */
	char		*display;	/* the same, for messages */
	char		*path;		/* the URL's path (escaped as given) */
	char		*user;
	char		*password;
	struct http_retry retry;
	struct strv	 made;		/* collections known to exist */
};

static void
dav_close(void *state)
{
	struct dav *d = state;

	if (d == NULL)
		return;
	free(d->root);
	free(d->display);
	free(d->path);
	free(d->user);
	free_secret(d->password);
	strv_clear(&d->made);
	free(d);
}

static int
dav_open(const struct archive_url *u, const struct userconf *uc, void **statep,
    char **err)
{
	const struct userconf_webdav *w;
	struct dav *d;

	(void)err;
	d = xcalloc(1, sizeof(*d));
	d->root = xasprintf("%s://%s%s", u->scheme, u->host, u->path);
	d->display = xstrdup(u->display);
	d->path = xstrdup(u->path);
	if (u->user != NULL) {
		d->user = xstrdup(u->user);
		d->password = xstrdup_null(u->password);
	} else if ((w = userconf_webdav_for(uc, u->base)) != NULL) {
		d->user = xstrdup(w->user);
		d->password = xstrdup_null(w->password);
	}
	http_retry_default(&d->retry);
	if (uc != NULL && uc->tries > 0)
		d->retry.tries = uc->tries;
	if (uc != NULL && uc->max_time_ms > 0)
		d->retry.max_total_ms = uc->max_time_ms;
	if (uc != NULL && uc->min_rate > 0)
		d->retry.min_rate = (uint64_t)uc->min_rate;
	*statep = d;
	return ARCHIVE_OK;
}

/* A request on key (relative to the root; "" is the root itself). */
static void
req_init(struct dav *d, struct http_request *q, const char *method,
    const char *key, char **url, char **disp)
{
	char *esc = http_escape_path(key);

	memset(q, 0, sizeof(*q));
	*url = xasprintf("%s/%s", d->root, esc);
	*disp = xasprintf("%s/%s", d->display, key);
	free(esc);
	q->method = method;
	q->url = *url;
	q->display = *disp;
	q->user = d->user;
	q->password = d->password;
	q->netrc = 1;
	q->retry = &d->retry;
}

/* Perform q (from req_init()), then free what req_init() allocated. */
static int
req_do(const struct http_request *q, char *url, char *disp, char **err)
{
	struct http_response resp;
	int r;

	r = http_do(q, &resp, err);
	http_response_release(&resp);
	free(url);
	free(disp);
	return r;
}


/*
 * MKCOL one collection, given as a full escaped URL path ending in '/'.
 * 201 made, 405 already there (RFC 4918 section 9.3.1).
 */
static int
mkcol(struct dav *d, const char *hostroot, const char *urlpath, char **err)
{
	struct http_request q;
	struct http_response resp;
	char *url, *disp;
	int r;

	if (strv_find(d->made.v, d->made.n, urlpath) != STRV_NONE)
		return ARCHIVE_OK;
	memset(&q, 0, sizeof(q));
	url = xasprintf("%s%s", hostroot, urlpath);
	disp = xstrdup(url);
	q.method = "MKCOL";
	q.url = url;
	q.display = disp;
	q.user = d->user;
	q.password = d->password;
	q.netrc = 1;
	q.retry = &d->retry;
	r = http_do(&q, &resp, err);
	if (r != 0 && resp.status == 405) {
		free(*err);
		*err = NULL;
		r = ARCHIVE_OK;
	}
	http_response_release(&resp);
	if (r == 0)
		strv_push(&d->made, urlpath);
	free(url);
	free(disp);
	return r;
}

/* MKCOL of every parent of key, from the server's root down. */
static int
mkparents(struct dav *d, const char *key, char **err)
{
	char *esc = http_escape_path(key), *full, *hostroot, *s, *e2 = NULL;
	const char *p;
	size_t hl;
	int r = ARCHIVE_OK;

	/* "scheme://host" and the path "/a/b/RUNID/hosts/x.json" */
	p = strstr(d->root, "://") + 3;
	hl = (size_t)(p - d->root) + strcspn(p, "/");
	hostroot = xstrndup(d->root, hl);
	full = xasprintf("%s/%s", d->path, esc);
	for (s = full + 1; (s = strchr(s, '/')) != NULL; s++) {
		char c = s[1];

		s[1] = '\0';
		free(e2);
		e2 = NULL;
		r = mkcol(d, hostroot, full, &e2);
		s[1] = c;
		/* above the archive's path the server may refuse: that is
		 * fine when the collection exists */
		if (r != 0 && (size_t)(s - full) <= strlen(d->path)) {
			log_debug("%s", e2);
			r = ARCHIVE_OK;
		}
		if (r != 0)
			break;
	}
	if (r != 0) {
		*err = e2;
		e2 = NULL;
	}
	free(e2);
	free(full);
	free(hostroot);
	free(esc);
	return r;
}

static int
dav_put(void *state, const char *key, const char *localpath,
    const struct archive_progress *p, char **err)
{
	struct dav *d = state;
	struct http_request q;
	char *url, *disp;
	int r;

	/*
	 * The parent collections first (each once per session): a server
	 * without nginx's create_full_put_path answers a PUT into a missing
	 * one with 409, or nginx with 500.
	 */
	if ((r = mkparents(d, key, err)) != 0)
		return r;
	req_init(d, &q, "PUT", key, &url, &disp);
	q.upload_path = localpath;
	q.progress = p;
	return req_do(&q, url, disp, err);
}

static int
dav_get(void *state, const char *key, const char *localpath, uint64_t max,
    const struct archive_progress *p, char **err)
{
	struct dav *d = state;
	struct http_request q;
	char *url, *disp;

	req_init(d, &q, "GET", key, &url, &disp);
	q.download_path = localpath;
	q.max_response = max;
	q.progress = p;
	return req_do(&q, url, disp, err);
}

static int
dav_del(void *state, const char *key, char **err)
{
	struct dav *d = state;
	struct http_request q;
	char *url, *disp;

	req_init(d, &q, "DELETE", key, &url, &disp);
	return req_do(&q, url, disp, err);
}

#define DAV_NS	"DAV:"

/* Whether some propstat/prop/resourcetype of response r has collection. */
static int
is_collection(const xmlNode *r)
{
	const xmlNode *ps, *prop, *rt;

	for (ps = r->children; ps != NULL; ps = ps->next) {
		if (!xmldoc_is(ps, DAV_NS, "propstat") ||
		    (prop = xmldoc_child(ps, DAV_NS, "prop")) == NULL)
			continue;
		if ((rt = xmldoc_child(prop, DAV_NS, "resourcetype")) != NULL &&
		    xmldoc_child(rt, DAV_NS, "collection") != NULL)
			return 1;
	}
	return 0;
}

/* The name of href as a child of dir (both decoded, dir without a
 * trailing slash), "NAME/" for a collection; NULL when it is not one. */
static char *
child_name(const char *href, const char *dir, int coll)
{
	const char *p = href, *rest;
	char *path, *name = NULL;
	size_t dl = strlen(dir), len;

	if (strncasecmp(p, "http://", 7) == 0 || strncasecmp(p, "https://", 8) == 0) {
		p = strstr(p, "://") + 3;
		p += strcspn(p, "/");
	}
	if ((path = pct_decode(p, strlen(p), PCT_STRICT, NULL)) == NULL)
		return NULL;
	if (strncmp(path, dir, dl) != 0 || path[dl] != '/')
		goto out;
	rest = path + dl + 1;
	len = strlen(rest);
	if (len > 0 && rest[len - 1] == '/') {
		len--;
		coll = 1;
	}
	if (len == 0 || len > ARCHIVE_MAX_COMPONENT || memchr(rest, '/', len) != NULL ||
	    (len <= 2 && strncmp(rest, "..", len) == 0))
		goto out;
	name = xasprintf("%.*s%s", (int)len, rest, coll ? "/" : "");
 out:
	free(path);
	return name;
}

int
webdav_parse_listing(const char *xml, size_t len, const char *dir,
    char ***namesp, size_t *np, char **err)
{
	xmlDoc *doc;
	const xmlNode *root, *r, *h;
	xmlChar *href;
	char **names = NULL, *name, *d;
	size_t n = 0, cap = 0, dl;

	if (len > WEBDAV_MAX_XML || len > INT32_MAX)
		return err_set(err, -1, "PROPFIND answer larger than %d bytes", WEBDAV_MAX_XML);
	doc = xmldoc_read(xml, len, "propfind.xml", 0);
	if (doc == NULL || (root = xmlDocGetRootElement(doc)) == NULL ||
	    !xmldoc_is(root, DAV_NS, "multistatus")) {
		*err = xstrdup(doc == NULL ? "PROPFIND answer is not well-formed XML" :
		    "PROPFIND answer is not a DAV: multistatus document");
		xmlFreeDoc(doc);
		return -1;
	}
	d = xstrdup(dir);
	dl = strlen(d);
	while (dl > 0 && d[dl - 1] == '/')
		d[--dl] = '\0';
	for (r = root->children; r != NULL && n < ARCHIVE_MAX_LIST; r = r->next) {
		if (!xmldoc_is(r, DAV_NS, "response") ||
		    (h = xmldoc_child(r, DAV_NS, "href")) == NULL)
			continue;
		if ((href = xmlNodeGetContent(h)) == NULL)
			continue;
		name = child_name((const char *)href, d, is_collection(r));
		xmlFree(href);
		if (name == NULL)
			continue;
		xgrow(&names, &cap, n + 1, sizeof(*names));
		names[n++] = name;
	}
	free(d);
	xmlFreeDoc(doc);
	*namesp = names;
	*np = n;
	return 0;
}

static const char propfind_body[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<propfind xmlns=\"DAV:\"><prop><resourcetype/></prop></propfind>\n";

static int
dav_list(void *state, const char *prefix, char ***namesp, size_t *np, char **err)
{
	static const char *const hdrs[] = {
		"Depth: 1", "Content-Type: application/xml; charset=utf-8", NULL
	};
	struct dav *d = state;
	struct http_request q;
	struct http_response resp;
	char *url, *disp, *dir, *rawdir, *e2 = NULL;
	int r;

	req_init(d, &q, "PROPFIND", prefix, &url, &disp);
	if (prefix[0] == '\0') {
		/* the root collection itself: ".../path/" */
		free(url);
		url = xasprintf("%s/", d->root);
		q.url = url;
	}
	q.headers = hdrs;
	q.body = propfind_body;
	q.body_len = sizeof(propfind_body) - 1;
	q.max_response = WEBDAV_MAX_XML;
	r = http_do(&q, &resp, err);
	if (r == 0 && resp.status != 207) {
		*err = xasprintf("PROPFIND %s: HTTP %ld, not a WebDAV listing (is "
		    "the dav-ext module loaded?)", disp, resp.status);
		r = ARCHIVE_EPERM;
	}
	if (r == 0) {
		rawdir = xasprintf("%s/%s", d->path, prefix);
		if ((dir = pct_decode(rawdir, strlen(rawdir), PCT_STRICT, NULL)) == NULL) {
			*err = xasprintf("%s: bad %%-escape in the URL", d->display);
			r = ARCHIVE_EINVAL;
		} else if (webdav_parse_listing(resp.body != NULL ? resp.body : "",
		    resp.len, dir, namesp, np, &e2) != 0) {
			*err = xasprintf("PROPFIND %s: %s", disp, e2);
			r = ARCHIVE_EPERM;
		}
		free(e2);
		free(dir);
		free(rawdir);
	}
	http_response_release(&resp);
	free(url);
	free(disp);
	return r;
}

const struct archive_backend archive_backend_http = {
	"http", dav_open, dav_put, dav_get, dav_list, dav_del, dav_close,
};

const struct archive_backend archive_backend_https = {
	"https", dav_open, dav_put, dav_get, dav_list, dav_del, dav_close,
};
