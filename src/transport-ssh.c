/*
 * transport-ssh.c: the SSH transport, through libssh 0.10.
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
 */
#define FLEETMARK_TRANSPORT_BACKEND
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include "log.h"
#include "pace.h"
#include "shquote.h"
#include "transport.h"
#include "transport-ssh-int.h"
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

static void
sleep_ms(long long ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

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
close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
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

/* "host:port" for -W, with brackets for an IPv6 address. */
static char *
host_port_arg(const char *host, int port)
{
	if (strchr(host, ':') != NULL)
		return xasprintf("[%s]:%d", host, port);
	return xasprintf("%s:%d", host, port);
}

/* Each '%' doubled: text that goes through an ssh's %-expansion unchanged. */
static char *
percent_escape(const char *s)
{
	size_t n = 0, i, j;
	char *r;

	for (i = 0; s[i] != '\0'; i++)
		n += s[i] == '%' ? 2 : 1;
	r = xmalloc(n + 1);
	for (i = j = 0; s[i] != '\0'; i++) {
		r[j++] = s[i];
		if (s[i] == '%')
			r[j++] = '%';
	}
	r[j] = '\0';
	return r;
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

/* --- targets and jump chains -------------------------------------------------------- */

static void
hops_free(struct hop *h, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(h[i].user);
		free(h[i].host);
	}
	free(h);
}

static void
target_release(struct target *tg)
{
	free(tg->host);
	free(tg->user);
	hops_free(tg->hops, tg->nhops);
	free(tg->proxy_cmd);
	free(tg->label);
	memset(tg, 0, sizeof(*tg));
}

/* "[user@]host[:port]" or "[user@][v6addr]:port"; 0 or -1. */
static int
parse_hop(const char *s, struct hop *h)
{
	const char *at = strrchr(s, '@'), *hs, *colon, *end;
	long port = 0;
	char *ep;

	memset(h, 0, sizeof(*h));
	hs = at != NULL ? at + 1 : s;
	if (at != NULL)
		h->user = xstrndup(s, (size_t)(at - s));
	if (*hs == '[') {
		if ((end = strchr(hs, ']')) == NULL)
			goto bad;
		h->host = xstrndup(hs + 1, (size_t)(end - hs - 1));
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL)
			goto bad;
	} else {
		colon = strchr(hs, ':');
		h->host = colon != NULL ? xstrndup(hs, (size_t)(colon - hs)) : xstrdup(hs);
	}
	if (colon != NULL) {
		errno = 0;
		port = strtol(colon + 1, &ep, 10);
		if (errno != 0 || *ep != '\0' || port < 1 || port > 65535)
			goto bad;
		h->port = (int)port;
	}
	if (*h->host == '\0' || *h->host == '-' || (h->user != NULL && *h->user == '\0'))
		goto bad;
	return 0;
bad:
	free(h->user);
	free(h->host);
	memset(h, 0, sizeof(*h));
	return -1;
}

/* A comma-separated jump list; 0, or -1 naming the bad hop in *bad. */
static int
parse_jumps(const char *spec, struct hop **out, size_t *nout, char **bad)
{
	char *copy = xstrdup(spec), *p, *comma;
	struct hop *hops = NULL;
	size_t n = 0, cap = 0;

	for (p = copy; p != NULL; p = comma) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma++ = '\0';
		xgrow(&hops, &cap, n + 1, sizeof(*hops));
		if (parse_hop(p, &hops[n]) != 0) {
			*bad = xstrdup(p);
			hops_free(hops, n);
			free(copy);
			return -1;
		}
		n++;
	}
	free(copy);
	*out = hops;
	*nout = n;
	return 0;
}

/*
 * libssh 0.10 turns a config ProxyJump into the ProxyCommand
 * "ssh [-l U] [-p P] [-J NEXT] -W '[%h]:%p' HOST" (with HOST the first hop
 * and NEXT the rest; older versions leave the -W argument unquoted).  Recover the jump list from it, so that the jump runs
 * with our options; 0 when it is one, -1 for any other ProxyCommand.
 */
static int
jumps_from_libssh_command(const char *cmd, char **spec)
{
	char *copy = xstrdup(cmd), *tok[12], *save = NULL, *p;
	char *user = NULL, *port = NULL, *next = NULL, *host = NULL;
	int n = 0, i, w = 0;

	for (p = strtok_r(copy, " ", &save); p != NULL && n < 12; p = strtok_r(NULL, " ", &save))
		tok[n++] = p;
	if (p != NULL || n < 4 || strcmp(tok[0], "ssh") != 0)
		goto no;
	for (i = 1; i < n - 1; i++) {
		if (strcmp(tok[i], "-l") == 0 && i + 1 < n - 1)
			user = tok[++i];
		else if (strcmp(tok[i], "-p") == 0 && i + 1 < n - 1)
			port = tok[++i];
		else if (strcmp(tok[i], "-J") == 0 && i + 1 < n - 1)
			next = tok[++i];
		else if (strcmp(tok[i], "-W") == 0 && i + 1 < n - 1 &&
		    (strcmp(tok[i + 1], "[%h]:%p") == 0 || strcmp(tok[i + 1], "'[%h]:%p'") == 0)) {
			w = 1;
			i++;
		} else
			goto no;
	}
	host = tok[n - 1];
	if (!w || *host == '-')
		goto no;
	*spec = xasprintf("%s%s%s%s%s%s%s", user ? user : "", user ? "@" : "",
	    strchr(host, ':') && port ? "[" : "", host, strchr(host, ':') && port ? "]" : "",
	    port ? ":" : "", port ? port : "");
	if (next != NULL) {
		char *s = xasprintf("%s,%s", *spec, next);

		free(*spec);
		*spec = s;
	}
	free(copy);
	return 0;
no:
	free(copy);
	return -1;
}

/* Expand %h %p %r %% of a ProxyCommand from ssh_config. */
static char *
expand_proxy_command(const char *cmd, const struct target *tg)
{
	char *r = xstrdup(""), *n;
	const char *p;
	char port[16];

	snprintf(port, sizeof(port), "%d", tg->port);
	for (p = cmd; *p != '\0'; p++) {
		const char *add = NULL;
		char one[2] = { *p, '\0' };

		if (*p == '%' && p[1] != '\0') {
			switch (*++p) {
			case 'h': add = tg->host; break;
			case 'p': add = port; break;
			case 'r': add = tg->user; break;
			case 'n': add = tg->host; break;
			case '%': add = "%"; break;
			default: one[0] = '%'; p--; add = one; break;
			}
		} else
			add = one;
		n = xasprintf("%s%s", r, add);
		free(r);
		r = n;
	}
	return r;
}

/* --- sessions -------------------------------------------------------------------------- */

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
	if (o->ssh_config) {
		const char *path = o->ssh_config_path;
		char *def = NULL;
		int r;

		/* The default file comes with the system-wide one, as for ssh. */
		if (path != NULL && (def = default_config_path()) != NULL &&
		    strcmp(def, path) == 0)
			path = NULL;
		free(def);
		if (path != NULL && access(path, R_OK) != 0 && errno == ENOENT)
			r = 0;
		else
			r = ssh_options_parse_config(s, path);
		if (r != 0) {
			set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: cannot use ssh_config %s: %s",
			    o->name, path ? path : "~/.ssh/config", ssh_get_error(s));
			ssh_free(s);
			return NULL;
		}
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

			if (parse_jumps(o->proxy_jump, &tg->hops, &tg->nhops, &bad) != 0) {
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

			if (jumps_from_libssh_command(str, &spec) == 0) {
				if (parse_jumps(spec, &tg->hops, &tg->nhops, &bad) != 0) {
					set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL,
					    "%s: bad ProxyJump hop '%s' in ssh_config", o->name, bad);
					free(bad);
					free(spec);
					ssh_string_free_char(str);
					ssh_free(s);
					return NULL;
				}
			} else
				tg->proxy_cmd = expand_proxy_command(str, tg);
			free(spec);
			ssh_string_free_char(str);
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

/* The path of a program in $PATH, or NULL. */
static char *
find_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;
	char *cand;

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = e + 1) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		cand = xasprintf("%.*s/%s", (int)(e - p), e > p ? p : ".", name);
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (*e == '\0')
			return NULL;
	}
}

/* A growing argv. */
struct args {
	char	**v;
	size_t	  n, cap;
};

static void
args_add(struct args *a, const char *s)
{
	xgrow(&a->v, &a->cap, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void
args_addf(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
args_addf(struct args *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s == NULL)
		s = xstrdup("");
	xgrow(&a->v, &a->cap, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void
args_free(struct args *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/*
 * The argv of an OpenSSH client that connects to hops[n-1] (through
 * hops[0..n-2]) and forwards its standard input and output to `dest`.
 * kh is the UserKnownHostsFile value.
 */
static void
jump_argv(const struct transport_opts *o, const struct hop *hops, size_t n,
    const char *dest, const char *kh, long long timeout_ms, struct args *a)
{
	const struct hop *h = &hops[n - 1];
	const char *cfg = "/dev/null";

	args_add(a, "ssh");
	if (o->ssh_config) {
		if (o->ssh_config_path != NULL && access(o->ssh_config_path, R_OK) == 0)
			cfg = o->ssh_config_path;
	}
	args_add(a, "-F");
	args_add(a, cfg);
	args_add(a, "-o");
	args_add(a, "BatchMode=yes");
	args_add(a, "-o");
	args_add(a, "LogLevel=ERROR");
	args_add(a, "-o");
	args_addf(a, "ConnectTimeout=%lld", (timeout_ms + 999) / 1000);
	args_add(a, "-o");
	args_addf(a, "StrictHostKeyChecking=%s", policy_name(o->host_key_check));
	args_add(a, "-o");
	args_addf(a, "UserKnownHostsFile=%s", kh);
	args_add(a, "-o");
	args_add(a, "UpdateHostKeys=no");
	if (o->keepalive_ms > 0) {
		args_add(a, "-o");
		args_addf(a, "ServerAliveInterval=%lld", (o->keepalive_ms + 999) / 1000);
		args_add(a, "-o");
		args_add(a, "ServerAliveCountMax=3");
	}
	if (o->identity != NULL) {
		args_add(a, "-i");
		args_add(a, o->identity);
		args_add(a, "-o");
		args_add(a, "IdentitiesOnly=yes");
	}
	if (h->user != NULL) {
		args_add(a, "-l");
		args_add(a, h->user);
	}
	if (h->port > 0) {
		args_add(a, "-p");
		args_addf(a, "%d", h->port);
	}
	if (n > 1) {
		struct args inner = { NULL, 0, 0 };
		char *dst = host_port_arg(hops[n - 1].host,
		    hops[n - 1].port > 0 ? hops[n - 1].port : 22);
		char *line, *esc;

		/* The previous hops, as this ssh's ProxyCommand (run by sh). */
		jump_argv(o, hops, n - 1, dst, kh, timeout_ms, &inner);
		line = sh_join((const char *const *)inner.v, (int)inner.n);
		esc = percent_escape(line);
		args_add(a, "-o");
		args_addf(a, "ProxyCommand=%s", esc);
		free(esc);
		free(line);
		free(dst);
		args_free(&inner);
	}
	args_add(a, "-W");
	args_add(a, dest);
	args_add(a, h->host);
}

/* An unlinked temporary file for a child's stderr. */
static int
stderr_file(void)
{
	char path[] = "/tmp/fleetmark-jump.XXXXXX";
	int fd;

#ifdef O_TMPFILE
	if ((fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0)
		return fd;
#endif
	if ((fd = mkostemp(path, O_CLOEXEC)) < 0)
		return -1;
	unlink(path);
	return fd;
}

/*
 * Start argv (or, with shell_cmd, `/bin/sh -c "exec CMD"`) with a socket
 * as its standard input and output; our end in *fdp.
 */
static int
spawn_proxy(struct ssh_impl *si, char *const *argv, const char *shell_cmd, int *fdp,
    struct attempt *a, const char *label)
{
	char *prog = NULL, *sh_line = NULL;
	const char *shargv[4];
	int sv[2] = { -1, -1 }, errfd = -1;
	pid_t pid;

	if (shell_cmd != NULL) {
		sh_line = xasprintf("exec %s", shell_cmd);
		shargv[0] = "sh";
		shargv[1] = "-c";
		shargv[2] = sh_line;
		shargv[3] = NULL;
		argv = (char *const *)shargv;
		prog = xstrdup("/bin/sh");
	} else if ((prog = find_program(argv[0])) == NULL) {
		set_msg(a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot reach the host through a "
		    "jump: no `%s` program in PATH (package openssh-client)", label, argv[0]);
		return a->code;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
	    (errfd = stderr_file()) < 0) {
		set_msg(a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot start the jump: %s", label,
		    strerror(errno));
		goto fail;
	}
	if ((pid = fork()) < 0) {
		set_msg(a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot fork: %s", label,
		    strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		/* Async-signal-safe calls only. */
		setsid();
		dup2(sv[1], STDIN_FILENO);
		dup2(sv[1], STDOUT_FILENO);
		dup2(errfd, STDERR_FILENO);
		close_range(3, ~0U, 0);
		signal(SIGPIPE, SIG_DFL);
		execv(prog, argv);
		_exit(127);
	}
	close_fd(&sv[1]);
	si->proxy_pid = pid;
	si->proxy_err = errfd;
	*fdp = sv[0];
	free(prog);
	free(sh_line);
	return 0;
fail:
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	close_fd(&errfd);
	free(prog);
	free(sh_line);
	return a->code;
}

/* End our jump child: its socket is closed by now; wait, then insist. */
static void
reap_proxy(struct ssh_impl *si)
{
	long long deadline;
	int sig = 0, ws;
	pid_t p;

	if (si->proxy_pid <= 0)
		return;
	deadline = pace_now_ms() + 1000;
	for (;;) {
		p = waitpid(si->proxy_pid, &ws, WNOHANG);
		if (p == si->proxy_pid || (p < 0 && errno != EINTR))
			break;
		if (pace_now_ms() >= deadline) {
			sig = sig == 0 ? SIGTERM : SIGKILL;
			kill(si->proxy_pid, sig);
			deadline = pace_now_ms() + 1000;
		}
		sleep_ms(10);
	}
	si->proxy_pid = 0;
}

/*
 * What the jump process said, boiled down to one line: the line that
 * explains (host key, permission, connection), else the last one.
 */
static int
proxy_reason(struct ssh_impl *si, char *buf, size_t len, int *code,
    enum pace_outcome *outcome)
{
	static const char *const keys[] = {
		"has changed and you have requested strict checking",
		"host key is known for", "Host key verification failed",
		"Permission denied", "Connection refused", "timed out", "No route to host",
		"Could not resolve", "Connection closed", "Connection reset", NULL
	};
	char raw[PROXY_ERR_MAX + 1], *line, *save = NULL, *best = NULL, *last = NULL;
	int changed = 0, i, bi = 100;
	ssize_t n;

	if (si->proxy_err < 0)
		return -1;
	n = pread(si->proxy_err, raw, PROXY_ERR_MAX, 0);
	if (n <= 0)
		return -1;
	raw[n] = '\0';
	for (line = strtok_r(raw, "\r\n", &save); line != NULL; line = strtok_r(NULL, "\r\n", &save)) {
		if (strstr(line, "REMOTE HOST IDENTIFICATION HAS CHANGED") != NULL)
			changed = 1;
		if (*line == '\0' || *line == '@')
			continue;
		last = line;
		for (i = 0; keys[i] != NULL && i < bi; i++)
			if (strstr(line, keys[i]) != NULL) {
				best = line;
				bi = i;
				break;
			}
	}
	if (best == NULL)
		best = last;
	if (best == NULL)
		return -1;
	*outcome = PACE_NEUTRAL;
	if (changed || bi <= 2)
		*code = TRANSPORT_EHOSTKEY;
	else if (bi == 3)
		*code = TRANSPORT_EAUTH;
	else if (bi == 5)
		*code = TRANSPORT_ETIMEOUT;
	else
		*code = TRANSPORT_ECONNECT;
	if (bi >= 8 || strstr(best, "kex_exchange_identification") != NULL)
		*outcome = PACE_TRANSIENT;
	snprintf(buf, len, "%s%s", changed ? "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! " :
	    "", best);
	return 0;
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
	struct args av = { NULL, 0, 0 };
	enum pace_outcome rel = PACE_NEUTRAL;
	ssh_session s = NULL;
	struct owned_fd sock = { -1, 0, 0 };
	int fd = -1, slot = 0, r;

	memset(a, 0, sizeof(*a));
	if ((s = session_new(o, tg, a)) == NULL)
		return a->code;
	if (tg->nhops > 0 || tg->proxy_cmd != NULL) {
		char *dest = host_port_arg(tg->host, tg->port), *kh = NULL;

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
			jump_argv(o, tg->hops, tg->nhops, dest, kh,
			    ctx_deadline(x) - pace_now_ms(), &av);
			if (log_get_level() >= LOG_LEVEL_DEBUG) {
				char *l = sh_join((const char *const *)av.v, (int)av.n);

				log_debug("%s: jump: %s", o->name, l);
				free(l);
			}
		}
		snprintf(info->via, sizeof(info->via), "%s", o->proxy_jump ? o->proxy_jump :
		    tg->proxy_cmd ? "ProxyCommand" : "ProxyJump (ssh_config)");
		r = spawn_proxy(si, av.v, tg->proxy_cmd, &fd, a, tg->label);
		free(dest);
		free(kh);
		args_free(&av);
		if (r != 0)
			goto out;
		if (wait_banner(fd, ctx_deadline(x)) != 0) {
			if (proxy_reason(si, a->msg, sizeof(a->msg), &a->code, &a->outcome) == 0) {
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

			sleep_ms(50);	/* let it finish its message */
			if (proxy_reason(si, m, sizeof(m), &code, &oc) == 0) {
				set_msg(a, code, oc, "%s: via %s: %s", tg->label, info->via, m);
			}
		}
		rel = a->outcome;
		goto out;
	}
	if (check_hostkey(s, o, tg, info, a) != 0) {
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
		reap_proxy(si);
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
	reap_proxy(si);
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
			char path[] = "/tmp/fleetmark-kh.XXXXXX";
			int fd = mkostemp(path, O_CLOEXEC);

			if (fd >= 0) {
				close(fd);
				x.kh_tmp = xstrdup(path);
			}
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
		sleep_ms(delay);
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
		kh_merge(x.kh_tmp, o->known_hosts, x.tg.label);
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
	target_release(&x.tg);
	free(kh);
	return r;
}
