/* scoreboard.c: outstanding data, retransmission history, SACK and DSACK.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender/scoreboard.h"

#include <string.h>

#define SEG(sb, i) (&(sb)->segs[(sb)->first + (i)])
#define FIRST_ROOM 2                /* entries of a new scoreboard's storage, count (most hold a few) */

uint32_t tapo_segments(int64_t bytes, uint32_t mss)
{
    if (bytes <= 0)
        return 0;
    if (mss == 0)
        return 1;
    int64_t n = (bytes + mss - 1) / mss;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

void tapo_sb_init(tapo_scoreboard *sb)
{
    memset(sb, 0, sizeof *sb);
}

void tapo_sb_destroy(tapo_scoreboard *sb)
{
    g_free(sb->segs);
    g_free(sb->history);
    tapo_sb_init(sb);
}

unsigned tapo_sb_size(const tapo_scoreboard *sb)
{
    return sb->count;
}

/* Room for one more entry at the back: the entries move to the front of
 * the storage when that frees a quarter of it or more (no more memory than
 * a GArray's), else it doubles. */
static void make_room(tapo_scoreboard *sb)
{
    if (sb->first + sb->count < sb->room)
        return;
    if (sb->room && sb->count <= sb->room / 4 * 3) {
        memmove(sb->segs, sb->segs + sb->first, sb->count * sizeof *sb->segs);
        sb->first = 0;
        return;
    }
    sb->room = sb->room ? 2 * sb->room : FIRST_ROOM;
    tapo_segment *segs = g_new(tapo_segment, sb->room);
    if (sb->count)
        memcpy(segs, sb->segs + sb->first, sb->count * sizeof *segs);
    g_free(sb->segs);
    sb->segs = segs;
    sb->first = 0;
}

/* Inserts seg as entry i (i <= count). */
static void insert_at(tapo_scoreboard *sb, unsigned i, const tapo_segment *seg)
{
    make_room(sb);
    memmove(SEG(sb, i + 1), SEG(sb, i), (sb->count - i) * sizeof *seg);
    *SEG(sb, i) = *seg;
    sb->count++;
}

/* Forgets the first n entries. */
static void drop_first(tapo_scoreboard *sb, unsigned n)
{
    sb->first += n;
    sb->count -= n;
    if (sb->count == 0)
        sb->first = 0;
}

/* Index of the first entry whose end lies above offset (binary search). */
static unsigned first_ending_after(const tapo_scoreboard *sb, int64_t offset)
{
    unsigned lo = 0, hi = tapo_sb_size(sb);
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (SEG(sb, mid)->end <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Makes offset an entry boundary, splitting the entry that straddles it. */
static void split_at(tapo_scoreboard *sb, int64_t offset)
{
    unsigned i = first_ending_after(sb, offset);
    if (i >= tapo_sb_size(sb))
        return;
    tapo_segment *seg = SEG(sb, i);
    if (seg->start >= offset)
        return;
    tapo_segment upper = *seg;
    upper.start = offset;
    seg->end = offset;
    insert_at(sb, i + 1, &upper);
}

/* Splits entries at both ends of [left, right) and returns the index of
 * the first entry inside it; the entries inside follow while their start is
 * below right. */
static unsigned isolate_range(tapo_scoreboard *sb, int64_t left, int64_t right)
{
    split_at(sb, left);
    split_at(sb, right);
    return first_ending_after(sb, left);
}

#define INSIDE(sb, j, right) ((j) < (sb)->count && SEG((sb), (j))->start < (right))

/* Merges runs of entries sent once and never SACKed; forgets the oldest half
 * if the bound still holds.  See the header for why. */
static void enforce_bound(tapo_scoreboard *sb)
{
    if (tapo_sb_size(sb) <= TAPO_SB_MAX_SEGMENTS)
        return;
    unsigned out = 0;
    for (unsigned i = 0; i < sb->count; i++) {
        tapo_segment *cur = SEG(sb, i);
        if (out > 0) {
            tapo_segment *prev = SEG(sb, out - 1);
            bool pristine = prev->tx_count == 1 && cur->tx_count == 1 && prev->seen && cur->seen &&
                            !prev->sacked && !cur->sacked && !prev->dsacked && !cur->dsacked;
            if (pristine && prev->end == cur->start) {
                prev->end = cur->end;   /* keeps the earlier transmission time */
                continue;
            }
        }
        *SEG(sb, out++) = *cur;
    }
    sb->count = out;
    if (out > TAPO_SB_MAX_SEGMENTS)
        drop_first(sb, out / 2);
}

void tapo_sb_append(tapo_scoreboard *sb, int64_t start, int64_t end, tapo_tx_time when,
                    uint64_t tx_order, uint64_t dupacks, bool seen)
{
    if (end <= start)
        return;
    tapo_segment seg = {
        .start = start, .end = end, .tx_count = 1, .last_tx_order = tx_order,
        .dupacks_at_last_tx = dupacks, .last_tx_s = when.sent_s, .last_seen_s = when.seen_s,
        .first_retx = TAPO_TRIGGER_NONE,
        .orig_frame = when.frame,
        .seen = seen,
    };
    insert_at(sb, sb->count, &seg);
    enforce_bound(sb);
}

void tapo_sb_describe(const tapo_scoreboard *sb, int64_t start, int64_t end, uint32_t mss,
                      uint64_t dupacks_now, tapo_sb_desc *desc)
{
    memset(desc, 0, sizeof *desc);
    desc->first_retx = TAPO_TRIGGER_NONE;
    unsigned n = tapo_sb_size(sb);
    unsigned i = first_ending_after(sb, start);
    if (i >= n || SEG(sb, i)->start >= end) {
        /* Sent before the capture began: every SACK above it is a signal. */
        for (unsigned j = i; j < n; j++)
            if (SEG(sb, j)->sacked)
                desc->sacked_sent_after += tapo_segments(SEG(sb, j)->end - SEG(sb, j)->start, mss);
        return;
    }
    const tapo_segment *lowest = SEG(sb, i);
    desc->found = true;
    desc->unseen = true;
    desc->dsacked = true;
    desc->dsack_frame = lowest->dsack_frame;
    desc->all_seen = true;
    desc->all_arrived = true;
    desc->last_tx_s = lowest->last_tx_s;
    desc->dupacks_since = dupacks_now - lowest->dupacks_at_last_tx;
    desc->orig_frame = lowest->orig_frame;
    desc->signal_frame = lowest->signal_frame;
    for (unsigned j = i; j < n && SEG(sb, j)->start < end; j++) {
        const tapo_segment *seg = SEG(sb, j);
        if (seg->tx_count > desc->prior_tx_max)
            desc->prior_tx_max = seg->tx_count;
        if (desc->first_retx == TAPO_TRIGGER_NONE) {
            desc->first_retx = seg->first_retx;
            desc->first_retx_frame = seg->first_retx_frame;
        }
        desc->dsacked = desc->dsacked && seg->dsacked;
        desc->unseen = desc->unseen && !seg->seen;
        desc->all_seen = desc->all_seen && seg->seen;
        desc->all_arrived = desc->all_arrived && seg->arrived;
        if (seg->last_seen_s > desc->latest_seen_s)
            desc->latest_seen_s = seg->last_seen_s;
    }
    /* Loss signals for the lowest entry: later transmissions that arrived
     * (RFC 6675 counts SACKed segments above a hole; like RACK we only count
     * those sent after the hole's last transmission). */
    for (unsigned j = i + 1; j < n; j++) {
        const tapo_segment *seg = SEG(sb, j);
        if (seg->sacked && seg->last_tx_order > lowest->last_tx_order)
            desc->sacked_sent_after += tapo_segments(seg->end - seg->start, mss);
    }
}

void tapo_sb_mark_arrived(tapo_scoreboard *sb, int64_t start, int64_t end)
{
    if (end <= start || tapo_sb_size(sb) == 0)
        return;
    for (unsigned j = isolate_range(sb, start, end); INSIDE(sb, j, end); j++)
        SEG(sb, j)->arrived = true;
}

void tapo_sb_retransmit(tapo_scoreboard *sb, int64_t start, int64_t end, tapo_trigger first_trigger,
                        uint32_t lost_before, tapo_tx_time when, uint64_t tx_order, uint64_t dupacks)
{
    if (end <= start || tapo_sb_size(sb) == 0)
        return;
    for (unsigned j = isolate_range(sb, start, end); INSIDE(sb, j, end); j++) {
        tapo_segment *seg = SEG(sb, j);
        seg->tx_count += 1 + lost_before;
        seg->last_tx_order = tx_order;
        seg->last_tx_s = when.sent_s;
        seg->last_seen_s = when.seen_s;
        seg->dupacks_at_last_tx = dupacks;
        seg->seen = true;
        if (seg->first_retx_order == 0) {
            seg->first_retx_order = tx_order;
            seg->first_retx = first_trigger;
            /* Earlier retransmissions lost before the capture point were the first. */
            seg->first_retx_frame = lost_before ? 0 : when.frame;
        }
    }
    enforce_bound(sb);
}

static void remember_acked_retx(tapo_scoreboard *sb, const tapo_segment *seg)
{
    if (!sb->history)
        sb->history = g_new0(tapo_acked_retx, TAPO_SB_HISTORY);
    sb->history[tapo_ring_push(&sb->history_ring, TAPO_SB_HISTORY)] =
        (tapo_acked_retx){ seg->start, seg->end, seg->first_retx_order, seg->tx_count, seg->dsack_frame,
                           seg->dsacked };
}

/* Bookkeeping shared by cumulative ACKs and SACKs for one newly delivered
 * entry: Karn's rule, the earliest transmission for an RTT sample, reordering
 * (an entry sent once that arrives below already-SACKed data), and the
 * listener. */
static void note_delivered(tapo_scoreboard *sb, const tapo_segment *seg, uint32_t mss,
                           const tapo_sb_listener *listener, tapo_sb_feedback *fb)
{
    fb->newly_delivered += seg->end - seg->start;
    if (seg->tx_count > 1) {
        fb->retransmitted_delivered = true;
    } else if (seg->seen) {
        if (!fb->earliest_tx.known || seg->last_tx_s < fb->earliest_tx.s) {
            fb->earliest_tx = tapo_opt_s_of(seg->last_tx_s);
            fb->earliest_seen_s = seg->last_seen_s;
        }
        if (sb->highest_sacked > seg->end) {
            uint32_t degree = tapo_segments(sb->highest_sacked - seg->start, mss);
            if (degree > fb->reordering)
                fb->reordering = degree;
        }
    }
    if (listener && listener->delivered)
        listener->delivered(listener->ctx, seg->start, seg->end, seg->last_tx_order);
}

static void feedback_init(tapo_sb_feedback *fb)
{
    memset(fb, 0, sizeof *fb);
    fb->earliest_tx = tapo_opt_s_none();
}

void tapo_sb_ack(tapo_scoreboard *sb, int64_t ack, uint32_t mss,
                 const tapo_sb_listener *listener, tapo_sb_feedback *fb)
{
    feedback_init(fb);
    if (tapo_sb_size(sb) == 0)
        return;
    split_at(sb, ack);
    unsigned gone = 0;
    while (gone < sb->count && SEG(sb, gone)->end <= ack) {
        tapo_segment *seg = SEG(sb, gone);
        if (!seg->sacked)
            note_delivered(sb, seg, mss, listener, fb);
        if (seg->tx_count > 1) {
            /* Karn as Linux applies it: retransmitted data acknowledged,
             * SACKed before or not, forbids the ACK's sample. */
            fb->retransmitted_delivered = true;
            remember_acked_retx(sb, seg);
        }
        gone++;
    }
    drop_first(sb, gone);
}

void tapo_sb_sack(tapo_scoreboard *sb, int64_t left, int64_t right, uint32_t mss,
                  const tapo_sb_listener *listener, tapo_sb_feedback *fb)
{
    feedback_init(fb);
    if (right <= left || tapo_sb_size(sb) == 0)
        return;
    for (unsigned j = isolate_range(sb, left, right); INSIDE(sb, j, right); j++) {
        tapo_segment *seg = SEG(sb, j);
        if (seg->sacked)
            continue;
        seg->sacked = true;
        note_delivered(sb, seg, mss, listener, fb);
    }
    int64_t top = MIN(right, SEG(sb, sb->count - 1)->end);
    if (top > sb->highest_sacked)
        sb->highest_sacked = top;
    enforce_bound(sb);
}

static void report_duplicate(const tapo_sb_listener *listener, int64_t start, int64_t end,
                             uint64_t first_retx_order, uint32_t mss)
{
    if (listener && listener->duplicated)
        listener->duplicated(listener->ctx, start, end, first_retx_order,
                             tapo_segments(end - start, mss));
}

void tapo_sb_dsack(tapo_scoreboard *sb, int64_t left, int64_t right, uint32_t mss, uint32_t frame,
                   const tapo_sb_listener *listener)
{
    if (right <= left)
        return;
    for (unsigned k = 0; sb->history && k < sb->history_ring.count; k++) {
        tapo_acked_retx *old = &sb->history[k];
        if (old->dsacked || old->end <= left || old->start >= right)
            continue;
        old->dsacked = true;
        old->dsack_frame = frame;
        report_duplicate(listener, old->start, old->end, old->first_retx_order, mss);
    }
    if (tapo_sb_size(sb) == 0)
        return;
    for (unsigned j = isolate_range(sb, left, right); INSIDE(sb, j, right); j++) {
        tapo_segment *seg = SEG(sb, j);
        if (seg->dsacked)
            continue;
        seg->dsacked = true;
        seg->dsack_frame = frame;
        report_duplicate(listener, seg->start, seg->end, seg->first_retx_order, mss);
    }
}

void tapo_sb_signal(tapo_scoreboard *sb, int64_t below, uint32_t frame)
{
    if (below <= sb->signalled_below || tapo_sb_size(sb) == 0)
        return;
    /* Signals only move up the window: each entry is visited once. */
    for (unsigned j = first_ending_after(sb, sb->signalled_below); INSIDE(sb, j, below); j++) {
        tapo_segment *seg = SEG(sb, j);
        if (!seg->sacked && seg->signal_frame == 0)
            seg->signal_frame = frame;
    }
    sb->signalled_below = below;
}

void tapo_sb_count(const tapo_scoreboard *sb, uint32_t mss, tapo_sb_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    for (unsigned j = 0; j < tapo_sb_size(sb); j++) {
        const tapo_segment *seg = SEG(sb, j);
        uint32_t n = tapo_segments(seg->end - seg->start, mss);
        if (seg->sacked) {
            counts->sacked_out += n;
            continue;
        }
        if (seg->end <= sb->highest_sacked)
            counts->holes += n;
        if (seg->tx_count > 1) {
            counts->retrans_out += n;
            if (!seg->dsacked)
                counts->lost_out += n;
        }
    }
}

uint32_t tapo_sb_acked_transmissions(const tapo_scoreboard *sb, int64_t start, int64_t end)
{
    uint32_t most = 1;
    for (unsigned k = 0; sb->history && k < sb->history_ring.count; k++) {
        const tapo_acked_retx *old = &sb->history[k];
        if (old->start < end && start < old->end && old->tx_count > most)
            most = old->tx_count;
    }
    return most;
}
