/*
 * test-proxyjump.c: the jump chains of the SSH transport (src/proxyjump.c),
 * without a network: proxy_jump lists parsed and refused, the jump list
 * recovered from the ProxyCommand libssh makes of a ssh_config ProxyJump,
 * ProxyCommand %-expansion, and the argv of the `ssh -W` child for one and
 * for two hops (the inner hop's '%' doubled for the outer ssh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/transport-ssh-int.h"
#include "shquote.h"
#include "tap.h"
#include "xmalloc.h"

static void
test_parse(void)
{
	struct hop *h = NULL;
	size_t n = 0;
	char *bad = NULL;

	ok(parse_jumps("bench@j1:2222,j2,[fe80::1]:22", &h, &n, &bad) == 0 && n == 3,
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
	ok(parse_jumps("j1,j2:0", &h, &n, &bad) == -1 && strcmp(bad, "j2:0") == 0,
	    "a bad port is refused, naming the hop");
	free(bad);
	bad = NULL;
	ok(parse_jumps("@j1", &h, &n, &bad) == -1, "an empty user is refused");
	free(bad);
	bad = NULL;
	ok(parse_jumps("-oProxyCommand=x", &h, &n, &bad) == -1, "a host that reads as an option is refused");
	free(bad);
}

static void
test_libssh_command(void)
{
	char *spec = NULL;

	ok(jumps_from_libssh_command("ssh -l u -p 2222 -J j2 -W '[%h]:%p' j1", &spec) == 0,
	    "libssh's ProxyCommand for a ProxyJump");
	is_str(spec, "u@j1:2222,j2", "... gives the jump list back");
	free(spec);
	spec = NULL;
	ok(jumps_from_libssh_command("ssh -W [%h]:%p j1", &spec) == 0 && strcmp(spec, "j1") == 0,
	    "... with the -W argument unquoted (older libssh)");
	free(spec);
	spec = NULL;
	ok(jumps_from_libssh_command("nc -X 5 -x proxy %h %p", &spec) == -1 &&
	    jumps_from_libssh_command("ssh -W %h:%p j1", &spec) == -1 &&
	    jumps_from_libssh_command("ssh -o X=y -W '[%h]:%p' j1", &spec) == -1,
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
	s = expand_proxy_command("nc -x proxy:1080 %h %p # %r@%n 100%% %x%", &tg);
	is_str(s, "nc -x proxy:1080 lab-03 2201 # bench@lab-03 100% %x%",
	    "ProxyCommand: %h %p %r %n %% expanded, other % and a trailing one kept");
	free(s);
	s = expand_proxy_command("", &tg);
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
	jump_argv(&o, hops, 1, "[fe80::1]:22", "\"/kh\"", 9500, &a);
	line = sh_join((const char *const *)a.v, (int)a.n);
	is_str(line, "ssh -F /dev/null -o 'BatchMode=yes' -o 'LogLevel=ERROR' -o 'ConnectTimeout=10' "
	    "-o 'StrictHostKeyChecking=accept-new' -o 'UserKnownHostsFile=\"/kh\"' "
	    "-o 'UpdateHostKeys=no' -o 'ServerAliveInterval=15' -o 'ServerAliveCountMax=3' "
	    "-i /k/id_ed25519 -o 'IdentitiesOnly=yes' -W '[fe80::1]:22' j1",
	    "one hop: our options, identity and policy, then -W DEST HOST");
	free(line);
	strv_clear(&a);

	o.identity = NULL;
	o.keepalive_ms = -1;
	jump_argv(&o, hops, 2, "h:22", "/kh%x", 1000, &a);
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

int
main(void)
{
	test_parse();
	test_libssh_command();
	test_expand();
	test_argv();
	return tap_done();
}
