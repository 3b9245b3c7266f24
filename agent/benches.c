/*
 * benches.c: the registry of benchmarks.  Adding a benchmark is one file in
 * bench/, which defines it with BENCH() (or WIS_BENCH()), and one line here.
 */
#include <string.h>

#include "bench.h"

extern const struct bench bench_lat_syscall, bench_lat_select, bench_lat_sig,
    bench_lat_proc, bench_lat_ctx, bench_lat_pipe, bench_lat_unix,
    bench_lat_udp, bench_lat_tcp, bench_lat_connect, bench_lat_fs,
    bench_lat_mmap, bench_lat_pagefault, bench_pagefault, bench_bw_pipe,
    bench_bw_unix, bench_bw_tcp, bench_bw_file_rd, bench_bw_mmap_rd,
    bench_bw_mem, bench_munmap, bench_page_fault1, bench_page_fault2,
    bench_page_fault3, bench_tlb_flush1, bench_tlb_flush2, bench_tlb_flush3,
    bench_mmap1, bench_mmap2, bench_exec, bench_spin, bench_lmbench;

const struct bench *const benches[] = {
	/* lmbench: processes, signals, context switches */
	&bench_lat_syscall,
	&bench_lat_select,
	&bench_lat_sig,
	&bench_lat_proc,
	&bench_lat_ctx,
	/* lmbench: local communication latencies */
	&bench_lat_pipe,
	&bench_lat_unix,
	&bench_lat_udp,
	&bench_lat_tcp,
	&bench_lat_connect,
	/* lmbench: file and VM latencies */
	&bench_lat_fs,
	&bench_lat_mmap,
	&bench_lat_pagefault,
	/* lmbench: bandwidths */
	&bench_bw_pipe,
	&bench_bw_unix,
	&bench_bw_tcp,
	&bench_bw_file_rd,
	&bench_bw_mmap_rd,
	&bench_bw_mem,
	/* the page-fault latency mail */
	&bench_pagefault,
	/* the TLB range-flush mail */
	&bench_munmap,
	/* will-it-scale */
	&bench_page_fault1,
	&bench_page_fault2,
	&bench_page_fault3,
	&bench_tlb_flush1,
	&bench_tlb_flush2,
	&bench_tlb_flush3,
	&bench_mmap1,
	&bench_mmap2,
	/* workloads */
	&bench_exec,
	&bench_spin,
	/* suites */
	&bench_lmbench,
	NULL
};

const struct bench *
bench_find(const char *name)
{
	int i;

	for (i = 0; benches[i]; i++)
		if (strcmp(benches[i]->name, name) == 0)
			return benches[i];
	return NULL;
}
