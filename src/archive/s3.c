/*
 * archive-s3.c: the s3://BUCKET/PREFIX archive backend (archive.h): PUT,
 * GET, HEAD and DELETE Object and ListObjectsV2 on any S3-compatible
 * store, each request signed with SigV4 (sigv4.h) right before every try
 * (http.h retries), so that a retried request carries a fresh date.
 * Where the requests go and with which keys is s3.h's business; what the
 * server says is parsed there too.  Messages name the object as
 * s3://BUCKET/KEY and, when a signature is refused, the access key id and
 * where it came from, never the secret.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "archive.h"
#include "http.h"
#include "log.h"
#include "s3.h"
#include "sigv4.h"
#include "strv.h"
#include "userconf.h"
#include "xmalloc.h"

#define S3_MAX_PAGES	100000	/* ListObjectsV2 pages of one listing */

struct s3_state {
	struct s3_target	 t;
	struct http_retry	 retry;
};

/* What the signing callback needs to know of one request. */
struct s3_call {
	const struct s3_state	*s;
	const char		*method;
	const char		*path;		/* not encoded */
	const char		*query;		/* encoded, or NULL */
	const char		*payload_hash;
	const char		*host;
};

/*
 * -vvv: what was signed, to compare with a server's idea of it, with the
 * session token's value (a credential) left out.
 */
static void
trace_signed(const struct sigv4_signed *sg)
{
	static const char tok[] = "\nx-amz-security-token:";
	const char *cr = sg->canonical_request, *t = strstr(cr, tok), *eol;

	if (t == NULL) {
		log_trace("s3: canonical request:\n%s", cr);
		return;
	}
	eol = strchr(t + 1, '\n');
	log_trace("s3: canonical request:\n%.*s%s(not shown)%s", (int)(t - cr), cr, tok,
	    eol != NULL ? eol : "");
}

/* http.h's prepare hook: sign with the time of this try. */
static int
s3_prepare(void *arg, const struct http_request *req, struct curl_slist **hdrs, char **err)
{
	const struct s3_call *c = arg;
	struct sigv4_creds creds;
	struct sigv4_request r;
	struct sigv4_signed sg;
	const char *sh[2];
	char date[17], *hosthdr;
	size_t i;

	(void)req;
	if (sigv4_amz_date(time(NULL), date) != 0)
		return err_set(err, -1, "s3: the clock is out of range");
	memset(&r, 0, sizeof(r));
	memset(&sg, 0, sizeof(sg));
	creds.access_key_id = c->s->t.access_key_id;
	creds.secret_access_key = c->s->t.secret_access_key;
	creds.session_token = c->s->t.session_token;
	hosthdr = xasprintf("Host: %s", c->host);
	sh[0] = hosthdr;
	sh[1] = NULL;
	r.method = c->method;
	r.path = c->path;
	r.query = c->query;
	r.headers = sh;
	r.payload_hash = c->payload_hash;
	r.region = c->s->t.region;
	r.service = "s3";
	r.amz_date = date;
	r.content_sha256 = 1;
	if (sigv4_sign(&r, &creds, &sg, err) != 0) {
		free(hosthdr);
		return -1;
	}
	if (log_get_level() >= LOG_LEVEL_TRACE)
		trace_signed(&sg);
	*hdrs = curl_slist_append(*hdrs, hosthdr);
	for (i = 0; sg.add[i] != NULL; i++)
		*hdrs = curl_slist_append(*hdrs, sg.add[i]);
	sigv4_signed_release(&sg);
	free(hosthdr);
	return 0;
}

/*
 * The message for a failed request: S3's error code said in words when
 * the answer is an S3 error document, else http.h's message.  Returns the
 * archive code to report.
 */
static int
s3_explain(const struct s3_state *s, const char *method, const char *disp,
    const struct http_response *resp, int r, char **msg)
{
	const struct s3_target *t = &s->t;
	char *code = NULL, *text = NULL, *m = NULL, retries[64] = "";

	if (resp->status < 300 ||
	    s3_error_parse(resp->body, resp->len, &code, &text) != 0)
		return r;
	if (r == ARCHIVE_ETRANSIENT && resp->tries > 1)
		snprintf(retries, sizeof(retries), " (gave up after %d tries)", resp->tries);
	if (strcmp(code, "SignatureDoesNotMatch") == 0)
		m = xasprintf("%s %s: signature rejected by the server (HTTP %ld %s) for access key id %s "
		    "from %s: check the secret access key", method, disp, resp->status, code,
		    t->access_key_id, t->cred_source);
	else if (strcmp(code, "InvalidAccessKeyId") == 0)
		m = xasprintf("%s %s: the server does not know access key id %s from %s (HTTP %ld %s)",
		    method, disp, t->access_key_id, t->cred_source, resp->status, code);
	else if (strcmp(code, "RequestTimeTooSkewed") == 0)
		m = xasprintf("%s %s: this machine's clock is too far from the server's (HTTP %ld %s)",
		    method, disp, resp->status, code);
	else if (strcmp(code, "AuthorizationHeaderMalformed") == 0)
		m = xasprintf("%s %s: the server refused the signature's scope, region %s (HTTP %ld %s%s%s)",
		    method, disp, t->region, resp->status, code, text ? ": " : "", text ? text : "");
	else if (strcmp(code, "PermanentRedirect") == 0)
		m = xasprintf("%s %s: the bucket is not served at %s://%s (HTTP %ld %s): give its region "
		    "(AWS_REGION, now %s) or its endpoint", method, disp, t->scheme, t->host,
		    resp->status, code, t->region);
	else if (strcmp(code, "NoSuchBucket") == 0) {
		m = xasprintf("%s %s: no bucket '%s' at %s://%s (HTTP %ld %s)", method, disp,
		    t->bucket, t->scheme, t->host, resp->status, code);
		r = ARCHIVE_EPERM;
	} else
		m = xasprintf("%s %s: HTTP %ld %s%s%s%s", method, disp, resp->status, code,
		    text ? ": " : "", text ? text : "", retries);
	free(code);
	free(text);
	free(*msg);
	*msg = m;
	return r;
}

/*
 * One request on the object key (NULL: the bucket; then what names it in
 * messages).  The answer's body goes to download (a file) or into resp.
 */
static int
s3_request(const struct s3_state *s, const char *method, const char *key, const char *what,
    const char *query, const char *payload_hash, const char *upload, const char *download,
    uint64_t max, const struct archive_progress *p, struct http_response *resp, char **err)
{
	const char *secrets[3];
	const struct s3_target *t = &s->t;
	struct http_request req;
	struct s3_call call;
	char *path, *epath, *host, *url, *disp, *msg = NULL;
	int r;

	path = s3_path(t, key);
	epath = sigv4_uri_encode(path, strlen(path), 0);
	host = s3_request_host(t);
	url = xasprintf("%s://%s%s%s%s", t->scheme, host, epath, query ? "?" : "", query ? query : "");
	disp = key != NULL ? xasprintf("s3://%s/%s", t->bucket, key) :
	    xasprintf("s3://%s/%s", t->bucket, what != NULL ? what : "");

	memset(&call, 0, sizeof(call));
	call.s = s;
	call.method = method;
	call.path = path;
	call.query = query;
	call.payload_hash = payload_hash;
	call.host = host;

	secrets[0] = s->t.secret_access_key;
	secrets[1] = s->t.session_token;
	secrets[2] = NULL;
	memset(&req, 0, sizeof(req));
	req.secrets = secrets;
	req.method = method;
	req.url = url;
	req.display = disp;
	req.upload_path = upload;
	req.download_path = download;
	req.max_response = max;
	req.prepare = s3_prepare;
	req.prepare_arg = &call;
	req.progress = p;
	req.retry = &s->retry;

	log_debug("s3: %s %s (%s)", method, disp, url);
	if ((r = http_do(&req, resp, &msg)) != ARCHIVE_OK) {
		r = s3_explain(s, method, disp, resp, r, &msg);
		http_scrub(&msg, NULL, NULL, secrets);
		*err = msg;
	}
	free(path);
	free(epath);
	free(host);
	free(url);
	free(disp);
	return r;
}

static int
s3_open(const struct archive_url *u, const struct userconf *uc, void **statep, char **err)
{
	struct s3_state *s = xcalloc(1, sizeof(*s));

	if (s3_target_init(&s->t, u->host, u->path, uc, err) != 0) {
		free(s);
		return ARCHIVE_EINVAL;
	}
	http_retry_default(&s->retry);
	if (uc != NULL && uc->tries > 0)
		s->retry.tries = uc->tries;
	if (uc != NULL && uc->max_time_ms > 0)
		s->retry.max_total_ms = uc->max_time_ms;
	if (uc != NULL && uc->min_rate > 0)
		s->retry.min_rate = (uint64_t)uc->min_rate;
	log_verbose("s3: s3://%s/%s at %s://%s, %s-style, region %s, access key id %s from %s",
	    s->t.bucket, s->t.prefix, s->t.scheme, s->t.host,
	    s->t.path_style ? "path" : "virtual-hosted", s->t.region, s->t.access_key_id,
	    s->t.cred_source);
	*statep = s;
	return ARCHIVE_OK;
}

static int
s3_put(void *state, const char *key, const char *localpath,
    const struct archive_progress *p, char **err)
{
	struct s3_state *s = state;
	struct http_response resp;
	char hash[65], *k;
	uint64_t size;
	int r;

	/* a signed payload: the server checks the bytes it got against it */
	if ((r = archive_sha256_file(localpath, hash, &size, err)) != 0)
		return r < 0 ? r : ARCHIVE_EPERM;
	k = s3_key(&s->t, key);
	r = s3_request(s, "PUT", k, NULL, NULL, hash, localpath, NULL, 0, p, &resp, err);
	http_response_release(&resp);
	free(k);
	return r;
}

static int
s3_get(void *state, const char *key, const char *localpath, uint64_t max,
    const struct archive_progress *p, char **err)
{
	struct s3_state *s = state;
	struct http_response resp;
	char *k = s3_key(&s->t, key);
	int r;

	r = s3_request(s, "GET", k, NULL, NULL, SIGV4_EMPTY_SHA256, NULL, localpath, max, p, &resp, err);
	http_response_release(&resp);
	free(k);
	return r;
}

static int
s3_list(void *state, const char *prefix, char ***namesp, size_t *np, char **err)
{
	struct s3_state *s = state;
	struct s3_listing l;
	struct http_response resp;
	char **names = NULL, *p, *ep, *etok = NULL, *query, *token = NULL, *e = NULL;
	size_t n = 0, cap = 0, plen, i, pages;
	int r = ARCHIVE_OK;

	p = s3_key(&s->t, prefix);
	plen = strlen(p);
	ep = sigv4_uri_encode(p, plen, 1);
	for (pages = 0;; pages++) {
		if (pages >= S3_MAX_PAGES) {
			*err = xasprintf("s3://%s/%s: more than %d pages in a listing", s->t.bucket, p,
			    S3_MAX_PAGES);
			r = ARCHIVE_ECORRUPT;
			break;
		}
		free(etok);
		etok = token != NULL ? sigv4_uri_encode(token, strlen(token), 1) : NULL;
		query = xasprintf("%s%s%sdelimiter=%%2F&list-type=2&prefix=%s",
		    etok ? "continuation-token=" : "", etok ? etok : "", etok ? "&" : "", ep);
		r = s3_request(s, "GET", NULL, p, query, SIGV4_EMPTY_SHA256, NULL, NULL, 0, NULL, &resp, err);
		free(query);
		if (r != ARCHIVE_OK) {
			http_response_release(&resp);
			break;
		}
		if (s3_list_parse(resp.body ? resp.body : "", resp.len, &l, &e) != 0) {
			*err = xasprintf("s3://%s/%s: %s", s->t.bucket, p, e);
			free(e);
			http_response_release(&resp);
			r = ARCHIVE_ECORRUPT;
			break;
		}
		http_response_release(&resp);
		for (i = 0; i < l.nkeys + l.nprefixes && n < ARCHIVE_MAX_LIST; i++) {
			const char *name = i < l.nkeys ? l.keys[i] : l.prefixes[i - l.nkeys];
			const char *rest, *slash;

			if (strncmp(name, p, plen) != 0 || name[plen] == '\0')
				continue;	/* not under the prefix, or the prefix itself */
			rest = name + plen;
			slash = strchr(rest, '/');
			if (i < l.nkeys ? slash != NULL : (slash == NULL || slash[1] != '\0'))
				continue;	/* deeper than asked: not ours to list */
			xgrow(&names, &cap, n + 1, sizeof(*names));
			names[n++] = xstrdup(rest);
		}
		if (!l.truncated || n >= ARCHIVE_MAX_LIST) {
			s3_listing_release(&l);
			break;
		}
		if (token != NULL && strcmp(token, l.next_token) == 0) {
			*err = xasprintf("s3://%s/%s: the server repeats a continuation token",
			    s->t.bucket, p);
			s3_listing_release(&l);
			r = ARCHIVE_ECORRUPT;
			break;
		}
		free(token);
		token = xstrdup(l.next_token);
		s3_listing_release(&l);
	}
	free(token);
	free(etok);
	free(ep);
	free(p);
	if (r != ARCHIVE_OK) {
		strv_free(names, n);
		return r;
	}
	*namesp = names;
	*np = n;
	return ARCHIVE_OK;
}

static int
s3_del(void *state, const char *key, char **err)
{
	struct s3_state *s = state;
	struct http_response resp;
	char *k = s3_key(&s->t, key);
	int r;

	/* S3 answers 204 for a key that is not there: ask first */
	r = s3_request(s, "HEAD", k, NULL, NULL, SIGV4_EMPTY_SHA256, NULL, NULL, 0, NULL, &resp, err);
	http_response_release(&resp);
	if (r == ARCHIVE_OK) {
		r = s3_request(s, "DELETE", k, NULL, NULL, SIGV4_EMPTY_SHA256, NULL, NULL, 0, NULL, &resp, err);
		http_response_release(&resp);
	}
	free(k);
	return r;
}

static void
s3_close(void *state)
{
	struct s3_state *s = state;

	if (s == NULL)
		return;
	s3_target_release(&s->t);
	free(s);
}

const struct archive_backend archive_backend_s3 = {
	"s3", s3_open, s3_put, s3_get, s3_list, s3_del, s3_close,
};
