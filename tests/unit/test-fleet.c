/*
 * test-fleet.c: fleet inventories: what hosts inherit from defaults, `~`
 * expansion, validation (`boot:` entries' at FILE:LINE:COL too), the
 * embedded default fleet, and selecting hosts by name, @label and all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "tap.h"
#include "xmalloc.h"

static const char lab[] =
	"defaults:\n"
	"  user: bench\n"
	"  port: 2200\n"
	"  identity: ~/.ssh/id_lab\n"
	"  host_key_check: accept-new\n"
	"  connect_timeout: 3s\n"
	"hosts:\n"
	"  p690:\n"
	"    address: p690.lab.example.org\n"
	"    labels: [ppc64, smp24]\n"
	"  nhm-ep:\n"
	"    address: 192.0.2.14\n"
	"    proxy_jump: bench@gw.lab.example.org\n"
	"    labels: [x86_64, numa]\n"
	"  tx49-16k:\n"
	"    address: 192.0.2.31\n"
	"    port: 2222\n"
	"    user: root\n"
	"    agent: prebuilt\n"
	"    host_key_check: no\n"
	"    ssh_config: false\n"
	"    workdir: ~/fm\n"
	"    labels: embedded\n"
	"  laptop:\n"
	"    transport: local\n"
	"    labels: [x86_64]\n";

static struct fleet *
load(const char *text, char **err)
{
	struct fleet *f = NULL;

	*err = NULL;
	if (fleet_parse("lab.yaml", text, strlen(text), &f, err) != 0)
		return NULL;
	return f;
}

static int
fails_with(const char *text, const char *want)
{
	char *err;
	struct fleet *f = load(text, &err);
	int r = f == NULL && err != NULL && strstr(err, want) != NULL;

	if (!r)
		printf("#   got \"%s\"\n#   want \"%s\"\n", err ? err : "(loaded)", want);
	fleet_free(f);
	free(err);
	return r;
}

static void
test_inheritance(void)
{
	const struct fleet_host *h;
	struct fleet *f;
	char *err, *home;

	setenv("HOME", "/home/tester", 1);
	f = load(lab, &err);
	ok(f != NULL, "the lab inventory loads");
	if (f == NULL) {
		printf("# %s\n", err);
		free(err);
		return;
	}
	is_int(f->nhosts, 4, "four hosts");
	is_str(f->hosts[0].name, "p690", "hosts in the order written");
	h = fleet_find(f, "p690");
	ok(h != NULL, "fleet_find");
	is_str(h->user, "bench", "user inherited");
	is_int(h->port, 2200, "port inherited");
	is_str(h->identity, "/home/tester/.ssh/id_lab", "identity inherited, ~ expanded");
	is_str(h->known_hosts, "/home/tester/.ssh/known_hosts", "known_hosts default, expanded");
	is_int(h->host_key_check, FLEET_HOSTKEY_ACCEPT_NEW, "host_key_check inherited");
	is_int(h->connect_timeout_ms, 3000, "connect_timeout inherited");
	is_str(h->workdir, FLEET_DEFAULT_WORKDIR, "workdir default");
	ok(h->ssh_config == 1 && h->ssh_config_path &&
	    strcmp(h->ssh_config_path, "/home/tester/.ssh/config") == 0, "ssh_config default");
	is_int(h->agent, FLEET_AGENT_AUTO, "agent default auto");
	is_int(h->transport, FLEET_TRANSPORT_SSH, "transport default ssh");
	ok(h->nlabels == 2 && fleet_host_has_label(h, "smp24"), "labels");
	is_int(h->line, 8, "host position kept");

	h = fleet_find(f, "tx49-16k");
	is_int(h->port, 2222, "a host's own port wins");
	is_str(h->user, "root", "a host's own user wins");
	is_int(h->agent, FLEET_AGENT_PREBUILT, "agent prebuilt");
	is_int(h->host_key_check, FLEET_HOSTKEY_NO, "host_key_check no");
	is_int(h->ssh_config, 0, "ssh_config false");
	is_str(h->workdir, "~/fm", "workdir is a remote path: ~ is not expanded here");
	ok(h->nlabels == 1 && strcmp(h->labels[0], "embedded") == 0, "a single label as a scalar");

	h = fleet_find(f, "nhm-ep");
	is_str(h->proxy_jump, "bench@gw.lab.example.org", "proxy_jump");
	h = fleet_find(f, "laptop");
	ok(h->transport == FLEET_TRANSPORT_LOCAL && h->address == NULL, "local transport, no address");
	ok(fleet_find(f, "P690") == NULL, "names are case-sensitive");
	fleet_free(f);

	home = fleet_expand_tilde("~root/x");
	ok(home != NULL && strcmp(home, "/root/x") == 0, "~user expands from the password database");
	free(home);
	home = fleet_expand_tilde("/abs/~x");
	is_str(home, "/abs/~x", "a ~ not in front stays");
	free(home);
	ok(fleet_expand_tilde("~no-such-user-here/x") == NULL, "unknown ~user");
}

static void
test_errors(void)
{
	ok(fails_with("hosts:\n  a:\n    adress: 192.0.2.1\n",
	    "lab.yaml:3:5: unknown key 'adress' in host 'a' (did you mean 'address'?)"),
	    "misspelt host key");
	ok(fails_with("defualts: {}\nhosts:\n  a: {address: x}\n",
	    "lab.yaml:1:1: unknown key 'defualts' in fleet inventory (did you mean 'defaults'?)"),
	    "misspelt top key");
	ok(fails_with("hosts:\n  a:\n    labels: [x]\n",
	    "lab.yaml:2:3: host 'a' has no address"), "no address");
	ok(fails_with("hosts:\n  a:\n", "lab.yaml:2:3: host 'a' has no address"),
	    "a host with nothing at all");
	ok(fails_with("hosts:\n  a:\n    address: x\n    host_key_check: maybe\n",
	    "lab.yaml:4:21: bad host_key_check 'maybe': expected one of yes, accept-new, no"),
	    "bad host_key_check");
	ok(fails_with("hosts:\n  a:\n    address: x\n    agent: prebuild\n",
	    "bad agent 'prebuild': expected one of auto, prebuilt, source (did you mean 'prebuilt'?)"),
	    "bad agent mode with suggestion");
	ok(fails_with("hosts:\n  a:\n    address: x\n    port: 0\n", "lab.yaml:4:11: 0 is out of range"),
	    "port 0");
	ok(fails_with("hosts:\n  a b:\n    address: x\n", "lab.yaml:2:3: bad host name 'a b'"),
	    "host name with a blank");
	ok(fails_with("hosts:\n  -x:\n    address: x\n", "bad host name '-x'"),
	    "host name starting with '-'");
	ok(fails_with("hosts:\n  a:\n    address: x\n  a:\n    address: y\n",
	    "lab.yaml:4:3: duplicate key 'a'"), "duplicate host");
	ok(fails_with("hosts:\n  db:\n    address: x\n  DB:\n    address: y\n",
	    "lab.yaml:4:3: duplicate host name 'DB'"), "host names differing in case");
	ok(fails_with("hosts:\n  all:\n    address: x\n", "'all' is reserved"), "all is reserved");
	ok(fails_with("hosts:\n  a:\n    address: \"x; rm -rf /\"\n", "lab.yaml:3:14: bad address"),
	    "shell characters in an address");
	ok(fails_with("hosts:\n  a:\n    address: x\n    proxy_jump: \"-oProxyCommand=sh\"\n",
	    "bad proxy_jump"), "option-like proxy_jump");
	ok(fails_with("hosts:\n  a:\n    address: x\n    labels: [\"has space\"]\n",
	    "lab.yaml:4:14: bad label 'has space'"), "bad label");
	ok(fails_with("hosts:\n  a:\n    address: x\n    workdir: relative\n",
	    "workdir 'relative' must be an absolute path"), "relative workdir");
	ok(fails_with("hosts:\n  a:\n    address: x\n    connect_timeout: 2d\n",
	    "lab.yaml:4:22: '2d' is not a duration"), "bad connect_timeout");
	ok(fails_with("hosts:\n  a:\n    address: x\n    ssh_config: perhaps\n",
	    "ssh_config must be yes, no, or the path"), "bad ssh_config");
	ok(fails_with("hosts: []\n", "lab.yaml:1:8: `hosts:` must map host names"),
	    "hosts as a list");
	ok(fails_with("defaults:\n  user: x\n", "lab.yaml:1:1: the fleet inventory has no `hosts:`"),
	    "no hosts");
	ok(fails_with("defaults:\n  labels: [a]\nhosts:\n  a: {address: x}\n",
	    "lab.yaml:2:3: labels belongs to each host, not to defaults"), "labels in defaults");
}

static void
test_defaults_only(void)
{
	struct fleet *f;
	char *err;

	/* Hosts with nothing of their own take everything from defaults. */
	f = load("defaults:\n  transport: local\nhosts:\n  a:\n  b:\n", &err);
	ok(f != NULL && f->nhosts == 2 && f->hosts[1].transport == FLEET_TRANSPORT_LOCAL,
	    "bare host names inherit the local transport");
	fleet_free(f);
	free(err);
}

static void
test_default_fleet(void)
{
	struct fleet *f = NULL;
	char *err = NULL, *text = NULL;
	FILE *fp;
	long n;

	ok(fleet_load_default(&f, &err) == 0, "the embedded default fleet loads");
	ok(f && f->nhosts == 1 && strcmp(f->hosts[0].name, "local") == 0 &&
	    f->hosts[0].transport == FLEET_TRANSPORT_LOCAL, "one host 'local', local transport");
	is_str(f ? f->file : NULL, FLEET_DEFAULT_NAME, "named as the default fleet in messages");
	fleet_free(f);

	/* configs/local.yaml is its written form (same hosts, same settings). */
	fp = fopen("configs/local.yaml", "r");
	if (fp == NULL) {
		ok(1, "configs/local.yaml not reachable from here # SKIP run from the top");
		return;
	}
	text = xmalloc(65536);
	n = (long)fread(text, 1, 65535, fp);
	fclose(fp);
	text[n < 0 ? 0 : n] = '\0';
	ok(strstr(text, fleet_default_yaml + strcspn(fleet_default_yaml, "\n") + 1) != NULL,
	    "configs/local.yaml holds the embedded fleet's hosts word for word");
	free(text);
}

static void
test_select(void)
{
	unsigned char sel[8];
	struct fleet *f;
	char *err = NULL;

	f = load(lab, &err);
	if (f == NULL) {
		ok(0, "lab loads");
		return;
	}
	ok(fleet_select(f, "all", sel, &err) == 0 && sel[0] && sel[1] && sel[2] && sel[3],
	    "all");
	ok(fleet_select(f, "p690", sel, &err) == 0 && sel[0] && !sel[1] && !sel[2] && !sel[3],
	    "one name");
	ok(fleet_select(f, "@x86_64", sel, &err) == 0 && !sel[0] && sel[1] && !sel[2] && sel[3],
	    "a label");
	ok(fleet_select(f, "p690,@x86_64,laptop", sel, &err) == 0 && sel[0] && sel[1] &&
	    !sel[2] && sel[3], "names and labels together, overlapping");
	ok(fleet_select(f, "p69", sel, &err) != 0, "unknown name");
	is_str(err, "-H: unknown host 'p69' in lab.yaml (did you mean 'p690'?)",
	    "unknown name with suggestion");
	free(err);
	err = NULL;
	ok(fleet_select(f, "nhm", sel, &err) != 0 && strstr(err, "did you mean 'nhm-ep'?"),
	    "an abbreviation is suggested");
	free(err);
	err = NULL;
	ok(fleet_select(f, "@numa2", sel, &err) != 0, "unknown label");
	is_str(err, "-H: no host has label 'numa2' in lab.yaml (did you mean 'numa'?)",
	    "unknown label with suggestion");
	free(err);
	err = NULL;
	ok(fleet_select(f, "p690,,laptop", sel, &err) != 0 && strstr(err, "an empty host name"),
	    "empty word");
	free(err);
	err = NULL;
	ok(fleet_select(f, "", sel, &err) != 0, "empty selection");
	free(err);
	err = NULL;

	/* Patterns: globs, intersections, exclusions. */
	ok(fleet_select(f, "*-*", sel, &err) == 0 && !sel[0] && sel[1] && sel[2] && !sel[3],
	    "a glob over names");
	ok(fleet_select(f, "@x86*", sel, &err) == 0 && !sel[0] && sel[1] && !sel[2] && sel[3],
	    "a glob over labels");
	ok(fleet_select(f, "@x86_64&@numa", sel, &err) == 0 && !sel[0] && sel[1] && !sel[2] &&
	    !sel[3], "an intersection");
	ok(fleet_select(f, "@x86_64&!@numa", sel, &err) == 0 && !sel[0] && !sel[1] && !sel[2] &&
	    sel[3], "an intersection with a complement");
	ok(fleet_select(f, "!laptop", sel, &err) == 0 && sel[0] && sel[1] && sel[2] && !sel[3],
	    "an exclusion alone starts from every host");
	ok(fleet_select(f, "!laptop,@x86_64", sel, &err) == 0 && !sel[0] && sel[1] && !sel[2] &&
	    !sel[3], "exclusions apply after inclusions, in any order");
	ok(fleet_select(f, "@x86_64,p690,!@numa", sel, &err) == 0 && sel[0] && !sel[1] &&
	    !sel[2] && sel[3], "a label excluded");
	ok(fleet_select(f, "q*", sel, &err) != 0, "a glob that matches nothing");
	is_str(err, "-H: no host name matches 'q*' in lab.yaml", "its message");
	free(err);
	err = NULL;
	ok(fleet_select(f, "@x86_64&@smp24", sel, &err) != 0, "an empty intersection");
	is_str(err, "-H: '@x86_64&@smp24' selects no host of lab.yaml", "its message");
	free(err);
	err = NULL;
	ok(fleet_select(f, "@x86_64&!@nuam", sel, &err) != 0 && strstr(err,
	    "no host has label 'nuam' in lab.yaml (did you mean 'numa'?)"),
	    "a typo inside an intersection is an error, not an empty term");
	free(err);
	err = NULL;
	ok(fleet_select(f, "!lapotp", sel, &err) != 0 && strstr(err, "did you mean 'laptop'?"),
	    "a typo in an exclusion is an error");
	free(err);
	err = NULL;
	ok(fleet_select(f, "laptop,!@x86_64", sel, &err) != 0, "everything excluded");
	is_str(err, "-H: every host selected is excluded", "its message");
	free(err);
	fleet_free(f);
}

static const char boards[] =
	"defaults:\n"
	"  boot_timeout: 90s\n"
	"hosts:\n"
	"  tx49-16k:\n"
	"    address: 192.0.2.31\n"
	"    power:\n"
	"      cycle: \"pdu-ctl --outlet 7 cycle\"\n"
	"      off: \"pdu-ctl --outlet 7 off\"\n"
	"      on: \"pdu-ctl --outlet 7 on\"\n"
	"    console: \"conserver-console tx49-16k\"\n"
	"    boot_timeout: 300s\n"
	"    recover: 2\n"
	"  p690:\n"
	"    address: 192.0.2.32\n"
	"    power: { cycle: \"ipmitool -H p690-bmc chassis power cycle\" }\n"
	"  plain:\n"
	"    address: 192.0.2.33\n";

static void
test_boards(void)
{
	const struct fleet_host *h;
	struct fleet *f;
	char *err;

	f = load(boards, &err);
	ok(f != NULL, "an inventory with boards loads");
	if (f == NULL) {
		printf("# %s\n", err);
		free(err);
		return;
	}
	h = fleet_find(f, "tx49-16k");
	is_str(h->power_cycle, "pdu-ctl --outlet 7 cycle", "power.cycle");
	is_str(h->power_off, "pdu-ctl --outlet 7 off", "power.off");
	is_str(h->power_on, "pdu-ctl --outlet 7 on", "power.on");
	is_str(h->console, "conserver-console tx49-16k", "console");
	is_int(h->boot_timeout_ms, 300000, "a host's own boot_timeout wins");
	is_int(h->recover, 2, "recover");
	h = fleet_find(f, "p690");
	ok(h->power_off == NULL && h->power_on == NULL, "off and on are optional");
	is_int(h->recover, FLEET_DEFAULT_RECOVER, "recover defaults to 1 with power:");
	is_int(h->boot_timeout_ms, 90000, "boot_timeout inherited");
	ok(h->console == NULL, "no console");
	h = fleet_find(f, "plain");
	ok(h->power_cycle == NULL && h->recover == 0, "recover is 0 without power:");
	fleet_free(f);

	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    power:\n      cylce: x\n",
	    "lab.yaml:5:7: unknown key 'cylce' in power (did you mean 'cycle'?)"),
	    "misspelt power key");
	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    power: { off: x, on: y }\n",
	    "lab.yaml:4:12: power: has no cycle:"), "power without cycle");
	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    power: { cycle: x, off: y }\n",
	    "give both off: and on:, or neither"), "off without on");
	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    power: pdu-ctl 7\n",
	    "lab.yaml:4:12: power: expected a mapping"), "power as a string");
	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    console: \"  \"\n",
	    "lab.yaml:4:14: console: an empty command"), "empty console");
	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    recover: 2\n",
	    "lab.yaml:4:14: recover: 2 needs power:"), "recover without power");
	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    power: { cycle: x }\n"
	    "    recover: -1\n", "lab.yaml:5:14:"), "negative recover");
	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    boot_timeout: soon\n",
	    "lab.yaml:4:19:"), "bad boot_timeout");
	ok(fails_with("hosts:\n  a:\n    address: 192.0.2.1\n    boot_timout: 10s\n",
	    "unknown key 'boot_timout' in host 'a' (did you mean 'boot_timeout'?)"),
	    "misspelt boot_timeout");
}

static void
test_boot_entries(void)
{
	ok(fails_with("hosts:\n  a:\n    address: x\n    boot:\n      good: \"kexec:vmlinuz\"\n",
	    "lab.yaml:5:13: boot.good: kexec: the kernel 'vmlinuz' is not an absolute path"),
	    "a bad kexec at FILE:LINE:COL");
	ok(fails_with("defaults:\n  boot:\n    good: \"kexec:/v,inird=/i\"\nhosts:\n"
	    "  a:\n    address: x\n", "lab.yaml:3:11: boot.good: kexec: unknown option 'inird'"),
	    "in defaults too");
	ok(fails_with("hosts:\n  a:\n    address: x\n    boot: kexec:/v\n",
	    "lab.yaml:4:11: boot: expected a mapping"), "boot: as a string");
	ok(fails_with("hosts:\n  a:\n    address: x\n    boot:\n      \"no good\": x\n",
	    "lab.yaml:5:7: bad boot entry name 'no good'"), "a bad entry name");
	ok(fails_with("hosts:\n  a:\n    address: x\n    boot:\n      good: [x]\n",
	    "lab.yaml:5:13:"), "an entry that is no string");
	ok(fails_with("hosts:\n  a:\n    address: x\n    boot:\n      good: \"  \"\n",
	    "lab.yaml:5:13: boot.good: an empty command"), "an empty entry");
	ok(fails_with("hosts:\n  a:\n    address: x\n    bot:\n      good: x\n",
	    "unknown key 'bot' in host 'a' (did you mean 'boot'?)"), "a misspelt boot:");
}

int
main(void)
{
	test_inheritance();
	test_boards();
	test_boot_entries();
	test_errors();
	test_defaults_only();
	test_default_fleet();
	test_select();
	return tap_done();
}
