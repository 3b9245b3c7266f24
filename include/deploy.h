/*
 * deploy.h: put a fleetmark-agent that fits a host into its work directory.
 *
 * On an open transport, deploy_agent() finds the host's OS and
 * architecture (`uname -sm`), and in the same channel the work directory
 * and whether a prebuilt agent is in it already, then either
 *   - uploads the matching static binary of `make agents` to
 *	WORKDIR/agents/SHA256-PREFIX/fleetmark-agent
 *     (one channel: the directory, the verified upload and `version`),
 *     skipping the upload when that file is already there intact (its
 *     SHA-256, or on a host with no SHA-256 tool its POSIX cksum,
 *     matches: it was checked by `version` when it was uploaded, and
 *     serve's hello checks its protocol), or
 *   - when no binary fits (or the inventory says `agent: source`) and the
 *     host has a C compiler, sends the agent's sources as one tar stream
 *     and compiles them there into WORKDIR/src/SHA256-PREFIX/, cached by
 *     the sources' hash;
 * and refuses an agent whose `version` says a wire protocol this
 * controller does not speak.  Two exec channels for a new agent, one for
 * a cached one; no SFTP, no shell per file.  The binaries are read once
 * per process.  It knows nothing of plans or runs.
 *
 * Trust on the host, as ssh trusts ~/.ssh: the work directory, every
 * directory of ours under it (agents/, src/, programs/, runs/,
 * scratch-UID and the ones below them) and every binary run from it must
 * belong to the login user or root and be writable by no one else; a
 * directory above the work directory may be writable by others only
 * when it is sticky (/tmp).  A work directory that fails this is never
 * used, nor anything in it: the user's own WORKDIR-UID is tried instead,
 * then the deploy fails naming the directory, its owner and its mode.
 * Each command that runs an agent or program binary checks, in the same
 * shell, the directories down to it, the file, and its SHA-256 (cksum
 * without a SHA-256 tool), so nothing can be swapped in between.  The
 * work directory is used by its physical path (`pwd -P`) from then on.
 *
 * WORKDIR is given as in the inventory; a leading "~/" means the login
 * user's home ($HOME there, asked for in the first step).
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
	char	*dir;		/* the work directory there: its physical path */
	char	*own_dir;	/* set when the inventory's work directory cannot be
				 * trusted or written by this user: dir is then
				 * this user's own WORKDIR-UID (the same string) */
	char	*why;		/* with own_dir: "PATH belongs to uid N and has
				 * mode M", why the inventory's was not used */
	char	*sum_sha;	/* the agent's sum as the host prints it: "sha256
				 * HEX", and "cksum CRC SIZE" for a host with no
				 * SHA-256 tool (a built agent: the host's own
				 * sum, both the same) */
	char	*sum_ck;
};

/*
 * Deploy on t into workdir following mode; when workdir cannot be
 * trusted (see above) or written by the login user, into its WORKDIR-UID
 * instead (res->own_dir, res->why).  Returns 0 and fills *res (release
 * with deploy_result_release()), or a negative TRANSPORT_E* code
 * (TRANSPORT_EREMOTE for "cannot deploy here": unknown OS, no binary and
 * no compiler, a build that failed, a wrong protocol, no work directory
 * to trust) with a new message naming the host in *err.
 */
int	deploy_agent(struct transport *t, const char *workdir,
	    enum fleet_agent mode, struct deploy_result *res, char **err);

void	deploy_result_release(struct deploy_result *res);

/*
 * The shell command that starts the deployed agent's serve mode: in the
 * same command it checks the directories down to the agent, the file and
 * its sum (res->sum_*), exits 126 with a message on stderr when any is
 * wrong, and sets TMPDIR to WORKDIR/scratch-UID (made 0700 when missing)
 * when that can be trusted; the agent serves with the idle limit idle
 * (seconds, as `serve --idle` takes them; an agent older than protocol 6
 * ignores it).  A new string.
 */
char	*deploy_serve_cmd(const struct deploy_result *res, const char *idle);

struct transport_result;

/*
 * Put the executable data (len bytes) at dir/rel on t, unless the file
 * there already has its SHA-256 (or, without a SHA-256 tool, its POSIX
 * cksum), then run the shell command `then` there with $p set to the
 * path.  dir (a trusted work directory) and each directory from it down
 * to the file are made when missing and checked as deploy_agent() does,
 * and the file and its sum are checked again, in the same command as
 * `then`.  One exec channel when cached; else a second: the upload
 * (verified), then `then`.  `what` names the file in messages.  Returns 0
 * with what `then` printed in *out (release it) and *uploaded set, or a
 * negative TRANSPORT_E* code with a new message naming the host in *err.
 */
int	deploy_put(struct transport *t, const char *what, const void *data, size_t len,
	    const char *dir, const char *rel, const char *then,
	    struct transport_result *out, int *uploaded, char **err);

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

/*
 * The exit status of a command on a host that found a directory or file
 * it cannot trust (fm_need or fm_mk of deploy_sh_lib() failed).
 */
#define DEPLOY_EXIT_UNSAFE	97

/*
 * The shell text a command on a host starts with to check what it runs:
 * $u (`id -u`), umask 022, and the functions fm_ok T PATH (PATH, of type
 * d or -, belongs to $u or root and no one else may write it), fm_need T
 * PATH... (the same, else a line for deploy_unsafe_error() on stderr and
 * status 1), fm_mk DIR... (each made 0755 when missing, then checked and
 * writable) and fm_sum FILE ("sha256 HEX", or "cksum CRC SIZE" without a
 * SHA-256 tool).  POSIX sh, `ls -ldn` and `id -u`: busybox has them.
 */
const char *deploy_sh_lib(void);

/*
 * What a command that exited DEPLOY_EXIT_UNSAFE said on stderr (err), as
 * a message naming the host, the directory, its owner and mode: a new
 * string.
 */
char	*deploy_unsafe_error(struct transport *t, const char *err);

struct strbuf;

/*
 * Append one regular file (mode 0644, a fixed time stamp, name under 100
 * bytes) to the ustar archive in t; the archive ends with 1024 zero bytes
 * the caller adds.  0, or -1 for a name too long.
 */
int	deploy_tar_add(struct strbuf *t, const char *name, const void *data, size_t len);

#endif /* FLEETMARK_DEPLOY_H */
