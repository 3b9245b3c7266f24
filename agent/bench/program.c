/*
 * program: a benchmark of the user's own, a program deployed next to the
 * agent (or one already on the host), run under the agent's supervision
 * and its output parsed into metrics (protocol 4, docs/own-benchmarks.md).
 *
 * The trial request carries a "program" member: the program's name (used
 * in tables), its path, its argv templates with {param} substituted here
 * (each template is one argv element: nothing goes through a shell), and
 * parse rules: POSIX extended regular expressions, each with metrics
 * filled from numbered groups (the controller translated the plan's named
 * groups).  The parameters are those the plan gave; a value `N%` becomes
 * N percent of the online CPUs, as for the built-in benchmarks.
 *
 * One trial runs the program once, in the trial's scratch directory and
 * process group, stdin on /dev/null, with a deadline a little before the
 * trial's so that its own error (with the stderr tail) is reported.  Its
 * stdout is read as it comes: the first PROGRAM_KEEP bytes are kept, the
 * rest is drained and counted (so a chatty program never blocks or fills
 * memory).  Every match of a rule in a line of the kept output is one
 * sample of each of that rule's metrics (value x scale).
 *
 * Failures: exec or a non-zero exit or a signal is a `bench` error with
 * the stderr tail; no match at all, a group that is not a number, or more
 * output than is kept is `bad-output` with the first lines printed; the
 * deadline is `timeout`.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "ipc.h"
#include "jparse.h"
#include "timing.h"
#include "wire.h"

#define PROGRAM_KEEP		(1024 * 1024)	/* bytes of stdout kept and parsed */
#define PROGRAM_ERR_TAIL	400		/* bytes of stderr kept (the last ones) */
#define PROGRAM_MAX_ARGS	128
#define PROGRAM_MAX_RULES	16
#define PROGRAM_MAX_METRICS	32		/* over all rules */
#define PROGRAM_MAX_GROUPS	32		/* groups of one rule */
#define PROGRAM_FIRST_LINES	5		/* lines quoted for bad output */
#define PROGRAM_LINE_QUOTE	120		/* bytes of each quoted line */
#define PROGRAM_EXIT_GRACE	0.2		/* seconds to drain after the exit */

struct prog_rule {
	regex_t		 re;
	int		 compiled;
	int		 nm;
	int		 metric[PROGRAM_MAX_METRICS];	/* index into prog->metrics */
	int		 group[PROGRAM_MAX_METRICS];	/* its group, 1.. */
	double		 scale[PROGRAM_MAX_METRICS];
};

struct program {
	struct bench		 bench;		/* name, params, metrics, run */
	struct bench_param	 params[WIRE_MAX_PARAMS + 1];
	struct bench_metric	 metrics[PROGRAM_MAX_METRICS + 1];
	int			 nmetrics;
	char			*path;
	char			*args[PROGRAM_MAX_ARGS];
	int			 nargs;
	struct prog_rule	 rules[PROGRAM_MAX_RULES];
	int			 nrules;
	/* strings the tables above point to */
	char			*strs[WIRE_MAX_PARAMS + 3 * PROGRAM_MAX_METRICS + 2];
	int			 nstrs;
};

static const char *
keep(struct program *p, const char *s)
{
	char *c;

	if ((c = strdup(s)) == NULL || p->nstrs >= (int)(sizeof(p->strs) / sizeof(p->strs[0]))) {
		free(c);
		return NULL;
	}
	p->strs[p->nstrs++] = c;
	return c;
}

void
own_program_free(struct program *p)
{
	int i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nrules; i++)
		if (p->rules[i].compiled)
			regfree(&p->rules[i].re);
	for (i = 0; i < p->nargs; i++)
		free(p->args[i]);
	for (i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	free(p->path);
	free(p);
}

/* A name of letters, digits, '-', '_', '.' (what the plan allows). */
static int
valid_name(const char *s, size_t max)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("-_.", s[i])))
			return 0;
	return 1;
}

static int
is_cpus(const char *v)
{
	size_t n = strlen(v), i;

	if (n < 2 || v[n - 1] != '%')
		return 0;
	for (i = 0; i + 1 < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return 0;
	return 1;
}

static int
is_decimal(const char *v)
{
	size_t i = v[0] == '-' ? 1 : 0;

	if (v[i] == '\0' || strlen(v) > 18)
		return 0;
	for (; v[i]; i++)
		if (v[i] < '0' || v[i] > '9')
			return 0;
	return 1;
}

static int
find_metric(const struct program *p, const char *name)
{
	int i;

	for (i = 0; i < p->nmetrics; i++)
		if (strcmp(p->metrics[i].name, name) == 0)
			return i;
	return -1;
}

static int program_run(struct trial *t);

#define RE_STACKED	((unsigned long)-1)	/* re_nodes(): a quantifier on a quantifier */

/*
 * An upper bound of the nodes regcomp() builds for the ERE: it copies a
 * repeated atom once for `+` and up to n times for {m,n}, so repetitions
 * of repetitions grow as a product ("a++++...", "((a{99}){99}){99}") and
 * a rule of a few hundred bytes could take the host's memory.  Brackets,
 * escapes and every other character count one; a group what is inside it.
 * A quantifier right after another is RE_STACKED: the controller never
 * writes one, and a hundred of them took regcomp() seconds.  The syntax
 * itself is regcomp()'s to judge.
 */
static unsigned long
re_nodes(const char *re)
{
	unsigned long total[PROGRAM_MAX_GROUPS + 2], last[PROGRAM_MAX_GROUPS + 2], m, n;
	int depth = 0, quant = 0;
	const char *q;
	char *e;

	total[0] = last[0] = 0;
	while (*re != '\0') {
		/* the controller never sends one; regcomp() nests them deeply */
		if (quant && (*re == '*' || *re == '?' || *re == '+' || *re == '{'))
			return RE_STACKED;
		quant = *re == '*' || *re == '?' || *re == '+' || *re == '{';
		switch (*re) {
		case '*':
		case '?':
			last[depth] = wire_re_add(last[depth], 1);
			re++;
			continue;
		case '+':
			last[depth] = wire_re_add(wire_re_mul(last[depth], 2), 1);
			re++;
			continue;
		case '{':
			m = strtoul(re + 1, &e, 10);
			n = *e == ',' && e[1] != '}' ? strtoul(e + 1, &e, 10) : m + 1;
			last[depth] = wire_re_add(wire_re_mul(last[depth], (n > m ? n : m) + 1), 1);
			q = strchr(re, '}');
			re = q != NULL ? q + 1 : re + 1;
			continue;
		case '(':
			if (depth == PROGRAM_MAX_GROUPS)	/* regcomp() counts them too */
				return WIRE_MAX_RE_NODES + 1;
			total[depth] = wire_re_add(total[depth], last[depth]);
			last[depth] = 0;
			depth++;
			total[depth] = last[depth] = 0;
			re++;
			continue;
		case ')':
			if (depth == 0)
				break;
			m = wire_re_add(wire_re_add(total[depth], last[depth]), 1);
			depth--;
			last[depth] = m;
			re++;
			continue;
		case '[':
			q = re + 1;
			if (*q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q != '\0' && *q != ']') {
				if (*q == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.') &&
				    (e = strchr(q + 2, q[1])) != NULL && e[1] == ']')
					q = e + 2;
				else
					q++;
			}
			re = *q == ']' ? q + 1 : q;
			total[depth] = wire_re_add(total[depth], last[depth]);
			last[depth] = 1;
			continue;
		case '\\':
			if (re[1] != '\0')
				re++;
			break;
		}
		total[depth] = wire_re_add(total[depth], last[depth]);
		last[depth] = 1;
		re++;
	}
	while (depth > 0) {
		m = wire_re_add(total[depth], last[depth]);
		depth--;
		last[depth] = wire_re_add(last[depth], m);
	}
	return wire_re_add(total[0], last[0]);
}

static int
load_rule(struct program *p, const struct jv *r, int ri, char *err, size_t errlen)
{
	const struct jv *ms = jv_get(r, "metrics"), *v;
	const char *match = jv_get_str(r, "match"), *name, *unit, *dir;
	struct prog_rule *rule = &p->rules[ri];
	char buf[256];
	int i, rc, mi;

	if (match == NULL || strlen(match) == 0) {
		snprintf(err, errlen, "program rule %d: match must be a non-empty string", ri + 1);
		return -1;
	}
	if (re_nodes(match) == RE_STACKED) {
		snprintf(err, errlen, "program rule %d: a quantifier after a quantifier "
		    "(a??, a+*, a{2}{3})", ri + 1);
		return -1;
	}
	if (re_nodes(match) > WIRE_MAX_RE_NODES) {
		snprintf(err, errlen, "program rule %d: its repetitions make a pattern of "
		    "more than %d parts", ri + 1, WIRE_MAX_RE_NODES);
		return -1;
	}
	if ((rc = regcomp(&rule->re, match, REG_EXTENDED)) != 0) {
		regerror(rc, &rule->re, buf, sizeof(buf));
		snprintf(err, errlen, "program rule %d: %s", ri + 1, buf);
		return -1;
	}
	rule->compiled = 1;
	if (rule->re.re_nsub > PROGRAM_MAX_GROUPS) {
		snprintf(err, errlen, "program rule %d: more than %d groups", ri + 1,
		    PROGRAM_MAX_GROUPS);
		return -1;
	}
	if (ms == NULL || ms->type != JV_ARR || ms->len == 0 || ms->len > PROGRAM_MAX_METRICS) {
		snprintf(err, errlen, "program rule %d: metrics must be a list of 1 to %d",
		    ri + 1, PROGRAM_MAX_METRICS);
		return -1;
	}
	for (i = 0; i < (int)ms->len; i++) {
		const struct jv *m = ms->vals[i];

		name = jv_get_str(m, "name");
		unit = jv_get_str(m, "unit");
		dir = jv_get_str(m, "direction");
		if (name == NULL || !valid_name(name, 64) || unit == NULL || strlen(unit) > 32 ||
		    dir == NULL || (strcmp(dir, WIRE_LOWER_BETTER) != 0 &&
		    strcmp(dir, WIRE_HIGHER_BETTER) != 0)) {
			snprintf(err, errlen, "program rule %d metric %d: needs a name, a unit and "
			    "a direction (lower or higher)", ri + 1, i + 1);
			return -1;
		}
		v = jv_get(m, "group");
		if (v == NULL || v->type != JV_NUM || v->num < 1 ||
		    v->num > (double)rule->re.re_nsub || v->num != (double)(int)v->num) {
			snprintf(err, errlen, "program rule %d metric %s: group must be 1 to %zu",
			    ri + 1, name, (size_t)rule->re.re_nsub);
			return -1;
		}
		rule->group[i] = (int)v->num;
		rule->scale[i] = 1;
		if ((v = jv_get(m, "scale")) != NULL) {
			if (v->type != JV_NUM || !isfinite(v->num) || v->num == 0) {
				snprintf(err, errlen, "program rule %d metric %s: scale must be a "
				    "non-zero number", ri + 1, name);
				return -1;
			}
			rule->scale[i] = v->num;
		}
		if ((mi = find_metric(p, name)) < 0) {
			if (p->nmetrics >= PROGRAM_MAX_METRICS) {
				snprintf(err, errlen, "program: more than %d metrics",
				    PROGRAM_MAX_METRICS);
				return -1;
			}
			mi = p->nmetrics;
			p->metrics[mi].name = keep(p, name);
			p->metrics[mi].unit = keep(p, unit);
			p->metrics[mi].help = "";
			p->metrics[mi].higher_better = strcmp(dir, WIRE_HIGHER_BETTER) == 0;
			if (p->metrics[mi].name == NULL || p->metrics[mi].unit == NULL) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			p->nmetrics++;
		}
		rule->metric[i] = mi;
	}
	rule->nm = (int)ms->len;
	return 0;
}

int
own_program_from_request(const struct jv *req, struct program **out, char *err, size_t errlen)
{
	const struct jv *spec = jv_get(req, "program"), *params = jv_get(req, "params");
	const struct jv *args, *rules;
	const char *name, *path;
	struct program *p;
	int i;

	if (spec == NULL || spec->type != JV_OBJ) {
		snprintf(err, errlen, "a program trial needs a \"program\" object");
		return -1;
	}
	name = jv_get_str(spec, "name");
	path = jv_get_str(spec, "path");
	args = jv_get(spec, "args");
	rules = jv_get(spec, "rules");
	if (name == NULL || !valid_name(name, 64)) {
		snprintf(err, errlen, "program: name must be 1 to 64 letters, digits, '-', '_', '.'");
		return -1;
	}
	if (path == NULL || path[0] == '\0' || strlen(path) > 4096) {
		snprintf(err, errlen, "program %s: path must be a non-empty string", name);
		return -1;
	}
	if (args != NULL && (args->type != JV_ARR || args->len > PROGRAM_MAX_ARGS)) {
		snprintf(err, errlen, "program %s: args must be a list of at most %d strings",
		    name, PROGRAM_MAX_ARGS);
		return -1;
	}
	if (rules == NULL || rules->type != JV_ARR || rules->len == 0 ||
	    rules->len > PROGRAM_MAX_RULES) {
		snprintf(err, errlen, "program %s: rules must be a list of 1 to %d", name,
		    PROGRAM_MAX_RULES);
		return -1;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((p->path = strdup(path)) == NULL || (p->bench.name = keep(p, name)) == NULL)
		goto nomem;
	for (i = 0; args != NULL && i < (int)args->len; i++) {
		const struct jv *a = args->vals[i];

		if (a->type != JV_STR || strlen(a->str) != a->len) {
			snprintf(err, errlen, "program %s: argument %d is not a string", name, i + 1);
			goto fail;
		}
		if ((p->args[p->nargs++] = strdup(a->str)) == NULL)
			goto nomem;
	}
	for (i = 0; i < (int)rules->len; i++) {
		p->nrules = i + 1;
		if (load_rule(p, rules->vals[i], i, err, errlen) != 0)
			goto fail;
	}
	/* The parameters are the ones given: typed by their text. */
	for (i = 0; params != NULL && params->type == JV_OBJ && i < (int)params->len &&
	    i < WIRE_MAX_PARAMS; i++) {
		const struct jv *v = params->vals[i];
		const char *text = v->type == JV_STR ? v->str : "0";

		if ((p->params[i].name = keep(p, params->keys[i])) == NULL)
			goto nomem;
		p->params[i].type = v->type == JV_NUM ? PARAM_INT : is_cpus(text) ? PARAM_CPUS :
		    is_decimal(text) ? PARAM_INT : PARAM_STR;
		p->params[i].def = "";
		p->params[i].help = "";
	}
	p->bench.summary = "a program of the user's own";
	p->bench.from = "";
	p->bench.params = p->params;
	p->bench.metrics = p->metrics;
	p->bench.run = program_run;
	*out = p;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	own_program_free(p);
	return -1;
}

const struct bench *
own_program_bench(const struct program *p)
{
	return &p->bench;
}

/* --- running it ------------------------------------------------------------ */

/* Letters, digits and _, not starting with a digit: a {name} of a template. */
static int
is_ident(const char *s, size_t n)
{
	size_t i;

	if (s[0] >= '0' && s[0] <= '9')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* argv element from a template: {name} is the parameter's value. */
static char *
substitute(const struct trial *t, const char *tpl, char *err, size_t errlen)
{
	size_t cap = strlen(tpl) + 1, len = 0, n;
	const char *p = tpl, *close, *val;
	char *out = malloc(cap), *grown, name[65], sbuf[16];
	int i;

	if (out == NULL)
		return NULL;
	while (*p) {
		val = NULL;
		if (*p == '{' && (close = strchr(p + 1, '}')) != NULL &&
		    (size_t)(close - p - 1) < sizeof(name) && close > p + 1 &&
		    is_ident(p + 1, (size_t)(close - p - 1))) {
			memcpy(name, p + 1, (size_t)(close - p - 1));
			name[close - p - 1] = '\0';
			for (i = 0; i < t->nparams; i++)
				if (strcmp(t->params[i].def->name, name) == 0)
					val = t->params[i].str;
			if (val == NULL && strcmp(name, "samples") == 0) {
				snprintf(sbuf, sizeof(sbuf), "%d", t->samples);
				val = sbuf;
			}
			if (val == NULL) {
				snprintf(err, errlen, "argument '%.100s': no parameter '%s'", tpl, name);
				free(out);
				return NULL;
			}
			p = close + 1;
		}
		n = val ? strlen(val) : 1;
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			if ((grown = realloc(out, cap)) == NULL) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		if (val != NULL)
			memcpy(out + len, val, n);
		else
			out[len] = *p++;
		len += n;
	}
	out[len] = '\0';
	return out;
}

/* In the child: become the program, or exit 127 with why on stderr. */
static void
child_exec(const struct program *p, char **argv, int out_fd, int err_fd, pid_t trial_pid)
{
	ipc_die_with(trial_pid, 127);
	if (dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		_exit(127);
	if (out_fd > 2)
		close(out_fd);
	if (err_fd > 2)
		close(err_fd);
	signal(SIGPIPE, SIG_DFL);
	if (strchr(p->path, '/') != NULL)
		execv(p->path, argv);
	else
		execvp(p->path, argv);
	dprintf(2, "cannot run %s: %s\n", p->path, strerror(errno));
	_exit(127);
}

/* What the program printed. */
struct captured {
	char			*out;		/* the first PROGRAM_KEEP bytes */
	size_t			 outlen;
	unsigned long long	 outtotal;	/* every byte printed */
	char			 err[PROGRAM_ERR_TAIL];	/* ring of the last bytes */
	size_t			 errpos;
	unsigned long long	 errtotal;
};

static void
take_err(struct captured *c, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		c->err[(c->errpos++) % PROGRAM_ERR_TAIL] = buf[i];
	c->errtotal += n;
}

/* The stderr tail, printable, lines joined by " | ", into buf. */
static void
err_tail(const struct captured *c, char *buf, size_t cap)
{
	size_t n = c->errtotal < PROGRAM_ERR_TAIL ? (size_t)c->errtotal : PROGRAM_ERR_TAIL;
	size_t start = c->errtotal < PROGRAM_ERR_TAIL ? 0 : c->errpos % PROGRAM_ERR_TAIL;
	size_t i, k = 0;
	int sep = 0;

	for (i = 0; i < n && k + 4 < cap; i++) {
		unsigned char ch = (unsigned char)c->err[(start + i) % PROGRAM_ERR_TAIL];

		if (ch == '\n') {
			sep = k > 0;
			continue;
		}
		if (sep) {
			memcpy(buf + k, " | ", 3);
			k += 3;
			sep = 0;
			if (k + 4 >= cap)
				break;
		}
		buf[k++] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
	}
	buf[k] = '\0';
}

/* The first lines of the output, printable, joined by " | ", into buf. */
static void
first_lines(const struct captured *c, char *buf, size_t cap)
{
	size_t i = 0, k = 0, col = 0;
	int lines = 0;

	buf[0] = '\0';
	while (i < c->outlen && lines < PROGRAM_FIRST_LINES && k + 8 < cap) {
		unsigned char ch = (unsigned char)c->out[i++];

		if (ch == '\n') {
			lines++;
			col = 0;
			if (lines < PROGRAM_FIRST_LINES && i < c->outlen && k + 8 < cap) {
				memcpy(buf + k, " | ", 3);
				k += 3;
			}
			continue;
		}
		if (col++ == PROGRAM_LINE_QUOTE) {
			memcpy(buf + k, "...", 3);
			k += 3;
		}
		if (col > PROGRAM_LINE_QUOTE)
			continue;
		buf[k++] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
	}
	buf[k] = '\0';
}

/*
 * Run the program once and capture what it prints, until it exits (and
 * its output ends) or `until` (a timing_now() value).  Returns 0 with its
 * wait status in *status, 1 when it was killed at the deadline, or -1
 * with errno when it could not be started.
 */
static int
run_once(const struct program *p, char **argv, double until, struct captured *c,
    int *status)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, nfd, i, rc, exited = 0, timed = 0;
	double exit_at = 0, now, stop;
	struct timespec ms = { 0, 1000000 };
	struct pollfd pfd[2];
	char buf[65536];
	pid_t pid, self = getpid();
	ssize_t n;

	if (pipe(po) != 0 || pipe(pe) != 0) {
		int e = errno;

		for (i = 0; i < 2; i++) {
			if (po[i] >= 0)
				close(po[i]);
			if (pe[i] >= 0)
				close(pe[i]);
		}
		errno = e;
		return -1;
	}
	if ((pid = fork()) < 0) {
		int e = errno;

		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(po[0]);
		close(pe[0]);
		child_exec(p, argv, po[1], pe[1], self);
	}
	close(po[1]);
	close(pe[1]);
	pfd[0].fd = po[0];
	pfd[1].fd = pe[0];
	for (;;) {
		if (!exited && waitpid(pid, status, WNOHANG) == pid) {
			exited = 1;
			exit_at = timing_now();
		}
		now = timing_now();
		if (!exited && now >= until) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			timed = 1;
			break;
		}
		/* a child of the program may hold the pipes: drain briefly after its exit */
		if (exited && (now >= exit_at + PROGRAM_EXIT_GRACE * 1e9 ||
		    (pfd[0].fd < 0 && pfd[1].fd < 0)))
			break;
		stop = exited ? exit_at + PROGRAM_EXIT_GRACE * 1e9 : until;
		nfd = 0;
		for (i = 0; i < 2; i++) {
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
			if (pfd[i].fd >= 0)
				nfd++;
		}
		if (nfd == 0) {
			nanosleep(&ms, NULL);	/* output closed, the program not yet reaped */
			continue;
		}
		rc = poll(pfd, 2, (int)((stop - now) / 1e6) + 1 > 100 ? 100 :
		    (int)((stop - now) / 1e6) + 1);
		if (rc < 0 && errno != EINTR)
			break;
		for (i = 0; rc > 0 && i < 2; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				continue;
			}
			if (i == 1) {
				take_err(c, buf, (size_t)n);
				continue;
			}
			if (c->outlen < PROGRAM_KEEP) {
				size_t k = (size_t)n < PROGRAM_KEEP - c->outlen ? (size_t)n :
				    PROGRAM_KEEP - c->outlen;

				memcpy(c->out + c->outlen, buf, k);
				c->outlen += k;
			}
			c->outtotal += (unsigned long long)n;
		}
	}
	for (i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	return timed;
}

/* Samples per metric, gathered from the matches. */
struct gathered {
	double	*v[PROGRAM_MAX_METRICS];
	int	 n[PROGRAM_MAX_METRICS];
	long	 dropped;
};

/*
 * Parse one line: every match of every rule adds a sample to each of its
 * metrics.  Returns the matches, or -1 with err set (a group that is not
 * a number).
 */
static long
parse_line(const struct program *p, char *line, long lineno, struct gathered *g,
    char *err, size_t errlen)
{
	regmatch_t m[PROGRAM_MAX_GROUPS + 1];
	long matches = 0;
	int r, k, eflags;
	char *at, *end, save;
	double v;

	for (r = 0; r < p->nrules; r++) {
		const struct prog_rule *rule = &p->rules[r];
		size_t nm = rule->re.re_nsub + 1;

		at = line;
		eflags = 0;
		while (*at && regexec(&rule->re, at, nm, m, eflags) == 0) {
			matches++;
			for (k = 0; k < rule->nm; k++) {
				int gi = rule->group[k], mi = rule->metric[k];

				if (gi >= (int)nm || m[gi].rm_so < 0)
					continue;	/* an optional group that took no part */
				save = at[m[gi].rm_eo];
				at[m[gi].rm_eo] = '\0';
				errno = 0;
				v = strtod(at + m[gi].rm_so, &end);
				if (end == at + m[gi].rm_so || *end != '\0' || errno != 0 ||
				    !isfinite(v)) {
					snprintf(err, errlen, "line %ld: %s took '%.40s', not a number",
					    lineno, p->metrics[mi].name, at + m[gi].rm_so);
					at[m[gi].rm_eo] = save;
					return -1;
				}
				at[m[gi].rm_eo] = save;
				if (g->n[mi] >= WIRE_MAX_SAMPLES) {
					g->dropped++;
					continue;
				}
				g->v[mi][g->n[mi]++] = v * rule->scale[k];
			}
			/* the next match starts after this one (at least one byte on) */
			at += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
			eflags = REG_NOTBOL;
		}
	}
	return matches;
}

static int
parse_output(struct trial *t, const struct program *p, struct captured *c)
{
	struct gathered g;
	char err[256], lines[PROGRAM_FIRST_LINES * (PROGRAM_LINE_QUOTE + 8)];
	long lineno = 0, matches = 0, r;
	size_t i, start = 0;
	int rc = -1, k;

	memset(&g, 0, sizeof(g));
	for (k = 0; k < p->nmetrics; k++)
		if ((g.v[k] = malloc(sizeof(double) * WIRE_MAX_SAMPLES)) == NULL) {
			rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
			goto out;
		}
	for (i = 0; i < c->outlen; i++)
		if (c->out[i] == '\0')
			c->out[i] = ' ';
	c->out[c->outlen] = '\0';
	for (i = 0; i <= c->outlen; i++) {
		if (i < c->outlen && c->out[i] != '\n')
			continue;
		c->out[i] = '\0';
		lineno++;
		if (i > start && (r = parse_line(p, c->out + start, lineno, &g, err,
		    sizeof(err))) < 0) {
			rc = trial_error(t, WIRE_ERR_BAD_OUTPUT, "%s: %s", p->bench.name, err);
			goto out;
		} else if (i > start)
			matches += r;
		if (i < c->outlen)
			c->out[i] = '\n';
		start = i + 1;
	}
	if (matches == 0) {
		first_lines(c, lines, sizeof(lines));
		rc = trial_error(t, WIRE_ERR_BAD_OUTPUT, "%s: no line of its output (%llu bytes) "
		    "matched a parse rule; it printed: %s", p->bench.name, c->outtotal,
		    c->outtotal ? lines : "nothing");
		goto out;
	}
	for (k = 0; k < p->nmetrics; k++) {
		if (g.n[k] == 0)
			trial_note(t, "no match gave %s a value", p->metrics[k].name);
		else
			trial_metric(t, p->metrics[k].name, g.v[k], g.n[k], 0);
	}
	if (g.dropped > 0)
		trial_note(t, "%ld samples past %d per metric were dropped", g.dropped,
		    WIRE_MAX_SAMPLES);
	rc = 0;
out:
	for (k = 0; k < p->nmetrics; k++)
		free(g.v[k]);
	return rc;
}

static int
program_run(struct trial *t)
{
	const struct program *p = t->program;
	char *argv[PROGRAM_MAX_ARGS + 2], err[256], tail[PROGRAM_ERR_TAIL * 2];
	struct captured c;
	double budget, margin, until;
	int i, n = 0, rc = -1, status = 0, r;

	memset(&c, 0, sizeof(c));
	memset(argv, 0, sizeof(argv));
	if (p == NULL)
		return trial_error(t, WIRE_ERR_REQUEST, "no program in the request");
	argv[n++] = p->path;
	for (i = 0; i < p->nargs; i++) {
		err[0] = '\0';
		if ((argv[n] = substitute(t, p->args[i], err, sizeof(err))) == NULL) {
			rc = trial_error(t, WIRE_ERR_REQUEST, "%s: %s", p->bench.name,
			    err[0] ? err : "out of memory");
			goto out;
		}
		n++;
	}
	if ((c.out = malloc(PROGRAM_KEEP + 1)) == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	/* its own deadline a little before the trial's, to say what it printed */
	budget = trial_remaining(t);
	margin = budget * 0.1 < 1.0 ? budget * 0.1 : 1.0;
	until = timing_now() + (budget - margin) * 1e9;
	if ((r = run_once(p, argv, until, &c, &status)) < 0) {
		rc = trial_error(t, WIRE_ERR_BENCH, "%s: cannot start %s: %s", p->bench.name,
		    p->path, strerror(errno));
		goto out;
	}
	err_tail(&c, tail, sizeof(tail));
	if (r == 1) {
		rc = trial_error(t, WIRE_ERR_TIMEOUT, "%s did not finish within its deadline "
		    "(%.1f s), killed; it printed %llu bytes%s%s", p->bench.name, budget - margin,
		    c.outtotal, tail[0] ? "; stderr: " : "", tail);
		goto out;
	}
	if (WIFSIGNALED(status)) {
		rc = trial_error(t, WIRE_ERR_BENCH, "%s killed by signal %d (%s)%s%s",
		    p->bench.name, WTERMSIG(status), strsignal(WTERMSIG(status)),
		    tail[0] ? "; stderr: " : "", tail);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		rc = trial_error(t, WIRE_ERR_BENCH, "%s exited with status %d%s%s", p->bench.name,
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1, tail[0] ? "; stderr: " : "",
		    tail);
		goto out;
	}
	if (c.outtotal > PROGRAM_KEEP) {
		rc = trial_error(t, WIRE_ERR_BAD_OUTPUT, "%s printed %llu bytes, more than the "
		    "%d kept: its output cannot be parsed whole", p->bench.name, c.outtotal,
		    PROGRAM_KEEP);
		goto out;
	}
	rc = parse_output(t, p, &c);
out:
	for (i = 1; i < n; i++)
		free(argv[i]);
	free(c.out);
	return rc;
}
