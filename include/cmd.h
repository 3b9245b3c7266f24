/*
 * cmd.h: the subcommand table entry.
 *
 * Each subcommand lives in src/cmd-NAME.c and exports one struct cmd_entry;
 * src/main.c lists them in its command table.  A handler gets the
 * command's own argv (argv[0] is the command name) after the global
 * options, parses its options with getopt, and returns the process exit
 * status (CMD_EXIT_*).  Only main.c and the cmd-*.c files may exit.
 */
#ifndef FLEETMARK_CMD_H
#define FLEETMARK_CMD_H

#define FLEETMARK_VERSION	"0.1.0"

/* Exit statuses (docs/guide.md). */
#define CMD_EXIT_OK		0	/* success */
#define CMD_EXIT_ERROR		1	/* something failed */
#define CMD_EXIT_USAGE		2	/* bad usage or invalid input */
#define CMD_EXIT_PARTIAL	3	/* finished, some hosts or trials failed */
#define CMD_EXIT_REGRESSION	4	/* a significant regression was found */

struct cmd_entry {
	const char	*name;		/* what the user types: "plan" */
	const char	*usage;		/* arguments after the name: "PLAN [-f FLEET]" */
	const char	*summary;	/* one line for `fleetmark help` */
	int		(*handler)(int argc, char **argv);
};

extern const struct cmd_entry cmd_run;
extern const struct cmd_entry cmd_plan;
extern const struct cmd_entry cmd_agent;
extern const struct cmd_entry cmd_hosts;
extern const struct cmd_entry cmd_report;
extern const struct cmd_entry cmd_compare;
extern const struct cmd_entry cmd_push;
extern const struct cmd_entry cmd_pull;
extern const struct cmd_entry cmd_ls;
extern const struct cmd_entry cmd_bisect;

/*
 * Print "usage: fleetmark NAME USAGE" for e to stderr (or stdout when
 * to_stdout, for -h) and return CMD_EXIT_USAGE (or CMD_EXIT_OK).
 */
int	cmd_usage(const struct cmd_entry *e, int to_stdout);

/*
 * The options every command takes, for the default case of its getopt
 * loop (with "hvq" in its option string): -v raises the log level one
 * step, -q makes it quiet (and sets *quiet to 1 when quiet is not NULL),
 * -h prints e's usage to stdout, any other option e's usage to stderr.
 * Returns -1 when the loop goes on (-v, -q), else the exit status for the
 * handler to return: CMD_EXIT_OK for -h, CMD_EXIT_USAGE otherwise.
 */
int	cmd_common_option(const struct cmd_entry *e, int c, int *quiet);

/*
 * Call handler on SIGINT and SIGTERM (no SA_RESTART: a blocking call the
 * signal interrupts returns EINTR), for the commands that stop cleanly on
 * the first one (run, bisect-run, push, pull, ls).
 */
void	cmd_catch_signals(void (*handler)(int));

#endif /* FLEETMARK_CMD_H */
