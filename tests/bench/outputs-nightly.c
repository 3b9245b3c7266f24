/*
 * outputs-nightly.c: the nightly verdict of the newest night of a results
 * directory against the nights before it, rendered in every format the
 * verdict has, for tests/bench/outputs.sh (which builds this file against
 * each of the two builds it compares).  The nights before the newest one
 * are linked into a directory of their own, as nightly-replay.c does;
 * the newest night's trials after REPEAT are its confirmation round.
 *
 *	outputs-nightly DIR PLAN REPEAT OUTDIR
 *
 * writes OUTDIR/nightly.{text,md,json,html}; exit 0, or 1 with a message.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history.h"
#include "nightly.h"
#include "report.h"
#include "xmalloc.h"

static const struct {
	const char *name;
	enum report_format f;
} formats[] = {
	{ "text", REPORT_TEXT }, { "md", REPORT_MD }, { "json", REPORT_JSON },
	{ "html", REPORT_HTML },
};

int
main(int argc, char **argv)
{
	struct history_opts ho;
	struct history *h = NULL;
	struct nightly_opts o;
	struct nightly *n = NULL;
	char tmp[] = "/tmp/outputs-nightly.XXXXXX", *err = NULL, *p, real[PATH_MAX];
	size_t i;
	FILE *f;

	if (argc != 5) {
		fprintf(stderr, "usage: outputs-nightly DIR PLAN REPEAT OUTDIR\n");
		return 2;
	}
	history_opts_init(&ho);
	ho.plan = argv[2];
	ho.cache = "";
	if (history_load(argv[1], &ho, &h, &err) != 0 || h->nruns < 2 || mkdtemp(tmp) == NULL) {
		fprintf(stderr, "%s: %s\n", argv[1], err ? err : "fewer than 2 nights, or mkdtemp");
		return 1;
	}
	for (i = 0; i + 1 < h->nruns; i++) {
		if (realpath(h->runs[i].dir, real) == NULL)
			return 1;
		p = xasprintf("%s/%s", tmp, h->runs[i].id);
		if (symlink(real, p) != 0)
			return 1;
		free(p);
	}
	memset(&o, 0, sizeof(o));
	o.source = tmp;
	o.cache = "";
	o.plan = argv[2];
	o.threshold = 5;
	o.nights = 7;
	o.fdr = 0.05;
	o.confirm = 1;
	o.repeat = atoi(argv[3]);
	if (nightly_judge(h->runs[h->nruns - 1].dir, &o, &n, &err) != 0 ||
	    (nightly_to_confirm(n) > 0 &&
	    nightly_confirm(n, h->runs[h->nruns - 1].dir, &err) != 0)) {
		fprintf(stderr, "%s: %s\n", h->runs[h->nruns - 1].dir, err);
		return 1;
	}
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		p = xasprintf("%s/nightly.%s", argv[4], formats[i].name);
		if ((f = fopen(p, "w")) == NULL || nightly_render(n, formats[i].f, f, &err) != 0 ||
		    fclose(f) != 0) {
			fprintf(stderr, "%s: %s\n", p, err ? err : "cannot write");
			return 1;
		}
		free(p);
	}
	nightly_free(n);
	history_free(h);
	p = xasprintf("rm -rf '%s'", tmp);
	if (system(p) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
	free(p);
	return 0;
}
