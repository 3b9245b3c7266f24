/*
 * test-agent-trial.c: parameter resolution of trial requests, the small
 * statistics helpers of the timing harness, and serve mode's wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "jparse.h"
#include "tap.h"
#include "timing.h"

static int
run_nothing(struct trial *t)
{
	(void)t;
	return 0;
}

static const struct bench_param params[] = {
	{ "threads", PARAM_CPUS, "50%", "tasks", NULL },
	{ "size", PARAM_INT, "4K", "bytes", NULL },
	{ "mode", PARAM_ENUM, "threads", "how", "threads|processes" },
	{ "command", PARAM_STR, "true", "what", NULL },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench test_bench = {
	"testbench", "for the unit test", "", params, NULL, run_nothing, NULL, NULL
};

static const struct bench_param ranged_params[] = {
	{ "procs", PARAM_INT, "2", "ring", "2..1024" },
	{ "tasks", PARAM_CPUS, "1", "at once", "1..64" },
	{ "size", PARAM_INT, "1M", "bytes", "1M.." },
	{ "accesses", PARAM_INT, "512", "per thread", "..4096" },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_limit ranged_limits[] = {
	{ "tasks", "accesses", 8192 },
	{ NULL, NULL, 0 }
};

static const struct bench ranged_bench = {
	"ranged", "for the unit test", "", ranged_params, NULL, run_nothing, NULL, ranged_limits
};

static int
init(struct trial *t, int n, char **k, char **v, char *err)
{
	return trial_init(t, &test_bench, "id", n, k, v, 11, 10, err, 256);
}

static void
test_params(void)
{
	char err[256], *k[4], *v[4];
	struct trial t;
	long long half = (ncpus() + 1) / 2;

	ok(init(&t, 0, k, v, err) == 0, "defaults resolve");
	is_int(trial_int(&t, "threads"), half < 1 ? 1 : half, "N% of online CPUs, rounded, at least 1");
	is_int(trial_int(&t, "size"), 4096, "K suffix is 1024");
	is_str(trial_str(&t, "mode"), "threads", "enum default");
	is_str(trial_str(&t, "command"), "true", "string default");
	trial_release(&t);

	k[0] = "size"; v[0] = "2M";
	k[1] = "command"; v[1] = "a; b $(c) `d`\n'e'";
	k[2] = "threads"; v[2] = "3";
	ok(init(&t, 3, k, v, err) == 0, "given values resolve");
	is_int(trial_int(&t, "size"), 2 * 1024 * 1024, "M suffix");
	is_str(trial_str(&t, "command"), "a; b $(c) `d`\n'e'", "strings are kept byte for byte");
	is_int(trial_int(&t, "threads"), 3, "plain CPU count");
	trial_release(&t);

	k[0] = "thread"; v[0] = "2";
	ok(init(&t, 1, k, v, err) != 0 && strstr(err, "did you mean 'threads'") != NULL,
	    "a misspelt parameter gets a suggestion");
	k[0] = "bogus"; v[0] = "2";
	ok(init(&t, 1, k, v, err) != 0 && strstr(err, "no parameter 'bogus'") != NULL,
	    "an unknown parameter is refused");
	k[0] = "mode"; v[0] = "fibers";
	ok(init(&t, 1, k, v, err) != 0 && strstr(err, "threads|processes") != NULL,
	    "an enum value outside its choices is refused, naming them");
	k[0] = "size"; v[0] = "12Q";
	ok(init(&t, 1, k, v, err) != 0 && strstr(err, "not an integer") != NULL,
	    "a malformed integer is refused");
	k[0] = "size"; v[0] = "99999999999999999999";
	ok(init(&t, 1, k, v, err) != 0, "an overflowing integer is refused");
	k[0] = "threads"; v[0] = "0%";
	ok(init(&t, 1, k, v, err) != 0, "0% is refused");
	k[0] = "size"; v[0] = "1"; k[1] = "size"; v[1] = "2";
	ok(init(&t, 2, k, v, err) != 0 && strstr(err, "twice") != NULL, "a repeated parameter is refused");
	ok(trial_init(&t, &test_bench, NULL, 0, k, v, 0, 10, err, sizeof(err)) != 0,
	    "zero samples are refused");
	ok(trial_init(&t, &test_bench, NULL, 0, k, v, 5, 0, err, sizeof(err)) != 0,
	    "a zero deadline is refused");
}

static int
init_ranged(struct trial *t, const char *key, const char *val, char *err)
{
	char *k[1], *v[1];

	k[0] = (char *)key;
	v[0] = (char *)val;
	return trial_init(t, &ranged_bench, "id", key ? 1 : 0, k, v, 3, 10, err, 256);
}

static void
test_ranges(void)
{
	struct param_range r;
	char err[256], text[96];
	struct trial t;

	ok(param_range(&ranged_params[0], &r) == 0 && r.has_min && r.min == 2 && r.has_max &&
	    r.max == 1024, "a range MIN..MAX");
	ok(param_range(&ranged_params[2], &r) == 0 && r.has_min && r.min == 1048576 && !r.has_max,
	    "a range with a suffix and no upper end");
	ok(param_range(&ranged_params[3], &r) == 0 && !r.has_min && r.max == 4096,
	    "a range with no lower end");
	ok(param_range(&params[2], &r) == 0 && !r.has_min && !r.has_max, "an enum has no range");
	param_range_text(&ranged_params[0], text, sizeof(text));
	is_str(text, "2 to 1024", "the range for people");
	param_range_text(&ranged_params[2], text, sizeof(text));
	is_str(text, "at least 1M", "an open range for people");

	ok(init_ranged(&t, NULL, NULL, err) == 0, "defaults inside their ranges resolve");
	trial_release(&t);
	ok(init_ranged(&t, "procs", "1024", err) == 0, "the upper end is accepted");
	trial_release(&t);
	ok(init_ranged(&t, "procs", "5000", err) != 0 &&
	    strcmp(err, "parameter procs: 5000 is out of range (2 to 1024)") == 0,
	    "a value above the range is refused, naming it");
	ok(init_ranged(&t, "procs", "1", err) != 0 && strstr(err, "out of range") != NULL,
	    "a value below the range is refused");
	ok(init_ranged(&t, "size", "512K", err) != 0 && strstr(err, "at least 1M") != NULL,
	    "a suffixed value below an open range is refused");
	ok(init_ranged(&t, "tasks", "6400%", err) != 0 && strstr(err, "6400%") != NULL &&
	    strstr(err, "here) is out of range (1 to 64)") != NULL,
	    "an N% count is checked once resolved, naming both");
	ok(init_ranged(&t, "accesses", "4096", err) == 0, "a product inside its limit passes");
	trial_release(&t);
	ok(init_ranged(&t, "tasks", "4", err) == 0, "tasks 4 x accesses 512 is inside the limit");
	trial_release(&t);
	ok(init_ranged(&t, "tasks", "64", err) != 0 &&
	    strcmp(err, "tasks x accesses is 64 x 512, more than 8192") == 0,
	    "a product over its limit is refused");
	t.out_fd = open("/dev/null", O_WRONLY);
	t.id = NULL;
	is_int(trial_exit_code(trial_error(&t, WIRE_ERR_REQUEST, "x")), WIRE_EXIT_USAGE,
	    "a bad-request error exits as a usage error (status bad-request)");
	is_int(trial_exit_code(trial_error(&t, WIRE_ERR_BENCH, "x")), WIRE_EXIT_FAILED,
	    "a bench error exits as a failure");
	is_int(trial_exit_code(trial_error(&t, WIRE_ERR_BAD_OUTPUT, "x")), WIRE_EXIT_BAD_OUTPUT,
	    "a bad-output error has its own exit code");
	close(t.out_fd);
	is_str(trial_exit_class(WIRE_EXIT_OK), WIRE_STATUS_OK, "exit code 0 ends ok");
	is_str(trial_exit_class(WIRE_EXIT_USAGE), WIRE_ERR_REQUEST,
	    "the usage exit code ends bad-request");
	is_str(trial_exit_class(WIRE_EXIT_UNSUPPORTED), WIRE_ERR_UNSUPPORTED,
	    "the unsupported exit code ends unsupported");
	is_str(trial_exit_class(WIRE_EXIT_FAILED), WIRE_ERR_BENCH, "a failure ends bench");
	ok(trial_exit_class(WIRE_EXIT_CANCELLED) == NULL && trial_exit_class(77) == NULL,
	    "other exit codes carry no class");
}

static void
test_stats(void)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, v[] = { 1, 5, 10 };
	double bw[] = { 1000.0 };

	is_num(samples_median(odd, 3), 3, 0, "median of an odd count");
	is_num(samples_median(even, 4), 2.5, 0, "median of an even count is the mean of the middle two");
	is_num(odd[0], 5, 0, "median leaves its input in place");
	samples_subtract(v, 3, 4);
	ok(v[0] == 0 && v[1] == 1 && v[2] == 6, "subtracting an overhead never goes below zero");
	samples_to_mbps(bw, 1, 1e6);	/* 1 MB in 1000 ns */
	is_num(bw[0], 1e6, 1e-6, "1 MB per microsecond is 10^6 MB/s");
}

/* lmbench's benchmp_interval() rule, run by run, at its 5 ms default. */
static void
test_rule(void)
{
	struct timing_opts capped = { 0, 100, 0 };
	struct timing_rule r;

	timing_rule_init(&r, NULL);
	ok(r.target == TIMING_TARGET_NS && r.n == 1, "the rule starts at one operation, 5 ms");
	ok(!timing_rule_next(&r, 10e3) && r.n == 8, "a 10 us run is dropped, the count x8");
	ok(!timing_rule_next(&r, 80e3) && r.n == 64, "under 150 us: x8 again");
	ok(!timing_rule_next(&r, 640e3) && r.n == 551,
	    "over 150 us: rescaled to 1.1 intervals (64 / 640 us x 5.5 ms + 1)");
	ok(timing_rule_next(&r, 5.5e6) && r.n == 551, "a run within 0.99 to 1.2: a sample, same count");
	ok(timing_rule_next(&r, 4.8e6) && r.n == 632,
	    "over 0.95 but under 0.99: a sample, and rescaled");
	ok(!timing_rule_next(&r, 4.7e6), "a run under 0.95 of the interval is no sample");
	ok(timing_rule_next(&r, 7e6) && r.n < 632, "over 1.2: a sample, the count scaled down");
	timing_rule_init(&r, &capped);
	r.n = 100;
	ok(timing_rule_next(&r, 1e3) && r.n == 100, "a run at the cap is a sample whatever its length");
}

static void
test_registry(void)
{
	int i, j;

	for (i = 0; benches[i]; i++)
		for (j = i + 1; benches[j]; j++)
			if (strcmp(benches[i]->name, benches[j]->name) == 0)
				ok(0, "benchmark names are unique");
	ok(bench_find("lat_syscall") != NULL && bench_find("nope") == NULL, "bench_find");
	ok(edit_distance("threads", "thread") == 1 && edit_distance("abc", "abc") == 0 &&
	    edit_distance("kitten", "sitting") == 3, "edit distance");
}

static unsigned req_monitors;	/* the last request's t->monitors */

/* serve_trial_init() on a request line: 0 and t->profile, or -1. */
static int
request(const char *line, int *profile, char *err)
{
	struct jv *req = NULL;
	struct trial t;
	int r;

	if (jv_parse(line, strlen(line), &req, err, 256) != 0)
		return -2;
	r = serve_trial_init(req, "t1", &t, err, 256);
	if (r == 0) {
		*profile = t.profile;
		req_monitors = t.monitors;
		trial_release(&t);
	}
	jv_free(req);
	return r;
}

static void
test_profile_request(void)
{
	char err[256];
	int p = -1;

	ok(request("{\"type\":\"trial\",\"bench\":\"lat_syscall\",\"profile\":\"perf\"}",
	    &p, err) == 0 && p == 1, "a request for a perf profile");
	p = -1;
	ok(request("{\"type\":\"trial\",\"bench\":\"lat_syscall\"}", &p, err) == 0 && p == 0,
	    "no profile member: none");
	p = -1;
	ok(request("{\"type\":\"trial\",\"bench\":\"lat_syscall\",\"profile\":null}", &p,
	    err) == 0 && p == 0, "profile null: none");
	ok(request("{\"type\":\"trial\",\"bench\":\"lat_syscall\",\"profile\":\"gprof\"}",
	    &p, err) == -1 && strstr(err, "profile") != NULL, "another profiler: refused");
	ok(request("{\"type\":\"trial\",\"bench\":\"lat_syscall\",\"profile\":1}", &p,
	    err) == -1, "a profile that is not a string: refused");
}

/* serve_trial_init() on a request line: 0 and t->monitors, or -1. */
static int
monitors_of(const char *line, unsigned *mon, char *err)
{
	int profile, r = request(line, &profile, err);

	if (r == 0)
		*mon = req_monitors;
	return r;
}

static void
test_monitor_request(void)
{
	char err[256];
	unsigned m = 99;

	ok(monitors_of("{\"type\":\"trial\",\"bench\":\"munmap\",\"monitor\":[\"interrupts\","
	    "\"perf-stat\"]}", &m, err) == 0 && m == (MON_INTERRUPTS | MON_PERF_STAT),
	    "a request for two monitors");
	ok(monitors_of("{\"type\":\"trial\",\"bench\":\"munmap\"}", &m, err) == 0 && m == 0,
	    "no monitor member: none");
	ok(monitors_of("{\"type\":\"trial\",\"bench\":\"munmap\",\"monitor\":[\"iostat\"]}",
	    &m, err) == -1 && strstr(err, "monitor 1: not one of interrupts, vmstat, perf-stat") !=
	    NULL, "an unknown monitor: refused, saying which are known");
	ok(monitors_of("{\"type\":\"trial\",\"bench\":\"munmap\",\"monitor\":\"vmstat\"}",
	    &m, err) == -1, "a monitor member that is not an array: refused");
}

/* A program trial whose one rule matches with re (a JSON string's inside). */
static int
program_rule(const char *re, char *err)
{
	char line[1024];
	int profile;

	snprintf(line, sizeof(line), "{\"type\":\"trial\",\"bench\":\"program\","
	    "\"samples\":1,\"program\":{\"name\":\"p\",\"path\":\"printf\","
	    "\"args\":[\"avg: 1\"],\"rules\":[{\"match\":\"%s\",\"metrics\":"
	    "[{\"name\":\"avg\",\"group\":1,\"unit\":\"ns\",\"direction\":"
	    "\"lower\",\"scale\":1}]}]}}", re);
	return request(line, &profile, err);
}

/*
 * regcomp() unrolls repetitions of repetitions: a rule of a few dozen
 * bytes must not take the host's memory (a fuzzer's input took 2^58).
 */
static void
test_program_rule(void)
{
	char err[256];

	ok(program_rule("avg: ([0-9]+)", err) == 0, "a program rule: taken");
	ok(program_rule("avg: (([0-9]{1,3})(,[0-9]{3})*)", err) == 0,
	    "a rule with nested repetitions of a modest product: taken");
	ok(program_rule("avg:+++++++++++++++++++++++++++++++++++++++++++++++++++ ([0-9]+)",
	    err) == -1 && strstr(err, "a quantifier after a quantifier") != NULL,
	    "a rule of + after + (2^50 parts): refused before regcomp");
	ok(program_rule("avg: (((((((((((a+)+)+)+)+)+)+)+)+)+)+)", err) == -1 &&
	    strstr(err, "more than 1000 parts") != NULL,
	    "+ on groups of + eleven deep (2^11 parts): refused");
	ok(program_rule("avg: ((([0-9]{30}){30}){30})", err) == -1 &&
	    strstr(err, "more than 1000 parts") != NULL,
	    "a rule of {30} in {30} in {30}: refused");
	ok(program_rule("avg: ((a?){500})", err) == -1 &&
	    strstr(err, "more than 1000 parts") != NULL,
	    "a chain of 500 optional parts (seconds of regcomp()): refused");
	ok(program_rule("avg:??????????5?????????????????????????????????+++++++0-9]+)", err) == -1 &&
	    strstr(err, "a quantifier after a quantifier") != NULL,
	    "quantifiers on quantifiers, then + on them (a fuzzer's input): refused");
	ok(program_rule("avg: ([[:digit:]()]+)x)", err) == 0,
	    "brackets holding ( and ), and a ) with no group, count as characters");
}

static const struct bench_metric zmetrics[] = {
	{ "latency", "us", 0, "" },
	{ "rate", "ops/s", 1, "" },
	{ NULL, NULL, 0, NULL }
};

static const struct bench zero_bench = {
	"zerobench", "for the unit test", "", NULL, zmetrics, run_nothing, NULL, NULL
};

/* The lines trial_metric() writes for samples v[0..n), into buf. */
static void
metric_lines(const char *metric, const double *v, int n, char *buf, size_t cap)
{
	char err[256];
	struct trial t;
	int p[2];
	ssize_t r;

	buf[0] = '\0';
	if (pipe(p) != 0 || trial_init(&t, &zero_bench, "z", 0, NULL, NULL, n, 10, err,
	    sizeof(err)) != 0)
		return;
	t.out_fd = p[1];
	trial_metric(&t, metric, v, n, 0);
	close(p[1]);
	r = read(p[0], buf, cap - 1);
	buf[r > 0 ? r : 0] = '\0';
	close(p[0]);
	trial_release(&t);
}

static void
test_zero_note(void)
{
	static const double zeros[] = { 0, 0, 0, 1.5, 2 }, some[] = { 0, 1, 2 };
	char buf[8192];

	metric_lines("latency", zeros, 5, buf, sizeof(buf));
	ok(strstr(buf, "\"type\":\"note\"") != NULL && strstr(buf, "the overhead is larger "
	    "than the operation: subtraction leaves nothing (latency: 3 of 5 samples 0)") != NULL,
	    "a median of 0: a note says the subtraction left nothing");
	metric_lines("latency", some, 3, buf, sizeof(buf));
	ok(strstr(buf, "\"type\":\"note\"") == NULL, "a median above 0: no note");
	metric_lines("rate", zeros, 5, buf, sizeof(buf));
	ok(strstr(buf, "\"type\":\"note\"") == NULL, "a rate of 0 (higher is better): no note");
}

static void
test_interrupts(void)
{
	const char *tmp = tap_tmpdir("test-agent-trial");
	char path[256];
	unsigned long long v[3] = { 0, 0, 0 };
	int have[3] = { 0, 0, 0 }, i;
	FILE *f = NULL;

	if (tmp != NULL) {
		snprintf(path, sizeof(path), "%s/interrupts", tmp);
		f = fopen(path, "w");
	}
	if (f == NULL) {
		ok(0, "a temporary file");
		return;
	}
	/* x86, 4096 CPUs: each row some 45 KB, far past the 8 KB buffer */
	fputs("           CPU0       CPU1\n", f);
	fputs("  0:         30          0   IO-APIC   2-edge      timer\n", f);
	fputs("RES:", f);
	for (i = 0; i < 4096; i++)
		fprintf(f, " %10d", i % 3);
	fputs("   Rescheduling interrupts\nCAL:", f);
	for (i = 0; i < 4096; i++)
		fprintf(f, " %10d", 7);
	fputs("   Function call interrupts\nTLB:", f);
	for (i = 0; i < 4096; i++)
		fprintf(f, " %10d", 1000000);
	fputs("   TLB shootdowns\nERR:          0\n", f);
	fclose(f);
	is_int(monitor_read_interrupts(path, v, have), 3, "x86 with 4096 CPUs: the three rows");
	ok(have[0] && have[1] && have[2] && v[0] == 4096ULL * 1000000 && v[1] == 4096ULL * 7 &&
	    v[2] == 4095, "every CPU's column summed, whatever the length of a row");

	f = fopen(path, "w");
	fputs("           CPU0       CPU1\nIPI0:        12         30       Rescheduling interrupts\n"
	    "IPI1:         5          6       Function call interrupts\n"
	    "IPI2:         0          0       CPU stop interrupts\n", f);
	fclose(f);
	v[0] = v[1] = v[2] = 0;
	have[0] = have[1] = have[2] = 0;
	is_int(monitor_read_interrupts(path, v, have), 2, "arm64: no TLB shootdown row");
	ok(!have[0] && v[1] == 11 && v[2] == 42, "... function calls and reschedules from its IPI rows");
	unlink(path);
	is_int(monitor_read_interrupts(path, v, have), -1, "a file that is not there: -1");
}

/*
 * A SIGCHLD between requests (env's helpers, a trial's orphans) leaves a
 * byte in the signal pipe; serve's wait must read it, or every poll after
 * it returns at once and the agent spins until the next request.
 */
static void
test_serve_wait(void)
{
	struct input in;
	char c;
	int fds[2], r;

	supervise_signals();
	if (pipe(fds) != 0) {
		ok(0, "pipe");
		return;
	}
	input_init(&in, fds[0]);
	raise(SIGCHLD);
	ok(serve_wait(&in) == 0, "serve_wait: woken by the signal pipe");
	r = (int)read(supervise_signal_fd(), &c, 1);
	ok(r < 0 && errno == EAGAIN, "serve_wait: the signal pipe emptied");
	ok(in.len == 0 && !in.eof, "serve_wait: no input read");
	if (write(fds[1], "{}\n", 3) != 3)
		ok(0, "write");
	ok(serve_wait(&in) == 0 && in.len == 3, "serve_wait: a request line read");
	close(fds[1]);
	ok(serve_wait(&in) == 0 && in.eof, "serve_wait: end of input seen");
	close(fds[0]);
	signal(SIGCHLD, SIG_DFL);
}

int
main(void)
{
	test_params();
	test_ranges();
	test_stats();
	test_rule();
	test_registry();
	test_profile_request();
	test_monitor_request();
	test_program_rule();
	test_zero_note();
	test_interrupts();
	test_serve_wait();
	return tap_done();
}
