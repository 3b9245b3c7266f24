/*
 * util.c: small helpers of the agent: CPUs, scratch directories, files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

#define SCRATCH_PREFIX	"fleetmark-trial."

int
ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static const char *
scratch_base(void)
{
	const char *d = getenv("TMPDIR");

	return (d != NULL && *d == '/') ? d : "/tmp";
}

char *
scratch_create(void)
{
	char *path;
	size_t n;

	n = strlen(scratch_base()) + sizeof(SCRATCH_PREFIX) + 32;
	if ((path = malloc(n)) == NULL)
		return NULL;
	snprintf(path, n, "%s/" SCRATCH_PREFIX "%ld.XXXXXX", scratch_base(), (long)getpid());
	if (mkdtemp(path) == NULL) {
		free(path);
		return NULL;
	}
	return path;
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
	return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}

int
remove_tree(const char *path)
{
	if (path == NULL)
		return 0;
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void
scratch_sweep(void)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;
	long pid;

	if ((d = opendir(scratch_base())) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, SCRATCH_PREFIX, sizeof(SCRATCH_PREFIX) - 1) != 0)
			continue;
		pid = strtol(de->d_name + sizeof(SCRATCH_PREFIX) - 1, NULL, 10);
		if (pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;	/* its agent still runs (or is not ours to judge) */
		snprintf(path, sizeof(path), "%s/%s", scratch_base(), de->d_name);
		/*
		 * Only a directory of this user's: in a shared /tmp another
		 * user may name anything fleetmark-trial.PID.* (a link, or a
		 * tree root would otherwise remove for them).
		 */
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		remove_tree(path);
	}
	closedir(d);
}

int
read_text(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	size_t len = 0;
	int fd;

	if (cap == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (len + 1 < cap) {
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return 0;
}

int
edit_distance(const char *a, const char *b)
{
	int row[64], i, j, prev, tmp, la = (int)strlen(a), lb = (int)strlen(b);

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j] > row[j - 1] + 1)
				row[j] = row[j - 1] + 1;
			if (row[j] > tmp + 1)
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}
