/*
 * page_fault3: will-it-scale's shared file mapping fault test.  Each task
 * has its own sparse file of `size` bytes, maps it MAP_SHARED, writes one
 * byte to every page (one operation per page: a write fault on the page
 * cache page itself, which the filesystem's page_mkwrite sees and which
 * dirties the page), and unmaps it, over and over.
 *
 * will-it-scale uses 128 MB files in /tmp (often tmpfs); here the default
 * is 16 MB (size=128M for the original) and the files are in the trial's
 * scratch directory.  The filesystem matters a great deal (tmpfs against
 * ext4's block allocation and writeback), so a note names it.
 */
#include "wis.h"

WIS_BENCH(page_fault3, "shared file mapping write faults per second, N tasks",
    "will-it-scale page_fault3 (Separate file shared mapping page fault)",
    wis_fault_pages, WIS_SHARED, 1, "16M",
    "bytes of each task's file, mapped and written per pass (will-it-scale: 128M)");
