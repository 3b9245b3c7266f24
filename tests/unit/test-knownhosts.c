/*
 * test-knownhosts.c: merging the keys a jump recorded into known_hosts
 * (src/transport/knownhosts.c knownhosts_merge()), with keys made on the
 * spot: each new key is appended once, a key already there (or the same
 * key again) is not, comments and lines that are no entries are left
 * out, and a host whose key changed gets the new one beside the old.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "transport/ssh-int.h"
#include "log.h"
#include "tap.h"
#include "xmalloc.h"

static const char *tmpdir;

static char *
key_line(const char *host, ssh_key *keyp)
{
	ssh_key key = NULL;
	char *b64 = NULL, *line;

	if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK ||
	    ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK) {
		printf("Bail out! cannot make a key\n");
		exit(1);
	}
	line = xasprintf("%s ssh-ed25519 %s\n", host, b64);
	ssh_string_free_char(b64);
	if (keyp != NULL)
		*keyp = key;
	else
		ssh_key_free(key);
	return line;
}


static char *
read_text(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

int
main(void)
{
	char *kh, *tmp, *a, *b, *b2, *c, *text;

	if ((tmpdir = tap_tmpdir("test-knownhosts")) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	log_set_level(LOG_LEVEL_QUIET);
	kh = xasprintf("%s/known_hosts", tmpdir);
	tmp = xasprintf("%s/jump_known_hosts", tmpdir);
	a = key_line("j1", NULL);
	b = key_line("[j2]:2222", NULL);
	b2 = key_line("[j2]:2222", NULL);
	c = key_line("j3", NULL);

	tap_put(kh, "w", a);
	text = xasprintf("# a comment\n%s\n%s%snot an entry\n%s", a, b, b, c);
	tap_put(tmp, "w", text);
	free(text);
	knownhosts_merge(tmp, kh, "test");
	text = xstrdup(read_text(kh));
	ok(count(text, a) == 1, "a key known_hosts has already is not added again");
	ok(count(text, b) == 1, "a new key is added once, though the jump recorded it twice");
	ok(count(text, c) == 1, "... and every other new key");
	ok(strstr(text, "comment") == NULL && strstr(text, "not an entry") == NULL,
	    "comments and lines that are no entries are left out");

	ok(strlen(text) == strlen(a) + strlen(b) + strlen(c), "... to the byte");
	knownhosts_merge(tmp, kh, "test");
	is_str(read_text(kh), text, "merging the same file again adds nothing");
	free(text);

	tap_put(tmp, "w", b2);
	knownhosts_merge(tmp, kh, "test");
	text = read_text(kh);
	ok(count(text, b) == 1 && count(text, b2) == 1,
	    "another key for a known host is added beside the one there");

	free(a);
	free(b);
	free(b2);
	free(c);
	free(kh);
	free(tmp);
	return tap_done();
}
