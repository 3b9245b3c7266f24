/*
 * test-deploy.c: what deploy.c trusts on a host, through the local
 * transport in a private directory: directories it makes, one others may
 * write or another user owns (refused, named with owner and mode), and
 * the agent's start, which checks the binary's sum in the same command
 * that runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deploy.h"
#include "tap.h"
#include "transport.h"
#include "xmalloc.h"

static const char script[] = "#!/bin/sh\necho \"ran $*\"\n";

/* The mode bits of path, or -1. */
static int
mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

static void
test_put(struct transport *t, const char *top)
{
	struct transport_result r;
	char *err = NULL, *dir = xasprintf("%s/w", top), *p;
	int rc, up = 0;

	rc = deploy_put(t, "a script", script, sizeof(script) - 1, dir, "programs/abc/run",
	    "\"$p\" one", &r, &up, &err);
	ok(rc == 0 && up == 1 && strcmp(r.out, "ran one\n") == 0,
	    "deploy_put: uploaded, then run in the same channel");
	if (rc == 0)
		transport_result_release(&r);
	free(err);
	err = NULL;
	p = xasprintf("%s/programs/abc", dir);
	ok(mode_of(dir) == 0755 && mode_of(p) == 0755, "... its directories made 0755");
	free(p);

	rc = deploy_put(t, "a script", script, sizeof(script) - 1, dir, "programs/abc/run",
	    "\"$p\" two", &r, &up, &err);
	ok(rc == 0 && up == 0 && strcmp(r.out, "ran two\n") == 0,
	    "... the second time found there intact, not uploaded");
	if (rc == 0)
		transport_result_release(&r);
	free(err);
	err = NULL;

	p = xasprintf("%s/programs", dir);
	chmod(p, 0777);
	rc = deploy_put(t, "a script", script, sizeof(script) - 1, dir, "programs/abc/run",
	    "\"$p\" three", &r, &up, &err);
	ok(rc == TRANSPORT_EREMOTE && err != NULL && strstr(err, p) != NULL &&
	    strstr(err, "has mode drwxrwxrwx") != NULL,
	    "a directory others may write is refused, named with its owner and mode");
	if (err != NULL)
		printf("# %s\n", err);
	free(err);
	err = NULL;
	chmod(p, 0755);
	free(p);

	if (geteuid() == 0) {
		p = xasprintf("%s/programs/abc", dir);
		if (chown(p, 65534, 65534) == 0) {
			rc = deploy_put(t, "a script", script, sizeof(script) - 1, dir,
			    "programs/abc/run", "\"$p\" four", &r, &up, &err);
			ok(rc == TRANSPORT_EREMOTE && err != NULL &&
			    strstr(err, "belongs to uid 65534") != NULL,
			    "another user's directory is refused, named with its owner");
		} else
			ok(1, "another user's directory # SKIP cannot chown");
		free(err);
		err = NULL;
		free(p);
	} else
		ok(1, "another user's directory # SKIP not root: cannot give one away");
	free(dir);
}

static void
test_serve(struct transport *t, const char *top)
{
	struct transport_result r;
	struct deploy_result res;
	const char *rel = "agents/x/fleetmark-agent";
	char *dir = xasprintf("%s/s", top), *cmd, *err = NULL;
	FILE *f;
	int rc, up = 0;

	memset(&res, 0, sizeof(res));
	rc = deploy_put(t, "the agent", script, sizeof(script) - 1, dir, rel, "true", &r, &up,
	    &err);
	ok(rc == 0, "a stand-in agent deployed");
	if (rc == 0)
		transport_result_release(&r);
	free(err);
	res.dir = dir;
	res.path = xasprintf("%s/%s", dir, rel);
	/* its sum as the deploy knows it */
	cmd = xasprintf("%s echo \"$(fm_sum %s)\"", deploy_sh_lib(), res.path);
	rc = transport_run(t, cmd, NULL, 0, 0, 10000, &r);
	free(cmd);
	res.sum_sha = xstrndup(r.out, strcspn(r.out, "\n"));
	res.sum_ck = xstrdup(res.sum_sha);
	transport_result_release(&r);
	ok(rc == 0 && strncmp(res.sum_sha, "sha256 ", 7) == 0 && strlen(res.sum_sha) == 71,
	    "fm_sum: a SHA-256 here");

	cmd = deploy_serve_cmd(&res, "120");
	rc = transport_run(t, cmd, NULL, 0, 0, 10000, &r);
	ok(rc == 0 && r.exit.status == 0 && strcmp(r.out, "ran serve --idle 120\n") == 0,
	    "the start runs the agent it checked");
	transport_result_release(&r);

	/* swapped after the deploy: the same command refuses to run it */
	if ((f = fopen(res.path, "a")) != NULL) {
		fputs("echo swapped\n", f);
		fclose(f);
	}
	rc = transport_run(t, cmd, NULL, 0, 0, 10000, &r);
	ok(rc == 0 && r.exit.status == 126 && strstr(r.out, "ran") == NULL &&
	    strstr(r.err, "is not the agent deployed") != NULL,
	    "an agent changed after its deploy is not run (exit 126, said on stderr)");
	transport_result_release(&r);
	free(cmd);
	free(res.path);
	free(res.sum_sha);
	free(res.sum_ck);
	free(dir);
}

int
main(void)
{
	struct transport_opts o = { 0 };
	struct transport *t = NULL;
	const char *top = tap_tmpdir("test-deploy");
	char *err = NULL;

	if (top == NULL)
		return tap_done();
	o.name = "local";
	o.local = 1;
	if (transport_open(&o, &t, NULL, &err) != 0) {
		printf("# %s\n", err);
		ok(0, "local transport opens");
		free(err);
		return tap_done();
	}
	test_put(t, top);
	test_serve(t, top);
	transport_close(t);
	return tap_done();
}
