/* wire_state.c: see wire_state.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "wire/wire_state.h"
#include "base/endpoint_pair.h"

#include <string.h>

#define TCP_SYN_ACK (TAPO_TCP_SYN | TAPO_TCP_ACK)

void tapo_wire_init(tapo_wire_state *w)
{
    memset(w, 0, sizeof *w);
    for (int e = 0; e < 2; e++) {
        w->dir[e].win_scale = TAPO_WS_SCALE_UNKNOWN;
        w->dir[e].window = UINT32_MAX;
    }
}

bool tapo_wire_splits(const tapo_wire_state *w, int from, const tapo_segment_fields *seg)
{
    const tapo_wire_direction *fwd = &w->dir[from];
    return (seg->flags & TCP_SYN_ACK) == TAPO_TCP_SYN && fwd->base_set && seg->seq_raw != fwd->base_seq;
}

static void note_base_seq(tapo_wire_state *w, int from, const tapo_segment_fields *seg)
{
    tapo_wire_direction *fwd = &w->dir[from], *rev = &w->dir[tapo_peer_of(from)];
    bool syn = seg->flags & TAPO_TCP_SYN;
    if ((seg->flags & TCP_SYN_ACK) == TCP_SYN_ACK && fwd->base_set && seg->seq_raw != fwd->base_seq)
        fwd->base_seq = seg->seq_raw;    /* a SYN-ACK with another ISN replaces the base */
    if (!fwd->base_set) {
        fwd->base_seq = syn ? seg->seq_raw : seg->seq_raw - 1;
        fwd->base_set = true;
    }
    if ((seg->flags & TAPO_TCP_ACK) && !rev->base_set) {
        rev->base_seq = seg->ack_raw - 1;
        rev->base_set = true;
    }
}

/* The signed distance a - b in sequence space. */
static bool seq_after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

/* tcp_analyze_sequence_number's flags, then its next-sequence bookkeeping. */
static void analyse_sequence(tapo_wire_state *w, int from, const tapo_segment_fields *seg, tapo_packet *p)
{
    tapo_wire_direction *fwd = &w->dir[from], *rev = &w->dir[tapo_peer_of(from)];
    uint32_t seq = seg->seq_raw, len = seg->payload_len;
    if (len == 1 && seq == fwd->nextseq && rev->window == 0)
        p->zero_window_probe = true;
    else if ((len == 0 || len == 1) && seq == fwd->nextseq - 1 &&
             !(seg->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN | TAPO_TCP_RST)))
        p->keep_alive = true;
    uint32_t next = seq + len + ((seg->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN)) ? 1 : 0);
    if ((seq_after(next, fwd->nextseq) || fwd->nextseq == 0) && !p->zero_window_probe)
        fwd->nextseq = next;
    fwd->window = seg->window_raw;
}

/* The window scale option and its check on SYNs (verify_tcp_window_scaling). */
static void note_window_scale(tapo_wire_state *w, int from, const tapo_segment_fields *seg)
{
    tapo_wire_direction *fwd = &w->dir[from], *rev = &w->dir[tapo_peer_of(from)];
    if (seg->has_wscale)
        fwd->win_scale = seg->wscale > TAPO_WS_SHIFT_MAX ? TAPO_WS_SHIFT_MAX : seg->wscale;
    /* Wireshark checks scaling after the options: options cut by the
     * snaplen end its reading of the segment before that. */
    if (!(seg->flags & TAPO_TCP_SYN) || seg->options_truncated)
        return;
    if (fwd->win_scale == TAPO_WS_SCALE_UNKNOWN)
        fwd->win_scale = rev->win_scale = TAPO_WS_SCALE_NONE;
    else if ((seg->flags & TAPO_TCP_ACK) && rev->win_scale == TAPO_WS_SCALE_NONE)
        fwd->win_scale = TAPO_WS_SCALE_NONE;
}

void tapo_wire_segment(tapo_wire_state *w, int from, const tapo_segment_fields *seg, tapo_packet *p)
{
    tapo_wire_direction *fwd = &w->dir[from];
    bool syn = seg->flags & TAPO_TCP_SYN;
    /* Scaled before the options of this segment are read; SYNs never. */
    p->window = seg->window_raw;
    if (!syn && fwd->win_scale >= 0)
        p->window = (uint32_t)seg->window_raw << fwd->win_scale;
    /* tcp.window_size_scalefactor, shown with the window and absent on
     * SYNs: -1 is "unknown". */
    p->window_scale_known = syn || fwd->win_scale != TAPO_WS_SCALE_UNKNOWN;
    note_base_seq(w, from, seg);
    analyse_sequence(w, from, seg, p);
    note_window_scale(w, from, seg);
}
