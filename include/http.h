/*
 * http.h: the libcurl plumbing the HTTP archive backends share (WebDAV in
 * src/archive-webdav.c, S3 in src/archive-s3.c).
 *
 * One call, http_do(), performs a request with retries: a transient
 * failure (connection refused or reset, timeout, a stalled transfer, a
 * short read, HTTP 5xx, 408 or 429) is retried with exponential backoff,
 * bounded in tries and in total time (struct http_retry); anything else
 * is returned at once.  Request bodies come from a file or from memory and
 * are re-read on every try; response bodies go to a file (truncated on
 * every try) or into a buffer bounded by max_response.  Progress is
 * reported through a callback.  Messages name req->display (or the URL)
 * and never a credential.
 *
 * Results are the archive codes (archive.h): ARCHIVE_OK for 2xx (and 3xx
 * is not followed: it is ARCHIVE_EPERM), ARCHIVE_ENOTFOUND for 404 and
 * 410, ARCHIVE_EPERM for 401/403 ("access denied") and other 4xx,
 * ARCHIVE_ETRANSIENT when the retries ran out, ARCHIVE_ECORRUPT for a
 * response over max_response.
 */
#ifndef FLEETMARK_HTTP_H
#define FLEETMARK_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "archive.h"

#define HTTP_MAX_BODY	(16 * 1024 * 1024)	/* default in-memory response cap */
#define HTTP_MIN_RATE	(16 * 1024)		/* bytes/s a try may not fall below */

/*
 * How often and how long to retry.  Try k (k >= 1) waits
 * min(first_delay_ms * 2^(k-1), max_delay_ms) before try k+1, with up to
 * 25% random jitter; no try starts after max_total_ms.
 * Defaults (http_retry_default()): 5 tries, 500 ms, 8 s, 120 s, a 10 s
 * connect timeout, and a transfer below 1 byte/s for 30 s is stalled.
 * Each try also has a deadline (CURLOPT_TIMEOUT): max_total_ms plus its
 * bytes (the upload's size, else the response's cap: max_response, which
 * is the manifest's cap for a MANIFEST and the manifest's size for a
 * file) at min_rate bytes/s, so that no server can keep one going.
 */
struct http_retry {
	int		tries;
	long long	first_delay_ms;
	long long	max_delay_ms;
	long long	max_total_ms;
	long		connect_timeout_s;
	long		stall_s;
	uint64_t	min_rate;	/* bytes/s, for the deadline of a try */
};

void	http_retry_default(struct http_retry *r);

struct http_request {
	const char	*method;	/* "GET", "PUT", "PROPFIND", "MKCOL", ... */
	const char	*url;		/* escaped; may not carry credentials */
	const char	*display;	/* names the request in messages; NULL: url */

	const char	*user;		/* HTTP basic auth, or NULL */
	const char	*password;
	int		 netrc;		/* no user: take it from ~/.netrc if there,
					 * unless group or others may read it */
	/* more secrets to scrub from messages (S3's), NULL-terminated, or NULL */
	const char *const *secrets;

	/* extra "Name: value" header lines, NULL-terminated, or NULL */
	const char *const *headers;

	/* The body: a local file, or memory, or none. */
	const char	*upload_path;
	const void	*body;
	size_t		 body_len;

	/*
	 * The response body: into this file when the status is 2xx (else
	 * into the buffer, for the message), or into the buffer; either is
	 * capped at max_response bytes (0: HTTP_MAX_BODY).
	 */
	const char	*download_path;
	uint64_t	 max_response;

	/*
	 * Called before every try, to add headers that depend on the time
	 * of sending (SigV4's x-amz-date and Authorization): append them to
	 * *hdrs with curl_slist_append().  Nonzero fails the request with
	 * *err set (ARCHIVE_EPERM).
	 */
	int		(*prepare)(void *arg, const struct http_request *req,
			    struct curl_slist **hdrs, char **err);
	void		*prepare_arg;

	const struct archive_progress *progress;
	const struct http_retry *retry;	/* NULL: http_retry_default() */
};

struct http_response {
	long		 status;	/* last HTTP status, 0 if none */
	char		*body;		/* NUL-terminated; NULL when empty or
					 * written to download_path */
	size_t		 len;
	int		 tries;		/* how many tries were made */
};

/*
 * Perform req (with retries).  *resp is filled in on every outcome that
 * reached the server, so a caller can read an error document; release it
 * with http_response_release().  Calls curl_global_init() once.
 */
int	http_do(const struct http_request *req, struct http_response *resp,
	    char **err);

void	http_response_release(struct http_response *resp);

/*
 * Scrub what a server may echo back (an error page quoting the request's
 * headers) from *msg: password, base64("user:password") as sent in
 * "Authorization: Basic", each of secrets (NULL-terminated, or NULL), and
 * any other "Basic <base64>" (a ~/.netrc login), each made "***".  http_do()
 * does it to every message it makes and logs.
 */
void	http_scrub(char **msg, const char *user, const char *password,
	    const char *const *secrets);

/* The archive code for an HTTP status (2xx OK, 404 not found, ...). */
int	http_status_class(long status);

/*
 * Percent-escape a key for a URL path: unreserved characters and '/' are
 * kept (RFC 3986 section 2.3), everything else becomes %XX.  New string.
 */
char	*http_escape_path(const char *key);

#endif /* FLEETMARK_HTTP_H */
