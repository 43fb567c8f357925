/* tapo_frame_results.c: see tapo_frame_results.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tapo_frame_results.h"

typedef struct tapo_frame_entry {
    uint32_t frame;                   /* its number in the capture, from 1 */
    tapo_frame_result result;
} tapo_frame_entry;

void tapo_frame_results_init(tapo_frame_results *rs)
{
    rs->entries = g_array_new(FALSE, TRUE, sizeof(tapo_frame_entry));
    rs->cursor = 0;
}

void tapo_frame_results_clear(tapo_frame_results *rs)
{
    if (rs->entries)
        g_array_free(rs->entries, TRUE);
    rs->entries = NULL;
    rs->cursor = 0;
}

static tapo_frame_entry *entry_at(const tapo_frame_results *rs, guint i)
{
    return &g_array_index(rs->entries, tapo_frame_entry, i);
}

tapo_frame_result *tapo_frame_results_add(tapo_frame_results *rs, uint32_t frame)
{
    guint n = rs->entries->len;
    if (n > 0 && entry_at(rs, n - 1)->frame == frame)
        return &entry_at(rs, n - 1)->result;
    g_array_set_size(rs->entries, n + 1);   /* zeroed (g_array_new's clear) */
    tapo_frame_entry *e = entry_at(rs, n);
    e->frame = frame;
    rs->cursor = n;
    return &e->result;
}

static gint by_frame(gconstpointer a, gconstpointer b)
{
    uint32_t x = ((const tapo_frame_entry *)a)->frame, y = ((const tapo_frame_entry *)b)->frame;
    return x < y ? -1 : x > y;
}

const tapo_frame_result *tapo_frame_results_find(tapo_frame_results *rs, uint32_t frame)
{
    guint n = rs->entries ? rs->entries->len : 0;
    if (n == 0 || frame < entry_at(rs, 0)->frame || frame > entry_at(rs, n - 1)->frame)
        return NULL;
    guint c = rs->cursor < n ? rs->cursor : n - 1;
    uint32_t at = entry_at(rs, c)->frame;
    if (at == frame)
        return &entry_at(rs, c)->result;
    if (at < frame) {
        /* In order: the next entry is this frame, or a later one (a miss). */
        uint32_t next = entry_at(rs, c + 1)->frame;   /* c < n - 1: frame <= the last */
        if (next == frame) {
            rs->cursor = c + 1;
            return &entry_at(rs, c + 1)->result;
        }
        if (next > frame)
            return NULL;
    }
    tapo_frame_entry key = { .frame = frame };
    guint i;
    if (!g_array_binary_search(rs->entries, &key, by_frame, &i))
        return NULL;
    rs->cursor = i;
    return &entry_at(rs, i)->result;
}

void tapo_frame_results_foreach(const tapo_frame_results *rs,
                                void (*fn)(uint32_t frame, const tapo_frame_result *r, void *data), void *data)
{
    for (guint i = 0; rs->entries && i < rs->entries->len; i++)
        fn(entry_at(rs, i)->frame, &entry_at(rs, i)->result, data);
}
