/*
 * test-sigv4.c: the SigV4 signer against published reference values.
 *
 * Sources of the expected values:
 *  - AWS's Signature Version 4 test suite (aws-sig-v4-test-suite, dated
 *    2015-08-30), https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html
 *    : credentials AKIDEXAMPLE / wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY,
 *    20150830T123600Z, region us-east-1, service "service", host
 *    example.amazonaws.com; cases get-vanilla, get-vanilla-query-order-key-case,
 *    get-header-key-duplicate, get-header-value-trim, get-vanilla-utf8-query,
 *    get-utf8, get-space, get-unreserved, post-vanilla,
 *    post-x-www-form-urlencoded (signed without content-length, as the
 *    suite's published signature is) and post-sts-header-before.
 *  - The Amazon S3 API Reference, "Signature Calculations for the
 *    Authorization Header: Transferring Payload in a Single Chunk",
 *    https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
 *    : AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY,
 *    20130524T000000Z, us-east-1, bucket examplebucket; examples GET Object,
 *    PUT Object, GET Bucket Lifecycle and Get Bucket (List Objects).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "sigv4.h"
#include "tap.h"

static const struct sigv4_creds suite = {
	"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", NULL,
};
static const struct sigv4_creds s3doc = {
	"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", NULL,
};
static const char sts_token[] =
    "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHG"
    "BuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1N"
    "tBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHN"
    "VXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9"
    "FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==";

/* The secret never appears in anything the signer returns. */
static int
secret_free(const struct sigv4_signed *s, const char *secret)
{
	size_t i;

	if (strstr(s->canonical_request, secret) || strstr(s->string_to_sign, secret))
		return 0;
	for (i = 0; s->add[i] != NULL; i++)
		if (strstr(s->add[i], secret))
			return 0;
	return 1;
}

static const char *
added(const struct sigv4_signed *s, const char *prefix)
{
	size_t i;

	for (i = 0; s->add[i] != NULL; i++)
		if (strncmp(s->add[i], prefix, strlen(prefix)) == 0)
			return s->add[i];
	return NULL;
}

/* The fixed part of a family of vectors. */
struct setting {
	const char			*family;	/* "suite", "S3" */
	const struct sigv4_creds	*creds;
	const char			*host;		/* "Host: ..." */
	const char			*service;
	const char			*amz_date;
	int				 s3;		/* x-amz-content-sha256 too */
};

/* One published request and its signature. */
struct vector {
	const char	*name, *method, *path, *query;
	const char	*extra[4];	/* more headers, NULL-terminated */
	const char	*body, *token;
	const char	*want;		/* the signature */
	const char	*want_signed;	/* the signed headers, or NULL */
};

static void
check_vector(const struct setting *st, const struct vector *v)
{
	const char *hdrs[6] = { st->host };
	struct sigv4_creds c = *st->creds;
	struct sigv4_request r = { 0 };
	struct sigv4_signed s = { 0 };
	char hash[65], what[160], *err = NULL;
	const char *sent;
	size_t i;

	for (i = 0; i < 4 && v->extra[i] != NULL; i++)
		hdrs[i + 1] = v->extra[i];
	digest_sha256_hex(v->body, strlen(v->body), hash);
	c.session_token = v->token;
	r.method = v->method;
	r.path = v->path;
	r.query = v->query;
	r.headers = hdrs;
	r.payload_hash = hash;
	r.region = "us-east-1";
	r.service = st->service;
	r.amz_date = st->amz_date;
	r.content_sha256 = st->s3;
	snprintf(what, sizeof(what), "%s %s: signs", st->family, v->name);
	if (!ok(sigv4_sign(&r, &c, &s, &err) == 0, what)) {
		printf("#   %s\n", err);
		free(err);
		return;
	}
	snprintf(what, sizeof(what), "%s %s: signature", st->family, v->name);
	is_str(s.signature, v->want, what);
	if (v->want_signed != NULL) {
		snprintf(what, sizeof(what), "%s %s: signed headers", st->family, v->name);
		is_str(s.signed_headers, v->want_signed, what);
	}
	if (st->s3) {
		snprintf(what, sizeof(what), "%s %s: x-amz-content-sha256 sent", st->family, v->name);
		sent = added(&s, "x-amz-content-sha256: ");
		ok(sent != NULL && strcmp(sent + 22, hash) == 0, what);
	}
	snprintf(what, sizeof(what), "%s %s: secret in no output", st->family, v->name);
	ok(secret_free(&s, c.secret_access_key), what);
	sigv4_signed_release(&s);
}

static void
test_suite(void)
{
	static const struct setting st = {
		"suite", &suite, "Host: example.amazonaws.com", "service", "20150830T123600Z", 0,
	};
	static const struct vector vs[] = {
		{ "get-vanilla", "GET", "/", NULL, { NULL }, "", NULL,
		  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31", "host;x-amz-date" },
		{ "get-vanilla-query-order-key-case", "GET", "/", "Param2=value2&Param1=value1", { NULL }, "", NULL,
		  "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500", NULL },
		{ "get-header-key-duplicate", "GET", "/", NULL,
		  { "My-Header1: value2", "My-Header1: value2", "My-Header1: value1", NULL }, "", NULL,
		  "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea", "host;my-header1;x-amz-date" },
		{ "get-header-value-trim", "GET", "/", NULL,
		  { "My-Header1: value1", "My-Header2: \"a   b   c\"", NULL }, "", NULL,
		  "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736", NULL },
		{ "get-vanilla-utf8-query", "GET", "/", "%E1%88%B4=bar", { NULL }, "", NULL,
		  "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04", NULL },
		{ "get-utf8", "GET", "/\xe1\x88\xb4", NULL, { NULL }, "", NULL,
		  "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85", NULL },
		{ "get-space", "GET", "/example space/", NULL, { NULL }, "", NULL,
		  "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741", NULL },
		{ "get-unreserved", "GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
		  NULL, { NULL }, "", NULL,
		  "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f", NULL },
		{ "post-vanilla", "POST", "/", NULL, { NULL }, "", NULL,
		  "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b", NULL },
		{ "post-x-www-form-urlencoded", "POST", "/", NULL,
		  { "Content-Type: application/x-www-form-urlencoded", NULL }, "Param1=value1", NULL,
		  "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a", "content-type;host;x-amz-date" },
		{ "post-sts-header-before", "POST", "/", NULL, { NULL }, "", sts_token,
		  "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead",
		  "host;x-amz-date;x-amz-security-token" },
	};
	const char *vhdr[] = { "Host: example.amazonaws.com", NULL };
	struct sigv4_request r = { 0 };
	struct sigv4_signed s = { 0 };
	char *err = NULL;
	size_t i;

	for (i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
		check_vector(&st, &vs[i]);

	/* get-vanilla in full: the suite's canonical request, string to sign and header */
	r.method = "GET";
	r.path = "/";
	r.headers = vhdr;
	r.payload_hash = SIGV4_EMPTY_SHA256;
	r.region = "us-east-1";
	r.service = "service";
	r.amz_date = "20150830T123600Z";
	if (sigv4_sign(&r, &suite, &s, &err) != 0) {
		ok(0, "get-vanilla signs");
		free(err);
		return;
	}
	is_str(s.canonical_request,
	    "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
	    "host;x-amz-date\n" SIGV4_EMPTY_SHA256, "get-vanilla: canonical request");
	is_str(s.string_to_sign,
	    "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
	    "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
	    "get-vanilla: string to sign");
	is_str(added(&s, "Authorization:"),
	    "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
	    "SignedHeaders=host;x-amz-date, "
	    "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
	    "get-vanilla: Authorization header");
	is_str(added(&s, "x-amz-date:"), "x-amz-date: 20150830T123600Z", "get-vanilla: x-amz-date added");
	ok(added(&s, "x-amz-content-sha256:") == NULL && added(&s, "x-amz-security-token:") == NULL,
	    "get-vanilla: nothing else added");
	sigv4_signed_release(&s);
}

static void
test_s3(void)
{
	static const struct setting st = {
		"S3", &s3doc, "Host: examplebucket.s3.amazonaws.com", "s3", "20130524T000000Z", 1,
	};
	static const struct vector vs[] = {
		{ "GET Object", "GET", "/test.txt", NULL, { "Range: bytes=0-9", NULL }, "", NULL,
		  "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
		  "host;range;x-amz-content-sha256;x-amz-date" },
		{ "PUT Object", "PUT", "/test$file.text", NULL,
		  { "Date: Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class: REDUCED_REDUNDANCY", NULL },
		  "Welcome to Amazon S3.", NULL,
		  "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
		  "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class" },
		{ "GET Bucket Lifecycle", "GET", "/", "lifecycle", { NULL }, "", NULL,
		  "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
		  "host;x-amz-content-sha256;x-amz-date" },
		{ "Get Bucket (List Objects)", "GET", "/", "max-keys=2&prefix=J", { NULL }, "", NULL,
		  "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
		  "host;x-amz-content-sha256;x-amz-date" },
	};
	size_t i;

	for (i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
		check_vector(&st, &vs[i]);
}

static void
test_details(void)
{
	const char *hdrs[] = { "Host: 127.0.0.1:9000", NULL };
	const char *nohost[] = { "Range: bytes=0-9", NULL };
	const char *bad[] = { "Host: x", "no colon here", NULL };
	struct sigv4_creds c = { "AKIDTEST", "secret/with+chars", "tok en" };
	struct sigv4_request r = { 0 };
	struct sigv4_signed s = { 0 }, s2 = { 0 };
	char d[17], *e, *err = NULL;

	e = sigv4_uri_encode("a b/c+d=\xc3\xa9~", 11, 0);
	is_str(e, "a%20b/c%2Bd%3D%C3%A9~", "uri encode: '/' kept, the rest %XX in upper case");
	free(e);
	e = sigv4_uri_encode("runs/2001/x", 11, 1);
	is_str(e, "runs%2F2001%2Fx", "uri encode: '/' encoded in a query value");
	free(e);
	is_int(sigv4_amz_date(1440938160, d), 0, "amz date of 2015-08-30T12:36:00Z");
	is_str(d, "20150830T123600Z", "... is 20150830T123600Z");

	r.method = "GET";
	r.path = "/bucket/runs/a b";
	r.query = "list-type=2&prefix=runs%2F&delimiter=%2F&continuation-token=a%2Bb%3D";
	r.headers = hdrs;
	r.payload_hash = SIGV4_UNSIGNED_PAYLOAD;
	r.region = "eu-west-1";
	r.service = "s3";
	r.amz_date = "20011130T080000Z";
	r.content_sha256 = 1;
	if (!ok(sigv4_sign(&r, &c, &s, &err) == 0, "unsigned payload with a session token signs")) {
		free(err);
		return;
	}
	ok(strstr(s.canonical_request, "\n/bucket/runs/a%20b\n") != NULL, "path encoded once in the canonical request");
	ok(strstr(s.canonical_request,
	    "\ncontinuation-token=a%2Bb%3D&delimiter=%2F&list-type=2&prefix=runs%2F\n") != NULL,
	    "query decoded, re-encoded and sorted");
	ok(strstr(s.canonical_request, "\nx-amz-security-token:tok en\n") != NULL &&
	    strcmp(s.signed_headers, "host;x-amz-content-sha256;x-amz-date;x-amz-security-token") == 0,
	    "session token signed");
	is_str(added(&s, "x-amz-security-token:"), "x-amz-security-token: tok en", "... and sent");
	ok(strlen(s.canonical_request) > 16 &&
	    strcmp(s.canonical_request + strlen(s.canonical_request) - 16, "UNSIGNED-PAYLOAD") == 0,
	    "UNSIGNED-PAYLOAD ends the canonical request");
	is_str(added(&s, "x-amz-content-sha256:"), "x-amz-content-sha256: UNSIGNED-PAYLOAD", "... and is sent");
	ok(secret_free(&s, c.secret_access_key), "the secret in no output");

	c.secret_access_key = "secret/with+chars!";
	ok(sigv4_sign(&r, &c, &s2, &err) == 0 && strcmp(s.signature, s2.signature) != 0,
	    "another secret, another signature");
	sigv4_signed_release(&s);
	sigv4_signed_release(&s2);

	r.headers = nohost;
	ok(sigv4_sign(&r, &c, &s, &err) == -1 && err && strstr(err, "Host"), "no Host: refused");
	free(err);
	err = NULL;
	r.headers = bad;
	ok(sigv4_sign(&r, &c, &s, &err) == -1 && err && strstr(err, "bad header"), "a header line without ':': refused");
	free(err);
	err = NULL;
	r.headers = hdrs;
	r.amz_date = "2001-11-30";
	ok(sigv4_sign(&r, &c, &s, &err) == -1 && err && strstr(err, "bad date"), "a malformed date: refused");
	free(err);
	sigv4_signed_release(NULL);
}

int
main(void)
{
	test_suite();
	test_s3();
	test_details();
	return tap_done();
}
