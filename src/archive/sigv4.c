/*
 * sigv4.c: AWS Signature Version 4 (see sigv4.h).  The secret key is used
 * only to derive the signing key, and every buffer that held key material
 * is cleansed before it is freed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "digest.h"
#include "pctenc.h"
#include "sigv4.h"
#include "strbuf.h"
#include "xmalloc.h"

#define ALGORITHM	"AWS4-HMAC-SHA256"

char *
sigv4_uri_encode(const char *s, size_t len, int encode_slash)
{
	return pct_encode(s, len, encode_slash ? PCT_UNRESERVED : PCT_UNRESERVED "/");
}

int
sigv4_amz_date(time_t t, char out[17])
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 0)
		return -1;
	if (strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm) != 16)
		return -1;
	return 0;
}

static int
valid_amz_date(const char *d)
{
	int i;

	if (d == NULL || strlen(d) != 16 || d[8] != 'T' || d[15] != 'Z')
		return 0;
	for (i = 0; i < 15; i++)
		if (i != 8 && !isdigit((unsigned char)d[i]))
			return 0;
	return 1;
}

/* --- canonical query string ------------------------------------------------ */

struct param {
	char	*name, *value;	/* encoded */
};

static int
param_cmp(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->value, y->value);
}

static char *
canonical_query(const char *q)
{
	struct param *ps = NULL;
	struct strbuf b = STRBUF_INIT;
	size_t n = 0, cap = 0, i;
	const char *p = q;

	while (p != NULL && *p != '\0') {
		const char *amp = strchr(p, '&'), *end = amp ? amp : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		size_t nl = (size_t)((eq ? eq : end) - p), dl;
		char *d;

		if (end > p) {
			xgrow(&ps, &cap, n + 1, sizeof(*ps));
			d = pct_decode(p, nl, 0, &dl);
			ps[n].name = sigv4_uri_encode(d, dl, 1);
			free(d);
			if (eq != NULL)
				d = pct_decode(eq + 1, (size_t)(end - eq - 1), 0, &dl);
			else
				d = xstrdup(""), dl = 0;
			ps[n].value = sigv4_uri_encode(d, dl, 1);
			free(d);
			n++;
		}
		p = amp ? amp + 1 : NULL;
	}
	if (n > 1)
		qsort(ps, n, sizeof(*ps), param_cmp);
	for (i = 0; i < n; i++) {
		strbuf_addf(&b, "%s%s=%s", i > 0 ? "&" : "", ps[i].name, ps[i].value);
		free(ps[i].name);
		free(ps[i].value);
	}
	free(ps);
	return strbuf_detach(&b, NULL);
}

/* --- canonical headers ------------------------------------------------------ */

struct hdr {
	char	*name;		/* lowercase */
	char	*value;		/* trimmed, spaces collapsed */
	size_t	 order;		/* as given, so repeated names keep their order */
};

static int
hdr_cmp(const void *a, const void *b)
{
	const struct hdr *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Parse "Name: value" into h; -1 when there is no name or no ':'. */
static int
hdr_parse(const char *line, struct hdr *h, size_t order)
{
	const char *colon = strchr(line, ':'), *v;
	size_t nl, i, o = 0;
	int space = 0;

	if (colon == NULL)
		return -1;
	nl = (size_t)(colon - line);
	while (nl > 0 && isspace((unsigned char)line[nl - 1]))
		nl--;
	if (nl == 0)
		return -1;
	h->name = xstrndup(line, nl);
	for (i = 0; i < nl; i++)
		h->name[i] = (char)tolower((unsigned char)h->name[i]);
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	h->value = xmalloc(strlen(v) + 1);
	for (; *v != '\0'; v++) {
		if (*v == ' ' || *v == '\t') {
			space = 1;
			continue;
		}
		if (space && o > 0)
			h->value[o++] = ' ';
		space = 0;
		h->value[o++] = *v;
	}
	h->value[o] = '\0';
	h->order = order;
	return 0;
}

static int
has_header(const struct hdr *hs, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(hs[i].name, name) == 0)
			return 1;
	return 0;
}

/* --- signing ------------------------------------------------------------------ */

static void
hmac(const void *key, size_t klen, const char *msg, unsigned char out[32])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = sizeof(md);

	/* through md: out may be the key */
	HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), md, &n);
	memcpy(out, md, 32);
	OPENSSL_cleanse(md, sizeof(md));
}

/* What makes a request impossible to sign, or NULL. */
static const char *
unsignable(const struct sigv4_request *req, const struct sigv4_creds *creds)
{
	if (req->method == NULL || req->path == NULL || req->path[0] != '/' ||
	    req->payload_hash == NULL || req->region == NULL || req->service == NULL ||
	    creds->access_key_id == NULL || creds->secret_access_key == NULL)
		return "incomplete request or credentials";
	if (!valid_amz_date(req->amz_date))
		return "bad date (want YYYYMMDDTHHMMSSZ)";
	if (strlen(req->region) + strlen(req->service) > 200 ||
	    strpbrk(req->region, "/\n") || strpbrk(req->service, "/\n"))
		return "bad region or service name";
	return NULL;
}

int
sigv4_sign(const struct sigv4_request *req, const struct sigv4_creds *creds,
    struct sigv4_signed *out, char **err)
{
	struct hdr *hs = NULL;
	size_t n = 0, cap = 0, i, nadd = 0, given;
	struct strbuf creq = STRBUF_INIT, sts = STRBUF_INIT, sh = STRBUF_INIT;
	char **add = NULL, *uri = NULL, *query = NULL, *kdate_in = NULL;
	char hash[65], date8[9], scope[256];
	const char *why;
	unsigned char k[32], sig[32];
	int r = -1;

	if ((why = unsignable(req, creds)) != NULL)
		return err_set(err, -1, "sigv4: %s", why);
	for (i = 0; req->headers != NULL && req->headers[i] != NULL; i++) {
		xgrow(&hs, &cap, n + 1, sizeof(*hs));
		if (hdr_parse(req->headers[i], &hs[n], n) != 0) {
			*err = xasprintf("sigv4: bad header line '%.40s'", req->headers[i]);
			goto out;
		}
		n++;
	}
	if (!has_header(hs, n, "host")) {
		*err = xstrdup("sigv4: no Host header to sign");
		goto out;
	}
	given = n;
	/* The headers this module adds, unless the caller gave them. */
	add = xcalloc(5, sizeof(*add));
#define ADD(nm, val) do {						\
	if (!has_header(hs, given, nm)) {				\
		xgrow(&hs, &cap, n + 1, sizeof(*hs));			\
		hs[n].name = xstrdup(nm);				\
		hs[n].value = xstrdup(val);				\
		hs[n].order = n;					\
		n++;							\
		add[nadd++] = xasprintf("%s: %s", nm, val);		\
	}								\
} while (0)
	ADD("x-amz-date", req->amz_date);
	if (req->content_sha256)
		ADD("x-amz-content-sha256", req->payload_hash);
	if (creds->session_token != NULL && creds->session_token[0] != '\0')
		ADD("x-amz-security-token", creds->session_token);
#undef ADD
	qsort(hs, n, sizeof(*hs), hdr_cmp);

	/* canonical request */
	uri = sigv4_uri_encode(req->path, strlen(req->path), 0);
	query = canonical_query(req->query);
	strbuf_addf(&creq, "%s\n%s\n%s\n", req->method, uri, query);
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(hs[i].name, hs[i - 1].name) == 0) {
			/* a repeated name: its values joined with ',' */
			strbuf_setlen(&creq, creq.len - 1);	/* the previous '\n' */
			strbuf_addf(&creq, ",%s\n", hs[i].value);
			continue;
		}
		strbuf_addf(&creq, "%s:%s\n", hs[i].name, hs[i].value);
		strbuf_addf(&sh, "%s%s", sh.len > 0 ? ";" : "", hs[i].name);
	}
	strbuf_addf(&creq, "\n%s\n%s", sh.buf, req->payload_hash);

	/* string to sign */
	memcpy(date8, req->amz_date, 8);
	date8[8] = '\0';
	snprintf(scope, sizeof(scope), "%s/%s/%s/aws4_request", date8, req->region, req->service);
	digest_sha256_hex(creq.buf, creq.len, hash);
	strbuf_addf(&sts, ALGORITHM "\n%s\n%s\n%s", req->amz_date, scope, hash);

	/* signing key: HMAC chain from "AWS4" + secret */
	kdate_in = xasprintf("AWS4%s", creds->secret_access_key);
	hmac(kdate_in, strlen(kdate_in), date8, k);
	hmac(k, 32, req->region, k);
	hmac(k, 32, req->service, k);
	hmac(k, 32, "aws4_request", k);
	hmac(k, 32, sts.buf, sig);
	digest_tohex(sig, sizeof(sig), out->signature);
	add[nadd++] = xasprintf("Authorization: " ALGORITHM " Credential=%s/%s, SignedHeaders=%s, Signature=%s",
	    creds->access_key_id, scope, sh.buf, out->signature);
	out->canonical_request = strbuf_detach(&creq, NULL);
	out->string_to_sign = strbuf_detach(&sts, NULL);
	out->signed_headers = strbuf_detach(&sh, NULL);
	out->add = add;
	add = NULL;
	r = 0;
out:
	OPENSSL_cleanse(k, sizeof(k));
	free_secret(kdate_in);
	for (i = 0; i < n; i++) {
		free(hs[i].name);
		free(hs[i].value);
	}
	free(hs);
	for (i = 0; add != NULL && add[i] != NULL; i++)
		free(add[i]);
	free(add);
	free(uri);
	free(query);
	strbuf_release(&creq);
	strbuf_release(&sts);
	strbuf_release(&sh);
	return r;
}

void
sigv4_signed_release(struct sigv4_signed *s)
{
	size_t i;

	if (s == NULL)
		return;
	free(s->canonical_request);
	free(s->string_to_sign);
	free(s->signed_headers);
	for (i = 0; s->add != NULL && s->add[i] != NULL; i++)
		free(s->add[i]);
	free(s->add);
	memset(s, 0, sizeof(*s));
}
