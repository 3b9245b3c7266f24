/*
 * fuzz-journal.c: the reader of trials.jsonl (src/trialread.c), in memory:
 * trialread_buf() with every field strictly, then with what reports ask
 * for (leniently, every line handed out), and trial_done_read_buf(), what
 * --resume trusts.  Every member of every line handed out is read back
 * and the promises of trialread.h are checked; a line the reader takes
 * for JSON (a trial line, or one of another format) must be JSON to
 * jansson too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz.h"
#include "trialread.h"

#define REPORT_FIELDS	(TRIAL_VARIANT | TRIAL_PARAMS_TEXT | TRIAL_REP | TRIAL_METRIC | \
			 TRIAL_VALUE | TRIAL_KIND | TRIAL_PROFILE | TRIAL_LENIENT | \
			 TRIAL_REJECTS)

struct input {
	const char	*data;
	size_t		 size;
	unsigned int	 fields;
	size_t		 sum;
	const char	*at;		/* the start of line atno */
	size_t		 atno;
};

static size_t
touch(const char *s)
{
	return s == NULL ? 0 : strlen(s);
}

/* The bytes of line lineno (1-based, never less than the last asked for)
 * of the input, or NULL. */
static const char *
line_at(struct input *in, size_t lineno, size_t *len)
{
	const char *end = in->data + in->size, *nl;

	for (;;) {
		if ((nl = memchr(in->at, '\n', (size_t)(end - in->at))) == NULL)
			return NULL;
		if (in->atno == lineno) {
			*len = (size_t)(nl - in->at);
			return in->at;
		}
		in->at = nl + 1;
		in->atno++;
	}
}

/* What the reader took for JSON jansson must take too (reals only, so
 * that integers past 64 bits, which the reader reads as numbers, are no
 * error). */
static void
is_json(struct input *in, size_t lineno)
{
	const char *p;
	size_t len;
	json_t *o;

	if ((p = line_at(in, lineno, &len)) == NULL)
		abort();
	if ((o = json_loadb(p, len, JSON_DECODE_INT_AS_REAL, NULL)) == NULL ||
	    !json_is_object(o))
		abort();
	json_decref(o);
}

static int
line(const struct trial_line *l, void *arg)
{
	struct input *in = arg;
	size_t i;

	if (l->reject != TRIAL_OK) {
		if (!(in->fields & TRIAL_REJECTS) || l->reject > TRIAL_CORRUPT || l->host != NULL)
			abort();
		if (l->reject == TRIAL_OTHER_FORMAT) {
			if (l->format == 1)
				abort();
			is_json(in, l->lineno);
		}
		return 0;
	}
	if (l->format != 1 || l->host == NULL || l->bench == NULL || l->status == NULL ||
	    ((in->fields & TRIAL_KEY) && l->key == NULL) ||
	    ((in->fields & TRIAL_PARTS) && (l->part < 1 || l->parts < l->part)) ||
	    strlen(l->params_text) >= TRIALREAD_PARAMS_TEXT)
		abort();	/* trialread.h: what makes a trial line */
	in->sum += touch(l->run) + touch(l->host) + touch(l->variant) + touch(l->bench) +
	    touch(l->suite) + touch(l->key) + touch(l->metric) + touch(l->unit) +
	    touch(l->direction) + touch(l->status) + touch(l->kind) + touch(l->message);
	for (i = 0; i < l->nparams; i++)
		in->sum += touch(l->keys[i]) + touch(l->vals[i]);
	for (i = 0; i < l->nresolved; i++)
		in->sum += touch(l->rkeys[i]) + touch(l->rvals[i]);
	for (i = 0; i < l->nnotes; i++)
		in->sum += touch(l->notes[i]);
	for (i = 0; i < l->nsamples; i++)
		if (!isfinite(l->samples[i]))
			abort();
	if ((l->has_value && !isfinite(l->value)) || !isfinite(l->start) ||
	    !isfinite(l->duration))
		abort();
	if (l->profile != NULL) {
		/* checked JSON: jansson reads it (any value) */
		json_t *p = json_loadb(l->profile, l->profile_len,
		    JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, NULL);

		if (p == NULL)
			abort();
		json_decref(p);
	}
	if (in->fields & TRIAL_REJECTS)
		is_json(in, l->lineno);	/* once: JSON is JSON whatever is asked for */
	return 0;
}

static void
check_scan(const struct trial_scan *sc, size_t size)
{
	if (sc->lines + sc->truncated < sc->corrupt || sc->good_size > (off_t)size ||
	    sc->empty + sc->other_format > sc->corrupt ||
	    (sc->corrupt > 0) != (sc->first_corrupt > 0) || sc->first_corrupt > sc->lines ||
	    (sc->truncated && sc->good_size == (off_t)size))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int masks[] = { TRIAL_ALL, REPORT_FIELDS };
	struct input in = { (const char *)data, size, 0, 0, NULL, 0 };
	struct trial_scan scan, scan2;
	struct trial_done *done;
	size_t k;

	for (k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
		in.fields = masks[k];
		in.at = in.data;
		in.atno = 1;
		if (trialread_buf(data, size, in.fields, line, &in, &scan) != 0)
			abort();	/* only failing to read is an error */
		check_scan(&scan, size);
	}
	done = trial_done_read_buf(data, size, &scan2);
	check_scan(&scan2, size);
	if (scan2.lines != scan.lines || scan2.good_size != scan.good_size ||
	    scan2.truncated != scan.truncated || scan2.trials_ok != trial_done_count(done, NULL))
		abort();
	(void)trial_done_has(done, "lab-03", "-/munmap/threads=4,pages=16/1");
	trial_done_free(done);
	return 0;
}
