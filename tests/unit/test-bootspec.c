/*
 * test-bootspec.c: how a host boots a kernel (bootspec.h) as -A, -B and
 * `boot:` entries write it: commands, kexec:KERNEL[,initrd=][,append=]
 * parsed strictly (append= takes the rest, commas and all), entry names;
 * and ab's sides per host (src/ab/ab-int.h): an entry resolved from the host's
 * `boot:` (the defaults' and its own; test-fleet.c has the inventory's
 * errors), {host} expanded, a missing entry and a kexec of this machine
 * refused with the host named; and the command line checked after a
 * kexec (boot.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab/ab-int.h"
#include "board.h"
#include "boot.h"
#include "bootspec.h"
#include "fleet.h"
#include "tap.h"
#include "xmalloc.h"

/* Whether text fails to parse with a message containing want. */
static int
refused(const char *text, const char *want)
{
	struct bootspec b;
	char *err = NULL;
	int r;

	if (bootspec_parse(text, 1, &b, &err) == 0) {
		printf("#   '%s' parsed\n", text);
		bootspec_release(&b);
		return 0;
	}
	r = strstr(err, want) != NULL;
	if (!r)
		printf("#   got \"%s\"\n#   want \"%s\"\n", err, want);
	free(err);
	return r;
}

static void
test_parse(void)
{
	struct bootspec b;
	char *err = NULL, *s;

	ok(bootspec_parse("kexec:/boot/vmlinuz-6.1,initrd=/boot/initrd.img-6.1,"
	    "append=console=ttyS0,115200 quiet", 1, &b, &err) == 0, "a kexec parses");
	is_int(b.kind, BOOTSPEC_KEXEC, "its kind");
	is_str(b.kernel, "/boot/vmlinuz-6.1", "its kernel");
	is_str(b.initrd, "/boot/initrd.img-6.1", "its initrd");
	is_str(b.append, "console=ttyS0,115200 quiet", "append= takes the rest, commas too");
	bootspec_release(&b);
	bootspec_release(NULL);

	ok(bootspec_parse("kexec:/vmlinuz", 1, &b, &err) == 0 && b.initrd == NULL &&
	    b.append == NULL, "a kernel alone");
	bootspec_release(&b);
	ok(bootspec_parse("kexec:/vmlinuz,append=a,initrd=/x", 1, &b, &err) == 0 &&
	    strcmp(b.append, "a,initrd=/x") == 0 && b.initrd == NULL,
	    "after append= nothing is an option");
	bootspec_release(&b);

	ok(refused("kexec:", "kexec: the kernel is empty"), "no kernel");
	ok(refused("kexec:boot/vmlinuz", "kexec: the kernel 'boot/vmlinuz' is not an "
	    "absolute path"), "a relative kernel");
	ok(refused("kexec:/v,initrd=", "kexec: the initrd is empty"), "an empty initrd");
	ok(refused("kexec:/v,initrd=x.img", "the initrd 'x.img' is not an absolute path"),
	    "a relative initrd");
	ok(refused("kexec:/v,initrd=/a,initrd=/b", "kexec: initrd= is given twice"),
	    "initrd twice");
	ok(refused("kexec:/v,append=", "kexec: append= is empty"), "an empty append");
	ok(refused("kexec:/v,inird=/a", "kexec: unknown option 'inird' (expected "
	    "initrd=FILE or append=ARGS)"), "a misspelt option");
	ok(refused("kexec:/v,,append=x", "kexec: an empty option"), "two commas");
	ok(refused("kexec:/v,append=a\nreboot", "a control character"), "a newline");
	ok(refused("  ", "an empty command"), "blanks");
	ok(refused("", "an empty command"), "nothing");

	ok(bootspec_parse("good", 1, &b, &err) == 0 && b.kind == BOOTSPEC_ENTRY &&
	    strcmp(b.entry, "good") == 0, "a name is an entry");
	bootspec_release(&b);
	ok(bootspec_parse("good", 0, &b, &err) == 0 && b.kind == BOOTSPEC_COMMAND &&
	    strcmp(b.command, "good") == 0, "without names, a command");
	bootspec_release(&b);
	ok(bootspec_parse("lab-boot {host} test", 1, &b, &err) == 0 &&
	    b.kind == BOOTSPEC_COMMAND, "a command with blanks");
	bootspec_release(&b);
	ok(bootspec_parse("./boot-a", 1, &b, &err) == 0 && b.kind == BOOTSPEC_COMMAND,
	    "a one-word command: a path");
	bootspec_release(&b);

	s = bootspec_expand("lab-boot {host} x{host}y {hostname}", "lab-07");
	is_str(s, "lab-boot lab-07 xlab-07y {hostname}", "{host} expanded, {hostname} not");
	free(s);
	free(err);
}

static const char fleet[] =
	"defaults:\n"
	"  boot:\n"
	"    good: \"kexec:/boot/vmlinuz-6.1.0,initrd=/boot/initrd.img-6.1.0\"\n"
	"    test: \"/usr/local/bin/lab-boot {host} test\"\n"
	"hosts:\n"
	"  lab-07:\n"
	"    address: 192.0.2.7\n"
	"    boot:\n"
	"      test: \"kexec:/boot/vmlinuz-test,append=root=/dev/sda1 fm=test\"\n"
	"  lab-08:\n"
	"    address: 192.0.2.8\n"
	"  lab-09:\n"
	"    address: 192.0.2.9\n"
	"    boot:\n"
	"      only: \"true\"\n"
	"  laptop:\n"
	"    transport: local\n";

static void
test_sides(void)
{
	const struct fleet_host *h7, *h8, *h9, *lp;
	const struct fleet_host *both[2];
	const char *texts[2];
	struct board_boot bb;
	struct bootspec b;
	struct fleet *f = NULL;
	char *err = NULL;

	if (fleet_parse("lab.yaml", fleet, strlen(fleet), &f, &err) != 0) {
		ok(0, "the inventory loads");
		printf("# %s\n", err);
		free(err);
		return;
	}
	h7 = fleet_find(f, "lab-07");
	h8 = fleet_find(f, "lab-08");
	h9 = fleet_find(f, "lab-09");
	lp = fleet_find(f, "laptop");
	is_int(h7->nboots, 2, "lab-07: the defaults' entries and its own");
	is_str(fleet_boot_find(h7, "test")->how, "kexec:/boot/vmlinuz-test,append=root=/dev/sda1 "
	    "fm=test", "its own entry replaces the default of that name");
	is_int(fleet_boot_find(h7, "test")->line, 9, "where the entry is written");
	is_str(fleet_boot_find(h8, "good")->how, "kexec:/boot/vmlinuz-6.1.0,initrd=/boot/"
	    "initrd.img-6.1.0", "lab-08 inherits the defaults'");
	ok(fleet_boot_find(h8, "only") == NULL, "no entry of another host");

	ok(boot_spec_for_host("-A", "good", h8, &b, &err) == 0 && b.kind == BOOTSPEC_KEXEC &&
	    strcmp(b.kernel, "/boot/vmlinuz-6.1.0") == 0, "-A good: the host's kexec");
	bootspec_release(&b);
	ok(boot_spec_for_host("-B", "test", h8, &b, &err) == 0 && b.kind == BOOTSPEC_COMMAND &&
	    strcmp(b.command, "/usr/local/bin/lab-boot lab-08 test") == 0,
	    "-B test: the default's command, {host} expanded");
	bootspec_release(&b);
	ok(boot_spec_for_host("-B", "test", h7, &b, &err) == 0 && b.kind == BOOTSPEC_KEXEC &&
	    strcmp(b.append, "root=/dev/sda1 fm=test") == 0, "-B test on lab-07: its own");
	bootspec_release(&b);
	ok(boot_spec_for_host("-A", "echo {host}", h7, &b, &err) == 0 &&
	    strcmp(b.command, "echo lab-07") == 0, "a command on -A: {host} expanded");
	bootspec_release(&b);

	ok(boot_spec_for_host("-A", "only", h8, &b, &err) != 0, "an entry the host lacks");
	is_str(err, "-A only: host 'lab-08' has no boot: entry 'only' in lab.yaml (a command "
	    "of one word is written as a path: ./only)", "the message names the host");
	free(err);
	err = NULL;
	ok(boot_spec_for_host("-B", "kexec:/v", lp, &b, &err) != 0 &&
	    strstr(err, "host 'laptop' is this machine (transport: local)") != NULL,
	    "no kexec of this machine");
	free(err);
	err = NULL;
	ok(boot_spec_for_host("-B", "kexec:v", h7, &b, &err) != 0, "a bad kexec on -B");
	is_str(err, "-B 'kexec:v': kexec: the kernel 'v' is not an absolute path",
	    "its message names the option");
	free(err);
	err = NULL;

	texts[0] = "good";
	texts[1] = "test";
	both[0] = h7;
	both[1] = h8;
	ok(ab_sides_check(texts, both, 2, &err) == 0, "good and test: every host has both");
	both[1] = h9;
	texts[1] = "only";
	ok(ab_sides_check(texts, both, 2, &err) != 0 && strstr(err, "host 'lab-07' has no "
	    "boot: entry 'only'") != NULL, "one host lacking the entry refuses the sides");
	free(err);
	err = NULL;

	ok(boot_spec_for_host("-A", "kexec:/v,append=fm_side=a pti=on", h7, &b, &err) == 0,
	    "a kexec with append");
	memset(&bb, 0, sizeof(bb));
	bb.cmdline = "console=ttyS0 fm_side=a pti=on";
	ok(boot_cmdline_check(&b, &bb, &err) == 0, "the command line has append's");
	bb.cmdline = "console=ttyS0 fm_side=a";
	ok(boot_cmdline_check(&b, &bb, &err) != 0 && strstr(err, "the command line is not "
	    "append=fm_side=a pti=on") != NULL, "a command line without it fails the boot");
	free(err);
	err = NULL;
	bootspec_release(&b);
	fleet_free(f);
}

int
main(void)
{
	test_parse();
	test_sides();
	return tap_done();
}
