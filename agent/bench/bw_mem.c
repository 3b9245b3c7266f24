/*
 * bw_mem: memory bandwidth of reading, writing and copying a buffer,
 * lmbench's "Bcopy (libc)", "Bcopy (hand)", "Mem read" and "Mem write"
 * columns of "*Local* Communication bandwidths".
 *
 * One operation passes once over the buffer, as lmbench's bw_mem does:
 *
 *   frd    read every 32-bit word and sum them (Mem read)
 *   fwr    write every 32-bit word (Mem write)
 *   fcp    copy every 32-bit word, a hand-unrolled loop (Bcopy (hand))
 *   bcopy  copy with the C library's memcpy() (Bcopy (libc))
 *   rd     read one word in four (every 16 bytes) and sum them
 *   wr     write one word in four
 *   rdwr   read one word in four and write it back changed
 *   cp     copy one word in four
 *   bzero  clear with the C library's memset()
 *
 * The hand-written loops handle 512 bytes (128 words) per unrolled step,
 * like lmbench's, and access memory as lmbench's -O build does, one 32-bit
 * load or store at a time.  Left to itself, gcc at -O2 turns the store
 * loops into 16-byte vector stores, and fwr then came out 6 to 9 times
 * lmbench's; so the loops that store go through volatile pointers, and
 * fwr, the summary's "Mem write", is lmbench's own C compiled at -O1 (its
 * -O) where the compiler is gcc: volatile stores of a register from the
 * first word up still wrote 1.4 times as fast as lmbench's stores of an
 * immediate from the last word down.  The read loops stay scalar as they
 * are (see ipc.h).  `size` is the memory the operation touches: reads and
 * writes pass over `size` bytes; copies move size/2 bytes from one half to
 * the other.  The default, 8M, is thereby both points lmbench's summary
 * reports with its default MB=8: "Mem read" and "Mem write" at 8M, and the
 * copies at 4M (lmbench copies at half its memory size).  Bandwidth counts
 * each byte once, read or written or copied, in MB/s of 10^6 bytes, as
 * lmbench counts it.  Buffers are page-aligned and touched before timing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

struct mem {
	uint32_t	*buf;		/* the buffer, or a copy's source */
	uint32_t	*dst;		/* a copy's destination */
	size_t		 bytes;		/* bytes one operation passes over */
	int		 err;		/* never set: nothing here can fail */
};

static volatile uint32_t sink;

/* Every word of a 128-word step (f), or every fourth (q). */
#define F8(op, i)	op(i) op(i + 1) op(i + 2) op(i + 3) op(i + 4) op(i + 5) op(i + 6) op(i + 7)
#define F32(op, i)	F8(op, i) F8(op, i + 8) F8(op, i + 16) F8(op, i + 24)
#define F128(op)	F32(op, 0) F32(op, 32) F32(op, 64) F32(op, 96)

#define Q8(op, i)	op(i) op(i + 4) op(i + 8) op(i + 12) op(i + 16) op(i + 20) op(i + 24) op(i + 28)
#define Q128(op)	Q8(op, 0) Q8(op, 32) Q8(op, 64) Q8(op, 96)

#define STEP	128	/* words per unrolled step: 512 bytes */

static void
do_frd(uint64_t n, void *arg)
{
	struct mem *m = arg;
	uint32_t sum = 0;

	while (n-- > 0)
		sum += ipc_sum_words(m->buf, m->bytes);
	sink = sum;
}

static void
do_rd(uint64_t n, void *arg)
{
	struct mem *m = arg;
	const uint32_t *p, *end = m->buf + m->bytes / sizeof(*p);
	uint32_t sum = 0;

#define RD(i)	sum += p[i];
	while (n-- > 0)
		for (p = m->buf; p < end; p += STEP) {
			Q128(RD)
		}
#undef RD
	sink = sum;
}

/*
 * lmbench's fwr is one chained assignment per step, p[0] = p[1] = ... =
 * p[127] = 1, which its -O build turns into 128 stores of the immediate
 * from p[127] down.  gcc compiles this function at -O1 (lmbench's -O) so
 * that the same C gives the same code; elsewhere volatile keeps the
 * stores apart, in the same order.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define FWR_PTR		uint32_t *
#define FWR_OPT		__attribute__((optimize("O1")))
#else
#define FWR_PTR		volatile uint32_t *
#define FWR_OPT
#endif
#define C8(i)	p[i] = p[i + 1] = p[i + 2] = p[i + 3] = p[i + 4] = p[i + 5] = p[i + 6] = p[i + 7] =
#define C32(i)	C8(i) C8(i + 8) C8(i + 16) C8(i + 24)

static void FWR_OPT
do_fwr(uint64_t n, void *arg)
{
	struct mem *m = arg;
	FWR_PTR p;
	FWR_PTR end = m->buf + m->bytes / sizeof(*p);

	while (n-- > 0)
		for (p = m->buf; p < end; p += STEP) {
			C32(0) C32(32) C32(64) C32(96) 1;
		}
}
#undef C8
#undef C32

static void
do_wr(uint64_t n, void *arg)
{
	struct mem *m = arg;
	volatile uint32_t *p, *end = m->buf + m->bytes / sizeof(*p);

#define WR1(i)	p[i] = 1;
	while (n-- > 0)
		for (p = m->buf; p < end; p += STEP) {
			Q128(WR1)
		}
#undef WR1
}

static void
do_rdwr(uint64_t n, void *arg)
{
	struct mem *m = arg;
	volatile uint32_t *p, *end = m->buf + m->bytes / sizeof(*p);
	uint32_t sum = 0;

#define RDWR(i)	sum += p[i]; p[i] = sum;
	while (n-- > 0)
		for (p = m->buf; p < end; p += STEP) {
			Q128(RDWR)
		}
#undef RDWR
	sink = sum;
}

static void
do_fcp(uint64_t n, void *arg)
{
	struct mem *m = arg;
	const volatile uint32_t *p, *end = m->buf + m->bytes / sizeof(*p);
	volatile uint32_t *d;

#define CP(i)	d[i] = p[i];
	while (n-- > 0)
		for (p = m->buf, d = m->dst; p < end; p += STEP, d += STEP) {
			F128(CP)
		}
}

static void
do_cp(uint64_t n, void *arg)
{
	struct mem *m = arg;
	const volatile uint32_t *p, *end = m->buf + m->bytes / sizeof(*p);
	volatile uint32_t *d;

	while (n-- > 0)
		for (p = m->buf, d = m->dst; p < end; p += STEP, d += STEP) {
			Q128(CP)
		}
#undef CP
}

static void
do_bcopy(uint64_t n, void *arg)
{
	struct mem *m = arg;

	while (n-- > 0)
		memcpy(m->dst, m->buf, m->bytes);
}

static void
do_bzero(uint64_t n, void *arg)
{
	struct mem *m = arg;

	while (n-- > 0)
		memset(m->buf, 0, m->bytes);
}

static const struct {
	const char	*name;
	timing_fn	 fn;
	int		 copy;		/* two halves: source and destination */
} ops[] = {
	{ "frd", do_frd, 0 },
	{ "fwr", do_fwr, 0 },
	{ "fcp", do_fcp, 1 },
	{ "bcopy", do_bcopy, 1 },
	{ "rd", do_rd, 0 },
	{ "wr", do_wr, 0 },
	{ "rdwr", do_rdwr, 0 },
	{ "cp", do_cp, 1 },
	{ "bzero", do_bzero, 0 },
};

static int
run(struct trial *t)
{
	long long size = trial_int(t, "size");
	const char *op = trial_str(t, "op");
	struct mem m = { NULL, NULL, 0, 0 };
	size_t i;
	int rc;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(ops[i].name, op) == 0)
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return trial_error(t, WIRE_ERR_REQUEST, "unknown op %s", op);
	/* copies split it in two halves of whole 512-byte steps */
	if (size < 1024 || size % 1024 != 0)
		return trial_error(t, WIRE_ERR_REQUEST, "size must be a positive multiple of 1K");
	if ((unsigned long long)size > (sizeof(void *) < 8 ? 1ULL << 30 : 1ULL << 40))
		return trial_error(t, WIRE_ERR_REQUEST, "size must be at most %s",
		    sizeof(void *) < 8 ? "1G on a 32-bit host" : "1T");
	m.bytes = ops[i].copy ? (size_t)size / 2 : (size_t)size;
	if ((m.buf = ipc_alloc(m.bytes)) == NULL ||
	    (ops[i].copy && (m.dst = ipc_alloc(m.bytes)) == NULL)) {
		rc = trial_error(t, WIRE_ERR_BENCH, "cannot allocate %lld bytes", size);
		goto out;
	}
	rc = ipc_report(t, "bandwidth", ops[i].fn, &m, &m.err, NULL, (double)m.bytes, op);
out:
	free(m.buf);
	free(m.dst);
	return rc;
}

static const struct bench_param params[] = {
	{ "op", PARAM_ENUM, "frd", "frd fwr fcp bcopy (the summary's), rd wr rdwr cp bzero",
	  "frd|fwr|fcp|bcopy|rd|wr|rdwr|cp|bzero" },
	{ "size", PARAM_INT, "8M", "bytes of memory touched; copies move half of it (lmbench summary: 8M)", "1K..1024G" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "bandwidth", "MB/s", 1, "bytes read, written or copied per second, 10^6" },
	{ NULL, NULL, 0, NULL }
};

BENCH(bw_mem, "memory read, write and copy bandwidth",
    "lmbench bw_mem (*Local* Communication bandwidths: Bcopy libc/hand, Mem read/write)",
    params, metrics, run);
