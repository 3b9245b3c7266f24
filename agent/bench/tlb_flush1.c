/*
 * tlb_flush1: will-it-scale's TLB flush test on a private file mapping.
 * Each task has its own sparse file of `size` bytes mapped MAP_PRIVATE;
 * for every page it writes a byte (a fault and a private copy), drops the
 * page again with madvise(MADV_DONTNEED) (the PTE is cleared and the TLB
 * entry flushed), and checks that the page reads back as the file's zero:
 * one operation per page.  The mapping is unmapped and mapped again after
 * each pass.
 *
 * The flush is what scales differently by mode: in threads mode the mm is
 * in use on every CPU that runs a task, so each madvise sends TLB
 * shootdown IPIs to them; in processes mode the flush stays local.
 *
 * will-it-scale uses a 128 MB file in /tmp; the default here is 16 MB
 * (size=128M for the original), in the trial's scratch directory.
 */
#include "wis.h"

WIS_BENCH(tlb_flush1, "MADV_DONTNEED of a written page, private file mapping, per second",
    "will-it-scale tlb_flush1 (TLB flush of separated file private mapping)",
    wis_flush_pages, WIS_PRIVATE, 1, "16M",
    "bytes of each task's file, one operation per page (will-it-scale: 128M)");
