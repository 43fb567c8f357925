/* tapo_frame_results.h: what each analysed frame renders, by frame number.
 *
 * Few frames render anything (a stall's end, a connection's first segment,
 * a note), and Wireshark asks for every frame, mostly in order (tshark's
 * passes, the GUI's packet list scrolled).  A hash map lookup per frame
 * missed the cache on every frame (about 4 % of `tshark -2 -Y tapo.stall`);
 * here the results are one array in frame order, since frames are analysed
 * in order, and a cursor at the last frame found answers the next frame in
 * a comparison or two.  Out of order, a binary search.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_FRAME_RESULTS_H
#define TAPO_FRAME_RESULTS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "table/connection_table.h"
#include "tapo_render.h"

/* What one frame renders. */
typedef struct tapo_frame_result {
    tapo_conn_stall *stall;           /* the stall it ends; NULL none */
    bool starts_connection;           /* it is its connection's first segment */
    uint32_t connection;              /* then: the connection's number in the file */
    tapo_frame_note note;
} tapo_frame_result;

typedef struct tapo_frame_results {
    GArray *entries;                  /* tapo_frame_entry (.c), frame numbers increasing */
    guint cursor;                     /* the index of the last entry found */
} tapo_frame_results;

void tapo_frame_results_init(tapo_frame_results *rs);
void tapo_frame_results_clear(tapo_frame_results *rs);

/* The result of frame, added empty if it has none; frame is the newest
 * frame added or a later one (frames are analysed in order).  The pointer
 * holds until the next call that adds. */
tapo_frame_result *tapo_frame_results_add(tapo_frame_results *rs, uint32_t frame);

/* What frame renders; NULL: nothing. */
const tapo_frame_result *tapo_frame_results_find(tapo_frame_results *rs, uint32_t frame);

/* Calls fn on every result, in frame order. */
void tapo_frame_results_foreach(const tapo_frame_results *rs,
                                void (*fn)(uint32_t frame, const tapo_frame_result *r, void *data), void *data);

#endif /* TAPO_FRAME_RESULTS_H */
