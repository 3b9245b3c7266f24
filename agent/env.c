/*
 * env.c: facts about the host that qualify every number measured on it.
 *
 * Everything comes from uname(2), sysconf(3), /proc and /sys; a fact the
 * host does not expose is reported as null, never guessed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent.h"
#include "facts.h"
#include "hostfacts.h"
#include "jline.h"

const char *
agent_arch(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__i386__)
	return "i386";
#elif defined(__aarch64__)
	return "aarch64";
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
	return "armhf";
#elif defined(__arm__)
	return "armel";
#elif defined(__powerpc64__) && defined(__BIG_ENDIAN__)
	return "ppc64";
#elif defined(__powerpc64__)
	return "ppc64el";
#elif defined(__s390x__)
	return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#elif defined(__mips__)
	return "mips";
#else
	return "unknown";
#endif
}

static int
big_endian(void)
{
	const unsigned int one = 1;

	return *(const unsigned char *)&one == 0;
}

/* Value of the first "key<spaces>: value" line of a /proc text file. */
static int
proc_field(const char *path, const char *const *keys, char *out, size_t cap)
{
	char line[512], *colon, *v, *e;
	const char *const *k;
	FILE *f;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		for (k = keys; *k; k++) {
			size_t n = strlen(*k);

			if (strncmp(line, *k, n) != 0)
				continue;
			for (colon = line + n; *colon == ' ' || *colon == '\t'; colon++)
				;
			if (*colon != ':')
				continue;	/* "cpu family" is not "cpu" */
			for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
				;
			e = v + strlen(v);
			while (e > v && (e[-1] == '\n' || e[-1] == ' '))
				*--e = '\0';
			snprintf(out, cap, "%s", v);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -1;
}

static double
cpu_mhz(void)
{
	static const char *const keys[] = { "cpu MHz", "clock", "cpu MHz static", NULL };
	char buf[128];

	if (read_text("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", buf, sizeof(buf)) == 0)
		return atof(buf) / 1000.0;
	if (proc_field("/proc/cpuinfo", keys, buf, sizeof(buf)) == 0)
		return atof(buf);	/* ppc "clock : 1650.000000MHz" parses too */
	return 0;
}

static const char *
find_compiler(void)
{
	static const char *const names[] = { "cc", "gcc", "clang", "tcc", NULL };
	static char found[512];
	const char *path = getenv("PATH");
	char dir[512];
	const char *p, *e;
	int i;

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (i = 0; names[i]; i++) {
		for (p = path; *p; p = *e ? e + 1 : e) {
			e = strchr(p, ':');
			if (e == NULL)
				e = p + strlen(p);
			if ((size_t)(e - p) >= sizeof(dir) - 1 || e == p)
				continue;
			memcpy(dir, p, (size_t)(e - p));
			dir[e - p] = '\0';
			snprintf(found, sizeof(found), "%s/%s", dir, names[i]);
			if (access(found, X_OK) == 0)
				return found;
		}
	}
	return NULL;
}

static int
count_numa_nodes(void)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	if ((d = opendir("/sys/devices/system/node")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "node", 4) == 0 && de->d_name[4] >= '0' &&
		    de->d_name[4] <= '9')
			n++;
	closedir(d);
	return n;
}

struct facts {
	struct utsname	u;
	char		cmdline[4096], model[256], thp[64], gov[64], mem[64];
	char		load[128];
	double		mhz;
	long		page;
	int		cpus, nodes;
	const char	*cc;
};

static void
gather(struct facts *f)
{
	static const char *const model_keys[] = { "model name", "cpu model", "cpu",
	    "Processor", "processor 0", "machine", NULL };
	static const char *const mem_keys[] = { "MemTotal", NULL };

	memset(f, 0, sizeof(*f));
	uname(&f->u);
	read_text("/proc/cmdline", f->cmdline, sizeof(f->cmdline));
	if (proc_field("/proc/cpuinfo", model_keys, f->model, sizeof(f->model)) != 0)
		f->model[0] = '\0';
	facts_thp(f->thp, sizeof(f->thp));
	read_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", f->gov, sizeof(f->gov));
	proc_field("/proc/meminfo", mem_keys, f->mem, sizeof(f->mem));
	read_text("/proc/loadavg", f->load, sizeof(f->load));
	f->mhz = cpu_mhz();
	f->page = sysconf(_SC_PAGESIZE);
	f->cpus = ncpus();
	f->nodes = count_numa_nodes();
	f->cc = find_compiler();
}

static void
put_opt(struct jline *j, const char *key, const char *v)
{
	if (v != NULL && *v)
		jl_str(j, key, v);
	else
		jl_null(j, key);
}

static void
put_vulnerabilities(struct jline *j, int fd, int json)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char path[512], buf[256];
	struct dirent *de;
	DIR *d;

	if (json)
		jl_obj(j, "vulnerabilities");
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (read_text(path, buf, sizeof(buf)) != 0)
				continue;
			if (json)
				jl_str(j, de->d_name, buf);
			else
				dprintf(fd, "vulnerability.%s: %s\n", de->d_name, buf);
		}
		closedir(d);
	}
	if (json)
		jl_close(j);
}

void
env_emit(int fd, const char *id, int json)
{
	struct facts f;
	struct jline j;
	double l1 = 0, l5 = 0, l15 = 0;

	gather(&f);
	sscanf(f.load, "%lf %lf %lf", &l1, &l5, &l15);
	if (!json) {
		dprintf(fd, "agent: %s (protocol %d, built for %s)\n", AGENT_VERSION,
		    WIRE_PROTO, agent_arch());
		dprintf(fd, "hostname: %s\nkernel: %s %s\nversion: %s\nmachine: %s\n",
		    f.u.nodename, f.u.sysname, f.u.release, f.u.version, f.u.machine);
		dprintf(fd, "endian: %s\ncmdline: %s\ncpu: %s\ncpus: %d\nmhz: %.0f\n",
		    big_endian() ? "big" : "little", f.cmdline, f.model, f.cpus, f.mhz);
		dprintf(fd, "numa_nodes: %d\nmemory: %s\npage_size: %ld\nthp: %s\n",
		    f.nodes, f.mem, f.page, f.thp[0] ? f.thp : "unavailable");
		dprintf(fd, "governor: %s\nloadavg: %.2f %.2f %.2f\ncompiler: %s\n",
		    f.gov[0] ? f.gov : "unavailable", l1, l5, l15, f.cc ? f.cc : "none");
		put_vulnerabilities(NULL, fd, 0);
		hostfacts_emit(NULL, fd, 0);
		return;
	}
	jl_begin(&j, WIRE_ENV, id);
	jl_str(&j, "agent", AGENT_VERSION);
	jl_int(&j, "proto", WIRE_PROTO);
	jl_str(&j, "arch", agent_arch());
	jl_str(&j, "endian", big_endian() ? "big" : "little");
	jl_obj(&j, "uname");
	jl_str(&j, "sysname", f.u.sysname);
	jl_str(&j, "nodename", f.u.nodename);
	jl_str(&j, "release", f.u.release);
	jl_str(&j, "version", f.u.version);
	jl_str(&j, "machine", f.u.machine);
	jl_close(&j);
	put_opt(&j, "cmdline", f.cmdline);
	put_opt(&j, "cpu_model", f.model);
	jl_int(&j, "cpus", f.cpus);
	if (f.mhz > 0)
		jl_num(&j, "mhz", f.mhz);
	else
		jl_null(&j, "mhz");
	jl_int(&j, "numa_nodes", f.nodes);
	if (f.mem[0])
		jl_int(&j, "mem_kb", atoll(f.mem));
	else
		jl_null(&j, "mem_kb");
	jl_int(&j, "page_size", f.page);
	put_opt(&j, "thp", f.thp);
	put_opt(&j, "governor", f.gov);
	jl_arr(&j, "loadavg");
	jl_num(&j, NULL, l1);
	jl_num(&j, NULL, l5);
	jl_num(&j, NULL, l15);
	jl_close(&j);
	put_vulnerabilities(&j, fd, 1);
	put_opt(&j, "compiler", f.cc);
	hostfacts_emit(&j, fd, 1);
	{
		char why[128];

		/* null: trials get their kernel log counted (kmsg.c) */
		if (kmsg_probe(why, sizeof(why)) == 0)
			jl_null(&j, "kernel_log");
		else
			jl_str(&j, "kernel_log", why);
	}
	jl_emit(&j, fd);
}
