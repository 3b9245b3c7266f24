/*
 * cmd/hosts.c: `fleetmark hosts [-f FLEET] [-H HOSTS] [--check]`: list the
 * selected hosts of an inventory, or log in to each of them (one login
 * per host, all in parallel through the handshake pacer) and report
 * reach, host key, authentication, architecture, CPUs, kernel and how the
 * agent would get there: a prebuilt binary for the architecture, compiled
 * there from source (the host has a C compiler), or not at all.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agents.h"
#include "clock.h"
#include "cmd.h"
#include "fleet.h"
#include "hostconn.h"
#include "log.h"
#include "pace.h"
#include "transport.h"
#include "xmalloc.h"

/*
 * What a host is asked, in one exec channel.  Fixed text: no value of the
 * inventory goes into it.  CPUs: getconf, else nproc, else /proc/cpuinfo
 * (busybox has no getconf).
 */
static const char probe_cmd[] =
	"printf 'fm-arch=%s\\n' \"$(uname -m)\"; "
	"printf 'fm-kernel=%s\\n' \"$(uname -r)\"; "
	"n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || "
	"grep -c '^processor' /proc/cpuinfo 2>/dev/null); "
	"printf 'fm-cpus=%s\\n' \"$n\"; "
	"c=$(command -v cc || command -v gcc || command -v clang); "
	"printf 'fm-cc=%s\\n' \"${c##*/}\"; "
	/* the host's lease (agent/lease.c): its holder, and whether it is
	 * held still (flock(1) where there is one) */
	"l=/tmp/.fleetmark-lease; if [ -s $l ]; then "
	"printf 'fm-lease=%s\\n' \"$(head -c 600 $l | head -n 1)\"; "
	"if command -v flock >/dev/null 2>&1; then "
	"if flock -n $l true 2>/dev/null; then echo fm-lease-state=stale; "
	"else echo fm-lease-state=held; fi; fi; fi";

#define PROBE_TIMEOUT_MS	30000
#define FIELD_MAX		64

struct check {
	const struct fleet_host	*h;
	struct pace		*pace;
	const struct agent_set	*agents;
	int			 code;		/* 0 or TRANSPORT_E* */
	char			*why;		/* the failure, NULL when fine */
	struct transport_info	 info;
	char			 arch[FIELD_MAX], kernel[FIELD_MAX], cpus[FIELD_MAX];
	char			 cc[FIELD_MAX];		/* the C compiler there, or "?" */
	char			 agent[FIELD_MAX];	/* agent_column() */
	char			*lease;		/* "held by OWNER (run RUN, since T)", or NULL */
	long long		 ms;		/* open and probe, slot waits excluded */
};

/*
 * The lease line of the probe's output as people read it, or NULL when
 * the host has none: "held by ann@laptop (run R, since T)", "left by ...
 * (its agent is gone: the next run takes it)", or "... (held?)" where
 * the host has no flock(1) to tell.
 */
static char *
lease_text(const char *out)
{
	const char *p = strstr(out, "fm-lease="), *state = strstr(out, "fm-lease-state=");
	char since[CLOCK_ISO8601_MAX] = "", *line, *r = NULL;
	const char *owner, *run;
	json_t *o, *v;

	if (p == NULL || (p != out && p[-1] != '\n'))
		return NULL;
	p += strlen("fm-lease=");
	line = xstrndup(p, strcspn(p, "\n"));
	o = json_loads(line, 0, NULL);
	free(line);
	if (!json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	owner = json_string_value(json_object_get(o, "owner"));
	run = json_string_value(json_object_get(o, "run"));
	v = json_object_get(o, "since");
	if (json_is_number(v) && json_number_value(v) > 0)
		clock_iso8601(since, sizeof(since), (time_t)json_number_value(v), -1);
	if (state != NULL)
		state += strlen("fm-lease-state=");
	r = xasprintf("%s %.64s (%srun %.64s%s%s)%s", state != NULL &&
	    strncmp(state, "stale", 5) == 0 ? "left by" : "held by", owner ? owner : "?",
	    json_is_true(json_object_get(o, "detached")) ? "detached " : "",
	    run ? run : "?", *since ? ", since " : "", since, state == NULL ? " (held?)" :
	    strncmp(state, "stale", 5) == 0 ? ": its agent is gone, the next run takes it" : "");
	json_decref(o);
	/* printable ASCII only: it came from the host */
	for (line = r; *line; line++)
		if ((unsigned char)*line < 0x20 || (unsigned char)*line >= 0x7f)
			*line = '?';
	return r;
}

/* Copy value (up to the end of its line) keeping printable ASCII only. */
static void
field(const char *out, const char *key, char *dst)
{
	const char *p = out;
	size_t klen = strlen(key), n = 0;

	snprintf(dst, FIELD_MAX, "?");
	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			for (p += klen + 1; *p != '\0' && *p != '\n' && n + 1 < FIELD_MAX; p++)
				if (*p >= 0x21 && *p <= 0x7e)
					dst[n++] = *p;
			dst[n] = '\0';
			if (n == 0)
				snprintf(dst, FIELD_MAX, "?");
			return;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
}

/*
 * What deploy.c will do, as the AGENT column says it: the architecture of
 * the prebuilt binary it uploads; "source:CC" when it compiles the agent
 * there (no binary fits, or `agent: source`) with the compiler CC; else
 * "missing:ARCH".
 */
static void
agent_column(struct check *c, const char *arch, int prebuilt)
{
	if (prebuilt)
		snprintf(c->agent, sizeof(c->agent), "%s", arch);
	else if (c->h->agent != FLEET_AGENT_PREBUILT && strcmp(c->cc, "?") != 0)
		snprintf(c->agent, sizeof(c->agent), "source:%.*s", FIELD_MAX - 8, c->cc);
	else
		snprintf(c->agent, sizeof(c->agent), "missing:%.*s", FIELD_MAX - 9, arch);
}

static void *
check_host(void *arg)
{
	struct check *c = arg;
	struct transport_opts o;
	struct transport_result res;
	struct transport *t = NULL;
	long long t0;
	char *err = NULL;
	const struct agent_bin *b;
	const char *arch;

	hostconn_opts(c->h, c->pace, &o);
	c->code = transport_open(&o, &t, &c->info, &err);
	if (c->code != 0) {
		c->why = err != NULL ? err : xstrdup("cannot connect");
		c->ms = c->info.open_ms;
		return NULL;
	}
	t0 = clock_mono_ms();
	c->code = transport_run(t, probe_cmd, NULL, 0, 4096, PROBE_TIMEOUT_MS, &res);
	c->ms = c->info.open_ms + clock_mono_ms() - t0;
	if (c->code != 0)
		c->why = xasprintf("%s: probe: %s", c->h->name, transport_error(t));
	else if (res.exit.status != 0)
		c->why = xasprintf("%s: probe exited with status %d%s%.200s", c->h->name,
		    res.exit.status, *res.err ? ": " : "", res.err);
	if (c->code == 0 && res.exit.status != 0)
		c->code = TRANSPORT_EREMOTE;
	field(res.out, "fm-arch", c->arch);
	field(res.out, "fm-kernel", c->kernel);
	field(res.out, "fm-cpus", c->cpus);
	field(res.out, "fm-cc", c->cc);
	c->lease = lease_text(res.out);
	transport_result_release(&res);
	transport_close(t);
	if (strcmp(c->arch, "?") != 0) {
		arch = agents_arch_for_machine(c->arch);
		b = c->agents != NULL && c->h->agent != FLEET_AGENT_SOURCE ?
		    agents_lookup(c->agents, arch) : NULL;
		agent_column(c, arch, b != NULL);
	}
	return NULL;
}

static char *
labels_of(const struct fleet_host *h)
{
	char *s = xstrdup(""), *n;
	size_t i;

	for (i = 0; i < h->nlabels; i++) {
		n = xasprintf("%s%s%s", s, i ? "," : "", h->labels[i]);
		free(s);
		s = n;
	}
	if (h->nlabels == 0) {
		free(s);
		s = xstrdup("-");
	}
	return s;
}

static int
list_hosts(const struct fleet *f, const unsigned char *sel)
{
	size_t i, wn = 4, wa = 7;
	char port[16];

	for (i = 0; i < f->nhosts; i++) {
		const struct fleet_host *h = &f->hosts[i];

		if (!sel[i])
			continue;
		if (strlen(h->name) > wn)
			wn = strlen(h->name);
		if (h->address != NULL && strlen(h->address) > wa)
			wa = strlen(h->address);
	}
	printf("%-*s  %-*s  %5s  %-8s  %-9s  %-20s  %s\n", (int)wn, "HOST", (int)wa, "ADDRESS",
	    "PORT", "USER", "TRANSPORT", "LABELS", "VIA");
	for (i = 0; i < f->nhosts; i++) {
		const struct fleet_host *h = &f->hosts[i];
		char *labels;

		if (!sel[i])
			continue;
		labels = labels_of(h);
		if (h->transport == FLEET_TRANSPORT_LOCAL)
			snprintf(port, sizeof(port), "-");
		else
			snprintf(port, sizeof(port), "%d", h->port > 0 ? h->port : FLEET_DEFAULT_PORT);
		printf("%-*s  %-*s  %5s  %-8s  %-9s  %-20s  %s\n", (int)wn, h->name, (int)wa,
		    h->address ? h->address : "-", port,
		    h->transport == FLEET_TRANSPORT_LOCAL ? "-" : h->user ? h->user : "(default)",
		    fleet_transport_name(h->transport), labels,
		    h->proxy_jump ? h->proxy_jump : "-");
		free(labels);
	}
	return CMD_EXIT_OK;
}

static const char *
dash(const char *s)
{
	return s != NULL && *s != '\0' ? s : "-";
}

/* Below the table: what the AGENT column's source: and missing: mean. */
static void
agent_notes(const struct check *cs, size_t n)
{
	size_t i, src = 0, missing = 0;

	for (i = 0; i < n; i++) {
		src += strncmp(cs[i].agent, "source:", 7) == 0;
		missing += strncmp(cs[i].agent, "missing:", 8) == 0;
	}
	if (src > 0) {
		printf("\n");
		cmd_wrap(stdout, src == 1 ? "source:CC: no prebuilt agent is used for this "
		    "host; it is compiled there from source with CC on first use and cached in "
		    "the host's workdir (`make agents` builds the static agents)" : "source:CC: "
		    "no prebuilt agent is used for these hosts; it is compiled there from source "
		    "with CC on first use and cached in each host's workdir (`make agents` builds "
		    "the static agents)", 0, 2);
	}
	if (missing > 0) {
		printf("\n");
		cmd_wrap(stdout, "missing:ARCH: no prebuilt agent for ARCH and no C compiler "
		    "there (or `agent: prebuilt`): a run fails to deploy; `make agents` builds "
		    "the static agents (fleetmark agent list)", 0, 2);
	}
}

static int
check_hosts(const struct fleet *f, const unsigned char *sel)
{
	struct check *cs;
	pthread_t *th;
	unsigned char *started;
	pthread_attr_t attr;
	struct pace *pace;
	struct pace_stats st;
	struct agent_set *agents;
	size_t i, k, n = 0, failed = 0, wn = 4, wa = 7, wk = 6;
	long long t0 = clock_mono_ms();
	char time[16];

	for (i = 0; i < f->nhosts; i++)
		n += sel[i] ? 1 : 0;
	cs = xcalloc(n, sizeof(*cs));
	th = xcalloc(n, sizeof(*th));
	started = xcalloc(n, 1);
	agents = agents_find();
	pace = pace_new(PACE_INITIAL, n < PACE_DEFAULT_MAX ? (int)n : PACE_DEFAULT_MAX, 0);
	transport_global_init();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1 << 20);
	for (i = 0, n = 0; i < f->nhosts; i++) {
		if (!sel[i])
			continue;
		cs[n].h = &f->hosts[i];
		cs[n].pace = pace;
		cs[n].agents = agents;
		snprintf(cs[n].arch, FIELD_MAX, "-");
		snprintf(cs[n].kernel, FIELD_MAX, "-");
		snprintf(cs[n].cpus, FIELD_MAX, "-");
		snprintf(cs[n].agent, FIELD_MAX, "-");
		snprintf(cs[n].cc, FIELD_MAX, "?");
		if (pthread_create(&th[n], &attr, check_host, &cs[n]) == 0)
			started[n] = 1;
		else
			check_host(&cs[n]);	/* out of threads: check this one here */
		n++;
	}
	pthread_attr_destroy(&attr);
	for (i = 0; i < n; i++)
		if (started[i])
			pthread_join(th[i], NULL);

	for (i = 0; i < n; i++) {
		if (strlen(cs[i].h->name) > wn)
			wn = strlen(cs[i].h->name);
		if (cs[i].h->address != NULL && strlen(cs[i].h->address) > wa)
			wa = strlen(cs[i].h->address);
		if (strlen(cs[i].kernel) > wk)
			wk = strlen(cs[i].kernel);
	}
	printf("%-*s  %-*s  %-8s  %-7s  %-9s  %-10s  %-7s  %4s  %-*s  %-14s  %s\n",
	    (int)wn, "HOST", (int)wa, "ADDRESS", "USER", "REACH", "HOSTKEY", "AUTH", "ARCH",
	    "CPUS", (int)wk, "KERNEL", "AGENT", "TIME");
	for (i = 0; i < n; i++) {
		const struct check *c = &cs[i];
		const char *reach = c->code == 0 ? "ok" : transport_class(c->code);
		const char *auth = c->info.auth;

		if (c->code == TRANSPORT_EAUTH)
			auth = "denied";
		snprintf(time, sizeof(time), "%.2fs", (double)c->ms / 1000);
		printf("%-*s  %-*s  %-8s  %-7s  %-9s  %-10s  %-7s  %4s  %-*s  %-14s  %s\n",
		    (int)wn, c->h->name, (int)wa, dash(c->h->address), dash(c->info.user), reach,
		    dash(c->info.hostkey), dash(auth), c->arch, c->cpus, (int)wk, c->kernel,
		    c->agent, time);
		if (c->code != 0)
			failed++;
	}
	agent_notes(cs, n);
	for (i = 0, k = 0; i < n; i++)
		if (cs[i].lease != NULL) {
			if (k++ == 0)
				printf("\nleases:\n");
			printf("  %s: %s\n", cs[i].h->name, cs[i].lease);
		}
	if (failed > 0) {
		printf("\n%zu of %zu hosts failed:\n", failed, n);
		for (i = 0; i < n; i++)
			if (cs[i].code != 0)
				printf("  %s: %s: %s\n", cs[i].h->name, transport_class(cs[i].code),
				    cs[i].why);
	}
	fflush(stdout);
	pace_stats(pace, &st);
	log_verbose("checked %zu hosts in %.2f s; pacer: window %.1f, at most %d handshakes "
	    "at once, %u quick and %u slow, %u transient failures, %u retries", n,
	    (double)(clock_mono_ms() - t0) / 1000, st.window, st.peak, st.ok, st.slow,
	    st.transient, st.retries);
	for (i = 0; i < n; i++) {
		free(cs[i].why);
		free(cs[i].lease);
	}
	free(cs);
	free(th);
	free(started);
	pace_free(pace);
	agents_free(agents);
	return failed > 0 ? CMD_EXIT_PARTIAL : CMD_EXIT_OK;
}

static int
hosts_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *file = NULL, *spec = NULL;
	struct fleet *f = NULL;
	unsigned char *sel = NULL;
	char *err = NULL;
	int c, check = 0, rc;

	while ((c = getopt_long(argc, argv, "+f:H:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'H':
			spec = optarg;
			break;
		case 'c':
			check = 1;
			break;
		default:
			if ((c = cmd_common_option(&cmd_hosts, c, argv, NULL)) >= 0)
				return c;
			break;
		}
	}
	if (optind != argc)
		return cmd_usage(&cmd_hosts, 0);
	if (fleet_load(file, &f, &err) != 0) {
		log_error("%s", err);
		free(err);
		return CMD_EXIT_USAGE;
	}
	sel = xcalloc(f->nhosts, 1);
	if (spec != NULL) {
		if (fleet_select(f, spec, sel, &err) != 0) {
			log_error("%s", err);
			free(err);
			free(sel);
			fleet_free(f);
			return CMD_EXIT_USAGE;
		}
	} else
		memset(sel, 1, f->nhosts);
	rc = check ? check_hosts(f, sel) : list_hosts(f, sel);
	free(sel);
	fleet_free(f);
	return rc;
}

static const struct cmd_option hosts_options[] = {
	{ 'f', NULL, "FLEET", "the inventory (fleetmark-fleet(5))", "the embedded fleet: one "
	    "host, local, this machine" },
	{ 'H', NULL, "HOSTS", "only these hosts: names and @labels, comma separated", "all" },
	{ 0, "check", NULL, "log in to each host (all at once, one login each) and report "
	    "reach, host key, authentication, architecture, CPUs, kernel, how the agent "
	    "gets there and the time it took", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit hosts_exits[] = {
	{ 0, "the list was printed, or (--check) every host answered" },
	{ 2, "bad usage or an invalid inventory, an unknown host or label in -H" },
	{ 3, "--check: some hosts failed (each one's class and message under the table)" },
	{ -1, NULL }
};

static const struct cmd_example hosts_examples[] = {
	{ "fleetmark hosts -f lab.yaml -H @numa", "the NUMA hosts: address, port, user, "
	    "transport, labels, jump hosts" },
	{ "fleetmark hosts -f lab.yaml --check", "can every host be reached and run an agent?" },
	{ NULL, NULL }
};

static const struct cmd_help hosts_help = {
	"Without --check, lists the selected hosts of the inventory as it resolves "
	"them, and connects nowhere.\n\n"
	"With --check, logs in to each host and runs one command there (uname, the "
	"number of CPUs, whether it has a C compiler).  The AGENT column says how a "
	"run would get the agent there: ARCH, the prebuilt static binary of `make "
	"agents` for that architecture; source:CC, compiled there from the agent's "
	"sources with CC on first use (no prebuilt binary fits, or `agent: source`); "
	"missing:ARCH, neither.  The local host is reached like any other, without SSH.",
	hosts_options, NULL, hosts_exits, hosts_examples,
	"docs/transport.md (how hosts are reached), fleetmark-fleet(5)", 0
};

const struct cmd_entry cmd_hosts = {
	"hosts", "[-f FLEET] [-H HOSTS] [--check]",
	"list the fleet's hosts, or check that each one can be reached", hosts_main,
	&hosts_help
};
