/* endpoints.h: a connection's endpoints as a key: a hash the same either
 * way round, equality, and text.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_ENDPOINTS_H
#define TAPO_ENDPOINTS_H

#include <stdint.h>

#include <glib.h>

#include "wire/decode.h"
#include "roles/roles.h"

#define TAPO_ADDRESS_TEXT_MAX 46      /* bytes: INET6_ADDRSTRLEN */
#define TAPO_PREFIX_TEXT_MAX 64       /* bytes: an address and "/64" */

/* A hash of the endpoints that is the same whichever sent the segment,
 * without ordering them first. */
uint32_t tapo_endpoints_either_way_hash(const tapo_endpoints *e);
gboolean tapo_endpoints_equal(gconstpointer a, gconstpointer b);

/* The same connection's endpoints, whichever sent each segment. */
bool tapo_endpoints_same_flow(const tapo_endpoints *a, const tapo_endpoints *b);

/* The address (as text) and port of endpoint 0 (src) or 1 (dst). */
void tapo_endpoint_address(const tapo_endpoints *e, int which, char address[TAPO_ADDRESS_TEXT_MAX],
                           uint16_t *port);

/* The same as "address:port" ("[address]:port" for IPv6), allocated. */
char *tapo_endpoint_text(const tapo_endpoints *e, int which);

/* Both, as the analysis names them (roles.h). */
void tapo_endpoint_names_of(const tapo_endpoints *e, tapo_endpoint_names *out);

/* The /24 (IPv4) or /64 (IPv6) of endpoint which's address, as text
 * ("192.0.2.0/24", "2001:db8::/64"): tapo_address_prefix of its address. */
void tapo_endpoint_prefix(const tapo_endpoints *e, int which, char out[TAPO_PREFIX_TEXT_MAX]);

#endif /* TAPO_ENDPOINTS_H */
