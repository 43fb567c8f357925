/* id_census.c: see id_census.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "packet/id_census.h"

#include <glib.h>

void tapo_id_census_init(tapo_id_census *c)
{
    c->order = 0;
    c->last = NULL;
}

void tapo_id_census_destroy(tapo_id_census *c)
{
    g_free(c->last);
    c->last = NULL;
}

uint32_t tapo_id_census_note(tapo_id_census *c, uint16_t id, uint32_t host)
{
    if (!c->last)
        c->last = g_new0(tapo_id_mark, TAPO_ID_COUNT);
    if (++c->order == 0)
        c->order = 1;   /* 0 means never */
    c->last[id] = (tapo_id_mark){.order = c->order, .host = host};
    return c->order;
}

/* Whether the packet of order at came after 'from' and before 'to'
 * (orders compare modulo 2^32). */
static bool between(uint32_t at, uint32_t from, uint32_t to)
{
    return at != 0 && at - from - 1u < to - from - 1u;
}

bool tapo_id_census_carried_between(const tapo_id_census *c, uint32_t from, uint16_t from_id, uint32_t to,
                                    uint16_t to_id)
{
    if (!c->last)
        return false;
    for (uint16_t id = (uint16_t)(from_id + 1); id != to_id; id++)
        if (between(c->last[id].order, from, to))
            return true;
    return false;
}

bool tapo_id_census_host_carried_between(const tapo_id_census *c, uint32_t from, uint16_t from_id, uint32_t to,
                                         uint16_t to_id)
{
    if (!c->last || c->last[to_id].order != to || c->last[to_id].host == 0)
        return false;
    uint32_t host = c->last[to_id].host;
    for (uint16_t id = (uint16_t)(from_id + 1); id != to_id; id++)
        if (c->last[id].host == host && between(c->last[id].order, from, to))
            return true;
    return false;
}
