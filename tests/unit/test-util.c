/*
 * test-util.c: the utility layer: strbuf (caps included), the atomic write
 * and the file helpers, digests against known vectors, clocks and
 * timestamps, UTF-8, percent-encoding and the number formatters, each
 * against the output of the copies it replaced; CSV fields, directory
 * listings, string vectors, err_set(), free_secret() and the XML element
 * lookups.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "csv.h"
#include "digest.h"
#include "fsutil.h"
#include "numfmt.h"
#include "pctenc.h"
#include "strbuf.h"
#include "strv.h"
#include "tap.h"
#include "utf8.h"
#include "xmalloc.h"
#include "xmldoc.h"

static const char *tmpdir;

/* --- strbuf ------------------------------------------------------------------ */

static void
test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT, capped;
	char *s, big[100];
	size_t len;
	int fds[2];

	ok(sb.buf != NULL && sb.buf[0] == '\0' && sb.len == 0,
	    "an initialised buffer is the empty string");
	strbuf_release(&sb);
	ok(sb.buf[0] == '\0', "releasing an empty buffer leaves it usable");
	strbuf_setlen(&sb, 0);
	strbuf_reset(&sb);
	ok(sb.len == 0 && sb.buf[0] == '\0', "reset and setlen(0) on an unallocated buffer");

	strbuf_addstr(&sb, "abc");
	strbuf_addch(&sb, '-');
	strbuf_add(&sb, "x\0y", 3);
	strbuf_addf(&sb, "%d:%s", 42, "z");
	ok(sb.len == 11 && memcmp(sb.buf, "abc-x\0y42:z", 12) == 0,
	    "add, addstr, addch, addf (NULs kept, NUL-terminated)");
	is_int(strbuf_length(&sb), 11, "strbuf_length");
	strbuf_setlen(&sb, 3);
	is_str(sb.buf, "abc", "setlen cuts");
	s = strbuf_detach(&sb, &len);
	ok(strcmp(s, "abc") == 0 && len == 3 && sb.len == 0 && sb.buf[0] == '\0',
	    "detach hands the string over and empties the buffer");
	free(s);
	s = strbuf_detach(&sb, NULL);
	ok(s != NULL && *s == '\0', "detach of an empty buffer gives a string to free");
	free(s);

	for (len = 0; len < 1000; len++)
		strbuf_addf(&sb, "%zu,", len);
	ok(sb.len > 2000 && strncmp(sb.buf + sb.len - 4, "999,", 4) == 0 &&
	    strlen(sb.buf) == sb.len, "a thousand additions grow the buffer");
	strbuf_reset(&sb);
	ok(sb.len == 0 && sb.buf[0] == '\0' && sb.alloc > 0, "reset keeps the memory");
	strbuf_release(&sb);

	strbuf_init(&sb, 100);
	ok(sb.alloc >= 101 && sb.len == 0 && sb.buf[0] == '\0', "init with a size hint");
	strbuf_release(&sb);

	strbuf_init_max(&capped, 8);
	ok(strbuf_addstr(&capped, "12345") == 0 && !strbuf_toobig(&capped),
	    "under the cap: added");
	errno = 0;
	ok(strbuf_addstr(&capped, "6789") == -1 && errno == EFBIG &&
	    strbuf_toobig(&capped) && strcmp(capped.buf, "12345") == 0,
	    "passing the cap: refused whole, EFBIG, the buffer unchanged");
	ok(strbuf_addstr(&capped, "678") == 0 && strcmp(capped.buf, "12345678") == 0 &&
	    strbuf_toobig(&capped), "up to the cap exactly is fine; the mark is sticky");
	ok(strbuf_addch(&capped, 'x') == -1 && strbuf_addf(&capped, "%d", 1) == -1,
	    "addch and addf are capped too");
	strbuf_reset(&capped);
	ok(!strbuf_toobig(&capped) && capped.len == 0, "reset clears the mark");
	strbuf_release(&capped);
	ok(capped.max == 8, "release keeps the cap");

	/* reading a pipe, with and without a cap */
	memset(big, 'a', sizeof(big));
	if (pipe(fds) == 0) {
		ok(write(fds[1], big, sizeof(big)) == (ssize_t)sizeof(big), "pipe written");
		close(fds[1]);
		ok(strbuf_read_fd(&sb, fds[0]) == 0 && sb.len == sizeof(big),
		    "read_fd reads to end of file");
		close(fds[0]);
		strbuf_release(&sb);
	}
	if (pipe(fds) == 0) {
		ok(write(fds[1], big, sizeof(big)) == (ssize_t)sizeof(big), "pipe written");
		close(fds[1]);
		strbuf_init_max(&capped, 40);
		errno = 0;
		ok(strbuf_read_fd(&capped, fds[0]) == -1 && errno == EFBIG &&
		    capped.len == 40 && strbuf_toobig(&capped),
		    "read_fd stops at the cap with EFBIG");
		close(fds[0]);
		strbuf_release(&capped);
	}
	if (pipe(fds) == 0) {
		ok(write(fds[1], big, 40) == 40, "pipe written");
		close(fds[1]);
		strbuf_init_max(&capped, 40);
		ok(strbuf_read_fd(&capped, fds[0]) == 0 && capped.len == 40 &&
		    !strbuf_toobig(&capped), "read_fd: exactly the cap is not too big");
		close(fds[0]);
		strbuf_release(&capped);
	}
}

/* --- fsutil ------------------------------------------------------------------ */

static char *
slurp(const char *path)
{
	char *data = NULL, *err = NULL;
	size_t len;

	if (fs_read_file(path, 0, &data, &len, &err) != 0) {
		free(err);
		return NULL;
	}
	return data;
}

static void
test_fsutil(void)
{
	char *p, *q, *err = NULL, *data;
	struct fs_atomic a;
	struct stat st;
	size_t len;
	mode_t old;

	p = xasprintf("%s/a/b/c", tmpdir);
	ok(fs_mkdir_p(p, 0755, &err) == 0 && stat(p, &st) == 0 && S_ISDIR(st.st_mode),
	    "mkdir_p makes the missing parents");
	ok(fs_mkdir_p(p, 0755, &err) == 0, "mkdir_p of an existing directory is fine");
	free(p);
	p = xasprintf("%s/m/n/file", tmpdir);
	q = xasprintf("%s/m/n", tmpdir);
	ok(fs_mkparents(p, 0755, &err) == 0 && stat(q, &st) == 0 && S_ISDIR(st.st_mode) &&
	    stat(p, &st) != 0, "mkparents makes the directories, not the last name");
	free(q);

	old = umask(022);
	ok(fs_write_atomic(p, "one\n", 4, 0644, 0, &err) == 0, "an atomic write");
	data = slurp(p);
	is_str(data, "one\n", "... writes the data");
	free(data);
	ok(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644, "... with the mode");
	ok(fs_write_atomic(p, "two", 3, 0666, FS_NOSYNC, &err) == 0, "a write without fsync");
	data = slurp(p);
	is_str(data, "two", "... replaces the file");
	free(data);
	q = xasprintf("%s/m/n/.file.tmp", tmpdir);
	ok(access(q, F_OK) != 0, "no temporary left behind");
	free(q);
	ok(fs_write_atomic(p, "three", 5, 0600, FS_UNIQUE, &err) == 0 &&
	    stat(p, &st) == 0 && (st.st_mode & 0777) == 0600,
	    "a unique temporary, with the mode set exactly");
	umask(old);

	/* A device is written to, never replaced: the link to /dev/null stays. */
	q = xasprintf("%s/m/n/devnull", tmpdir);
	ok(symlink("/dev/null", q) == 0 && fs_write_atomic(q, "x", 1, 0644, 0, &err) == 0 &&
	    lstat(q, &st) == 0 && S_ISLNK(st.st_mode) && stat(q, &st) == 0 &&
	    S_ISCHR(st.st_mode), "a device (through a link) is written to, not replaced");
	free(q);
	q = xasprintf("%s/m/n/.devnull.tmp", tmpdir);
	ok(access(q, F_OK) != 0, "... and no temporary is made for it");
	free(q);

	ok(fs_mkdir_p(p, 0755, &err) != 0 && strstr(err, "is not a directory") != NULL,
	    "mkdir_p of a file: not a directory");
	free(err);
	err = NULL;

	ok(fs_atomic_open(&a, p, 0644, 0, &err) == 0 &&
	    fs_full_write(a.fd, "four", 4) == 0, "a write in steps");
	data = slurp(p);
	is_str(data, "three", "... the old file stays until the commit");
	free(data);
	ok(fs_atomic_commit(&a, &err) == 0 && a.path == NULL && a.fd == -1,
	    "... committed and released");
	data = slurp(p);
	is_str(data, "four", "... the new one is there");
	free(data);
	ok(fs_atomic_open(&a, p, 0644, 0, &err) == 0, "an aborted write");
	q = xstrdup(a.tmp);
	fs_atomic_abort(&a);
	data = slurp(p);
	ok(data != NULL && strcmp(data, "four") == 0 && access(q, F_OK) != 0,
	    "... leaves the file and no temporary");
	free(data);
	free(q);

	free(p);
	p = xasprintf("%s/nodir/x", tmpdir);
	ok(fs_write_atomic(p, "x", 1, 0644, 0, &err) == -1 && errno == ENOENT &&
	    strstr(err, "cannot create") != NULL && strstr(err, "/nodir/.x.tmp") != NULL,
	    "a write into a missing directory fails with a message");
	free(err);
	err = NULL;
	ok(fs_read_file(p, 0, &data, &len, &err) == -1 && errno == ENOENT &&
	    strstr(err, "cannot read") != NULL, "reading a missing file fails");
	free(err);
	err = NULL;
	free(p);

	p = xasprintf("%s/m/n/file", tmpdir);
	ok(fs_read_file(p, 4, &data, &len, &err) == 0 && len == 4 &&
	    strcmp(data, "four") == 0, "read_file up to its limit");
	free(data);
	ok(fs_read_file(p, 3, &data, &len, &err) == -1 && errno == EFBIG &&
	    strstr(err, "larger than 3 bytes") != NULL, "read_file past its limit: EFBIG");
	free(err);
	err = NULL;
	free(p);

	ok(fs_fsync_dir(tmpdir) == 0, "fsync_dir");
	ok(fs_fsync_dir("/nonexistent-dir") == -1 && errno == ENOENT,
	    "fsync_dir of a missing directory fails");

	p = fs_dirname("plans/a/smoke.yaml");
	is_str(p, "plans/a", "fs_dirname: up to the last slash");
	free(p);
	p = fs_dirname("smoke.yaml");
	is_str(p, ".", "fs_dirname: a bare name is in .");
	free(p);
	p = fs_dirname("/smoke.yaml");
	is_str(p, "/", "fs_dirname: a name in the root");
	free(p);

	/* fs_check_owner(): the user's own, written by no one else. */
	p = xasprintf("%s/m/n/file", tmpdir);
	ok(chmod(p, 0644) == 0 && stat(p, &st) == 0 && fs_check_owner(p, &st, &err) == 0,
	    "check_owner: the user's file, 0644, is trusted");
	ok(chmod(p, 0664) == 0 && stat(p, &st) == 0 && fs_check_owner(p, &st, &err) == -1 &&
	    strstr(err, "file: writable by group or others (mode 0664)") != NULL,
	    "check_owner: group-writable is not, naming the file and its mode");
	free(err);
	err = NULL;
	ok(chmod(p, 0646) == 0 && stat(p, &st) == 0 && fs_check_owner(p, &st, &err) == -1,
	    "check_owner: writable by others is not");
	free(err);
	err = NULL;
	st.st_mode = S_IFREG | 0644;
	st.st_uid = getuid() + 1;
	ok(fs_check_owner(p, &st, &err) == -1 && strstr(err, "neither you nor root") != NULL,
	    "check_owner: another user's is not");
	free(err);
	err = NULL;
	st.st_uid = 0;
	ok(fs_check_owner(p, &st, &err) == 0, "check_owner: root's is");
	chmod(p, 0644);
	free(p);
}

/* --- digest ------------------------------------------------------------------ */

static void
test_digest(void)
{
	char hex[DIGEST_SHA256_HEX], md5[DIGEST_MD5_HEX], *p, *err = NULL;
	unsigned char md[DIGEST_SHA256_LEN];
	uint64_t size = 0;
	FILE *f;

	digest_sha256_hex("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	    "sha256 of nothing");
	digest_sha256_hex("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "sha256 of abc (FIPS 180-2)");
	digest_sha256("abc", 3, md);
	ok(md[0] == 0xba && md[31] == 0xad, "raw sha256");
	digest_tohex("\x00\x0f\xf0\xff", 4, hex);
	is_str(hex, "000ff0ff", "tohex: lowercase, two digits a byte");
	digest_md5_hex("abc", 3, md5);
	ok(strcmp(md5, "900150983cd24fb0d6963f7d28e17f72") == 0 || md5[0] == '\0',
	    "md5 of abc (RFC 1321), or none where MD5 is refused");

	p = xasprintf("%s/digest", tmpdir);
	if ((f = fopen(p, "w")) != NULL) {
		fputs("abc", f);
		fclose(f);
	}
	ok(digest_sha256_file(p, 0, hex, &size, &err) == 0 && size == 3 &&
	    strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
	    "sha256 of a file, and its size");
	free(p);
	p = xasprintf("%s/digest-link", tmpdir);
	if (symlink("digest", p) == 0) {
		ok(digest_sha256_file(p, 0, hex, NULL, &err) == 0, "a symlink is followed");
		ok(digest_sha256_file(p, DIGEST_NOFOLLOW, hex, NULL, &err) == -1 &&
		    errno == ELOOP && err != NULL, "... unless DIGEST_NOFOLLOW");
		free(err);
		err = NULL;
	}
	free(p);
	ok(digest_sha256_file("/nonexistent", 0, hex, &size, &err) == -1 &&
	    errno == ENOENT && strcmp(err, "/nonexistent: No such file or directory") == 0,
	    "a missing file: ENOENT and a message");
	free(err);
}

/* --- clock ------------------------------------------------------------------- */

static void
test_clock(void)
{
	char b[CLOCK_ISO8601_MAX];
	long long t0, t1;
	struct timespec ts;
	double w;

	clock_iso8601(b, sizeof(b), 1796012102, -1);
	is_str(b, "2026-11-30T04:15:02Z", "iso8601 without milliseconds");
	clock_iso8601(b, sizeof(b), 1796012102, 7);
	is_str(b, "2026-11-30T04:15:02.007Z", "iso8601 with milliseconds");
	clock_iso8601(b, sizeof(b), 0, 999);
	is_str(b, "1970-01-01T00:00:00.999Z", "the epoch");
	clock_iso8601_now(b, sizeof(b), 1);
	ok(strlen(b) == 24 && b[10] == 'T' && b[19] == '.' && b[23] == 'Z', "now, with ms");
	clock_iso8601_now(b, sizeof(b), 0);
	ok(strlen(b) == 20 && b[19] == 'Z', "now, without");

	t0 = clock_mono_ms();
	usleep(20000);
	t1 = clock_mono_ms();
	ok(t1 - t0 >= 20 && t1 - t0 < 5000, "the monotonic clock counts milliseconds");
	w = clock_wall();
	ok(w > 1.7e9 && fabs(w - (double)time(NULL)) < 2, "the wall clock");
	clock_deadline(&ts, 1500);
	ok(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000L &&
	    fabs((double)ts.tv_sec + ts.tv_nsec / 1e9 - w - 1.5) < 1, "a deadline 1.5 s ahead");
}

/* --- utf8 -------------------------------------------------------------------- */

static void
test_utf8(void)
{
	static const struct { const char *s; size_t n, want; const char *what; } seqs[] = {
		{ "a", 1, 1, "ASCII" },
		{ "\xc3\xa9", 2, 2, "two bytes" },
		{ "\xe2\x82\xac", 3, 3, "three bytes" },
		{ "\xf0\x9f\x98\x80", 4, 4, "four bytes" },
		{ "\xc3", 1, 0, "cut short" },
		{ "\xc0\xaf", 2, 0, "overlong two bytes" },
		{ "\xe0\x80\xaf", 3, 0, "overlong three bytes" },
		{ "\xed\xa0\x80", 3, 0, "a surrogate" },
		{ "\xf4\x90\x80\x80", 4, 0, "above U+10FFFF" },
		{ "\xff", 1, 0, "0xff" },
		{ "\x80", 1, 0, "a lone continuation byte" },
		{ "\xc3(", 2, 0, "a bad continuation" },
	};
	size_t i;

	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		is_int(utf8_seq(seqs[i].s, seqs[i].n), seqs[i].want, seqs[i].what);
	ok(utf8_seq("", 0) == 0, "nothing to read");
	ok(utf8_valid("h\xc3\xa9llo", 6) && !utf8_valid("h\xc3llo", 5) && utf8_valid("", 0),
	    "utf8_valid");
	ok(utf8_is_control("\n", 1) && utf8_is_control("\t", 1) &&
	    utf8_is_control("\x7f", 1) && utf8_is_control("\xc2\x9b", 2) &&
	    !utf8_is_control("a", 1) && !utf8_is_control("\xc2\xa0", 2) &&
	    !utf8_is_control("\xc3\xa9", 2), "controls: C0, DEL, C1");
	is_int(utf8_width("h\xc3\xa9llo \xe2\x82\xac"), 7, "width counts code points");
	is_int(utf8_width_n("\xc3\xa9\xc3\xa9", 3), 2, "width of a prefix");
	is_int(utf8_cut("a\xc3\xa9", 2), 1, "cut before a sequence it would split");
	is_int(utf8_cut("a\xc3\xa9", 3), 3, "cut at the end");
	is_int(utf8_cut("ab", 1), 1, "cut at an ASCII boundary");
}

/* --- pctenc ------------------------------------------------------------------ */

/* The one escaper of text from outside for a terminal. */
static void
test_utf8_escape(void)
{
	char *e;

	e = utf8_escaped("a\x1b]0;T\x07" "b\x1b[2J\rc", 0);
	is_str(e, "a\\x1b]0;T\\x07b\\x1b[2J\\x0dc", "ESC, BEL and CR as \\xNN");
	free(e);
	e = utf8_escaped("\xc2\x9b" "1m \x7f \xff\xc3\xa9", 0);
	is_str(e, "\\xc2\\x9b1m \\x7f \\xff\xc3\xa9", "C1, DEL and bad bytes escaped, é kept");
	free(e);
	e = utf8_escaped("a\tb\nc", 0);
	is_str(e, "a\\x09b\\x0ac", "tab and newline escaped in a cell");
	free(e);
	e = utf8_escaped("a\tb\nc\r", UTF8_KEEP_TAB | UTF8_KEEP_NL);
	is_str(e, "a\tb\nc\\x0d", "kept where they are the text's layout");
	free(e);
}

static void
test_pctenc(void)
{
	char *s;
	size_t n;

	s = pct_encode("a b/c~d\xc3\xa9%", 10, PCT_UNRESERVED "/");
	is_str(s, "a%20b/c~d%C3%A9%25", "a URL path: unreserved and / kept, uppercase hex");
	free(s);
	s = pct_encode("a/b", 3, PCT_UNRESERVED);
	is_str(s, "a%2Fb", "without / kept");
	free(s);
	s = pct_encode("x\0y", 3, PCT_UNRESERVED);
	is_str(s, "x%00y", "NUL is encoded");
	free(s);
	s = pct_encode("v1.2:a@b+c-d~e f", 16, "._:@+-");
	is_str(s, "v1.2:a@b+c-d%7Ee%20f", "a chosen set (the trial keys)");
	free(s);
	s = pct_encode("", 0, "");
	is_str(s, "", "nothing");
	free(s);

	s = pct_decode("a%20b%2fc%2F", 12, 0, &n);
	ok(s && strcmp(s, "a b/c/") == 0 && n == 6, "decode, either case");
	free(s);
	s = pct_decode("100%%x%4", 8, 0, &n);
	ok(s && strcmp(s, "100%%x%4") == 0 && n == 8, "bad escapes stay as they are");
	free(s);
	s = pct_decode("a%00b", 5, 0, &n);
	ok(s && n == 3 && memcmp(s, "a\0b", 4) == 0, "%00 decodes to a NUL, with the length");
	free(s);
	ok(pct_decode("100%", 4, PCT_STRICT, NULL) == NULL &&
	    pct_decode("%zz", 3, PCT_STRICT, NULL) == NULL &&
	    pct_decode("a%00", 4, PCT_STRICT, NULL) == NULL, "strict: bad escapes and %00 refused");
	s = pct_decode("%41%62", 6, PCT_STRICT, NULL);
	is_str(s, "Ab", "strict decodes good escapes");
	free(s);
	ok(pct_kept_span("ab-9.Z", 6, "-.") == 6, "kept span: letters, digits and keep");
	ok(pct_kept_span("ab c", 4, "-.") == 2 && pct_kept_span("a\0b", 3, "-.") == 1 &&
	    pct_kept_span("\xc3\xa9", 2, "-.") == 0 && pct_kept_span("", 0, "") == 0,
	    "kept span stops at a space, a NUL and bytes >= 0x80");
}

/* --- numfmt ------------------------------------------------------------------ */

static void
test_numfmt(void)
{
	static const struct { double v; int sig; const char *want; } fx[] = {
		{ 0, 4, "0" }, { 1234.56, 4, "1235" }, { 1000, 4, "1000" }, { 999.96, 4, "1000.0" },
		{ 123.45, 4, "123.5" }, { 100, 4, "100.0" }, { 12.345, 4, "12.35" },
		{ 1.2345, 4, "1.23" }, { 1, 4, "1.00" }, { 0.12345, 4, "0.123" },
		{ 0.000015, 4, "1.5e-05" }, { -12.345, 4, "-12.35" },
		{ 0, 3, "0" }, { 1234.5, 3, "1234" }, { 123.4, 3, "123" }, { 100, 3, "100" },
		{ 12.34, 3, "12.3" }, { 10, 3, "10.0" }, { 1.234, 3, "1.23" }, { 0.5, 3, "0.5" },
		{ 999999999999999, 4, "999999999999999" }, { 1e15, 4, "1e+15" },
		{ -1e308, 4, "-1e+308" }, { 1.2345e300, 3, "1.23e+300" },
	};
	static const struct { double v; const char *want; } sh[] = {
		{ 0, "0" }, { 0.25, "0.25" }, { 12.5, "12.5" }, { 123.456, "123.5" },
		{ 4096, "4096" }, { 999999, "999999" }, { 1.5e7, "1.5e+07" }, { 0.0005, "0.0005" },
		{ -2048.4, "-2048" },
	};
	static const double rt[] = { 0.1, 1.0 / 3, 2.5, 1e-300, 123456789.123, 0.30000000000000004 };
	char b[NUMFMT_MAX];
	size_t i;

	for (i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		char what[64];

		numfmt_fixed(b, sizeof(b), fx[i].v, fx[i].sig);
		snprintf(what, sizeof(what), "fixed %g, %d figures", fx[i].v, fx[i].sig);
		is_str(b, fx[i].want, what);
	}
	numfmt_fixed(b, sizeof(b), NAN, 4);
	ok(strstr(b, "nan") != NULL, "fixed NaN as printf writes it");
	numfmt_fixed(b, sizeof(b), INFINITY, 3);
	is_str(b, "inf", "fixed infinity");
	numfmt_mean(b, sizeof(b), 123.456);
	is_str(b, "123.5", "a mean: four figures");
	numfmt_change(b, sizeof(b), -1e308);
	is_str(b, "-1e+308%", "a change of a magnitude no benchmark has: %g");
	numfmt_mean(b, sizeof(b), NAN);
	is_str(b, "-", "no mean: -");
	numfmt_change(b, sizeof(b), 3.21);
	is_str(b, "+3.2%", "a change: signed, one decimal");
	numfmt_change(b, sizeof(b), -0.04);
	is_str(b, "-0.0%", "a small fall keeps its sign");
	numfmt_change(b, sizeof(b), NAN);
	is_str(b, "-", "no change: -");
	numfmt_rsd(b, sizeof(b), 1.46);
	is_str(b, "±1.5%", "an rsd: ±, one decimal");
	numfmt_rsd(b, sizeof(b), NAN);
	is_str(b, "-", "no rsd: -");
	numfmt_detectable(b, sizeof(b), 55.94);
	is_str(b, "55.9%", "a detectable change: one decimal");
	numfmt_detectable(b, sizeof(b), 1000);
	is_str(b, "1000.0%", "a detectable change of 1000%: still a figure");
	numfmt_detectable(b, sizeof(b), 1.7e16);
	is_str(b, "> 1000%", "a detectable change beyond 1000%: \"> 1000%\"");
	numfmt_detectable(b, sizeof(b), INFINITY);
	is_str(b, "-", "a detectable change that cannot be told: -");
	numfmt_p(b, sizeof(b), 5.5239e-10);
	is_str(b, "5.52e-10", "a p: three significant figures");
	numfmt_p(b, sizeof(b), 0.29295);
	is_str(b, "0.293", "a p below 1");
	numfmt_p(b, sizeof(b), NAN);
	is_str(b, "-", "no p: -");
	{
		char iv[NUMFMT_INTERVAL_MAX];

		numfmt_interval(iv, sizeof(iv), -5.54, 15.91);
		is_str(iv, "-5.5% .. +15.9%", "an interval: two changes, .. between");
		numfmt_interval(iv, sizeof(iv), -1e300, 1e300);
		is_str(iv, "-1e+300% .. +1e+300%", "an interval of any size fits");
	}
	for (i = 0; i < sizeof(sh) / sizeof(sh[0]); i++) {
		char what[64];

		numfmt_short(b, sizeof(b), sh[i].v);
		snprintf(what, sizeof(what), "short %g", sh[i].v);
		is_str(b, sh[i].want, what);
	}
	numfmt_shortest(b, sizeof(b), 2.5);
	is_str(b, "2.5", "shortest 2.5");
	numfmt_shortest(b, sizeof(b), 0.1);
	is_str(b, "0.1", "shortest 0.1");
	numfmt_shortest(b, sizeof(b), 1.0 / 3);
	is_str(b, "0.3333333333333333", "shortest 1/3 needs 16 digits");
	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		numfmt_shortest(b, sizeof(b), rt[i]);
		ok(strtod(b, NULL) == rt[i], "shortest reads back exactly");
	}
	numfmt_change_whole(b, sizeof(b), 3.4);
	is_str(b, "+3%", "change in whole percents");
	numfmt_change_whole(b, sizeof(b), -12.5);
	is_str(b, "-12%", "... rounded as printf does");
	numfmt_change_whole(b, sizeof(b), 0.44);
	is_str(b, "+0.4%", "... a tenth below 1%");
	numfmt_change_whole(b, sizeof(b), NAN);
	is_str(b, "-", "... and - for none");
	numfmt_duration(b, sizeof(b), 0.4);
	is_str(b, "0s", "duration under half a second");
	numfmt_duration(b, sizeof(b), -3);
	is_str(b, "0s", "a negative duration");
	numfmt_duration(b, sizeof(b), 59.4);
	is_str(b, "59s", "seconds");
	numfmt_duration(b, sizeof(b), 187);
	is_str(b, "3m07s", "minutes");
	numfmt_duration(b, sizeof(b), 7530);
	is_str(b, "2h05m", "hours");
}

/* --- csv_field --------------------------------------------------------------- */

static void
test_csv(void)
{
	static const char *const cases[][2] = {
		{ "", "" }, { "plain", "plain" }, { "a,b", "\"a,b\"" },
		{ "say \"x\"", "\"say \"\"x\"\"\"" }, { "two\nlines", "\"two\nlines\"" },
		{ "cr\r", "\"cr\r\"" }, { " lead", "\" lead\"" }, { "trail ", "\"trail \"" },
		{ "in side", "in side" },
	};
	char *buf;
	size_t i, len;
	FILE *f;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = open_memstream(&buf, &len);
		csv_field(f, cases[i][0]);
		fclose(f);
		is_str(buf, cases[i][1], "csv_field: RFC 4180 quoting");
		free(buf);
	}
}

/* --- fs_list_dir ------------------------------------------------------------- */

static void
test_list_dir(void)
{
	char *d = xasprintf("%s/list", tmpdir), *p, **names, *err = NULL;
	size_t n;

	ok(fs_list_dir(d, &names, &n, &err) == -1 && errno == ENOENT && err != NULL &&
	    strstr(err, "cannot open") != NULL, "fs_list_dir: a missing directory, errno kept");
	free(err);
	err = NULL;
	ok(mkdir(d, 0700) == 0 && fs_list_dir(d, &names, &n, &err) == 0 && n == 0,
	    "an empty directory: no names");
	strv_free(names, n);
	for (const char *const *f = (const char *const[]){ "b", ".hidden", "a", "c.d", NULL };
	    *f != NULL; f++) {
		p = xasprintf("%s/%s", d, *f);
		(void)fs_write_atomic(p, "", 0, 0600, FS_NOSYNC, &err);
		free(p);
	}
	ok(fs_list_dir(d, &names, &n, &err) == 0 && n == 3 && strcmp(names[0], "a") == 0 &&
	    strcmp(names[1], "b") == 0 && strcmp(names[2], "c.d") == 0,
	    "the names but dot files, sorted");
	strv_free(names, n);
	free(d);
}

/* --- strv -------------------------------------------------------------------- */

static void
test_strv(void)
{
	struct strv sv = STRV_INIT;
	char **v;

	strv_free(NULL, 3);
	ok(1, "strv_free of NULL");
	v = xcalloc(4, sizeof(*v));
	v[0] = xstrdup("b");
	v[2] = xstrdup("a");
	strv_free(v, 4);
	ok(1, "strv_free skips NULL slots");

	strv_clear(&sv);
	ok(sv.v == NULL && sv.n == 0, "clearing an empty vector");
	strv_push(&sv, "ssh");
	strv_pushf(&sv, "-p%d", 2222);
	strv_push(&sv, "");
	ok(sv.n == 3 && strcmp(sv.v[0], "ssh") == 0 && strcmp(sv.v[1], "-p2222") == 0 &&
	    sv.v[2][0] == '\0', "push copies, pushf formats");
	ok(sv.v[sv.n] == NULL, "NULL-terminated, an argv");
	is_int(strv_find(sv.v, sv.n, "-p2222"), 1, "find");
	ok(strv_find(sv.v, sv.n, "ss") == STRV_NONE, "find of a string not there");
	ok(strv_find(NULL, 0, "x") == STRV_NONE, "find in nothing");
	strv_sort(sv.v, sv.n);
	ok(sv.v[0][0] == '\0' && strcmp(sv.v[1], "-p2222") == 0 && strcmp(sv.v[2], "ssh") == 0 &&
	    sv.v[3] == NULL, "sort in strcmp order, the NULL kept");
	strv_sort(NULL, 0);
	strv_clear(&sv);
	ok(sv.v == NULL && sv.n == 0 && sv.cap == 0, "clear empties the vector");
	strv_push(&sv, "again");
	ok(sv.n == 1 && sv.v[1] == NULL, "... and it can be used again");
	is_int(strv_push_unique(&sv, "b"), 1, "push_unique appends a new string");
	is_int(strv_push_unique(&sv, "again"), 0, "... and finds one it has");
	ok(sv.n == 2 && sv.v[2] == NULL, "... without adding it");
	strv_clear(&sv);
}

/* --- xmldoc ------------------------------------------------------------------ */

static void
test_xmldoc(void)
{
	static const char xml[] = "<D:multistatus xmlns:D=\"DAV:\" xmlns:x=\"urn:x\">"
	    "<x:href>not DAV's</x:href><D:href>a</D:href><!-- c --><plain/></D:multistatus>";
	xmlDoc *doc = xmldoc_read(xml, sizeof(xml) - 1, "t.xml", 0);
	const xmlNode *root, *c;

	ok(doc != NULL, "xmldoc_read");
	if (doc == NULL)
		return;
	root = xmlDocGetRootElement(doc);
	ok(xmldoc_is(root, "DAV:", "multistatus") && xmldoc_is(root, NULL, "multistatus"),
	    "xmldoc_is: the namespace, or any");
	ok(!xmldoc_is(root, "urn:x", "multistatus") && !xmldoc_is(root, "DAV:", "response"),
	    "... not another namespace or name");
	c = xmldoc_child(root, "DAV:", "href");
	ok(c != NULL && c->ns != NULL && strcmp((const char *)c->ns->href, "DAV:") == 0,
	    "xmldoc_child skips a child of the same name in another namespace");
	c = xmldoc_child(root, NULL, "href");
	ok(c != NULL && strcmp((const char *)c->ns->href, "urn:x") == 0,
	    "... and with no namespace takes the first");
	ok(xmldoc_child(root, NULL, "plain") != NULL && xmldoc_child(root, "DAV:", "plain") == NULL,
	    "an element in no namespace is only found with ns NULL");
	ok(xmldoc_child(root, NULL, "none") == NULL, "no such child");
	xmlFreeDoc(doc);
}

/* --- err_set ----------------------------------------------------------------- */

static void
test_err_set(void)
{
	char *err = NULL;

	is_int(err_set(&err, -7, "cannot open %s: %s", "/x", "no such file"), -7,
	    "err_set returns the code");
	is_str(err, "cannot open /x: no such file", "... with the message in *err");
	free(err);
	is_int(err_set(&err, 0, "plain"), 0, "any code, a plain message");
	is_str(err, "plain", "... as given");
	free(err);
}

/* --- xstrdup_null ------------------------------------------------------------ */

static void
test_xstrdup_null(void)
{
	const char *src = "kernel";
	char *p;

	ok(xstrdup_null(NULL) == NULL, "xstrdup_null(NULL) is NULL");
	p = xstrdup_null(src);
	is_str(p, "kernel", "xstrdup_null copies a string");
	ok(p != src, "... into new memory");
	free(p);
}

/* --- free_secret ------------------------------------------------------------- */

static void
test_free_secret(void)
{
	free_secret(NULL);
	free_secret(xstrdup(""));
	free_secret(xstrdup("hunter2"));
	ok(1, "free_secret of NULL, an empty and a real secret (no leak under valgrind)");
}

int
main(void)
{
	if ((tmpdir = tap_tmpdir("test-util")) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_strbuf();
	test_fsutil();
	test_digest();
	test_clock();
	test_utf8();
	test_utf8_escape();
	test_pctenc();
	test_numfmt();
	test_csv();
	test_list_dir();
	test_strv();
	test_err_set();
	test_xstrdup_null();
	test_free_secret();
	test_xmldoc();
	return tap_done();
}
