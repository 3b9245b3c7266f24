/*
 * facts.h: facts about the host that qualify a benchmark's numbers, for
 * the notes of a trial and the agent's env line: the transparent huge
 * page mode, the file system a benchmark's files are on, and whether a
 * program is linked dynamically.
 */
#ifndef FLEETMARK_FACTS_H
#define FLEETMARK_FACTS_H

#include <stddef.h>

struct trial;

/*
 * The THP mode, the bracketed word of
 * /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"
 * gives "madvise"), into mode[0..cap).  Returns 0; -1 when the file cannot
 * be read (no THP), mode untouched; 1 when it holds no bracketed word,
 * mode then holding its text.
 */
int	facts_thp(char *mode, size_t cap);

/*
 * Name of a file system by its statfs() f_type ("tmpfs", "ext2/3/4",
 * "xfs", ...), or NULL for one not in the table.
 */
const char *facts_fs_name(unsigned long type);

/*
 * Note the file system of the current directory (a trial's scratch
 * directory): "scratch file system NAME", or with its type in hex when
 * the name is not known.  Nothing when statfs() fails.
 */
void	facts_note_scratch_fs(struct trial *t);

/*
 * Whether the ELF executable at path is dynamically linked (has a program
 * interpreter, PT_INTERP): 1, statically linked: 0, not an ELF file this
 * can read: -1.  Either byte order, 32 or 64 bits.  *size (may be NULL)
 * gets the file's size in bytes when it could be opened.
 */
int	facts_elf_dynamic(const char *path, long long *size);

#endif /* FLEETMARK_FACTS_H */
