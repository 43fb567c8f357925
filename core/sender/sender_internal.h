/* sender_internal.h: what the parts of the sender state share
 * (sender_state.c, sender_send.c, sender_receive.c); nothing outside them
 * includes it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SENDER_INTERNAL_H
#define TAPO_SENDER_INTERNAL_H

#include "sender/sender_state.h"

/* What moves ca_state (paper Figure 4, Linux's tcp_fastretrans_alert). */
typedef enum {
    TAPO_CA_EVENT_LOSS_SIGNAL,        /* a duplicate ACK or a newly SACKed segment */
    TAPO_CA_EVENT_FAST_RETRANSMIT,
    TAPO_CA_EVENT_TIMEOUT,            /* a retransmission by the RTO */
    TAPO_CA_EVENT_ACK_ADVANCED        /* snd_una moved */
} tapo_ca_event;

/* Every change of ca_state passes here. */
void tapo_ca_on_event(tapo_sender *s, tapo_ca_event event);

/* A retransmission with this trigger. */
void tapo_ca_on_retransmission(tapo_sender *s, tapo_trigger trigger);

/* A request of the peer's is pending, starting at p (its payload or SYN;
 * NULL: a payload the capture never saw). */
void tapo_sender_request_from(tapo_sender *s, const tapo_packet *p);

/* An MSS option seen either way. */
void tapo_sender_note_mss_option(tapo_sender *s, uint16_t mss_option);

/* A segment of payload_len bytes sent. */
void tapo_sender_note_segment(tapo_sender *s, uint32_t payload_len);

/* The scoreboard's description of [lo, hi), completed for data sent before
 * the capture began (no entry): then every duplicate ACK since snd_una last
 * moved is a loss signal for it. */
void tapo_sender_describe_range(const tapo_sender *s, int64_t lo, int64_t hi, tapo_sb_desc *desc);

/* The cumulative ACK advance the capture saw first cover offset, unless
 * that was too long ago to remember (NULL). */
const tapo_una_advance *tapo_sender_acked_by(const tapo_sender *s, int64_t offset);

/* p starts exactly at the peer's latest far ACK (more than any window
 * ahead of the data seen, sender_receive.c): both ends agree that the
 * capture missed the data in between (rejoin_after_gap, sender_send.c). */
static inline bool tapo_sender_at_far_ack(const tapo_sender *s, const tapo_packet *p)
{
    return s->far_ack_seen && p->seq_raw == s->far_ack_raw;
}

#endif /* TAPO_SENDER_INTERNAL_H */
