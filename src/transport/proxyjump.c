/*
 * transport/proxyjump.c: reaching a host through jumps, for the SSH transport
 * (transport/ssh.c).  libssh 0.10 has no ProxyJump of its own, and the
 * ProxyCommand child it would start gets none of our options, so a jump
 * is an `ssh -W` child of ours: the chain from the inventory's proxy_jump
 * or from ssh_config (recovered from the ProxyCommand libssh makes of a
 * ProxyJump line), its argv with our identity, known_hosts and host key
 * policy, the child on a socketpair, and what it said when it failed.
 * Its functions are proxyjump_*(); shared declarations are in
 * transport/ssh-int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "pace.h"
#include "proc.h"
#include "shquote.h"
#include "strbuf.h"
#include "strv.h"
#include "ssh-int.h"
#include "transport.h"
#include "xmalloc.h"

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

void
proxyjump_target_release(struct target *tg)
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
int
proxyjump_parse(const char *spec, struct hop **out, size_t *nout, char **bad)
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
int
proxyjump_from_libssh_command(const char *cmd, char **spec)
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

/*
 * The ProxyJump list ssh_config gives the host alias `host` in *spec
 * (new), or NULL when it has none (or a ProxyCommand of another kind,
 * which its ssh runs itself); 0, or -1 with a in a.
 */
static int
config_jumps(const struct transport_opts *o, const char *host, char **spec,
    struct attempt *a)
{
	ssh_session s = NULL;
	char *str = NULL;
	int off = 0, r = -1;

	*spec = NULL;
	if ((s = ssh_new()) == NULL) {
		set_msg(a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot create an SSH session",
		    o->name);
		goto out;
	}
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &off);
	if (ssh_options_set(s, SSH_OPTIONS_HOST, host) != 0) {
		set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: bad jump host '%s': %s",
		    o->name, host, ssh_get_error(s));
		goto out;
	}
	if (transport_ssh_config(s, o, a) != 0)
		goto out;
	if (ssh_options_get(s, SSH_OPTIONS_PROXYCOMMAND, &str) == SSH_OK &&
	    proxyjump_from_libssh_command(str, spec) != 0)
		*spec = NULL;
	r = 0;
out:
	ssh_string_free_char(str);
	ssh_free(s);
	return r;
}

/* " -> host" for each of the n names, after the first without the arrow. */
static char *
join_path(char *const *names, size_t n, const char *last)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? " -> " : "", names[i]);
	strbuf_addf(&sb, "%s%s", n ? " -> " : "", last);
	return strbuf_detach(&sb, NULL);
}

/*
 * Make tg's jump chain whole: the ssh of the first hop would follow that
 * hop's own ProxyJump in ssh_config, and so on, without end for a loop
 * (`a` jumps through `b`, `b` through `a`: a new ssh per turn, for ever).
 * So the first hop's ProxyJump is put in front of the chain, again until
 * a first hop has none, the jumps ssh starts are told to follow no
 * ProxyJump of their own (proxyjump_argv()), and a host met twice on the way
 * is a loop, refused before anything starts, as is a chain longer than
 * JUMP_HOPS_MAX.  from_config: the chain is the target's ProxyJump in
 * ssh_config (the target, o->address, is where the path starts).
 */
int
proxyjump_resolve(const struct transport_opts *o, struct target *tg, int from_config,
    struct attempt *a)
{
	char **seen = NULL, *spec = NULL, *bad = NULL, *path = NULL;
	struct hop *more = NULL, *all;
	size_t nseen = 0, cap = 0, nmore = 0, nhops0 = tg->nhops, i;
	const char *cfg = o->ssh_config_path != NULL ? o->ssh_config_path : "~/.ssh/config";
	int r = -1;

	if (from_config) {
		xgrow(&seen, &cap, nseen + 1, sizeof(*seen));
		seen[nseen++] = xstrdup(o->address);
	}
	while (o->ssh_config && tg->nhops > 0) {
		const char *first = tg->hops[0].host;

		for (i = 0; i < nseen; i++)
			if (strcasecmp(seen[i], first) == 0) {
				path = join_path(seen, nseen, first);
				set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: ProxyJump loop in "
				    "ssh_config %s: %s", o->name, cfg, path);
				goto out;
			}
		if (config_jumps(o, first, &spec, a) != 0)
			goto out;
		if (spec == NULL)
			break;
		if (proxyjump_parse(spec, &more, &nmore, &bad) != 0) {
			set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: bad ProxyJump hop '%s' "
			    "in ssh_config (the jump to %s)", o->name, bad, first);
			goto out;
		}
		xgrow(&seen, &cap, nseen + 1, sizeof(*seen));
		seen[nseen++] = xstrdup(first);
		/* Each turn adds a hop or more: the cap ends a chain that grows. */
		all = xcalloc(nmore + tg->nhops, sizeof(*all));
		memcpy(all, more, nmore * sizeof(*all));
		memcpy(all + nmore, tg->hops, tg->nhops * sizeof(*all));
		free(tg->hops);
		tg->hops = all;
		tg->nhops += nmore;
		free(more);
		more = NULL;
		free(spec);
		spec = NULL;
		if (tg->nhops > JUMP_HOPS_MAX)
			break;
	}
	if (tg->nhops > JUMP_HOPS_MAX) {
		set_msg(a, TRANSPORT_ECONNECT, PACE_NEUTRAL, "%s: a jump chain of %s%zu hops "
		    "is longer than the %d fleetmark takes", o->name,
		    tg->nhops > nhops0 ? "at least " : "", tg->nhops, JUMP_HOPS_MAX);
		goto out;
	}
	r = 0;
out:
	for (i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	free(spec);
	free(bad);
	free(path);
	return r;
}

/* Expand %h %p %r %% of a ProxyCommand from ssh_config. */
char *
proxyjump_expand_command(const char *cmd, const struct target *tg)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	for (p = cmd; *p != '\0'; p++) {
		if (*p != '%' || p[1] == '\0') {
			strbuf_addch(&sb, *p);
			continue;
		}
		switch (*++p) {
		case 'h':
		case 'n':
			strbuf_addstr(&sb, tg->host);
			break;
		case 'p':
			strbuf_addf(&sb, "%d", tg->port);
			break;
		case 'r':
			strbuf_addstr(&sb, tg->user);
			break;
		case '%':
			strbuf_addch(&sb, '%');
			break;
		default:
			/* not ours to expand: the '%' stays, the letter is read next */
			strbuf_addch(&sb, '%');
			p--;
			break;
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* --- the jump process --------------------------------------------------------------- */

/* "host:port" for -W, with brackets for an IPv6 address. */
char *
proxyjump_host_port(const char *host, int port)
{
	if (strchr(host, ':') != NULL)
		return xasprintf("[%s]:%d", host, port);
	return xasprintf("%s:%d", host, port);
}

/* Each '%' doubled: text that goes through an ssh's %-expansion unchanged. */
static char *
percent_escape(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s != '\0'; s++) {
		strbuf_addch(&sb, *s);
		if (*s == '%')
			strbuf_addch(&sb, '%');
	}
	return strbuf_detach(&sb, NULL);
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

/*
 * The argv of an OpenSSH client that connects to hops[n-1] (through
 * hops[0..n-2]) and forwards its standard input and output to `dest`.
 * kh is the UserKnownHostsFile value.
 */
void
proxyjump_argv(const struct transport_opts *o, const struct hop *hops, size_t n,
    const char *dest, const char *kh, long long timeout_ms, struct strv *a)
{
	const struct hop *h = &hops[n - 1];
	const char *cfg = "/dev/null";

	strv_push(a, "ssh");
	if (o->ssh_config) {
		if (o->ssh_config_path != NULL && access(o->ssh_config_path, R_OK) == 0)
			cfg = o->ssh_config_path;
	}
	strv_push(a, "-F");
	strv_push(a, cfg);
	strv_push(a, "-o");
	strv_push(a, "BatchMode=yes");
	strv_push(a, "-o");
	strv_push(a, "LogLevel=ERROR");
	strv_push(a, "-o");
	strv_pushf(a, "ConnectTimeout=%lld", (timeout_ms + 999) / 1000);
	strv_push(a, "-o");
	strv_pushf(a, "StrictHostKeyChecking=%s", policy_name(o->host_key_check));
	strv_push(a, "-o");
	strv_pushf(a, "UserKnownHostsFile=%s", kh);
	strv_push(a, "-o");
	strv_push(a, "UpdateHostKeys=no");
	if (o->keepalive_ms > 0) {
		strv_push(a, "-o");
		strv_pushf(a, "ServerAliveInterval=%lld", (o->keepalive_ms + 999) / 1000);
		strv_push(a, "-o");
		strv_push(a, "ServerAliveCountMax=3");
	}
	if (o->identity != NULL) {
		strv_push(a, "-i");
		strv_push(a, o->identity);
		strv_push(a, "-o");
		strv_push(a, "IdentitiesOnly=yes");
	}
	if (h->user != NULL) {
		strv_push(a, "-l");
		strv_push(a, h->user);
	}
	if (h->port > 0) {
		strv_push(a, "-p");
		strv_pushf(a, "%d", h->port);
	}
	if (n == 1) {
		/*
		 * proxyjump_resolve() put this hop's ProxyJump, if any, in the
		 * chain: its ssh must not follow it once more (for a loop in
		 * ssh_config, without end).
		 */
		strv_push(a, "-o");
		strv_push(a, "ProxyJump=none");
	} else {
		struct strv inner = STRV_INIT;
		char *dst = proxyjump_host_port(hops[n - 1].host,
		    hops[n - 1].port > 0 ? hops[n - 1].port : 22);
		char *line, *esc;

		/* The previous hops, as this ssh's ProxyCommand (run by sh). */
		proxyjump_argv(o, hops, n - 1, dst, kh, timeout_ms, &inner);
		line = sh_join((const char *const *)inner.v, (int)inner.n);
		esc = percent_escape(line);
		strv_push(a, "-o");
		strv_pushf(a, "ProxyCommand=%s", esc);
		free(esc);
		free(line);
		free(dst);
		strv_clear(&inner);
	}
	strv_push(a, "-W");
	strv_push(a, dest);
	strv_push(a, h->host);
}

/* An unlinked temporary file for a child's stderr. */
static int
stderr_file(void)
{
	char *path;
	int fd;

#ifdef O_TMPFILE
	if ((fd = open(fs_tmpdir(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0)
		return fd;
#endif
	path = xasprintf("%s/fleetmark-jump.XXXXXX", fs_tmpdir());
	if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
		unlink(path);
	free(path);
	return fd;
}

/*
 * Start argv (or, with shell_cmd, `/bin/sh -c "exec CMD"`) with a socket
 * as its standard input and output; our end in *fdp.  It runs in a
 * process group of its own (proc_fork_group()) so that proxyjump_reap() ends
 * the ssh processes it starts in turn; an exec that fails reports its
 * errno through a close-on-exec pipe.
 */
int
proxyjump_spawn(struct ssh_impl *si, char *const *argv, const char *shell_cmd, int *fdp,
    struct attempt *a, const char *label)
{
	char *prog = NULL, *sh_line = NULL;
	const char *shargv[4];
	int sv[2] = { -1, -1 }, ep[2] = { -1, -1 }, errfd = -1, e = 0;
	ssize_t got;
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
	    pipe2(ep, O_CLOEXEC) != 0 || (errfd = stderr_file()) < 0) {
		set_msg(a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot start the jump: %s", label,
		    strerror(errno));
		goto fail;
	}
	if ((pid = proc_fork_group()) < 0) {
		set_msg(a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot fork: %s", label,
		    strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		/* Async-signal-safe calls only. */
		dup2(sv[1], STDIN_FILENO);
		dup2(sv[1], STDOUT_FILENO);
		dup2(errfd, STDERR_FILENO);
		if (ep[1] <= STDERR_FILENO || dup2(ep[1], 3) != 3 ||
		    fcntl(3, F_SETFD, FD_CLOEXEC) != 0)
			_exit(127);
		close_range(4, ~0U, 0);
		signal(SIGPIPE, SIG_DFL);
		execv(prog, argv);
		e = errno;
		(void)!write(3, &e, sizeof(e));
		_exit(127);
	}
	close_fd(&sv[1]);
	close_fd(&ep[1]);
	/* EOF once it runs the program; an errno when it could not. */
	do
		got = read(ep[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close_fd(&ep[0]);
	if (got == (ssize_t)sizeof(e)) {
		proc_group_end(pid, 1000, NULL);
		set_msg(a, TRANSPORT_ELOCAL, PACE_NEUTRAL, "%s: cannot start %s for the jump: %s",
		    label, prog, strerror(e));
		goto fail;
	}
	si->proxy_pid = pid;
	si->proxy_err = errfd;
	*fdp = sv[0];
	free(prog);
	free(sh_line);
	return 0;
fail:
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	close_fd(&ep[0]);
	close_fd(&ep[1]);
	close_fd(&errfd);
	free(prog);
	free(sh_line);
	return a->code;
}

/*
 * End our jump child and its process group: its socket is closed by now,
 * so a second to leave by itself, then SIGTERM, then SIGKILL; whatever it
 * started (the ssh of an inner hop, a ProxyCommand's children) goes too.
 */
void
proxyjump_reap(struct ssh_impl *si)
{
	if (si->proxy_pid <= 0)
		return;
	proc_group_end(si->proxy_pid, 1000, NULL);
	si->proxy_pid = 0;
}

/*
 * What the jump process said, boiled down to one line: the line that
 * explains (host key, permission, connection), else the last one.
 */
int
proxyjump_reason(struct ssh_impl *si, char *buf, size_t len, int *code,
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
