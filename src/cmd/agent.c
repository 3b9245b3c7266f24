/*
 * cmd/agent.c: `fleetmark agent list|path|build`: the static agent
 * binaries this controller can deploy.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "cmd.h"
#include "yamldoc.h"
#include "digest.h"
#include "log.h"
#include "proc.h"
#include "xmalloc.h"

/* Where agents were looked for, and how to get them, after "msg" on stderr. */
static void
not_found_hint(const struct agent_set *s, int error, const char *msg)
{
	size_t i;

	if (error)
		log_error("%s; looked in:", msg);
	else
		fprintf(stderr, "%s; looked in:\n", msg);
	for (i = 0; i < s->nsearched; i++)
		fprintf(stderr, "  %s\n", s->searched[i]);
	cmd_wrap(stderr, "`make` builds the controller and the native agent only; `make "
	    "agents` in a fleetmark source tree (or `fleetmark agent build`) builds the static "
	    "agents for x86_64, aarch64, armhf, ppc64, ppc64el and s390x (the cross compilers: "
	    "tools/deps), or set FLEETMARK_AGENTS", 0, 0);
}

static int
agent_list(const struct agent_set *s)
{
	char hex[DIGEST_SHA256_HEX], *err = NULL;
	size_t i;
	int rc = CMD_EXIT_OK;

	if (s->n == 0) {
		/* Not an error: runs still work where a compiler is (hosts --check). */
		not_found_hint(s, 0, "no static agents yet");
		cmd_wrap(stderr, "until then a host gets the agent compiled there from source "
		    "on first use when it has a C compiler (this machine too: `fleetmark hosts "
		    "--check` says source:cc), and cannot run at all when it has none", 0, 0);
		return CMD_EXIT_OK;
	}
	printf("%-8s %9s  %-64s  %s\n", "ARCH", "SIZE", "SHA256", "PATH");
	for (i = 0; i < s->n; i++) {
		if (digest_sha256_file(s->bins[i].path, 0, hex, NULL, &err) != 0) {
			log_error("%s", err);
			free(err);
			err = NULL;
			rc = CMD_EXIT_ERROR;
			continue;
		}
		printf("%-8s %9lld  %s  %s\n", s->bins[i].arch, s->bins[i].size, hex,
		    s->bins[i].path);
	}
	return rc;
}

static int
agent_path(const struct agent_set *s, const char *arch)
{
	const struct agent_bin *b = agents_lookup(s, arch);
	const char **names;
	char *hint;
	size_t i;

	if (b != NULL) {
		printf("%s\n", b->path);
		return CMD_EXIT_OK;
	}
	if (s->n == 0) {
		not_found_hint(s, 1, "no agent binaries found");
		return CMD_EXIT_ERROR;
	}
	names = xcalloc(s->n + 1, sizeof(*names));
	for (i = 0; i < s->n; i++)
		names[i] = s->bins[i].arch;
	hint = ydoc_did_you_mean(arch, names, s->n);
	log_error("no agent for architecture '%s'%s", arch, hint);
	fprintf(stderr, "available:");
	for (i = 0; i < s->n; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, "\n");
	free(hint);
	free(names);
	return CMD_EXIT_ERROR;
}

static int
agent_build(void)
{
	char *top = agents_source_tree(), *err = NULL;
	int status;

	if (top == NULL) {
		log_error("agent build: this fleetmark does not run from a source tree; "
		    "run `make agents` in a fleetmark checkout (it needs Debian's cross "
		    "compilers: tools/deps)");
		return CMD_EXIT_ERROR;
	}
	{
		char *argv[] = { "make", "-C", top, "agents", NULL };

		log_info("running make -C %s agents", top);
		if (proc_run(argv, &status, &err) != 0) {
			log_error("%s", err);
			free(err);
			free(top);
			return CMD_EXIT_ERROR;
		}
	}
	free(top);
	if (status != 0) {
		log_error("make agents failed (exit status %d)", status);
		return CMD_EXIT_ERROR;
	}
	return CMD_EXIT_OK;
}

static int
agent_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct agent_set *s;
	const char *sub;
	int c, rc;

	while ((c = getopt_long(argc, argv, "+hvq", longopts, NULL)) != -1)
		if ((c = cmd_common_option(&cmd_agent, c, argv, NULL)) >= 0)
			return c;
	if (optind >= argc)
		return cmd_usage(&cmd_agent, 0);
	sub = argv[optind++];
	if (strcmp(sub, "build") == 0) {
		if (optind != argc)
			return cmd_usage(&cmd_agent, 0);
		return agent_build();
	}
	if (strcmp(sub, "list") == 0) {
		if (optind != argc)
			return cmd_usage(&cmd_agent, 0);
		s = agents_find();
		rc = agent_list(s);
	} else if (strcmp(sub, "path") == 0) {
		if (optind + 1 != argc)
			return cmd_usage(&cmd_agent, 0);
		s = agents_find();
		rc = agent_path(s, argv[optind]);
	} else {
		static const char *const subs[] = { "list", "path", "build" };
		char *hint = ydoc_did_you_mean(sub, subs, 3);

		log_error("unknown agent command '%s'%s", sub, hint);
		free(hint);
		return cmd_usage(&cmd_agent, 0);
	}
	agents_free(s);
	return rc;
}

static const struct cmd_exit agent_exits[] = {
	{ 0, "done (list: also when there are no static agents yet, which it explains)" },
	{ 1, "path: no agent for that architecture; build: not in a source tree, or make "
	    "failed" },
	{ 2, "bad usage, an unknown subcommand" },
	{ -1, NULL }
};

static const struct cmd_example agent_examples[] = {
	{ "fleetmark agent list", "architecture, size, sha256 and path of each static agent" },
	{ "fleetmark agent path armv7l", "the agent a board with uname -m armv7l gets (armhf)" },
	{ NULL, NULL }
};

static const struct cmd_help agent_help = {
	"The static agent binaries this controller deploys, one per architecture, "
	"searched in $FLEETMARK_AGENTS, then the agents/ directory next to this "
	"program (build/agents in a source tree), then its installed place.\n\n"
	"  list         every architecture found: ARCH, SIZE, SHA256, PATH\n"
	"  path ARCH    the binary for ARCH (a Debian architecture or a uname -m name)\n"
	"  build        run `make agents` in the source tree this program was built in\n\n"
	"A plain `make` builds the controller and the native agent (build/fleetmark-agent, "
	"which gives the benchmark catalogue); `make agents` builds the static ones.  A "
	"host no static agent fits gets the agent compiled there from source when it has "
	"a C compiler (the inventory's `agent:` key decides; fleetmark-fleet(5)).",
	NULL, NULL, agent_exits, agent_examples,
	"fleetmark hosts --check (what each host would get), docs/agent.md", 0
};

const struct cmd_entry cmd_agent = {
	"agent", "list | path ARCH | build",
	"the agent binaries this controller can deploy", agent_main, &agent_help
};
