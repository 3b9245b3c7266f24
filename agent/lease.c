/*
 * lease.c: the host's lease, which says which run has the host.
 *
 * One file per host, LEASE_PATH, created mode 0644 by the first agent
 * that needs it: every login user can open it to lock it (root and a
 * bench user must see each other's runs), only its owner can write the
 * holder line.  A run's agent holds it with flock(LOCK_EX) for as long as
 * it serves and writes its holder into it: owner, run id, since, pid and
 * the agent's idle limit, as one JSON line.  The lock, not the text,
 * decides: the kernel drops it when the holder's process ends however it
 * ends (a controller that vanished makes its agent see end of input, or
 * hear nothing for its idle limit, and exit; an agent SIGKILLed drops it
 * at once), so a dead holder's lease is simply taken.  The text is for
 * people, and for `fleetmark hosts --check`, which reads it; the file's
 * modification time is when the holder last heard its controller.
 *
 * What is not trusted: a file with more than one link (a hard link
 * planted there would make the holder line overwrite another file), and
 * the holder line of a file that belongs neither to root nor to this
 * agent's user (anyone can create the path first in /tmp): such a line is
 * sent marked with the file's owner, and such a file is not taken.  The
 * lock itself stays advisory: whoever can read the file can hold it.
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
static double lease_idle;	/* seconds, for the holder line; 0: none */
static time_t lease_marked;	/* when lease_heard() last marked the file */

static const char *
lease_path(void)
{
	const char *path = getenv("FLEETMARK_LEASE_FILE");

	return path != NULL && *path != '\0' ? path : LEASE_PATH;
}

/*
 * Open the lease file, refusing anything but a plain file with one link;
 * *st is what it is.  -1 with why.
 */
static int
lease_open(struct stat *st, char *why, size_t size)
{
	const char *path = lease_path();
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "cannot open the lease file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_nlink != 1) {
		snprintf(why, size, "the lease file %s is not a plain file with one link: "
		    "not used", path);
		close(fd);
		return -1;
	}
	/* an older agent's 0666 file: anyone could write its holder line */
	if (st->st_uid == geteuid() && (st->st_mode & 022) != 0)
		(void)fchmod(fd, 0644);
	return fd;
}

/* Whether the holder line of a file owned by uid can be believed. */
static int
trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
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
	if ((m = jv_get(v, "idle")) != NULL && m->type == JV_NUM && m->num > 0)
		jl_num(j, "idle", m->num);
	jv_free(v);
}

/* The holder line: owner, run, since, pid, and the idle limit when there is one. */
static void
holder_line(struct jline *h, const char *owner, const char *run, double since)
{
	jl_begin(h, "lease", NULL);
	jl_str(h, "owner", owner);
	jl_str(h, "run", run);
	jl_num(h, "since", since);
	jl_int(h, "pid", (long long)getpid());
	if (lease_idle > 0)
		jl_num(h, "idle", lease_idle);
}

void
lease_request(int out_fd, const char *id, const char *owner, const char *run)
{
	static struct jline j, h;
	struct timespec ts;
	struct stat st;
	char holder[1024];
	double silent;
	int fd;

	jl_begin(&j, WIRE_LEASE, id);
	if (lease_fd >= 0) {		/* asked twice: still ours */
		jl_str(&j, "status", "ok");
		jl_emit(&j, out_fd);
		return;
	}
	if ((fd = lease_open(&st, holder, sizeof(holder))) < 0) {
		/* no lease can be kept here (a read-only /tmp): say so, go on */
		jl_str(&j, "status", "ok");
		jl_str(&j, "warning", holder);
		jl_emit(&j, out_fd);
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		read_holder(fd, holder, sizeof(holder));
		clock_gettime(CLOCK_REALTIME, &ts);
		close(fd);
		jl_str(&j, "status", "held");
		put_holder(&j, holder);
		/* since the holder last heard its controller (lease_heard()) */
		silent = (double)(ts.tv_sec - st.st_mtime);
		jl_num(&j, "silent", silent > 0 ? silent : 0);
		if (!trusted_owner(st.st_uid))
			jl_int(&j, "file_uid", (long long)st.st_uid);
		jl_emit(&j, out_fd);
		return;
	}
	if (!trusted_owner(st.st_uid)) {
		/* anyone may have made it, holder line and all: leave it be */
		snprintf(holder, sizeof(holder), "the lease file %s belongs to uid %lld, "
		    "neither root nor this user: no lease kept (remove the file)",
		    lease_path(), (long long)st.st_uid);
		close(fd);
		jl_str(&j, "status", "ok");
		jl_str(&j, "warning", holder);
		jl_emit(&j, out_fd);
		return;
	}
	lease_fd = fd;
	clock_gettime(CLOCK_REALTIME, &ts);
	lease_marked = ts.tv_sec;
	holder_line(&h, owner != NULL ? owner : "", run != NULL ? run : "",
	    (double)ts.tv_sec + ts.tv_nsec / 1e9);
	/* A file we may not write (root's, 0644): the lock holds all the
	 * same, only its holder is not said. */
	if (ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0)
		(void)jl_emit(&h, fd);
	jl_str(&j, "status", "ok");
	jl_emit(&j, out_fd);
}

void
lease_heard(void)
{
	time_t now = time(NULL);

	if (lease_fd < 0 || now == lease_marked)
		return;
	lease_marked = now;
	(void)futimens(lease_fd, NULL);	/* not permitted in another's file: fine */
}

void
lease_set_idle(double seconds)
{
	lease_idle = seconds;
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
