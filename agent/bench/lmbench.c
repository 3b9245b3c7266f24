/*
 * lmbench: the suite behind lmbench's five summary tables ("Processor,
 * Processes", "Context switching", "*Local* Communication latencies",
 * "File & VM system latencies", "*Local* Communication bandwidths").
 *
 * Each member runs as its own benchmark point with its own header line.
 * The controller expands this suite into one trial per member, so every
 * column gets independent repeated trials; `fleetmark-agent run lmbench`
 * runs them all in one go.  The RPC columns of lmbench (SunRPC over UDP and
 * TCP) are not measured: they need an RPC portmapper on the host.
 */
#include <stddef.h>

#include "bench.h"

static const struct suite_member members[] = {
	/* Processor, Processes */
	{ "lat_syscall", "op=null" },
	{ "lat_syscall", "op=read" },
	{ "lat_syscall", "op=write" },
	{ "lat_syscall", "op=stat" },
	{ "lat_syscall", "op=open" },
	{ "lat_select", "type=tcp n=100" },
	{ "lat_sig", "op=install" },
	{ "lat_sig", "op=catch" },
	{ "lat_proc", "op=fork" },
	{ "lat_proc", "op=exec" },
	{ "lat_proc", "op=shell" },
	/* Context switching */
	{ "lat_ctx", "procs=2 size=0" },
	{ "lat_ctx", "procs=2 size=16" },
	{ "lat_ctx", "procs=2 size=64" },
	{ "lat_ctx", "procs=8 size=16" },
	{ "lat_ctx", "procs=8 size=64" },
	{ "lat_ctx", "procs=16 size=16" },
	{ "lat_ctx", "procs=16 size=64" },
	/* *Local* Communication latencies */
	{ "lat_pipe", "" },
	{ "lat_unix", "" },
	{ "lat_udp", "" },
	{ "lat_tcp", "" },
	{ "lat_connect", "" },
	/* File & VM system latencies */
	{ "lat_fs", "size=0" },
	{ "lat_fs", "size=10240" },
	{ "lat_mmap", "" },
	{ "lat_sig", "op=prot" },
	{ "lat_pagefault", "" },
	{ "lat_select", "type=file n=100" },
	/* *Local* Communication bandwidths */
	{ "bw_pipe", "" },
	{ "bw_unix", "" },
	{ "bw_tcp", "" },
	{ "bw_file_rd", "" },
	{ "bw_mmap_rd", "" },
	{ "bw_mem", "op=bcopy" },
	{ "bw_mem", "op=fcp" },
	{ "bw_mem", "op=frd" },
	{ "bw_mem", "op=fwr" },
	{ NULL, NULL }
};

const struct bench bench_lmbench = {
	"lmbench", "every measurement of lmbench's five summary tables",
	"lmbench 3 summary (scripts/getsummary)",
	NULL, NULL, NULL, members, NULL
};
