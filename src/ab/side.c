/*
 * ab/side.c: the sides of `fleetmark ab` (ab-int.h): a command, a kexec
 * or a host's `boot:` entry, resolved per host, checked before the first
 * reboot, booted and verified.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab-int.h"
#include "board.h"
#include "boot.h"
#include "bootspec.h"
#include "cmd.h"
#include "fleet.h"
#include "xmalloc.h"

int
ab_side_for_host(const char *opt, const char *text, const struct fleet_host *h,
    struct bootspec *out, char **err)
{
	const struct fleet_boot *fb;
	struct bootspec b;
	char *e = NULL, *cmd;

	memset(out, 0, sizeof(*out));
	if (bootspec_parse(text, 1, &b, &e) != 0) {
		*err = xasprintf("%s '%s': %s", opt, text, e);
		free(e);
		return -1;
	}
	if (b.kind == BOOTSPEC_ENTRY) {
		if ((fb = fleet_boot_find(h, b.entry)) == NULL) {
			*err = xasprintf("%s %s: host '%s' has no boot: entry '%s' in %s "
			    "(a command of one word is written as a path: ./%s)", opt, text,
			    h->name, b.entry, h->file ? h->file : "the inventory", b.entry);
			bootspec_release(&b);
			return -1;
		}
		bootspec_release(&b);
		/* checked when the inventory was loaded */
		if (bootspec_parse(fb->how, 0, &b, &e) != 0) {
			*err = xasprintf("%s:%d:%d: boot.%s: %s", h->file, fb->line, fb->col,
			    fb->name, e);
			free(e);
			return -1;
		}
	}
	if (b.kind == BOOTSPEC_COMMAND) {
		cmd = bootspec_expand(b.command, h->name);
		free(b.command);
		b.command = cmd;
	}
	if (b.kind == BOOTSPEC_KEXEC && h->transport == FLEET_TRANSPORT_LOCAL) {
		*err = xasprintf("%s %s: host '%s' is this machine (transport: local): a kexec "
		    "side would restart it", opt, text, h->name);
		bootspec_release(&b);
		return -1;
	}
	*out = b;
	return 0;
}

static const char *const opts[2] = { "-A", "-B" };

int
ab_sides_check(const char *const texts[2], const struct fleet_host *const *hosts, size_t n,
    char **err)
{
	struct bootspec b;
	size_t i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < n; i++) {
			if (ab_side_for_host(opts[k], texts[k], hosts[i], &b, err) != 0)
				return -1;
			bootspec_release(&b);
		}
	return 0;
}

int
ab_sides_precheck(const char *const texts[2], const struct fleet_host *h, char **err)
{
	struct bootspec b;
	size_t k;
	int r;

	for (k = 0; k < 2; k++) {
		if (ab_side_for_host(opts[k], texts[k], h, &b, err) != 0)
			return -1;
		r = b.kind == BOOTSPEC_KEXEC ? boot_kexec_check(h, &b, err) : 0;
		bootspec_release(&b);
		if (r != 0)
			return -1;
	}
	return 0;
}

int
ab_side_boot(const char *what, const struct fleet_host *h, const struct bootspec *b,
    long long timeout_ms, FILE *echo, char **expect, char **output, int *status,
    char **err)
{
	if (b->kind != BOOTSPEC_KEXEC)
		return boot_hook_output(what, b->command, timeout_ms, echo, expect, output,
		    status, err);
	*status = 0;
	*output = xstrdup("");
	return boot_kexec(h, b, err);
}

int
ab_side_verify(const struct bootspec *b, const struct board_boot *bb, char **err)
{
	if (b->kind != BOOTSPEC_KEXEC || b->append == NULL)
		return 0;
	if (bb->cmdline == NULL || strstr(bb->cmdline, b->append) == NULL) {
		*err = xasprintf("the kexec did not take: the command line is not append=%s: "
		    "/proc/cmdline (%s)", b->append, bb->cmdline ? bb->cmdline : "");
		return -1;
	}
	return 0;
}

int
ab_check_sides(const struct ab_cmdopts *o, const struct ab_ctx *c, char **err)
{
	const char *texts[2] = { o->side[AB_A].cmd, o->side[AB_B].cmd };

	return ab_sides_check(texts, c->hosts, c->nhosts, err) != 0 ? CMD_EXIT_USAGE : 0;
}
