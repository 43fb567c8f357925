/* capture_quirks.c: see capture_quirks.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "capture_quirks.h"

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

uint64_t tapo_packet_fingerprint(const tapo_packet *p)
{
    uint64_t h = mix((uint64_t)p->seq_raw << 32 | p->ack_raw, (uint64_t)p->payload_len << 32 | p->window);
    h = mix(h, (uint64_t)p->from << 40 | (uint64_t)p->flags << 24 | (uint64_t)p->ip_id << 8 | p->sack_count);
    for (unsigned i = 0; i < p->sack_count && i < TAPO_MAX_SACK_BLOCKS; i++)
        h = mix(h, (uint64_t)p->sack_left_raw[i] << 32 | p->sack_right_raw[i]);
    return h;
}

bool tapo_quirks_is_duplicate(const tapo_capture_quirks *q, const tapo_packet *p, uint64_t fingerprint)
{
    double window = p->ip_id ? TAPO_DUPLICATE_WINDOW_ID_S : TAPO_DUPLICATE_WINDOW_S;
    for (unsigned k = 0; k < q->ring.count; k++) {
        const tapo_seen_packet *seen = &q->recent[k];
        if (seen->fingerprint == fingerprint && fabs(p->time_s - seen->time_s) < window)
            return true;
    }
    return false;
}

void tapo_quirks_note_time(tapo_capture_quirks *q, const tapo_packet *p, tapo_conv_events *events)
{
    if (q->started && p->time_s < q->latest_time_s)
        events->time_backwards++;
    if (q->started && p->time_s - q->latest_time_s > TAPO_CLOCK_JUMP_S)
        events->time_jumps++;
    if (!q->started || p->time_s > q->latest_time_s)
        q->latest_time_s = p->time_s;
    q->started = true;
}

void tapo_quirks_remember(tapo_capture_quirks *q, const tapo_packet *p, uint64_t fingerprint)
{
    q->recent[tapo_ring_push(&q->ring, TAPO_RECENT_PACKETS)] = (tapo_seen_packet){ p->time_s, fingerprint };
}
