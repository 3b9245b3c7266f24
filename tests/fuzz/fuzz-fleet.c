/*
 * fuzz-fleet.c: the inventory loader (src/fleet.c) on top of the YAML
 * layer.  A fleet that loads is then queried as `-H` would query it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fuzz.h"

static void
select_hosts(const struct fleet *f, unsigned char *sel, const char *spec)
{
	char *err = NULL;

	if (fleet_select(f, spec, sel, &err) < 0) {
		if (err == NULL)
			abort();
		free(err);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fleet *f = NULL;
	unsigned char *sel;
	char *err = NULL, spec[2 * FLEET_NAME_MAX + 8];
	size_t i, j;

	if (fleet_parse("fuzz.yaml", (const char *)data, size, &f, &err) != 0) {
		if (err == NULL)
			abort();
		free(err);
		return 0;
	}
	if (f->nhosts == 0 || f->nhosts > FLEET_MAX_HOSTS)
		abort();
	sel = calloc(f->nhosts, 1);
	select_hosts(f, sel, "all");
	select_hosts(f, sel, "@nosuchlabel,nosuchhost");
	for (i = 0; i < f->nhosts && i < 16; i++) {
		const struct fleet_host *h = &f->hosts[i];

		if (h->name == NULL || fleet_find(f, h->name) != h)
			abort();	/* names are unique */
		if (strlen(h->name) > FLEET_NAME_MAX)
			abort();
		(void)fleet_transport_name(h->transport);
		(void)fleet_hostkey_name(h->host_key_check);
		(void)fleet_agent_name(h->agent);
		for (j = 0; j < h->nlabels; j++) {
			snprintf(spec, sizeof(spec), "%s,@%s", h->name, h->labels[j]);
			select_hosts(f, sel, spec);
			if (!fleet_host_has_label(h, h->labels[j]))
				abort();
		}
	}
	free(sel);
	fleet_free(f);
	return 0;
}
