/*
 * cmd.c: helpers shared by the subcommands (cmd-*.c): the help every
 * command prints, and what a bad option gets told.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "cmd.h"
#include "fsutil.h"
#include "log.h"
#include "strbuf.h"
#include "verdict.h"
#include "xmalloc.h"
#include "yamldoc.h"

#define OPT_COLUMN	24	/* where an option's text starts */

/* The options every command takes (cmd_common_option()). */
static const struct cmd_option common_options[] = {
	{ 'v', "verbose", NULL, "more messages; again for debugging output", NULL },
	{ 'q', "quiet", NULL, "errors only: no progress, no notes", NULL },
	{ 'h', "help", NULL, "show this help", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

/*
 * "usage: fleetmark NAME USAGE", wrapped under the first argument and
 * never inside brackets or parentheses ("[--label NAME]" stays whole).
 */
static void
usage_line(const struct cmd_entry *e, FILE *f)
{
	const char *p = e->usage, *w;
	int indent = fprintf(f, "usage: fleetmark %s", e->name), col = indent, depth, len;

	indent++;
	while (*p != '\0') {
		while (*p == ' ')
			p++;
		for (w = p, depth = 0; *p != '\0' && (*p != ' ' || depth > 0); p++)
			depth += (*p == '[' || *p == '(') - (*p == ']' || *p == ')');
		if ((len = (int)(p - w)) == 0)
			break;
		if (col > indent && col + 1 + len > CMD_HELP_WIDTH) {
			fprintf(f, "\n%*s", indent - 1, "");
			col = indent - 1;
		}
		fprintf(f, " %.*s", len, w);
		col += 1 + len;
	}
	fputc('\n', f);
}

int
cmd_usage(const struct cmd_entry *e, int to_stdout)
{
	usage_line(e, to_stdout ? stdout : stderr);
	if (!to_stdout && e->help != NULL)
		fprintf(stderr, "`fleetmark help %s` describes every option\n", e->name);
	return to_stdout ? CMD_EXIT_OK : CMD_EXIT_USAGE;
}

void
cmd_wrap(FILE *f, const char *text, int col, int indent)
{
	const char *p = text;
	int first = 1;

	while (*p != '\0') {
		const char *w = p;
		int len;

		while (*w == ' ' || *w == '\n')
			w++;
		if (*w == '\0')
			break;
		for (p = w; *p != '\0' && *p != ' ' && *p != '\n'; p++)
			;
		len = (int)(p - w);
		if (!first && col + 1 + len > CMD_HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", len, w);
		col += len;
		first = 0;
	}
	fputc('\n', f);
}

/* Paragraphs separated by "\n\n": wrapped, or as written when indented. */
static void
paragraphs(FILE *f, const char *text, int indent)
{
	const char *p = text;

	while (*p != '\0') {
		const char *end = strstr(p, "\n\n");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *para = xstrndup(p, n);

		if (para[0] == ' ') {
			char *line, *save = NULL;

			for (line = strtok_r(para, "\n", &save); line != NULL;
			    line = strtok_r(NULL, "\n", &save))
				fprintf(f, "%*s%s\n", indent, "", line);
		} else {
			fprintf(f, "%*s", indent, "");
			cmd_wrap(f, para, indent, indent);
		}
		free(para);
		p += n;
		if (*p != '\0') {
			p += 2;
			fputc('\n', f);
		}
	}
}

/* "-f FLEET", "-t, --table TABLE", "--dry-run": as the help shows it. */
static char *
option_words(const struct cmd_option *o)
{
	struct strbuf s = STRBUF_INIT;

	if (o->key != 0)
		strbuf_addf(&s, "-%c", o->key);
	if (o->key != 0 && o->name != NULL)
		strbuf_addstr(&s, ", ");
	if (o->name != NULL)
		strbuf_addf(&s, "--%s", o->name);
	if (o->arg != NULL)
		strbuf_addf(&s, " %s", o->arg);
	return strbuf_detach(&s, NULL);
}

static void
print_options(FILE *f, const struct cmd_option *o)
{
	for (; o != NULL && o->text != NULL; o++) {
		char *words = option_words(o), *text;
		int col = 2 + (int)strlen(words);

		fprintf(f, "  %s", words);
		if (col + 2 > OPT_COLUMN) {
			fprintf(f, "\n%*s", OPT_COLUMN, "");
		} else
			fprintf(f, "%*s", OPT_COLUMN - col, "");
		text = o->def != NULL ? xasprintf("%s (default: %s)", o->text, o->def) :
		    xstrdup(o->text);
		cmd_wrap(f, text, OPT_COLUMN, OPT_COLUMN);
		free(text);
		free(words);
	}
}

int
cmd_help_print(const struct cmd_entry *e, FILE *f)
{
	const struct cmd_help *h = e->help;
	size_t i;

	fprintf(f, "fleetmark %s: %s\n\n", e->name, e->summary);
	usage_line(e, f);
	if (h == NULL)
		return fflush(f) == 0 && !ferror(f) ? 0 : -1;
	if (h->description != NULL) {
		fputc('\n', f);
		paragraphs(f, h->description, 0);
	}
	if (h->options != NULL || h->shared != NULL || !h->no_common) {
		fprintf(f, "\noptions:\n");
		print_options(f, h->options);
		print_options(f, h->shared);
		if (!h->no_common)
			print_options(f, common_options);
	}
	if (h->exits != NULL) {
		fprintf(f, "\nexit status:\n");
		for (i = 0; h->exits[i].code >= 0; i++) {
			fprintf(f, "  %-5d", h->exits[i].code);
			cmd_wrap(f, h->exits[i].text, 7, 7);
		}
	}
	if (h->examples != NULL) {
		fprintf(f, "\nexamples:\n");
		for (i = 0; h->examples[i].command != NULL; i++) {
			fprintf(f, "  %s\n", h->examples[i].command);
			if (h->examples[i].text != NULL) {
				fprintf(f, "      ");
				cmd_wrap(f, h->examples[i].text, 6, 6);
			}
		}
	}
	if (h->see != NULL) {
		fprintf(f, "\nsee also: ");
		cmd_wrap(f, h->see, 10, 10);
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

static void
complete_options(FILE *f, const struct cmd_option *o)
{
	for (; o != NULL && o->text != NULL; o++) {
		if (o->key != 0)
			fprintf(f, "-%c%s%s\n", o->key, o->arg ? " " : "", o->arg ? o->arg : "");
		if (o->name != NULL)
			fprintf(f, "--%s%s%s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	}
}

void
cmd_help_complete(const struct cmd_entry *e, FILE *f)
{
	if (e->help == NULL)
		return;
	complete_options(f, e->help->options);
	complete_options(f, e->help->shared);
	if (!e->help->no_common)
		complete_options(f, common_options);
}

/* --- bad options ---------------------------------------------------------- */

/* Every documented option of e, in help order, for finding one. */
static const struct cmd_option **
all_options(const struct cmd_entry *e, size_t *n)
{
	const struct cmd_option *tables[3] = { NULL, NULL, common_options }, *o;
	const struct cmd_option **all = NULL;
	size_t cap = 0, t;

	*n = 0;
	if (e->help != NULL) {
		tables[0] = e->help->options;
		tables[1] = e->help->shared;
		if (e->help->no_common)
			tables[2] = NULL;
	}
	for (t = 0; t < 3; t++)
		for (o = tables[t]; o != NULL && o->text != NULL; o++) {
			xgrow(&all, &cap, *n + 1, sizeof(*all));
			all[(*n)++] = o;
		}
	return all;
}

/* " (did you mean '--label'?)" for a long name, or "". */
static char *
long_hint(const char *word, size_t len, const struct cmd_option **all, size_t n)
{
	const char **names = xcalloc(n + 1, sizeof(*names));
	const char *best;
	char *w = xstrndup(word, len), *hint;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (all[i]->name != NULL)
			names[k++] = all[i]->name;
	best = len > 0 ? ydoc_suggest(w, names, k) : NULL;
	hint = best != NULL ? xasprintf(" (did you mean '--%s'?)", best) : xstrdup("");
	free(names);
	free(w);
	return hint;
}

char *
cmd_option_error(const struct cmd_entry *e, char **argv, int optind_now, int optopt_now)
{
	const struct cmd_option **all;
	const char *w = optind_now > 0 ? argv[optind_now - 1] : NULL, *cur = argv[optind_now];
	char *msg, *hint;
	size_t n, i, len, nmatch = 0;

	all = all_options(e, &n);
	/* A short option in a cluster getopt has not finished: the word is the current one. */
	if (optopt_now != 0 && cur != NULL && cur[0] == '-' && cur[1] != '-' &&
	    strchr(cur + 1, optopt_now) != NULL)
		w = cur;
	if (w != NULL && strncmp(w, "--", 2) == 0 && w[2] != '\0') {
		const char *name = w + 2;

		len = strcspn(name, "=");
		if (optopt_now != 0) {
			/* a known long option, with an argument problem */
			msg = name[len] == '=' ?
			    xasprintf("option '--%.*s' doesn't allow an argument", (int)len, name) :
			    xasprintf("option '%s' requires an argument", w);
			free(all);
			return msg;
		}
		for (i = 0; i < n; i++)
			if (all[i]->name != NULL && strncmp(all[i]->name, name, len) == 0)
				nmatch++;
		if (nmatch > 1) {
			struct strbuf s = STRBUF_INIT;

			strbuf_addf(&s, "option '--%.*s' is ambiguous; possibilities:", (int)len, name);
			for (i = 0; i < n; i++)
				if (all[i]->name != NULL && strncmp(all[i]->name, name, len) == 0)
					strbuf_addf(&s, " '--%s'", all[i]->name);
			free(all);
			return strbuf_detach(&s, NULL);
		}
		hint = long_hint(name, len, all, n);
		msg = xasprintf("unrecognized option '%.*s'%s", (int)(len + 2), w, hint);
		free(hint);
		free(all);
		return msg;
	}
	for (i = 0; i < n; i++)
		if (all[i]->key == optopt_now && all[i]->arg != NULL) {
			free(all);
			return xasprintf("option requires an argument -- '%c'", optopt_now);
		}
	/* "-label": a long option written with one dash */
	hint = w != NULL && w[0] == '-' && w[1] != '-' && strlen(w) > 2 ?
	    long_hint(w + 1, strcspn(w + 1, "="), all, n) : xstrdup("");
	if (optopt_now > 0x20 && optopt_now < 0x7f)
		msg = xasprintf("invalid option -- '%c'%s", optopt_now, hint);
	else
		msg = xasprintf("invalid option%s", hint);
	free(hint);
	free(all);
	return msg;
}

int
cmd_common_option(const struct cmd_entry *e, int c, char **argv, int *quiet)
{
	char *msg;

	switch (c) {
	case 'v':
		log_set_level(log_get_level() + 1);
		return -1;
	case 'q':
		if (quiet != NULL)
			*quiet = 1;
		log_set_level(LOG_LEVEL_QUIET);
		return -1;
	case 'h':
		return cmd_help_print(e, stdout) == 0 ? CMD_EXIT_OK : CMD_EXIT_ERROR;
	case '?':
	case ':':
		msg = cmd_option_error(e, argv, optind, optopt);
		fprintf(stderr, "fleetmark %s: %s\n", e->name, msg);
		free(msg);
		return cmd_usage(e, 0);
	default:
		return cmd_usage(e, 0);
	}
}

void
cmd_catch_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int
cmd_threshold_option(const char *arg, double *pct)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || (*end != '\0' && strcmp(end, "%") != 0) || errno != 0 ||
	    !(v >= 0 && v <= VERDICT_THRESHOLD_MAX)) {
		log_error("bad threshold '%s' (a percentage, e.g. 5%%)", arg);
		return -1;
	}
	*pct = v;
	return 0;
}

int
cmd_archive_option(const char *opt, const char *arg)
{
	struct archive_url *u = NULL;
	char *err = NULL, *d;

	if (!archive_is_url(arg)) {
		d = archive_url_display(arg);
		log_error("%s: expected an archive URL (file://, http(s)://, s3://), not '%s'",
		    opt, d);
		free(d);
		return -1;
	}
	if (archive_url_parse(arg, &u, &err) != 0) {
		log_error("%s: %s", opt, err);
		free(err);
		return -1;
	}
	archive_url_free(u);
	return 0;
}

int
cmd_output_open(struct cmd_output *out, const char *path, char **err)
{
	out->fp = stdout;
	out->path = path;
	out->a = (struct fs_atomic){ NULL, NULL, -1, 0 };
	if (path == NULL)
		return 0;
	if (fs_atomic_open(&out->a, path, 0666, FS_NOSYNC, err) != 0)
		return -1;
	if ((out->fp = fs_atomic_stream(&out->a)) == NULL) {
		out->fp = stdout;
		return err_set(err, -1, "cannot write %s: %s", path, strerror(errno));
	}
	return 0;
}

int
cmd_output_close(struct cmd_output *out, const char *what, char **err)
{
	FILE *fp = out->fp;
	int bad;

	if (fp == stdout) {
		if (fflush(stdout) != 0)
			return err_set(err, -1, "cannot write %s: %s", what, strerror(errno));
		return 0;
	}
	out->fp = stdout;
	bad = ferror(fp);
	if (fclose(fp) != 0 || bad) {
		err_set(err, -1, "cannot write %s: %s", out->path, strerror(errno));
		fs_atomic_abort(&out->a);
		return -1;
	}
	return fs_atomic_commit(&out->a, err);
}

void
cmd_output_abort(struct cmd_output *out)
{
	if (out->fp != stdout)
		fclose(out->fp);
	out->fp = stdout;
	fs_atomic_abort(&out->a);
}
