/*
 * agents.c: find the static agent binaries this controller can deploy.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents.h"
#include "proc.h"
#include "strv.h"
#include "xmalloc.h"

static int
bin_cmp(const void *a, const void *b)
{
	const struct agent_bin *x = a, *y = b;

	return strcmp(x->arch, y->arch);
}

static int
have_arch(const struct agent_set *s, const char *arch)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->bins[i].arch, arch) == 0)
			return 1;
	return 0;
}

static void
scan_dir(struct agent_set *s, size_t *cap, const char *dir)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	s->searched = xreallocarray(s->searched, s->nsearched + 1, sizeof(*s->searched));
	s->searched[s->nsearched++] = xstrdup(dir);
	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *path;

		if (de->d_name[0] == '.' || have_arch(s, de->d_name))
			continue;
		path = xasprintf("%s/%s/%s", dir, de->d_name, AGENTS_BINARY);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
			free(path);
			continue;
		}
		xgrow(&s->bins, cap, s->n + 1, sizeof(*s->bins));
		s->bins[s->n].arch = xstrdup(de->d_name);
		s->bins[s->n].path = path;
		s->bins[s->n].size = (long long)st.st_size;
		s->n++;
	}
	closedir(d);
}

/* dir/rel without "x/.." where it can be resolved. */
static char *
join_resolved(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel), buf[PATH_MAX];

	if (realpath(p, buf) != NULL) {
		free(p);
		return xstrdup(buf);
	}
	return p;
}

struct agent_set *
agents_find(void)
{
	struct agent_set *s = xcalloc(1, sizeof(*s));
	const char *env = getenv("FLEETMARK_AGENTS");
	char *exe = proc_exe_dir(), *dir, *parent;
	size_t cap = 0;

	if (env != NULL && *env != '\0')
		scan_dir(s, &cap, env);
	if (exe != NULL) {
		dir = join_resolved(exe, "agents");
		scan_dir(s, &cap, dir);
		free(dir);
		parent = join_resolved(exe, "..");
		dir = xasprintf("%s/lib/fleetmark/agents", strcmp(parent, "/") ? parent : "");
		scan_dir(s, &cap, dir);
		free(dir);
		free(parent);
		free(exe);
	}
#ifdef FLEETMARK_LIBEXECDIR
	scan_dir(s, &cap, FLEETMARK_LIBEXECDIR "/agents");
#endif
	if (s->n > 1)
		qsort(s->bins, s->n, sizeof(*s->bins), bin_cmp);
	return s;
}

void
agents_free(struct agent_set *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->bins[i].arch);
		free(s->bins[i].path);
	}
	free(s->bins);
	strv_free(s->searched, s->nsearched);
	free(s);
}

const char *
agents_arch_for_machine(const char *m)
{
	static const struct { const char *machine, *arch; } map[] = {
		{ "x86_64", "x86_64" }, { "amd64", "x86_64" },
		{ "aarch64", "aarch64" }, { "arm64", "aarch64" },
		{ "armv7l", "armhf" }, { "armv6l", "armhf" }, { "armv8l", "armhf" },
		{ "ppc64", "ppc64" }, { "ppc64le", "ppc64el" },
		{ "s390x", "s390x" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(m, map[i].machine) == 0)
			return map[i].arch;
	return m;
}

const struct agent_bin *
agents_lookup(const struct agent_set *s, const char *arch)
{
	const char *a = agents_arch_for_machine(arch);
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->bins[i].arch, a) == 0)
			return &s->bins[i];
	return NULL;
}

char *
agents_source_tree(void)
{
	char *exe = proc_exe_dir(), *top, *mk, *ag;
	int ok;

	if (exe == NULL)
		return NULL;
	top = join_resolved(exe, "..");
	free(exe);
	mk = xasprintf("%s/Makefile", top);
	ag = xasprintf("%s/agent/main.c", top);
	ok = access(mk, R_OK) == 0 && access(ag, R_OK) == 0;
	free(mk);
	free(ag);
	if (!ok) {
		free(top);
		return NULL;
	}
	return top;
}
