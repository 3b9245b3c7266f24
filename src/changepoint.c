/*
 * changepoint.c: E-divisive with means over a benchmark's nights, with a
 * seeded permutation test, and the current segment (changepoint.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "robust.h"
#include "stats.h"
#include "verdict.h"
#include "xmalloc.h"

/* Relative slack when a shuffle's score is compared with the proposal's. */
#define TIE_SLACK	1e-9

/* Scratch for scoring the splits of a segment. */
struct work {
	size_t	*fc;		/* Fenwick tree of counts over ranks, 1-based */
	double	*fs;		/* Fenwick tree of value sums over ranks */
	double	*q;		/* q[t]: q-hat of the split at t */
};

/* A segment [a, b) and its best split, when it has one. */
struct seg {
	size_t	a, b;
	size_t	tau;		/* absolute index of the best split's first night */
	double	q;		/* its q-hat; -INFINITY: too short to split */
};

static void
work_init(struct work *w, size_t cap)
{
	w->fc = xcalloc(cap + 1, sizeof(*w->fc));
	w->fs = xcalloc(cap + 1, sizeof(*w->fs));
	w->q = xcalloc(cap + 1, sizeof(*w->q));
}

static void
work_release(struct work *w)
{
	free(w->fc);
	free(w->fs);
	free(w->q);
}

static void
fenwick_clear(struct work *w, size_t len)
{
	memset(w->fc, 0, (len + 1) * sizeof(*w->fc));
	memset(w->fs, 0, (len + 1) * sizeof(*w->fs));
}

static void
fenwick_add(struct work *w, size_t len, size_t rank, double v)
{
	size_t i;

	for (i = rank + 1; i <= len; i += i & -i) {
		w->fc[i]++;
		w->fs[i] += v;
	}
}

/*
 * The sum of |v - u| over the cnt values u inserted so far (their sum
 * is sum), v of rank `rank`: those of lower rank contribute v - u, the
 * others u - v (a tied value contributes 0 on either side).
 */
static double
fenwick_absdiff(const struct work *w, size_t rank, double v, size_t cnt, double sum)
{
	double sl = 0;
	size_t cl = 0, i;

	for (i = rank; i > 0; i -= i & -i) {
		cl += w->fc[i];
		sl += w->fs[i];
	}
	return v * (double)cl - sl + (sum - sl) - v * (double)(cnt - cl);
}

static double
qhat_of(double wx, double wy, double cross, size_t nx, size_t ny)
{
	double n = (double)nx, m = (double)ny, e;

	e = 2 * cross / (n * m);
	if (nx >= 2)
		e -= 2 * wx / (n * (n - 1));
	if (ny >= 2)
		e -= 2 * wy / (m * (m - 1));
	return n * m / (n + m) * e;
}

/*
 * dist[r]: the sum of the distances of the value of rank r to all the
 * values of v[0..len), from the sorted values and their prefix sums.  It
 * depends on the values only, not on their order: computed once for a
 * segment, it serves every shuffle of it.
 */
static void
rank_distances(const double *v, const size_t *rank, size_t len, double *dist)
{
	double *s = xreallocarray(NULL, len ? len : 1, sizeof(*s)), below = 0, all = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		s[rank[i]] = v[i];
		all += v[i];
	}
	for (i = 0; i < len; i++) {
		dist[i] = s[i] * (double)i - below + (all - below - s[i]) -
		    s[i] * (double)(len - 1 - i);
		below += s[i];
	}
	free(s);
}

/*
 * q-hat of every split of v[0..len) into w->q[1..len): rank[] holds each
 * value's rank among v[0..len) (0..len-1, ties in any order), dist[] as
 * rank_distances() gives it.  One pass: moving night t from Y to X adds
 * its distances to the nights before it (l, from the Fenwick trees) to
 * X's within sum, and changes the cross sum by its distances to the
 * nights after it less l; Y's within sum is what the total leaves.
 */
static void
score_splits(struct work *w, const double *v, const size_t *rank, const double *dist,
    size_t len)
{
	double wx = 0, cross = 0, sum = 0, total = 0, l;
	size_t t;

	for (t = 0; t < len; t++)
		total += dist[t];
	total /= 2;
	fenwick_clear(w, len);
	for (t = 0; t < len; t++) {
		if (t > 0)
			w->q[t] = qhat_of(wx, total - wx - cross, cross, t, len - t);
		l = fenwick_absdiff(w, rank[t], v[t], t, sum);
		wx += l;
		cross += dist[rank[t]] - 2 * l;
		fenwick_add(w, len, rank[t], v[t]);
		sum += v[t];
	}
}

/* The best split of v[0..len) leaving min nights a side: its q-hat, *tau. */
static double
best_split(struct work *w, const double *v, const size_t *rank, const double *dist,
    size_t len, size_t min, size_t *tau)
{
	double best = -INFINITY;
	size_t t;

	if (len < 2 * min)
		return -INFINITY;
	score_splits(w, v, rank, dist, len);
	for (t = min; t + min <= len; t++) {
		if (w->q[t] > best) {
			best = w->q[t];
			*tau = t;
		}
	}
	return best;
}

/* rank[i] = the rank of v[i] among v[0..len). */
static void
rank_of(const double *v, size_t len, size_t *rank)
{
	size_t *ord = xreallocarray(NULL, len ? len : 1, sizeof(*ord)), i;

	robust_order(v, len, ord);
	for (i = 0; i < len; i++)
		rank[ord[i]] = i;
	free(ord);
}

/*
 * PCG32 (O'Neill 2014, "PCG: A Family of Simple Fast Space-Efficient
 * Statistically Good Algorithms for Random Number Generation"), the
 * XSH-RR output of a 64-bit LCG: small, fast, and the same sequence on
 * every machine.
 */
struct rng {
	uint64_t state, inc;
};

static uint32_t
rng_next(struct rng *g)
{
	uint64_t old = g->state;
	uint32_t xs = (uint32_t)(((old >> 18) ^ old) >> 27), rot = (uint32_t)(old >> 59);

	g->state = old * 6364136223846793005ULL + g->inc;
	return (xs >> rot) | (xs << ((32 - rot) & 31));
}

static void
rng_seed(struct rng *g, uint64_t seed)
{
	g->state = 0;
	g->inc = (0xda3e39cb94b95bdbULL << 1) | 1;
	rng_next(g);
	g->state += seed;
	rng_next(g);
}

/* Uniform in [0, n), 0 < n <= 2^32, without modulo bias (rejection). */
static size_t
rng_below(struct rng *g, size_t n)
{
	uint32_t lim = (uint32_t)(-(uint32_t)n % (uint32_t)n), r;

	/* r < lim are the 2^32 mod n values that would favour the small ones. */
	do
		r = rng_next(g);
	while (r < lim);
	return r % n;
}

/* Fisher-Yates on v[0..len) and rank[0..len) together. */
static void
shuffle(struct rng *g, double *v, size_t *rank, size_t len)
{
	size_t i, j, tr;
	double tv;

	for (i = len; i > 1; i--) {
		j = rng_below(g, i);
		tv = v[i - 1];
		v[i - 1] = v[j];
		v[j] = tv;
		tr = rank[i - 1];
		rank[i - 1] = rank[j];
		rank[j] = tr;
	}
}

struct detect {
	const struct changepoint_opts *o;
	size_t	 n;
	double	*c;		/* the values, centred (differences are what count) */
	size_t	*rank;		/* rank of c[i] within its segment */
	double	*dist;		/* [a + r]: rank_distances() of segment [a, b) */
	double	*pv;		/* shuffled copies for the permutation test */
	size_t	*pr;
	struct seg *seg;	/* the segments in order, nseg of them */
	size_t	 nseg;
	double	*found_p, *found_q;	/* per boundary seg[i].a, i > 0 */
	struct work w;
	struct rng rng;
	size_t	 shuffles;
};

static void
propose(struct detect *d, struct seg *s)
{
	size_t tau = 0;

	rank_of(d->c + s->a, s->b - s->a, d->rank + s->a);
	rank_distances(d->c + s->a, d->rank + s->a, s->b - s->a, d->dist + s->a);
	s->q = best_split(&d->w, d->c + s->a, d->rank + s->a, d->dist + s->a, s->b - s->a,
	    d->o->min_size, &tau);
	s->tau = s->a + tau;
}

/*
 * The permutation p of the proposal scoring qobs; stops once more than
 * `allowed` shuffles score at least qobs (p can then only be > p_max)
 * and returns the p so far, a lower bound.
 */
static double
permutation_p(struct detect *d, double qobs, unsigned allowed)
{
	const struct changepoint_opts *o = d->o;
	double best, q, slack = TIE_SLACK * fabs(qobs);
	unsigned r, count = 0;
	size_t i, tau, len;

	memcpy(d->pv, d->c, d->n * sizeof(*d->pv));
	memcpy(d->pr, d->rank, d->n * sizeof(*d->pr));
	for (r = 0; r < o->permutations; r++) {
		best = -INFINITY;
		for (i = 0; i < d->nseg; i++) {
			len = d->seg[i].b - d->seg[i].a;
			if (len < 2 * o->min_size)
				continue;
			shuffle(&d->rng, d->pv + d->seg[i].a, d->pr + d->seg[i].a, len);
			q = best_split(&d->w, d->pv + d->seg[i].a, d->pr + d->seg[i].a,
			    d->dist + d->seg[i].a, len, o->min_size, &tau);
			d->shuffles++;
			if (q > best)
				best = q;
		}
		if (best >= qobs - slack && ++count > allowed)
			return (1.0 + count) / (o->permutations + 1.0);
	}
	return (1.0 + count) / (o->permutations + 1.0);
}

static int
check_opts(const struct changepoint_opts *o, unsigned *allowed, char **err)
{
	double a;

	if (o->min_size < 1)
		return err_set(err, -1, "change points: min_size must be at least 1");
	if (o->permutations < 1)
		return err_set(err, -1, "change points: at least one permutation is needed");
	if (!(o->p_max > 0 && o->p_max <= 1))
		return err_set(err, -1, "change points: p_max %g is outside (0, 1]", o->p_max);
	if (!(o->threshold >= 0 && isfinite(o->threshold)))
		return err_set(err, -1, "change points: threshold %g is not a percentage",
		    o->threshold);
	/* Significant: (1 + count) / (R + 1) <= p_max. */
	a = floor(o->p_max * (o->permutations + 1.0) + 1e-9) - 1;
	if (a < 0)
		return err_set(err, -1,
		    "change points: p_max %g is below 1/%u, the smallest p that %u "
		    "permutations can give", o->p_max, o->permutations + 1, o->permutations);
	*allowed = (unsigned)a;
	return 0;
}

/*
 * The change of the mean from x[a..i) to x[i..b), judged by the one
 * verdict rule (verdict.h) with the nights as the samples.  Returns how
 * well the nights bear it out against the threshold: INFINITY when they
 * do (significant); below 0 when the change is not significant at all
 * (-p); else the far end of its interval (below the threshold).  A side
 * of one night has no test: the change itself is returned.
 */
static double
fill_change(const double *x, size_t a, size_t i, size_t b, double threshold,
    struct changepoint *cp)
{
	struct verdict v;

	verdict_judge(x + i, b - i, x + a, i - a, 0, 0, threshold, &v);
	cp->index = i;
	cp->before = v.good;
	cp->after = v.now;
	cp->pct = v.change;
	cp->lo = v.lo;
	cp->hi = v.hi;
	if (!v.tested)
		return fabs(v.change);
	if (verdict_significant(v.kind))
		return INFINITY;
	if (!(v.p < VERDICT_ALPHA))
		return -v.p;
	return isnan(v.lo) ? fabs(v.change) : fmax(fabs(v.lo), fabs(v.hi));
}

/*
 * The change points found, as boundaries bnd[0..k) (with their p and
 * q-hat), into out: while some change is not shown, or cannot reach the
 * threshold, the weakest is removed and its neighbours computed again.
 */
static void
finish(const double *x, size_t n, double threshold, size_t *bnd, double *p, double *q,
    size_t k, struct changepoint_result *out)
{
	struct changepoint cp;
	size_t i, weakest;
	double least, reach;

	for (;;) {
		weakest = k;
		least = INFINITY;
		for (i = 0; i < k; i++) {
			reach = fill_change(x, i ? bnd[i - 1] : 0, bnd[i],
			    i + 1 < k ? bnd[i + 1] : n, threshold, &cp);
			if ((reach < 0 || reach < threshold) && reach < least) {
				least = reach;
				weakest = i;
			}
		}
		if (weakest == k)
			break;
		memmove(bnd + weakest, bnd + weakest + 1, (k - weakest - 1) * sizeof(*bnd));
		memmove(p + weakest, p + weakest + 1, (k - weakest - 1) * sizeof(*p));
		memmove(q + weakest, q + weakest + 1, (k - weakest - 1) * sizeof(*q));
		k--;
		out->dropped++;
	}
	out->v = xreallocarray(NULL, k ? k : 1, sizeof(*out->v));
	out->n = k;
	for (i = 0; i < k; i++) {
		fill_change(x, i ? bnd[i - 1] : 0, bnd[i], i + 1 < k ? bnd[i + 1] : n, threshold,
		    &out->v[i]);
		out->v[i].p = p[i];
		out->v[i].qhat = q[i];
	}
}

int
changepoint_detect(const double *x, size_t n, const struct changepoint_opts *o,
    struct changepoint_result *out, char **err)
{
	struct detect d;
	struct seg *s;
	size_t i, best, k, *bnd;
	unsigned allowed = 0;
	double mean, pval, *bp, *bq;

	memset(out, 0, sizeof(*out));
	if (check_opts(o, &allowed, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return err_set(err, -1,
			    "change points: night %zu has no finite value (%g)", i, x[i]);
	}
	if (n > UINT32_MAX)
		return err_set(err, -1, "change points: %zu nights are too many", n);
	if (n < 2 || o->min_size > n / 2)
		return 0;

	memset(&d, 0, sizeof(d));
	d.o = o;
	d.n = n;
	rng_seed(&d.rng, o->seed);
	d.c = xreallocarray(NULL, n, sizeof(*d.c));
	d.rank = xreallocarray(NULL, n, sizeof(*d.rank));
	d.dist = xreallocarray(NULL, n, sizeof(*d.dist));
	d.pv = xreallocarray(NULL, n, sizeof(*d.pv));
	d.pr = xreallocarray(NULL, n, sizeof(*d.pr));
	/* At most n / min_size segments. */
	d.seg = xreallocarray(NULL, n / o->min_size + 1, sizeof(*d.seg));
	d.found_p = xreallocarray(NULL, n / o->min_size + 1, sizeof(*d.found_p));
	d.found_q = xreallocarray(NULL, n / o->min_size + 1, sizeof(*d.found_q));
	work_init(&d.w, n);
	mean = stats_mean(x, n);
	for (i = 0; i < n; i++)
		d.c[i] = x[i] - mean;
	d.seg[0].a = 0;
	d.seg[0].b = n;
	d.nseg = 1;
	propose(&d, &d.seg[0]);

	for (;;) {
		best = d.nseg;
		for (i = 0; i < d.nseg; i++) {
			if (d.seg[i].q > -INFINITY && (best == d.nseg || d.seg[i].q > d.seg[best].q))
				best = i;
		}
		if (best == d.nseg)
			break;
		pval = permutation_p(&d, d.seg[best].q, allowed);
		if (!(pval <= o->p_max))
			break;
		/* Split seg[best] at its tau: [a, tau) stays at best, [tau, b) follows. */
		memmove(d.seg + best + 2, d.seg + best + 1, (d.nseg - best - 1) * sizeof(*d.seg));
		memmove(d.found_p + best + 2, d.found_p + best + 1,
		    (d.nseg - best - 1) * sizeof(*d.found_p));
		memmove(d.found_q + best + 2, d.found_q + best + 1,
		    (d.nseg - best - 1) * sizeof(*d.found_q));
		s = &d.seg[best];
		s[1].a = s->tau;
		s[1].b = s->b;
		s->b = s->tau;
		d.found_p[best + 1] = pval;
		d.found_q[best + 1] = s->q;
		d.nseg++;
		propose(&d, &s[0]);
		propose(&d, &s[1]);
	}

	k = d.nseg - 1;
	bnd = xreallocarray(NULL, k ? k : 1, sizeof(*bnd));
	bp = xreallocarray(NULL, k ? k : 1, sizeof(*bp));
	bq = xreallocarray(NULL, k ? k : 1, sizeof(*bq));
	for (i = 0; i < k; i++) {
		bnd[i] = d.seg[i + 1].a;
		bp[i] = d.found_p[i + 1];
		bq[i] = d.found_q[i + 1];
	}
	finish(x, n, o->threshold, bnd, bp, bq, k, out);
	out->shuffles = d.shuffles;
	free(bnd);
	free(bp);
	free(bq);
	work_release(&d.w);
	free(d.c);
	free(d.rank);
	free(d.dist);
	free(d.pv);
	free(d.pr);
	free(d.seg);
	free(d.found_p);
	free(d.found_q);
	return 0;
}

void
changepoint_opts_init(struct changepoint_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_size = CHANGEPOINT_MIN_SIZE;
	o->permutations = CHANGEPOINT_PERMUTATIONS;
	o->p_max = CHANGEPOINT_P_MAX;
	o->threshold = 0;
	o->seed = 0;
}

void
changepoint_result_release(struct changepoint_result *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void
changepoint_current(const double *x, const double *spread, size_t n,
    const struct changepoint_result *cps, size_t max_nights,
    struct changepoint_segment *out)
{
	double ss = 0;
	size_t i, k = 0;

	memset(out, 0, sizeof(*out));
	out->change = CHANGEPOINT_NONE;
	if (cps && cps->n > 0 && cps->v[cps->n - 1].index < n) {
		out->start = cps->v[cps->n - 1].index;
		out->change = cps->n - 1;
	}
	if (max_nights > 0 && n - out->start > max_nights) {
		out->start = n - max_nights;
		out->change = CHANGEPOINT_NONE;
	}
	out->n = n - out->start;
	out->mean = out->sd = out->within = NAN;
	if (n == 0)
		return;
	out->mean = stats_mean(x + out->start, out->n);
	out->sd = stats_sd(x + out->start, out->n);
	if (spread) {
		for (i = out->start; i < n; i++) {
			if (isfinite(spread[i])) {
				ss += spread[i] * spread[i];
				k++;
			}
		}
		if (k)
			out->within = sqrt(ss / (double)k);
	}
}

double
changepoint_qhat(const double *x, size_t n, size_t tau)
{
	double cross = 0, wx = 0, wy = 0;
	size_t i, j;

	if (tau == 0 || tau >= n)
		return NAN;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			double d = fabs(x[i] - x[j]);

			if (j < tau)
				wx += d;
			else if (i >= tau)
				wy += d;
			else
				cross += d;
		}
	}
	return qhat_of(wx, wy, cross, tau, n - tau);
}

void
changepoint_qhat_all(const double *x, size_t n, double *q)
{
	struct work w;
	size_t *rank, i;
	double *c, *dist, mean;

	if (n == 0)
		return;
	q[0] = NAN;
	if (n < 2)
		return;
	work_init(&w, n);
	rank = xreallocarray(NULL, n, sizeof(*rank));
	c = xreallocarray(NULL, n, sizeof(*c));
	dist = xreallocarray(NULL, n, sizeof(*dist));
	mean = stats_mean(x, n);
	for (i = 0; i < n; i++)
		c[i] = x[i] - mean;
	rank_of(c, n, rank);
	rank_distances(c, rank, n, dist);
	score_splits(&w, c, rank, dist, n);
	for (i = 1; i < n; i++)
		q[i] = w.q[i];
	free(c);
	free(dist);
	free(rank);
	work_release(&w);
}
