/*
 * test-cmd.c: the help every command prints (cmd_help_print(),
 * cmd_help_complete(), cmd_wrap()) and what a bad option is told
 * (cmd_option_error()), against getopt_long's own answers.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fsutil.h"
#include "tap.h"

static const struct cmd_option t_options[] = {
	{ 'f', NULL, "FLEET", "the inventory", "the embedded fleet" },
	{ 'j', NULL, "N", "at most N hosts at once", "all" },
	{ 0, "label", "NAME", "the run's name in reports", NULL },
	{ 0, "baseline", "REF", "compare with REF", NULL },
	{ 0, "dry-run", NULL, "show what would run", NULL },
	{ 't', "tries", "N", "how many times", NULL },
	{ 'T', "threshold", "PCT", "the smallest change", "5%" },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit t_exits[] = {
	{ 0, "fine" },
	{ 130, "interrupted" },
	{ -1, NULL }
};

static const struct cmd_example t_examples[] = {
	{ "fleetmark t -f lab.yaml", "on the lab" },
	{ NULL, NULL }
};

static const struct cmd_help t_help = {
	"First paragraph, long enough to be wrapped somewhere before the eightieth "
	"column of the terminal, which is where help text ends.\n\n"
	"  verbatim   lines\n  stay as written",
	t_options, NULL, t_exits, t_examples, "docs/t.md", 0
};

static const struct cmd_entry t_cmd = {
	"t", "PLAN [-f FLEET] [--label NAME]", "a command for tests", NULL, &t_help
};

/* The same options as t_options, for getopt_long. */
static const struct option t_longopts[] = {
	{ "label", required_argument, NULL, 'L' },
	{ "baseline", required_argument, NULL, 'B' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "tries", required_argument, NULL, 't' },
	{ "threshold", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/*
 * Run getopt_long over the words until it answers '?', and return
 * cmd_option_error()'s message then (a new string), or NULL.
 */
static char *
bad_option(const char *w1, const char *w2, const char *w3)
{
	char *argv[5] = { (char *)"t", (char *)w1, (char *)w2, (char *)w3, NULL };
	int argc = 1 + (w1 != NULL) + (w2 != NULL) + (w3 != NULL), c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:j:t:T:hvq", t_longopts, NULL)) != -1)
		if (c == '?')
			return cmd_option_error(&t_cmd, argv, optind, optopt);
	return NULL;
}

static void
check_error(const char *w1, const char *w2, const char *w3, const char *want,
    const char *what)
{
	char *got = bad_option(w1, w2, w3);

	is_str(got, want, what);
	free(got);
}

static void
test_option_errors(void)
{
	check_error("--lable", "x", NULL,
	    "unrecognized option '--lable' (did you mean '--label'?)",
	    "an unknown long option, with the nearest documented one");
	check_error("--lable=x", NULL, NULL,
	    "unrecognized option '--lable' (did you mean '--label'?)",
	    "an unknown long option with =VALUE");
	check_error("--frobnicate", NULL, NULL, "unrecognized option '--frobnicate'",
	    "nothing close: no suggestion");
	check_error("--t", "x", NULL,
	    "option '--t' is ambiguous; possibilities: '--tries' '--threshold'",
	    "an ambiguous abbreviation lists what it could be");
	check_error("--label", NULL, NULL, "option '--label' requires an argument",
	    "a long option without its argument");
	check_error("--dry-run=yes", NULL, NULL, "option '--dry-run' doesn't allow an argument",
	    "a long option that takes none, given one");
	check_error("-j", NULL, NULL, "option requires an argument -- 'j'",
	    "a short option without its argument");
	check_error("-x", NULL, NULL, "invalid option -- 'x'", "an unknown short option");
	check_error("--dry-run", "-vx", NULL, "invalid option -- 'x'",
	    "an unknown short option in a cluster, after a long option");
	check_error("-label", "x", NULL, "invalid option -- 'l' (did you mean '--label'?)",
	    "a long option written with one dash");
	check_error("--verbos", NULL, NULL,
	    "unrecognized option '--verbos' (did you mean '--verbose'?)",
	    "the options every command takes are suggested too");
}

/* Print e's help into a new string (not inlined: gcc 12 then sees a dangling pointer). */
static char *__attribute__((noinline))
help_of(const struct cmd_entry *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cmd_help_print(e, f);
	fclose(f);
	return buf;
}

static void
test_help(void)
{
	char *h = help_of(&t_cmd);
	const char *start = "fleetmark t: a command for tests\n\n"
	    "usage: fleetmark t PLAN [-f FLEET] [--label NAME]\n\n"
	    "First paragraph, long enough to be wrapped somewhere before the eightieth column\n"
	    "of the terminal, which is where help text ends.\n\n"
	    "  verbatim   lines\n  stay as written\n";

	ok(strncmp(h, start, strlen(start)) == 0, "summary, usage, the description wrapped at "
	    "80 columns, an indented paragraph as written");
	if (strncmp(h, start, strlen(start)) != 0)
		printf("# got:\n%s", h);
	ok(strstr(h, "\noptions:\n  -f FLEET              the inventory (default: the embedded "
	    "fleet)\n") != NULL, "an option with its argument and default");
	ok(strstr(h, "  -T, --threshold PCT   the smallest change (default: 5%)\n") != NULL,
	    "short and long forms");
	ok(strstr(h, "  --dry-run             show what would run\n") != NULL,
	    "an option without argument or default");
	ok(strstr(h, "  -h, --help            show this help\n") != NULL &&
	    strstr(h, "  -v, --verbose") != NULL && strstr(h, "  -q, --quiet") != NULL,
	    "-h, -v and -q on every command");
	ok(strstr(h, "\nexit status:\n  0    fine\n  130  interrupted\n") != NULL,
	    "the exit statuses");
	ok(strstr(h, "\nexamples:\n  fleetmark t -f lab.yaml\n      on the lab\n") != NULL,
	    "the examples");
	ok(strstr(h, "\nsee also: docs/t.md\n") != NULL, "where more is written");
	free(h);
}

/* Every real command: its usage line, every option, no line past 80 columns. */
static void
test_commands(void)
{
	const struct cmd_entry *const all[] = { &cmd_run, &cmd_plan, &cmd_list, &cmd_agent,
	    &cmd_hosts, &cmd_report, &cmd_compare, &cmd_push, &cmd_pull, &cmd_ls,
	    &cmd_bisect, NULL };
	size_t i, bad = 0, wide = 0;
	char want[256];

	for (i = 0; all[i] != NULL; i++) {
		char *h = help_of(all[i]), *line, *save = NULL, *in_examples;

		snprintf(want, sizeof(want), "usage: fleetmark %s ", all[i]->name);
		if (all[i]->help == NULL || strstr(h, want) == NULL || strstr(h, "\noptions:\n") ==
		    NULL || strstr(h, "\nexit status:\n") == NULL ||
		    strstr(h, "\nexamples:\n  ") == NULL) {
			printf("# %s: help incomplete\n", all[i]->name);
			bad++;
		}
		/* example commands are printed whole; everything else wraps */
		if ((in_examples = strstr(h, "\nexamples:\n")) != NULL)
			*in_examples = '\0';
		for (line = strtok_r(h, "\n", &save); line != NULL; line = strtok_r(NULL, "\n",
		    &save))
			if (strlen(line) > CMD_HELP_WIDTH && strncmp(line, "fleetmark ", 10) != 0) {
				printf("# %s: %zu columns: %s\n", all[i]->name, strlen(line), line);
				wide++;
			}
		free(h);
	}
	is_int(bad, 0, "every command has a usage line, options, exit statuses, examples");
	is_int(wide, 0, "and no line of it is wider than 80 columns");
}

static void
test_complete(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cmd_help_complete(&t_cmd, f);
	fclose(f);
	ok(strncmp(buf, "-f FLEET\n-j N\n--label NAME\n--baseline REF\n--dry-run\n-t N\n"
	    "--tries N\n", 61) == 0, "completion: each form of each option with its "
	    "argument");
	ok(strstr(buf, "\n-h\n--help\n") != NULL, "and the common ones");
	free(buf);
}

static void
test_wrap(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fprintf(f, "xx");
	cmd_wrap(f, "aaaa bbbb\ncccc  dddd", 75, 4);
	fclose(f);
	is_str(buf, "xxaaaa\n    bbbb cccc dddd\n", "wrapped at 80 from the column given, "
	    "newlines and runs of blanks are word breaks");
	free(buf);
}

static void
test_threshold(void)
{
	double v = -1;

	/* the refusals print their message on stderr */

	ok(cmd_threshold_option("5", &v) == 0 && v == 5, "threshold: 5");
	ok(cmd_threshold_option("2.5%", &v) == 0 && v == 2.5, "threshold: 2.5%");
	ok(cmd_threshold_option("0", &v) == 0 && v == 0, "threshold: 0");
	ok(cmd_threshold_option("1000%", &v) == 0 && v == 1000, "threshold: 1000%");
	v = 7;
	ok(cmd_threshold_option("1001", &v) == -1 && v == 7, "threshold: 1001 refused, untouched");
	ok(cmd_threshold_option("-1", &v) == -1, "threshold: -1 refused");
	ok(cmd_threshold_option("5%%", &v) == -1, "threshold: 5%% refused");
	ok(cmd_threshold_option("", &v) == -1, "threshold: empty refused");
	ok(cmd_threshold_option("nan", &v) == -1, "threshold: nan refused");
	ok(cmd_threshold_option("1e999", &v) == -1, "threshold: out of range refused");
}

/* How many entries dir holds besides . and .. */
static int
entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void
test_output(void)
{
	const char *tmp = tap_tmpdir("test-cmd");
	struct cmd_output out = CMD_OUTPUT_INIT;
	char path[512], bad[512], *err = NULL, *text = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/out.txt", tmp);
	snprintf(bad, sizeof(bad), "%s/no/such/out.txt", tmp);
	cmd_output_abort(&out);
	ok(out.fp == stdout, "output: an abort before the open is harmless");

	ok(cmd_output_open(&out, NULL, &err) == 0 && out.fp == stdout, "output: no path is stdout");
	ok(cmd_output_close(&out, "the test", &err) == 0, "output: stdout closes (flushed)");

	ok(cmd_output_open(&out, path, &err) == 0 && out.fp != stdout, "output: a file opens");
	fputs("one\n", out.fp);
	is_int(access(path, F_OK), -1, "output: the file is not there before the close");
	ok(cmd_output_close(&out, "the test", &err) == 0, "output: the file closes");
	ok(fs_read_file(path, 1024, &text, &len, &err) == 0 && len == 4 &&
	    strcmp(text, "one\n") == 0, "output: the file holds what was written");
	free(text);
	is_int(entries(tmp), 1, "output: no temporary is left");

	ok(cmd_output_open(&out, path, &err) == 0, "output: again");
	fputs("two\n", out.fp);
	cmd_output_abort(&out);
	ok(out.fp == stdout, "output: an abort leaves stdout");
	text = NULL;
	ok(fs_read_file(path, 1024, &text, &len, &err) == 0 && strcmp(text, "one\n") == 0,
	    "output: an abort leaves the old file as it was");
	free(text);
	is_int(entries(tmp), 1, "output: ... and removes the temporary");

	ok(cmd_output_open(&out, bad, &err) == -1 && err != NULL && out.fp == stdout,
	    "output: a directory that does not exist fails, with a message");
	free(err);
	err = NULL;
	cmd_output_abort(&out);
}

int
main(void)
{
	test_option_errors();
	test_help();
	test_commands();
	test_complete();
	test_wrap();
	test_threshold();
	test_output();
	return tap_done();
}
