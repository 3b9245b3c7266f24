/*
 * hostfacts.c: the facts of `env` that say how quiet and how known a
 * machine is.  See hostfacts.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent.h"
#include "hostfacts.h"
#include "jline.h"

#define CPU_DIR		"/sys/devices/system/cpu"
#define MAX_STATES	16		/* cpuidle states looked at */
#define MAX_PROCS	100000		/* /proc entries looked at for irqbalance */
#define MAX_CONFIG	(8 << 20)	/* bytes of a kernel config read */

/* The sysctls recorded, in this order (docs/environment.md). */
static const char *const sysctls[] = {
	"kernel.randomize_va_space", "kernel.numa_balancing", "kernel.sched_autogroup_enabled",
	"kernel.perf_event_paranoid", "kernel.nmi_watchdog", "kernel.watchdog",
	"kernel.timer_migration", "kernel.sched_rt_runtime_us", "kernel.kptr_restrict",
	"vm.swappiness", "vm.overcommit_memory", "vm.zone_reclaim_mode", "vm.dirty_ratio",
	"vm.dirty_background_ratio", "vm.stat_interval", "vm.nr_hugepages", NULL
};

/* The kernel config options recorded (their value, or null when not set). */
static const char *const config_keys[] = {
	"CONFIG_PREEMPT_NONE", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT",
	"CONFIG_PREEMPT_RT", "CONFIG_PREEMPT_DYNAMIC", "CONFIG_HZ", "CONFIG_NO_HZ_IDLE",
	"CONFIG_NO_HZ_FULL", "CONFIG_TRANSPARENT_HUGEPAGE",
	"CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS", "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE",
	"CONFIG_NUMA_BALANCING", "CONFIG_PAGE_TABLE_ISOLATION",
	"CONFIG_MITIGATION_PAGE_TABLE_ISOLATION", "CONFIG_RETPOLINE",
	"CONFIG_MITIGATION_RETPOLINE", "CONFIG_DEBUG_KERNEL", "CONFIG_KASAN",
	"CONFIG_PROVE_LOCKING", NULL
};

struct out {
	struct jline	*j;
	int		 fd, json;
	const char	*prefix;	/* text: "cpuidle." inside an object */
};

static void
put(struct out *o, const char *key, const char *v)
{
	if (o->json) {
		if (v != NULL)
			jl_str(o->j, key, v);
		else
			jl_null(o->j, key);
	} else
		dprintf(o->fd, "%s%s: %s\n", o->prefix, key, v != NULL ? v : "unavailable");
}

static void
open_obj(struct out *o, const char *key, const char *prefix)
{
	if (o->json)
		jl_obj(o->j, key);
	o->prefix = prefix;
}

static void
close_obj(struct out *o)
{
	if (o->json)
		jl_close(o->j);
	o->prefix = "";
}

/* The text of path into buf, or NULL when it cannot be read. */
static const char *
text_of(const char *path, char *buf, size_t cap)
{
	return read_text(path, buf, cap) == 0 ? buf : NULL;
}

static const char *
microcode(char *buf, size_t cap)
{
	char line[256], *v, *e;
	FILE *f;
	int n = 0;

	if ((f = fopen("/proc/cpuinfo", "re")) == NULL)
		return NULL;
	/* the first processor's; a few thousand lines at most */
	while (fgets(line, sizeof(line), f) != NULL && n++ < 10000) {
		if (strncmp(line, "microcode", 9) != 0 || (v = strchr(line, ':')) == NULL)
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		e = v + strlen(v);
		while (e > v && isspace((unsigned char)e[-1]))
			*--e = '\0';
		snprintf(buf, cap, "%s", v);
		fclose(f);
		return buf;
	}
	fclose(f);
	return NULL;
}

/* "on" or "off" from intel_pstate's no_turbo or cpufreq's boost; NULL. */
static const char *
boost(const char **control)
{
	char buf[32];

	*control = NULL;
	if (read_text(CPU_DIR "/intel_pstate/no_turbo", buf, sizeof(buf)) == 0) {
		*control = CPU_DIR "/intel_pstate/no_turbo";
		return strcmp(buf, "0") == 0 ? "on" : "off";
	}
	if (read_text(CPU_DIR "/cpufreq/boost", buf, sizeof(buf)) == 0) {
		*control = CPU_DIR "/cpufreq/boost";
		return strcmp(buf, "0") == 0 ? "off" : "on";
	}
	return NULL;
}

static void
put_cpuidle(struct out *o)
{
	char buf[128], path[256], names[MAX_STATES * 24] = "", off[MAX_STATES * 24] = "";
	char limit[32] = "", dis[16];
	int i, any = 0;

	for (i = 0; i < MAX_STATES; i++) {
		snprintf(path, sizeof(path), CPU_DIR "/cpu0/cpuidle/state%d/name", i);
		if (read_text(path, buf, 24) != 0)
			break;
		any = 1;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
		    *names ? "," : "", buf);
		snprintf(path, sizeof(path), CPU_DIR "/cpu0/cpuidle/state%d/disable", i);
		if (read_text(path, dis, sizeof(dis)) == 0 && strcmp(dis, "0") != 0)
			snprintf(off + strlen(off), sizeof(off) - strlen(off), "%s%s",
			    *off ? "," : "", buf);
		else
			snprintf(limit, sizeof(limit), "%s", buf);
	}
	if (!any && access(CPU_DIR "/cpuidle/current_driver", R_OK) != 0) {
		if (o->json)
			jl_null(o->j, "cpuidle");
		else
			dprintf(o->fd, "cpuidle: unavailable\n");
		return;
	}
	open_obj(o, "cpuidle", "cpuidle.");
	put(o, "driver", text_of(CPU_DIR "/cpuidle/current_driver", buf, sizeof(buf)));
	put(o, "governor", text_of(CPU_DIR "/cpuidle/current_governor", buf, sizeof(buf)));
	put(o, "states", any ? names : NULL);
	put(o, "disabled", any ? off : NULL);
	put(o, "limit", *limit ? limit : NULL);
	close_obj(o);
}

/* Whether a process named irqbalance runs: 1, 0, or -1 (no /proc). */
static int
irqbalance_runs(void)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *d;
	int n = 0, found = 0;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while (!found && (de = readdir(d)) != NULL && n++ < MAX_PROCS) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || strlen(de->d_name) > 20)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (read_text(path, comm, sizeof(comm)) == 0 && strcmp(comm, "irqbalance") == 0)
			found = 1;
	}
	closedir(d);
	return found;
}

/* The kernel config's text, read through a FILE. */
struct kconfig {
	char		 source[300];
	uint64_t	 hash;			/* FNV-1a 64 of every byte */
	char		*vals[sizeof(config_keys) / sizeof(config_keys[0])];
	int		 truncated;
};

static void
kconfig_line(struct kconfig *k, const char *line)
{
	size_t i, n;
	const char *eq;

	if ((eq = strchr(line, '=')) == NULL)
		return;
	n = (size_t)(eq - line);
	for (i = 0; config_keys[i] != NULL; i++)
		if (strlen(config_keys[i]) == n && strncmp(line, config_keys[i], n) == 0 &&
		    k->vals[i] == NULL) {
			k->vals[i] = strdup(eq + 1);
			if (k->vals[i] != NULL)
				k->vals[i][strcspn(k->vals[i], "\n")] = '\0';
		}
}

static int
kconfig_read(struct kconfig *k, FILE *f)
{
	char line[1024];
	size_t total = 0, i;
	int any = 0;

	k->hash = 14695981039346656037ULL;
	while (fgets(line, sizeof(line), f) != NULL) {
		for (i = 0; line[i] != '\0'; i++) {
			k->hash ^= (unsigned char)line[i];
			k->hash *= 1099511628211ULL;
		}
		total += i;
		any = 1;
		if (line[0] == 'C')
			kconfig_line(k, line);
		if (total > MAX_CONFIG) {
			k->truncated = 1;
			break;
		}
	}
	return any ? 0 : -1;
}

static int
kconfig_load(struct kconfig *k)
{
	struct utsname u;
	FILE *f;
	int r;

	memset(k, 0, sizeof(*k));
	if (uname(&u) == 0) {
		snprintf(k->source, sizeof(k->source), "/boot/config-%s", u.release);
		if ((f = fopen(k->source, "re")) != NULL) {
			r = kconfig_read(k, f);
			fclose(f);
			if (r == 0)
				return 0;
		}
	}
	if (access("/proc/config.gz", R_OK) != 0)
		return -1;
	snprintf(k->source, sizeof(k->source), "/proc/config.gz");
	/* No zlib in the agent: the system's gzip (busybox has one). */
	if ((f = popen("gzip -dc /proc/config.gz 2>/dev/null || zcat /proc/config.gz "
	    "2>/dev/null", "r")) == NULL)
		return -1;
	r = kconfig_read(k, f);
	if (k->truncated) {
		char sink[4096];

		while (fread(sink, 1, sizeof(sink), f) > 0)
			;
	}
	pclose(f);
	return r;
}

static void
put_kconfig(struct out *o)
{
	struct kconfig k;
	char hash[40];
	size_t i;

	if (kconfig_load(&k) != 0) {
		if (o->json)
			jl_null(o->j, "kernel_config");
		else
			dprintf(o->fd, "kernel_config: unavailable\n");
		for (i = 0; config_keys[i] != NULL; i++)
			free(k.vals[i]);
		return;
	}
	snprintf(hash, sizeof(hash), "fnv1a64:%016llx%s", (unsigned long long)k.hash,
	    k.truncated ? "+" : "");
	open_obj(o, "kernel_config", "kernel_config.");
	put(o, "source", k.source);
	put(o, "hash", hash);
	if (o->json)
		jl_obj(o->j, "options");
	for (i = 0; config_keys[i] != NULL; i++) {
		if (o->json)
			put(o, config_keys[i], k.vals[i]);
		else
			dprintf(o->fd, "kernel_config.%s: %s\n", config_keys[i],
			    k.vals[i] != NULL ? k.vals[i] : "not set");
		free(k.vals[i]);
	}
	if (o->json)
		jl_close(o->j);
	close_obj(o);
}

static void
put_sysctls(struct out *o)
{
	char path[128], buf[128], *p;
	size_t i;

	open_obj(o, "sysctl", "sysctl.");
	for (i = 0; sysctls[i] != NULL; i++) {
		snprintf(path, sizeof(path), "/proc/sys/%s", sysctls[i]);
		for (p = path + strlen("/proc/sys/"); *p; p++)
			if (*p == '.')
				*p = '/';
		put(o, sysctls[i], text_of(path, buf, sizeof(buf)));
	}
	close_obj(o);
}

void
hostfacts_emit(struct jline *j, int fd, int json)
{
	struct out o = { j, fd, json, "" };
	const char *control, *b;
	char buf[256];
	int irq;

	put(&o, "microcode", microcode(buf, sizeof(buf)));
	put(&o, "smt", text_of(CPU_DIR "/smt/control", buf, sizeof(buf)));
	b = boost(&control);
	put(&o, "boost", b);
	put(&o, "boost_control", control);
	put_cpuidle(&o);
	put(&o, "clocksource", text_of("/sys/devices/system/clocksource/clocksource0/"
	    "current_clocksource", buf, sizeof(buf)));
	put(&o, "isolcpus", text_of(CPU_DIR "/isolated", buf, sizeof(buf)));
	put(&o, "nohz_full", text_of(CPU_DIR "/nohz_full", buf, sizeof(buf)));
	irq = irqbalance_runs();
	if (json && irq >= 0)
		jl_bool(j, "irqbalance", irq);
	else if (json)
		jl_null(j, "irqbalance");
	else
		dprintf(fd, "irqbalance: %s\n", irq < 0 ? "unavailable" : irq ? "running" :
		    "not running");
	put_kconfig(&o);
	put_sysctls(&o);
}
