/* id_census.c: see id_census.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "packet/id_census.h"

#include <glib.h>

void tapo_id_census_init(tapo_id_census *c)
{
    c->order = 0;
    c->last_order = NULL;
}

void tapo_id_census_destroy(tapo_id_census *c)
{
    g_free(c->last_order);
    c->last_order = NULL;
}

uint32_t tapo_id_census_note(tapo_id_census *c, uint16_t id)
{
    if (!c->last_order)
        c->last_order = g_new0(uint32_t, TAPO_ID_COUNT);
    if (++c->order == 0)
        c->order = 1;   /* 0 means never */
    c->last_order[id] = c->order;
    return c->order;
}

bool tapo_id_census_carried_between(const tapo_id_census *c, uint32_t from, uint16_t from_id, uint32_t to,
                                    uint16_t to_id)
{
    if (!c->last_order)
        return false;
    /* Orders compare modulo 2^32: packets since 'from', before 'to'. */
    uint32_t span = to - from;
    for (uint16_t id = (uint16_t)(from_id + 1); id != to_id; id++) {
        uint32_t at = c->last_order[id];
        if (at != 0 && at - from - 1u < span - 1u)
            return true;
    }
    return false;
}
