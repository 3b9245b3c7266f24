/*
 * page_fault1: will-it-scale's anonymous page fault test.  Each task maps
 * `size` bytes of private anonymous memory, writes one byte to every page
 * (one operation per page: one fault that allocates and zeroes a page),
 * and unmaps it, over and over.  In threads mode all tasks fault into one
 * mm and share its locks and counters; in processes mode each has its own.
 *
 * will-it-scale maps 128 MB per task; the default here is 16 MB so that
 * many tasks fit a small host (size=128M gives the original).  With THP
 * "always" the kernel may fault whole huge pages (see the THP note).
 */
#include "wis.h"

WIS_BENCH(page_fault1, "anonymous page faults per second, N tasks",
    "will-it-scale page_fault1 (Anonymous memory page fault)",
    wis_fault_pages, WIS_ANON, 1, "16M",
    "bytes each task maps and touches per pass (will-it-scale: 128M)");
