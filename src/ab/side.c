/*
 * ab/side.c: the sides of `fleetmark ab` (ab-int.h): a command, a kexec
 * or a host's `boot:` entry, checked before the first reboot (resolved
 * per host, booted and verified by boot.h).
 */

#include "ab-int.h"
#include "boot.h"
#include "bootspec.h"
#include "cmd.h"
#include "fleet.h"

static const char *const opts[2] = { "-A", "-B" };

int
ab_sides_check(const char *const texts[2], const struct fleet_host *const *hosts, size_t n,
    char **err)
{
	struct bootspec b;
	size_t i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < n; i++) {
			if (boot_spec_for_host(opts[k], texts[k], hosts[i], &b, err) != 0)
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
		if (boot_spec_for_host(opts[k], texts[k], h, &b, err) != 0)
			return -1;
		r = b.kind == BOOTSPEC_KEXEC ? boot_kexec_check(h, &b, err) : 0;
		bootspec_release(&b);
		if (r != 0)
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
