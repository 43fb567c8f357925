/* hindsight.c: revising stall facts with what later packets show.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "record/hindsight.h"

#include <string.h>

#define TRACKER(hs, i) (&g_array_index((hs)->open, tapo_tracker, (i)))

static void watch(tapo_facts *facts)
{
    if (facts)
        facts->watchers++;
}

static void unwatch(tapo_facts *facts)
{
    if (facts && facts->watchers > 0)
        facts->watchers--;
}

static void close_tracker(tapo_hindsight *hs, unsigned i)
{
    unwatch(TRACKER(hs, i)->facts);
    g_array_remove_index(hs->open, i);
}

static void close_gap_watch(tapo_hindsight *hs)
{
    unwatch(hs->gap.facts);
    hs->gap = (tapo_gap_watch){ 0 };
}

void tapo_hs_init(tapo_hindsight *hs)
{
    hs->open = NULL;
    hs->gap = (tapo_gap_watch){ 0 };
}

void tapo_hs_destroy(tapo_hindsight *hs)
{
    for (unsigned i = tapo_hs_open_count(hs); i-- > 0;)
        close_tracker(hs, i);
    if (hs->open)
        g_array_free(hs->open, TRUE);
    hs->open = NULL;
    close_gap_watch(hs);
}

unsigned tapo_hs_open_count(const tapo_hindsight *hs)
{
    return hs->open ? hs->open->len : 0;
}

void tapo_hs_open(tapo_hindsight *hs, tapo_facts *facts, int64_t una0, int64_t nxt0,
                  uint64_t mark_order, bool window_closed)
{
    if (!hs->open)
        hs->open = g_array_sized_new(FALSE, FALSE, sizeof(tapo_tracker), 4);
    if (hs->open->len >= TAPO_HINDSIGHT_MAX_OPEN)
        close_tracker(hs, 0);   /* the oldest keeps what was learned so far */
    tapo_tracker t = {
        .facts = facts, .una0 = una0, .nxt0 = nxt0, .cur_start = 0, .cur_end = 0,
        .mark_order = mark_order, .awaiting_more_data = true, .awaiting_window = window_closed,
        .acked = tapo_opt_s_none(),
    };
    g_array_append_val(hs->open, t);
    watch(facts);
}

void tapo_hs_forget(tapo_hindsight *hs, const tapo_facts *facts)
{
    for (unsigned i = tapo_hs_open_count(hs); i-- > 0;)
        if (TRACKER(hs, i)->facts == facts)
            close_tracker(hs, i);
    if (hs->gap.facts == facts)
        close_gap_watch(hs);
}

void tapo_hs_cur(tapo_hindsight *hs, int64_t start, int64_t end, const tapo_cur_reveals *r)
{
    unsigned n = tapo_hs_open_count(hs);
    if (n == 0)
        return;
    tapo_tracker *t = TRACKER(hs, n - 1);
    t->cur_start = start;
    t->cur_end = end;
    t->cur_has_ts = r->has_ts;
    t->cur_tsval = r->tsval;
    t->arrival_unanswered = r->arrival_unanswered;
    t->arrived_frame = r->arrived_frame;
    tapo_facts_add_cur(t->facts, r);
}

/* cur is proven unnecessary now (how, by which frame). */
static void prove_spurious(tapo_tracker *t, tapo_spurious_proof how, uint32_t frame)
{
    if (t->facts->cur_spurious)
        return;
    t->facts->cur_spurious = true;
    t->facts->spurious_proof = how;
    t->facts->proof_frame = frame;
    if (how == TAPO_PROOF_DSACK)
        t->facts->dsack_frame = frame;
}

void tapo_hs_peer_answered(tapo_hindsight *hs, tapo_opt_offset acked)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        if (!t->arrival_unanswered)
            continue;
        if (!tapo_ack_stops_inside(acked, t->cur_start, t->cur_end))
            prove_spurious(t, TAPO_PROOF_ARRIVED, t->arrived_frame);
        t->arrival_unanswered = false;
    }
}

/* Answers "did the sender have more data?" for every tracker still asking. */
static void settle_more_data(tapo_hindsight *hs, bool had_more_data)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        if (t->awaiting_more_data) {
            t->facts->had_more_data = had_more_data;
            t->awaiting_more_data = false;
        }
    }
}

/* Answers "did the sender answer after its bare ACK?" for every tracker
 * still asking: payload at t_s (capture time) answers when sent at once,
 * before a gap that would be a stall of its own. */
static void settle_answered(tapo_hindsight *hs, bool payload, double t_s)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        if (t->awaiting_answer) {
            t->facts->answered = payload;
            t->facts->answered_at_once = payload && t_s <= t->at_once_by_s;
            t->awaiting_answer = false;
        }
    }
}

/* Answers "was the sender closing?" for every tracker still asking: a FIN
 * (at t_s, capture time) closes with cur when sent at once after it. */
static void settle_closing(tapo_hindsight *hs, bool fin, double t_s)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        if (t->awaiting_close) {
            t->facts->closing = fin && t_s <= t->at_once_by_s;
            t->awaiting_close = false;
        }
    }
}

void tapo_hs_cur_sent(tapo_hindsight *hs, bool fin, bool bare_ack, double close_by_s)
{
    unsigned n = tapo_hs_open_count(hs);
    if (n == 0)
        return;
    tapo_tracker *t = TRACKER(hs, n - 1);
    t->facts->closing = fin;
    t->awaiting_close = !fin;
    t->at_once_by_s = close_by_s;
    t->facts->answered = false;
    t->facts->answered_at_once = false;
    t->awaiting_answer = bare_ack;
}

void tapo_hs_cur_acked(tapo_hindsight *hs, double release_by_s)
{
    unsigned n = tapo_hs_open_count(hs);
    if (n == 0)
        return;
    tapo_tracker *t = TRACKER(hs, n - 1);
    t->facts->released = false;
    t->awaiting_release = true;
    t->at_once_by_s = release_by_s;
}

/* Answers "did the sender send new data at once after the peer's bare
 * ACK?" for every tracker still asking. */
static void settle_released(tapo_hindsight *hs, double t_s, bool new_data)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        if (t->awaiting_release) {
            t->facts->released = new_data && t_s <= t->at_once_by_s;
            t->awaiting_release = false;
        }
    }
}

void tapo_hs_transmitted(tapo_hindsight *hs, double t_s, bool new_data)
{
    settle_released(hs, t_s, new_data);
}

void tapo_hs_new_data(tapo_hindsight *hs, double t_s)
{
    settle_more_data(hs, true);
    settle_closing(hs, false, 0.0);
    settle_answered(hs, true, t_s);
}

void tapo_hs_fin(tapo_hindsight *hs, double t_s, bool answers_close)
{
    /* A FIN that answers the peer's FIN is the peer's close, not one the
     * sender's last data came with. */
    settle_closing(hs, !answers_close, t_s);
    settle_answered(hs, false, t_s);
}

void tapo_hs_response_ended(tapo_hindsight *hs)
{
    settle_more_data(hs, false);
}

void tapo_hs_request(tapo_hindsight *hs)
{
    settle_released(hs, 0.0, false);
    settle_more_data(hs, false);
    settle_closing(hs, false, 0.0);
}

void tapo_hs_bare_ack(tapo_hindsight *hs)
{
    settle_answered(hs, false, 0.0);
}

static bool overlaps(int64_t a_start, int64_t a_end, int64_t b_start, int64_t b_end)
{
    return a_start < b_end && b_start < a_end;
}

void tapo_hs_delivered(tapo_hindsight *hs, int64_t start, int64_t end, uint64_t last_tx_order)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        /* A copy sent before the stall arrived: that segment was not lost. */
        if (last_tx_order <= t->mark_order && overlaps(start, end, t->una0, t->nxt0))
            t->facts->outstanding_all_lost = false;
    }
}

void tapo_hs_resent(tapo_hindsight *hs, int64_t start, int64_t end)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        if (overlaps(start, end, t->cur_start, t->cur_end))
            t->cur_resent = true;
        if (t->awaiting_chain && start <= t->chain_head && t->chain_head < end) {
            t->facts->chain_went_on = true;
            t->awaiting_chain = false;
        }
    }
}

void tapo_hs_cur_gave_up(tapo_hindsight *hs, int64_t head)
{
    unsigned n = tapo_hs_open_count(hs);
    if (n == 0)
        return;
    tapo_tracker *t = TRACKER(hs, n - 1);
    t->awaiting_chain = true;
    t->chain_head = head;
}

void tapo_hs_duplicated(tapo_hindsight *hs, int64_t start, int64_t end,
                        uint64_t first_retx_order, uint32_t segments, uint32_t frame)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        /* A D-SACK reports the arrival of a duplicate: the latest copy sent
         * before it.  Once cur's range was sent again, the duplicate may
         * be that later copy, and cur the one that filled the hole (RFC
         * 2883 reports a duplicate, not which copy came first). */
        if (!t->cur_resent && overlaps(start, end, t->cur_start, t->cur_end) && !t->facts->dsack_frame) {
            /* Spurious once D-SACKs have reported all of it: one that
             * reports a part says the rest filled a real hole. */
            if (t->dup_end > t->dup_start && start <= t->dup_end && end >= t->dup_start) {
                t->dup_start = start < t->dup_start ? start : t->dup_start;
                t->dup_end = end > t->dup_end ? end : t->dup_end;
            } else {
                t->dup_start = start;
                t->dup_end = end;
            }
            if (t->dup_start <= t->cur_start && t->dup_end >= t->cur_end) {
                /* Linked even where another proof came first. */
                t->facts->dsack_frame = frame;
                prove_spurious(t, TAPO_PROOF_DSACK, frame);
            }
        }
        if (!overlaps(start, end, t->una0, t->nxt0))
            continue;
        t->facts->outstanding_all_lost = false;
        /* Counted in lost_out at the stall's start, now shown not lost. */
        if (first_retx_order != 0 && first_retx_order <= t->mark_order)
            t->facts->lost_out = t->facts->lost_out > segments ? t->facts->lost_out - segments : 0;
    }
}

void tapo_hs_window_opened(tapo_hindsight *hs, uint32_t frame)
{
    for (unsigned i = 0; i < tapo_hs_open_count(hs); i++) {
        tapo_tracker *t = TRACKER(hs, i);
        if (t->awaiting_window) {
            t->facts->window_open_frame = frame;
            t->awaiting_window = false;
        }
    }
}

void tapo_hs_acked(tapo_hindsight *hs, int64_t snd_una, double now_s, double rto_s, const tapo_ack_echo *echo)
{
    unsigned i = 0;
    while (i < tapo_hs_open_count(hs)) {
        tapo_tracker *t = TRACKER(hs, i);
        /* Eifel (RFC 3522): the first ACK of a resent range echoes the
         * copy's TSval when the copy filled the hole, an older one when an
         * earlier copy had arrived already (a duplicate does not update
         * the receiver's TS.Recent, RFC 7323 4.3). */
        bool covers_cur = t->cur_end > t->cur_start && snd_una >= t->cur_end;
        if (covers_cur && !t->cur_acked) {
            t->cur_acked = true;
            if (t->cur_has_ts && echo->has_ts && (int32_t)(t->cur_tsval - echo->tsecr) > 0)
                prove_spurious(t, TAPO_PROOF_ECHO, echo->frame);
        }
        if (t->awaiting_release && now_s > t->at_once_by_s) {
            t->facts->released = false;   /* nothing came at once */
            t->awaiting_release = false;
        }
        if (!t->acked.known && snd_una >= t->nxt0 && snd_una >= t->cur_end)
            t->acked = tapo_opt_s_of(now_s);
        /* DSACKs for the window arrive about one RTT after its last copy;
         * wait a couple of RTOs beyond the cumulative ACK. */
        bool dsack_window_over = t->acked.known &&
                                 now_s - t->acked.s > TAPO_HINDSIGHT_GRACE_RTOS * rto_s;
        if (dsack_window_over && !t->awaiting_more_data && !t->awaiting_window && !t->awaiting_close &&
            !t->awaiting_answer && !t->awaiting_release)
            close_tracker(hs, i);
        else
            i++;
    }
}

void tapo_hs_watch_gap(tapo_hindsight *hs, tapo_facts *facts, double from_s, double to_s,
                       double threshold_s, double end_seen_s)
{
    close_gap_watch(hs);
    hs->gap = (tapo_gap_watch){ facts, from_s, to_s, threshold_s, end_seen_s };
    watch(facts);
}

void tapo_hs_gap_busy(tapo_hindsight *hs)
{
    if (!hs->gap.facts || !hs->gap.facts->far_ack)
        return;
    hs->gap.facts->revoked = true;
    close_gap_watch(hs);
}

void tapo_hs_sent_at(tapo_hindsight *hs, double t_s, uint32_t frame, double margin_s, tapo_opt_s unheard_from_s)
{
    tapo_gap_watch *w = &hs->gap;
    /* A sender never resends what it knows acknowledged: a copy of data
     * that the watched gap's receiver packet (or one before it)
     * acknowledged left before that packet reached the sender, however
     * the two were placed.  Its silence ended with the copy (the copy's
     * own stall), and what the receiver packet ended was no longer it. */
    if (w->facts && unheard_from_s.known && w->end_seen_s >= unheard_from_s.s && t_s > w->from_s) {
        w->facts->revoked = true;
        close_gap_watch(hs);
        return;
    }
    if (w->facts && t_s >= w->to_s) {
        close_gap_watch(hs);   /* a sender's packets leave in order: none later falls inside */
        return;
    }
    /* One that lands just before the receiver packet may answer it. */
    if (!w->facts || t_s <= w->from_s || t_s >= w->to_s - margin_s)
        return;
    double gap = w->to_s - t_s;
    if (gap > w->threshold_s) {
        w->facts->duration_s = gap;
        w->facts->prev_frame = frame;
        w->from_s = t_s;
    } else {
        w->facts->revoked = true;
    }
}
