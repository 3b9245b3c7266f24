/*
 * changepoint-speed.c: how long change-point detection (src/changepoint.c)
 * takes on histories of the size nightly archives reach: NIGHTS nights
 * (default 365) for each of SERIES series (default 500), PERMUTATIONS
 * shuffles a test (default 100), on one core.  Built and run by hand:
 *
 *	cc -O2 -D_GNU_SOURCE -Iinclude -o /tmp/changepoint-speed \
 *	    tests/bench/changepoint-speed.c src/changepoint.c src/robust.c \
 *	    src/stats.c src/verdict.c src/fdr.c src/xmalloc.c -lm
 *	/tmp/changepoint-speed [NIGHTS [SERIES [PERMUTATIONS]]]
 *
 * Three kinds of history, 2% noise around 100 from a fixed generator:
 * A/A (no change: the usual night, where the first test fails and its
 * shuffles stop early), one step of 5% at two thirds, and two steps (5%
 * at a third, -8% at two thirds: two tests run all their shuffles).
 * Prints, per kind, the time for all series, the shuffles scored and the
 * time per shuffle (one shuffle of a segment and the scoring of all its
 * splits: what a permutation costs), and the change points found.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "changepoint.h"

/* xorshift64 (Marsaglia 2003); normals as the sum of 12 uniforms less 6. */
static uint64_t state = 88172645463325252ULL;

static double
normal(void)
{
	double sum = 0;
	int i;

	for (i = 0; i < 12; i++) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		sum += (double)(state >> 11) / 9007199254740992.0;
	}
	return sum - 6;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	static const char *kinds[] = { "A/A", "one 5% step", "two steps" };
	size_t nights = argc > 1 ? strtoul(argv[1], NULL, 10) : 365;
	size_t series = argc > 2 ? strtoul(argv[2], NULL, 10) : 500;
	unsigned perms = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 100;
	double *x = malloc(nights * series * sizeof(*x)), t0, t;
	struct changepoint_opts o;
	struct changepoint_result r;
	size_t k, s, i, shuffles, found;
	char *err = NULL;

	if (x == NULL || nights == 0 || series == 0 || perms == 0) {
		fprintf(stderr, "usage: changepoint-speed [NIGHTS [SERIES [PERMUTATIONS]]]\n");
		return 2;
	}
	changepoint_opts_init(&o);
	o.permutations = perms;
	o.threshold = 3;
	printf("%zu nights x %zu series, %u permutations, p <= %.2f, min_size %zu\n",
	    nights, series, perms, o.p_max, o.min_size);
	for (k = 0; k < 3; k++) {
		for (s = 0; s < series; s++) {
			for (i = 0; i < nights; i++) {
				double f = 1;

				if (k == 1 && i >= nights * 2 / 3)
					f = 1.05;
				if (k == 2)
					f = i < nights / 3 ? 1 : i < nights * 2 / 3 ? 1.05 : 1.05 * 0.92;
				x[s * nights + i] = 100 * f * (1 + 0.02 * normal());
			}
		}
		shuffles = found = 0;
		t0 = now();
		for (s = 0; s < series; s++) {
			o.seed = s;
			if (changepoint_detect(x + s * nights, nights, &o, &r, &err) < 0) {
				fprintf(stderr, "changepoint-speed: %s\n", err);
				return 1;
			}
			shuffles += r.shuffles;
			found += r.n;
			changepoint_result_release(&r);
		}
		t = now() - t0;
		printf("%-12s %8.3f s  %9zu shuffles  %6.2f us a shuffle  %5zu change points\n",
		    kinds[k], t, shuffles, shuffles ? t / (double)shuffles * 1e6 : 0, found);
	}
	free(x);
	return 0;
}
