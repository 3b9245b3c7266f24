/*
 * ipc.h: what lmbench's "*Local* Communication" benchmarks share
 * (bench/lat_pipe.c, lat_unix.c, lat_udp.c, lat_tcp.c, lat_connect.c,
 * bw_pipe.c, bw_unix.c, bw_tcp.c, bw_file_rd.c, bw_mmap_rd.c, bw_mem.c).
 *
 * - A peer process on the far end of a pair of descriptors, which exits by
 *   itself when the trial process goes away and is always killed and
 *   reaped by ipc_peer_stop().
 * - The two shapes of lmbench's IPC benchmarks, whole: a ping-pong of
 *   small messages between two processes (latency) and a one-way stream
 *   from a writer process to a timed reader (bandwidth), and the checks
 *   of their parameters.
 * - Loopback TCP and UDP endpoints on 127.0.0.1 with ephemeral ports (no
 *   name service: the agent is linked statically).
 * - The measure-and-report step, which turns a failure inside a timed loop
 *   into an error line instead of a bogus number.
 * - lmbench's "read into the CPU": summing every 32-bit word of a buffer,
 *   used by the file, mmap and memory read bandwidths alike.
 */
#ifndef FLEETMARK_IPC_H
#define FLEETMARK_IPC_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench.h"
#include "timing.h"

struct trial;

/* --- The peer process ------------------------------------------------------ */

struct ipc_peer {
	pid_t	pid;		/* 0 when not running */
};

/*
 * Fork a peer that runs fn(arg) and exits with _exit() (so it never
 * flushes stdio buffers it inherited).  The peer gets SIGKILL when the
 * process that started it dies (PR_SET_PDEATHSIG), and its stdout is
 * /dev/null so nothing it does can mix into the trial's result lines.
 * From this call on SIGPIPE is ignored in the caller (and so in the peer):
 * a write to a vanished peer fails with EPIPE instead of killing the
 * trial.  fn must close the descriptors that belong to the caller's end,
 * or it would never see end-of-file when the caller goes away.
 * Returns 0 or -errno.
 */
int	ipc_peer_start(struct ipc_peer *p, int (*fn)(void *), void *arg);

/*
 * In a freshly forked child of `parent` (a peer, a will-it-scale task, a
 * copy of exec's command): be killed with SIGKILL when the parent dies
 * (PR_SET_PDEATHSIG), and _exit(status) at once when it has died already,
 * before the signal was armed.
 */
void	ipc_die_with(pid_t parent, int status);

/* Kill and reap the peer; harmless on a peer never started or stopped twice. */
void	ipc_peer_stop(struct ipc_peer *p);

/* In a peer: nonzero once the process that started it is gone. */
int	ipc_peer_orphaned(void);

/* Close *fd if open and mark it closed (-1). */
void	ipc_close(int *fd);

/* --- Whole benchmarks over a pair of descriptors --------------------------- */

#define IPC_DGRAM	0x1	/* ipc_pingpong: the server end is a UDP socket */
#define IPC_ON_DEMAND	0x2	/* ipc_stream: `total` bytes written per request */
#define IPC_MISALIGN	0x4	/* ipc_stream: read into a buffer 128 bytes into a page */
#define IPC_WARMUP	0x8	/* ipc_stream: untimed operations for the trial's
				 * `warmup` microseconds first (lmbench's -W) */

/*
 * A ping-pong latency benchmark over descriptors that exist already: a
 * peer reads `size`-byte messages from srfd and writes them back to swfd
 * (with IPC_DGRAM: answers each datagram on srfd to its sender), while the
 * caller times round trips: write to cwfd, read the answer from crfd.
 * Messages of 4 bytes or more carry a sequence number that must come back.
 * Reports "latency" in microseconds per round trip.  All four descriptors
 * (they may repeat) are closed on return, in both processes, and the peer
 * is reaped.  `what` names the exchange in error messages.  Returns 0 or
 * the value of trial_error().
 */
int	ipc_pingpong(struct trial *t, int srfd, int swfd, int crfd, int cwfd,
	    size_t size, int flags, const char *what);

/*
 * A streaming bandwidth benchmark: a peer writes `chunk`-byte pieces to wfd
 * without end, while the caller times reading `total` bytes from rfd in
 * reads of at most `chunk` bytes.  With IPC_ON_DEMAND (lmbench's bw_unix)
 * the caller asks for each `total` bytes over a control pipe, in the timed
 * operation, and the peer writes exactly that much and waits for the next
 * request.  With IPC_MISALIGN (lmbench's bw_pipe, which "destroys page
 * alignment") the caller's buffer starts 128 bytes into a page.  Reports "bandwidth" in MB/s (10^6 bytes per second).  Both
 * descriptors are closed on return and the peer is reaped.  Returns 0 or
 * the value of trial_error().
 */
int	ipc_stream(struct trial *t, int rfd, int wfd, size_t chunk,
	    uint64_t total, int flags, const char *what);

/*
 * The `size` parameter of a ping-pong benchmark over a stream (lat_pipe,
 * lat_unix, lat_tcp), checked to be 1 byte to 1M.  Returns it, or 0 after reporting a bad one on t (the caller
 * returns -1, the value of trial_error()).
 */
size_t	ipc_pingpong_size(struct trial *t);

/*
 * The `size` parameter of those ping-pongs, 1 byte by default as
 * lmbench's; the parameters of lat_unix (size, sampling) and the metric
 * of all three (the round trip's latency).  lat_pipe and lat_tcp add the
 * sample interval their lmbench programs insist on (timing.h).
 */
#define IPC_PINGPONG_SIZE_PARAM \
	{ "size", PARAM_INT, "1", "bytes per message (lmbench: 1)", "1..1M" }
extern const struct bench_param ipc_pingpong_params[];
extern const struct bench_metric ipc_pingpong_metrics[];

/*
 * The `msg` and `total` parameters of a stream benchmark (bw_pipe,
 * bw_unix, bw_tcp), checked to be 1 byte to 64M and 1 byte to 1T.  Returns 0, or the value
 * of trial_error().
 */
int	ipc_stream_sizes(struct trial *t, size_t *msg, uint64_t *total);

/*
 * Those two parameters with lmbench's defaults (64K, 10M), for bw_pipe and
 * bw_unix (bw_tcp's defaults differ, and it has one more), with sampling
 * and the two seconds a sample of lmbench's bw_pipe and bw_unix lasts
 * (timing.h).
 */
extern const struct bench_param ipc_stream_params[];

/*
 * Measure fn(n, arg) as timing_measure() does (o may be NULL) and report
 * `metric`: microseconds per operation when bytes is 0, else MB/s (10^6
 * bytes per second) for `bytes` moved per operation.  *err is where fn
 * records the first failure of its timed loop (an errno value); then the
 * trial fails with an error naming `what` instead of reporting numbers.
 * Returns 0 or the value of trial_error().
 */
int	ipc_report(struct trial *t, const char *metric, timing_fn fn, void *arg,
	    const int *err, const struct timing_opts *o, double bytes,
	    const char *what);

/* --- Loopback endpoints ------------------------------------------------------ */

/*
 * A TCP listener on 127.0.0.1 with an ephemeral port, its address in
 * *addr.  accept() on it gives up every second (SO_RCVTIMEO), so that
 * ipc_accept() can notice an orphaned peer.  Returns the fd or -errno.
 */
int	ipc_tcp_listen(struct sockaddr_in *addr, int backlog);

/*
 * Accept one connection on lfd (from ipc_tcp_listen()), going on until
 * one arrives or the process that started this peer is gone.  Returns the
 * new descriptor, or -errno (-ESRCH when orphaned).
 */
int	ipc_accept(int lfd);

/*
 * Two ends of one loopback TCP connection, fds[0] the connecting side and
 * fds[1] the accepted one.  sockbuf > 0 sets the buffers before the
 * connection exists, as lmbench's sock_optimize() does: SO_SNDBUF on the
 * listening socket (the accepted one inherits it), SO_RCVBUF and
 * SO_SNDBUF on the connecting one, so that the window the connection
 * starts with is chosen for them; 0 leaves the kernel's defaults.
 * nodelay_both sets TCP_NODELAY on both ends (a message larger than a
 * segment must not wait for an ACK).  Returns 0 or -errno.
 */
int	ipc_tcp_pair(int fds[2], long long sockbuf, int nodelay_both);

/*
 * Two loopback UDP sockets: fds[1] bound to 127.0.0.1 with an ephemeral
 * port, fds[0] connected to it (so plain read and write work; its reads
 * time out after 2 s, so a lost datagram cannot hang a trial).
 * Returns 0 or -errno.
 */
int	ipc_udp_pair(int fds[2]);

/*
 * socketpair(AF_UNIX, SOCK_STREAM) into sv, reporting a failure on t (a
 * host without AF_UNIX is "unsupported").  Returns 0 or the value of
 * trial_error().
 */
int	ipc_unix_pair(struct trial *t, int sv[2]);

/*
 * Report that setting up loopback networking failed at step `what` with
 * errno err: "unsupported" when the host has no usable IPv4 loopback
 * (no address family, no address, unreachable, not permitted), otherwise
 * a benchmark error.  Returns the value of trial_error().
 */
int	ipc_loopback_error(struct trial *t, const char *what, int err);

/* --- Files and memory ----------------------------------------------------- */

/*
 * The write size of lmbench's test file: its scripts make $FILE with
 * `lmdd of=$FILE move=8m fsync=1`, 8 KB writes (lmdd's default bs) and an
 * fsync.  The write size is not a detail: a file system with large folios
 * (ext4 since Linux 6.16) caches the file in folios as large as the writes
 * were, and mapping, faulting and reading it then cost differently (lmbench's
 * lat_mmap takes 3x as long on an 8 KB-written file as on a 64 KB-written one
 * on ext4 with Linux 6.18).
 */
#define IPC_LMDD_BLOCK	8192

/*
 * Create `name` (in the current directory) holding `size` bytes of a
 * non-zero pattern written `block` bytes at a time, flushed to its file
 * system so no write-back runs during the measurement.  Returns 0 or
 * -errno (the file is then removed).
 */
int	ipc_file_create(const char *name, uint64_t size, size_t block);

/*
 * ipc_file_create() with 64 KB writes, then open the file read-write and
 * unlink it, so that nothing is left behind whatever happens: the open
 * descriptor, or -1 after reporting the failure on t (ENOSPC is
 * "unsupported": a host whose scratch space is too small).
 */
int	ipc_file_open_new(struct trial *t, const char *name, uint64_t size);

/*
 * lmbench's test file in the scratch directory: ipc_file_create() with
 * IPC_LMDD_BLOCK writes, left in place as lmbench leaves $FILE (the
 * scratch directory goes with the trial), opened with `flags` (O_RDONLY or
 * O_RDWR, as the lmbench program opens it).  The descriptor, or -1 after
 * reporting the failure on t (ENOSPC is "unsupported").
 */
int	ipc_lmbench_file(struct trial *t, const char *name, uint64_t size, int flags);

/*
 * ipc_lmbench_file() for a benchmark that rereads the file (bw_file_rd,
 * bw_mmap_rd), closed again, and a note naming the file system it is on
 * ("file on tmpfs", "file on ext4", ...; see facts_fs_name()).  Returns 0 or
 * the value of trial_error().
 */
int	ipc_reread_file(struct trial *t, const char *name, uint64_t size);

/*
 * `size` bytes aligned to a page and zeroed, so the first touch of every
 * page happens here and not in a timed loop; free() it.  NULL when out of
 * memory.
 */
void	*ipc_alloc(size_t size);

/*
 * The loops below are lmbench's, access for access: lmbench builds with
 * -O, which leaves them one load of one word at a time added to a single
 * sum, and gcc at -O2 does the same with these.  (A compiler that
 * vectorizes reductions, clang at -O2, reads faster than lmbench does: the
 * agents `make agents` ships are built with gcc.)
 */
/*
 * Sum every 32-bit word of buf[0..len) (buf aligned to 4; a tail shorter
 * than a word is ignored), 128 words per unrolled step: lmbench's bw_mem
 * frd.
 */
uint32_t ipc_sum_words(const void *buf, size_t len);

/*
 * lmbench's bread(): sum every `long` of buf[0..len) (buf aligned to a
 * long; a shorter tail is ignored), 128 per unrolled step, then 16, then
 * one: how lmbench's bw_file_rd and bw_mmap_rd bring data into the CPU and
 * how lat_ctx's processes sum their working sets.  A long is 8 bytes on
 * 64-bit hosts and 4 on 32-bit ones, as lmbench's is.
 */
unsigned long ipc_bread(const void *buf, size_t len);

#endif /* FLEETMARK_IPC_H */
