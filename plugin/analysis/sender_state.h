/* sender_state.h: one endpoint's transmission, reconstructed from a capture
 * (paper Table 2, spec section 2).
 *
 * A conversation keeps one tapo_sender per endpoint.  Each sees its own
 * packets through tapo_sender_on_send() and its peer's through
 * tapo_sender_on_receive() (ACKs, SACKs, windows, requests).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SENDER_STATE_H
#define TAPO_SENDER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "hindsight.h"
#include "packet_input.h"
#include "rtt_estimator.h"
#include "scoreboard.h"
#include "seqspace.h"
#include "stall.h"

typedef struct tapo_sender {
    tapo_seqspace seq;            /* this endpoint's sequence space */
    bool anchored;                /* snd_una and snd_nxt hold real values */
    bool syn_sent;                /* this endpoint sent a SYN or SYN-ACK */
    int64_t snd_una;              /* highest cumulative ACK from the peer, stream offset */
    int64_t snd_nxt;              /* one past the highest byte sent, stream offset */
    int64_t data_start;           /* stream offset of the first payload byte */
    tapo_scoreboard sb;
    tapo_rtt rtt;
    tapo_hindsight hs;
    tapo_ca_state ca_state;
    int64_t recovery_point;       /* snd_nxt when Recovery or Loss began, stream offset */
    uint32_t dupthres;            /* duplicate-ACK threshold, segments */
    uint64_t dupacks;             /* duplicate ACKs received, running count */
    uint64_t dupacks_at_advance;  /* value of dupacks when snd_una last advanced */
    uint64_t tx_order;            /* transmissions sent, running count */
    uint32_t rwnd;                /* peer's last advertised window, bytes */
    bool rwnd_seen;               /* rwnd holds a real value */
    bool rwnd_scale_known;        /* rwnd was scaled correctly */
    uint32_t init_rwnd;           /* peer's window in its SYN or SYN-ACK, bytes; 0 unknown */
    uint32_t mss_option_min;      /* smallest MSS option seen either way, bytes; 0 none */
    uint32_t largest_segment;     /* largest payload sent, bytes */
    bool request_pending;         /* the peer sent payload after our last payload */
    bool sent_payload;            /* we sent payload at least once */
    bool last_new_hints_more;     /* our highest new-data segment was full-sized or used up the window */
    bool sack_seen;               /* the peer has sent SACK blocks */
    bool fin_sent;                /* this endpoint sent its FIN */
    uint64_t payload_bytes;       /* new payload bytes sent */
} tapo_sender;

/* What one of the sender's own packets was. */
typedef enum {
    TAPO_TX_NONE,                 /* pure ACK or unreadable header */
    TAPO_TX_NEW,                  /* only new data */
    TAPO_TX_RETRANSMISSION,       /* resends data (possibly with some new data) */
    TAPO_TX_WINDOW_PROBE          /* keep-alive or zero-window probe */
} tapo_tx_kind;

typedef struct tapo_tx_info {
    tapo_tx_kind kind;
    bool handshake;               /* a SYN or SYN-ACK */
    bool new_data;                /* some bytes were beyond snd_nxt */
    int64_t retx_start;           /* retransmitted range, stream offsets */
    int64_t retx_end;
    uint32_t retrans_count;       /* retransmissions of the range, this one included */
    tapo_trigger first_retrans;
    tapo_trigger trigger;
    bool already_duplicated;      /* a DSACK had already reported the range */
    uint32_t segs_sent_after;     /* segments above the retransmitted range */
    uint64_t data_offset;         /* payload bytes before the packet's first byte */
} tapo_tx_info;

void tapo_sender_init(tapo_sender *s, const tapo_config *cfg);
void tapo_sender_destroy(tapo_sender *s);

/* Effective MSS for segment counts, bytes. */
uint32_t tapo_sender_mss(const tapo_sender *s);

/* The stall threshold for this sender, seconds. */
double tapo_sender_threshold(const tapo_sender *s, const tapo_config *cfg);

/* Fills the state part of a snapshot and the facts known now. */
void tapo_sender_snapshot(const tapo_sender *s, tapo_snapshot *snap, tapo_facts *facts);

/* The sender's own packet; gap_s and threshold_s tell whether it ends a
 * silence (timer-driven retransmissions do). */
void tapo_sender_on_send(tapo_sender *s, const tapo_packet *p, double gap_s,
                         double threshold_s, tapo_tx_info *tx);

/* A packet from the peer. */
void tapo_sender_on_receive(tapo_sender *s, const tapo_packet *p, const tapo_config *cfg);

/* Frees the per-flow containers once the connection is over; the sender
 * stays usable and reallocates them if more packets come. */
void tapo_sender_release(tapo_sender *s);

#endif /* TAPO_SENDER_STATE_H */
