/*
 * test-proxyjump.c: the jump chains of the SSH transport
 * (src/transport/proxyjump.c), without a network: proxy_jump lists
 * parsed and refused, the jump list
 * recovered from the ProxyCommand libssh makes of a ssh_config ProxyJump,
 * ProxyCommand %-expansion, the argv of the `ssh -W` child for one and
 * for two hops (the inner hop's '%' doubled for the outer ssh), the chain
 * completed from ssh_config with its loops and overlong chains refused,
 * and a jump that cannot start saying why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/ssh-int.h"
#include "shquote.h"
#include "tap.h"
#include "xmalloc.h"

static void
test_parse(void)
{
	struct hop *h = NULL;
	size_t n = 0;
	char *bad = NULL;

	ok(proxyjump_parse("bench@j1:2222,j2,[fe80::1]:22", &h, &n, &bad) == 0 && n == 3,
	    "three hops");
	if (n == 3) {
		ok(strcmp(h[0].user, "bench") == 0 && strcmp(h[0].host, "j1") == 0 &&
		    h[0].port == 2222, "... user, host and port");
		ok(h[1].user == NULL && strcmp(h[1].host, "j2") == 0 && h[1].port == 0,
		    "... a bare host");
		ok(strcmp(h[2].host, "fe80::1") == 0 && h[2].port == 22, "... an IPv6 address");
	}
	for (size_t i = 0; i < n; i++) {
		free(h[i].user);
		free(h[i].host);
	}
	free(h);
	ok(proxyjump_parse("j1,j2:0", &h, &n, &bad) == -1 && strcmp(bad, "j2:0") == 0,
	    "a bad port is refused, naming the hop");
	free(bad);
	bad = NULL;
	ok(proxyjump_parse("@j1", &h, &n, &bad) == -1, "an empty user is refused");
	free(bad);
	bad = NULL;
	ok(proxyjump_parse("-oProxyCommand=x", &h, &n, &bad) == -1, "a host that reads as an option is refused");
	free(bad);
}

static void
test_libssh_command(void)
{
	char *spec = NULL;

	ok(proxyjump_from_libssh_command("ssh -l u -p 2222 -J j2 -W '[%h]:%p' j1", &spec) == 0,
	    "libssh's ProxyCommand for a ProxyJump");
	is_str(spec, "u@j1:2222,j2", "... gives the jump list back");
	free(spec);
	spec = NULL;
	ok(proxyjump_from_libssh_command("ssh -W [%h]:%p j1", &spec) == 0 && strcmp(spec, "j1") == 0,
	    "... with the -W argument unquoted (older libssh)");
	free(spec);
	spec = NULL;
	ok(proxyjump_from_libssh_command("nc -X 5 -x proxy %h %p", &spec) == -1 &&
	    proxyjump_from_libssh_command("ssh -W %h:%p j1", &spec) == -1 &&
	    proxyjump_from_libssh_command("ssh -o X=y -W '[%h]:%p' j1", &spec) == -1,
	    "any other ProxyCommand is not one");
}

static void
test_expand(void)
{
	struct target tg;
	char *s;

	memset(&tg, 0, sizeof(tg));
	tg.host = "lab-03";
	tg.port = 2201;
	tg.user = "bench";
	s = proxyjump_expand_command("nc -x proxy:1080 %h %p # %r@%n 100%% %x%", &tg);
	is_str(s, "nc -x proxy:1080 lab-03 2201 # bench@lab-03 100% %x%",
	    "ProxyCommand: %h %p %r %n %% expanded, other % and a trailing one kept");
	free(s);
	s = proxyjump_expand_command("", &tg);
	is_str(s, "", "... an empty one");
	free(s);
}

static void
test_argv(void)
{
	struct transport_opts o;
	struct strv a = STRV_INIT;
	struct hop hops[2] = { { NULL, "j1", 0 }, { "u", "j2", 2222 } };
	char *line;

	memset(&o, 0, sizeof(o));
	o.host_key_check = TRANSPORT_HOSTKEY_ACCEPT_NEW;
	o.identity = "/k/id_ed25519";
	o.keepalive_ms = 15000;
	proxyjump_argv(&o, hops, 1, "[fe80::1]:22", "\"/kh\"", 9500, &a);
	line = sh_join((const char *const *)a.v, (int)a.n);
	is_str(line, "ssh -F /dev/null -o 'BatchMode=yes' -o 'LogLevel=ERROR' -o 'ConnectTimeout=10' "
	    "-o 'StrictHostKeyChecking=accept-new' -o 'UserKnownHostsFile=\"/kh\"' "
	    "-o 'UpdateHostKeys=no' -o 'ServerAliveInterval=15' -o 'ServerAliveCountMax=3' "
	    "-i /k/id_ed25519 -o 'IdentitiesOnly=yes' -o 'ProxyJump=none' -W '[fe80::1]:22' j1",
	    "one hop: our options, identity and policy, no ProxyJump of its own, then -W DEST HOST");
	free(line);
	strv_clear(&a);

	o.identity = NULL;
	o.keepalive_ms = -1;
	proxyjump_argv(&o, hops, 2, "h:22", "/kh%x", 1000, &a);
	ok(a.n > 4 && strcmp(a.v[a.n - 1], "j2") == 0 && strcmp(a.v[a.n - 2], "h:22") == 0,
	    "two hops: the last one is the host this ssh reaches");
	line = NULL;
	for (size_t i = 0; i + 1 < a.n; i++)
		if (strcmp(a.v[i], "-o") == 0 && strncmp(a.v[i + 1], "ProxyCommand=", 13) == 0)
			line = a.v[i + 1];
	ok(line != NULL && strstr(line, "UserKnownHostsFile=/kh%%x") != NULL &&
	    strstr(line, "-W j2:2222 j1") != NULL,
	    "... reached through the first, as its ProxyCommand, with '%' doubled");
	line = sh_join((const char *const *)a.v, (int)a.n);
	ok(strstr(line, " -l u -p 2222 -o 'ProxyCommand=") != NULL && strstr(line, "ServerAlive") == NULL,
	    "... and its user and port on the outer ssh; no keepalive when it is off");
	free(line);
	strv_clear(&a);
}

/* A target whose chain is spec (from its ssh_config ProxyJump with from_config). */
static int
resolve(const char *cfg, const char *spec, int from_config, struct target *tg,
    struct attempt *a)
{
	struct transport_opts o;
	char *bad = NULL;

	memset(&o, 0, sizeof(o));
	memset(tg, 0, sizeof(*tg));
	memset(a, 0, sizeof(*a));
	o.name = "c";
	o.address = "c";
	o.ssh_config = cfg != NULL;
	o.ssh_config_path = cfg;
	if (proxyjump_parse(spec, &tg->hops, &tg->nhops, &bad) != 0) {
		free(bad);
		return -2;
	}
	return proxyjump_resolve(&o, tg, from_config, a);
}

static void
test_resolve(void)
{
	const char *tmp = tap_tmpdir("test-proxyjump");
	char cfg[256];
	struct target tg;
	struct attempt a;
	FILE *f = NULL;

	if (tmp != NULL) {
		snprintf(cfg, sizeof(cfg), "%s/ssh_config", tmp);
		f = fopen(cfg, "w");
	}
	if (f == NULL) {
		ok(0, "a temporary ssh_config");
		return;
	}
	fprintf(f, "Host c\n  ProxyJump loopA\n"
	    "Host loopA\n  HostName 198.18.0.1\n  ProxyJump loopB\n"
	    "Host loopB\n  HostName 198.18.0.2\n  ProxyJump bench@loopA:2222\n"
	    "Host j2\n  ProxyJump j1,bench@j0:2222\n"
	    "Host self\n  ProxyJump self\n");
	for (int i = 1; i < 12; i++)
		fprintf(f, "Host d%d\n  ProxyJump d%d\n", i, i + 1);
	fclose(f);

	ok(resolve(cfg, "loopA", 1, &tg, &a) == -1 && tg.nhops <= JUMP_HOPS_MAX,
	    "a ProxyJump loop in ssh_config is refused");
	ok(strstr(a.msg, "ProxyJump loop") != NULL &&
	    strstr(a.msg, ": c -> loopA -> loopB -> loopA") != NULL, "... naming it");
	printf("# %s\n", a.msg);
	proxyjump_target_release(&tg);
	ok(resolve(cfg, "self", 0, &tg, &a) == -1 && strstr(a.msg, ": self -> self") != NULL,
	    "a host that jumps through itself is a loop");
	proxyjump_target_release(&tg);

	ok(resolve(cfg, "j2,h1", 0, &tg, &a) == 0 && tg.nhops == 4,
	    "the first hop's ProxyJump goes in front of the chain");
	if (tg.nhops == 4)
		ok(strcmp(tg.hops[0].host, "j1") == 0 && strcmp(tg.hops[1].host, "j0") == 0 &&
		    tg.hops[1].port == 2222 && strcmp(tg.hops[2].host, "j2") == 0 &&
		    strcmp(tg.hops[3].host, "h1") == 0, "... in the order ssh would take");
	proxyjump_target_release(&tg);
	ok(resolve(NULL, "j2,h1", 0, &tg, &a) == 0 && tg.nhops == 2,
	    "without ssh_config the chain is the inventory's");
	proxyjump_target_release(&tg);

	ok(JUMP_HOPS_MAX == 8 && resolve(NULL, "h,h,h,h,h,h,h,h", 0, &tg, &a) == 0,
	    "8 hops are taken");
	proxyjump_target_release(&tg);
	ok(resolve(NULL, "h,h,h,h,h,h,h,h,h,h,h", 0, &tg, &a) == -1 &&
	    strstr(a.msg, "jump chain of 11 hops") != NULL, "11 are refused, saying so");
	printf("# %s\n", a.msg);
	proxyjump_target_release(&tg);
	ok(resolve(cfg, "d1", 0, &tg, &a) == -1 &&
	    strstr(a.msg, "jump chain of at least 9 hops") != NULL,
	    "a chain in ssh_config is cut short at the cap");
	proxyjump_target_release(&tg);
	unlink(cfg);
}

/* A jump that cannot start says why, not "Success". */
static void
test_spawn_errno(void)
{
	struct ssh_impl si;
	struct attempt a;
	size_t big = 256 * 1024;
	char *arg = xmalloc(big + 1);
	char *argv[] = { (char *)"sh", (char *)"-c", arg, NULL };
	const char *pre = getenv("LD_PRELOAD");
	int fd = -1;

	/* Under valgrind, a child whose execve fails dies of valgrind. */
	if (pre != NULL && strstr(pre, "vgpreload") != NULL) {
		ok(1, "# SKIP valgrind cannot follow an execve that fails");
		free(arg);
		return;
	}
	memset(&si, 0, sizeof(si));
	memset(&a, 0, sizeof(a));
	si.proxy_err = -1;
	memset(arg, ':', big);
	arg[big] = '\0';
	ok(proxyjump_spawn(&si, argv, NULL, &fd, &a, "b") == TRANSPORT_ELOCAL && fd == -1 &&
	    si.proxy_pid == 0, "an argument past the kernel's limit: the jump does not start");
	ok(strstr(a.msg, strerror(E2BIG)) != NULL, "... and the message says why");
	printf("# %s\n", a.msg);
	free(arg);
}

int
main(void)
{
	test_parse();
	test_libssh_command();
	test_expand();
	test_argv();
	test_resolve();
	test_spawn_errno();
	return tap_done();
}
