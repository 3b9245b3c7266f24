/*
 * s3.h: the parts of the S3 archive backend (src/archive-s3.c) that do not
 * touch the network: where requests go (endpoint, region, path-style or
 * virtual-hosted addressing, credentials, from the AWS environment
 * variables or the user config file), and the parsers of what S3 answers
 * (ListObjectsV2 results and error documents, read with libxml2), which
 * are untrusted input: bounded in size and count, refused when malformed
 * or when they carry a DTD.
 */
#ifndef FLEETMARK_S3_H
#define FLEETMARK_S3_H

#include <stddef.h>

struct userconf;

#define S3_MAX_XML	(16 * 1024 * 1024)	/* bytes of one answer */
#define S3_MAX_TEXT	4096			/* bytes of one element's text */
#define S3_MAX_NAMES	1000000			/* keys + prefixes in one page */

/* Where and as whom an archive s3://BUCKET/PREFIX is reached. */
struct s3_target {
	char	*bucket;
	char	*prefix;	/* "" or "a/b" (no leading or trailing '/') */
	char	*scheme;	/* "http" or "https" */
	char	*host;		/* host[:port] to connect to and sign as Host */
	int	 path_style;	/* 1: /BUCKET/KEY; 0: BUCKET.host/KEY */
	char	*region;
	char	*access_key_id;
	char	*secret_access_key;	/* never printed */
	char	*session_token;		/* or NULL; never printed */
	const char *cred_source;	/* "environment" or the config file */
};

/*
 * Resolve the target of the archive URL parts bucket/prefix: credentials
 * from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN when
 * both keys are set, else from uc's s3 section; region from AWS_REGION,
 * AWS_DEFAULT_REGION, uc, else us-east-1; endpoint from
 * AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, uc, else AWS's for the region.
 * Path-style addressing unless uc says path_style: no, or there is no
 * endpoint (real AWS) and the bucket is a DNS name.  uc may be NULL.
 * Returns 0, or -1 with a message (naming no secret) in *err.
 */
int	s3_target_init(struct s3_target *t, const char *bucket, const char *prefix,
	    const struct userconf *uc, char **err);

/* Free t's strings, wiping the secret and the token first. */
void	s3_target_release(struct s3_target *t);

/*
 * The object key of rel (a path relative to the archive, "RUNID/run.json",
 * or "RUNID/" and "" for listings): "PREFIX/rel", or rel without a
 * prefix.  A new string.
 */
char	*s3_key(const struct s3_target *t, const char *rel);

/*
 * The request path (not encoded) of the object key, or of the bucket when
 * key is NULL: "/BUCKET/key" path-style, "/key" virtual-hosted ("/BUCKET"
 * and "/" for the bucket).  A new string.
 */
char	*s3_path(const struct s3_target *t, const char *key);

/* The host to connect to: host, or BUCKET.host when virtual-hosted. */
char	*s3_request_host(const struct s3_target *t);

/* One page of a ListObjectsV2 answer. */
struct s3_listing {
	char	**keys;		/* Contents/Key, in order */
	size_t	  nkeys;
	char	**prefixes;	/* CommonPrefixes/Prefix */
	size_t	  nprefixes;
	int	  truncated;	/* IsTruncated was true */
	char	 *next_token;	/* NextContinuationToken, or NULL */
};

/*
 * Parse len bytes of a ListObjectsV2 answer (<ListBucketResult>).  -1
 * with a message for anything else, malformed XML, or past the S3_MAX_*
 * bounds; *out is changed only on success (release it).
 */
int	s3_list_parse(const char *xml, size_t len, struct s3_listing *out, char **err);
void	s3_listing_release(struct s3_listing *l);

/*
 * The Code and Message of an S3 error document (<Error>), printable and
 * shortened; 0, or -1 when xml is not one (both then NULL).  New strings.
 */
int	s3_error_parse(const char *xml, size_t len, char **code, char **message);

#endif /* FLEETMARK_S3_H */
