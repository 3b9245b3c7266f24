/*
 * test-shquote.c: sh_quote(), sh_join() and sh_format() against an
 * injection corpus, proven by round trips through a real /bin/sh: each
 * value quoted into `printf %s VALUE` must come back byte for byte, and
 * nothing in it may run (a marker file would appear).  The same corpus
 * also goes through the local transport, the path commands take to this
 * machine's shell in production.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shquote.h"
#include "tap.h"
#include "transport.h"
#include "xmalloc.h"

static const char *tmpdir;	/* the test's scratch directory */
static char marker[256];	/* a file that exists only if an injection ran */

/* Run /bin/sh -c cmd; its stdout (at most cap bytes) into out. */
static int
sh_run(const char *cmd, char *out, size_t cap, size_t *outlen)
{
	int p[2], ws;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(p) != 0)
		return -1;
	if ((pid = fork()) == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], out + got, cap - got)) > 0 && got < cap)
		got += (size_t)n;
	close(p[0]);
	waitpid(pid, &ws, 0);
	*outlen = got;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static int
marker_exists(void)
{
	struct stat st;

	return stat(marker, &st) == 0;
}

/* The corpus; built at run time because some entries name the marker. */
static char **corpus;
static size_t ncorpus;

static void
add(const char *s)
{
	corpus = xreallocarray(corpus, ncorpus + 1, sizeof(*corpus));
	corpus[ncorpus++] = xstrdup(s);
}

static void
build_corpus(void)
{
	static const char *const fixed[] = {
		"", "plain", "a b", "  leading and trailing  ", "tab\there", "a\nb", "\n",
		"'", "''", "a'b", "'\\''", "\"", "a\"b\"c", "\\", "\\n", "back\\slash\\",
		"$HOME", "${HOME}", "$(id)", "`id`", "$((1+2))", "${IFS}", "$@", "$*", "$$",
		"*", "?", "[a-z]*", "~", "~root", "-n", "-e", "--", "a=b", "FOO=bar",
		"|", "||", "&", "&&", ";", ";;", ">", ">>", "<", "<<EOF", "!", "!!", "#", "# comment",
		"{a,b}", "(sub)", "%s%n%d", "\x01\x02\x1b[31m", "\x7f",
		"\xff\xfe\xfd", "\xc3\x28", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x92\xa9",
		NULL
	};
	static const char *const inject[] = {
		"$(touch %s)", "`touch %s`", "; touch %s", "x; touch %s", "x && touch %s",
		"x || touch %s", "x | touch %s", "x\ntouch %s", "x'; touch %s; '",
		"x\"; touch %s; \"", "x'\"$(touch %s)\"'", "$(touch %s)'", "'$(touch %s)",
		"x\\'; touch %s #", "x`touch %s`x", ">%s", "x > %s", NULL
	};
	char buf[1024];
	size_t i;

	for (i = 0; fixed[i] != NULL; i++)
		add(fixed[i]);
	for (i = 0; inject[i] != NULL; i++) {
		snprintf(buf, sizeof(buf), inject[i], marker);
		add(buf);
	}
	/* Every byte from 1 to 255 in one value. */
	for (i = 1; i < 256; i++)
		buf[i - 1] = (char)i;
	buf[255] = '\0';
	add(buf);
	/* A long one. */
	{
		char *l = xmalloc(20001);

		for (i = 0; i < 20000; i++)
			l[i] = "a'b\"$`\\ \n;|&*"[i % 14];
		l[20000] = '\0';
		add(l);
		free(l);
	}
}

static void
test_exact(void)
{
	char *s;

	is_str((s = sh_quote("")), "''", "empty string quotes to ''");
	free(s);
	is_str((s = sh_quote("abc-1.2_x/y:z@h%+,")), "abc-1.2_x/y:z@h%+,", "plain word stays bare");
	free(s);
	is_str((s = sh_quote("a b")), "'a b'", "blank is quoted");
	free(s);
	is_str((s = sh_quote("a'b")), "'a'\\''b'", "single quote becomes '\\''");
	free(s);
	is_str((s = sh_quote("a=b")), "'a=b'", "'=' is quoted (no assignment)");
	free(s);
	is_str((s = sh_quote("~")), "'~'", "'~' is quoted (no tilde expansion)");
	free(s);
	ok(!sh_is_plain("") && sh_is_plain("x") && !sh_is_plain("$x"), "sh_is_plain");
	{
		const char *argv[] = { "printf", "%s\\n", "a b", "", NULL };

		is_str((s = sh_join(argv, -1)), "printf '%s\\n' 'a b' ''", "sh_join quotes each word");
		free(s);
		is_str((s = sh_join(argv, 1)), "printf", "sh_join honours argc");
		free(s);
		is_str((s = sh_join(argv, 0)), "", "sh_join of nothing is empty");
		free(s);
	}
	s = xstrdup("echo");
	sh_quote_append(&s, "it's");
	is_str(s, "echo'it'\\''s'", "sh_quote_append appends the quoted word");
	free(s);
	is_str((s = sh_format("umask %o; x=%q.tmp.$$; echo %d %zu %lld %u %x %%s %s", 077u,
	    "/a b", -3, (size_t)4, -5LL, 6u, 255u, "raw")),
	    "umask 77; x='/a b'.tmp.$$; echo -3 4 -5 6 ff %s raw", "sh_format conversions");
	free(s);
}

/* Each corpus value through /bin/sh: printf %s QUOTED gives it back. */
static void
test_roundtrip(void)
{
	char *out = xmalloc(65536), what[128];
	size_t i, len, bad = 0, ran = 0;

	for (i = 0; i < ncorpus; i++) {
		char *q = sh_quote(corpus[i]);
		char *cmd = xasprintf("printf %%s %s", q);
		int st = sh_run(cmd, out, 65536, &len);

		if (st != 0 || len != strlen(corpus[i]) || memcmp(out, corpus[i], len) != 0) {
			bad++;
			printf("# round trip failed for value %zu: quoted as [%.80s]\n", i, q);
		}
		if (marker_exists()) {
			ran++;
			printf("# value %zu ran a command: [%.80s]\n", i, q);
			unlink(marker);
		}
		free(q);
		free(cmd);
	}
	snprintf(what, sizeof(what), "%zu values come back byte for byte through /bin/sh", ncorpus);
	is_int(bad, 0, what);
	is_int(ran, 0, "no value ran anything (no marker file)");

	/* All of them at once, as one argv: printf '[%s]' ... */
	{
		const char **argv = xcalloc(ncorpus + 3, sizeof(*argv));
		char *cmd, *want = xstrdup(""), *n;

		argv[0] = "printf";
		argv[1] = "[%s]";
		for (i = 0; i < ncorpus; i++) {
			argv[i + 2] = corpus[i];
			n = xasprintf("%s[%s]", want, corpus[i]);
			free(want);
			want = n;
		}
		cmd = sh_join(argv, -1);
		sh_run(cmd, out, 65536, &len);
		ok(len == strlen(want) && memcmp(out, want, len) == 0,
		    "sh_join: the whole corpus as one command line, each a single argument");
		ok(!marker_exists(), "... and nothing ran");
		free(cmd);
		free(want);
		free(argv);
	}
	{
		char *cmd = sh_format("printf '%%s|' %q %q %q", corpus[3], "$(touch x)", "");
		const char *want = "  leading and trailing  |$(touch x)||";

		sh_run(cmd, out, 65536, &len);
		ok(len == strlen(want) && memcmp(out, want, len) == 0, "sh_format %q round trip");
		free(cmd);
	}
	free(out);
}

/* The same through the local transport (this machine's /bin/sh). */
static void
test_local_transport(void)
{
	struct transport_opts o = { 0 };
	struct transport_result res;
	struct transport *t = NULL;
	size_t i, bad = 0, ran = 0;
	char *err = NULL, *cmd;
	int r;

	o.name = "local";
	o.local = 1;
	r = transport_open(&o, &t, NULL, &err);
	is_int(r, 0, "local transport opens");
	if (r != 0)
		return;
	for (i = 0; i < ncorpus; i++) {
		const char *argv[] = { "printf", "%s", corpus[i], NULL };

		cmd = sh_join(argv, -1);
		r = transport_run(t, cmd, NULL, 0, 0, 10000, &res);
		if (r != 0 || res.exit.status != 0 || res.outlen != strlen(corpus[i]) ||
		    memcmp(res.out, corpus[i], res.outlen) != 0)
			bad++;
		if (marker_exists()) {
			ran++;
			unlink(marker);
		}
		transport_result_release(&res);
		free(cmd);
	}
	is_int(bad, 0, "the corpus comes back through the local transport");
	is_int(ran, 0, "... and nothing ran");

	/* The value as standard input: cat gives it back. */
	r = transport_run(t, "cat", corpus[ncorpus - 2], 255, 0, 10000, &res);
	ok(r == 0 && res.outlen == 255 && memcmp(res.out, corpus[ncorpus - 2], 255) == 0,
	    "local transport: all 255 byte values through stdin and back");
	transport_result_release(&res);

	/* Output beyond the cap is dropped and counted. */
	r = transport_run(t, "head -c 100000 /dev/zero; echo err >&2; exit 7", NULL, 0, 1000,
	    10000, &res);
	ok(r == 0 && res.outlen == 1000 && res.out_dropped == 99000 && res.exit.status == 7 &&
	    strcmp(res.err, "err\n") == 0, "local transport: capped output, stderr, exit status");
	transport_result_release(&res);

	/* The buffers grow as output comes, to the whole default cap. */
	r = transport_run(t, "head -c 65536 /dev/zero; echo e >&2", NULL, 0, 0, 10000, &res);
	ok(r == 0 && res.outlen == 65536 && res.out_dropped == 0 && res.errlen == 2 &&
	    res.exit.status == 0, "local transport: 64 KB of output held whole, buffers grown");
	transport_result_release(&res);

	r = transport_run(t, "kill -KILL $$", NULL, 0, 0, 10000, &res);
	ok(r == 0 && res.exit.status == -1 && strcmp(res.exit.signal, "KILL") == 0,
	    "local transport: death by signal reported as KILL");
	transport_result_release(&res);

	r = transport_run(t, "sleep 5", NULL, 0, 0, 200, &res);
	is_int(r, TRANSPORT_ETIMEOUT, "local transport: a command past its timeout");
	transport_result_release(&res);

	{
		static const char data[] = "line one\nline 'two' $(x)\n";
		char *dst, got[128];
		int fd;
		ssize_t n;
		struct stat st;

		dst = xasprintf("%s/up dir 'x", tmpdir);
		r = transport_upload(t, data, sizeof(data) - 1, dst, 0640, 10000);
		fd = open(dst, O_RDONLY);
		n = fd >= 0 ? read(fd, got, sizeof(got)) : -1;
		if (fd >= 0)
			close(fd);
		ok(r == 0 && n == (ssize_t)sizeof(data) - 1 && memcmp(got, data, (size_t)n) == 0 &&
		    stat(dst, &st) == 0 && (st.st_mode & 07777) == 0640,
		    "local transport: upload to a path with blanks and a quote, verified, mode 0640");
		unlink(dst);
		/* the command after it runs in the same channel, $p the path */
		r = transport_upload_run(t, data, sizeof(data) - 1, dst, 0755,
		    "wc -c < \"$p\"; test -x \"$p\"; exit 3", 10000, &res);
		ok(r == 0 && atoi(res.out) == (int)sizeof(data) - 1 && res.exit.status == 3 &&
		    strchr(res.out, '\n') == res.out + res.outlen - 1,
		    "local transport: upload_run: what the command printed, and its status");
		transport_result_release(&res);
		unlink(dst);
		free(dst);
	}
	ok(transport_cksum("", 0) == 4294967295u && transport_cksum("a", 1) == 1220704766u,
	    "transport_cksum matches POSIX cksum");
	transport_close(t);
}

int
main(void)
{
	size_t i;

	if ((tmpdir = tap_tmpdir("test-shquote")) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(marker, sizeof(marker), "%s/pwned", tmpdir);
	build_corpus();
	test_exact();
	test_roundtrip();
	test_local_transport();
	ok(!marker_exists(), "the marker file was never created");
	unlink(marker);
	for (i = 0; i < ncorpus; i++)
		free(corpus[i]);
	free(corpus);
	return tap_done();
}
