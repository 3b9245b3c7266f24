/*
 * page_fault2: will-it-scale's private file mapping fault test.  Each task
 * has its own sparse file of `size` bytes, maps it MAP_PRIVATE, writes one
 * byte to every page (one operation per page: a fault that finds or
 * creates the page cache page and copies it into a private anonymous
 * page), and unmaps it, over and over.
 *
 * will-it-scale uses 128 MB files in /tmp; here the default is 16 MB
 * (size=128M for the original) and the files are in the trial's scratch
 * directory, whose filesystem is named in a note.
 */
#include "wis.h"

WIS_BENCH(page_fault2, "private file mapping write faults per second, N tasks",
    "will-it-scale page_fault2 (Separate file private mapping page fault)",
    wis_fault_pages, WIS_PRIVATE, 1, "16M",
    "bytes of each task's file, mapped and touched per pass (will-it-scale: 128M)");
