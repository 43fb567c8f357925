/* endpoints.c: see endpoints.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "wire/endpoints.h"

#include <arpa/inet.h>
#include <string.h>

#include "base/decimal.h"

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* One endpoint (its address and port) as a 64-bit word. */
static uint64_t endpoint_word(const uint8_t *address, uint16_t port)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t h = (load64(address) ^ (uint64_t)port << 48) * k;
    return (h ^ load64(address + 8)) * k;
}

uint32_t tapo_endpoints_either_way_hash(const tapo_endpoints *e)
{
    uint64_t h = endpoint_word(e->src, e->sport) ^ endpoint_word(e->dst, e->dport);
    return (uint32_t)(h >> 32 ^ h);
}

gboolean tapo_endpoints_equal(gconstpointer a, gconstpointer b)
{
    const tapo_endpoints *x = a, *y = b;
    return x->family == y->family && x->sport == y->sport && x->dport == y->dport &&
           memcmp(x->src, y->src, 16) == 0 && memcmp(x->dst, y->dst, 16) == 0;
}

/* An IPv4 address as inet_ntop writes it ("192.0.2.1"); returns the end. */
static char *ipv4_text(const uint8_t *a, char *out)
{
    for (int i = 0; i < 4; i++) {
        if (i)
            *out++ = '.';
        out = tapo_decimal(out, a[i], 1);
    }
    *out = '\0';
    return out;
}

/* Endpoint which's address as text; returns its end. */
static char *address_text(const tapo_endpoints *e, int which, char address[TAPO_ADDRESS_TEXT_MAX])
{
    const uint8_t *bytes = which == 0 ? e->src : e->dst;
    if (e->family != 6)
        return ipv4_text(bytes, address);
    inet_ntop(AF_INET6, bytes, address, TAPO_ADDRESS_TEXT_MAX);
    return address + strlen(address);
}

bool tapo_endpoints_same_flow(const tapo_endpoints *a, const tapo_endpoints *b)
{
    if (tapo_endpoints_equal(a, b))
        return true;
    return a->family == b->family && a->sport == b->dport && a->dport == b->sport &&
           memcmp(a->src, b->dst, 16) == 0 && memcmp(a->dst, b->src, 16) == 0;
}

void tapo_endpoint_address(const tapo_endpoints *e, int which, char address[TAPO_ADDRESS_TEXT_MAX],
                           uint16_t *port)
{
    address_text(e, which, address);
    *port = which == 0 ? e->sport : e->dport;
}

/* "address:port", "[address]:port" for IPv6. */
static void endpoint_name(const tapo_endpoints *e, int which, char out[TAPO_ENDPOINT_NAME_MAX])
{
    G_STATIC_ASSERT(TAPO_ENDPOINT_NAME_MAX >= TAPO_ADDRESS_TEXT_MAX + 8);
    char *end = out;
    if (e->family == 6)
        *end++ = '[';
    end = address_text(e, which, end);
    if (e->family == 6)
        *end++ = ']';
    *end++ = ':';
    *tapo_decimal(end, which == 0 ? e->sport : e->dport, 1) = '\0';
}

char *tapo_endpoint_text(const tapo_endpoints *e, int which)
{
    char name[TAPO_ENDPOINT_NAME_MAX];
    endpoint_name(e, which, name);
    return g_strdup(name);
}

void tapo_endpoint_names_of(const tapo_endpoints *e, tapo_endpoint_names *out)
{
    endpoint_name(e, 0, out->name[0]);
    endpoint_name(e, 1, out->name[1]);
}

void tapo_endpoint_prefix(const tapo_endpoints *e, int which, char out[TAPO_PREFIX_TEXT_MAX])
{
    uint8_t bytes[16];
    memcpy(bytes, which == 0 ? e->src : e->dst, sizeof bytes);
    if (e->family != 6) {
        bytes[3] = 0;
        memcpy(ipv4_text(bytes, out), "/24", 4);
        return;
    }
    memset(bytes + 8, 0, 8);
    inet_ntop(AF_INET6, bytes, out, TAPO_ADDRESS_TEXT_MAX);
    strcat(out, "/64");
}
