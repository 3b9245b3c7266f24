/*
 * bare-libssh.c: the baseline of tests/bench/fanout.sh: the least a program
 * can do with libssh to copy the agent to N hosts and run the smoke trials,
 * K hosts at a time.  One login per host, one exec channel for the copy
 * (`cat > file`), one for the runs; no pacing, retries, verification or
 * journal.  Built by fanout.sh:
 *
 *	cc -O2 -o bare tests/bench/bare-libssh.c $(pkg-config --cflags --libs libssh) -lpthread
 *	bare K IDENTITY KNOWN_HOSTS LOCAL_FILE REMOTE_FILE COMMAND HOST:ADDR...
 *
 * Prints "ok N/M" on the last line.
 */
#include <libssh/libssh.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *identity, *known_hosts, *remote_file, *command;
static char *data;
static size_t len;
static char **hosts;
static int nhosts, next, okcount;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int
exec(ssh_session s, const char *cmd, const char *in, size_t inlen)
{
	ssh_channel c = ssh_channel_new(s);
	char buf[65536];
	int rc = -1;

	if (c == NULL || ssh_channel_open_session(c) != SSH_OK)
		goto out;
	if (ssh_channel_request_exec(c, cmd) != SSH_OK)
		goto out;
	if (in != NULL && ssh_channel_write(c, in, (uint32_t)inlen) != (int)inlen)
		goto out;
	ssh_channel_send_eof(c);
	while (ssh_channel_read(c, buf, sizeof(buf), 0) > 0)
		;
	rc = ssh_channel_get_exit_status(c);
out:
	if (c != NULL) {
		ssh_channel_close(c);
		ssh_channel_free(c);
	}
	return rc;
}

static int
one(const char *spec)
{
	char name[256], *addr;
	ssh_session s = ssh_new();
	ssh_key key = NULL;
	int ok = 0;

	snprintf(name, sizeof(name), "%s", spec);
	addr = strchr(name, ':') ? strchr(name, ':') + 1 : name;
	ssh_options_set(s, SSH_OPTIONS_HOST, addr);
	ssh_options_set(s, SSH_OPTIONS_USER, "root");
	ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, known_hosts);
	if (ssh_connect(s) != SSH_OK || ssh_session_is_known_server(s) != SSH_KNOWN_HOSTS_OK)
		goto out;
	if (ssh_pki_import_privkey_file(identity, NULL, NULL, NULL, &key) != SSH_OK ||
	    ssh_userauth_publickey(s, NULL, key) != SSH_AUTH_SUCCESS)
		goto out;
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s)\" && cat > %s && chmod 755 %s",
		    remote_file, remote_file, remote_file);
		if (exec(s, cmd, data, len) != 0)
			goto out;
	}
	ok = exec(s, command, NULL, 0) == 0;
out:
	ssh_key_free(key);
	ssh_disconnect(s);
	ssh_free(s);
	return ok;
}

static void *
worker(void *arg)
{
	int i, ok;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		i = next++;
		pthread_mutex_unlock(&lock);
		if (i >= nhosts)
			return NULL;
		ok = one(hosts[i]);
		pthread_mutex_lock(&lock);
		okcount += ok;
		pthread_mutex_unlock(&lock);
	}
}

int
main(int argc, char **argv)
{
	pthread_t t[256];
	FILE *f;
	int k, i;

	if (argc < 8)
		return 2;
	k = atoi(argv[1]);
	identity = argv[2];
	known_hosts = argv[3];
	remote_file = argv[5];
	command = argv[6];
	hosts = argv + 7;
	nhosts = argc - 7;
	if ((f = fopen(argv[4], "rb")) == NULL)
		return 1;
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	data = malloc(len);
	if (data == NULL || fread(data, 1, len, f) != len)
		return 1;
	fclose(f);
	ssh_init();
	if (k < 1 || k > 256)
		k = 1;
	for (i = 0; i < k; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < k; i++)
		pthread_join(t[i], NULL);
	printf("ok %d/%d\n", okcount, nhosts);
	return okcount == nhosts ? 0 : 1;
}
