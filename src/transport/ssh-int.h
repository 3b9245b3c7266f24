/*
 * transport/ssh-int.h: what the SSH transport's files share
 * (ssh.c: sessions, connections, channels; knownhosts.c: the
 * host key against known_hosts; proxyjump.c: jumps).  Private to them.
 *
 * Failures are reported in a struct attempt (set_msg()): a TRANSPORT_E*
 * code, how the pacer should take it, and the message.
 */
#ifndef FLEETMARK_TRANSPORT_SSH_INT_H
#define FLEETMARK_TRANSPORT_SSH_INT_H

#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "pace.h"
#include "strv.h"
#include "transport.h"

#define MSG_MAX		1024	/* bytes of one error message */
#define PROXY_ERR_MAX	4096	/* bytes of a jump process's stderr kept */

/*
 * The socket we hand libssh (SSH_OPTIONS_FD): libssh 0.10 does not close
 * it, so we do, after ssh_free(), and only if the descriptor is still
 * that socket (never someone else's descriptor with the same number).
 */
struct owned_fd {
	int	 fd;
	dev_t	 dev;
	ino_t	 ino;
};

struct ssh_impl {
	ssh_session	 s;
	ssh_event	 ev;
	struct owned_fd	 sock;
	pid_t		 proxy_pid;	/* our `ssh -W` child, 0 when direct */
	int		 proxy_err;	/* its stderr (a temporary file), -1 */
	long long	 keepalive_ms;	/* <= 0: none */
	long long	 last_send;
};

/* One ProxyJump hop. */
struct hop {
	char	*user;		/* NULL: the jump ssh decides */
	char	*host;
	int	 port;		/* 0: the jump ssh decides */
};

/* Where and how one attempt connects, resolved from options and ssh_config. */
struct target {
	char		*host;		/* after ssh_config's HostName */
	int		 port;
	char		*user;
	struct hop	*hops;		/* ProxyJump chain, in order */
	size_t		 nhops;
	char		*proxy_cmd;	/* a ProxyCommand from ssh_config, expanded */
	char		*label;		/* "lab-03 (198.18.1.3)" for messages */
};

/* What one attempt did, for the retry decision and the messages. */
struct attempt {
	int		 code;		/* 0 or TRANSPORT_E* */
	enum pace_outcome outcome;	/* for the retry decision */
	char		 msg[MSG_MAX];
};

/* --- small helpers ------------------------------------------------------------------ */

static inline void
set_msg(struct attempt *a, int code, enum pace_outcome outcome, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline void
set_msg(struct attempt *a, int code, enum pace_outcome outcome, const char *fmt, ...)
{
	va_list ap;

	a->code = code;
	a->outcome = outcome;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
}

static inline void
close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static inline const char *
policy_name(enum transport_hostkey k)
{
	switch (k) {
	case TRANSPORT_HOSTKEY_YES: return "yes";
	case TRANSPORT_HOSTKEY_ACCEPT_NEW: return "accept-new";
	case TRANSPORT_HOSTKEY_NO: return "no";
	}
	return "?";
}

/* --- known_hosts (knownhosts.c) ----------------------------------------------------- */

/*
 * Check the server's key of session s against o->known_hosts under
 * o->host_key_check, recording a new key when the policy says so; fills
 * info's hostkey fields.  0, or a TRANSPORT_E* code with a in a.
 */
int	knownhosts_check(ssh_session s, const struct transport_opts *o,
	    const struct target *tg, struct transport_info *info, struct attempt *a);

/*
 * Merge the keys an accept-new jump recorded in its own file (tmp) into
 * the known_hosts file kh, each one once (label names the host in logs).
 */
void	knownhosts_merge(const char *tmp, const char *kh, const char *label);

/*
 * Parse the ssh_config of o (o->ssh_config_path, or ~/.ssh/config with the
 * system-wide file) into s, whose host is set: 0, or -1 with a in a
 * (ssh.c).
 */
int	transport_ssh_config(ssh_session s, const struct transport_opts *o, struct attempt *a);

/* --- jumps (proxyjump.c) ------------------------------------------------------------- */

/*
 * The longest jump chain taken: each hop nests the ssh command of the ones
 * before it in a quoted ProxyCommand, about three times as long per hop,
 * and the kernel takes no argument longer than 128 KiB: 9 hops of a
 * typical command come near it, 10 go past it.
 */
#define JUMP_HOPS_MAX	8

/* Free what tg holds and clear it. */
void	proxyjump_target_release(struct target *tg);

/*
 * Parse a comma-separated jump list "[user@]host[:port],...": 0 with a
 * new array in *out (*nout hops), or -1 with the bad hop in *bad (new).
 */
int	proxyjump_parse(const char *spec, struct hop **out, size_t *nout, char **bad);

/*
 * The jump list of libssh's ProxyCommand for a ssh_config ProxyJump
 * ("ssh [-l U] [-p P] [-J NEXT] -W '[%h]:%p' HOST") in *spec (new): 0,
 * or -1 when cmd is any other ProxyCommand.
 */
int	proxyjump_from_libssh_command(const char *cmd, char **spec);

/*
 * Complete tg's jump chain with the ProxyJump lines of ssh_config (when
 * o->ssh_config): the first hop's own ProxyJump goes in front, until a
 * first hop has none.  0, or -1 with a in a for a loop (the message
 * names it: "a -> b -> a") or a chain longer than JUMP_HOPS_MAX.
 * from_config: tg's chain is o->address's own ProxyJump in ssh_config.
 */
int	proxyjump_resolve(const struct transport_opts *o, struct target *tg, int from_config,
	    struct attempt *a);

/* A ProxyCommand with %h %p %r %n %% expanded for tg (new string). */
char	*proxyjump_expand_command(const char *cmd, const struct target *tg);

/* "host:port" for -W, with brackets for an IPv6 address (new string). */
char	*proxyjump_host_port(const char *host, int port);

/*
 * The argv of an OpenSSH client that connects to hops[n-1] (through
 * hops[0..n-2]) and forwards its standard input and output to dest; kh
 * is its UserKnownHostsFile value.  Appended to *a (strv_clear()).
 */
void	proxyjump_argv(const struct transport_opts *o, const struct hop *hops, size_t n,
	    const char *dest, const char *kh, long long timeout_ms, struct strv *a);

/*
 * Start argv (or, with shell_cmd, `/bin/sh -c "exec CMD"`) on a socket
 * as its standard input and output: 0 with our end in *fdp and the child
 * in si->proxy_pid, its stderr kept in si->proxy_err; else a TRANSPORT_E*
 * code with a in a (label names the host).
 */
int	proxyjump_spawn(struct ssh_impl *si, char *const *argv, const char *shell_cmd,
	    int *fdp, struct attempt *a, const char *label);

/* End the jump child (its socket closed by now): wait, then insist. */
void	proxyjump_reap(struct ssh_impl *si);

/*
 * What the jump child said, boiled down to one line in buf, with the
 * TRANSPORT_E* code and pacer outcome it means: 0, or -1 when it said
 * nothing.
 */
int	proxyjump_reason(struct ssh_impl *si, char *buf, size_t len, int *code,
	    enum pace_outcome *outcome);

#endif /* FLEETMARK_TRANSPORT_SSH_INT_H */
