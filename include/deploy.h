/*
 * deploy.h: put a fleetmark-agent that fits a host into its work directory.
 *
 * On an open transport, deploy_agent() finds the host's OS and
 * architecture (`uname -sm`), and in the same channel whether a prebuilt
 * agent is in the work directory already, then either
 *   - uploads the matching static binary of `make agents` to
 *	WORKDIR/agents/SHA256-PREFIX/fleetmark-agent
 *     (one channel: the directory, the verified upload and `version`),
 *     skipping the upload when that file is already there intact (its
 *     SHA-256, or its POSIX cksum, matches: it was checked by `version`
 *     when it was uploaded, and serve's hello checks its protocol), or
 *   - when no binary fits (or the inventory says `agent: source`) and the
 *     host has a C compiler, sends the agent's sources as one tar stream
 *     and compiles them there into WORKDIR/src/SHA256-PREFIX/, cached by
 *     the sources' hash;
 * and refuses an agent whose `version` says a wire protocol this
 * controller does not speak.  Two exec channels for a new agent, one for
 * a cached one; no SFTP, no shell per file.  The binaries are read once
 * per process.  It knows nothing of plans or runs.
 *
 * WORKDIR is used as given; a leading "~/" means the login user's home
 * ($HOME there, asked for in the first step).
 * Every value reaches the host's shell quoted (shquote.h).
 */
#ifndef FLEETMARK_DEPLOY_H
#define FLEETMARK_DEPLOY_H

#include "fleet.h"

struct transport;

struct deploy_result {
	char	os[32];		/* `uname -s` */
	char	machine[32];	/* `uname -m` */
	char	arch[32];	/* Debian architecture name */
	char	sha256[65];	/* of the binary or of the source archive */
	char	*path;		/* the agent on the host (a literal path: quote it) */
	char	*version;	/* what `fleetmark-agent version` said */
	int	uploaded;	/* bytes had to be sent (not already cached) */
	int	built;		/* compiled on the host from source */
	char	*dir;		/* the work directory there, "~/" expanded */
	char	*own_dir;	/* set when the inventory's work directory is
				 * another user's: dir is then this user's own
				 * WORKDIR-UID (the same string) */
};

/*
 * Deploy on t into workdir following mode; when workdir (or its agents/
 * or programs/) exists there and the login user cannot write it, into
 * WORKDIR-UID instead (res->own_dir).  Returns 0 and fills *res
 * (release with deploy_result_release()), or a negative TRANSPORT_E* code
 * (TRANSPORT_EREMOTE for "cannot deploy here": unknown OS, no binary and
 * no compiler, a build that failed, a wrong protocol) with a new message
 * naming the host in *err.
 */
int	deploy_agent(struct transport *t, const char *workdir,
	    enum fleet_agent mode, struct deploy_result *res, char **err);

void	deploy_result_release(struct deploy_result *res);

struct transport_result;

/*
 * Put the executable data (len bytes) at path on t, unless the file there
 * already has its SHA-256 (or, without sha256sum, its POSIX cksum), then
 * run the shell command `then` there with $p set to the path.  One exec
 * channel when cached; else a second: the upload (verified), then `then`.  `what`
 * names the file in messages.  Returns 0 with what `then` printed in *out
 * (release it) and *uploaded set, or a negative TRANSPORT_E* code with a
 * new message naming the host in *err.
 */
int	deploy_put(struct transport *t, const char *what, const void *data, size_t len,
	    const char *path, const char *then, struct transport_result *out,
	    int *uploaded, char **err);

/* dir with a leading "~/" (or a lone "~") replaced by home; a new string. */
char	*deploy_expand_dir(const char *dir, const char *home);

/*
 * The agent's sources (agent/ and include/wire.h) as an in-memory ustar
 * archive, and its SHA-256.  Looked for in the source tree this program
 * runs from, else in <exe>/../lib/fleetmark/src.  Returns 0, or -1 with a
 * new message in *err.  *tar is freed by the caller.
 */
int	deploy_source_archive(unsigned char **tar, size_t *len,
	    char sha256[65], char **err);

struct strbuf;

/*
 * Append one regular file (mode 0644, a fixed time stamp, name under 100
 * bytes) to the ustar archive in t; the archive ends with 1024 zero bytes
 * the caller adds.  0, or -1 for a name too long.
 */
int	deploy_tar_add(struct strbuf *t, const char *name, const void *data, size_t len);

#endif /* FLEETMARK_DEPLOY_H */
