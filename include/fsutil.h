/*
 * fsutil.h: writing files so that a crash leaves either the old or the new
 * version (atomic replacement), and the small file helpers around it.
 *
 * Atomic replacement: the data goes into a temporary file in the same
 * directory as the destination (DIR/.NAME.tmp, so that the rename stays on
 * one file system and ls does not show it), is written in full, and the
 * temporary is renamed over DIR/NAME.  A reader sees the old file or the
 * new one, never a part.
 *
 * The fsync policy: by default the temporary file is fsync'ed before the
 * rename and the directory after it, so that the new version survives a
 * power cut once the call returns (the run directory: run.json, the host
 * files).  FS_NOSYNC skips both fsyncs, for files that can be made again
 * from others (reports, rendered from trials.jsonl): they still never
 * appear half-written, but a power cut may lose the last version.
 *
 * A destination that exists and is neither a regular file nor a
 * directory (a device or a pipe: `-o /dev/null`, `-o /dev/stdout`) is
 * written to directly instead, never replaced (a->tmp is then NULL).
 *
 * One writer at a time per destination: two processes writing the same
 * path at once share DIR/.NAME.tmp.  FS_UNIQUE gives each write its own
 * temporary (DIR/.NAME.XXXXXX, mkstemp), for destinations that several
 * processes may write at once (a shared archive directory).
 *
 * Functions that can fail return 0, or -1 with errno set and a message
 * in *err (a malloc'd string, "cannot create PATH: REASON") for the caller
 * to free.
 */
#ifndef FLEETMARK_FSUTIL_H
#define FLEETMARK_FSUTIL_H

#include <sys/types.h>
#include <sys/stat.h>

#include <stddef.h>
#include <stdio.h>

#define FS_NOSYNC	0x01	/* no fsync of the file nor the directory */
#define FS_UNIQUE	0x02	/* a temporary of its own (mkstemp); the mode
				 * is then set exactly, without the umask */

/*
 * Replace path with len bytes of data as described above: the new file
 * gets mode (less the umask, unless FS_UNIQUE).  On failure the temporary
 * is removed and path is as it was.
 */
int	fs_write_atomic(const char *path, const void *data, size_t len,
	    mode_t mode, int flags, char **err);

/*
 * The same in steps, for data that is produced as it is written (a copy
 * with progress): fs_atomic_open() creates the temporary, the caller
 * writes to a->fd, then fs_atomic_commit() syncs, closes and renames it,
 * or fs_atomic_abort() closes and removes it.  Either releases *a.
 */
struct fs_atomic {
	char	*path;		/* the destination */
	char	*tmp;		/* the temporary */
	int	 fd;		/* open for writing */
	int	 flags;
};

int	fs_atomic_open(struct fs_atomic *a, const char *path, mode_t mode,
	    int flags, char **err);

/*
 * A stdio stream on a duplicate of a->fd, for writers that print: the
 * caller fclose()s it (and checks that for errors) before
 * fs_atomic_commit().  NULL with errno set if it cannot be made.
 */
FILE	*fs_atomic_stream(struct fs_atomic *a);
int	fs_atomic_commit(struct fs_atomic *a, char **err);
void	fs_atomic_abort(struct fs_atomic *a);

/*
 * Write all len bytes to fd, retrying short writes and EINTR.  0, or -1
 * with errno set (EIO for a write that wrote nothing).  No message.
 */
int	fs_full_write(int fd, const void *buf, size_t len);

/* fsync() the directory at path, so that renames in it are durable; 0 or -1 (errno). */
int	fs_fsync_dir(const char *path);

/*
 * mkdir -p: create path and its missing parents with mode (less the
 * umask).  It is fine if they exist; it is an error if path is then not a
 * directory ("PATH is not a directory").
 */
int	fs_mkdir_p(const char *path, mode_t mode, char **err);

/* The same for the directories in path up to its last '/' only. */
int	fs_mkparents(const char *path, mode_t mode, char **err);

/*
 * The directory part of path, up to its last '/': "." for a bare name,
 * "/" for a name in the root.  A new string, which the caller frees.
 */
char	*fs_dirname(const char *path);

/*
 * Read the whole file at path into a new NUL-terminated buffer (*data,
 * which the caller frees; *len its length without the NUL).  max (0: no
 * limit) bounds the size: a larger file fails with errno EFBIG ("PATH:
 * larger than MAX bytes").
 */
int	fs_read_file(const char *path, size_t max, char **data, size_t *len,
	    char **err);

/*
 * The names in the directory dir, but those starting with '.', sorted in
 * strcmp() order: a new vector of *n new strings in *names (strv_free();
 * NULL when there are none).
 * -1 with errno set and "cannot open DIR: REASON" when it cannot be read.
 */
int	fs_list_dir(const char *dir, char ***names, size_t *n, char **err);

/*
 * Whether the file or directory st describes (path names it in the
 * message) may be trusted as this user's own: it belongs to the user or
 * to root, and neither its group nor others may write it (as OpenSSH
 * treats ~/.ssh, and the agent the host's lease file).  For files whose
 * content fleetmark acts on.  0, or -1 with "PATH: owned by uid N,
 * neither you nor root" or "PATH: writable by group or others (mode
 * MODE)" in *err.
 */
int	fs_check_owner(const char *path, const struct stat *st, char **err);

/*
 * The directory for temporary files: $TMPDIR when it is an absolute
 * path, else "/tmp" (a string not to be freed).
 */
const char *fs_tmpdir(void);

#endif /* FLEETMARK_FSUTIL_H */
