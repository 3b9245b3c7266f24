/*
 * test-autorep: `repeat: auto`: which points get another round (spread
 * against the threshold, repeat_max, failing trials, regression.metrics,
 * a metric that is always 0) and how a round enters the schedule (after
 * the variant's trials, the next repetition, keys, todo flags, the later
 * variant moved).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autorep.h"
#include "catalog.h"
#include "plan.h"
#include "tap.h"
#include "xmalloc.h"

static const char catalog_json[] =
	"{\"type\":\"bench\",\"name\":\"munmap\",\"summary\":\"m\",\"params\":["
	"{\"name\":\"threads\",\"type\":\"int\",\"default\":\"4\"}],"
	"\"metrics\":[{\"name\":\"ns_per_munmap\",\"unit\":\"ns\",\"direction\":\"lower\"},"
	"{\"name\":\"ns_per_access\",\"unit\":\"ns\",\"direction\":\"lower\"}]}\n";

static struct plan *
load(const struct catalog *cat, const char *text)
{
	struct plan *p = NULL;
	char *err = NULL;

	if (plan_parse("p.yaml", text, strlen(text), cat, &p, &err) != 0) {
		printf("# %s\n", err);
		free(err);
		return NULL;
	}
	return p;
}

/* n values around mean, spread +-d alternately. */
static void
feed(struct autorep *a, const struct plan_point *pt, const char *m, double mean, double d,
    int n)
{
	int i;

	for (i = 0; i < n; i++)
		autorep_add_value(a, pt, m, mean + (i % 2 ? d : -d));
}

int
main(void)
{
	struct catalog *cat = NULL;
	struct plan *p;
	struct plan_schedule *s;
	struct autorep *a, *b;
	unsigned char *todo;
	char *err = NULL;
	size_t i, n;

	if (catalog_parse("test", catalog_json, strlen(catalog_json), &cat, &err) != 0) {
		printf("# %s\n", err);
		return 1;
	}
	p = load(cat, "repeat: 3\nbenchmarks:\n  - bench: munmap\n");
	ok(p != NULL && autorep_new(p) == NULL, "a fixed repeat: no autorep");
	plan_free(p);

	p = load(cat, "repeat: auto\nrepeat_max: 6\nvariants:\n  a: {}\n  b: {}\n"
	    "benchmarks:\n  - bench: munmap\n    params:\n      threads: [1, 2]\n");
	ok(p != NULL, "an auto plan with two variants and two points");
	if (p == NULL)
		return tap_done();
	a = autorep_new(p);
	ok(a != NULL, "autorep for repeat: auto");

	/* quiet: 3 values with 0.5% spread decide 5% */
	feed(a, &p->points[0], "ns_per_munmap", 1000, 5, 3);
	feed(a, &p->points[0], "ns_per_access", 10, 0.05, 3);
	ok(!autorep_more(a, &p->points[0], 3), "a quiet point stops after 3 trials");
	/*
	 * 970, 1030, 970: rsd 3.50%, within 5%, but the interval of 3 a side
	 * is 2 t(0.975; 4) sqrt(2/3) 3.50% = 15.9% wide: another round
	 */
	feed(a, &p->points[1], "ns_per_munmap", 1000, 30, 3);
	feed(a, &p->points[1], "ns_per_access", 10, 0.05, 3);
	ok(autorep_more(a, &p->points[1], 3), "an undecided point gets another round");
	ok(!autorep_more(a, &p->points[1], 6), "... but never beyond repeat_max");
	/*
	 * 900, 1100, 900: rsd 11.9%, beyond chance above 5% (2 x 11.9^2 / 5^2
	 * = 11.3 > chi-square(0.95; 2) = 5.99): noisy whatever is added, no round
	 */
	b = autorep_new(p);
	feed(b, &p->points[1], "ns_per_munmap", 1000, 100, 3);
	feed(b, &p->points[1], "ns_per_access", 10, 0.05, 3);
	ok(!autorep_more(b, &p->points[1], 3), "a point noisier than the threshold gets no "
	    "round: more trials will not help");
	autorep_free(b);
	/*
	 * 945, 1055, 945: rsd 6.47% > 5%, but 3 trials' rsd is rough: 2 x
	 * 6.47^2 / 5^2 = 3.35, below chi-square(0.95; 2) = 5.99: another round
	 */
	b = autorep_new(p);
	feed(b, &p->points[1], "ns_per_munmap", 1000, 55, 3);
	feed(b, &p->points[1], "ns_per_access", 10, 0.05, 3);
	ok(autorep_more(b, &p->points[1], 3), "a point noisier than the threshold by "
	    "chance in 3 trials gets another round");
	autorep_free(b);

	/* the schedule: 3 rounds x 2 points per variant */
	s = plan_expand(p, "h", 1);
	is_int((int)s->ntrials, 12, "12 trials first");
	todo = xcalloc(s->ntrials, 1);
	n = autorep_round(a, s, 0, &todo);
	is_int((int)n, 1, "one trial added to variant a");
	is_int((int)s->ntrials, 13, "13 trials now");
	is_int((int)s->variant_start[1], 7, "variant b starts one later");
	is_int((int)s->variant_start[2], 13, "and the end follows");
	ok(s->trials[6].point == &p->points[1] && s->trials[6].rep == 4 &&
	    strcmp(s->trials[6].key, "a/munmap/threads=2/4") == 0 && todo[6] == 1,
	    "the noisy point's repetition 4, after variant a's trials, to run");
	ok(todo[7] == 0 && s->trials[7].variant == &p->variants[1] &&
	    s->trials[7].rep == 1, "variant b's trials moved, flags with them");
	for (i = 0; i < s->ntrials; i++)
		todo[i] = 0;

	/* a round more only while undecided: now steady values */
	autorep_reset(a);
	feed(a, &p->points[0], "ns_per_munmap", 1000, 5, 4);
	feed(a, &p->points[0], "ns_per_access", 10, 0.05, 4);
	feed(a, &p->points[1], "ns_per_munmap", 1000, 5, 4);
	feed(a, &p->points[1], "ns_per_access", 10, 0.05, 4);
	is_int((int)autorep_round(a, s, 0, &todo), 0, "every point decided: no round");

	/* failing trials: fewer than 2 values, no more rounds */
	autorep_reset(a);
	feed(a, &p->points[0], "ns_per_munmap", 1000, 100, 1);
	ok(!autorep_more(a, &p->points[0], 3), "a point whose trials fail gets no round");
	/* a metric always 0 is decided */
	autorep_reset(a);
	feed(a, &p->points[0], "ns_per_munmap", 0, 0, 3);
	feed(a, &p->points[0], "ns_per_access", 10, 0.05, 3);
	ok(!autorep_more(a, &p->points[0], 3), "a metric that is always 0 decides nothing");
	plan_schedule_free(s);
	free(todo);
	autorep_free(a);
	plan_free(p);

	/* regression.metrics: only the listed metric decides */
	p = load(cat, "repeat: auto\nbenchmarks:\n  - bench: munmap\n"
	    "regression:\n  metrics: [munmap.ns_per_access]\n");
	a = autorep_new(p);
	feed(a, &p->points[0], "ns_per_munmap", 1000, 300, 3);
	feed(a, &p->points[0], "ns_per_access", 10, 0.05, 3);
	ok(!autorep_more(a, &p->points[0], 3), "a noisy metric the plan does not judge is "
	    "left alone");
	autorep_free(a);
	plan_free(p);
	catalog_free(cat);
	return tap_done();
}
