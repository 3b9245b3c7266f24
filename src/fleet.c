/*
 * fleet.c: load a fleet inventory (docs/plans-and-fleets.md), resolve what each host
 * inherits from `defaults`, and select hosts by name and @label.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bootspec.h"
#include "yamldoc.h"
#include "fleet.h"
#include "strv.h"
#include "xmalloc.h"

/*
 * The embedded default fleet: this machine, without SSH.  Named "local"
 * rather than after `uname -n` so that it reads the same everywhere and
 * can be written down (configs/local.yaml); the kernel release in reports
 * tells machines apart.
 */
const char fleet_default_yaml[] =
	"# The default fleet: this machine, reached without SSH.\n"
	"hosts:\n"
	"  local:\n"
	"    transport: local\n"
	"    labels: [local]\n";

static const char *const top_keys[] = { "defaults", "hosts", NULL };

/* Keys a host may set; `defaults` takes all of them but address and labels. */
static const char *const host_keys[] = {
	"address", "user", "port", "identity", "known_hosts", "host_key_check",
	"connect_timeout", "workdir", "ssh_config", "proxy_jump", "agent",
	"labels", "transport", "power", "console", "boot_timeout", "recover", "boot", NULL
};
static const char *const default_keys[] = {
	"user", "port", "identity", "known_hosts", "host_key_check",
	"connect_timeout", "workdir", "ssh_config", "proxy_jump", "agent",
	"transport", "power", "console", "boot_timeout", "recover", "boot", NULL
};
static const char *const power_keys[] = { "cycle", "off", "on", NULL };

const char *
fleet_hostkey_name(enum fleet_hostkey k)
{
	switch (k) {
	case FLEET_HOSTKEY_YES: return "yes";
	case FLEET_HOSTKEY_ACCEPT_NEW: return "accept-new";
	case FLEET_HOSTKEY_NO: return "no";
	}
	return "?";
}

const char *
fleet_transport_name(enum fleet_transport t)
{
	return t == FLEET_TRANSPORT_LOCAL ? "local" : "ssh";
}

const char *
fleet_agent_name(enum fleet_agent a)
{
	switch (a) {
	case FLEET_AGENT_AUTO: return "auto";
	case FLEET_AGENT_PREBUILT: return "prebuilt";
	case FLEET_AGENT_SOURCE: return "source";
	}
	return "?";
}

static void
host_release(struct fleet_host *h)
{
	size_t i;

	free(h->name);
	free(h->address);
	free(h->user);
	free(h->identity);
	free(h->known_hosts);
	free(h->workdir);
	free(h->ssh_config_path);
	free(h->proxy_jump);
	strv_free(h->labels, h->nlabels);
	free(h->power_cycle);
	free(h->power_off);
	free(h->power_on);
	free(h->console);
	for (i = 0; i < h->nboots; i++) {
		free(h->boots[i].name);
		free(h->boots[i].how);
	}
	free(h->boots);
}

void
fleet_free(struct fleet *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nhosts; i++)
		host_release(&f->hosts[i]);
	free(f->hosts);
	free(f->file);
	free(f);
}

char *
fleet_expand_tilde(const char *path)
{
	const char *rest, *home = NULL;
	struct passwd *pw;
	char user[256];
	size_t ulen;

	if (path[0] != '~')
		return xstrdup(path);
	rest = strchr(path, '/');
	if (rest == NULL)
		rest = path + strlen(path);
	ulen = (size_t)(rest - path - 1);
	if (ulen == 0) {
		home = getenv("HOME");
		if ((home == NULL || *home == '\0') && (pw = getpwuid(getuid())) != NULL)
			home = pw->pw_dir;
	} else if (ulen < sizeof(user)) {
		memcpy(user, path + 1, ulen);
		user[ulen] = '\0';
		if ((pw = getpwnam(user)) != NULL)
			home = pw->pw_dir;
	}
	if (home == NULL)
		return NULL;
	/* "/" + "/x" would give "//x". */
	if (strcmp(home, "/") == 0 && *rest == '/')
		home = "";
	return xasprintf("%s%s", home, rest);
}

/*
 * A host name, address or jump spec that goes to SSH: no blanks, no
 * control characters, no quotes or shell metacharacters, not starting
 * with '-' (it would read as an option).
 */
static int
valid_address(const char *s, const char *extra)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 253 || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(".-_:[]%", s[i]) &&
		    !(extra && strchr(extra, s[i])))
			return 0;
	return 1;
}

/* A string setting: the value of `key` in host h, else in defaults d. */
static const struct ydoc_node *
setting(const struct ydoc_node *h, const struct ydoc_node *d, const char *key)
{
	const struct ydoc_node *v = ydoc_get(h, key);

	return v != NULL ? v : ydoc_get(d, key);
}

static int
get_path(const struct ydoc_node *n, char **out, char **err)
{
	const char *s;
	char *p;

	if (ydoc_string(n, &s, err) != 0)
		return -1;
	if (*s == '\0')
		return ydoc_error(err, n, "empty path");
	if ((p = fleet_expand_tilde(s)) == NULL)
		return ydoc_error(err, n, "cannot expand '%.64s': no such user", s);
	*out = p;
	return 0;
}

static int
get_enum(const struct ydoc_node *n, const char *what, const char *const *names,
    int *out, char **err)
{
	const char *s;
	size_t i, count = 0;
	char *hint, *list;

	/* yes/no are booleans to YAML, but here they are words like the others. */
	if (ydoc_string(n, &s, err) != 0)
		return -1;
	for (i = 0; names[i] != NULL; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	while (names[count] != NULL)
		count++;
	hint = ydoc_did_you_mean(s, names, count);
	list = xstrdup(names[0]);
	for (i = 1; i < count; i++) {
		char *l = xasprintf("%s, %s", list, names[i]);

		free(list);
		list = l;
	}
	ydoc_error(err, n, "bad %s '%.64s': expected one of %s%s", what, s, list, hint);
	free(list);
	free(hint);
	return -1;
}

/*
 * The setting key (the host's, else the defaults') as the index of one of
 * names in *e; *e is left as it is (the default) when neither sets it.
 */
static int
setting_enum(const struct ydoc_node *h, const struct ydoc_node *d, const char *key,
    const char *const *names, int *e, char **err)
{
	const struct ydoc_node *v = setting(h, d, key);

	return v != NULL ? get_enum(v, key, names, e, err) : 0;
}

/* A command run on the controller: a non-empty string on one line. */
static int
get_command(const struct ydoc_node *n, const char *what, char **out, char **err)
{
	const char *s;

	if (ydoc_string(n, &s, err) != 0)
		return -1;
	if (strspn(s, " \t") == strlen(s))
		return ydoc_error(err, n, "%s: an empty command", what);
	if (strpbrk(s, "\n\r") != NULL)
		return ydoc_error(err, n, "%s: the command must be one line", what);
	*out = xstrdup(s);
	return 0;
}

/* power:, console:, boot_timeout: and recover: (docs/boards.md). */
static int
load_board(struct fleet_host *h, const struct ydoc_node *hn,
    const struct ydoc_node *defs, char **err)
{
	const struct ydoc_node *v, *c;
	long long num;

	if ((v = setting(hn, defs, "power")) != NULL) {
		if (v->type != YDOC_MAPPING)
			return ydoc_error(err, v, "power: expected a mapping with cycle: "
			    "(and optional off: and on:), not %s", ydoc_type_name(v));
		if (ydoc_check_keys(v, "power", power_keys, err) != 0)
			return -1;
		if ((c = ydoc_get(v, "cycle")) == NULL)
			return ydoc_error(err, v, "power: has no cycle: (the command that "
			    "power-cycles host '%s')", h->name);
		if (get_command(c, "power.cycle", &h->power_cycle, err) != 0)
			return -1;
		if ((c = ydoc_get(v, "off")) != NULL &&
		    get_command(c, "power.off", &h->power_off, err) != 0)
			return -1;
		if ((c = ydoc_get(v, "on")) != NULL &&
		    get_command(c, "power.on", &h->power_on, err) != 0)
			return -1;
		if ((h->power_off == NULL) != (h->power_on == NULL))
			return ydoc_error(err, v, "power: give both off: and on:, or neither");
	}
	if ((v = setting(hn, defs, "console")) != NULL &&
	    get_command(v, "console", &h->console, err) != 0)
		return -1;
	h->boot_timeout_ms = FLEET_DEFAULT_BOOT_TIMEOUT;
	if ((v = setting(hn, defs, "boot_timeout")) != NULL &&
	    ydoc_duration(v, 1000, 24 * 3600000LL, &h->boot_timeout_ms, err) != 0)
		return -1;
	h->recover = h->power_cycle != NULL ? FLEET_DEFAULT_RECOVER : 0;
	if ((v = setting(hn, defs, "recover")) != NULL) {
		if (ydoc_int(v, 0, FLEET_MAX_RECOVER, &num, err) != 0)
			return -1;
		if (num > 0 && h->power_cycle == NULL)
			return ydoc_error(err, v, "recover: %lld needs power: (how to "
			    "power-cycle host '%s')", num, h->name);
		h->recover = (int)num;
	}
	return 0;
}

/*
 * One `boot:` mapping (the defaults' or the host's) into h->boots: an
 * entry of a name h has already is replaced.
 */
static int
load_boot_map(struct fleet_host *h, const struct ydoc_node *v, char **err)
{
	struct bootspec b;
	const char *s;
	char *e = NULL;
	size_t i, k;

	if (v->type != YDOC_MAPPING)
		return ydoc_error(err, v, "boot: expected a mapping of names to how the "
		    "host boots them (a command or kexec:KERNEL...), not %s",
		    ydoc_type_name(v));
	for (i = 0; i < v->n; i++) {
		const struct ydoc_node *key = v->keys[i], *val = v->items[i];

		if (!fleet_name_ok(key->value))
			return ydoc_error(err, key, "bad boot entry name '%.64s': use letters, "
			    "digits, '-', '_' and '.', starting with a letter or digit",
			    key->value);
		if (ydoc_string(val, &s, err) != 0)
			return -1;
		if (bootspec_parse(s, 0, &b, &e) != 0) {
			ydoc_error(err, val, "boot.%s: %s", key->value, e);
			free(e);
			return -1;
		}
		bootspec_release(&b);
		for (k = 0; k < h->nboots; k++)
			if (strcmp(h->boots[k].name, key->value) == 0)
				break;
		if (k == h->nboots) {
			h->boots = xreallocarray(h->boots, h->nboots + 1, sizeof(*h->boots));
			h->boots[k].name = xstrdup(key->value);
			h->nboots++;
		} else
			free(h->boots[k].how);
		h->boots[k].how = xstrdup(s);
		h->boots[k].line = val->line;
		h->boots[k].col = val->col;
	}
	return 0;
}

/* boot: of the defaults, then of the host. */
static int
load_boots(struct fleet_host *h, const struct ydoc_node *hn, const struct ydoc_node *defs,
    char **err)
{
	const struct ydoc_node *v;

	if ((v = ydoc_get(defs, "boot")) != NULL && !ydoc_is_null(v) &&
	    load_boot_map(h, v, err) != 0)
		return -1;
	if ((v = ydoc_get(hn, "boot")) != NULL && !ydoc_is_null(v) &&
	    load_boot_map(h, v, err) != 0)
		return -1;
	return 0;
}

static int
load_host(struct fleet_host *h, const struct ydoc_node *key,
    const struct ydoc_node *hn, const struct ydoc_node *defs, char **err)
{
	static const char *const transports[] = { "ssh", "local", NULL };
	static const char *const hostkeys[] = { "yes", "accept-new", "no", NULL };
	static const char *const agents[] = { "auto", "prebuilt", "source", NULL };
	const struct ydoc_node *v;
	const char *s;
	long long num;
	char *what;
	int e, r = -1;

	what = xasprintf("host '%s'", key->value);
	h->name = xstrdup(key->value);
	h->file = key->file;
	h->line = key->line;
	h->col = key->col;
	if (ydoc_is_null(hn))
		hn = NULL;	/* "laptop:" alone: everything from defaults */
	else if (ydoc_check_keys(hn, what, host_keys, err) != 0)
		goto out;

	e = FLEET_TRANSPORT_SSH;
	if (setting_enum(hn, defs, "transport", transports, &e, err) != 0)
		goto out;
	h->transport = (enum fleet_transport)e;
	if ((v = ydoc_get(hn, "address")) != NULL) {
		if (ydoc_string(v, &s, err) != 0)
			goto out;
		if (h->transport == FLEET_TRANSPORT_LOCAL) {
			ydoc_error(err, v, "host '%s' uses the local transport: it takes no address",
			    h->name);
			goto out;
		}
		if (!valid_address(s, NULL)) {
			ydoc_error(err, v, "bad address '%.64s': expected a host name or IP address",
			    s);
			goto out;
		}
		h->address = xstrdup(s);
	} else if (h->transport == FLEET_TRANSPORT_SSH) {
		ydoc_error(err, key, "host '%s' has no address (give `address:`, or "
		    "`transport: local` for this machine)", h->name);
		goto out;
	}
	if ((v = setting(hn, defs, "user")) != NULL) {
		if (ydoc_string(v, &s, err) != 0)
			goto out;
		if (!ydoc_name_ok(s, 32)) {
			ydoc_error(err, v, "bad user name '%.64s'", s);
			goto out;
		}
		h->user = xstrdup(s);
	}
	if ((v = setting(hn, defs, "port")) != NULL) {
		if (ydoc_int(v, 1, 65535, &num, err) != 0)
			goto out;
		h->port = (int)num;
	}
	if ((v = setting(hn, defs, "identity")) != NULL && get_path(v, &h->identity, err) != 0)
		goto out;
	if ((v = setting(hn, defs, "known_hosts")) != NULL) {
		if (get_path(v, &h->known_hosts, err) != 0)
			goto out;
	} else if ((h->known_hosts = fleet_expand_tilde(FLEET_DEFAULT_KNOWN_HOSTS)) == NULL)
		h->known_hosts = xstrdup(".ssh/known_hosts");
	e = FLEET_HOSTKEY_YES;
	if (setting_enum(hn, defs, "host_key_check", hostkeys, &e, err) != 0)
		goto out;
	h->host_key_check = (enum fleet_hostkey)e;
	h->connect_timeout_ms = FLEET_DEFAULT_CONNECT_TIMEOUT;
	if ((v = setting(hn, defs, "connect_timeout")) != NULL &&
	    ydoc_duration(v, 100, 3600000, &h->connect_timeout_ms, err) != 0)
		goto out;
	v = setting(hn, defs, "workdir");
	if (v != NULL) {
		if (ydoc_string(v, &s, err) != 0)
			goto out;
		if (*s != '/' && strncmp(s, "~/", 2) != 0) {
			ydoc_error(err, v, "workdir '%.64s' must be an absolute path or start with ~/",
			    s);
			goto out;
		}
		if (strpbrk(s, "\n\r\t'\"\\") != NULL) {
			ydoc_error(err, v, "workdir '%.64s' contains a quote, backslash or control "
			    "character", s);
			goto out;
		}
	}
	h->workdir = xstrdup(v != NULL ? v->value : FLEET_DEFAULT_WORKDIR);
	h->ssh_config = 1;
	h->ssh_config_path = fleet_expand_tilde(FLEET_DEFAULT_SSH_CONFIG);
	if ((v = setting(hn, defs, "ssh_config")) != NULL) {
		char *e2 = NULL;

		/* true/false, or the path of a config file to use instead. */
		if (ydoc_bool(v, &h->ssh_config, &e2) != 0) {
			free(e2);
			h->ssh_config = 1;
			free(h->ssh_config_path);
			h->ssh_config_path = NULL;
			if (v->type != YDOC_SCALAR || ydoc_is_null(v) ||
			    (v->value[0] != '/' && v->value[0] != '~')) {
				ydoc_error(err, v, "ssh_config must be yes, no, or the path of "
				    "an OpenSSH client config file");
				goto out;
			}
			if (get_path(v, &h->ssh_config_path, err) != 0)
				goto out;
		}
	}
	if ((v = setting(hn, defs, "proxy_jump")) != NULL) {
		if (ydoc_string(v, &s, err) != 0)
			goto out;
		if (!valid_address(s, "@,")) {
			ydoc_error(err, v, "bad proxy_jump '%.64s': expected [user@]host[:port], "
			    "comma separated", s);
			goto out;
		}
		h->proxy_jump = xstrdup(s);
	}
	if (h->transport == FLEET_TRANSPORT_LOCAL)
		h->agent = FLEET_AGENT_AUTO;
	e = (int)h->agent;
	if (setting_enum(hn, defs, "agent", agents, &e, err) != 0)
		goto out;
	h->agent = (enum fleet_agent)e;
	if ((v = ydoc_get(hn, "labels")) != NULL) {
		size_t i, j, n;

		if (ydoc_scalar_list(v, &n, err) != 0)
			goto out;
		h->labels = xcalloc(n + 1, sizeof(*h->labels));
		for (i = 0; i < n; i++) {
			const struct ydoc_node *l = ydoc_list_at(v, i);

			if (!fleet_name_ok(l->value)) {
				ydoc_error(err, l, "bad label '%.64s': use letters, digits, '-', "
				    "'_' and '.'", l->value);
				goto out;
			}
			for (j = 0; j < h->nlabels; j++)
				if (strcmp(h->labels[j], l->value) == 0)
					break;
			if (j == h->nlabels)
				h->labels[h->nlabels++] = xstrdup(l->value);
		}
	}
	if (load_board(h, hn, defs, err) != 0 || load_boots(h, hn, defs, err) != 0)
		goto out;
	r = 0;
out:
	free(what);
	return r;
}

static int
load_doc(const struct ydoc *doc, struct fleet **out, char **err)
{
	const struct ydoc_node *root = ydoc_root(doc), *defs, *hosts;
	struct fleet *f;
	size_t i, j;
	int r = -1;

	if (ydoc_check_keys(root, "fleet inventory", top_keys, err) != 0)
		return -1;
	defs = ydoc_get(root, "defaults");
	if (defs != NULL && ydoc_is_null(defs))
		defs = NULL;
	if (defs != NULL) {
		const struct ydoc_node *k;

		if ((k = ydoc_get_key(defs, "address")) != NULL ||
		    (k = ydoc_get_key(defs, "labels")) != NULL)
			return ydoc_error(err, k, "%s belongs to each host, not to defaults",
			    k->value);
		if (ydoc_check_keys(defs, "defaults", default_keys, err) != 0)
			return -1;
	}
	hosts = ydoc_get(root, "hosts");
	if (hosts == NULL)
		return ydoc_error(err, root, "the fleet inventory has no `hosts:`");
	if (hosts->type != YDOC_MAPPING || hosts->n == 0)
		return ydoc_error(err, hosts, "`hosts:` must map host names to their settings%s",
		    hosts->type == YDOC_MAPPING ? ", and name at least one" : "");
	if (hosts->n > FLEET_MAX_HOSTS)
		return ydoc_error(err, hosts, "more than %d hosts", FLEET_MAX_HOSTS);

	f = xcalloc(1, sizeof(*f));
	f->file = xstrdup(ydoc_file(doc));
	f->hosts = xcalloc(hosts->n, sizeof(*f->hosts));
	for (i = 0; i < hosts->n; i++) {
		const struct ydoc_node *key = hosts->keys[i];

		if (!fleet_name_ok(key->value)) {
			ydoc_error(err, key, "bad host name '%.64s': use letters, digits, '-', '_' "
			    "and '.', starting with a letter or digit, at most %d bytes",
			    key->value, FLEET_NAME_MAX);
			goto out;
		}
		if (strcmp(key->value, "all") == 0) {
			ydoc_error(err, key, "'all' is reserved: it selects every host");
			goto out;
		}
		/* Exact duplicates are YAML errors; these would clash as file names. */
		for (j = 0; j < i; j++)
			if (strcasecmp(hosts->keys[j]->value, key->value) == 0) {
				ydoc_error(err, key, "duplicate host name '%s': same as '%s' at line "
				    "%d but for case", key->value, hosts->keys[j]->value,
				    hosts->keys[j]->line);
				goto out;
			}
		f->nhosts++;
		if (load_host(&f->hosts[i], key, hosts->items[i], defs, err) != 0)
			goto out;
	}
	/* The file name is owned by the doc: point hosts at our copy. */
	for (i = 0; i < f->nhosts; i++)
		f->hosts[i].file = f->file;
	*out = f;
	f = NULL;
	r = 0;
out:
	fleet_free(f);
	return r;
}

int
fleet_parse(const char *name, const char *text, size_t len, struct fleet **out,
    char **err)
{
	struct ydoc *doc;
	int r;

	if (ydoc_parse(name, text, len, &doc, err) != 0)
		return -1;
	r = load_doc(doc, out, err);
	ydoc_free(doc);
	return r;
}

int
fleet_load(const char *path, struct fleet **out, char **err)
{
	struct ydoc *doc;
	int r;

	if (path == NULL)
		return fleet_load_default(out, err);
	if (ydoc_load(path, &doc, err) != 0)
		return -1;
	r = load_doc(doc, out, err);
	ydoc_free(doc);
	return r;
}

int
fleet_load_default(struct fleet **out, char **err)
{
	return fleet_parse(FLEET_DEFAULT_NAME, fleet_default_yaml,
	    sizeof(fleet_default_yaml) - 1, out, err);
}

int
fleet_name_ok(const char *s)
{
	return s != NULL && ydoc_name_ok(s, FLEET_NAME_MAX);
}

const struct fleet_host *
fleet_find(const struct fleet *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nhosts; i++)
		if (strcmp(f->hosts[i].name, name) == 0)
			return &f->hosts[i];
	return NULL;
}

const struct fleet_boot *
fleet_boot_find(const struct fleet_host *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->nboots; i++)
		if (strcmp(h->boots[i].name, name) == 0)
			return &h->boots[i];
	return NULL;
}

int
fleet_host_has_label(const struct fleet_host *h, const char *label)
{
	return strv_find(h->labels, h->nlabels, label) != STRV_NONE;
}

/* Whether s holds a character that makes it an fnmatch(3) pattern. */
static int
is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Why nothing matched `atom`, with a suggestion from `names` when any. */
static int
atom_unknown(const char *what, const char *atom, const char **names, size_t nnames,
    const char *file, char **err)
{
	char *hint = ydoc_did_you_mean(atom, names, nnames);

	*err = xasprintf("%s '%s' in %s%s", what, atom, file, hint);
	free(hint);
	return -1;
}

/*
 * Set m[i] for the hosts that one atom names: "all", "@label", "@glob", a
 * host name or a glob over host names.  Returns how many, or -1 when none
 * does (a typo must not select nothing in silence).
 */
static int
match_atom(const struct fleet *f, const char *atom, unsigned char *m, char **err)
{
	size_t i, j, n = 0, nnames = 0;
	const char **names;
	const char *label;
	int r;

	memset(m, 0, f->nhosts);
	if (*atom == '\0')
		return err_set(err, -1, "an empty host name");
	if (strcmp(atom, "all") == 0) {
		memset(m, 1, f->nhosts);
		return (int)f->nhosts;
	}
	if (atom[0] == '@') {
		label = atom + 1;
		for (i = 0; i < f->nhosts; i++)
			for (j = 0; j < f->hosts[i].nlabels && !m[i]; j++)
				if (is_glob(label) ? fnmatch(label, f->hosts[i].labels[j], 0) == 0 :
				    strcmp(label, f->hosts[i].labels[j]) == 0) {
					m[i] = 1;
					n++;
				}
		if (n > 0)
			return (int)n;
		/* Suggest among the labels that exist. */
		for (i = 0; i < f->nhosts; i++)
			nnames += f->hosts[i].nlabels;
		names = xcalloc(nnames + 1, sizeof(*names));
		nnames = 0;
		for (i = 0; i < f->nhosts; i++)
			for (j = 0; j < f->hosts[i].nlabels; j++)
				names[nnames++] = f->hosts[i].labels[j];
		r = atom_unknown("no host has label", label, names, nnames, f->file, err);
		free(names);
		return r;
	}
	for (i = 0; i < f->nhosts; i++)
		if (is_glob(atom) ? fnmatch(atom, f->hosts[i].name, 0) == 0 :
		    strcmp(f->hosts[i].name, atom) == 0) {
			m[i] = 1;
			n++;
		}
	if (n > 0)
		return (int)n;
	names = xcalloc(f->nhosts + 1, sizeof(*names));
	for (i = 0; i < f->nhosts; i++)
		names[i] = f->hosts[i].name;
	r = atom_unknown(is_glob(atom) ? "no host name matches" : "unknown host", atom,
	    names, f->nhosts, f->file, err);
	free(names);
	return r;
}

int
fleet_match(const struct fleet *f, const char *word, unsigned char *sel, char **err)
{
	unsigned char *m, *t;
	char *copy, *term, *amp;
	size_t i, n = 0;
	int neg, r = -1;

	m = xmalloc(f->nhosts + 1);
	t = xmalloc(f->nhosts + 1);
	memset(m, 1, f->nhosts);
	copy = xstrdup(word);
	for (term = copy; term != NULL; term = amp) {
		if ((amp = strchr(term, '&')) != NULL)
			*amp++ = '\0';
		neg = term[0] == '!';
		if (match_atom(f, term + neg, t, err) < 0)
			goto out;
		for (i = 0; i < f->nhosts; i++)
			m[i] &= neg ? !t[i] : t[i];
	}
	for (i = 0; i < f->nhosts; i++)
		if (m[i]) {
			sel[i] = 1;
			n++;
		}
	if (n == 0) {
		*err = xasprintf("'%s' selects no host of %s", word, f->file);
		goto out;
	}
	r = (int)n;
out:
	free(copy);
	free(m);
	free(t);
	return r;
}

int
fleet_match_words(const struct fleet *f, const char *const *words, size_t nwords,
    unsigned char *sel, size_t *bad, char **err)
{
	unsigned char *ex;
	size_t i, k, n = 0, nin = 0;
	int r = -1;

	ex = xcalloc(f->nhosts + 1, 1);
	memset(sel, 0, f->nhosts);
	for (k = 0; k < nwords; k++) {
		*bad = k;
		if (words[k][0] == '!' && strchr(words[k], '&') == NULL) {
			/* An exclusion: applied after every inclusion. */
			if (fleet_match(f, words[k] + 1, ex, err) < 0)
				goto out;
			continue;
		}
		if (fleet_match(f, words[k], sel, err) < 0)
			goto out;
		nin++;
	}
	if (nin == 0)
		memset(sel, 1, f->nhosts);
	for (i = 0; i < f->nhosts; i++) {
		sel[i] &= !ex[i];
		n += sel[i];
	}
	if (n == 0) {
		*bad = nwords - 1;
		*err = xstrdup("every host selected is excluded");
		goto out;
	}
	r = (int)n;
out:
	free(ex);
	return r;
}

int
fleet_select(const struct fleet *f, const char *spec, unsigned char *sel, char **err)
{
	char *copy, *p, *comma, *e = NULL;
	const char **words;
	size_t nwords = 0, bad;
	int r = 0;

	memset(sel, 0, f->nhosts);
	if (*spec == '\0')
		return err_set(err, -1, "-H: no host named");
	copy = xstrdup(spec);
	words = xcalloc(strlen(spec) / 2 + 2, sizeof(*words));
	for (p = copy; p != NULL; p = comma) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma++ = '\0';
		if (*p == '\0') {
			*err = xasprintf("-H '%s': an empty host name", spec);
			r = -1;
			goto out;
		}
		words[nwords++] = p;
	}
	if (fleet_match_words(f, words, nwords, sel, &bad, &e) < 0) {
		*err = xasprintf("-H: %s", e);
		free(e);
		r = -1;
	}
out:
	free(words);
	free(copy);
	return r;
}
