/*
 * tlb_flush3: will-it-scale's TLB flush test on a shared file mapping.
 * Each task has its own sparse file of `size` bytes mapped MAP_SHARED; for
 * every page it writes a byte (a write fault on the page cache page),
 * unmaps that page from the mm with madvise(MADV_DONTNEED) (PTE cleared,
 * TLB entry flushed, the page stays in the page cache) and checks that it
 * reads back what was written (a read fault maps it again): one operation
 * per page.  The mapping is unmapped and mapped again after each pass.
 *
 * In threads mode every flush must reach the other CPUs running the shared
 * mm; in processes mode it stays local.  will-it-scale uses a 128 MB file
 * in /tmp; the default here is 16 MB (size=128M for the original), in the
 * trial's scratch directory, whose filesystem a note names.
 */
#include "wis.h"

WIS_BENCH(tlb_flush3, "MADV_DONTNEED of a written page, shared file mapping, per second",
    "will-it-scale tlb_flush3 (TLB flush of separated file shared mapping)",
    wis_flush_pages, WIS_SHARED, 1, "16M",
    "bytes of each task's file, one operation per page (will-it-scale: 128M)");
