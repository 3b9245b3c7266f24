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
#include "xmalloc.h"

static const struct cmd_entry cmd_help;

static const struct cmd_entry *const commands[] = {
	&cmd_run,
	&cmd_plan,
	&cmd_agent,
	&cmd_hosts,
	&cmd_report,
	&cmd_compare,
	&cmd_push,
	&cmd_pull,
	&cmd_ls,
	&cmd_bisect,
	&cmd_history,
	&cmd_help,
	NULL
};

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: fleetmark [-v...] [-q] [-h] [--version] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; commands[i] != NULL; i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n`fleetmark help COMMAND` shows a command's usage.\n");
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

static int
help_main(int argc, char **argv)
{
	const struct cmd_entry *e;

	if (argc < 2) {
		usage(stdout);
		return CMD_EXIT_OK;
	}
	if (argc > 2)
		return cmd_usage(&cmd_help, 0);
	if ((e = find_command(argv[1])) == NULL)
		return unknown_command(argv[1]);
	printf("fleetmark %s: %s\n", e->name, e->summary);
	return cmd_usage(e, 1);
}

static const struct cmd_entry cmd_help = {
	"help", "[COMMAND]", "list the commands, or show one command's usage", help_main
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
		default:
			if (optopt)
				log_error("unknown option '-%c'", optopt);
			else
				log_error("unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			return CMD_EXIT_USAGE;
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
	opterr = 1;
	return e->handler(argc, argv);
}
