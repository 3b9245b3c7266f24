/*
 * fuzz-catalog.c: the catalogue reader (src/catalog.c): the JSON lines an
 * agent prints for `list --json`, which come from a remote host.  A
 * catalogue that loads is queried the way plan validation queries it.
 */
#include <stdlib.h>

#include "catalog.h"
#include "fuzz.h"

static const char *const values[] = {
	"1", "16K", "4G", "50%", "0%", "101%", "-1", "", "null", "99999999999999999999M",
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct catalog *cat = NULL;
	const char **names;
	char *err = NULL, *why;
	size_t i, j, k, n;

	if (catalog_parse("fuzz", (const char *)data, size, &cat, &err) != 0) {
		if (err == NULL)
			abort();
		free(err);
		return 0;
	}
	names = catalog_bench_names(cat, &n);
	free(names);
	for (i = 0; i < cat->nbenches && i < 64; i++) {
		const struct catalog_bench *b = &cat->benches[i];

		if (catalog_find(cat, b->name) == NULL)
			abort();
		free(catalog_param_names(b, &n));
		free(catalog_metric_names(b, &n));
		for (j = 0; j < b->nparams && j < 32; j++) {
			if (catalog_find_param(b, b->params[j].name) == NULL)
				abort();
			for (k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
				why = NULL;
				if (catalog_check_value(&b->params[j], values[k], &why) != 0) {
					if (why == NULL)
						abort();
					free(why);
				}
			}
			if (b->params[j].def != NULL &&
			    catalog_check_value(&b->params[j], b->params[j].def, &why) != 0)
				free(why);
		}
		for (j = 0; j < b->nmetrics && j < 32; j++)
			if (catalog_find_metric(b, b->metrics[j].name) == NULL)
				abort();
	}
	catalog_free(cat);
	return 0;
}
