/*
 * sigv4.h: AWS Signature Version 4 for requests to S3 and S3-compatible
 * stores, computed with libcrypto's HMAC-SHA256.
 *
 * Pure functions: nothing here touches the network or the clock.  The
 * caller describes a request (method, path, query, the headers it will
 * send, the payload's hash and the time) and gets back the headers to add
 * to it: x-amz-date, x-amz-content-sha256 when asked, x-amz-security-token
 * for temporary credentials, and Authorization.  The canonical request and
 * the string to sign are returned too, for tests and for -vvv tracing.
 * Nothing returned contains the secret key; the canonical request and the
 * added x-amz-security-token header do contain a session token, which is
 * a credential too: print neither as is.
 *
 * Canonicalisation follows S3's rules: the path is URI-encoded once, each
 * segment apart ('/' kept), and never normalised ("//" and ".." are signed
 * as sent); query parameters are decoded, re-encoded (unreserved
 * characters A-Z a-z 0-9 - . _ ~ kept, everything else %XX in upper case)
 * and sorted; header names are lowercased, values trimmed with inner runs
 * of spaces collapsed to one, repeated names joined with ','.
 */
#ifndef FLEETMARK_SIGV4_H
#define FLEETMARK_SIGV4_H

#include <stddef.h>
#include <time.h>

/* The payload hash to sign when the body is not hashed (S3 only). */
#define SIGV4_UNSIGNED_PAYLOAD	"UNSIGNED-PAYLOAD"
/* sha256 of nothing: the payload hash of a request without a body. */
#define SIGV4_EMPTY_SHA256 \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Who signs.  session_token is NULL for long-term keys. */
struct sigv4_creds {
	const char	*access_key_id;
	const char	*secret_access_key;
	const char	*session_token;
};

struct sigv4_request {
	const char	*method;	/* "GET", "PUT", ... */
	/* The absolute path, not encoded ("/bucket/a b"); encoded here. */
	const char	*path;
	/* The query as sent, without '?' (may be NULL or ""). */
	const char	*query;
	/*
	 * The headers to sign, as "Name: value" strings (NULL-terminated
	 * array); Host is required.  Every one of them is signed.
	 */
	const char *const *headers;
	/* Lowercase hex sha256 of the body, or SIGV4_UNSIGNED_PAYLOAD. */
	const char	*payload_hash;
	const char	*region;	/* "us-east-1" */
	const char	*service;	/* "s3" */
	const char	*amz_date;	/* "YYYYMMDDTHHMMSSZ" (sigv4_amz_date) */
	/* Also send and sign x-amz-content-sha256 (S3 wants it). */
	int		 content_sha256;
};

struct sigv4_signed {
	char	*canonical_request;
	char	*string_to_sign;
	char	*signed_headers;	/* "host;x-amz-date" */
	char	 signature[65];		/* lowercase hex */
	/*
	 * The headers to add to the request, "Name: value" strings in a
	 * NULL-terminated array: x-amz-date, x-amz-content-sha256 (when
	 * asked), x-amz-security-token (with a session token) unless the
	 * request already had them, then Authorization.
	 */
	char	**add;
};

/*
 * Sign `req` with `creds`.  Returns 0 and fills *out (released with
 * sigv4_signed_release()), or -1 with a new message in *err for a request
 * that cannot be signed (no Host, a header without ':', a bad date, a
 * missing field).
 */
int	sigv4_sign(const struct sigv4_request *req, const struct sigv4_creds *creds,
	    struct sigv4_signed *out, char **err);

/* Free what sigv4_sign() stored in *s (not s itself); accepts NULL. */
void	sigv4_signed_release(struct sigv4_signed *s);

/*
 * The first len bytes of s URI-encoded as S3 wants: unreserved characters
 * kept, '/' kept unless encode_slash, every other byte %XX.  A new string.
 */
char	*sigv4_uri_encode(const char *s, size_t len, int encode_slash);

/* t (seconds since the epoch, UTC) as "YYYYMMDDTHHMMSSZ"; 0, or -1 if out of range. */
int	sigv4_amz_date(time_t t, char out[17]);

#endif /* FLEETMARK_SIGV4_H */
