/*
 * test-free: every free function of the controller accepts NULL (the
 * house rule), and so do the functions that free the parts of a struct
 * report (report_*_release()): each is called with NULL and must return.
 * A new *_free() belongs here.
 */
#include <stddef.h>

#include "agentproto.h"
#include "agents.h"
#include "archive.h"
#include "autorep.h"
#include "catalog.h"
#include "detach.h"
#include "fleet.h"
#include "history.h"
#include "journal.h"
#include "nightly.h"
#include "pace.h"
#include "plan.h"
#include "program.h"
#include "progress.h"
#include "report.h"
#include "report/report-int.h"
#include "rgrid.h"
#include "rundir.h"
#include "session.h"
#include "strv.h"
#include "transport.h"
#include "trialread.h"
#include "tune.h"
#include "userconf.h"
#include "variant.h"
#include "yamldoc.h"
#include "tap.h"

int
main(void)
{
	agentproto_free(NULL);
	ap_trial_free(NULL);
	agents_free(NULL);
	archive_url_free(NULL);
	archive_manifest_free(NULL);
	autorep_free(NULL);
	catalog_free(NULL);
	detach_gather_free(NULL);
	fleet_free(NULL);
	history_free(NULL);
	journal_free(NULL);
	nightly_free(NULL);
	pace_free(NULL);
	plan_free(NULL);
	plan_schedule_free(NULL);
	program_free(NULL);
	progress_free(NULL);
	report_free(NULL);
	rundir_run_free(NULL);
	session_free(NULL);
	strv_free(NULL, 0);
	strv_free(NULL, 3);
	tchan_free(NULL);
	trial_done_free(NULL);
	tune_spec_free(NULL);
	tune_state_free(NULL);
	userconf_free(NULL);
	variant_state_free(NULL);
	ydoc_free(NULL);
	ok(1, "every public *_free() returns on NULL");
	report_profile_release(NULL);
	report_kernel_release(NULL);
	report_failures_release(NULL);
	ok(1, "report_profile_release, _kernel_release, _failures_release return on NULL");
	rgrid_free(NULL);
	rgrid_notes_free(NULL);
	ok(1, "rgrid_free and rgrid_notes_free return on NULL");
	return tap_done();
}
