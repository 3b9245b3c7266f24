/*
 * transport/knownhosts.c: the server's host key against known_hosts, for the SSH
 * transport (transport/ssh.c), as OpenSSH's hostfile.c is apart from
 * sshconnect.c: the policy (host_key_check yes / accept-new / no) with
 * OpenSSH's messages, appending an unknown key under an flock so that
 * concurrent sessions record it once, and merging the keys a jump
 * recorded in its own file (knownhosts_*()).  Shared declarations are
 * in transport/ssh-int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "log.h"
#include "ssh-int.h"
#include "transport.h"
#include "xmalloc.h"

/* OpenSSH's name of a key type: "ED25519", "RSA", "ECDSA", "DSA". */
static const char *
key_type_name(ssh_key key)
{
	switch (ssh_key_type(key)) {
	case SSH_KEYTYPE_ED25519:
	case SSH_KEYTYPE_ED25519_CERT01:
		return "ED25519";
	case SSH_KEYTYPE_SK_ED25519:
	case SSH_KEYTYPE_SK_ED25519_CERT01:
		return "ED25519-SK";
	case SSH_KEYTYPE_RSA:
	case SSH_KEYTYPE_RSA1:
	case SSH_KEYTYPE_RSA_CERT01:
		return "RSA";
	case SSH_KEYTYPE_DSS:
	case SSH_KEYTYPE_DSS_CERT01:
		return "DSA";
	case SSH_KEYTYPE_SK_ECDSA:
	case SSH_KEYTYPE_SK_ECDSA_CERT01:
		return "ECDSA-SK";
	case SSH_KEYTYPE_ECDSA:
	case SSH_KEYTYPE_ECDSA_P256:
	case SSH_KEYTYPE_ECDSA_P384:
	case SSH_KEYTYPE_ECDSA_P521:
	case SSH_KEYTYPE_ECDSA_P256_CERT01:
	case SSH_KEYTYPE_ECDSA_P384_CERT01:
	case SSH_KEYTYPE_ECDSA_P521_CERT01:
		return "ECDSA";
	default:
		return "UNKNOWN";
	}
}

/* "host" or "[host]:port", as known_hosts names the target. */
static char *
kh_name(const char *host, int port)
{
	return port == 22 ? xstrdup(host) : xasprintf("[%s]:%d", host, port);
}

/* Open (creating it and its directory) and lock the known_hosts file. */
static int
kh_lock(const char *path, char *why, size_t whylen)
{
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT) {
		char *dir = xstrdup(path), *slash = strrchr(dir, '/');

		if (slash != NULL && slash != dir) {
			*slash = '\0';
			mkdir(dir, 0700);
		}
		free(dir);
		fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			snprintf(why, whylen, "cannot lock %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Append one line (with its newline) in a single write. */
static int
kh_append(int fd, const char *line)
{
	size_t len = strlen(line);
	char *l = NULL;
	ssize_t n;

	if (len == 0 || line[len - 1] != '\n') {
		l = xasprintf("%s\n", line);
		line = l;
		len++;
	}
	n = write(fd, line, len);
	free(l);
	return n == (ssize_t)len ? 0 : -1;
}

#define KH_SAME_TYPE	0	/* kh_find(): a key of key's type */
#define KH_SAME_KEY	1	/* kh_find(): key itself */

/*
 * The number of the first line of the known_hosts text in f with an entry
 * for `name` whose key matches key as `how` says, or 0.
 */
static int
kh_find(FILE *f, const char *name, ssh_key key, int how)
{
	char line[8192];
	int ln = 0, found = 0;

	while (!found && fgets(line, sizeof(line), f) != NULL) {
		struct ssh_knownhosts_entry *e = NULL;
		char *p = line;

		ln++;
		line[strcspn(line, "\r\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#' || *p == '@')
			continue;
		if (ssh_known_hosts_parse_line(name, p, &e) == SSH_OK && e != NULL) {
			if (e->publickey != NULL && (how == KH_SAME_KEY ?
			    ssh_key_cmp(e->publickey, key, SSH_KEY_CMP_PUBLIC) == 0 :
			    ssh_key_type(e->publickey) == ssh_key_type(key)))
				found = ln;
			ssh_knownhosts_entry_free(e);
		}
	}
	return found;
}

/*
 * The line number in the known_hosts file at path of the first entry for
 * `name` with a key of key's type (the offending one), or 0.
 */
static int
kh_offending_line(const char *path, const char *name, ssh_key key)
{
	FILE *f = fopen(path, "re");
	int found;

	if (f == NULL)
		return 0;
	found = kh_find(f, name, key, KH_SAME_TYPE);
	fclose(f);
	return found;
}

/* Whether the file at path (already open as fd) has `key` for `name`. */
static int
kh_has(int fd, const char *name, ssh_key key)
{
	FILE *f;
	int dfd, found;

	if ((dfd = dup(fd)) < 0 || (f = fdopen(dfd, "r")) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	rewind(f);
	found = kh_find(f, name, key, KH_SAME_KEY) != 0;
	fclose(f);
	return found;
}

/*
 * Merge the keys an accept-new jump recorded in its own file (tmp) into
 * the known_hosts file, each one once.
 */
void
knownhosts_merge(const char *tmp, const char *kh, const char *label)
{
	char line[8192], why[256];
	FILE *f;
	int fd;

	if ((f = fopen(tmp, "re")) == NULL)
		return;
	if ((fd = kh_lock(kh, why, sizeof(why))) < 0) {
		log_warn("%s: jump host key not recorded: %s", label, why);
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char host[1024], type[64], b64[4096];
		ssh_key key = NULL;

		if (sscanf(line, "%1023s %63s %4095s", host, type, b64) != 3 || host[0] == '#')
			continue;
		if (ssh_pki_import_pubkey_base64(b64, ssh_key_type_from_name(type), &key) != SSH_OK)
			continue;
		if (!kh_has(fd, host, key) && kh_append(fd, line) == 0)
			log_verbose("%s: recorded the jump host's %s key for %s in %s", label,
			    key_type_name(key), host, kh);
		ssh_key_free(key);
	}
	fclose(f);
	close(fd);
}

/* Check the server's key against known_hosts under the policy. */
int
knownhosts_check(ssh_session s, const struct transport_opts *o, const struct target *tg,
    struct transport_info *info, struct attempt *a)
{
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *fp = NULL, *name = NULL, *line = NULL, why[256];
	const char *kh = o->known_hosts;
	const char *type;
	enum ssh_known_hosts_e st;
	int fd = -1, ln;

	if (ssh_get_server_publickey(s, &key) != SSH_OK) {
		set_msg(a, TRANSPORT_EHOSTKEY, PACE_NEUTRAL, "%s: no host key from the server: %s",
		    tg->label, ssh_get_error(s));
		return a->code;
	}
	type = key_type_name(key);
	snprintf(info->hostkey_type, sizeof(info->hostkey_type), "%s", type);
	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == 0) {
		fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
		ssh_clean_pubkey_hash(&hash);
	}
	snprintf(info->hostkey_fp, sizeof(info->hostkey_fp), "%s", fp ? fp : "?");
	name = kh_name(tg->host, tg->port);
	a->code = 0;
	st = ssh_session_is_known_server(s);
	if (o->host_key_check == TRANSPORT_HOSTKEY_NO) {
		/*
		 * As OpenSSH's StrictHostKeyChecking=no: any key is accepted, and
		 * one for a host known_hosts has no key for is recorded (as under
		 * accept-new); a changed key or one of another type is not.  Not
		 * being able to record it is only worth a warning.
		 */
		snprintf(info->hostkey, sizeof(info->hostkey), "unchecked");
		if (st != SSH_KNOWN_HOSTS_UNKNOWN && st != SSH_KNOWN_HOSTS_NOT_FOUND)
			goto out;
		if ((fd = kh_lock(kh, why, sizeof(why))) < 0) {
			log_warn("%s: cannot record the %s host key %s: %s", tg->label, type,
			    fp ? fp : "", why);
			goto out;
		}
		st = ssh_session_is_known_server(s);
		if (st != SSH_KNOWN_HOSTS_UNKNOWN && st != SSH_KNOWN_HOSTS_NOT_FOUND)
			goto out;
		if (ssh_session_export_known_hosts_entry(s, &line) != SSH_OK ||
		    kh_append(fd, line) != 0)
			log_warn("%s: cannot record the %s host key in %s: %s", tg->label, type,
			    kh, strerror(errno));
		else
			log_info("%s: permanently added the %s host key %s to %s", tg->label,
			    type, fp ? fp : "", kh);
		goto out;
	}
	if (st == SSH_KNOWN_HOSTS_OK) {
		snprintf(info->hostkey, sizeof(info->hostkey), "known");
		goto out;
	}
	if ((st == SSH_KNOWN_HOSTS_UNKNOWN || st == SSH_KNOWN_HOSTS_NOT_FOUND) &&
	    o->host_key_check == TRANSPORT_HOSTKEY_ACCEPT_NEW) {
		/* Under the lock, look again: another session may have recorded it. */
		if ((fd = kh_lock(kh, why, sizeof(why))) < 0) {
			set_msg(a, TRANSPORT_EHOSTKEY, PACE_NEUTRAL, "%s: cannot record the %s host "
			    "key %s: %s", tg->label, type, fp ? fp : "", why);
			goto out;
		}
		st = ssh_session_is_known_server(s);
		if (st == SSH_KNOWN_HOSTS_OK) {
			snprintf(info->hostkey, sizeof(info->hostkey), "known");
			goto out;
		}
		if (st == SSH_KNOWN_HOSTS_UNKNOWN || st == SSH_KNOWN_HOSTS_NOT_FOUND) {
			if (ssh_session_export_known_hosts_entry(s, &line) != SSH_OK ||
			    kh_append(fd, line) != 0) {
				set_msg(a, TRANSPORT_EHOSTKEY, PACE_NEUTRAL, "%s: cannot record the "
				    "%s host key in %s: %s", tg->label, type, kh, strerror(errno));
				goto out;
			}
			log_info("%s: permanently added the %s host key %s to %s", tg->label, type,
			    fp ? fp : "", kh);
			snprintf(info->hostkey, sizeof(info->hostkey), "new");
			goto out;
		}
		/* Changed meanwhile: fall through to the refusal. */
	}
	switch (st) {
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		snprintf(info->hostkey, sizeof(info->hostkey), "unknown");
		set_msg(a, TRANSPORT_EHOSTKEY, PACE_NEUTRAL, "no %s host key is known for %s and "
		    "you have requested strict checking (host_key_check: %s; the host sent %s, "
		    "known_hosts %s)", type, tg->label, policy_name(o->host_key_check),
		    fp ? fp : "?", kh);
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
		snprintf(info->hostkey, sizeof(info->hostkey), "changed");
		ln = kh_offending_line(kh, name, key);
		set_msg(a, TRANSPORT_EHOSTKEY, PACE_NEUTRAL, "WARNING: REMOTE HOST IDENTIFICATION "
		    "HAS CHANGED! host key for %s has changed and host_key_check is %s: the %s "
		    "key sent by the remote host is %s; offending %s key in %s%s%.0d. Someone "
		    "could be eavesdropping on you right now (man-in-the-middle attack), or the "
		    "host key has just been changed", tg->label, policy_name(o->host_key_check),
		    type, fp ? fp : "?", type, kh, ln > 0 ? ":" : "", ln);
		break;
	case SSH_KNOWN_HOSTS_OTHER:
		snprintf(info->hostkey, sizeof(info->hostkey), "other");
		set_msg(a, TRANSPORT_EHOSTKEY, PACE_NEUTRAL, "WARNING: REMOTE HOST IDENTIFICATION "
		    "HAS CHANGED! the host %s sent a %s key (%s), but %s knows a key of another "
		    "type for it and host_key_check is %s: an attacker may be downgrading the "
		    "key type", tg->label, type, fp ? fp : "?", kh, policy_name(o->host_key_check));
		break;
	default:
		snprintf(info->hostkey, sizeof(info->hostkey), "error");
		set_msg(a, TRANSPORT_EHOSTKEY, PACE_NEUTRAL, "%s: cannot check the host key "
		    "against %s: %s", tg->label, kh, ssh_get_error(s));
		break;
	}
out:
	if (fd >= 0)
		close(fd);
	ssh_string_free_char(line);
	ssh_string_free_char(fp);
	ssh_key_free(key);
	free(name);
	return a->code;
}
