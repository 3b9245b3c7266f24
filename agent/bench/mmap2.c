/*
 * mmap2: will-it-scale's file mmap/munmap test.  Each task has its own
 * sparse file of `size` bytes (128 MB, as will-it-scale), maps it
 * MAP_PRIVATE and unmaps it again without touching it: one operation per
 * pair.  Compared with mmap1 it adds the file's side of a VMA (the
 * mapping's reference and its interval tree of mappings).
 */
#include "wis.h"

WIS_BENCH(mmap2, "mmap+munmap of an untouched file mapping per second, N tasks",
    "will-it-scale mmap2 (Separate file mmap/munmap of 128MB)",
    wis_map_unmap, WIS_PRIVATE, 0, "128M",
    "bytes of each task's file, mapped (never touched) per operation (will-it-scale: 128M)");
