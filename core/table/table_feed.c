/* table_feed.c: see table_feed.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "table/table_feed.h"

tapo_fed tapo_table_feed(tapo_conn_table *t, tapo_table_clock *k, const tapo_frame *f, uint32_t file,
                         tapo_decode_result decoded, tapo_segment_fields *seg, tapo_table_claim claim, void *ctx,
                         tapo_table_result *out)
{
    double rel_s = tapo_rel_time(&k->rel, f);
    if (rel_s > k->clock_s)
        k->clock_s = rel_s;
    tapo_table_frame(t, seg, decoded);
    if (decoded != TAPO_DECODE_TCP && decoded != TAPO_DECODE_QUOTED)
        return TAPO_FED_OTHER;
    tapo_table_tick(t, k->clock_s);
    if (claim && !claim(ctx, &decoded, seg))
        return TAPO_FED_ANOTHERS;
    if (decoded == TAPO_DECODE_QUOTED) {
        tapo_table_quoted(t, seg);
        return TAPO_FED_QUOTED;
    }
    tapo_packet_place place = { file, f->number, rel_s, f->time_s, k->clock_s };
    tapo_table_segment(t, &place, seg, out);
    return TAPO_FED_SEGMENT;
}
