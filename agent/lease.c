/*
 * lease.c: the host's lease, which says which run has the host.
 *
 * One file per host, LEASE_PATH, that every login user can open (mode
 * 0666: the lease is advisory, and root and a bench user must see each
 * other's).  A run's agent holds it with flock(LOCK_EX) for as long as it
 * serves and writes its holder into it: owner, run id, since, pid, as one
 * JSON line.  The lock, not the text, decides: the kernel drops it when
 * the holder's process ends however it ends (a controller that vanished
 * makes its agent see end of input and exit; an agent SIGKILLed drops it
 * at once), so a dead holder's lease is simply taken.  The text is for
 * people, and for `fleetmark hosts --check`, which reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "jline.h"
#include "jparse.h"

static int lease_fd = -1;

/* Open the lease file, refusing anything but a plain file. */
static int
lease_open(void)
{
	const char *path = getenv("FLEETMARK_LEASE_FILE");
	struct stat st;
	int fd;

	if (path == NULL || *path == '\0')
		path = LEASE_PATH;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (st.st_uid == geteuid())
		(void)fchmod(fd, 0666);		/* through the umask */
	return fd;
}

/* The holder's line, as it is in the file (bounded), into buf. */
static void
read_holder(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);
	char *nl;

	buf[n > 0 ? n : 0] = '\0';
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
}

/* Copy the holder's members of line into j (nothing when it is not JSON). */
static void
put_holder(struct jline *j, const char *line)
{
	struct jv *v = NULL;
	const struct jv *m;
	char err[64];

	if (*line == '\0' || jv_parse(line, strlen(line), &v, err, sizeof(err)) != 0)
		return;
	if ((m = jv_get(v, "owner")) != NULL && m->type == JV_STR)
		jl_strn(j, "owner", m->str, m->len > 256 ? 256 : m->len);
	if ((m = jv_get(v, "run")) != NULL && m->type == JV_STR)
		jl_strn(j, "run", m->str, m->len > 256 ? 256 : m->len);
	if ((m = jv_get(v, "since")) != NULL && m->type == JV_NUM)
		jl_num(j, "since", m->num);
	if ((m = jv_get(v, "pid")) != NULL && m->type == JV_NUM && m->num >= 0)
		jl_int(j, "pid", (long long)m->num);
	if ((m = jv_get(v, "detached")) != NULL && m->type == JV_BOOL)
		jl_bool(j, "detached", m->num != 0);
	jv_free(v);
}

void
lease_request(int out_fd, const char *id, const char *owner, const char *run)
{
	static struct jline j, h;
	struct timespec ts;
	char holder[1024];
	int fd;

	jl_begin(&j, WIRE_LEASE, id);
	if (lease_fd >= 0) {		/* asked twice: still ours */
		jl_str(&j, "status", "ok");
		jl_emit(&j, out_fd);
		return;
	}
	if ((fd = lease_open()) < 0) {
		/* no lease can be kept here (a read-only /tmp): say so, go on */
		snprintf(holder, sizeof(holder), "cannot open the lease file: %s",
		    strerror(errno));
		jl_str(&j, "status", "ok");
		jl_str(&j, "warning", holder);
		jl_emit(&j, out_fd);
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		read_holder(fd, holder, sizeof(holder));
		close(fd);
		jl_str(&j, "status", "held");
		put_holder(&j, holder);
		jl_emit(&j, out_fd);
		return;
	}
	lease_fd = fd;
	clock_gettime(CLOCK_REALTIME, &ts);
	jl_begin(&h, "lease", NULL);
	jl_str(&h, "owner", owner != NULL ? owner : "");
	jl_str(&h, "run", run != NULL ? run : "");
	jl_num(&h, "since", (double)ts.tv_sec + ts.tv_nsec / 1e9);
	jl_int(&h, "pid", (long long)getpid());
	/* A file we may not write (another user's, not 0666): the lock holds
	 * all the same, only its holder is not said. */
	if (ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0)
		(void)jl_emit(&h, fd);
	jl_str(&j, "status", "ok");
	jl_emit(&j, out_fd);
}

void
lease_release(void)
{
	if (lease_fd < 0)
		return;
	(void)ftruncate(lease_fd, 0);	/* nobody's now */
	close(lease_fd);
	lease_fd = -1;
}

void
lease_detached(void)
{
	static struct jline h;
	char holder[1024];
	struct jv *v = NULL;
	const struct jv *m;
	char err[64];

	if (lease_fd < 0)
		return;
	read_holder(lease_fd, holder, sizeof(holder));
	jl_begin(&h, "lease", NULL);
	if (*holder != '\0' && jv_parse(holder, strlen(holder), &v, err, sizeof(err)) == 0) {
		if ((m = jv_get(v, "owner")) != NULL && m->type == JV_STR)
			jl_strn(&h, "owner", m->str, m->len > 256 ? 256 : m->len);
		if ((m = jv_get(v, "run")) != NULL && m->type == JV_STR)
			jl_strn(&h, "run", m->str, m->len > 256 ? 256 : m->len);
		if ((m = jv_get(v, "since")) != NULL && m->type == JV_NUM)
			jl_num(&h, "since", m->num);
	}
	jv_free(v);
	jl_int(&h, "pid", (long long)getpid());
	jl_bool(&h, "detached", 1);
	if (ftruncate(lease_fd, 0) == 0 && lseek(lease_fd, 0, SEEK_SET) == 0)
		(void)jl_emit(&h, lease_fd);
}

void
lease_close_inherited(void)
{
	if (lease_fd >= 0)
		close(lease_fd);
	lease_fd = -1;
}
