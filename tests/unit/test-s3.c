/*
 * test-s3.c: the S3 backend's offline parts (s3.h): ListObjectsV2 pages
 * and error documents as S3 and s3rver write them, malformed and hostile
 * ones refused; where an s3:// URL leads (endpoint, region, addressing)
 * and with which keys, from the AWS environment variables or the user
 * config file, and messages that never carry the secret.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "s3.h"
#include "tap.h"
#include "userconf.h"
#include "xmalloc.h"

#define NS "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\""

static void
test_list(void)
{
	/* the shape of a ListObjectsV2 page with delimiter '/', as S3 documents it */
	static const char page[] =
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<ListBucketResult " NS ">\n"
	    "  <Name>fleetmark</Name><Prefix>nightly/</Prefix><KeyCount>3</KeyCount>\n"
	    "  <MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>\n"
	    "  <ContinuationToken>abc</ContinuationToken>\n"
	    "  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=&amp;x</NextContinuationToken>\n"
	    "  <Contents><Key>nightly/README</Key><LastModified>2001-11-30T08:00:00.000Z</LastModified>"
	    "<ETag>&quot;d41d8cd98f00b204e9800998ecf8427e&quot;</ETag><Size>0</Size>"
	    "<StorageClass>STANDARD</StorageClass></Contents>\n"
	    "  <CommonPrefixes><Prefix>nightly/20011129-030000-smoke-1a2b/</Prefix></CommonPrefixes>\n"
	    "  <CommonPrefixes><Prefix>nightly/20011130-030000-smoke-&#x33;c4d/</Prefix></CommonPrefixes>\n"
	    "</ListBucketResult>\n";
	static const char last[] =
	    "<ListBucketResult " NS "><Name>b</Name><Prefix></Prefix><KeyCount>0</KeyCount>"
	    "<IsTruncated>false</IsTruncated></ListBucketResult>";
	struct s3_listing l;
	char *err = NULL;

	if (!ok(s3_list_parse(page, strlen(page), &l, &err) == 0, "a truncated page parses")) {
		printf("#   %s\n", err);
		free(err);
		return;
	}
	is_int(l.nkeys, 1, "... one key");
	is_str(l.keys[0], "nightly/README", "... its name");
	is_int(l.nprefixes, 2, "... two common prefixes");
	is_str(l.prefixes[1], "nightly/20011130-030000-smoke-3c4d/", "... character references decoded");
	ok(l.truncated, "... truncated");
	is_str(l.next_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=&x", "... the next token, &amp; decoded");
	s3_listing_release(&l);
	s3_listing_release(NULL);

	ok(s3_list_parse(last, strlen(last), &l, &err) == 0 && l.nkeys == 0 && l.nprefixes == 0 &&
	    !l.truncated && l.next_token == NULL, "an empty last page");
	s3_listing_release(&l);

	static const struct {
		const char *what, *xml, *msg;
	} bad[] = {
		{ "an error document", "<Error><Code>AccessDenied</Code></Error>", "not a ListBucketResult" },
		{ "not XML", "HTTP/1.1 200 OK", "not well-formed" },
		{ "cut short", "<ListBucketResult><Contents><Key>a</Key>", "not well-formed" },
		{ "an empty answer", "", "not well-formed" },
		{ "truncated without a token", "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
		  "without a NextContinuationToken" },
		{ "IsTruncated neither true nor false", "<ListBucketResult><IsTruncated>1</IsTruncated></ListBucketResult>",
		  "neither true nor false" },
		{ "two tokens", "<ListBucketResult><NextContinuationToken>a</NextContinuationToken>"
		  "<NextContinuationToken>b</NextContinuationToken></ListBucketResult>", "second" },
		{ "a DTD with nested entities (billion laughs)",
		  "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">"
		  "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;\">]><ListBucketResult><Contents><Key>&c;</Key></Contents>"
		  "</ListBucketResult>", "" },
		{ "an external entity", "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
		  "<ListBucketResult><Contents><Key>&x;</Key></Contents></ListBucketResult>", "document type" },
	};
	size_t i;
	char what[160];

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&l, 0x5a, sizeof(l));
		err = NULL;
		snprintf(what, sizeof(what), "refused: %s", bad[i].what);
		if (!ok(s3_list_parse(bad[i].xml, strlen(bad[i].xml), &l, &err) == -1 && err != NULL &&
		    strstr(err, bad[i].msg) != NULL && l.nkeys == (size_t)0x5a5a5a5a5a5a5a5aULL, what))
			printf("#   %s\n", err ? err : "(no message)");
		free(err);
	}

	/* a name over S3_MAX_TEXT, and an answer over S3_MAX_XML */
	{
		size_t n = S3_MAX_TEXT + 100, len;
		char *big = xmalloc(n + 200), *huge;

		len = (size_t)sprintf(big, "<ListBucketResult><Contents><Key>");
		memset(big + len, 'k', n);
		len += n;
		len += (size_t)sprintf(big + len, "</Key></Contents></ListBucketResult>");
		err = NULL;
		ok(s3_list_parse(big, len, &l, &err) == -1 && err && strstr(err, "over"), "refused: a key over the text bound");
		free(err);
		free(big);
		huge = xcalloc(1, (size_t)S3_MAX_XML + 2);
		memset(huge, ' ', (size_t)S3_MAX_XML + 1);
		err = NULL;
		ok(s3_list_parse(huge, (size_t)S3_MAX_XML + 1, &l, &err) == -1 && err && strstr(err, "over"),
		    "refused: an answer over the size bound, before parsing");
		free(err);
		free(huge);
	}
}

static void
test_error(void)
{
	static const char doc[] =
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SignatureDoesNotMatch</Code>"
	    "<Message>The request signature we calculated does not match\t the signature you provided.</Message>"
	    "<StringToSign>AWS4-HMAC-SHA256...</StringToSign><RequestId>x</RequestId></Error>";
	char *code, *msg;

	ok(s3_error_parse(doc, strlen(doc), &code, &msg) == 0, "an S3 error document parses");
	is_str(code, "SignatureDoesNotMatch", "... its code");
	is_str(msg, "The request signature we calculated does not match? the signature you provided.",
	    "... its message, control characters replaced");
	free(code);
	free(msg);
	ok(s3_error_parse("<Error><Message>m</Message></Error>", 35, &code, &msg) == -1 &&
	    code == NULL && msg == NULL, "an error document without a code: not one");
	ok(s3_error_parse("<html>502 Bad Gateway</html>", 28, &code, &msg) == -1, "an HTML page: not one");
	ok(s3_error_parse(NULL, 0, &code, &msg) == -1, "no body: not one");
}

static const char *const aws_vars[] = {
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
	"AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", NULL,
};

static void
clear_env(void)
{
	size_t i;

	for (i = 0; aws_vars[i] != NULL; i++)
		unsetenv(aws_vars[i]);
}

static void
test_target(void)
{
	struct userconf uc;
	struct s3_target t;
	char *err = NULL, *s;

	memset(&uc, 0, sizeof(uc));
	uc.path = "/home/u/.config/fleetmark/config.yaml";
	uc.s3.path_style = -1;
	clear_env();

	ok(s3_target_init(&t, "fleetmark", "nightly", &uc, &err) == -1 && err &&
	    strstr(err, "no S3 credentials") && strstr(err, uc.path), "no keys anywhere: refused, naming the config file");
	free(err);
	err = NULL;

	/* keys from the config file, AWS's endpoint for its region */
	uc.s3.access_key_id = "AKCONF";
	uc.s3.secret_access_key = "conf/secret+key";
	uc.s3.region = "eu-west-3";
	if (!ok(s3_target_init(&t, "fleetmark", "/nightly/", &uc, &err) == 0, "keys from the config file")) {
		printf("#   %s\n", err);
		free(err);
		return;
	}
	is_str(t.access_key_id, "AKCONF", "... its access key id");
	is_str(t.cred_source, uc.path, "... named as coming from it");
	is_str(t.region, "eu-west-3", "... its region");
	is_str(t.host, "s3.eu-west-3.amazonaws.com", "no endpoint: AWS's for the region");
	is_int(t.path_style, 0, "... virtual-hosted");
	s = s3_request_host(&t);
	is_str(s, "fleetmark.s3.eu-west-3.amazonaws.com", "... the bucket in the host name");
	free(s);
	is_str(t.prefix, "nightly", "prefix without its slashes");
	s = s3_key(&t, "R1/run.json");
	is_str(s, "nightly/R1/run.json", "object key: prefix/key");
	free(s);
	s = s3_path(&t, "nightly/R1/run.json");
	is_str(s, "/nightly/R1/run.json", "virtual-hosted path: /key");
	free(s);
	s3_target_release(&t);
	s3_target_release(NULL);

	/* the environment wins, endpoint from AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL */
	setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "env/secret", 1);
	setenv("AWS_SESSION_TOKEN", "tok", 1);
	setenv("AWS_DEFAULT_REGION", "us-west-2", 1);
	setenv("AWS_ENDPOINT_URL", "http://192.0.2.1:9000", 1);
	setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000/", 1);
	ok(s3_target_init(&t, "fleetmark", "", &uc, &err) == 0, "keys from the environment");
	is_str(t.access_key_id, "AKENV", "... the environment's over the config file's");
	is_str(t.session_token, "tok", "... with AWS_SESSION_TOKEN");
	is_str(t.cred_source, "the environment", "... named as coming from it");
	is_str(t.region, "us-west-2", "AWS_DEFAULT_REGION over the config file's region");
	is_str(t.host, "127.0.0.1:9000", "AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL");
	is_str(t.scheme, "http", "... its scheme");
	is_int(t.path_style, 1, "a custom endpoint: path-style");
	s = s3_path(&t, NULL);
	is_str(s, "/fleetmark", "path-style bucket path");
	free(s);
	s = s3_key(&t, "");
	is_str(s, "", "no prefix: the top is \"\"");
	free(s);
	s3_target_release(&t);
	setenv("AWS_REGION", "ap-south-1", 1);
	unsetenv("AWS_ENDPOINT_URL_S3");
	uc.s3.path_style = 0;
	ok(s3_target_init(&t, "fleetmark", "", &uc, &err) == 0 && strcmp(t.region, "ap-south-1") == 0 &&
	    strcmp(t.host, "192.0.2.1:9000") == 0 && t.path_style == 0,
	    "AWS_REGION over AWS_DEFAULT_REGION; AWS_ENDPOINT_URL; path_style: no");
	s3_target_release(&t);
	uc.s3.path_style = -1;

	unsetenv("AWS_SECRET_ACCESS_KEY");
	ok(s3_target_init(&t, "fleetmark", "", &uc, &err) == -1 && err &&
	    strstr(err, "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"), "half the keys in the environment: refused");
	free(err);
	err = NULL;
	setenv("AWS_SECRET_ACCESS_KEY", "env/secret", 1);

	static const struct {
		const char *endpoint, *msg;
	} eps[] = {
		{ "ftp://192.0.2.1", "not an http:// or https:// URL" },
		{ "http://user:env/secret@192.0.2.1", "user:password@" },
		{ "https://s3.example.org/base", "has a path" },
		{ "http://", "no host" },
	};
	size_t i;
	char what[160];

	for (i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
		setenv("AWS_ENDPOINT_URL_S3", eps[i].endpoint, 1);
		err = NULL;
		snprintf(what, sizeof(what), "endpoint %s refused", eps[i].endpoint);
		if (!ok(s3_target_init(&t, "fleetmark", "", &uc, &err) == -1 && err && strstr(err, eps[i].msg) &&
		    strstr(err, "AWS_ENDPOINT_URL_S3") && !strstr(err, "secret"), what))
			printf("#   %s\n", err ? err : "(none)");
		free(err);
	}
	setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9000", 1);
	err = NULL;
	ok(s3_target_init(&t, "bad/bucket", "", &uc, &err) == -1 && err && strstr(err, "bad bucket name"),
	    "a bucket name with '/': refused");
	free(err);
	err = NULL;
	setenv("AWS_REGION", "EU WEST", 1);
	ok(s3_target_init(&t, "fleetmark", "", &uc, &err) == -1 && err && strstr(err, "bad region"),
	    "a region with spaces: refused");
	free(err);
	err = NULL;
	unsetenv("AWS_ENDPOINT_URL_S3");
	unsetenv("AWS_ENDPOINT_URL");
	setenv("AWS_REGION", "us-east-1", 1);
	ok(s3_target_init(&t, "My.Bucket", "", &uc, &err) == 0 && t.path_style == 1,
	    "AWS with a bucket that is no DNS label: path-style");
	s3_target_release(&t);
	uc.s3.path_style = 0;
	ok(s3_target_init(&t, "My.Bucket", "", &uc, &err) == -1 && err && strstr(err, "virtual-hosted"),
	    "... and virtual-hosted asked for it: refused");
	free(err);
	clear_env();
}

int
main(void)
{
	test_list();
	test_error();
	test_target();
	return tap_done();
}
