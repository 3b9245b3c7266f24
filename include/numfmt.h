/*
 * numfmt.h: numbers for people and for files, written one way everywhere.
 *
 *	numfmt_shortest()	the shortest %g that reads back as the same
 *				double (CSV and JSON values: exact, short)
 *	numfmt_fixed()		benchmark values in tables: fixed notation
 *				with a few significant figures, never an
 *				exponent from 1 up
 *	numfmt_mean()		a mean in a table: numfmt_fixed(), or "-"
 *	numfmt_change()		a change in percent: "+3.2%", or "-"
 *	numfmt_change_whole()	a change in whole percents, as the delta
 *				lines of mail: "+3%", "+0.4%" below 1%
 *	numfmt_rsd()		a relative sd in percent: "±1.5%", or "-"
 *	numfmt_interval()	an interval of a change: "-5.5% .. +15.9%"
 *	numfmt_p()		a p or q value: "0.0312", "5.52e-10", or "-"
 *	numfmt_short()		chart ticks and tooltips: about four
 *				significant figures, an exponent where large
 *				or small
 *	numfmt_duration()	elapsed times: "42s", "3m07s", "2h05m"
 *
 * Each writes a NUL-terminated string into buf (size bytes, cut to fit as
 * snprintf() does; NUMFMT_MAX is always enough, NUMFMT_INTERVAL_MAX for
 * numfmt_interval()).  NaN and infinities come
 * out as printf writes them ("nan", "inf"): callers that show them
 * otherwise test first.  Nothing here fails or allocates.
 */
#ifndef FLEETMARK_NUMFMT_H
#define FLEETMARK_NUMFMT_H

#include <stddef.h>

#define NUMFMT_MAX	32
#define NUMFMT_INTERVAL_MAX (2 * NUMFMT_MAX + 4)
#define NUMFMT_FIXED_MAX 1e15	/* from here on, numfmt_fixed() and the
				 * percentages write an exponent */

/* The shortest of %.6g .. %.17g that strtod() reads back as v. */
void	numfmt_shortest(char *buf, size_t size, double v);

/*
 * v in fixed notation with sig significant figures but at most two
 * decimals, for |v| >= 1 and for 0: with sig 4, "1234", "123.4", "12.34",
 * "1.23", "0"; with sig 3, "1234", "123", "12.3", "1.23".  Below 1 in
 * magnitude, three significant figures as %.3g does ("0.123", "1.5e-05");
 * from NUMFMT_FIXED_MAX up, sig significant figures as %g ("1e+308"), so
 * that a value no benchmark measures stays NUMFMT_MAX bytes at most.
 */
void	numfmt_fixed(char *buf, size_t size, double v, int sig);

/* A mean as the tables show it: numfmt_fixed() with sig 4, "-" for NaN (none). */
void	numfmt_mean(char *buf, size_t size, double v);

/* A change in percent, signed with one decimal ("+3.2%", "-0.4%"), "-" for NaN;
 * %.3g from NUMFMT_FIXED_MAX up, as the percentage below. */
void	numfmt_change(char *buf, size_t size, double pct);

/*
 * A change in whole percents ("+3%", "-12%"), a tenth below 1% so that a
 * small change does not read as "+0%" ("+0.4%"); "-" for NaN.
 */
void	numfmt_change_whole(char *buf, size_t size, double pct);

/* A relative standard deviation in percent, one decimal ("±1.5%"), "-" for NaN. */
void	numfmt_rsd(char *buf, size_t size, double pct);

/*
 * The smallest change a design detects, in percent, one decimal
 * ("55.9%"); "-" when it cannot be told (NaN or infinite); "> 1000%" from
 * NUMFMT_DETECTABLE_MAX up: a design that only sees an 11-fold change
 * sees nothing a kernel change is about, and the figure beyond says
 * nothing more (two pairs far apart give 1.7e16%).
 */
#define NUMFMT_DETECTABLE_MAX	1000.0
void	numfmt_detectable(char *buf, size_t size, double pct);

/*
 * The interval of a change, both ends as numfmt_change() writes them,
 * " .. " between ("-5.5% .. +15.9%"): every table and sentence that shows
 * a verdict's 95% interval writes it this way.
 */
void	numfmt_interval(char *buf, size_t size, double lo, double hi);
/*
 * A p or q value, three significant figures ("0.293", "5.52e-10"), "-"
 * for NaN (not tested): every table and sentence writes p and q this way.
 */
void	numfmt_p(char *buf, size_t size, double p);
/*
 * About four significant figures: %.4g from 0.001 to 1000, %.0f from
 * 1000 to 1e6, %.3g beyond either end ("0.25", "12.5", "4096", "1.5e+07").
 */
void	numfmt_short(char *buf, size_t size, double v);

/*
 * seconds, rounded to the nearest second (negative counts as 0), as
 * "Ns" under a minute, "NmSSs" under an hour, else "NhMMm".
 */
void	numfmt_duration(char *buf, size_t size, double seconds);

#endif /* FLEETMARK_NUMFMT_H */
