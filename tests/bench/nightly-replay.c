/*
 * nightly-replay.c: the A/A nights of a results directory judged again,
 * offline, as `run --baseline history` judges them now (nightly.h), for
 * docs/performance.md ("The nightly verdict against history"): each
 * night against the nights before it (a directory of links to them), at
 * the threshold given, every metric counting, without a confirmation
 * round (regression.confirm 0: what is held worse is a regression at
 * once, so the count is an upper bound of what the real round would
 * leave).  Prints a line per night and the false nights.
 *
 *	cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -o /tmp/nightly-replay \
 *	    tests/bench/nightly-replay.c $(find build/src -name '*.o' ! -name main.o) \
 *	    $(pkg-config --libs libssh yaml-0.1 libcurl jansson libcrypto libxml-2.0) \
 *	    -lpthread -lm
 *	/tmp/nightly-replay DIR PLAN [THRESHOLD]
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history.h"
#include "nightly.h"
#include "xmalloc.h"

int
main(int argc, char **argv)
{
	struct history_opts ho;
	struct history *h = NULL;
	struct nightly_opts o;
	char tmp[] = "/tmp/nightly-replay.XXXXXX", *err = NULL, *p, real[PATH_MAX];
	size_t i, j, judged = 0, false_nights = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: nightly-replay DIR PLAN [THRESHOLD]\n");
		return 2;
	}
	history_opts_init(&ho);
	ho.plan = argv[2];
	ho.cache = "";
	if (history_load(argv[1], &ho, &h, &err) != 0 || mkdtemp(tmp) == NULL) {
		fprintf(stderr, "%s: %s\n", argv[1], err ? err : "mkdtemp");
		return 1;
	}
	memset(&o, 0, sizeof(o));
	o.source = tmp;
	o.cache = "";
	o.plan = argv[2];
	o.threshold = argc > 3 ? strtod(argv[3], NULL) : 5;
	o.nights = 7;
	o.fdr = 0.05;
	printf("%5s %5s %7s %6s %7s %6s  %s\n", "night", "rows", "tested", "pooled", "cannot",
	    "held", "worse rows");
	for (i = 0; i < h->nruns; i++) {
		struct nightly *n = NULL;
		size_t pooled = 0, cannot = 0;
		int r;

		if (i > 0) {
			/* the nights before tonight, and tonight's own run to judge */
			if (realpath(h->runs[i - 1].dir, real) == NULL)
				return 1;
			p = xasprintf("%s/%s", tmp, h->runs[i - 1].id);
			if (symlink(real, p) != 0)
				return 1;
			free(p);
		}
		r = nightly_judge(h->runs[i].dir, &o, &n, &err);
		if (r == NIGHTLY_ENOHISTORY) {
			printf("%5zu %5s %7s %6s %7s %6s  (no history)\n", i + 1, "-", "-", "-", "-",
			    "-");
			free(err);
			err = NULL;
			continue;
		}
		if (r != 0) {
			fprintf(stderr, "%s: %s\n", h->runs[i].dir, err);
			return 1;
		}
		for (j = 0; j < n->n; j++) {
			pooled += n->rows[j].vr.v.pooled;
			cannot += n->rows[j].state == NIGHTLY_CANNOT;
		}
		printf("%5zu %5zu %7zu %6zu %7zu %6d ", i + 1, n->n, n->tested, pooled, cannot,
		    nightly_regressions(n));
		for (j = 0; j < n->n; j++)
			if (n->rows[j].state == NIGHTLY_FAILED)
				printf(" %s.%s[%s]%s %s %+.1f%%", n->rows[j].bench, n->rows[j].metric,
				    n->rows[j].params, n->rows[j].vr.v.by_trend ? " (trend)" : "",
				    n->rows[j].host, n->rows[j].vr.v.change);
		printf("\n");
		judged++;
		false_nights += nightly_regressions(n) > 0;
		nightly_free(n);
	}
	printf("false nights (a regression held, no confirmation round): %zu of %zu judged, "
	    "threshold %g%%\n", false_nights, judged, o.threshold);
	p = xasprintf("rm -rf '%s'", tmp);
	if (system(p) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
	free(p);
	history_free(h);
	return 0;
}
