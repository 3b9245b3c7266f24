/*
 * ab/boots.c: each host's sequence of boots (abdir.h), in a child process
 * of its own: the side command (boot.h), the wait until the host is back
 * with a new boot id, the boot check, the plan run as a run of its own
 * under DIR/boots/, the boot's state in ab.json; and --dry-run's account
 * of the sequences.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "ab.h"
#include "ab-int.h"
#include "board.h"
#include "boot.h"
#include "bootspec.h"
#include "cmd.h"
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "plan.h"
#include "run.h"
#include "session.h"
#include "xmalloc.h"

/* --- signals ------------------------------------------------------------------- */

static pid_t children[256];
static size_t nchildren;

static void
on_signal(int sig)
{
	size_t i;

	(void)sig;
	run_request_stop();
	/* The parent passes it on: each child stops its sequence cleanly. */
	for (i = 0; i < nchildren; i++)
		if (children[i] > 0)
			kill(children[i], SIGTERM);
}

/* DIR/boots/HOST-NN-SIDE's name under boots/. */
static char *
boot_run_id(const char *host, size_t idx, enum ab_side s)
{
	return xasprintf("%s-%02zu-%s", host, idx + 1, ab_side_name(s));
}

/* Rename a partial run directory of a boot under way aside, never reused. */
static int
set_aside(const char *path, char **err)
{
	char *to = NULL;
	int i, r = -1;

	for (i = 0; i < 100; i++) {
		free(to);
		to = i == 0 ? xasprintf("%s.interrupted", path) :
		    xasprintf("%s.interrupted.%d", path, i);
		if (access(to, F_OK) != 0)
			break;
	}
	if (rename(path, to) != 0) {
		*err = xasprintf("cannot rename %s to %s: %s", path, to, strerror(errno));
		goto out;
	}
	log_warn("%s: a boot under way when it stopped: set aside as %s", path, to);
	r = 0;
 out:
	free(to);
	return r;
}

/* What one host's child is given. */
struct host_job {
	const struct ab_ctx	*c;
	const struct fleet_host	*h;
	const unsigned char	*sel;		/* only h */
	json_t			*seq;		/* the host's sequence (borrowed) */
	int			 quiet;
	int			*cycles;	/* power cycles spent (recover:) */
};

/* The result of one boot. */
enum boot_result {
	BOOT_OK,
	BOOT_PARTIAL,		/* done, some trials failed */
	BOOT_FAILED,		/* the host fails: recorded */
	BOOT_LOST,		/* lost, with a power cycle left: not recorded */
	BOOT_STOPPED,		/* interrupted: left under way */
	BOOT_ERROR,		/* ab.json could not be written */
};

/* Record the boot failed with class and reason; the host stops. */
static enum boot_result
boot_fail(const struct host_job *j, size_t idx, const char *class, const char *reason)
{
	char *err = NULL;

	log_error("%s: boot %zu: %s: %s", j->h->name, idx + 1, class, reason);
	if (ab_state_set(j->c->dir, j->h->name, idx, ST_FAILED, NULL, class, reason, NULL, &err) != 0) {
		log_error("%s", err);
		free(err);
		return BOOT_ERROR;
	}
	return BOOT_FAILED;
}

/*
 * The boot of idx was lost (a side that failed, a host that did not come
 * back or came back wrong): BOOT_LOST with *lost when the inventory lets
 * the host be power-cycled once more (`power:`, `recover:`), else the
 * host fails with class boot.
 */
static enum boot_result
boot_lost(const struct host_job *j, size_t idx, const char *reason, char **lost)
{
	if (j->h->power_cycle != NULL && *j->cycles < j->h->recover) {
		*lost = xstrdup(reason);
		return BOOT_LOST;
	}
	return boot_fail(j, idx, "boot", reason);
}

/*
 * Make j->h boot into side (boot idx, its side command cmd) and check
 * the boot: BOOT_OK with the new boot's facts in *bb, BOOT_LOST with why
 * in *lost (boot_lost()), else the host failed (recorded), stopped or
 * could not record.  *expect is what the
 * kernel must contain; the side command's FLEETMARK_EXPECT_KERNEL= line
 * replaces it.  Nothing is measured unless the boot id changed and the
 * kernel is the one expected (when one is).
 */
static enum boot_result
boot_side(const struct host_job *j, size_t idx, enum ab_side side, const char *cmd,
    char **expect, struct board_boot *bb, char **lost)
{
	const struct fleet_host *h = j->h;
	char *err = NULL, *what, num[16];
	long long wait_ms = h->boot_timeout_ms > 0 ? h->boot_timeout_ms : DEFAULT_BOOT_MS;
	enum boot_result res = BOOT_ERROR;
	struct bootspec way;
	int r;

	memset(&way, 0, sizeof(way));
	memset(bb, 0, sizeof(*bb));
	what = xasprintf("side %s", ab_side_name(side));
	snprintf(num, sizeof(num), "%zu", idx + 1);
	if (setenv("FLEETMARK_HOST", h->name, 1) != 0 ||
	    setenv("FLEETMARK_SIDE", ab_side_name(side), 1) != 0 ||
	    setenv("FLEETMARK_BOOT", num, 1) != 0) {
		log_error("setenv: %s", strerror(errno));
		goto out;
	}
	/* A command, a kexec or the host's boot: entry (ab/side.c). */
	if (boot_spec_for_host(side == AB_A ? "-A" : "-B", cmd, h, &way, &err) != 0) {
		res = boot_fail(j, idx, "boot", err);
		goto out;
	}
	if ((r = boot_into(what, h, &way, wait_ms, j->quiet ? NULL : stderr, expect, bb,
	    &err)) == BOOT_INTO_STOPPED) {
		res = BOOT_STOPPED;
		goto out;
	}
	if (r != 0) {
		res = boot_lost(j, idx, err, lost);
		goto out;
	}
	log_info("%s: boot %zu (%s): boot id %s, kernel %s", h->name, idx + 1,
	    ab_side_name(side), bb->boot_id, bb->release);
	res = BOOT_OK;
 out:
	bootspec_release(&way);
	free(what);
	free(err);
	return res;
}

/*
 * Power-cycle j->h after the boot of idx was lost, as a run recovers a
 * board (docs/boards.md): the cycle noted in ab.json, the host's `power:
 * cycle` command, the wait until it answers again.  BOOT_OK to try the
 * side again; else the host failed with class boot (recorded), the
 * command stopped, or ab.json could not be written.
 */
static enum boot_result
recover(const struct host_job *j, size_t idx, const char *lost)
{
	const struct fleet_host *h = j->h;
	long long wait_ms = h->boot_timeout_ms > 0 ? h->boot_timeout_ms : DEFAULT_BOOT_MS;
	struct board_boot bb;
	char *err = NULL, *why = NULL;
	enum boot_result res = BOOT_ERROR;

	memset(&bb, 0, sizeof(bb));
	(*j->cycles)++;
	log_warn("%s: boot %zu: power cycle %d of %d: %s", h->name, idx + 1, *j->cycles,
	    h->recover, lost);
	if (ab_state_recovered(j->c->dir, h->name, idx, *j->cycles, lost, &err) != 0) {
		log_error("%s", err);
		goto out;
	}
	if (board_power(h, "cycle", &err) != 0) {
		why = xasprintf("%s; the power cycle failed: %s", lost, err);
		res = boot_fail(j, idx, "boot", why);
		goto out;
	}
	if (boot_wait_host(h, wait_ms, &bb, &err) != 0) {
		if (run_stop_requested()) {
			res = BOOT_STOPPED;
			goto out;
		}
		why = xasprintf("%s; not back within %.0f s of a power cycle: %s", lost,
		    (double)wait_ms / 1000, err ? err : "?");
		res = boot_fail(j, idx, "boot", why);
		goto out;
	}
	res = run_stop_requested() ? BOOT_STOPPED : BOOT_OK;
 out:
	board_boot_release(&bb);
	free(err);
	free(why);
	return res;
}

/*
 * Boot j->h into the side of boot idx (boot_side()), then run the plan
 * there as a run of its own under DIR/boots/, and record the boot done.
 */
static enum boot_result
do_boot(const struct host_job *j, size_t idx)
{
	const struct ab_ctx *c = j->c;
	const struct fleet_host *h = j->h;
	json_t *b = json_array_get(j->seq, idx);
	enum ab_side side = strcmp(ab_jstr(b, "side"), "B") == 0 ? AB_B : AB_A;
	json_t *sd = json_object_get(json_object_get(c->state, "sides"), ab_side_name(side));
	const char *cmd = ab_jstr(sd, "command"), *label = ab_jstr(sd, "label");
	char *expect = ab_jstr(sd, "expect") ? xstrdup(ab_jstr(sd, "expect")) : NULL;
	char *id = boot_run_id(h->name, idx, side), *boots = xasprintf("%s/%s", c->dir,
	    AB_BOOTS), *path = xasprintf("%s/%s", boots, id), *rel = xasprintf("%s/%s",
	    AB_BOOTS, id);
	char *err = NULL, *lost = NULL;
	struct session_config cfg;
	struct session *s = NULL;
	struct board_boot bb;
	enum boot_result res = BOOT_ERROR;
	int code;

	memset(&bb, 0, sizeof(bb));
	if (access(path, F_OK) == 0 && set_aside(path, &err) != 0)
		goto error;
	if (ab_state_set(c->dir, h->name, idx, ST_RUNNING, NULL, NULL, NULL, NULL, &err) != 0)
		goto error;
	/* A lost boot is retried after a power cycle, while recover: allows. */
	while ((res = boot_side(j, idx, side, cmd, &expect, &bb, &lost)) == BOOT_LOST) {
		board_boot_release(&bb);
		memset(&bb, 0, sizeof(bb));
		res = recover(j, idx, lost);
		free(lost);
		lost = NULL;
		if (res != BOOT_OK)
			goto out;
	}
	if (res != BOOT_OK)
		goto out;

	memset(&cfg, 0, sizeof(cfg));
	cfg.plan = c->p;
	cfg.fleet = c->f;
	cfg.sel = j->sel;
	cfg.seed = (unsigned long long)json_integer_value(json_object_get(c->state,
	    "plan_seed"));
	cfg.label = label;
	cfg.quiet = j->quiet;
	cfg.expect_kernel = expect;
	cfg.run_id = id;
	cfg.side = ab_side_name(side);
	cfg.boot = (unsigned)(idx + 1);
	if (session_create(boots, &cfg, &s, &err) != 0)
		goto error;
	if (session_run(s, &cfg, &err) != 0) {
		res = boot_fail(j, idx, "run", err);
		goto out;
	}
	if (session_status(s) == JOURNAL_INTERRUPTED || run_stop_requested()) {
		res = BOOT_STOPPED;
		goto out;
	}
	if (session_status(s) == JOURNAL_FAILED) {
		res = boot_fail(j, idx, "run", session_error(s) ? session_error(s) : "failed");
		goto out;
	}
	session_report(s, NULL, NULL);
	code = session_exit(s);
	if (ab_state_set(c->dir, h->name, idx, ST_DONE, rel, NULL, NULL, &bb, &err) != 0)
		goto error;
	res = code == CMD_EXIT_OK ? BOOT_OK : BOOT_PARTIAL;
	goto out;
 error:
	log_error("%s", err);
	res = BOOT_ERROR;
 out:
	session_free(s);
	board_boot_release(&bb);
	free(expect);
	free(id);
	free(boots);
	free(path);
	free(rel);
	free(err);
	return res;
}

/* A host's sequence from its first boot not done: the child's exit status. */
static int
host_sequence(const struct host_job *j)
{
	size_t i, n = json_array_size(j->seq);
	int code = CMD_EXIT_OK;
	json_t *sides = json_object_get(j->c->state, "sides");
	const char *texts[2] = { ab_jstr(json_object_get(sides, "A"), "command"),
	    ab_jstr(json_object_get(sides, "B"), "command") };
	char *err = NULL;

	/* Before the host's first reboot: a kexec side's files are there. */
	for (i = 0; i < n; i++)
		if (strcmp(ab_jstr(json_array_get(j->seq, i), "state"), ST_DONE) != 0)
			break;
	if (i < n && ab_sides_precheck(texts, j->h, &err) != 0) {
		enum boot_result r = boot_fail(j, i, "boot", err);

		free(err);
		return r == BOOT_ERROR ? CMD_EXIT_ERROR : CMD_EXIT_PARTIAL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ab_jstr(json_array_get(j->seq, i), "state"), ST_DONE) == 0)
			continue;
		if (run_stop_requested())
			return CMD_EXIT_INTERRUPTED;
		switch (do_boot(j, i)) {
		case BOOT_OK:
			break;
		case BOOT_PARTIAL:
			code = CMD_EXIT_PARTIAL;
			break;
		case BOOT_FAILED:
		case BOOT_LOST:		/* do_boot() recovers or fails it */
			return CMD_EXIT_PARTIAL;
		case BOOT_STOPPED:
			return CMD_EXIT_INTERRUPTED;
		case BOOT_ERROR:
			return CMD_EXIT_ERROR;
		}
	}
	return run_stop_requested() && i < n ? CMD_EXIT_INTERRUPTED : code;
}

/*
 * Each host's sequence in a child of its own; the worst of their exit
 * statuses (interrupted first, then an error, then a failure).
 */
static int
run_children(const struct ab_ctx *c, int quiet)
{
	json_t *seqs = json_object_get(c->state, "sequences");
	size_t i, k;
	int st, code = CMD_EXIT_OK, rank = 0;

	cmd_catch_signals(on_signal);
	signal(SIGPIPE, SIG_IGN);
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < c->nhosts && i < sizeof(children) / sizeof(children[0]); i++) {
		struct host_job j;
		unsigned char *sel;
		int cycles = 0;
		pid_t pid;

		if ((pid = fork()) < 0) {
			log_error("cannot fork: %s", strerror(errno));
			run_request_stop();
			break;
		}
		if (pid > 0) {
			children[nchildren++] = pid;
			continue;
		}
		nchildren = 0;
		sel = xcalloc(c->f->nhosts, 1);
		for (k = 0; k < c->f->nhosts; k++)
			sel[k] = &c->f->hosts[k] == c->hosts[i];
		j.c = c;
		j.h = c->hosts[i];
		j.sel = sel;
		j.seq = json_object_get(seqs, c->hosts[i]->name);
		j.quiet = quiet || c->nhosts > 1;
		j.cycles = &cycles;
		st = host_sequence(&j);
		fflush(stdout);
		fflush(stderr);
		_exit(st);
	}
	for (i = 0; i < nchildren; i++) {
		int r, w;

		while ((r = waitpid(children[i], &w, 0)) < 0 && errno == EINTR)
			;
		children[i] = 0;
		st = r < 0 ? CMD_EXIT_ERROR : WIFEXITED(w) ? WEXITSTATUS(w) : CMD_EXIT_ERROR;
		k = st == CMD_EXIT_INTERRUPTED ? 3 : st == CMD_EXIT_ERROR ? 2 :
		    st == CMD_EXIT_OK ? 0 : 1;
		if ((int)k > rank) {
			rank = (int)k;
			code = st;
		}
	}
	nchildren = 0;
	if (run_stop_requested() && code == CMD_EXIT_OK)
		code = CMD_EXIT_INTERRUPTED;
	return code;
}

int
ab_run_hosts(struct ab_ctx *c, int quiet, int *code, char **err)
{
	*code = run_children(c, quiet);
	/* the children wrote ab.json: read it again */
	json_decref(c->state);
	c->state = NULL;
	return ab_state_load(c->dir, &c->state, err);
}

/* --dry-run: each host's sequence and the machine time it takes. */
int
ab_dry_run(const struct ab_cmdopts *o, const struct ab_ctx *c, enum ab_order order)
{
	uint64_t seed = plan_seed(c->p);
	enum ab_side *sv = xcalloc((size_t)o->boots * 2, sizeof(*sv));
	size_t i, k, n = (size_t)o->boots * 2;
	double worst = 0;

	ab_order_sides(order, seed, (size_t)o->boots, sv, NULL);
	printf("dry run: nothing is contacted and nothing is written\n");
	printf("order %s%s, %lld boots a side\n", ab_order_name(order),
	    order == AB_ORDER_RANDOM ? " (seed recorded when it runs)" : "", o->boots);
	for (i = 0; i < c->nhosts; i++) {
		const struct fleet_host *h = c->hosts[i];
		struct plan_schedule *s = plan_expand(c->p, h->name, plan_seed(c->p));
		struct plan_estimate e;
		long long bt = h->boot_timeout_ms > 0 ? h->boot_timeout_ms : DEFAULT_BOOT_MS;
		double total;

		plan_estimate_schedule(c->cat, c->p, s, &e);
		printf("%s:", h->name);
		for (k = 0; k < n; k++)
			printf(" %s", ab_side_name(sv[k]));
		total = (double)n * (e.secs + (double)bt / 1000);
		printf("\n  %zu boots, each the plan's %zu trials (about %.0f s by the model%s%s%s) "
		    "and a boot of at most %.0f s (%s): at most about %.0f s\n", n, s->ntrials,
		    e.secs, e.unknown ? "; without a model: " : "", e.unknown ? e.names : "",
		    e.unknown ? "" : "", (double)bt / 1000, h->boot_timeout_ms > 0 ?
		    "its boot_timeout" : "no boot_timeout: the default", total);
		worst = total > worst ? total : worst;
		plan_schedule_free(s);
	}
	printf("machine time: the hosts run at once, at most about %.0f s\n", worst);
	free(sv);
	return CMD_EXIT_OK;
}
