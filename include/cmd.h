/*
 * cmd.h: the subcommand table entry, and the help every command prints.
 *
 * Each subcommand lives in src/cmd-NAME.c and exports one struct cmd_entry;
 * src/main.c lists them in its command table.  A handler gets the
 * command's own argv (argv[0] is the command name) after the global
 * options, parses its options with getopt, and returns the process exit
 * status (CMD_EXIT_*).  Only main.c and the cmd-*.c files may exit.
 *
 * A command's help (`fleetmark CMD --help`, `fleetmark help CMD`) is made
 * from its struct cmd_help: the usage line, the summary, a description,
 * every option with its argument and default, the exit statuses and a few
 * examples.  The same table gives option errors their suggestions and
 * shell completion its option names (`fleetmark help --complete CMD`);
 * tests/e2e/t203 checks it against each command's getopt table and the
 * man page.
 */
#ifndef FLEETMARK_CMD_H
#define FLEETMARK_CMD_H

#include <stdio.h>

#include "fsutil.h"

#define FLEETMARK_VERSION	"0.1.0"

/* Exit statuses (docs/guide.md, fleetmark(1)). */
#define CMD_EXIT_OK		0	/* success */
#define CMD_EXIT_ERROR		1	/* something failed */
#define CMD_EXIT_USAGE		2	/* bad usage or invalid input */
#define CMD_EXIT_PARTIAL	3	/* finished, some hosts or trials failed */
#define CMD_EXIT_REGRESSION	4	/* a significant regression was found */
#define CMD_EXIT_RUNNING	5	/* a detached run goes on: collect again later */
#define CMD_EXIT_INTERRUPTED	130	/* stopped by SIGINT or SIGTERM: 128 + SIGINT,
					 * as shells report it */

#define CMD_HELP_WIDTH		80	/* help text is wrapped to this many columns */

/* One option of a command, as its help describes it. */
struct cmd_option {
	int		 key;		/* the short option ('f'), or 0 for none */
	const char	*name;		/* the long option without "--", or NULL */
	const char	*arg;		/* its argument ("FLEET"), NULL when it takes none */
	const char	*text;		/* what it does; NULL ends a table */
	const char	*def;		/* its default, or NULL */
};

/* One exit status; a code of -1 ends a table. */
struct cmd_exit {
	int		 code;
	const char	*text;
};

/* One example; a NULL command ends a table. */
struct cmd_example {
	const char	*command;	/* "fleetmark plan plans/smoke.yaml" */
	const char	*text;		/* what it does, or NULL */
};

struct cmd_help {
	/*
	 * Paragraphs separated by an empty line, wrapped when printed; a
	 * paragraph whose lines start with a blank is printed as written.
	 */
	const char			*description;
	const struct cmd_option		*options;	/* the command's own, or NULL */
	const struct cmd_option		*shared;	/* more, from a table another command
							 * shares (compare takes report's), or NULL */
	const struct cmd_exit		*exits;		/* or NULL */
	const struct cmd_example	*examples;	/* or NULL */
	const char			*see;		/* where more is written, or NULL */
	int				 no_common;	/* takes no -h, -v, -q (help) */
};

struct cmd_entry {
	const char	*name;		/* what the user types: "plan" */
	const char	*usage;		/* arguments after the name: "PLAN [-f FLEET]" */
	const char	*summary;	/* one line for `fleetmark help` */
	int		(*handler)(int argc, char **argv);
	const struct cmd_help *help;	/* for --help; NULL: the usage line only */
};

extern const struct cmd_entry cmd_run;
extern const struct cmd_entry cmd_collect;
extern const struct cmd_entry cmd_plan;
extern const struct cmd_entry cmd_list;
extern const struct cmd_entry cmd_agent;
extern const struct cmd_entry cmd_hosts;
extern const struct cmd_entry cmd_report;
extern const struct cmd_entry cmd_compare;
extern const struct cmd_entry cmd_push;
extern const struct cmd_entry cmd_pull;
extern const struct cmd_entry cmd_ls;
extern const struct cmd_entry cmd_ab;
extern const struct cmd_entry cmd_qualify;
extern const struct cmd_entry cmd_bisect;
extern const struct cmd_entry cmd_history;

/* The options report and compare share (cmd/report.c). */
extern const struct cmd_option cmd_report_options[];

/*
 * Print "usage: fleetmark NAME USAGE" for e to stderr (or stdout when
 * to_stdout) and return CMD_EXIT_USAGE (or CMD_EXIT_OK).  On stderr a
 * second line says where the options are described.
 */
int	cmd_usage(const struct cmd_entry *e, int to_stdout);

/*
 * Print e's whole help to f: "fleetmark NAME: SUMMARY", the usage line,
 * the description, the options (each with its argument and default; -h,
 * -v and -q unless no_common), the exit statuses, the examples and where
 * more is written, wrapped to CMD_HELP_WIDTH columns.  Returns 0, or -1
 * when f could not be written.
 */
int	cmd_help_print(const struct cmd_entry *e, FILE *f);

/*
 * Print text (words separated by blanks or newlines) on f from column col,
 * where the cursor is, wrapped at CMD_HELP_WIDTH with continuation lines
 * indented by indent, and end the line.  A word longer than a line is
 * printed whole.
 */
void	cmd_wrap(FILE *f, const char *text, int col, int indent);

/*
 * e's options for shell completion, one a line on f: "-f FLEET",
 * "--label NAME", "--dry-run" (the short form of an option that has both
 * on a line of its own), -h, -v and -q included unless no_common.
 */
void	cmd_help_complete(const struct cmd_entry *e, FILE *f);

/*
 * The options every command takes, for the default case of its getopt
 * loop (with "hvq" in its option string and opterr 0, as main() leaves
 * it): -v raises the log level one step, -q makes it quiet (and sets
 * *quiet to 1 when quiet is not NULL), -h prints e's help to stdout.
 * '?', getopt's answer to a bad option, prints what was wrong as
 * "fleetmark NAME: unrecognized option '--lable' (did you mean
 * '--label'?)" (the suggestion from e's help), and e's usage, on stderr;
 * argv is the handler's, to name the option.  Returns -1 when the loop
 * goes on (-v, -q), else the exit status for the handler to return:
 * CMD_EXIT_OK for -h, CMD_EXIT_USAGE otherwise.
 */
int	cmd_common_option(const struct cmd_entry *e, int c, char **argv, int *quiet);

/*
 * The long names of those options, for the end of a command's getopt_long
 * table (before its { NULL, 0, NULL, 0 }): --verbose, --quiet, --help.
 */
#define CMD_COMMON_LONGOPTS \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "help", no_argument, NULL, 'h' }

/*
 * The message cmd_common_option() prints for getopt's '?' after
 * argv[optind - 1] (or argv[optind], an option cluster not finished),
 * without the "fleetmark NAME: " prefix, as a new string.  optopt is
 * getopt's.
 */
char	*cmd_option_error(const struct cmd_entry *e, char **argv, int optind_now,
	    int optopt_now);

/*
 * Call handler on SIGINT and SIGTERM (no SA_RESTART: a blocking call the
 * signal interrupts returns EINTR), for the commands that stop cleanly on
 * the first one (run, bisect-run, push, pull, ls).
 */
void	cmd_catch_signals(void (*handler)(int));

/*
 * A percentage option (--threshold): "5", "5%" or "2.5%", 0 to 1000, into
 * *pct; else the message "bad threshold '...' (a percentage, e.g. 5%)" on
 * stderr and -1 (the caller exits CMD_EXIT_USAGE).
 */
int	cmd_threshold_option(const char *arg, double *pct);

/*
 * An option's archive URL (opt: "--push"), checked before anything is
 * done: 0, or -1 with the error said (a URL archive.h does not parse).
 */
int	cmd_archive_option(const char *opt, const char *arg);

/*
 * Where a command's output goes: -o FILE, written to a temporary beside
 * FILE and renamed over it at the end (atomically, without fsync: the
 * output can be made again), or stdout.
 *
 *	struct cmd_output out;
 *
 *	if (cmd_output_open(&out, outfile, &err) != 0) ...
 *	write to out.fp
 *	if (cmd_output_close(&out, "the report", &err) != 0) ...
 *
 * CMD_OUTPUT_INIT is stdout, for an abort before the open.
 * cmd_output_open() with path NULL is stdout; 0, or -1 with *err (and
 * out.fp stdout, so that cmd_output_abort() is harmless).  path is
 * borrowed until the close.  cmd_output_close() closes and renames the
 * file, or flushes stdout: 0, or -1 with *err ("cannot write FILE: ...",
 * or "cannot write WHAT: ..." for stdout), the file removed.
 * cmd_output_abort() removes a file not closed yet; after a close or on
 * stdout it does nothing.
 */
struct cmd_output {
	FILE		*fp;
	const char	*path;		/* NULL: stdout */
	struct fs_atomic a;
};
#define CMD_OUTPUT_INIT	{ stdout, NULL, { NULL, NULL, -1, 0 } }

int	cmd_output_open(struct cmd_output *out, const char *path, char **err);
int	cmd_output_close(struct cmd_output *out, const char *what, char **err);
void	cmd_output_abort(struct cmd_output *out);

#endif /* FLEETMARK_CMD_H */
