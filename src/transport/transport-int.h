/*
 * transport-int.h: what transport.c shares with the backends
 * (transport/ssh.c, transport/local.c): the channel and transport structs,
 * the backend operations, bounded channel buffers.  Not an API.
 */
#ifndef FLEETMARK_TRANSPORT_INT_H
#define FLEETMARK_TRANSPORT_INT_H

#include <stdarg.h>

#include "transport.h"

struct tbuf {
	unsigned char	*b;		/* grown as bytes come, up to cap */
	size_t		 len, cap;	/* bytes held, most that may be held */
	size_t		 alloc;		/* bytes allocated at b */
	size_t		 dropped;	/* bytes dropped for lack of room */
	int		 discard;	/* drop what does not fit (else hold it back) */
	int		 eof;		/* no more will come */
};

struct tchan {
	struct transport	*t;
	struct tbuf		 out, err;
	int			 stdin_closed;
	struct tchan_exit	 exit;
	void			*impl;
};

struct transport_ops {
	int	(*chan_open)(struct tchan *c, const char *cmdline, long long deadline);
	int	(*chan_write)(struct tchan *c, const void *buf, size_t len,
		    long long deadline);
	int	(*chan_close_stdin)(struct tchan *c);
	/*
	 * Move what has arrived into c->out/c->err (as room allows), note
	 * ends of file and the exit; if nothing changed, wait for something
	 * until the deadline (ms, pace_now_ms() clock).  Returns 1 when
	 * something changed, 0 when nothing more can happen, TRANSPORT_EAGAIN
	 * at the deadline, or a negative code.
	 */
	int	(*chan_pump)(struct tchan *c, long long deadline);
	void	(*chan_free)(struct tchan *c);
	int	(*keepalive)(struct transport *t);
	void	(*close)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
	char			*name;
	char			*errmsg;
	struct transport_info	 info;
	void			*impl;
};

/* Record the message of a failure on t; returns code. */
int	transport_fail(struct transport *t, int code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* Room in b for new bytes (when discarding: always some). */
size_t	tbuf_room(const struct tbuf *b);

/* Add n bytes to b, dropping (and counting) what does not fit. */
void	tbuf_put(struct tbuf *b, const void *p, size_t n);

/* The signal name without "SIG" for a signal number ("KILL"). */
const char *transport_signame(int sig);

int	transport_ssh_open(const struct transport_opts *o, struct transport **out,
	    struct transport_info *info, char **err);
int	transport_local_open(const struct transport_opts *o, struct transport **out,
	    struct transport_info *info, char **err);
#endif /* FLEETMARK_TRANSPORT_INT_H */
