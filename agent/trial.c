/*
 * trial.c: a trial's parameters and the lines a benchmark reports through.
 *
 * trial_init() turns the key=value pairs of a request into the resolved,
 * checked parameter set of one benchmark; the trial_*() functions of
 * bench.h write header, metric, note and error lines on the trial's output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "jline.h"
#include "timing.h"

static int
parse_int(const char *s, long long *out)
{
	char *end;
	long long v, mul = 1;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno != 0)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1024; end++; break;
	case 'm': case 'M': mul = 1024 * 1024; end++; break;
	case 'g': case 'G': mul = 1024LL * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end != '\0')
		return -1;
	if (v > 0 && v > (1LL << 62) / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int
in_choices(const char *choices, const char *v)
{
	size_t n = strlen(v);
	const char *p = choices;

	while (p != NULL && *p) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);

		if (l == n && strncmp(p, v, n) == 0)
			return 1;
		p = bar ? bar + 1 : NULL;
	}
	return 0;
}

int
param_range(const struct bench_param *d, struct param_range *r)
{
	const char *dots;
	char buf[32];
	size_t n;

	memset(r, 0, sizeof(*r));
	if ((d->type != PARAM_INT && d->type != PARAM_CPUS) || d->choices == NULL)
		return 0;
	if ((dots = strstr(d->choices, "..")) == NULL)
		return -1;
	n = (size_t)(dots - d->choices);
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, d->choices, n);
	buf[n] = '\0';
	if (n > 0) {
		if (parse_int(buf, &r->min) != 0)
			return -1;
		r->has_min = 1;
	}
	if (dots[2] != '\0') {
		if (parse_int(dots + 2, &r->max) != 0)
			return -1;
		r->has_max = 1;
	}
	return 0;
}

/* "2 to 1024", "at least 1M", "at most 64", from the range as written. */
void
param_range_text(const struct bench_param *d, char *buf, size_t size)
{
	const char *dots = d->choices ? strstr(d->choices, "..") : NULL;
	int lo, hi;

	if (dots == NULL) {
		snprintf(buf, size, "any");
		return;
	}
	lo = dots > d->choices;
	hi = dots[2] != '\0';
	if (lo && hi)
		snprintf(buf, size, "%.*s to %s", (int)(dots - d->choices), d->choices, dots + 2);
	else if (lo)
		snprintf(buf, size, "at least %.*s", (int)(dots - d->choices), d->choices);
	else
		snprintf(buf, size, "at most %s", hi ? dots + 2 : "any");
}

static int
check_range(const struct param_value *pv, const char *given, char *err, size_t errlen)
{
	struct param_range r;
	char text[96];

	if (param_range(pv->def, &r) != 0) {
		snprintf(err, errlen, "parameter %s: bad range '%s' in the catalogue",
		    pv->def->name, pv->def->choices);
		return -1;
	}
	if ((r.has_min && pv->num < r.min) || (r.has_max && pv->num > r.max)) {
		param_range_text(pv->def, text, sizeof(text));
		if (strcmp(given, pv->str) != 0)
			snprintf(err, errlen, "parameter %s: %s (%lld here) is out of range (%s)",
			    pv->def->name, given, pv->num, text);
		else
			snprintf(err, errlen, "parameter %s: %s is out of range (%s)",
			    pv->def->name, given, text);
		return -1;
	}
	return 0;
}

/* The benchmark's limits on products of parameters (struct bench_limit). */
static int
check_limits(const struct trial *t, char *err, size_t errlen)
{
	const struct bench_limit *l;
	const struct param_value *a, *b;
	int i;

	for (l = t->bench->limits; l != NULL && l->a != NULL; l++) {
		long long x, y;

		a = b = NULL;
		for (i = 0; i < t->nparams; i++) {
			if (strcmp(t->params[i].def->name, l->a) == 0)
				a = &t->params[i];
			if (strcmp(t->params[i].def->name, l->b) == 0)
				b = &t->params[i];
		}
		if (a == NULL || b == NULL)
			continue;
		x = a->num > 1 ? a->num : 1;
		y = b->num > 1 ? b->num : 1;
		if (x > l->max / y) {
			snprintf(err, errlen, "%s x %s is %lld x %lld, more than %lld", l->a, l->b,
			    x, y, l->max);
			return -1;
		}
	}
	return 0;
}

static int
resolve(struct param_value *pv, const char *given, char *err, size_t errlen)
{
	const struct bench_param *d = pv->def;
	char buf[32];
	size_t n = strlen(given);

	switch (d->type) {
	case PARAM_CPUS:
		if (n > 1 && given[n - 1] == '%') {
			char pct[32];
			long long p;

			if (n >= sizeof(pct))
				goto bad;
			memcpy(pct, given, n - 1);
			pct[n - 1] = '\0';
			if (parse_int(pct, &p) != 0 || p <= 0 || p > 100000)
				goto bad;
			pv->num = ((long long)ncpus() * p + 50) / 100;
			if (pv->num < 1)
				pv->num = 1;
			snprintf(buf, sizeof(buf), "%lld", pv->num);
			if ((pv->str = strdup(buf)) == NULL)
				return -1;
			return check_range(pv, given, err, errlen);
		}
		/* FALLTHROUGH */
	case PARAM_INT:
		if (parse_int(given, &pv->num) != 0)
			goto bad;
		break;
	case PARAM_ENUM:
		if (!in_choices(d->choices, given)) {
			snprintf(err, errlen, "parameter %s: '%s' is not one of %s",
			    d->name, given, d->choices);
			return -1;
		}
		break;
	case PARAM_STR:
		break;
	}
	if (strlen(given) != n || (pv->str = strdup(given)) == NULL)
		return -1;
	if (d->type == PARAM_INT || d->type == PARAM_CPUS)
		return check_range(pv, given, err, errlen);
	return 0;
bad:
	snprintf(err, errlen, "parameter %s: '%s' is not %s", d->name, given,
	    d->type == PARAM_CPUS ? "an integer or N%" : "an integer");
	return -1;
}

int
trial_init(struct trial *t, const struct bench *b, const char *id, int nkv,
    char *const *keys, char *const *vals, int samples, double deadline_s,
    char *err, size_t errlen)
{
	const struct bench_param *d;
	int i, k, best, dist;

	memset(t, 0, sizeof(*t));
	t->bench = b;
	t->out_fd = 1;
	t->samples = samples;
	if (samples < 1 || samples > AGENT_MAX_SAMPLES) {
		snprintf(err, errlen, "samples must be 1 to %d", AGENT_MAX_SAMPLES);
		return -1;
	}
	if (!(deadline_s > 0)) {
		snprintf(err, errlen, "deadline must be positive");
		return -1;
	}
	t->deadline = timing_now() + deadline_s * 1e9;
	if (id != NULL && (t->id = strdup(id)) == NULL)
		goto nomem;
	/* every given key must be declared */
	for (k = 0; k < nkv; k++) {
		best = -1;
		for (i = 0; b->params && b->params[i].name; i++) {
			if (strcmp(b->params[i].name, keys[k]) == 0)
				break;
			dist = edit_distance(b->params[i].name, keys[k]);
			if (dist <= 2 && (best < 0 || dist < edit_distance(b->params[best].name, keys[k])))
				best = i;
		}
		if (b->params == NULL || b->params[i].name == NULL) {
			if (best >= 0)
				snprintf(err, errlen, "%s has no parameter '%s' (did you mean '%s'?)",
				    b->name, keys[k], b->params[best].name);
			else
				snprintf(err, errlen, "%s has no parameter '%s'", b->name, keys[k]);
			goto fail;
		}
		for (i = 0; i < k; i++)
			if (strcmp(keys[i], keys[k]) == 0) {
				snprintf(err, errlen, "parameter %s given twice", keys[k]);
				goto fail;
			}
	}
	for (i = 0; b->params && (d = &b->params[i])->name; i++) {
		const char *given = d->def;

		if (t->nparams >= WIRE_MAX_PARAMS) {
			snprintf(err, errlen, "too many parameters");
			goto fail;
		}
		for (k = 0; k < nkv; k++)
			if (strcmp(keys[k], d->name) == 0)
				given = vals[k];
		t->params[t->nparams].def = d;
		if (resolve(&t->params[t->nparams], given, err, errlen) != 0) {
			if (err[0] == '\0')
				goto nomem;
			t->nparams++;
			goto fail;
		}
		t->nparams++;
	}
	if (check_limits(t, err, errlen) != 0)
		goto fail;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	trial_release(t);
	return -1;
}

void
trial_release(struct trial *t)
{
	int i;

	for (i = 0; i < t->nparams; i++)
		free(t->params[i].str);
	t->nparams = 0;
	own_program_free(t->program);
	t->program = NULL;
	free(t->id);
	t->id = NULL;
}

static const struct param_value *
find(const struct trial *t, const char *name)
{
	int i;

	for (i = 0; i < t->nparams; i++)
		if (strcmp(t->params[i].def->name, name) == 0)
			return &t->params[i];
	/* a benchmark asking for an undeclared parameter is a bug */
	fprintf(stderr, "fleetmark-agent: %s: no parameter '%s'\n", t->bench->name, name);
	abort();
}

long long
trial_int(const struct trial *t, const char *name)
{
	return find(t, name)->num;
}

const char *
trial_str(const struct trial *t, const char *name)
{
	return find(t, name)->str;
}

int
trial_samples(const struct trial *t)
{
	return t->samples;
}

const char *
trial_tmpdir(const struct trial *t)
{
	return t->tmpdir ? t->tmpdir : ".";
}

int
trial_expired(const struct trial *t)
{
	return timing_now() >= t->deadline;
}

double
trial_remaining(const struct trial *t)
{
	return (t->deadline - timing_now()) / 1e9;
}

static void
put_params(struct jline *j, const struct trial *t)
{
	int i;

	jl_obj(j, "params");
	for (i = 0; i < t->nparams; i++) {
		const struct param_value *pv = &t->params[i];

		if (pv->def->type == PARAM_INT || pv->def->type == PARAM_CPUS)
			jl_int(j, pv->def->name, pv->num);
		else
			jl_str(j, pv->def->name, pv->str);
	}
	jl_close(j);
}

void
trial_header(struct trial *t)
{
	struct jline j;
	struct timeval tv;

	gettimeofday(&tv, NULL);
	jl_begin(&j, WIRE_HEADER, t->id);
	jl_str(&j, "bench", t->bench->name);
	put_params(&j, t);
	jl_int(&j, "samples", t->samples);
	jl_int(&j, "pid", (long long)getpid());
	jl_num(&j, "time", (double)tv.tv_sec + tv.tv_usec / 1e6);
	jl_emit(&j, t->out_fd);
}

void
trial_metric(struct trial *t, const char *metric, const double *v, int n,
    uint64_t iters)
{
	const struct bench_metric *m;
	struct jline j;
	double *s;
	int i;

	for (m = t->bench->metrics; m && m->name; m++)
		if (strcmp(m->name, metric) == 0)
			break;
	if (m == NULL || m->name == NULL) {
		fprintf(stderr, "fleetmark-agent: %s: undeclared metric '%s'\n",
		    t->bench->name, metric);
		abort();
	}
	if (n <= 0)
		return;
	if (n > WIRE_MAX_SAMPLES)
		n = WIRE_MAX_SAMPLES;
	if ((s = malloc(sizeof(*s) * (size_t)n)) == NULL)
		return;
	memcpy(s, v, sizeof(*s) * (size_t)n);
	samples_sort(s, n);
	/* a median of 0: a subtraction took all (lmbench prints a blank) */
	if (((n % 2) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) == 0 && !m->higher_better) {
		for (i = 0; i < n && s[i] == 0; i++)
			;
		trial_note(t, "the overhead is larger than the operation: subtraction leaves "
		    "nothing (%s: %d of %d samples 0)", m->name, i, n);
	}

	jl_begin(&j, WIRE_METRIC, t->id);
	jl_str(&j, "bench", t->bench->name);
	jl_str(&j, "name", m->name);
	jl_str(&j, "unit", m->unit);
	jl_str(&j, "direction", m->higher_better ? WIRE_HIGHER_BETTER : WIRE_LOWER_BETTER);
	jl_num(&j, "value", (n % 2) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2);
	jl_num(&j, "min", s[0]);
	jl_num(&j, "max", s[n - 1]);
	jl_int(&j, "count", n);
	if (iters > 0) {
		jl_int(&j, "iterations", (long long)iters);
		trial_ops(t, (unsigned long long)iters * (unsigned long long)n);
	}
	jl_arr(&j, "samples");
	for (i = 0; i < n; i++)
		jl_num(&j, NULL, v[i]);
	jl_close(&j);
	jl_emit(&j, t->out_fd);
	free(s);
}

void
trial_emit_error(int fd, const char *id, const char *class, const char *message)
{
	struct jline j;

	jl_begin(&j, WIRE_ERROR, id);
	jl_str(&j, "class", class);
	jl_str(&j, "message", message);
	jl_emit(&j, fd);
}

void
trial_note(struct trial *t, const char *fmt, ...)
{
	struct jline j;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jl_begin(&j, WIRE_NOTE, t->id);
	jl_str(&j, "bench", t->bench->name);
	jl_str(&j, "text", msg);
	jl_emit(&j, t->out_fd);
}

/* Class of the last error this process reported, for its exit code. */
static const char *last_class;

/* The error classes a trial process's exit code carries, and back. */
static const struct exit_class {
	int		 code;
	const char	*class;
} exit_classes[] = {
	{ WIRE_EXIT_FAILED, WIRE_ERR_BENCH },
	{ WIRE_EXIT_UNSUPPORTED, WIRE_ERR_UNSUPPORTED },
	{ WIRE_EXIT_TIMEOUT, WIRE_ERR_TIMEOUT },
	{ WIRE_EXIT_BAD_OUTPUT, WIRE_ERR_BAD_OUTPUT },
	{ WIRE_EXIT_USAGE, WIRE_ERR_REQUEST },
};
#define NEXIT_CLASSES	(sizeof(exit_classes) / sizeof(exit_classes[0]))

int
trial_exit_code(int rc)
{
	size_t i;

	if (rc == 0)
		return WIRE_EXIT_OK;
	for (i = 0; last_class != NULL && i < NEXIT_CLASSES; i++)
		if (strcmp(last_class, exit_classes[i].class) == 0)
			return exit_classes[i].code;
	return WIRE_EXIT_FAILED;
}

const char *
trial_exit_class(int code)
{
	size_t i;

	if (code == WIRE_EXIT_OK)
		return WIRE_STATUS_OK;
	for (i = 0; i < NEXIT_CLASSES; i++)
		if (exit_classes[i].code == code)
			return exit_classes[i].class;
	return NULL;
}

int
trial_error(struct trial *t, const char *class, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	last_class = class;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	trial_emit_error(t->out_fd, t->id, class, msg);
	return -1;
}

/* Split "k=v k=v" into keys and values (modifies buf). */
static int
split_params(char *buf, char **keys, char **vals, int max)
{
	int n = 0;
	char *tok, *save = NULL, *eq;

	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n >= max || (eq = strchr(tok, '=')) == NULL)
			return -1;
		*eq = '\0';
		keys[n] = tok;
		vals[n++] = eq + 1;
	}
	return n;
}

/* A benchmark's run, with the monitors asked for around it. */
static int
run_monitored(struct trial *t)
{
	int rc;

	monitor_open(t);
	rc = t->bench->run(t);
	monitor_close(t, rc);
	return rc;
}

/* Run one member of a suite in its own child; 0 when it reported metrics. */
static int
run_member(struct trial *suite, const struct suite_member *m)
{
	const struct bench *b = bench_find(m->bench);
	char buf[256], err[256], *keys[WIRE_MAX_PARAMS], *vals[WIRE_MAX_PARAMS];
	struct trial t;
	int n, status;
	pid_t pid;

	snprintf(buf, sizeof(buf), "%s", m->params ? m->params : "");
	if (b == NULL || (n = split_params(buf, keys, vals, WIRE_MAX_PARAMS)) < 0) {
		trial_error(suite, WIRE_ERR_BENCH, "suite member %s %s is malformed",
		    m->bench, m->params ? m->params : "");
		return -1;
	}
	if (trial_init(&t, b, suite->id, n, keys, vals, suite->samples,
	    trial_remaining(suite), err, sizeof(err)) != 0) {
		trial_error(suite, WIRE_ERR_BENCH, "suite member %s: %s", m->bench, err);
		return -1;
	}
	t.tmpdir = suite->tmpdir;
	t.out_fd = suite->out_fd;
	t.deadline = suite->deadline;
	t.monitors = suite->monitors;
	trial_header(&t);
	if ((pid = fork()) < 0) {
		trial_error(&t, WIRE_ERR_BENCH, "fork: %s", strerror(errno));
		trial_release(&t);
		return -1;
	}
	if (pid == 0)
		_exit(trial_exit_code(run_monitored(&t)));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		trial_error(&t, WIRE_ERR_CRASH, "%s died of signal %d",
		    t.bench->name, WTERMSIG(status));
	trial_release(&t);
	return (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : -1;
}


int
trial_run(struct trial *t)
{
	const struct suite_member *m;
	int ok = 0;

	if (t->bench->suite == NULL) {
		trial_header(t);
		return run_monitored(t);
	}
	for (m = t->bench->suite; m->bench; m++) {
		if (trial_expired(t))
			return trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached in suite %s",
			    t->bench->name);
		if (run_member(t, m) == 0)
			ok++;
	}
	return ok > 0 ? 0 : trial_error(t, WIRE_ERR_BENCH, "no member of %s succeeded",
	    t->bench->name);
}
