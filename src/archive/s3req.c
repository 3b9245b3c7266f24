/*
 * s3.c: S3 endpoints, credentials and answers, without the network
 * (s3.h).  Answers are read with libxml2, as the WebDAV backend's are.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/tree.h>

#include "pctenc.h"
#include "s3.h"
#include "strv.h"
#include "userconf.h"
#include "xmalloc.h"
#include "xmldoc.h"

/* --- answers, read with libxml2 ------------------------------------------------ */

/*
 * Parse an answer: no network, no entity substitution, and no DTD at all
 * (a DTD is how entity expansion attacks come in; S3 never sends one).
 */
static xmlDoc *
xml_read(const char *xml, size_t len, const char *root, char **err)
{
	xmlDoc *doc;
	const xmlNode *r;

	if (len > S3_MAX_XML) {
		*err = xasprintf("the answer is over %d bytes", S3_MAX_XML);
		return NULL;
	}
	doc = xmldoc_read(xml, len, "s3.xml", XML_PARSE_NOCDATA);
	if (doc == NULL) {
		*err = xstrdup("not well-formed XML");
		return NULL;
	}
	if (doc->intSubset != NULL || doc->extSubset != NULL) {
		*err = xstrdup("a document type declaration (not accepted)");
		xmlFreeDoc(doc);
		return NULL;
	}
	if ((r = xmlDocGetRootElement(doc)) == NULL ||
	    strcmp((const char *)r->name, root) != 0) {
		*err = xasprintf("not a %s document%s%s%s", root, r ? " (<" : "",
		    r ? (const char *)r->name : "", r ? ">)" : "");
		xmlFreeDoc(doc);
		return NULL;
	}
	return doc;
}

/* The text of n as a new string; NULL when over S3_MAX_TEXT bytes. */
static char *
text_of(const xmlNode *n)
{
	xmlChar *t = xmlNodeGetContent(n);
	char *s = NULL;

	if (t != NULL && strlen((const char *)t) <= S3_MAX_TEXT)
		s = xstrdup((const char *)t);
	else if (t == NULL)
		s = xstrdup("");
	xmlFree(t);
	return s;
}

int
s3_list_parse(const char *xml, size_t len, struct s3_listing *out, char **err)
{
	struct s3_listing l;
	const xmlNode *n, *k;
	xmlDoc *doc;
	char *e = NULL, *t;
	size_t capk = 0, capp = 0;
	int r = -1;

	memset(&l, 0, sizeof(l));
	if ((doc = xml_read(xml, len, "ListBucketResult", &e)) == NULL)
		goto out;
	for (n = xmlDocGetRootElement(doc)->children; n != NULL; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (l.nkeys + l.nprefixes >= S3_MAX_NAMES) {
			e = xasprintf("more than %d names in one page", S3_MAX_NAMES);
			goto out;
		}
		if ((xmldoc_is(n, NULL, "Contents") &&
		    (k = xmldoc_child(n, NULL, "Key")) != NULL) ||
		    (xmldoc_is(n, NULL, "CommonPrefixes") &&
		    (k = xmldoc_child(n, NULL, "Prefix")) != NULL)) {
			if ((t = text_of(k)) == NULL) {
				e = xasprintf("a name over %d bytes", S3_MAX_TEXT);
				goto out;
			}
			if (xmldoc_is(n, NULL, "Contents")) {
				xgrow(&l.keys, &capk, l.nkeys + 1, sizeof(char *));
				l.keys[l.nkeys++] = t;
			} else {
				xgrow(&l.prefixes, &capp, l.nprefixes + 1, sizeof(char *));
				l.prefixes[l.nprefixes++] = t;
			}
		} else if (xmldoc_is(n, NULL, "IsTruncated")) {
			if ((t = text_of(n)) == NULL || (strcmp(t, "true") != 0 && strcmp(t, "false") != 0)) {
				free(t);
				e = xstrdup("IsTruncated is neither true nor false");
				goto out;
			}
			l.truncated = strcmp(t, "true") == 0;
			free(t);
		} else if (xmldoc_is(n, NULL, "NextContinuationToken")) {
			if (l.next_token != NULL || (l.next_token = text_of(n)) == NULL) {
				e = xstrdup("a second or oversized NextContinuationToken");
				goto out;
			}
		}
	}
	if (l.truncated && (l.next_token == NULL || l.next_token[0] == '\0')) {
		e = xstrdup("truncated without a NextContinuationToken");
		goto out;
	}
	*out = l;
	memset(&l, 0, sizeof(l));
	r = 0;
out:
	if (r != 0) {
		*err = xasprintf("bad ListObjectsV2 answer: %s", e);
		s3_listing_release(&l);
	}
	free(e);
	xmlFreeDoc(doc);
	return r;
}

void
s3_listing_release(struct s3_listing *l)
{
	if (l == NULL)
		return;
	strv_free(l->keys, l->nkeys);
	strv_free(l->prefixes, l->nprefixes);
	free(l->next_token);
	memset(l, 0, sizeof(*l));
}

/* A printable copy of at most max bytes of s (others become '?'). */
static char *
printable(const char *s, size_t max)
{
	size_t len = strlen(s), i, n = 0;
	char *o = xmalloc((len < max ? len : max) + 4);

	for (i = 0; i < len && n < max; i++)
		o[n++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (i < len) {
		memcpy(o + n, "...", 3);
		n += 3;
	}
	o[n] = '\0';
	return o;
}

int
s3_error_parse(const char *xml, size_t len, char **code, char **message)
{
	const xmlNode *root, *c, *m;
	xmlDoc *doc;
	char *e = NULL, *t;

	*code = *message = NULL;
	if (xml == NULL || (doc = xml_read(xml, len, "Error", &e)) == NULL) {
		free(e);
		return -1;
	}
	root = xmlDocGetRootElement(doc);
	if ((c = xmldoc_child(root, NULL, "Code")) == NULL || (t = text_of(c)) == NULL) {
		xmlFreeDoc(doc);
		return -1;
	}
	if (t[0] == '\0') {
		free(t);
		xmlFreeDoc(doc);
		return -1;
	}
	*code = printable(t, 64);
	free(t);
	if ((m = xmldoc_child(root, NULL, "Message")) != NULL && (t = text_of(m)) != NULL) {
		*message = printable(t, 200);
		free(t);
	}
	xmlFreeDoc(doc);
	return 0;
}

/* --- endpoints and credentials ------------------------------------------------- */

static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

/*
 * Whether s is min to max bytes of lowercase letters, digits, the
 * characters in extra, and uppercase letters when upper.
 */
static int
made_of(const char *s, size_t min, size_t max, int upper, const char *extra)
{
	size_t i, n = strlen(s);

	if (n < min || n > max)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(islower(c) || isdigit(c) || (upper && isupper(c)) ||
		    (c != '\0' && strchr(extra, c) != NULL)))
			return 0;
	}
	return 1;
}

static int
valid_bucket(const char *b)
{
	return made_of(b, 1, 255, 1, ".-_");
}

/* A bucket name usable as a DNS label for virtual-hosted addressing. */
static int
dns_bucket(const char *b)
{
	return made_of(b, 3, 63, 0, "-") && b[0] != '-' && b[strlen(b) - 1] != '-';
}

static int
valid_region(const char *r)
{
	return made_of(r, 1, 64, 0, "-");
}

/* "http(s)://host[:port][/]" into scheme and host; -1 otherwise. */
static int
parse_endpoint(const char *e, const char *from, struct s3_target *t, char **err)
{
	const char *h, *slash;
	size_t n;

	if (strchr(e, '@') != NULL)	/* and so not echoed: it may hold a password */
		return err_set(err, -1, "%s: the endpoint has a user:password@ part "
		    "(credentials do not belong in the endpoint)", from);
	if (strncasecmp(e, "http://", 7) == 0) {
		t->scheme = xstrdup("http");
		h = e + 7;
	} else if (strncasecmp(e, "https://", 8) == 0) {
		t->scheme = xstrdup("https");
		h = e + 8;
	} else
		return err_set(err, -1,
		    "%s: endpoint '%.80s' is not an http:// or https:// URL", from, e);
	slash = strchr(h, '/');
	n = slash != NULL ? (size_t)(slash - h) : strlen(h);
	if (slash != NULL && slash[1] != '\0')
		return err_set(err, -1,
		    "%s: endpoint '%.80s' has a path (give scheme://host[:port] only)", from, e);
	if (n == 0 || n > 255)
		return err_set(err, -1, "%s: endpoint '%.80s' has no host", from, e);
	if (pct_kept_span(h, n, ".-:[]_") != n)
		return err_set(err, -1,
		    "%s: endpoint '%.80s': bad character in the host", from, e);
	t->host = xstrndup(h, n);
	return 0;
}

int
s3_target_init(struct s3_target *t, const char *bucket, const char *prefix,
    const struct userconf *uc, char **err)
{
	const struct userconf_s3 *c = uc != NULL ? &uc->s3 : NULL;
	const char *cfile = uc != NULL && uc->path != NULL ? uc->path : "the config file";
	const char *akid = env("AWS_ACCESS_KEY_ID"), *secret = env("AWS_SECRET_ACCESS_KEY");
	const char *token = NULL, *region, *endpoint, *efrom;
	struct s3_target n;
	size_t len;

	memset(&n, 0, sizeof(n));
	if (!valid_bucket(bucket))
		return err_set(err, -1,
		    "s3://%.80s: bad bucket name (letters, digits, '.', '-', '_')", bucket);

	if (akid != NULL || secret != NULL) {
		if (akid == NULL || secret == NULL)
			return err_set(err, -1, "%s is set but %s is not",
			    akid ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
			    akid ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
		token = env("AWS_SESSION_TOKEN");
		n.cred_source = "the environment";
	} else if (c != NULL && (c->access_key_id != NULL || c->secret_access_key != NULL)) {
		akid = c->access_key_id;
		secret = c->secret_access_key;
		if (akid == NULL || secret == NULL || akid[0] == '\0' || secret[0] == '\0')
			return err_set(err, -1,
			    "%s: s3: needs both access_key_id and secret_access_key", cfile);
		token = c->session_token;
		n.cred_source = cfile;
	} else
		return err_set(err, -1, "s3://%s: no S3 credentials: set AWS_ACCESS_KEY_ID and "
		    "AWS_SECRET_ACCESS_KEY, or s3: access_key_id and secret_access_key in %s",
		    bucket, cfile);

	if ((region = env("AWS_REGION")) == NULL && (region = env("AWS_DEFAULT_REGION")) == NULL &&
	    (c == NULL || (region = c->region) == NULL))
		region = "us-east-1";
	if (!valid_region(region))
		return err_set(err, -1, "s3: bad region '%.64s'", region);

	efrom = "AWS_ENDPOINT_URL_S3";
	if ((endpoint = env("AWS_ENDPOINT_URL_S3")) == NULL) {
		efrom = "AWS_ENDPOINT_URL";
		if ((endpoint = env("AWS_ENDPOINT_URL")) == NULL && c != NULL) {
			efrom = cfile;
			endpoint = c->endpoint;
		}
	}
	if (endpoint != NULL) {
		if (parse_endpoint(endpoint, efrom, &n, err) != 0) {
			free(n.scheme);
			return -1;
		}
		n.path_style = c != NULL && c->path_style == 0 ? 0 : 1;
	} else {
		n.scheme = xstrdup("https");
		n.host = xasprintf("s3.%s.amazonaws.com", region);
		n.path_style = (c != NULL && c->path_style == 1) || !dns_bucket(bucket);
	}
	if (!dns_bucket(bucket) && (!n.path_style || (c != NULL && c->path_style == 0))) {
		free(n.scheme);
		free(n.host);
		return err_set(err, -1,
		    "s3://%s: virtual-hosted addressing needs a bucket name that "
		    "is a DNS label (path_style: yes)", bucket);
	}

	n.bucket = xstrdup(bucket);
	while (prefix != NULL && *prefix == '/')
		prefix++;
	n.prefix = xstrdup(prefix != NULL ? prefix : "");
	len = strlen(n.prefix);
	while (len > 0 && n.prefix[len - 1] == '/')
		n.prefix[--len] = '\0';
	n.region = xstrdup(region);
	n.access_key_id = xstrdup(akid);
	n.secret_access_key = xstrdup(secret);
	n.session_token = token != NULL && token[0] != '\0' ? xstrdup(token) : NULL;
	*t = n;
	return 0;
}

void
s3_target_release(struct s3_target *t)
{
	if (t == NULL)
		return;
	free(t->bucket);
	free(t->prefix);
	free(t->scheme);
	free(t->host);
	free(t->region);
	free(t->access_key_id);
	free_secret(t->secret_access_key);
	free_secret(t->session_token);
	memset(t, 0, sizeof(*t));
}

char *
s3_key(const struct s3_target *t, const char *rel)
{
	if (t->prefix[0] == '\0')
		return xstrdup(rel);
	return xasprintf("%s/%s", t->prefix, rel);
}

char *
s3_path(const struct s3_target *t, const char *key)
{
	if (t->path_style)
		return key != NULL ? xasprintf("/%s/%s", t->bucket, key) : xasprintf("/%s", t->bucket);
	return xasprintf("/%s", key != NULL ? key : "");
}

char *
s3_request_host(const struct s3_target *t)
{
	if (t->path_style)
		return xstrdup(t->host);
	return xasprintf("%s.%s", t->bucket, t->host);
}
