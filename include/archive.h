/*
 * archive.h: run directories shared through archives (docs/archive.md).
 *
 * An archive is a URL: file:///abs/dir, http(s)://host/path (a WebDAV
 * server) or s3://BUCKET/PREFIX.  A run lives under it as URL/RUNID/ with
 * the run directory's files (run.json, trials.jsonl, hosts/NAME.json, logs/NAME.log,
 * report.*) and a MANIFEST of sha256 sums, uploaded LAST: a run without a
 * MANIFEST is incomplete and never listed.  `pull` verifies every sum and
 * size before the run appears at its destination.  docs/archive.md
 * describes the URLs, the manifest format, the retries and the user
 * config file.
 *
 * The archive moves files and knows nothing of their meaning beyond the
 * manifest.  Transports of bytes are backends (struct archive_backend),
 * one per URL scheme, registered in one table in src/archive.c.
 *
 * Errors: functions return 0 (ARCHIVE_OK) or a negative ARCHIVE_E* code
 * and store a newly allocated message in *err, which the caller frees.
 * Messages never contain credentials (a URL's user:password is scrubbed;
 * see archive_url_display()).  On failure no output parameter is changed.
 */
#ifndef FLEETMARK_ARCHIVE_H
#define FLEETMARK_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

/* Result codes, shared by the public API, the backends and http.h. */
#define ARCHIVE_OK		 0
#define ARCHIVE_ENOTFOUND	-1	/* no such object (404, ENOENT) */
#define ARCHIVE_ETRANSIENT	-2	/* worth retrying: refused connection,
					 * timeout, 5xx, short read (after the
					 * retries ran out, when returned) */
#define ARCHIVE_EPERM		-3	/* permanent: 401/403, other 4xx, I/O */
#define ARCHIVE_EINVAL		-4	/* bad URL, run id or argument (usage) */
#define ARCHIVE_ECORRUPT	-5	/* a sum, size or manifest is wrong */
#define ARCHIVE_EEXIST		-6	/* the destination exists and differs */
#define ARCHIVE_ECANCELED	-7	/* archive_cancel() was called */

/* A short name of a code: "not found", "transient", ... */
const char	*archive_strerror(int code);

/*
 * Stop the transfer in progress (async-signal-safe: for a SIGINT
 * handler).  It ends at its next progress report or between files with
 * ARCHIVE_ECANCELED, cleaning up as for any failure (a pull leaves no
 * temporary directory; a push leaves the run unlisted if the manifest was
 * not sent yet).  archive_cancelled() tells whether it was called.
 */
void	archive_cancel(void);
int	archive_cancelled(void);

/* --- Limits (the manifest and listings are untrusted input) -------------- */

#define ARCHIVE_MANIFEST	"MANIFEST"	/* name of the manifest in a run */
#define ARCHIVE_MANIFEST_MAX	(4 * 1024 * 1024)	/* bytes */
#define ARCHIVE_MAX_FILES	100000		/* entries in one manifest */
#define ARCHIVE_MAX_PATH	1024		/* bytes of a relative path */
#define ARCHIVE_MAX_COMPONENT	255		/* bytes of one path component */
#define ARCHIVE_MAX_DEPTH	8		/* components of a path */
#define ARCHIVE_MAX_FILE_SIZE	(64ULL << 30)	/* bytes of one file */
#define ARCHIVE_MAX_LIST	1000000		/* names in one listing */
#define ARCHIVE_MAX_RUNID	200		/* bytes of a run id */
#define ARCHIVE_QUALIFY		"qualify"	/* the hosts' qualifications:
						 * qualify/HOST.json, no run */
#define ARCHIVE_QUALIFY_MAX	(4 << 20)	/* bytes of one */

/* --- URLs (src/url.c) -------------------------------------------------------- */

/* Whether s starts with file://, http://, https:// or s3:// (any case). */
int	archive_is_url(const char *s);

/*
 * A parsed archive URL.  Strings are owned by the struct.
 *	file:///srv/runs	 host "",                  path "/srv/runs"
 *	https://u:p@h:8443/a/b/	 host "h:8443", user "u", password "p",
 *				 path "/a/b"
 *	s3://bucket/pre/fix	 host "bucket",            path "pre/fix"
 * `base` is the URL without credentials, query or trailing slash (the one
 * to name in messages: `display` is the same string); `path` never ends
 * with '/', and for http(s) it is "" or starts with '/'.  User and
 * password are percent-decoded; a query or fragment is refused.
 */
struct archive_url {
	char	*scheme;	/* "file", "http", "https", "s3" (lowercase) */
	char	*host;		/* host[:port], bucket, or "" for file */
	char	*path;
	char	*user;		/* from the URL, or NULL */
	char	*password;	/* from the URL, or NULL: never log it */
	char	*base;		/* scheme://host/path, no credentials */
	const char *display;	/* == base */
};

/* Parse s; ARCHIVE_EINVAL with a message naming the (scrubbed) URL. */
int	archive_url_parse(const char *s, struct archive_url **up, char **err);
void	archive_url_free(struct archive_url *u);

/*
 * A copy of s with any user:password@ removed (for messages about URLs
 * that may not even parse).  Always a newly allocated string.
 */
char	*archive_url_display(const char *s);

/*
 * Split "URL/RUNID" into the archive URL and the run id (its last path
 * component; a trailing slash is ignored).  Both newly allocated.
 * ARCHIVE_EINVAL when ref is not a URL or has no valid run id.
 */
int	archive_split_ref(const char *ref, char **url, char **runid);

/*
 * Whether id is an acceptable run id (and so a safe directory name):
 * 1 to ARCHIVE_MAX_RUNID bytes of [A-Za-z0-9._+-], not starting with '.',
 * and not ARCHIVE_QUALIFY, the archive's own folder.
 */
int	archive_valid_runid(const char *id);

/*
 * Whether p is an acceptable relative path inside a run: components of
 * [A-Za-z0-9._+@=,-] not starting with '.', separated by single '/', no
 * leading or trailing '/', within the ARCHIVE_MAX_* bounds.
 */
int	archive_valid_path(const char *p);

/* --- Manifests (src/manifest.c) ---------------------------------------------- */

/*
 * The manifest of a run (docs/archive.md):
 *
 *	fleetmark-manifest 1
 *	run 20261130-041500-smoke-3f2a
 *	files 3
 *	<sha256 hex>  <size>  <path>
 *	...
 *	end
 *
 * Entries are sorted by path, unique, valid (archive_valid_path), and
 * "MANIFEST" is not one of them.
 */
struct archive_entry {
	char		*path;
	uint64_t	 size;
	char		 sha256[65];	/* lowercase hex, NUL-terminated */
};

struct archive_manifest {
	char			*runid;
	size_t			 n;
	struct archive_entry	*entries;
};

/*
 * Build the manifest of the run directory `dir` whose id is runid: every
 * regular file under it, recursively, but names starting with '.' and a
 * top-level MANIFEST.  Symbolic links and invalid names are refused.
 */
int	archive_manifest_build(const char *dir, const char *runid,
	    struct archive_manifest **mp, char **err);

/* Parse `len` bytes (`name` in messages: "NAME:LINE: ..."). */
int	archive_manifest_parse(const char *name, const char *text, size_t len,
	    struct archive_manifest **mp, char **err);

/* The text of m (newly allocated, NUL-terminated; *lenp its length). */
char	*archive_manifest_format(const struct archive_manifest *m, size_t *lenp);

/*
 * Check that every entry of m is present under dir with its size and sum;
 * ARCHIVE_ECORRUPT naming the first file that is missing or differs.
 */
int	archive_manifest_verify(const struct archive_manifest *m,
	    const char *dir, char **err);

void	archive_manifest_free(struct archive_manifest *m);

/* sha256 of a file, as 64 lowercase hex digits (out[65]); *size its size. */
int	archive_sha256_file(const char *path, char out[65], uint64_t *size,
	    char **err);

/* --- Operations ---------------------------------------------------------- */

/*
 * Upload the run directory `rundir` (its id is its last path component)
 * to URL/RUNID/: files first, MANIFEST last.  When the archive already
 * holds the same MANIFEST, nothing is sent; when it holds a different
 * one, that one is deleted before the files are sent again, but only
 * when the archive's run.json names the same run (controller host, start
 * and plan): a resumed run replaces itself, never another run that got
 * the same id.  A run whose run.json says "running" is refused
 * (ARCHIVE_EINVAL).  ARCHIVE_PUSH_FORCE lifts both checks.
 */
int	archive_push(const char *rundir, const char *url, char **err);

#define ARCHIVE_PUSH_FORCE	0x1
int	archive_push_flags(const char *rundir, const char *url, int flags, char **err);

/*
 * Download URL/RUNID into destdir (NULL: ./RUNID): into a temporary
 * directory beside it, verified against the MANIFEST, then renamed into
 * place.  An existing destdir holding exactly that run is success; one
 * holding anything else is ARCHIVE_EEXIST.  The pulled directory holds
 * the MANIFEST too.
 */
int	archive_pull(const char *url, const char *runid, const char *destdir,
	    char **err);

/*
 * The ids of the complete runs (with a MANIFEST) in the archive, sorted
 * ascending (ids are YYYYMMDD-HHMMSS-PLAN-xxxx, so oldest first).  *ids
 * is a newly allocated array of *n new strings (strv_free()); an
 * archive that does not exist yet has no runs.
 */
int	archive_list(const char *url, char ***ids, size_t *n, char **err);

/*
 * A local copy of URL/RUNID for reading: in the cache directory
 * $XDG_CACHE_HOME/fleetmark/archive/<archive>/<RUNID> (else
 * ~/.cache/fleetmark/...).  The archive's MANIFEST is fetched every time;
 * the run is pulled again unless the cached copy has the same MANIFEST
 * text and verifies against it.  *dir is newly allocated.  Errors as for
 * archive_pull() (ARCHIVE_ECANCELED when interrupted: callers that skip
 * a bad run must still stop then).
 */
int	archive_fetch(const char *url, const char *runid, char **dir,
	    char **err);

/* The cache directory archive_fetch() uses (newly allocated). */
char	*archive_cache_dir(void);

/*
 * A host's qualification (`fleetmark qualify`'s record of what it can
 * see, docs/qualify.md) beside the runs: URL/qualify/HOST.json, one file,
 * no manifest; the last one put replaces the one before.  host must pass
 * fleet_name_ok() (ARCHIVE_EINVAL).  archive_get_qualify() gives the
 * file's text (*text newly allocated, at most ARCHIVE_QUALIFY_MAX
 * bytes), ARCHIVE_ENOTFOUND when the host has none; what it says is
 * untrusted.
 */
int	archive_put_qualify(const char *url, const char *host, const char *localpath,
	    char **err);
int	archive_get_qualify(const char *url, const char *host, char **text, size_t *len,
	    char **err);

/* --- Backends ------------------------------------------------------------ */

struct userconf;

/*
 * Progress of one transfer: cb(arg, bytes done so far in this file).
 * A backend calls it as bytes move (may be never for small files).
 */
struct archive_progress {
	void	(*cb)(void *arg, uint64_t done);
	void	*arg;
};

/*
 * One URL scheme's transport.  Keys are paths relative to the archive URL
 * ("RUNID/trials.jsonl", "RUNID/MANIFEST"); the backend joins them to
 * u->path and escapes them as its protocol needs.  Every operation returns
 * ARCHIVE_OK, ARCHIVE_ENOTFOUND, ARCHIVE_ETRANSIENT (the backend has
 * already retried, see http.h) or ARCHIVE_EPERM, with a message in *err
 * that names the key and never a credential.
 */
struct archive_backend {
	const char	*scheme;	/* "file", "http", "https", "s3" */

	/* Prepare a session on u (credentials from uc, which may be empty). */
	int	(*open)(const struct archive_url *u, const struct userconf *uc,
		    void **statep, char **err);

	/* Store the local file at key, creating what the key's parents need. */
	int	(*put)(void *state, const char *key, const char *localpath,
		    const struct archive_progress *p, char **err);

	/*
	 * Fetch key into localpath (created or truncated, mode 0644).  More
	 * than `max` bytes is ARCHIVE_ECORRUPT.
	 */
	int	(*get)(void *state, const char *key, const char *localpath,
		    uint64_t max, const struct archive_progress *p, char **err);

	/*
	 * The names directly under prefix ("" for the archive's top, or
	 * "RUNID/"): objects as "NAME", collections as "NAME/".  At most
	 * ARCHIVE_MAX_LIST names; *names is an array of new strings
	 * (strv_free()).  A prefix that does not exist is ARCHIVE_ENOTFOUND
	 * or an empty list.
	 */
	int	(*list)(void *state, const char *prefix, char ***names,
		    size_t *n, char **err);

	/* Remove key; a key that is not there is ARCHIVE_ENOTFOUND. */
	int	(*del)(void *state, const char *key, char **err);

	void	(*close)(void *state);
};

/* The backends (src/archive-NAME.c), for the table in src/archive.c. */
extern const struct archive_backend archive_backend_file;
extern const struct archive_backend archive_backend_http;
extern const struct archive_backend archive_backend_https;
extern const struct archive_backend archive_backend_s3;

/* The backend for u's scheme, or NULL. */
const struct archive_backend *archive_backend_find(const char *scheme);

#endif /* FLEETMARK_ARCHIVE_H */
