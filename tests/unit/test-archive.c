/*
 * test-archive.c: archive URLs and refs, run ids and paths, manifests
 * (built from a directory, formatted, parsed back, verified, and hostile
 * ones refused), the WebDAV PROPFIND reader, and the user config file
 * (refused when group or others may read it; credentials by URL prefix).
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "fsutil.h"
#include "http.h"
#include "log.h"
#include "tap.h"
#include "userconf.h"
#include "webdav.h"
#include "xmalloc.h"

static const char *tmpdir;

static void
write_file(const char *rel, const char *text, int mode)
{
	char *p = xasprintf("%s/%s", tmpdir, rel);

	tap_put(p, "w", text);
	chmod(p, (mode_t)mode);
	free(p);
}

static void
test_urls(void)
{
	struct archive_url *u = NULL;
	char *err = NULL, *url = NULL, *id = NULL, *d;

	ok(archive_is_url("file:///x") && archive_is_url("HTTPS://h/x") &&
	    archive_is_url("s3://b/p") && archive_is_url("http://h"),
	    "is_url: file, http, https (any case), s3");
	ok(!archive_is_url("results/x") && !archive_is_url("ftp://h/x") &&
	    !archive_is_url("latest") && !archive_is_url("file:/x"),
	    "is_url: paths, ids, other schemes are not");

	ok(archive_url_parse("https://bench:s%40cret@dav.example.org:8443/fm/runs/", &u, &err) == 0,
	    "parse an https URL with credentials");
	if (u != NULL) {
		is_str(u->scheme, "https", "... scheme");
		is_str(u->host, "dav.example.org:8443", "... host and port");
		is_str(u->path, "/fm/runs", "... path without the trailing slash");
		is_str(u->user, "bench", "... user");
		is_str(u->password, "s@cret", "... password percent-decoded");
		is_str(u->display, "https://dav.example.org:8443/fm/runs", "... display without credentials");
		archive_url_free(u);
		u = NULL;
	}
	ok(archive_url_parse("s3://bucket/pre/fix/", &u, &err) == 0 &&
	    strcmp(u->host, "bucket") == 0 && strcmp(u->path, "pre/fix") == 0 &&
	    strcmp(u->base, "s3://bucket/pre/fix") == 0, "s3://bucket/prefix");
	archive_url_free(u);
	u = NULL;
	ok(archive_url_parse("file:///srv/runs", &u, &err) == 0 &&
	    strcmp(u->path, "/srv/runs") == 0 && strcmp(u->host, "") == 0, "file:///abs");
	archive_url_free(u);
	u = NULL;

	ok(archive_url_parse("file://relative/x", &u, &err) == ARCHIVE_EINVAL, "file://relative refused");
	free(err);
	err = NULL;
	ok(archive_url_parse("http://u:pw@h/a?x=1", &u, &err) == ARCHIVE_EINVAL &&
	    strstr(err, "pw") == NULL && strstr(err, "query") != NULL,
	    "a query is refused, and the message has no password");
	free(err);
	err = NULL;
	ok(archive_url_parse("http://h/a/../b", &u, &err) == ARCHIVE_EINVAL, "'..' in the path refused");
	free(err);
	err = NULL;
	ok(archive_url_parse("s3://k:s@b/p", &u, &err) == ARCHIVE_EINVAL, "s3 URL with credentials refused");
	free(err);
	err = NULL;
	ok(archive_url_parse("http://h/a b", &u, &err) == ARCHIVE_EINVAL, "space refused");
	free(err);
	err = NULL;
	ok(archive_url_parse("http://u:p%zz@h/a", &u, &err) == ARCHIVE_EINVAL, "bad %-escape refused");
	free(err);
	err = NULL;
	ok(archive_url_parse("http:///a", &u, &err) == ARCHIVE_EINVAL && strstr(err, "no host") != NULL,
	    "an empty host refused (not the path's first segment taken for it)");
	free(err);
	err = NULL;
	ok(archive_url_parse("http://h:80x/a", &u, &err) == ARCHIVE_EINVAL && strstr(err, "port") != NULL,
	    "a bad port refused");
	free(err);
	err = NULL;
	ok(archive_url_parse("file:///srv/a#b", &u, &err) == ARCHIVE_EINVAL && strstr(err, "fragment") != NULL,
	    "a fragment refused in a file URL too");
	free(err);
	err = NULL;
	ok(archive_url_parse("http://[::1]:8080/dav/", &u, &err) == 0 &&
	    strcmp(u->host, "[::1]:8080") == 0 && strcmp(u->path, "/dav") == 0,
	    "an IPv6 host with a port");
	archive_url_free(u);
	u = NULL;
	ok(archive_url_parse("file://localhost/srv/a%20b/", &u, &err) == 0 &&
	    strcmp(u->path, "/srv/a b") == 0 && strcmp(u->base, "file:///srv/a b") == 0,
	    "file://localhost/, the path percent-decoded");
	archive_url_free(u);
	u = NULL;
	ok(archive_url_parse("S3://bucket", &u, &err) == 0 && strcmp(u->scheme, "s3") == 0 &&
	    strcmp(u->path, "") == 0 && strcmp(u->base, "s3://bucket") == 0,
	    "s3://BUCKET without a prefix, the scheme in lowercase");
	archive_url_free(u);
	u = NULL;

	d = archive_url_display("https://u:secret@h/a/b");
	is_str(d, "https://h/a/b", "display scrubs user:password");
	free(d);
	d = archive_url_display("not a url");
	is_str(d, "not a url", "display leaves other text alone");
	free(d);

	ok(archive_split_ref("https://dav.example.org/fm/20011130-041500-smoke-3f2a/", &url, &id) == 0,
	    "split URL/RUNID/");
	is_str(url, "https://dav.example.org/fm", "... the archive URL");
	is_str(id, "20011130-041500-smoke-3f2a", "... the run id");
	free(url);
	free(id);
	ok(archive_split_ref("s3://bucket/20011130-041500-smoke-3f2a", &url, &id) == 0 &&
	    strcmp(url, "s3://bucket") == 0, "split s3://bucket/RUNID");
	free(url);
	free(id);
	ok(archive_split_ref("file:///20011130-041500-smoke-3f2a", &url, &id) == 0 &&
	    strcmp(url, "file:///") == 0, "split file:///RUNID keeps the root");
	free(url);
	free(id);
	ok(archive_split_ref("s3://bucket", &url, &id) == ARCHIVE_EINVAL &&
	    archive_split_ref("https://host/", &url, &id) == ARCHIVE_EINVAL &&
	    archive_split_ref("https://host/a/..", &url, &id) == ARCHIVE_EINVAL &&
	    archive_split_ref("results/x", &url, &id) == ARCHIVE_EINVAL,
	    "split refuses no run id, '..' and non-URLs");
}

static void
test_names(void)
{
	char longc[300];

	ok(archive_valid_runid("20011130-041500-smoke-3f2a"), "valid run id");
	ok(!archive_valid_runid("") && !archive_valid_runid(".x") && !archive_valid_runid("..") &&
	    !archive_valid_runid("a/b") && !archive_valid_runid("a b"), "invalid run ids");
	ok(!archive_valid_runid("qualify") && archive_valid_runid("qualify1"),
	    "'qualify', the archive's own folder, is no run id");
	ok(archive_valid_path("hosts/lab-01.json") && archive_valid_path("run.json"), "valid paths");
	ok(!archive_valid_path("/etc/passwd") && !archive_valid_path("../x") &&
	    !archive_valid_path("a/../b") && !archive_valid_path("a//b") &&
	    !archive_valid_path("a/") && !archive_valid_path(".hidden") &&
	    !archive_valid_path("a\\b") && !archive_valid_path("a\nb"),
	    "absolute, '..', empty components, hidden, odd bytes refused");
	memset(longc, 'a', 256);
	longc[256] = '\0';
	ok(!archive_valid_path(longc), "a component over 255 bytes refused");
	ok(!archive_valid_path("a/b/c/d/e/f/g/h/i"), "more than 8 levels refused");
}

static struct archive_manifest *
parse_text(const char *text, char **err)
{
	struct archive_manifest *m = NULL;

	free(*err);
	*err = NULL;
	if (archive_manifest_parse("M", text, strlen(text), &m, err) != 0)
		return NULL;
	return m;
}

/* printf a | sha256sum; printf '{}\n' | sha256sum below */
#define SUM_A "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"

static void
test_manifest(void)
{
	struct archive_manifest *m = NULL, *m2 = NULL;
	char *err = NULL, *text, *p, *run;
	size_t len;

	run = xasprintf("%s/20011130-041500-smoke-3f2a", tmpdir);
	mkdir(run, 0755);
	p = xasprintf("%s/hosts", run);
	mkdir(p, 0755);
	free(p);
	write_file("20011130-041500-smoke-3f2a/run.json", "{}\n", 0644);
	write_file("20011130-041500-smoke-3f2a/hosts/h1.json", "a", 0644);
	write_file("20011130-041500-smoke-3f2a/.lock", "x", 0644);
	write_file("20011130-041500-smoke-3f2a/MANIFEST", "old", 0644);

	ok(archive_manifest_build(run, "20011130-041500-smoke-3f2a", &m, &err) == 0,
	    "build the manifest of a run directory");
	if (m == NULL) {
		printf("#   %s\n", err);
		return;
	}
	is_int(m->n, 2, "... two files: hidden files and MANIFEST left out");
	is_str(m->entries[0].path, "hosts/h1.json", "... sorted by path");
	is_str(m->entries[0].sha256, SUM_A, "... sha256 of \"a\"");
	is_int(m->entries[0].size, 1, "... its size");
	text = archive_manifest_format(m, &len);
	is_str(text, "fleetmark-manifest 1\nrun 20011130-041500-smoke-3f2a\nfiles 2\n"
	    SUM_A "  1  hosts/h1.json\n"
	    "ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356  3  run.json\nend\n",
	    "formatted as documented");
	ok(archive_manifest_parse("M", text, len, &m2, &err) == 0 && m2->n == 2 &&
	    strcmp(m2->entries[1].path, "run.json") == 0 && m2->entries[1].size == 3,
	    "parsed back");
	ok(archive_manifest_verify(m2, run, &err) == 0, "the directory verifies");
	archive_manifest_free(m2);
	m2 = NULL;

	write_file("20011130-041500-smoke-3f2a/hosts/h1.json", "b", 0644);
	ok(archive_manifest_verify(m, run, &err) == ARCHIVE_ECORRUPT &&
	    strstr(err, "hosts/h1.json") != NULL && strstr(err, "sha256") != NULL,
	    "a changed file fails verification, named");
	free(err);
	err = NULL;
	write_file("20011130-041500-smoke-3f2a/run.json", "{", 0644);
	write_file("20011130-041500-smoke-3f2a/hosts/h1.json", "a", 0644);
	ok(archive_manifest_verify(m, run, &err) == ARCHIVE_ECORRUPT &&
	    strstr(err, "run.json") != NULL && strstr(err, "truncated") != NULL,
	    "a shorter file fails verification as truncated");
	free(err);
	err = NULL;
	p = xasprintf("%s/run.json", run);
	unlink(p);
	free(p);
	ok(archive_manifest_verify(m, run, &err) == ARCHIVE_ECORRUPT &&
	    strstr(err, "missing") != NULL, "a missing file fails verification");
	free(text);
	archive_manifest_free(m);
	free(run);

	/* hostile manifests */
#define HDR "fleetmark-manifest 1\nrun r1\nfiles 1\n"
	ok(parse_text(HDR SUM_A "  1  ../x\nend\n", &err) == NULL && strstr(err, "M:4:") != NULL,
	    "'..' path refused at its line");
	ok(parse_text(HDR SUM_A "  1  /etc/passwd\nend\n", &err) == NULL, "absolute path refused");
	ok(parse_text(HDR SUM_A "  1  MANIFEST\nend\n", &err) == NULL, "MANIFEST inside refused");
	ok(parse_text(HDR SUM_A "  1  a/.x\nend\n", &err) == NULL, "hidden name refused");
	ok(parse_text(HDR SUM_A "  99999999999999999999  a\nend\n", &err) == NULL, "huge size refused");
	ok(parse_text(HDR SUM_A "  -1  a\nend\n", &err) == NULL, "negative size refused");
	ok(parse_text(HDR SUM_A "  01  a\nend\n", &err) == NULL, "leading zero refused");
	ok(parse_text(HDR "CA978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  1  a\nend\n", &err) == NULL,
	    "uppercase sum refused");
	ok(parse_text(HDR SUM_A "  1  a\n", &err) == NULL && strstr(err, "end") != NULL, "no end line refused");
	ok(parse_text(HDR SUM_A "  1  a\nend", &err) == NULL && strstr(err, "truncated") != NULL,
	    "no final newline refused");
	ok(parse_text(HDR SUM_A "  1  a\nend\nx\n", &err) == NULL, "text after end refused");
	ok(parse_text("fleetmark-manifest 2\nrun r1\nfiles 0\nend\n", &err) == NULL &&
	    strstr(err, "version") != NULL, "another version refused, saying so");
	ok(parse_text("fleetmark-manifest 1\nrun ../r\nfiles 0\nend\n", &err) == NULL, "bad run id refused");
	ok(parse_text("fleetmark-manifest 1\nrun r\nfiles 100001\nend\n", &err) == NULL, "too many files refused");
	ok(parse_text("fleetmark-manifest 1\nrun r\nfiles 2\n" SUM_A "  1  b\n" SUM_A "  1  a\nend\n", &err) == NULL &&
	    strstr(err, "order") != NULL, "unsorted paths refused");
	ok(parse_text("fleetmark-manifest 1\nrun r\nfiles 2\n" SUM_A "  1  a\n" SUM_A "  1  a\nend\n", &err) == NULL,
	    "repeated path refused");
	ok(parse_text("fleetmark-manifest 1\nrun r\nfiles 1\n" SUM_A "  1  a\0b\nend\n", &err) == NULL,
	    "(embedded NUL cuts the text: refused)");
	{
		static const char nul[] = HDR SUM_A "  1  a\0b\nend\n";

		free(err);
		err = NULL;

		ok(archive_manifest_parse("M", nul, sizeof(nul) - 1, &m2, &err) != 0 &&
		    strstr(err, "NUL") != NULL, "a NUL byte refused");
	}
	ok((m = parse_text("fleetmark-manifest 1\nrun r\nfiles 0\nend\n", &err)) != NULL && m->n == 0,
	    "an empty run is a valid manifest");
	archive_manifest_free(m);
	free(err);
}

static void
test_propfind(void)
{
	static const char xml[] =
	    "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n"
	    "<D:multistatus xmlns:D=\"DAV:\">\n"
	    "<D:response><D:href>/runs/</D:href><D:propstat><D:prop>"
	    "<D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>\n"
	    "<D:response><D:href>/runs/20011130-041500-smoke-3f2a/</D:href><D:propstat><D:prop>"
	    "<D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>\n"
	    "<D:response><D:href>http://h:1/runs/a%20b</D:href><D:propstat><D:prop>"
	    "<D:resourcetype/></D:prop></D:propstat></D:response>\n"
	    "<response xmlns=\"DAV:\"><href>/runs/coll</href><propstat><prop>"
	    "<resourcetype><collection/></resourcetype></prop></propstat></response>\n"
	    "<D:response><D:href>/runs/../etc/</D:href></D:response>\n"
	    "<D:response><D:href>/runs/a/b</D:href></D:response>\n"
	    "<D:response><D:href>/other/x</D:href></D:response>\n"
	    "<D:response><D:href>/runs/%00x</D:href></D:response>\n"
	    "<X:response xmlns:X=\"urn:not-dav\"><X:href>/runs/fake</X:href></X:response>\n"
	    "</D:multistatus>\n";
	char **names = NULL, *err = NULL;
	size_t n = 0, i;

	ok(webdav_parse_listing(xml, sizeof(xml) - 1, "/runs", &names, &n, &err) == 0,
	    "PROPFIND multistatus parsed");
	is_int(n, 3, "... three children: the collection itself, '..', deeper, elsewhere, NUL and non-DAV left out");
	if (n == 3) {
		is_str(names[0], "20011130-041500-smoke-3f2a/", "... a sub-collection with '/'");
		is_str(names[1], "a b", "... an absolute-URL href, decoded");
		is_str(names[2], "coll/", "... default namespace, collection by resourcetype");
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	ok(webdav_parse_listing("<html/>", 7, "/", &names, &n, &err) == -1 && strstr(err, "multistatus"),
	    "not a multistatus: refused");
	free(err);
	err = NULL;
	ok(webdav_parse_listing("<D:multistatus xmlns:D=\"DAV:\">", 30, "/", &names, &n, &err) == -1,
	    "truncated XML: refused");
	free(err);
	err = NULL;
	{
		static const char xxe[] =
		    "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
		    "<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/r/&x;</D:href>"
		    "</D:response></D:multistatus>";

		ok(webdav_parse_listing(xxe, sizeof(xxe) - 1, "/r", &names, &n, &err) != 0 || n == 0,
		    "an external entity is not loaded");
		if (err == NULL) {
			for (i = 0; i < n; i++)
				free(names[i]);
			free(names);
		}
		free(err);
		err = NULL;
	}
}

/* What a server that echoes our headers back cannot make us print. */
static void
test_scrub(void)
{
	const char *secrets[] = { "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "tok/en+=", NULL };
	char *m;

	/* base64("bench:S3cretPassw0rd-XYZ") */
	m = xstrdup("HTTP 500: Basic YmVuY2g6UzNjcmV0UGFzc3cwcmQtWFla echoed; S3cretPassw0rd-XYZ");
	http_scrub(&m, "bench", "S3cretPassw0rd-XYZ", NULL);
	is_str(m, "HTTP 500: Basic *** echoed; ***", "the password and base64(user:password) scrubbed");
	free(m);
	m = xstrdup("<Authorization>Basic Zm9vOmJhcg==</Authorization>");
	http_scrub(&m, NULL, NULL, NULL);
	is_str(m, "<Authorization>Basic ***</Authorization>",
	    "any Basic credential (~/.netrc's) scrubbed");
	free(m);
	m = xstrdup("StringToSign wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY x-amz-security-token:tok/en+=");
	http_scrub(&m, NULL, NULL, secrets);
	is_str(m, "StringToSign *** x-amz-security-token:***", "the S3 secret and token scrubbed");
	free(m);
	m = xstrdup("Basic realm=\"fleetmark\"");
	http_scrub(&m, NULL, NULL, NULL);
	is_str(m, "Basic realm=\"fleetmark\"", "a Basic challenge is left alone");
	free(m);
}

static void
test_userconf(void)
{
	struct userconf *uc = NULL;
	const struct userconf_webdav *w;
	char *err = NULL, *p;

	p = xasprintf("%s/config.yaml", tmpdir);
	write_file("config.yaml",
	    "archive:\n  tries: 3\n  max_time: 30s\n"
	    "webdav:\n  - url: https://dav.example.org/fm/\n    user: bench\n    password: s3cret\n"
	    "  - url: https://dav.example.org/fm/private\n    user: boss\n    password: other\n"
	    "s3:\n  region: eu-west-1\n  access_key_id: AKIDEXAMPLE\n  secret_access_key: k\n", 0644);
	ok(userconf_load_file(p, &uc, &err) == -1 && strstr(err, "0644") != NULL &&
	    strstr(err, "chmod 600") != NULL && strstr(err, "s3cret") == NULL,
	    "a config file readable by others is refused, saying how to fix it");
	free(err);
	err = NULL;
	chmod(p, 0620);
	ok(userconf_load_file(p, &uc, &err) == -1, "... and one writable by the group");
	free(err);
	err = NULL;
	chmod(p, 0600);
	ok(userconf_load_file(p, &uc, &err) == 0, "mode 0600 is accepted");
	if (uc != NULL) {
		is_int(uc->tries, 3, "... archive.tries");
		is_int(uc->max_time_ms, 30000, "... archive.max_time");
		is_str(uc->s3.region, "eu-west-1", "... s3.region");
		is_str(uc->s3.access_key_id, "AKIDEXAMPLE", "... s3.access_key_id");
		w = userconf_webdav_for(uc, "https://dav.example.org/fm/runs");
		ok(w != NULL && strcmp(w->user, "bench") == 0, "credentials by URL prefix");
		w = userconf_webdav_for(uc, "https://dav.example.org/fm/private/x");
		ok(w != NULL && strcmp(w->user, "boss") == 0, "... the longest prefix wins");
		ok(userconf_webdav_for(uc, "https://dav.example.org/fmx") == NULL,
		    "... only at a '/' boundary");
		userconf_free(uc);
		uc = NULL;
	}
	write_file("config.yaml", "webdav:\n  - url: https://u:p@h/x\n    user: u\n", 0600);
	ok(userconf_load_file(p, &uc, &err) == -1 && strstr(err, "config.yaml:2:") != NULL,
	    "credentials in a webdav url refused at FILE:LINE");
	free(err);
	err = NULL;
	write_file("config.yaml", "s3:\n  regoin: x\n", 0600);
	ok(userconf_load_file(p, &uc, &err) == -1 && strstr(err, "did you mean 'region'") != NULL,
	    "unknown key refused with a suggestion");
	free(err);
	err = NULL;
	/* a symbolic link (as dotfile managers make): the file it leads to counts */
	write_file("dotfiles-config.yaml", "archive:\n  tries: 4\n  min_rate: 1000\n", 0600);
	unlink(p);
	{
		char *target = xasprintf("%s/dotfiles-config.yaml", tmpdir);

		ok(symlink(target, p) == 0 && userconf_load_file(p, &uc, &err) == 0 &&
		    uc->tries == 4 && uc->min_rate == 1000,
		    "a symlinked config file leading to a mode 0600 file is read");
		userconf_free(uc);
		uc = NULL;
		chmod(target, 0644);
		ok(userconf_load_file(p, &uc, &err) == -1 && strstr(err, "0644") != NULL,
		    "... and refused when the file it leads to is readable by others");
		free(err);
		err = NULL;
		unlink(target);
		free(target);
	}
	unlink(p);
	ok(userconf_load_file(p, &uc, &err) == 0 && uc->path == NULL && uc->nwebdav == 0,
	    "a missing file is an empty configuration");
	userconf_free(uc);
	free(p);
}

/* push, list, pull and fetch through a file:// archive under tmpdir */
static void
test_file_archive(void)
{
	char *run, *url, *cache, *dir = NULL, *dir2 = NULL, *err = NULL, **ids = NULL, *p;
	size_t n = 0;

	run = xasprintf("%s/res/20011130-041500-smoke-3f2a", tmpdir);
	p = xasprintf("%s/res/20011130-041500-smoke-3f2a/logs", tmpdir);
	fs_mkparents(p, 0755, &err);
	mkdir(p, 0755);
	free(p);
	write_file("res/20011130-041500-smoke-3f2a/run.json", "{\"format\": 1}\n", 0644);
	write_file("res/20011130-041500-smoke-3f2a/logs/h.log", "hello\n", 0644);
	url = xasprintf("file://%s/arch", tmpdir);
	cache = xasprintf("%s/cache", tmpdir);
	log_set_level(LOG_LEVEL_QUIET);	/* the transfers' progress lines */
	setenv("XDG_CACHE_HOME", cache, 1);

	ok(archive_push(run, url, &err) == 0, "push to file://");
	ok(archive_list(url, &ids, &n, &err) == 0 && n == 1 &&
	    strcmp(ids[0], "20011130-041500-smoke-3f2a") == 0, "list: the run");
	if (n == 1)
		free(ids[0]);
	free(ids);
	ok(archive_fetch(url, "20011130-041500-smoke-3f2a", &dir, &err) == 0 && dir != NULL &&
	    strncmp(dir, cache, strlen(cache)) == 0, "fetch: a copy in $XDG_CACHE_HOME");
	if (dir == NULL) {
		printf("#   %s\n", err);
		goto out;
	}
	p = xasprintf("%s/logs/h.log", dir);
	ok(access(p, R_OK) == 0, "... with the run's files");
	free(p);
	/* the same MANIFEST in the archive: the verified cache serves (a mark stays) */
	write_file("cache-mark", "", 0644);
	p = xasprintf("cp '%s/cache-mark' '%s/.mark'", tmpdir, dir);
	ok(system(p) == 0 && archive_fetch(url, "20011130-041500-smoke-3f2a", &dir2, &err) == 0 &&
	    strcmp(dir, dir2) == 0, "a second fetch is served from the cache");
	free(p);
	p = xasprintf("%s/.mark", dir);
	ok(access(p, F_OK) == 0, "... not pulled again");
	free(p);
	free(dir2);
	dir2 = NULL;
	/* the archive's MANIFEST is read on every fetch: with the archive gone, none */
	p = xasprintf("%s/arch", tmpdir);
	tap_rmtree(p);
	ok(access(p, F_OK) != 0 && archive_fetch(url, "20011130-041500-smoke-3f2a", &dir2, &err) != 0,
	    "the archive gone, the cached copy is not read unchecked");
	free(p);
	free(err);
	err = NULL;
	/* a damaged cache is pulled again */
	p = xasprintf("%s/logs/h.log", dir);
	ok(truncate(p, 2) == 0, "(damage the cached copy)");
	free(p);
	ok(archive_push(run, url, &err) == 0 &&
	    archive_fetch(url, "20011130-041500-smoke-3f2a", &dir2, &err) == 0,
	    "... and is pulled again when the archive has the run");
	p = xasprintf("%s/logs/h.log", dir);
	{
		struct stat st;

		ok(stat(p, &st) == 0 && st.st_size == 6, "... whole again");
	}
	free(p);
	ok(archive_fetch(url, "../x", &dir2, &err) == ARCHIVE_EINVAL, "fetch refuses a bad run id");
 out:
	free(err);
	free(dir);
	free(dir2);
	free(cache);
	free(url);
	free(run);
}

static void
test_http_helpers(void)
{
	char *e = http_escape_path("RUN/a b/%x~.json");

	is_str(e, "RUN/a%20b/%25x~.json", "keys are percent-escaped, '/' kept");
	free(e);
	ok(http_status_class(201) == ARCHIVE_OK && http_status_class(404) == ARCHIVE_ENOTFOUND &&
	    http_status_class(503) == ARCHIVE_ETRANSIENT && http_status_class(429) == ARCHIVE_ETRANSIENT &&
	    http_status_class(403) == ARCHIVE_EPERM && http_status_class(301) == ARCHIVE_EPERM,
	    "HTTP statuses classed: ok, not found, transient, permanent");
}

int
main(void)
{
	if ((tmpdir = tap_tmpdir("test-archive")) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_urls();
	test_names();
	test_manifest();
	test_propfind();
	test_userconf();
	test_scrub();
	test_file_archive();
	test_http_helpers();
	return tap_done();
}
