/*
 * tlb_flush2: will-it-scale's TLB flush test on anonymous memory.  Each
 * task maps `size` bytes (1 MB, as will-it-scale) of private anonymous
 * memory; for every page it writes a byte (a fault allocating the page),
 * drops it with madvise(MADV_DONTNEED) (PTE cleared, page freed, TLB entry
 * flushed) and checks that it reads back as zero: one operation per page.
 * The mapping is unmapped and mapped again after each pass.
 *
 * In threads mode every task's flush must reach the other CPUs running the
 * shared mm (shootdown IPIs); in processes mode it stays local.
 */
#include "wis.h"

WIS_BENCH(tlb_flush2, "MADV_DONTNEED of a written page, anonymous memory, per second",
    "will-it-scale tlb_flush2 (TLB flush of anonymous memory private mapping)",
    wis_flush_pages, WIS_ANON, 0, "1M",
    "bytes each task maps, one operation per page (will-it-scale: 1M)");
