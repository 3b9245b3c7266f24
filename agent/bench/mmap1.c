/*
 * mmap1: will-it-scale's anonymous mmap/munmap test.  Each task maps
 * `size` bytes (128 MB, as will-it-scale) of private anonymous memory and
 * unmaps it again without touching it: one operation per pair.  No page is
 * faulted, so this is the cost of creating and removing a VMA under the
 * mm's lock, which threads mode shares between all tasks.
 */
#include "wis.h"

WIS_BENCH(mmap1, "mmap+munmap of untouched anonymous memory per second, N tasks",
    "will-it-scale mmap1 (Anonymous memory mmap/munmap of 128MB)",
    wis_map_unmap, WIS_ANON, 0, "128M",
    "bytes mapped (never touched) per operation (will-it-scale: 128M)");
