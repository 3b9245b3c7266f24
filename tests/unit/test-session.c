/*
 * test-session: the run session's two rules (session.h), the final status
 * of a run that took place and the exit status that follows from it, for
 * every combination of an interruption, a failed journal write during the
 * run, a failed journal_finish() and the hosts' fates.  The session run
 * end to end is tested by tests/e2e (t400, t403, t408 and t603).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "run.h"
#include "session.h"
#include "tap.h"

int
main(void)
{
	struct run_host hosts[2];
	struct run_summary sum;
	char jerr[] = "cannot write results/x/trials.jsonl: No space left on device";

	memset(&sum, 0, sizeof(sum));
	memset(hosts, 0, sizeof(hosts));
	hosts[0].status = hosts[1].status = JOURNAL_HOST_DONE;
	sum.hosts = hosts;
	sum.nhosts = 2;

	is_int(session_final_status(&sum, 0), JOURNAL_FINISHED, "nothing went wrong: finished");
	is_int(session_final_status(&sum, 1), JOURNAL_FAILED,
	    "journal_finish() failed: failed");
	sum.interrupted = 1;
	is_int(session_final_status(&sum, 0), JOURNAL_INTERRUPTED, "interrupted");
	is_int(session_final_status(&sum, 1), JOURNAL_FAILED,
	    "interrupted, and journal_finish() failed: failed");
	sum.journal_error = jerr;
	is_int(session_final_status(&sum, 0), JOURNAL_FAILED,
	    "interrupted, and a journal write failed: failed (run's rule, now bisect-run's)");
	sum.interrupted = 0;
	is_int(session_final_status(&sum, 0), JOURNAL_FAILED, "a journal write failed: failed");
	sum.journal_error = NULL;

	is_int(session_exit_status(JOURNAL_FINISHED, &sum), CMD_EXIT_OK,
	    "finished, every host done, no trial failed: 0");
	hosts[1].failed = 1;
	is_int(session_exit_status(JOURNAL_FINISHED, &sum), CMD_EXIT_PARTIAL,
	    "finished, a trial failed: 3");
	hosts[1].failed = 0;
	hosts[0].status = JOURNAL_HOST_FAILED;
	is_int(session_exit_status(JOURNAL_FINISHED, &sum), CMD_EXIT_PARTIAL,
	    "finished, a host given up: 3");
	is_int(session_exit_status(JOURNAL_INTERRUPTED, &sum), SESSION_EXIT_INTERRUPTED,
	    "interrupted: 130");
	is_int(session_exit_status(JOURNAL_FAILED, &sum), CMD_EXIT_ERROR, "failed: 1");
	is_int(session_exit_status(JOURNAL_RUNNING, &sum), CMD_EXIT_ERROR,
	    "still running (never ended): 1");
	is_int(SESSION_EXIT_INTERRUPTED, 130, "130 is 128 + SIGINT");
	return tap_done();
}
