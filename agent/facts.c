/*
 * facts.c: the THP mode, file system names and the linking of programs
 * that benchmarks note and the env line reports (see facts.h).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "agent.h"
#include "bench.h"
#include "facts.h"

#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"

int
facts_thp(char *mode, size_t cap)
{
	char buf[256], *a, *b;

	if (read_text(THP_ENABLED, buf, sizeof(buf)) != 0)
		return -1;
	if ((a = strchr(buf, '[')) == NULL || (b = strchr(a, ']')) == NULL) {
		snprintf(mode, cap, "%s", buf);
		return 1;
	}
	*b = '\0';
	snprintf(mode, cap, "%s", a + 1);
	return 0;
}

const char *
facts_fs_name(unsigned long type)
{
	static const struct {
		unsigned long	 magic;
		const char	*name;
	} fs[] = {
		{ 0x0000EF53UL, "ext2/3/4" },
		{ 0x01021994UL, "tmpfs" },
		{ 0x58465342UL, "xfs" },
		{ 0x9123683EUL, "btrfs" },
		{ 0xF2F52010UL, "f2fs" },
		{ 0x794C7630UL, "overlayfs" },
		{ 0x00006969UL, "nfs" },
		{ 0x01021997UL, "9p" },
		{ 0x65735546UL, "fuse" },
		{ 0x2FC12FC1UL, "zfs" },
		{ 0x858458F6UL, "ramfs" },
		{ 0x00004D44UL, "vfat" },
	};
	size_t i;

	/* a 32-bit f_type may come sign-extended */
	type &= 0xffffffffUL;
	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (fs[i].magic == type)
			return fs[i].name;
	return NULL;
}

void
facts_note_scratch_fs(struct trial *t)
{
	struct statfs sfs;
	const char *name;

	if (statfs(".", &sfs) != 0)
		return;
	if ((name = facts_fs_name((unsigned long)sfs.f_type)) != NULL)
		trial_note(t, "scratch file system %s", name);
	else
		trial_note(t, "scratch file system type 0x%lx", (unsigned long)sfs.f_type);
}

/* An unsigned field of n bytes at p, in the file's byte order. */
static uint64_t
elf_field(const unsigned char *p, int n, int big)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[big ? i : n - 1 - i];
	return v;
}

#define ELF_PT_INTERP	3
#define ELF_MAX_PHNUM	256

int
facts_elf_dynamic(const char *path, long long *size)
{
	unsigned char eh[64], ph[4];
	uint64_t phoff;
	unsigned phentsize, phnum, i;
	struct stat st;
	int fd, wide, big, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (size != NULL && fstat(fd, &st) == 0)
		*size = (long long)st.st_size;
	if (pread(fd, eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh, "\177ELF", 4) != 0 || (eh[4] != 1 && eh[4] != 2) ||
	    (eh[5] != 1 && eh[5] != 2))
		goto out;
	wide = eh[4] == 2;	/* ELFCLASS64 */
	big = eh[5] == 2;	/* ELFDATA2MSB */
	phoff = wide ? elf_field(eh + 32, 8, big) : elf_field(eh + 28, 4, big);
	phentsize = (unsigned)elf_field(eh + (wide ? 54 : 42), 2, big);
	phnum = (unsigned)elf_field(eh + (wide ? 56 : 44), 2, big);
	if (phentsize < 4 || phnum > ELF_MAX_PHNUM)
		goto out;
	r = 0;
	for (i = 0; i < phnum; i++) {
		if (pread(fd, ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) !=
		    (ssize_t)sizeof(ph)) {
			r = -1;
			break;
		}
		if (elf_field(ph, 4, big) == ELF_PT_INTERP) {
			r = 1;
			break;
		}
	}
out:
	close(fd);
	return r;
}
