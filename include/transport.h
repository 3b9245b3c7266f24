/*
 * transport.h: reaching a host and running commands on it.
 *
 * Two transports share this interface: SSH (libssh; transport-ssh.c) and
 * local (fork/exec of /bin/sh on this machine; transport-local.c).  A
 * transport is one login to one host; commands run on it through exec
 * channels (struct tchan), as many and as long as the caller wants, so a
 * whole run needs one login per host.  The transport knows nothing of
 * plans, inventories or tables: callers fill struct transport_opts.
 *
 * Command lines are strings for the host's POSIX sh, already quoted:
 * build them with shquote.h, never by pasting values.
 *
 * Errors.  Functions that can fail return 0 or a negative TRANSPORT_E*
 * code.  transport_open() hands back a message in OpenSSH's words naming
 * the host; once a transport is open, transport_error() gives the message
 * of its last failure.  transport_class() maps a code to the error class
 * of a trial line (docs/results.md): connect, auth, hostkey, timeout, deploy.
 *
 * Bounds.  Everything a host sends is held in buffers of a fixed size
 * (per channel and per stream); output beyond them is either held back
 * at the host (flow control: standard output of a streaming channel) or
 * dropped and counted (standard error; transport_run()'s output).
 * Every operation has a timeout, and opening has the host's connect
 * timeout as its budget (see pace.h for pacing and retries).
 *
 * Threads.  One transport and its channels belong to one thread at a time
 * (libssh sessions are not thread-safe): open, use and close it in the
 * same worker thread.  Different transports may be used in different
 * threads at once; the only shared object is the struct pace given in
 * the options, which is thread-safe.  transport_global_init() must be
 * called once before threads start (transport_open() calls it too, but
 * racing first calls are only safe through pthread_once, which it uses).
 */
#ifndef FLEETMARK_TRANSPORT_H
#define FLEETMARK_TRANSPORT_H

#include <stddef.h>
#include <sys/types.h>

struct pace;

/* Error codes (negative returns). */
#define TRANSPORT_ECONNECT	(-1)	/* cannot reach: refused, no route, name, closed */
#define TRANSPORT_ETIMEOUT	(-2)	/* connect, handshake or an operation timed out */
#define TRANSPORT_EHOSTKEY	(-3)	/* host key unknown (strict), changed, unreadable */
#define TRANSPORT_EAUTH		(-4)	/* no accepted key, unusable identity */
#define TRANSPORT_ELOST		(-5)	/* an open connection or channel broke */
#define TRANSPORT_EVERIFY	(-6)	/* an upload did not arrive intact */
#define TRANSPORT_EREMOTE	(-7)	/* a command the transport needed failed there */
#define TRANSPORT_ELOCAL	(-8)	/* a local failure: fork, pipe, reading a file */
#define TRANSPORT_EAGAIN	(-9)	/* tchan_read(): nothing arrived within the timeout */

/*
 * The class of an error code for trial lines and tables: "connect" (also
 * for ELOST and ELOCAL), "timeout" (also EAGAIN), "hostkey", "auth",
 * "deploy" (EVERIFY, EREMOTE); "ok" for 0.
 */
const char	*transport_class(int code);

enum transport_hostkey {
	TRANSPORT_HOSTKEY_YES,		/* the key must be in known_hosts */
	TRANSPORT_HOSTKEY_ACCEPT_NEW,	/* record unknown keys, refuse changed ones */
	TRANSPORT_HOSTKEY_NO,		/* accept any key, record unknown ones */
};

#define TRANSPORT_CONNECT_TIMEOUT_MS	10000
#define TRANSPORT_KEEPALIVE_MS		15000
#define TRANSPORT_CHAN_CAP		65536	/* default bytes held per stream */
#define TRANSPORT_RUN_MAX		65536	/* default transport_run() cap */

/*
 * How to reach one host.  Strings are borrowed for the duration of
 * transport_open() only.
 */
struct transport_opts {
	const char	*name;		/* inventory name, in every message */
	int		 local;		/* local transport: the fields below are unused */
	const char	*address;	/* host name or IP address */
	int		 port;		/* 0: ssh_config's, else 22 */
	const char	*user;		/* NULL: ssh_config's, else the local user */
	const char	*identity;	/* key file; NULL: ssh-agent, then ssh_config's
					   IdentityFile and ~/.ssh/id_* */
	const char	*known_hosts;	/* NULL: ~/.ssh/known_hosts */
	enum transport_hostkey host_key_check;
	long long	 connect_timeout_ms; /* budget for opening; 0: 10 s */
	int		 ssh_config;	/* honour an OpenSSH client config file */
	const char	*ssh_config_path; /* NULL: ~/.ssh/config and /etc/ssh/ssh_config */
	const char	*proxy_jump;	/* NULL or [user@]host[:port][,...] */
	long long	 keepalive_ms;	/* idle keepalive; 0: 15 s, < 0: none */
	struct pace	*pace;		/* handshake pacer, NULL: unpaced */
};

/* What opening found out; filled on success and, as far as known, on failure. */
struct transport_info {
	char		user[64];	/* the login user */
	char		host[256];	/* the address connected to (after ssh_config) */
	int		port;
	char		via[256];	/* the jump chain, "" when direct */
	char		hostkey[16];	/* "known", "new" (recorded), "unchecked" (no),
					   "unknown", "changed", "other" (refused), "" */
	char		hostkey_type[24]; /* "ED25519", "RSA", "ECDSA", ... */
	char		hostkey_fp[64];	/* "SHA256:..." */
	char		auth[32];	/* "publickey" (identity file), "agent/auto", "local" */
	int		attempts;	/* handshakes tried (retries + 1) */
	long long	open_ms;	/* time spent opening, slot waits excluded */
	long long	wait_ms;	/* time spent waiting for a pacer slot */
};

struct transport;
struct tchan;

/* Initialise libssh once; safe to call more than once. */
void	transport_global_init(void);

/*
 * Log in to the host.  On success *out is a new transport (close it with
 * transport_close()).  On failure returns a TRANSPORT_E* code and, when
 * err is not NULL, a new message in *err naming the host, e.g.
 *   "connect to lab-03 (198.18.1.3) port 22: Connection refused"
 *   "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! host key for lab-03
 *    (198.18.1.3) has changed and host_key_check is yes: ..."
 * info (may be NULL) is filled in both cases.
 */
int	transport_open(const struct transport_opts *o, struct transport **out,
	    struct transport_info *info, char **err);

/* Log out and free; channels must be freed first.  NULL is fine. */
void	transport_close(struct transport *t);

/* The transport's name (from the options) and what opening found. */
const char	*transport_name(const struct transport *t);
const struct transport_info *transport_get_info(const struct transport *t);

/* The message of the last failure on t (owned by t; "" when none). */
const char	*transport_error(const struct transport *t);

/*
 * Send a keepalive if nothing was sent for the keepalive interval (the
 * waits inside tchan_read()/tchan_wait() do this by themselves; call it
 * between operations on an otherwise idle transport).  Returns 0, or
 * TRANSPORT_ELOST when the connection is gone.
 */
int	transport_keepalive(struct transport *t);

/* --- exec channels ---------------------------------------------------------- */

#define TCHAN_STDOUT	1
#define TCHAN_STDERR	2
#define TCHAN_ANY	(TCHAN_STDOUT | TCHAN_STDERR)

struct tchan_exit {
	int	exited;		/* 1 once the command's end is known */
	int	status;		/* exit status 0..255; -1: killed by a signal or unknown */
	char	signal[16];	/* the signal's name without "SIG" ("KILL"), or "" */
	int	core_dumped;
};

/*
 * Start cmdline on the host (the login shell runs it with -c; the local
 * transport runs /bin/sh -c).  cap is the number of bytes held per
 * stream (0: TRANSPORT_CHAN_CAP).  Standard output is flow-controlled:
 * what does not fit waits at the host until read.  Standard error beyond
 * cap is dropped (and counted by tchan_dropped()).  timeout_ms bounds the
 * start.  On success *out is a new channel; free it with tchan_free().
 */
int	tchan_open(struct transport *t, const char *cmdline, size_t cap,
	    int timeout_ms, struct tchan **out);

/* Write all of buf to the command's standard input within timeout_ms. */
int	tchan_write(struct tchan *c, const void *buf, size_t len, int timeout_ms);

/* Close the command's standard input (it sees end of file). */
int	tchan_close_stdin(struct tchan *c);

/*
 * Read up to len bytes from the streams in `want` (TCHAN_STDOUT,
 * TCHAN_STDERR or TCHAN_ANY) into buf, waiting at most timeout_ms (0: do
 * not wait).  Returns the number of bytes read (> 0) with the stream in
 * *from (may be NULL); 0 at end of file of every wanted stream (nothing
 * more will come); TRANSPORT_EAGAIN when nothing arrived in time (the
 * command is still running); or another negative code.
 */
ssize_t	tchan_read(struct tchan *c, int want, int *from, void *buf, size_t len,
	    int timeout_ms);

/*
 * Wait at most timeout_ms for the command to end, keeping what it still
 * prints up to the cap (readable with tchan_read() afterwards) and
 * dropping the rest.  Fills *ex (may be NULL).  Returns 0 once the end is
 * known, TRANSPORT_ETIMEOUT, or another negative code.
 */
int	tchan_wait(struct tchan *c, int timeout_ms, struct tchan_exit *ex);

/* The command's end as known so far (exited is 0 while it runs). */
const struct tchan_exit *tchan_exit_info(const struct tchan *c);

/* Bytes of `stream` dropped because they did not fit. */
size_t	tchan_dropped(const struct tchan *c, int stream);

/*
 * Free the channel.  Its standard input is closed first; a command still
 * running on an SSH host is not killed by this (OpenSSH has no way to):
 * commands must end when their input closes, as the agent does.  A local
 * command still running after that gets SIGTERM, then SIGKILL, and is
 * reaped.  NULL is fine.
 */
void	tchan_free(struct tchan *c);

/* --- conveniences ------------------------------------------------------------ */

struct transport_result {
	char		*out, *err;	/* NUL-terminated, at most max bytes each */
	size_t		 outlen, errlen;
	size_t		 out_dropped, err_dropped; /* bytes beyond max, dropped */
	struct tchan_exit exit;
};

/*
 * Run a short command: send `in` (inlen bytes, may be NULL) as its input,
 * close it, collect at most max bytes of each output stream (0:
 * TRANSPORT_RUN_MAX) and wait for its end, all within timeout_ms.
 * Returns 0 when the command ended (whatever its exit status: see
 * res->exit), else a negative code (then res holds what arrived).
 * Release res with transport_result_release().
 */
int	transport_run(struct transport *t, const char *cmdline, const void *in,
	    size_t inlen, size_t max, int timeout_ms, struct transport_result *res);
void	transport_result_release(struct transport_result *res);

/*
 * Write len bytes to `path` on the host with the permission bits `mode`,
 * through an exec channel (no SFTP: dropbear and the boards have none):
 *	umask 077; t=$(mktemp DIR/.fleetmark-upload.XXXXXX); cat > "$t";
 *	verify; chmod MODE; mv -f "$t" PATH
 * (a name no one can plant a link at beforehand, in PATH's directory).
 * Verification: the host computes the POSIX cksum (CRC and size) of what
 * arrived, or its sha256sum, or its md5sum, whichever it has first
 * (coreutils has all three; Debian's busybox-static has no cksum), and
 * compares it, and the size, with the sums computed here before the file
 * is moved into place; the value it reports is compared here again.  A
 * mismatch leaves PATH untouched and returns TRANSPORT_EVERIFY; a host
 * with none of the three tools gives TRANSPORT_EREMOTE, as does a failure
 * there (the message quotes the host's error, e.g. a missing directory,
 * or no mktemp).  The directory must exist and, for the file to be safe
 * from others, belong to the login user (deploy.h).  Returns 0 or a negative code.
 */
int	transport_upload(struct transport *t, const void *data, size_t len,
	    const char *path, mode_t mode, int timeout_ms);

/*
 * transport_upload(), its directory made first when missing, then, in
 * the same channel once the file is in place, the shell command `then`
 * with $p set to path (NULL: none, and the directory must exist).
 * Returns 0 with what `then` printed and its exit in *out (release it;
 * out may be NULL), or a negative code as transport_upload() does.
 */
int	transport_upload_run(struct transport *t, const void *data, size_t len,
	    const char *path, mode_t mode, const char *then, int timeout_ms,
	    struct transport_result *out);

/* transport_upload() of a local file (read whole; at most 256 MiB). */
int	transport_upload_file(struct transport *t, const char *local_path,
	    const char *path, mode_t mode, int timeout_ms);

/* The POSIX cksum CRC of data (what `cksum` prints first). */
unsigned	transport_cksum(const void *data, size_t len);

#endif /* FLEETMARK_TRANSPORT_H */
