/* messages.c: see messages.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "record/messages.h"

#include <glib.h>

void tapo_messages_init(tapo_message_tracker *m)
{
    *m = (tapo_message_tracker){.run_from = -1, .last_from = -1};
}

/* Out of line, one call per packet: inlined into the per-packet path it
 * tips the link-time inliner there (docs/benchmarks.md). */
G_GNUC_NO_INLINE void tapo_messages_packet(tapo_message_tracker *m, int from, bool new_payload)
{
    if (!new_payload) {
        if (m->run_from == 1 - from)
            m->run_from = -1;     /* the peer spoke (an ACK): its next payload starts a message */
        return;
    }
    tapo_message_counts *c = &m->counts;
    if (m->run_from != from) {
        if (c->messages[from] < UINT32_MAX)
            c->messages[from]++;
        if (m->last_from == 1 - from && c->answered[1 - from] < UINT32_MAX)
            c->answered[1 - from]++;
    }
    m->run_from = (int8_t)from;
    m->last_from = (int8_t)from;
}

void tapo_messages_resume(tapo_message_tracker *m, const tapo_message_counts *counts)
{
    tapo_messages_init(m);
    m->counts = *counts;
}
