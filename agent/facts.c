/*
 * facts.c: the THP mode and file system names that benchmarks note and
 * the env line reports (see facts.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>

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
