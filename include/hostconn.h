/*
 * hostconn.h: the glue between an inventory host (fleet.h) and a
 * transport (transport.h), which know nothing of each other.
 */
#ifndef FLEETMARK_HOSTCONN_H
#define FLEETMARK_HOSTCONN_H

#include "fleet.h"
#include "transport.h"

/*
 * Fill o to reach h, pacing handshakes through pace (may be NULL).  The
 * strings of o are borrowed from h: h must outlive the transport_open()
 * call that uses o.
 */
void	hostconn_opts(const struct fleet_host *h, struct pace *pace,
	    struct transport_opts *o);

#endif /* FLEETMARK_HOSTCONN_H */
