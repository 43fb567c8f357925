/* capture_quirks.c: see capture_quirks.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "packet/capture_quirks.h"

#include <math.h>

/* One step of a 64-bit mix (the finaliser of SplitMix64). */
static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

tapo_seen_packet tapo_seen(const tapo_packet *p)
{
    tapo_seen_packet s = {
        .time_s = p->time_s, .seq_raw = p->seq_raw, .ack_raw = p->ack_raw, .payload_len = p->payload_len,
        .window = p->window, .ip_id = p->ip_id, .flags = p->flags, .from = (uint8_t)p->from,
        .sack_count = p->sack_count,
    };
    for (unsigned i = 0; i < p->sack_count && i < TAPO_MAX_SACK_BLOCKS; i++)
        s.sack_digest = mix(s.sack_digest, (uint64_t)p->sack_left_raw[i] << 32 | p->sack_right_raw[i]);
    return s;
}

static bool same_header(const tapo_seen_packet *a, const tapo_seen_packet *b)
{
    return a->seq_raw == b->seq_raw && a->ack_raw == b->ack_raw && a->payload_len == b->payload_len &&
           a->window == b->window && a->ip_id == b->ip_id && a->flags == b->flags && a->from == b->from &&
           a->sack_count == b->sack_count && a->sack_digest == b->sack_digest;
}

/* Whether some recent packet has p's sequence and acknowledgement numbers,
 * which a copy repeats: most packets differ from all in one comparison
 * each, without the rest of the check. */
static bool numbers_seen(const tapo_capture_quirks *q, const tapo_seen_packet *p)
{
    bool seen = false;
    for (unsigned k = 0; k < q->ring.count; k++)
        seen |= q->recent[k].seq_raw == p->seq_raw && q->recent[k].ack_raw == p->ack_raw;
    return seen;
}

bool tapo_quirks_is_duplicate(const tapo_capture_quirks *q, const tapo_seen_packet *p)
{
    if (!numbers_seen(q, p))
        return false;
    bool occupies = p->payload_len > 0 || (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN));
    bool peer_since = false;   /* a packet of the other endpoint came after the one compared */
    for (unsigned k = 0; k < q->ring.count; k++) {
        const tapo_seen_packet *seen = &q->recent[tapo_ring_newest(&q->ring, TAPO_RECENT_PACKETS, k)];
        double window = p->ip_id ? TAPO_DUPLICATE_WINDOW_ID_S
                      : occupies && !peer_since ? TAPO_DUPLICATE_WINDOW_UNANSWERED_S : TAPO_DUPLICATE_WINDOW_S;
        if (same_header(seen, p) && fabs(p->time_s - seen->time_s) < window)
            return true;
        peer_since = peer_since || seen->from != p->from;
    }
    return false;
}

void tapo_quirks_note_time(tapo_capture_quirks *q, const tapo_packet *p, tapo_conv_events *events)
{
    if (q->started && p->time_s < q->latest_time_s)
        events->time_backwards++;
    if (q->started && p->time_s - q->latest_time_s > TAPO_CLOCK_JUMP_S)
        events->time_jumps++;
    if (!q->started || p->time_s > q->latest_time_s) {
        float step = (float)(p->time_s - q->latest_time_s);
        if (q->started && (q->tick_s == 0.0f || step < q->tick_s))
            q->tick_s = step;
        q->latest_time_s = p->time_s;
    }
    q->started = true;
}

void tapo_quirks_remember(tapo_capture_quirks *q, const tapo_seen_packet *p)
{
    q->recent[tapo_ring_push(&q->ring, TAPO_RECENT_PACKETS)] = *p;
}
