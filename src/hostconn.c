/*
 * hostconn.c: turn an inventory host into transport options (hostconn.h).
 */
#include <string.h>

#include "hostconn.h"

void
hostconn_opts(const struct fleet_host *h, struct pace *pace, struct transport_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->name = h->name;
	o->local = h->transport == FLEET_TRANSPORT_LOCAL;
	o->address = h->address;
	o->port = h->port;
	o->user = h->user;
	o->identity = h->identity;
	o->known_hosts = h->known_hosts;
	switch (h->host_key_check) {
	case FLEET_HOSTKEY_YES: o->host_key_check = TRANSPORT_HOSTKEY_YES; break;
	case FLEET_HOSTKEY_ACCEPT_NEW: o->host_key_check = TRANSPORT_HOSTKEY_ACCEPT_NEW; break;
	case FLEET_HOSTKEY_NO: o->host_key_check = TRANSPORT_HOSTKEY_NO; break;
	}
	o->connect_timeout_ms = h->connect_timeout_ms;
	o->ssh_config = h->ssh_config;
	o->ssh_config_path = h->ssh_config_path;
	o->proxy_jump = h->proxy_jump;
	o->pace = pace;
}
