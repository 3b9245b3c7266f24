/*
 * autorep.c: `repeat: auto`, a round more of the points whose trials
 * cannot decide a change of the threshold's size yet, and whose spread
 * more trials could still do so for (autorep.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agentproto.h"
#include "autorep.h"
#include "plan.h"
#include "robust.h"
#include "stats.h"
#include "verdict.h"
#include "xmalloc.h"

struct ametric {
	char	*name;
	double	*v;
	size_t	 n, cap;
};

struct apoint {
	struct ametric	*m;
	size_t		 nm, cap;
};

struct autorep {
	const struct plan	*p;
	double			 threshold;	/* percent */
	struct apoint		*pts;		/* [p->npoints] */
};

struct autorep *
autorep_new(const struct plan *p)
{
	struct autorep *a;

	if (!p->repeat_auto)
		return NULL;
	a = xcalloc(1, sizeof(*a));
	a->p = p;
	a->threshold = p->has_regression ? p->threshold : VERDICT_THRESHOLD;
	a->pts = xcalloc(p->npoints + 1, sizeof(*a->pts));
	return a;
}

void
autorep_reset(struct autorep *a)
{
	size_t i, k;

	if (a == NULL)
		return;
	for (i = 0; i < a->p->npoints; i++) {
		for (k = 0; k < a->pts[i].nm; k++) {
			free(a->pts[i].m[k].name);
			free(a->pts[i].m[k].v);
		}
		free(a->pts[i].m);
		memset(&a->pts[i], 0, sizeof(a->pts[i]));
	}
}

void
autorep_free(struct autorep *a)
{
	if (a == NULL)
		return;
	autorep_reset(a);
	free(a->pts);
	free(a);
}

/* Whether metric m of pt's benchmark counts: regression.metrics, else all. */
static int
counts(const struct plan *p, const struct plan_point *pt, const char *m)
{
	size_t i, blen = strlen(pt->bench);
	int listed = 0;

	for (i = 0; i < p->nmetrics; i++) {
		const char *e = p->metrics[i];

		if (strncmp(e, pt->bench, blen) != 0 || e[blen] != '.')
			continue;
		listed = 1;
		if (strcmp(e + blen + 1, m) == 0)
			return 1;
	}
	return !listed;
}

void
autorep_add_value(struct autorep *a, const struct plan_point *pt, const char *metric,
    double value)
{
	struct apoint *ap;
	struct ametric *m = NULL;
	size_t i;

	if (a == NULL || pt < a->p->points || pt >= a->p->points + a->p->npoints ||
	    !isfinite(value))
		return;
	ap = &a->pts[pt - a->p->points];
	for (i = 0; i < ap->nm; i++)
		if (strcmp(ap->m[i].name, metric) == 0)
			m = &ap->m[i];
	if (m == NULL) {
		xgrow(&ap->m, &ap->cap, ap->nm + 1, sizeof(*ap->m));
		m = &ap->m[ap->nm++];
		memset(m, 0, sizeof(*m));
		m->name = xstrdup(metric);
	}
	xgrow(&m->v, &m->cap, m->n + 1, sizeof(*m->v));
	m->v[m->n++] = value;
}

void
autorep_add(struct autorep *a, const struct plan_point *pt, const struct ap_result *res)
{
	size_t i, k;

	if (a == NULL || res == NULL || res->status != AP_ST_OK)
		return;
	for (i = 0; i < res->npoints; i++)
		for (k = 0; k < res->points[i].nmetrics; k++)
			autorep_add_value(a, pt, res->points[i].metrics[k].name,
			    res->points[i].metrics[k].value);
}

/*
 * Whether a spread of rsd percent over n trials is above the threshold
 * beyond chance: the one-sided chi-square test of sd <= threshold at 95%,
 * (n - 1) rsd^2 / threshold^2 against the chi-square quantile of n - 1
 * degrees of freedom, found by Wilson and Hilferty's cube-root
 * approximation (within 1.5% at one degree of freedom, closer above).  At
 * 3 trials the rsd must be 1.72 times the threshold, at 10 1.37 times: the
 * rsd of a few trials is a rough estimate, and a point that is noisy only
 * by chance in its first rounds gets more.
 */
static int
spread_above(double rsd, size_t n, double threshold)
{
	const double z95 = 1.6448536269514722;
	double k = (double)(n - 1), c = 2 / (9 * k), q;

	q = k * pow(1 - c + z95 * sqrt(c), 3);
	return k * rsd * rsd / (threshold * threshold) > q;
}

int
autorep_more(const struct autorep *a, const struct plan_point *pt, size_t trials)
{
	const struct apoint *ap;
	size_t i, used = 0;
	int undecided = 0, hopeless = 0;

	if (a == NULL || trials >= (size_t)a->p->repeat_max)
		return 0;
	ap = &a->pts[pt - a->p->points];
	for (i = 0; i < ap->nm; i++) {
		const struct ametric *m = &ap->m[i];
		double sd, mean;

		if (!counts(a->p, pt, m->name))
			continue;
		if (m->n < 2)
			return 0;	/* its trials fail: more would not decide */
		used++;
		mean = stats_mean(m->v, m->n);
		sd = stats_sd(m->v, m->n);
		/* a metric that is 0 every time has nothing to decide */
		if (mean == 0 && sd == 0)
			continue;
		/* a spread surely above the threshold: noisy, however many
		 * trials are added */
		if (spread_above(sd / fabs(mean) * 100, m->n, a->threshold))
			hopeless = 1;
		else if (!robust_decidable(mean, sd, m->n, sd, m->n, a->threshold))
			undecided = 1;
	}
	return used > 0 && undecided && !hopeless;
}

size_t
autorep_round(struct autorep *a, struct plan_schedule *s, size_t v, unsigned char **todo)
{
	const struct plan *p;
	size_t i, k, n = 0, from, end, *count, *last;
	struct plan_trial *add;
	const struct plan_variant *pv;

	if (a == NULL || v >= s->nvariants)
		return 0;
	p = a->p;
	from = s->variant_start[v];
	end = s->variant_start[v + 1];
	if (from == end)
		return 0;
	pv = s->trials[from].variant;
	count = xcalloc(p->npoints + 1, sizeof(*count));
	last = xcalloc(p->npoints + 1, sizeof(*last));
	for (i = from; i < end; i++) {
		size_t pi = (size_t)(s->trials[i].point - p->points);

		count[pi]++;
		if ((size_t)s->trials[i].rep > last[pi])
			last[pi] = (size_t)s->trials[i].rep;
	}
	add = xcalloc(p->npoints + 1, sizeof(*add));
	for (i = 0; i < p->npoints; i++) {
		if (count[i] == 0 || !autorep_more(a, &p->points[i], count[i]))
			continue;
		add[n].variant = pv;
		add[n].point = &p->points[i];
		add[n].rep = (int)last[i] + 1;
		add[n].key = plan_trial_key(pv, add[n].point, add[n].rep);
		n++;
	}
	if (n > 0) {
		s->trials = xreallocarray(s->trials, s->ntrials + n + 1, sizeof(*s->trials));
		*todo = xreallocarray(*todo, s->ntrials + n + 1, 1);
		memmove(&s->trials[end + n], &s->trials[end],
		    (s->ntrials - end) * sizeof(*s->trials));
		memmove(*todo + end + n, *todo + end, s->ntrials - end);
		memcpy(&s->trials[end], add, n * sizeof(*add));
		memset(*todo + end, 1, n);
		s->ntrials += n;
		for (k = v + 1; k <= s->nvariants; k++)
			s->variant_start[k] += n;
	}
	free(add);
	free(count);
	free(last);
	return n;
}
