/*
 * main.c: fleetmark's entry point: global options and the command table.
 *
 *	fleetmark [-v...] [-q] [-h|--help] [--version] COMMAND [ARGS]
 *
 * Adding a command is one src/cmd-NAME.c file exporting a struct
 * cmd_entry, one declaration in cmd.h and one line in the table below.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "yamldoc.h"
#include "log.h"
#include "proc.h"
#include "xmalloc.h"

static const struct cmd_entry cmd_help;

static const struct cmd_entry *const commands[] = {
	&cmd_run,
	&cmd_collect,
	&cmd_plan,
	&cmd_list,
	&cmd_agent,
	&cmd_hosts,
	&cmd_report,
	&cmd_compare,
	&cmd_push,
	&cmd_pull,
	&cmd_ls,
	&cmd_bisect,
	&cmd_ab,
	&cmd_qualify,
	&cmd_history,
	&cmd_help,
	NULL
};

/* The global options, for the list of commands and for bad options. */
static const struct cmd_option global_options[] = {
	{ 'v', "verbose", NULL, "more messages (again: debugging output, then tracing)", NULL },
	{ 'q', "quiet", NULL, "errors only: no progress, no notes", NULL },
	{ 'h', "help", NULL, "this list", NULL },
	{ 'V', "version", NULL, "the version", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_help global_help = {
	NULL, global_options, NULL, NULL, NULL, NULL, 1
};

static const struct cmd_entry global = {
	"", "[-v...] [-q] [-h] [--version] COMMAND [ARGS]", "", NULL, &global_help
};

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: fleetmark %s\n\n", global.usage);
	fprintf(f, "fleetmark runs kernel benchmarks on a fleet of hosts and compares "
	    "the results.\n\ncommands:\n");
	for (i = 0; commands[i] != NULL; i++)
		fprintf(f, "  %-11s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\nglobal options (before the command):\n");
	for (i = 0; global_options[i].text != NULL; i++)
		fprintf(f, "  -%c, --%-9s %s\n", global_options[i].key, global_options[i].name,
		    global_options[i].text);
	fprintf(f, "\n`fleetmark help COMMAND` (or `fleetmark COMMAND --help`) describes a "
	    "command;\nfleetmark(1) all of them, fleetmark-plan(5) and fleetmark-fleet(5) "
	    "the files\n(`man fleetmark` once installed, docs/man/ in the source tree).\n");
}

static const struct cmd_entry *
find_command(const char *name)
{
	size_t i;

	for (i = 0; commands[i] != NULL; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static int
unknown_command(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];
	size_t n;
	char *hint;

	for (n = 0; commands[n] != NULL; n++)
		names[n] = commands[n]->name;
	hint = ydoc_did_you_mean(name, names, n);
	log_error("unknown command '%s'%s", name, hint);
	free(hint);
	usage(stderr);
	return CMD_EXIT_USAGE;
}

/* For shell completion: the command names, or one command's options. */
static int
help_complete(int argc, char **argv)
{
	const struct cmd_entry *e;
	size_t i;

	if (argc == 2) {
		for (i = 0; commands[i] != NULL; i++)
			printf("%s\n", commands[i]->name);
		return CMD_EXIT_OK;
	}
	if (argc != 3)
		return cmd_usage(&cmd_help, 0);
	if ((e = find_command(argv[2])) == NULL)
		return unknown_command(argv[2]);
	cmd_help_complete(e, stdout);
	return fflush(stdout) == 0 ? CMD_EXIT_OK : CMD_EXIT_ERROR;
}

static int
help_main(int argc, char **argv)
{
	const struct cmd_entry *e;

	if (argc < 2) {
		usage(stdout);
		return CMD_EXIT_OK;
	}
	if (strcmp(argv[1], "--complete") == 0)
		return help_complete(argc, argv);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return cmd_help_print(&cmd_help, stdout) == 0 ? CMD_EXIT_OK : CMD_EXIT_ERROR;
	if (argc > 2)
		return cmd_usage(&cmd_help, 0);
	if ((e = find_command(argv[1])) == NULL)
		return unknown_command(argv[1]);
	return cmd_help_print(e, stdout) == 0 ? CMD_EXIT_OK : CMD_EXIT_ERROR;
}

static const struct cmd_option help_options[] = {
	{ 0, "complete", "[COMMAND]", "for shell completion: the command names, or "
	    "COMMAND's options, one a line", NULL },
	{ 'h', "help", NULL, "show this help", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_example help_examples[] = {
	{ "fleetmark help run", "every option of `run`, its exit statuses, examples" },
	{ "fleetmark help --complete plan", "plan's options, as bash completion reads them" },
	{ NULL, NULL }
};

static const struct cmd_exit help_exits[] = {
	{ 0, "the help was shown" },
	{ 2, "an unknown command" },
	{ -1, NULL }
};

static const struct cmd_help help_help = {
	"Without a COMMAND, the list of commands and the global options.  With one, "
	"the command's help, the same as `fleetmark COMMAND --help`: what it does, "
	"every option with its argument and default, its exit statuses and examples.",
	help_options, NULL, help_exits, help_examples, "fleetmark(1)", 1
};

static const struct cmd_entry cmd_help = {
	"help", "[COMMAND | --complete [COMMAND]]",
	"list the commands, or describe one command", help_main, &help_help
};

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 }
	};
	const struct cmd_entry *e;
	int c, level = LOG_LEVEL_INFO;

	/*
	 * The process groups we start (jumps, hooks) end with us, whether by
	 * exit() or by a signal no command catches.
	 */
	proc_groups_on_exit();
	/* '+': stop at the command name; its options are its own. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hvqV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return CMD_EXIT_OK;
		case 'V':
			printf("fleetmark %s\n", FLEETMARK_VERSION);
			return CMD_EXIT_OK;
		case 'v':
			level++;
			break;
		case 'q':
			level = LOG_LEVEL_QUIET;
			break;
		default: {
			char *msg = cmd_option_error(&global, argv, optind, optopt);

			fprintf(stderr, "fleetmark: %s\n", msg);
			free(msg);
			usage(stderr);
			return CMD_EXIT_USAGE;
		}
		}
	}
	log_set_level(level);
	if (optind >= argc) {
		usage(stderr);
		return CMD_EXIT_USAGE;
	}
	if ((e = find_command(argv[optind])) == NULL)
		return unknown_command(argv[optind]);
	argc -= optind;
	argv += optind;
	optind = 0;	/* glibc: a full reset for the command's getopt */
	opterr = 0;	/* cmd_common_option() says what was wrong */
	return e->handler(argc, argv);
}
