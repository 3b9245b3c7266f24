/*
 * transport/ssh.c: the SSH transport, through libssh 0.10.
 *
 * Opening a host:
 *   1. a libssh session with the host's address; the OpenSSH client
 *      config is read right after (when enabled), then the inventory's
 *      settings override it (as a command line overrides ssh_config);
 *   2. the connection: a TCP connect and the server's banner are awaited
 *      outside the pacer (cheap here, and a partitioned or hung host then
 *      never holds a handshake slot); through a ProxyJump, an `ssh -W`
 *      child of ours is started inside the slot instead, with our
 *      identity, known_hosts and host key policy passed to it
 *      explicitly (libssh 0.10 has no ProxyJump of its own and its
 *      ProxyCommand child would get none of them);
 *   3. within a pacer slot: key exchange on that socket, the host key
 *      against known_hosts (policy yes / accept-new / no, OpenSSH's
 *      messages; accept-new and no append an unknown key under an flock
 *      so that concurrent sessions record it once), then public key
 *      authentication;
 *   4. transient failures (connection closed or reset, handshake timed
 *      out) are retried with backoff within the host's connect timeout.
 *
 * Exec channels read both output streams through libssh's buffers into
 * bounded ones of ours; exit status and exit signal come from channel
 * callbacks.  Waiting is done on an ssh_event for the session, with a
 * keepalive (SSH_MSG_IGNORE, which TCP_USER_TIMEOUT turns into a dead-peer
 * check on a direct socket) when nothing was sent for a while.
 *
 * The host key check is in knownhosts.c, the jumps in proxyjump.c; what
 * the three files share is in transport/ssh-int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include "clock.h"
#include "fsutil.h"
#include "log.h"
#include "pace.h"
#include "shquote.h"
#include "transport.h"
#include "transport/transport-int.h"
#include "ssh-int.h"
#include "xmalloc.h"

struct ssh_chan {
	ssh_channel	 ch;
	struct ssh_channel_callbacks_struct cb;
	int		 eof_sent;
};

/* --- global state ------------------------------------------------------------------- */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static struct ssh_callbacks_struct session_cb;

/* Never ask for a passphrase: an encrypted key simply fails to load. */
static int
no_passphrase(const char *prompt, char *buf, size_t len, int echo, int verify,
    void *userdata)
{
	(void)prompt;
	(void)buf;
	(void)len;
	(void)echo;
	(void)verify;
	(void)userdata;
	return -1;
}

static void
libssh_log(int priority, const char *function, const char *buffer, void *userdata)
{
	(void)priority;
	(void)function;
	(void)userdata;
	log_trace("libssh: %s", buffer);
}

static void
global_init(void)
{
	ssh_init();
	session_cb.auth_function = no_passphrase;
	ssh_callbacks_init(&session_cb);
	ssh_set_log_callback(libssh_log);
	if (log_get_level() >= LOG_LEVEL_TRACE)
		ssh_set_log_level(SSH_LOG_PROTOCOL);
	else
		ssh_set_log_level(SSH_LOG_NOLOG);
}

void
transport_global_init(void)
{
	pthread_once(&init_once, global_init);
}

/* --- small helpers -------------------------------------------------------------------- */

/* Blocking libssh calls below give up at `deadline`. */
static void
set_timeout(ssh_session s, long long deadline)
{
	long long left = deadline - pace_now_ms();
	long sec, usec;

	if (left < 1)
		left = 1;
	sec = (long)(left / 1000);
	usec = (long)(left % 1000) * 1000;
	ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &sec);
	ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &usec);
}

static void
own_fd(struct owned_fd *o, int fd)
{
	struct stat st;

	o->fd = fd;
	o->dev = 0;
	o->ino = 0;
	if (fstat(fd, &st) == 0) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
}

/* Close o's descriptor unless it is no longer the socket it was. */
static void
close_owned(struct owned_fd *o)
{
	struct stat st;

	if (o->fd >= 0 && fstat(o->fd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino)
		close(o->fd);
	o->fd = -1;
}

/* ~/.ssh/config of the user running fleetmark. */
static char *
default_config_path(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if ((home == NULL || *home == '\0') && (pw = getpwuid(geteuid())) != NULL)
		home = pw->pw_dir;
	return home != NULL ? xasprintf("%s/.ssh/config", home) : NULL;
}

static char *
local_user(void)
{
	struct passwd *pw = getpwuid(geteuid());

	return xstrdup(pw != NULL ? pw->pw_name : "root");
}

/* --- sessions -------------------------------------------------------------------------- */

int
transport_ssh_config(ssh_session s, const struct transport_opts *o, struct attempt *a)
{
	const char *path = o->ssh_config_path;
	char *def = NULL;
	int r;

	/* The default file comes with the system-wide one, as for ssh. */
	if (path != NULL && (def = default_config_path()) != NULL && strcmp(def, path) == 0)
		path = NULL;
	free(def);
	if (path != NULL && access(path, R_OK) != 0 && errno == ENOENT)
		r = 0;
	else
		r = ssh_options_parse_config(s, path);
	if (r != 0)
		set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: cannot use ssh_config %s: %s",
		    o->name, path ? path : "~/.ssh/config", ssh_get_error(s));
	return r != 0 ? -1 : 0;
}

/*
 * A new session for one attempt: the address, then ssh_config, then our
 * settings.  On the first call (tg->host NULL) also resolves *tg.
 */
static ssh_session
session_new(const struct transport_opts *o, struct target *tg, struct attempt *a)
{
	ssh_session s = ssh_new();
	int off = 0, on = 1;
	char *str = NULL;
	unsigned port = 0;

	if (s == NULL) {
		set_msg(a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot create an SSH session",
		    o->name);
		return NULL;
	}
	ssh_set_callbacks(s, &session_cb);
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &off);
	if (ssh_options_set(s, SSH_OPTIONS_HOST, o->address) != 0)
		goto bad;
	/* libssh: parse the config right after the host, then set ours. */
	if (o->ssh_config && transport_ssh_config(s, o, a) != 0) {
		ssh_free(s);
		return NULL;
	}
	if (o->user != NULL && ssh_options_set(s, SSH_OPTIONS_USER, o->user) != 0)
		goto bad;
	if (o->port > 0) {
		port = (unsigned)o->port;
		if (ssh_options_set(s, SSH_OPTIONS_PORT, &port) != 0)
			goto bad;
	}
	if (o->known_hosts != NULL && ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, o->known_hosts) != 0)
		goto bad;
	ssh_options_set(s, SSH_OPTIONS_PASSWORD_AUTH, &off);
	ssh_options_set(s, SSH_OPTIONS_KBDINT_AUTH, &off);
	ssh_options_set(s, SSH_OPTIONS_GSSAPI_AUTH, &off);
	ssh_options_set(s, SSH_OPTIONS_NODELAY, &on);

	if (tg->host == NULL) {
		if (ssh_options_get(s, SSH_OPTIONS_HOST, &str) == SSH_OK) {
			tg->host = xstrdup(str);
			ssh_string_free_char(str);
		} else
			tg->host = xstrdup(o->address);
		tg->port = ssh_options_get_port(s, &port) == SSH_OK && port > 0 ? (int)port : 22;
		if (ssh_options_get(s, SSH_OPTIONS_USER, &str) == SSH_OK) {
			tg->user = xstrdup(str);
			ssh_string_free_char(str);
		} else
			tg->user = local_user();
		tg->label = tg->port == 22 ? xasprintf("%s (%s)", o->name, tg->host) :
		    xasprintf("%s (%s port %d)", o->name, tg->host, tg->port);
		if (o->proxy_jump != NULL) {
			char *bad = NULL;

			if (proxyjump_parse(o->proxy_jump, &tg->hops, &tg->nhops, &bad) != 0) {
				set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL,
				    "%s: bad proxy_jump hop '%s': expected [user@]host[:port]",
				    o->name, bad);
				free(bad);
				ssh_free(s);
				return NULL;
			}
		} else if (o->ssh_config &&
		    ssh_options_get(s, SSH_OPTIONS_PROXYCOMMAND, &str) == SSH_OK) {
			char *spec = NULL, *bad = NULL;

			if (proxyjump_from_libssh_command(str, &spec) == 0) {
				if (proxyjump_parse(spec, &tg->hops, &tg->nhops, &bad) != 0) {
					set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL,
					    "%s: bad ProxyJump hop '%s' in ssh_config", o->name, bad);
					free(bad);
					free(spec);
					ssh_string_free_char(str);
					ssh_free(s);
					return NULL;
				}
			} else
				tg->proxy_cmd = proxyjump_expand_command(str, tg);
			free(spec);
			ssh_string_free_char(str);
		}
		if (tg->nhops > 0 && proxyjump_resolve(o, tg, o->proxy_jump == NULL, a) != 0) {
			ssh_free(s);
			return NULL;
		}
	}
	/* We make every connection ourselves and hand libssh the socket. */
	ssh_options_set(s, SSH_OPTIONS_PROXYCOMMAND, "none");
	return s;
bad:
	set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: bad SSH option: %s", o->name,
	    ssh_get_error(s));
	ssh_free(s);
	return NULL;
}

/* --- connections ------------------------------------------------------------------------ */

static void
tune_socket(int fd, long long keepalive_ms)
{
	int on = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	if (keepalive_ms > 0) {
		/* Unacknowledged keepalives end the connection after 3 intervals. */
		unsigned ut = (unsigned)(keepalive_ms * 3);

		setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof(ut));
		setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	}
}

/* A TCP connection to the target, established by `deadline`. */
static int
tcp_connect(const struct target *tg, long long deadline, long long keepalive_ms, int *fdp,
    struct attempt *a)
{
	struct addrinfo hints, *res = NULL, *ai;
	char port[16];
	int fd = -1, e = 0, rc, soerr;
	socklen_t sl;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%d", tg->port);
	if ((rc = getaddrinfo(tg->host, port, &hints, &res)) != 0) {
		set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: could not resolve hostname %s: %s",
		    tg->label, tg->host, gai_strerror(rc));
		return a->code;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		struct pollfd pfd;
		long long left;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (errno != EINPROGRESS) {
			e = errno;
			close_fd(&fd);
			continue;
		}
		pfd.fd = fd;
		pfd.events = POLLOUT;
		for (;;) {
			left = deadline - pace_now_ms();
			rc = poll(&pfd, 1, left > 0 ? (int)left : 0);
			if (rc < 0 && errno == EINTR)
				continue;
			break;
		}
		if (rc == 0) {
			e = ETIMEDOUT;
			close_fd(&fd);
			break;	/* the budget is spent: no other address */
		}
		sl = sizeof(soerr);
		if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
			soerr = errno;
		if (soerr == 0)
			break;
		e = soerr;
		close_fd(&fd);
	}
	freeaddrinfo(res);
	if (fd < 0) {
		set_msg(a, e == ETIMEDOUT ? TRANSPORT_ETIMEOUT : TRANSPORT_ECONNECT,
		    e == ECONNRESET ? PACE_TRANSIENT : PACE_NEUTRAL,
		    "connect to %s port %d: %s", tg->label, tg->port,
		    e == ETIMEDOUT ? "Connection timed out" : strerror(e));
		return a->code;
	}
	tune_socket(fd, keepalive_ms);
	*fdp = fd;
	return 0;
}

/* Wait until the server has sent something (its banner) or hung up. */
static int
wait_banner(int fd, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	long long left;
	int rc;

	do {
		left = deadline - pace_now_ms();
		rc = poll(&pfd, 1, left > 0 ? (int)left : 0);
	} while (rc < 0 && errno == EINTR);
	return rc > 0 ? 0 : -1;
}

/* --- authentication ------------------------------------------------------------------------ */

static int
load_identity(const char *path, const char *label, ssh_key *out, struct attempt *a)
{
	ssh_key key = NULL;
	struct stat st;

	if (access(path, R_OK) != 0 || stat(path, &st) != 0) {
		set_msg(a, TRANSPORT_EAUTH, PACE_NEUTRAL, "%s: identity %s: %s", label, path,
		    strerror(errno));
		return a->code;
	}
	/*
	 * OpenSSH's rule (libssh has none): a private key of ours that others
	 * may read or write is refused, whoever we are.
	 */
	if (st.st_uid == getuid() && (st.st_mode & 077) != 0) {
		set_msg(a, TRANSPORT_EAUTH, PACE_NEUTRAL, "%s: identity %s: permissions %04o are "
		    "too open: a private key must not be accessible by others (chmod 600 %s)",
		    label, path, (unsigned)(st.st_mode & 07777), path);
		return a->code;
	}
	if (ssh_pki_import_privkey_file(path, NULL, no_passphrase, NULL, &key) != SSH_OK) {
		set_msg(a, TRANSPORT_EAUTH, PACE_NEUTRAL, "%s: cannot load identity %s: not a "
		    "private key, or encrypted (fleetmark never asks for passphrases: add the "
		    "key to ssh-agent and leave identity unset)", label, path);
		return a->code;
	}
	*out = key;
	return 0;
}

static int
authenticate(ssh_session s, ssh_key key, const struct target *tg, struct transport_info *info,
    long long deadline, struct attempt *a)
{
	const char *how = key != NULL ? "publickey" : "agent/auto";
	int rc, methods;

	set_timeout(s, deadline);
	if (key != NULL)
		rc = ssh_userauth_publickey(s, NULL, key);
	else
		rc = ssh_userauth_publickey_auto(s, NULL, NULL);
	switch (rc) {
	case SSH_AUTH_SUCCESS:
		snprintf(info->auth, sizeof(info->auth), "%s", how);
		return 0;
	case SSH_AUTH_DENIED:
	case SSH_AUTH_PARTIAL:
		methods = ssh_userauth_list(s, NULL);
		set_msg(a, TRANSPORT_EAUTH, PACE_NEUTRAL, "%s@%s: permission denied (%s%s%s%s)%s",
		    tg->user, tg->label, methods & SSH_AUTH_METHOD_PUBLICKEY ? "publickey" : "",
		    methods & SSH_AUTH_METHOD_PASSWORD ? ",password" : "",
		    methods & SSH_AUTH_METHOD_INTERACTIVE ? ",keyboard-interactive" : "",
		    rc == SSH_AUTH_PARTIAL ? ", partial" : "",
		    key != NULL ? ": the host does not accept the identity's key" :
		    ": no key from ssh-agent or ~/.ssh was accepted");
		return a->code;
	case SSH_AUTH_AGAIN:
		set_msg(a, TRANSPORT_ETIMEOUT, PACE_TRANSIENT, "%s: authentication timed out",
		    tg->label);
		return a->code;
	default:
		set_msg(a, TRANSPORT_ECONNECT, PACE_TRANSIENT, "%s: authentication failed: %s",
		    tg->label, *ssh_get_error(s) ? ssh_get_error(s) : "connection closed");
		return a->code;
	}
}

/* --- opening --------------------------------------------------------------------------------- */

/* The class and pacing meaning of a failed ssh_connect(). */
static void
handshake_failed(ssh_session s, const struct target *tg, struct attempt *a)
{
	const char *e = ssh_get_error(s);

	if (e == NULL || *e == '\0')
		set_msg(a, TRANSPORT_ECONNECT, PACE_TRANSIENT, "%s: connection closed during the "
		    "handshake", tg->label);
	else if (strstr(e, "Timeout") != NULL || strstr(e, "timed out") != NULL)
		set_msg(a, TRANSPORT_ETIMEOUT, PACE_TRANSIENT, "%s: handshake timed out (%s)",
		    tg->label, e);
	else if (strstr(e, "losed") != NULL || strstr(e, "disconnected") != NULL ||
	    strstr(e, "reset") != NULL || strstr(e, "Broken pipe") != NULL ||
	    strstr(e, "Socket error") != NULL)
		set_msg(a, TRANSPORT_ECONNECT, PACE_TRANSIENT, "%s: %s during the handshake",
		    tg->label, e);
	else
		set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: %s", tg->label, e);
}

struct open_ctx {
	const struct transport_opts *o;	/* known_hosts always set */
	struct target	 tg;
	ssh_key		 identity;
	long long	 budget, t0, waited;
	char		*kh_tmp;	/* accept-new jump's own known_hosts */
};

static long long
ctx_deadline(const struct open_ctx *x)
{
	return x->t0 + x->waited + x->budget;
}

static void
ctx_acquire(struct open_ctx *x, struct pace_ticket *tk)
{
	long long w0 = pace_now_ms();

	pace_acquire(x->o->pace, tk);
	x->waited += pace_now_ms() - w0;
}

/*
 * One attempt: connect, handshake, host key, authentication.  On success
 * *sip holds the open session (and jump process).
 */
static int
attempt_open(struct open_ctx *x, struct ssh_impl *si, struct transport_info *info,
    struct attempt *a)
{
	const struct transport_opts *o = x->o;
	struct target *tg = &x->tg;
	struct pace_ticket tk;
	struct strv av = STRV_INIT;
	enum pace_outcome rel = PACE_NEUTRAL;
	ssh_session s = NULL;
	struct owned_fd sock = { -1, 0, 0 };
	int fd = -1, slot = 0, r;

	memset(a, 0, sizeof(*a));
	if ((s = session_new(o, tg, a)) == NULL)
		return a->code;
	if (tg->nhops > 0 || tg->proxy_cmd != NULL) {
		char *dest = proxyjump_host_port(tg->host, tg->port), *kh = NULL;

		/* The jump's logins are handshakes too: pace them. */
		ctx_acquire(x, &tk);
		slot = 1;
		if (tg->proxy_cmd == NULL) {
			const char *khp = o->known_hosts;

			if (o->host_key_check == TRANSPORT_HOSTKEY_NO)
				kh = xstrdup("/dev/null");
			else if (o->host_key_check == TRANSPORT_HOSTKEY_ACCEPT_NEW && x->kh_tmp)
				kh = xasprintf("\"%s\" \"%s\"", x->kh_tmp, khp);
			else
				kh = xasprintf("\"%s\"", khp);
			proxyjump_argv(o, tg->hops, tg->nhops, dest, kh,
			    ctx_deadline(x) - pace_now_ms(), &av);
			if (log_get_level() >= LOG_LEVEL_DEBUG) {
				char *l = sh_join((const char *const *)av.v, (int)av.n);

				log_debug("%s: jump: %s", o->name, l);
				free(l);
			}
		}
		snprintf(info->via, sizeof(info->via), "%s", o->proxy_jump ? o->proxy_jump :
		    tg->proxy_cmd ? "ProxyCommand" : "ProxyJump (ssh_config)");
		r = proxyjump_spawn(si, av.v, tg->proxy_cmd, &fd, a, tg->label);
		free(dest);
		free(kh);
		strv_clear(&av);
		if (r != 0)
			goto out;
		if (wait_banner(fd, ctx_deadline(x)) != 0) {
			if (proxyjump_reason(si, a->msg, sizeof(a->msg), &a->code, &a->outcome) == 0) {
				char m[MSG_MAX];

				snprintf(m, sizeof(m), "%s: via %s: %s", tg->label, info->via, a->msg);
				snprintf(a->msg, sizeof(a->msg), "%s", m);
			} else
				set_msg(a, TRANSPORT_ETIMEOUT, PACE_TRANSIENT, "connection to %s "
				    "timed out during banner exchange (via %s)", tg->label, info->via);
			rel = a->outcome;
			goto out;
		}
	} else {
		if ((r = tcp_connect(tg, ctx_deadline(x), o->keepalive_ms, &fd, a)) != 0)
			goto out;
		if (wait_banner(fd, ctx_deadline(x)) != 0) {
			set_msg(a, TRANSPORT_ETIMEOUT, PACE_NEUTRAL, "connection to %s port %d timed "
			    "out during banner exchange", tg->label, tg->port);
			goto out;
		}
		ctx_acquire(x, &tk);
		slot = 1;
	}

	/* The handshake proper, on our socket (still ours to close). */
	ssh_options_set(s, SSH_OPTIONS_FD, &fd);
	own_fd(&sock, fd);
	fd = -1;
	set_timeout(s, ctx_deadline(x));
	if (ssh_connect(s) != SSH_OK) {
		handshake_failed(s, tg, a);
		/* Through a jump, its own words explain better. */
		if (si->proxy_pid > 0) {
			char m[MSG_MAX];
			int code;
			enum pace_outcome oc;

			clock_sleep_ms(50);	/* let it finish its message */
			if (proxyjump_reason(si, m, sizeof(m), &code, &oc) == 0) {
				set_msg(a, code, oc, "%s: via %s: %s", tg->label, info->via, m);
			}
		}
		rel = a->outcome;
		goto out;
	}
	if (knownhosts_check(s, o, tg, info, a) != 0) {
		rel = PACE_NEUTRAL;
		goto out;
	}
	if (authenticate(s, x->identity, tg, info, ctx_deadline(x), a) != 0) {
		rel = a->outcome == PACE_TRANSIENT ? PACE_TRANSIENT : PACE_NEUTRAL;
		goto out;
	}
	rel = PACE_OK;
	si->s = s;
	si->sock = sock;
	s = NULL;
	sock.fd = -1;
	a->code = 0;
out:
	if (slot)
		pace_release(o->pace, &tk, rel, -1);
	if (s != NULL) {
		ssh_disconnect(s);
		ssh_free(s);
	}
	close_owned(&sock);
	close_fd(&fd);
	if (a->code != 0 && si->proxy_pid > 0) {
		proxyjump_reap(si);
		close_fd(&si->proxy_err);
	}
	return a->code;
}

/* --- channels ---------------------------------------------------------------------------------- */

static void
on_exit_status(ssh_session session, ssh_channel channel, int status, void *userdata)
{
	struct tchan *c = userdata;

	(void)session;
	(void)channel;
	c->exit.exited = 1;
	c->exit.status = status;
}

static void
on_exit_signal(ssh_session session, ssh_channel channel, const char *signal, int core,
    const char *errmsg, const char *lang, void *userdata)
{
	struct tchan *c = userdata;

	(void)session;
	(void)channel;
	(void)errmsg;
	(void)lang;
	c->exit.exited = 1;
	c->exit.status = -1;
	snprintf(c->exit.signal, sizeof(c->exit.signal), "%s", signal ? signal : "?");
	c->exit.core_dumped = core ? 1 : 0;
}

static int
lost(struct transport *t, ssh_session s, const char *what)
{
	const char *e = ssh_get_error(s);

	return transport_fail(t, TRANSPORT_ELOST, "%s: connection lost%s%s%s%s", t->name,
	    what ? " " : "", what ? what : "", *e ? ": " : "", e);
}

static int
ssh_chan_open(struct tchan *c, const char *cmdline, long long deadline)
{
	struct ssh_impl *si = c->t->impl;
	struct ssh_chan *sc = xcalloc(1, sizeof(*sc));
	ssh_session s = si->s;

	set_timeout(s, deadline);
	if ((sc->ch = ssh_channel_new(s)) == NULL) {
		free(sc);
		return lost(c->t, s, "(no channel)");
	}
	if (ssh_channel_open_session(sc->ch) != SSH_OK)
		goto fail;
	sc->cb.userdata = c;
	sc->cb.channel_exit_status_function = on_exit_status;
	sc->cb.channel_exit_signal_function = on_exit_signal;
	ssh_callbacks_init(&sc->cb);
	ssh_set_channel_callbacks(sc->ch, &sc->cb);
	if (ssh_channel_request_exec(sc->ch, cmdline) != SSH_OK)
		goto fail;
	si->last_send = pace_now_ms();
	c->impl = sc;
	return 0;
fail:
	{
		int r;

		if (!ssh_is_connected(s))
			r = lost(c->t, s, "opening a channel");
		else if (pace_now_ms() >= deadline)
			r = transport_fail(c->t, TRANSPORT_ETIMEOUT, "%s: timed out starting a "
			    "command", c->t->name);
		else
			r = transport_fail(c->t, TRANSPORT_EREMOTE, "%s: cannot start a command: %s",
			    c->t->name, ssh_get_error(s));
		ssh_channel_free(sc->ch);
		free(sc);
		return r;
	}
}

static int drain(struct tchan *c);

static int
ssh_chan_write(struct tchan *c, const void *buf, size_t len, long long deadline)
{
	struct ssh_impl *si = c->t->impl;
	struct ssh_chan *sc = c->impl;
	const unsigned char *p = buf;
	uint32_t win, chunk;
	long long left;
	int n;

	while (len > 0) {
		if (!ssh_is_connected(si->s))
			return lost(c->t, si->s, "writing");
		if ((left = deadline - pace_now_ms()) <= 0)
			return transport_fail(c->t, TRANSPORT_ETIMEOUT, "%s: timed out writing "
			    "to the command", c->t->name);
		/*
		 * Write only what the window takes, so that a command that is
		 * gone (and will never open the window again) is noticed here
		 * instead of blocking inside libssh until the deadline.
		 */
		if ((win = ssh_channel_window_size(sc->ch)) == 0) {
			if ((n = drain(c)) < 0)
				return n;
			if (c->exit.exited || ssh_channel_is_closed(sc->ch))
				return transport_fail(c->t, TRANSPORT_EREMOTE, "%s: the command ended "
				    "before reading all its input", c->t->name);
			ssh_event_dopoll(si->ev, left > 1000 ? 1000 : (int)left);
			continue;
		}
		chunk = len < win ? (uint32_t)len : win;
		if (chunk > 32768)
			chunk = 32768;
		set_timeout(si->s, deadline);
		n = ssh_channel_write(sc->ch, p, chunk);
		if (n == SSH_ERROR) {
			if (!ssh_is_connected(si->s))
				return lost(c->t, si->s, "writing");
			return transport_fail(c->t, TRANSPORT_EREMOTE, "%s: the command's input is "
			    "closed: %s", c->t->name, ssh_get_error(si->s));
		}
		p += n;
		len -= (size_t)n;
		si->last_send = pace_now_ms();
	}
	return 0;
}

static int
ssh_chan_close_stdin(struct tchan *c)
{
	struct ssh_impl *si = c->t->impl;
	struct ssh_chan *sc = c->impl;

	if (sc->eof_sent || ssh_channel_is_closed(sc->ch))
		return 0;
	sc->eof_sent = 1;
	si->last_send = pace_now_ms();
	if (ssh_channel_send_eof(sc->ch) != SSH_OK && !ssh_is_connected(si->s))
		return lost(c->t, si->s, "closing the command's input");
	return 0;
}

/* Move what libssh holds for one stream into b; 1 if anything changed, <0 error. */
static int
drain_stream(struct tchan *c, struct tbuf *b, int is_stderr)
{
	struct ssh_impl *si = c->t->impl;
	struct ssh_chan *sc = c->impl;
	unsigned char tmp[16384];
	int changed = 0, n;
	size_t room;

	while (!b->eof && (room = tbuf_room(b)) > 0) {
		n = ssh_channel_read_nonblocking(sc->ch, tmp,
		    (uint32_t)(room < sizeof(tmp) ? room : sizeof(tmp)), is_stderr);
		if (n > 0) {
			tbuf_put(b, tmp, (size_t)n);
			changed = 1;
		} else if (n == SSH_EOF) {
			b->eof = 1;
			changed = 1;
		} else if (n == 0) {
			break;
		} else if (ssh_channel_is_closed(sc->ch)) {
			b->eof = 1;
			changed = 1;
		} else
			return lost(c->t, si->s, NULL);
	}
	return changed;
}

static int
drain(struct tchan *c)
{
	struct ssh_chan *sc = c->impl;
	int a, b, exited = c->exit.exited;

	if ((a = drain_stream(c, &c->out, 0)) < 0)
		return a;
	if ((b = drain_stream(c, &c->err, 1)) < 0)
		return b;
	if (ssh_channel_is_closed(sc->ch) && ssh_channel_poll(sc->ch, 0) <= 0 &&
	    ssh_channel_poll(sc->ch, 1) <= 0) {
		if (!c->out.eof || !c->err.eof) {
			c->out.eof = c->err.eof = 1;
			a = 1;
		}
		/* Closed without an exit status: the end is all we will learn. */
		c->exit.exited = 1;
	}
	return a || b || exited != c->exit.exited;
}

static int
send_keepalive(struct transport *t)
{
	struct ssh_impl *si = t->impl;

	if (ssh_send_ignore(si->s, "") != SSH_OK || !ssh_is_connected(si->s))
		return lost(t, si->s, NULL);
	si->last_send = pace_now_ms();
	return 0;
}

static int
ssh_chan_pump(struct tchan *c, long long deadline)
{
	struct ssh_impl *si = c->t->impl;
	long long now, slice;
	int r;

	for (;;) {
		if ((r = drain(c)) != 0)
			return r < 0 ? r : 1;
		if (c->out.eof && c->err.eof && c->exit.exited)
			return 0;
		if (!ssh_is_connected(si->s))
			return lost(c->t, si->s, NULL);
		now = pace_now_ms();
		if (now >= deadline)
			return TRANSPORT_EAGAIN;
		slice = deadline - now;
		if (si->keepalive_ms > 0) {
			long long ka = si->last_send + si->keepalive_ms - now;

			if (ka <= 0) {
				if ((r = send_keepalive(c->t)) != 0)
					return r;
				continue;
			}
			if (ka < slice)
				slice = ka;
		}
		if (slice > INT_MAX)
			slice = INT_MAX;
		if (ssh_event_dopoll(si->ev, (int)slice) == SSH_ERROR && !ssh_is_connected(si->s))
			return lost(c->t, si->s, NULL);
	}
}

static void
ssh_chan_free(struct tchan *c)
{
	struct ssh_impl *si = c->t->impl;
	struct ssh_chan *sc = c->impl;

	if (sc == NULL)
		return;
	if (ssh_is_connected(si->s) && !ssh_channel_is_closed(sc->ch)) {
		set_timeout(si->s, pace_now_ms() + 2000);
		if (!sc->eof_sent)
			ssh_channel_send_eof(sc->ch);
		ssh_channel_close(sc->ch);
	}
	ssh_channel_free(sc->ch);
	free(sc);
	c->impl = NULL;
}

static int
ssh_keepalive(struct transport *t)
{
	struct ssh_impl *si = t->impl;

	if (!ssh_is_connected(si->s))
		return lost(t, si->s, NULL);
	if (si->keepalive_ms > 0 && pace_now_ms() - si->last_send >= si->keepalive_ms)
		return send_keepalive(t);
	return 0;
}

static void
ssh_close(struct transport *t)
{
	struct ssh_impl *si = t->impl;

	if (si == NULL)
		return;
	if (si->ev != NULL)
		ssh_event_free(si->ev);
	if (si->s != NULL) {
		set_timeout(si->s, pace_now_ms() + 2000);
		ssh_disconnect(si->s);
		ssh_free(si->s);
	}
	close_owned(&si->sock);
	proxyjump_reap(si);
	close_fd(&si->proxy_err);
	free(si);
	t->impl = NULL;
}

static const struct transport_ops ssh_ops = {
	ssh_chan_open,
	ssh_chan_write,
	ssh_chan_close_stdin,
	ssh_chan_pump,
	ssh_chan_free,
	ssh_keepalive,
	ssh_close,
};

int
transport_ssh_open(const struct transport_opts *oin, struct transport **out,
    struct transport_info *info, char **err)
{
	struct transport_opts opts = *oin, *o = &opts;
	char *kh = NULL;
	struct open_ctx x;
	struct ssh_impl *si = xcalloc(1, sizeof(*si));
	struct transport *t = NULL;
	struct attempt a;
	long long delay;
	int attempt, r;

	memset(&x, 0, sizeof(x));
	memset(&a, 0, sizeof(a));
	if (o->known_hosts == NULL) {
		char *cfg = default_config_path();	/* HOME/.ssh/config */

		kh = cfg != NULL ? xasprintf("%.*sknown_hosts", (int)(strlen(cfg) - 6), cfg) :
		    xstrdup(".ssh/known_hosts");
		free(cfg);
		o->known_hosts = kh;
	}
	if (o->keepalive_ms == 0)
		o->keepalive_ms = TRANSPORT_KEEPALIVE_MS;
	x.o = o;
	x.budget = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : TRANSPORT_CONNECT_TIMEOUT_MS;
	x.t0 = pace_now_ms();
	si->proxy_err = -1;
	si->sock.fd = -1;
	si->keepalive_ms = o->keepalive_ms;

	if (o->address == NULL || *o->address == '\0') {
		set_msg(&a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: no address", o->name);
		r = a.code;
		goto out;
	}
	if ((o->known_hosts && strchr(o->known_hosts, '%')) ||
	    (o->identity && strchr(o->identity, '%'))) {
		set_msg(&a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: known_hosts and identity paths "
		    "must not contain '%%' (libssh expands it)", o->name);
		r = a.code;
		goto out;
	}
	/* A key that cannot be used fails before any login. */
	if (o->identity != NULL && (r = load_identity(o->identity, o->name, &x.identity, &a)) != 0)
		goto out;
	if (o->proxy_jump != NULL || o->ssh_config) {
		/* accept-new through a jump: the jump records into a file of ours. */
		if (o->host_key_check == TRANSPORT_HOSTKEY_ACCEPT_NEW) {
			char *path = xasprintf("%s/fleetmark-kh.XXXXXX", fs_tmpdir());
			int fd = mkostemp(path, O_CLOEXEC);

			if (fd >= 0) {
				close(fd);
				x.kh_tmp = path;
			} else
				free(path);
		}
	}
	for (attempt = 1;; attempt++) {
		info->attempts = attempt;
		if ((r = attempt_open(&x, si, info, &a)) == 0)
			break;
		if (!pace_retry(o->pace, a.outcome, attempt,
		    pace_now_ms() - x.t0 - x.waited, x.budget, &delay))
			break;
		log_verbose("%s; retrying in %lld ms", a.msg, delay);
		clock_sleep_ms((long)delay);
	}
	if (r != 0 && attempt > 1) {
		size_t l = strlen(a.msg);

		snprintf(a.msg + l, sizeof(a.msg) - l, " (after %d attempts)", attempt);
	}
	info->open_ms = pace_now_ms() - x.t0 - x.waited;
	info->wait_ms = x.waited;
	snprintf(info->user, sizeof(info->user), "%s", x.tg.user ? x.tg.user : "");
	snprintf(info->host, sizeof(info->host), "%s", x.tg.host ? x.tg.host : o->address);
	info->port = x.tg.port;
	if (r != 0)
		goto out;
	if (x.kh_tmp != NULL)
		knownhosts_merge(x.kh_tmp, o->known_hosts, x.tg.label);
	if ((si->ev = ssh_event_new()) == NULL || ssh_event_add_session(si->ev, si->s) != SSH_OK) {
		set_msg(&a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot watch the session",
		    o->name);
		r = a.code;
		goto out;
	}
	si->last_send = pace_now_ms();
	t = xcalloc(1, sizeof(*t));
	t->ops = &ssh_ops;
	t->name = xstrdup(o->name);
	t->impl = si;
	t->info = *info;
	si = NULL;
	log_debug("%s: logged in as %s in %lld ms (%d attempt%s, %lld ms waiting for a slot)",
	    x.tg.label, info->user, info->open_ms, info->attempts, info->attempts > 1 ? "s" : "",
	    info->wait_ms);
	*out = t;
	r = 0;
out:
	if (si != NULL) {
		struct transport tmp = { .impl = si };

		ssh_close(&tmp);
	}
	if (r != 0 && err != NULL)
		*err = xstrdup(a.msg);
	if (x.kh_tmp != NULL) {
		unlink(x.kh_tmp);
		free(x.kh_tmp);
	}
	ssh_key_free(x.identity);
	proxyjump_target_release(&x.tg);
	free(kh);
	return r;
}
