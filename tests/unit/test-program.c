/*
 * test-program: the regular expression dialect of `bench: program`
 * (translation to POSIX ERE, what it refuses) and loading a program
 * entry of a plan.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "plan.h"
#include "program.h"
#include "strv.h"
#include "tap.h"

/* Translate re; compare with want (NULL: must fail, why containing fail). */
static void
tr(const char *re, const char *want, const char *fail)
{
	char *ere = NULL, **names = NULL, *why = NULL, what[256];
	size_t n = 0;
	int r = program_regex(re, &ere, &names, &n, &why);

	snprintf(what, sizeof(what), "%s -> %s", re, want ? want : fail);
	if (want != NULL) {
		ok(r == 0 && strcmp(ere, want) == 0, what);
		if (r != 0 || strcmp(ere, want) != 0)
			printf("#   got %s (%s)\n", r == 0 ? ere : "error", why ? why : "");
	} else {
		ok(r != 0 && strstr(why, fail) != NULL, what);
		if (r == 0 || strstr(why, fail) == NULL)
			printf("#   got %s\n", r == 0 ? ere : why);
	}
	free(ere);
	free(why);
	strv_free(names, n);
}

static void
test_regex(void)
{
	char *ere, **names, *why = NULL;
	regmatch_t m[4];
	regex_t re;
	size_t n;

	tr("a\\d+b", "a[0-9]+b", NULL);
	tr("\\s*\\S\\w\\W\\D", "[[:space:]]*[^[:space:]][[:alnum:]_][^[:alnum:]_][^0-9]", NULL);
	tr("[\\d.]+", "[0-9.]+", NULL);
	tr("[^\\s,]", "[^[:space:],]", NULL);
	tr("[]x]", "[]x]", NULL);
	tr("[[:digit:]]", "[[:digit:]]", NULL);
	tr("(?P<a>\\d+)(?:x|y)(?<b>z)", "([0-9]+)(x|y)(z)", NULL);
	tr("1\\.5\\:\\-", "1\\.5:-", NULL);
	tr("a{2,3}", "a{2,3}", NULL);
	tr("a\\tb", "a\tb", NULL);
	tr("a*?", NULL, "lazy");
	tr("a+?", NULL, "lazy");
	tr("(?=x)", NULL, "lookaround");
	tr("(?i)x", NULL, "lookaround");
	tr("\\bword", NULL, "anchors");
	tr("(a)\\1", NULL, "backreferences");
	tr("(?P<1a>x)", NULL, "group name");
	tr("(?P<a>x)(?P<a>y)", NULL, "used twice");
	tr("[abc", NULL, "unclosed [");
	tr("*a", NULL, "nothing to repeat");
	tr("x\\", NULL, "trailing backslash");
	tr("[\\]]", NULL, "not supported in [...]");
	tr("\\q", NULL, "unknown escape");
	/* repetitions of repetitions: regcomp() unrolls them into a product */
	tr("((\\d{30}){30}){30}", NULL, "more than 1000 parts at character 10");
	tr("(((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+", NULL, "more than 1000 parts");
	/* a chain of optional atoms: regcomp()'s closures grow with its square */
	tr("(a?){500}", NULL, "more than 1000 parts at character 5");
	tr("(a?){300}", "(a?){300}", NULL);
	tr("(a{20}){20}", "(a{20}){20}", NULL);
	tr("(\\d{1,3}(,\\d{3})*)", "([0-9]{1,3}(,[0-9]{3})*)", NULL);
	tr("x)+", "x)+", NULL);

	/* the names of groups, and the translation running as the mail's line wants */
	ok(program_regex("munmap use (?P<total>\\d+)ms (?P<per>\\d+)ns/time, .* cost "
	    "(?P<cost>\\d+)ns/time", &ere, &names, &n, &why) == 0 && n == 3 &&
	    strcmp(names[0], "total") == 0 && strcmp(names[2], "cost") == 0,
	    "the mail's rule: three named groups in order");
	ok(regcomp(&re, ere, REG_EXTENDED) == 0 && regexec(&re, "munmap use 164ms 5032ns/time, "
	    "memory access uses 81605 times/thread/ms, cost 12ns/time", 4, m, 0) == 0 &&
	    m[2].rm_eo - m[2].rm_so == 4 && m[3].rm_eo - m[3].rm_so == 2,
	    "the translation matches the mail's line, groups in place");
	regfree(&re);
	free(ere);
	strv_free(names, n);
}

static void
test_load(void)
{
	static const char cat_json[] =
	    "{\"type\":\"bench\",\"name\":\"munmap\",\"params\":[],\"metrics\":"
	    "[{\"name\":\"ns_per_access\",\"unit\":\"ns\",\"direction\":\"lower\"}]}\n";
	static const char plan[] =
	    "name: t\n"
	    "benchmarks:\n"
	    "  - bench: program\n"
	    "    name: echo\n"
	    "    command: printf\n"
	    "    args: [\"avg: %s\\n\", \"{n}\", \"{samples}\"]\n"
	    "    params: { n: [1, 2, \"50%\"] }\n"
	    "    parse:\n"
	    "      - match: '^avg: (?P<avg>\\d+)$'\n"
	    "        metrics:\n"
	    "          avg: { unit: us, direction: lower, scale: 1000 }\n"
	    "regression:\n"
	    "  metrics: [echo.avg]\n";
	struct catalog *cat = NULL;
	struct plan *p = NULL;
	char *err = NULL;
	const struct program *prog;

	ok(catalog_parse("t", cat_json, strlen(cat_json), &cat, &err) == 0, "a catalogue");
	ok(plan_parse("p.yaml", plan, strlen(plan), cat, &p, &err) == 0, "a program plan loads");
	if (p == NULL) {
		printf("#   %s\n", err);
		free(err);
		catalog_free(cat);
		return;
	}
	is_int((int)p->npoints, 3, "a matrix axis of three values: three points");
	is_int((int)p->nprograms, 1, "one program");
	prog = p->points[0].program;
	ok(prog != NULL && strcmp(p->points[0].bench, "echo") == 0 &&
	    strcmp(p->points[2].vals[0], "50%") == 0, "points name the program; N% kept as text");
	ok(prog != NULL && prog->nrules == 1 && prog->rules[0].nmetrics == 1 &&
	    prog->rules[0].metrics[0].group == 1 && prog->rules[0].metrics[0].scale == 1000 &&
	    strcmp(prog->rules[0].ere, "^avg: ([0-9]+)$") == 0, "the rule, translated, with its scale");
	ok(p->nmetrics == 1 && strcmp(p->metrics[0], "echo.avg") == 0,
	    "a program's metric can be a regression metric");
	plan_free(p);
	catalog_free(cat);
}

int
main(void)
{
	test_regex();
	test_load();
	return tap_done();
}
