/* sender_state.h: one endpoint's transmission, reconstructed from a capture
 * (paper Table 2, spec section 2).
 *
 * Each endpoint of a connection has one (endpoint.h).  It sees its own
 * packets through tapo_sender_on_send() and its peer's through
 * tapo_sender_on_receive() (ACKs, SACKs, windows, requests).  Times are on
 * the sender's own timeline (sender_clock.h): the connection tells when
 * each of its packets was sent; its peer's packets count at their capture
 * time.  Where the capture is at the sender the two are the same.
 *
 * The fields below are this module's own: everything else asks through
 * the functions at the end of this header.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SENDER_STATE_H
#define TAPO_SENDER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "record/hindsight.h"
#include "base/optional.h"
#include "packet/packet_input.h"
#include "base/ring.h"
#include "sender/scoreboard.h"
#include "base/seqspace.h"
#include "record/stall.h"

/* A peer ACK may acknowledge data the capture missed, but not absurdly much. */
#define TAPO_ACK_AHEAD_LIMIT ((int64_t)1 << 30)   /* bytes */
/* A segment may start above the data seen (the capture missed some), but
 * not beyond the largest window RFC 7323 allows: such a one is outside any
 * window the receiver offered, and no part of this stream. */
#define TAPO_SEQ_AHEAD_LIMIT ((int64_t)1 << 30)   /* bytes */
/* Cumulative ACK advances remembered, count: when data resent away from
 * the sender had been acknowledged (record_acked_resend). */
#define TAPO_UNA_HISTORY 8

/* Options such as timestamps make full segments a little shorter than the
 * MSS option (1448 for 1460): a segment within this share of it is full. */
#define TAPO_FULL_SEGMENT_SHARE 0.9

/* Copies of acknowledged data the sender sent again in a row (record_acked_resend). */
typedef struct tapo_resend_run {
    int64_t start, end;           /* the range, stream offsets */
    uint32_t copies;              /* count, 0: none yet */
    uint32_t first_frame;         /* the first copy's frame */
} tapo_resend_run;

/* The SACK state after one of the peer's ACKs, for a sender packet seen
 * away from the sender, sent before later ACKs reached it. */
#define TAPO_PEER_VIEWS 8
typedef struct tapo_peer_view {
    double seen_s;                /* when the capture saw the ACK, seconds */
    uint32_t tsval;
    uint32_t sacked_out;          /* segments SACKed after it */
    uint32_t holes;               /* segments */
    bool has_ts;                  /* it carried a TSval */
    bool counted;                 /* the counts were taken (the capture is away from the sender) */
} tapo_peer_view;

/* One advance of the cumulative ACK. */
typedef struct tapo_una_advance {
    int64_t to;                   /* snd_una after it, stream offset */
    double seen_s;                /* when the capture saw the ACK, seconds */
    uint32_t frame;               /* the ACK's frame */
    bool has_ts;                  /* the ACK carried a TSval */
    bool carried_data;            /* the ACK came with the peer's first copy of some data (or FIN)... */
    uint32_t tsval;               /* with has_ts: its TSval */
    uint32_t data_end_raw;        /* ...ending here (raw sequence number of the peer's space, FIN included) */
} tapo_una_advance;

typedef struct tapo_sender {
    tapo_seqspace seq;            /* this endpoint's sequence space */
    bool anchored;                /* snd_una and snd_nxt hold real values */
    bool syn_sent;                /* this endpoint sent a SYN or SYN-ACK */
    uint32_t isn_raw;             /* raw sequence number of that SYN; meaningful with syn_sent */
    int64_t snd_una;              /* highest cumulative ACK from the peer, stream offset */
    int64_t snd_nxt;              /* one past the highest byte seen sent, stream offset */
    double nxt_seen_s;            /* capture time of the packet that carried snd_nxt, seconds */
    bool una_late;                /* away from the sender: ACKs seen had not reached it (it resent acked data) */
    bool peer_data_unacked;       /* the peer sent payload since the sender's latest packet: it owes an ACK */
    bool request_known;           /* the capture saw where the pending request starts: */
    uint32_t request_seq_raw;     /* its first sequence number (raw, the peer's space) */
    int64_t una_at_sender;        /* with una_late: the sender's snd_una, stream offset */
    tapo_una_advance una_advances[TAPO_UNA_HISTORY]; /* recent snd_una advances (ring) */
    tapo_ring una_ring;
    tapo_peer_view peer_views[TAPO_PEER_VIEWS]; /* the SACK state after the peer's recent ACKs (ring) */
    tapo_ring view_ring;
    tapo_resend_run acked_resend; /* the latest resends of acknowledged data */
    double peer_last_seen_s;      /* when the capture saw the peer's latest packet, seconds; 0 none */
    tapo_opt_offset peer_last_ack; /* that packet's cumulative ACK, stream offset, when it carried one */
    double request_seen_s;        /* with request_known: when the capture saw that first byte, seconds */
    int64_t data_start;           /* stream offset of the first payload byte */
    uint32_t unseen_beyond;       /* segments sent above snd_nxt that never reached the capture point (inferred), segments */
    /* A hole the peer reported in data the capture never saw (a SACK block
     * above everything acknowledged and seen), kept in padding: */
    uint32_t unseen_hole_frame;   /* the peer's packet that first reported it; 0: none */
    tapo_scoreboard sb;
    tapo_hindsight hs;
    tapo_ca_state ca_state;
    uint32_t unseen_hole_sacked;  /* segments that packet SACKed above the hole, count */
    int64_t recovery_point;       /* snd_nxt when Recovery or Loss began, stream offset */
    uint32_t dupthres;            /* duplicate-ACK threshold, segments */
    uint32_t unseen_hole_ack_raw; /* the hole's start: the acknowledgement number of the packet that reported it */
    uint64_t dupacks;             /* duplicate ACKs received, running count */
    uint64_t dupacks_at_advance;  /* value of dupacks when snd_una last advanced */
    uint64_t tx_order_at_advance; /* value of tx_order then */
    uint64_t tx_order;            /* transmissions, seen or inferred, running count */
    double last_tx_s;             /* when the latest transmission seen was sent, sender time, seconds */
    double last_seen_s;           /* when the capture saw it, seconds */
    uint32_t rwnd;                /* peer's last advertised window, bytes */
    bool rwnd_seen;               /* rwnd holds a real value */
    bool rwnd_scale_known;        /* rwnd was scaled correctly */
    uint32_t window_closed_frame; /* peer packet that closed the window (below one MSS) still in force; 0 open */
    uint32_t init_rwnd;           /* peer's window in its SYN or SYN-ACK, bytes; 0 unknown */
    uint32_t mss_option_min;      /* smallest MSS option seen either way, bytes; 0 none */
    uint32_t largest_segment;     /* largest payload sent, bytes */
    uint32_t mss;                 /* the MSS segment counts use (tapo_sender_mss), bytes */
    bool request_pending;         /* the peer sent payload after our last payload */
    bool sent_payload;            /* we sent payload at least once */
    bool last_new_hints_more;     /* our highest new-data segment was full-sized or used up the window */
    bool sack_seen;               /* the peer has sent SACK blocks */
    bool fin_sent;                /* this endpoint sent its FIN */
    bool capture_missed;          /* the capture missed some of its data (the peer acknowledged data never seen, or a gap in the sequence at the sender) */
    bool far_ack_seen;            /* the peer acknowledged data more than any window ahead (ignored): */
    uint32_t far_ack_raw;         /* that acknowledgement number (raw) */
    uint64_t payload_bytes;       /* new payload bytes sent, the inferred ones included */
} tapo_sender;

/* What the connection knows about one of the sender's packets. */
typedef struct tapo_send_context {
    double send_time_s;           /* when the sender sent the packet, sender time, seconds (the capture time at the sender) */
    tapo_opt_s srtt;              /* the sender's estimates then, seconds (SRTT: unknown without a sample) */
    double rto_s;
    double rto_min_s;             /* the minimum RTO (preference), seconds */
    double silence_s;             /* sender time since the latest feedback it had received, seconds */
    double threshold_s;           /* stall threshold, seconds */
    double margin_s;              /* how precisely send_time_s places the packet, seconds */
    bool away;                    /* the capture point is not at the sender: its packets can be lost before it */
    bool at_receiver;             /* it is at the receiver: what it saw arrive, the receiver had */
    tapo_opt_count unseen_packets;/* sender packets never captured since the previous one seen (IP IDs) */
    uint32_t owed_acks;           /* the peer's packets since then that took sequence space: each may have had
                                   * an ACK among those unseen packets, count */
    bool request_on_way;          /* a request of the receiver's was still on its way to the sender: the packet crossed it and answers nothing */
    bool peer_closed;             /* the receiver's FIN had been seen: a FIN now answers its close */
} tapo_send_context;

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
    tapo_spurious_proof proof;    /* how the packets show the receiver had the range already; NONE: they do not */
    uint32_t proof_frame;         /* the frame that shows it */
    bool arrival_unanswered;      /* the capture at the receiver saw an earlier copy arrive, unanswered since (hindsight confirms it) */
    uint32_t arrived_frame;       /* then: that copy's frame; 0 not captured */
    bool has_ts;                  /* the packet carried a TSval: */
    uint32_t tsval;               /* then: it */
    bool gives_up;                /* a reset or bare FIN after unanswered timer copies of the head: the chain's end (retx fields describe the head) */
    uint32_t segs_sent_after;     /* segments above the retransmitted range */
    uint64_t data_offset;         /* payload bytes before the packet's first byte */
    /* What the packet revealed about the sender at the stall's start, when
     * the capture point is away from it (stall_build.h). */
    uint32_t lost_before;         /* retransmissions of the range lost before the capture point, count */
    uint32_t lost_segments;       /* then: the range in segments, counted lost while they were outstanding */
    uint32_t unseen_segments;     /* segments outstanding that the capture never saw: the range's lost original and data above it */
    uint64_t skipped_bytes;       /* the packet starts this far above the data seen: sent before it, never captured, bytes */
    bool original_new;            /* the range's lost original is inferred only now (nothing had shown it) */
    bool original_hints_more;     /* then: it suggested more data queued behind it */
    bool acks_late;               /* it resent data the receiver had acknowledged: those ACKs had not reached the sender */
    uint32_t packets_out_at_sender;/* then: segments the sender had outstanding */
    unsigned inferred;            /* tapo_inferred bits */
    bool unseen_counted;          /* the sender's IP IDs counted (proven) what it sent unseen before this packet */
    bool none_unseen;             /* of which nothing: its ID follows the previous one's */
    bool heard_unseen_payload;    /* it acknowledges payload of the peer's that the capture never saw */
    /* Evidence about the retransmitted range (frame numbers; 0 none captured). */
    uint32_t orig_frame;          /* its first transmission */
    uint32_t first_retx_frame;    /* its first retransmission, the one whose trigger first_retrans is */
    uint32_t signal_frame;        /* the first duplicate ACK or SACK that showed it missing */
} tapo_tx_info;

/* What one of the peer's packets told the sender. */
typedef struct tapo_rx_info {
    /* The cumulative ACK or SACK block that gives an RTT sample (Karn):
     * when the acknowledged data was transmitted. */
    bool rtt_valid;
    int64_t rtt_from, rtt_to;     /* the data newly acknowledged, stream offsets */
    double rtt_tx_time_s;         /* when that transmission was sent, sender time, seconds */
    double rtt_seen_s;            /* when the capture saw it, seconds */
    bool window_opened;           /* it opened the window that was closed (below one MSS) */
    uint64_t revealed_bytes;      /* it acknowledged this much of the sender's payload the capture never saw, bytes */
    bool revealed_resent;         /* its D-SACK covers the first of those bytes: the sender sent them twice, unseen */
    uint32_t refill_hole_frame;   /* those bytes fill a hole the peer reported there (frame) before: sent again, unseen; 0: no */
    uint32_t refill_sacked;       /* segments SACKed above that hole when it was reported, count */
    bool far_ack;                 /* it acknowledged more than any window ahead of the data seen (ignored, kept) */
} tapo_rx_info;

void tapo_sender_init(tapo_sender *s);
void tapo_sender_destroy(tapo_sender *s);

/* Frees the per-flow containers once the connection is over; the sender
 * stays usable and reallocates them if more packets come. */
void tapo_sender_release(tapo_sender *s);

/* The sender's own packet. */
void tapo_sender_on_send(tapo_sender *s, const tapo_packet *p, const tapo_send_context *ctx,
                         tapo_tx_info *tx);

/* A packet from the peer; rto_s is the sender's RTO (how long hindsight
 * waits for D-SACKs); away: the capture point is away from the sender (its
 * SACK state after each ACK is kept, tapo_sender_acks_received);
 * new_payload: p carried payload the peer had not sent before (not a
 * keep-alive, a window probe or a copy). */
void tapo_sender_on_receive(tapo_sender *s, const tapo_packet *p, double rto_s, bool away, bool new_payload,
                            bool first_copy, tapo_rx_info *rx);

/* ---- what the rest of the analysis asks -------------------------------- */

/* Effective MSS for segment counts, bytes. */
static inline uint32_t tapo_sender_mss(const tapo_sender *s)
{
    return s->mss;
}

/* The raw initial sequence number of its SYN or SYN-ACK, if it sent one. */
bool tapo_sender_isn(const tapo_sender *s, uint32_t *isn_raw);

/* It sent a FIN and the peer acknowledged everything it sent. */
bool tapo_sender_finished(const tapo_sender *s);
/* Whether the endpoint sent its FIN. */
bool tapo_sender_fin_sent(const tapo_sender *s);

/* New payload it sent, the inferred included, bytes. */
uint64_t tapo_sender_payload_bytes(const tapo_sender *s);

/* A connection whose state was dropped goes on counting its payload. */
void tapo_sender_resume(tapo_sender *s, uint64_t payload_bytes);

/* The peer sent payload after the sender's last payload: a request waits. */
bool tapo_sender_request_pending(const tapo_sender *s);

/* Whether p's payload reaches above what the peer has acknowledged: data
 * the peer never confirmed having, new to it even when p is a copy. */
bool tapo_sender_unacked_payload(const tapo_sender *s, const tapo_packet *p);

/* Whether p carries data the sender had sent before; *from and *to get
 * its range (stream offsets). */
bool tapo_sender_resends(const tapo_sender *s, const tapo_packet *p, int64_t *from, int64_t *to);

/* When the capture saw the receiver's ACK that covers the data (or the
 * bare FIN) p resends: a sender resends only what it has not seen
 * acknowledged, so that ACK and the receiver's packets after it had not
 * reached it (unknown: p resends nothing acknowledged, is a keep-alive or
 * a window probe, or the ACK is too old to remember). */
tapo_opt_s tapo_sender_acked_before_resend(const tapo_sender *s, const tapo_packet *p);

/* p, flagged a keep-alive (one byte at snd_nxt - 1), re-sends a byte the
 * peer has not acknowledged: a retransmission of it, not a keep-alive,
 * which repeats an acknowledged byte (RFC 1122 4.2.3.6). */
bool tapo_sender_keep_alive_resends(const tapo_sender *s, const tapo_packet *p);

/* Whether the sender has data outstanding (sent, not acknowledged). */
bool tapo_sender_outstanding(const tapo_sender *s);

/* How much of the sender's data that the capture never saw p (the peer's)
 * acknowledges, sequence numbers; 0 none. */
uint64_t tapo_sender_acked_unseen(const tapo_sender *s, const tapo_packet *p);

/* Whether p (the peer's) acknowledges everything the sender has sent: its
 * sender had received it all when it sent p. */
bool tapo_sender_acked_all(const tapo_sender *s, const tapo_packet *p);

/* The peer asked the sender something: p, its payload (or SYN), starts
 * the request; NULL when the capture never saw that payload (the peer's
 * ACK says it was sent). */
void tapo_sender_peer_spoke(tapo_sender *s, const tapo_packet *p);

/* Whether p, the sender's own packet, acknowledges none of the request
 * pending as the capture saw it: the request had not reached the sender
 * when it sent p (an ACK says exactly what its sender had received).
 * Then *since_s: how long before p the capture saw the request leave or
 * arrive, seconds. */
bool tapo_sender_request_unheard(const tapo_sender *s, const tapo_packet *p, double *since_s);

/* When the sender's latest transmission (data, SYN or FIN; not a pure
 * ACK) was sent, sender time; unknown before its first. */
tapo_opt_s tapo_sender_last_tx(const tapo_sender *s);

/* When the capture saw that transmission, capture time, seconds; unknown
 * before the first. */
tapo_opt_s tapo_sender_last_seen(const tapo_sender *s);

/* Whether p (data, a pure ACK or a FIN) is numbered right where the data
 * seen so far ends: no new data left unseen before it. */
bool tapo_sender_continues(const tapo_sender *s, const tapo_packet *p);

/* Whether p is numbered at or past where the sender's sequence space
 * seen so far ends (true before any is known). */
bool tapo_sender_at_end(const tapo_sender *s, const tapo_packet *p);

/* When the capture saw the sender's latest data, if the peer's ACK number
 * ack_raw acknowledges all of it. */
tapo_opt_s tapo_sender_all_acked_seen(const tapo_sender *s, uint32_t ack_raw);

/* The state part of a snapshot and the facts known now (stall.h). */
void tapo_sender_snapshot(const tapo_sender *s, tapo_snapshot *snap, tapo_facts *facts);

/* Away from the sender, what it had acknowledged when it sent a packet at
 * send_time_s (sender time) that echoes echo (has_echo). */
typedef struct tapo_acks_received {
    bool behind;                  /* its snd_una was below the capture's: una holds it */
    int64_t una;                  /* stream offset */
    bool missing;                 /* an ACK seen well before had not arrived (lost or late, not merely in flight) */
    bool sacks_behind;            /* later SACKs had not reached it: its SACK state was this */
    uint32_t sacked_out;          /* segments */
    uint32_t holes;               /* segments */
} tapo_acks_received;

/* The cumulative ACKs it had received are those seen by send_time_s +
 * margin_s whose TSval is not newer than its echo, and those that came
 * with the first copy of data that the packet (own) acknowledges: an ACK
 * says exactly what its sender had received, while its echo may be older
 * than the newest segment it had (RFC 7323 4.3: a receiver delaying its
 * ACK echoes the segment at the left edge, not the latest). */
void tapo_sender_acks_received(const tapo_sender *s, double send_time_s, double margin_s,
                               bool has_echo, uint32_t echo, const tapo_packet *own, tapo_acks_received *out);

/* Reads a snapshot taken before that packet with the snd_una it had. */
void tapo_sender_snapshot_behind(const tapo_sender *s, const tapo_acks_received *acks,
                                 tapo_snapshot *snap);

/* ---- hindsight on the sender's stalls (hindsight.h) -------------------- */

/* Revises facts, a stall's final facts that live as long as its record,
 * with what later packets show about the state as it stands now. */
void tapo_sender_watch(tapo_sender *s, tapo_facts *facts, bool window_closed);

/* Whether some stall's facts are still revised (hindsight is open). */
bool tapo_sender_watching(const tapo_sender *s);

/* Stops revising facts (the packet turned out to end no stall). */
void tapo_sender_unwatch(tapo_sender *s, const tapo_facts *facts);

/* What the sender's retransmission tx revealed about its stall's start. */
tapo_cur_reveals tapo_tx_reveals(const tapo_tx_info *tx);

/* The newest watched stall ended with the sender's own packet tx (fin: it
 * carried a FIN; bare_ack: nothing but an ACK; a FIN the sender sends by
 * close_by_s, capture time in seconds, closes with it); a bare FIN that
 * gave up its timer's chain (tx->gives_up) is watched for the chain going
 * on. */
void tapo_sender_watch_sent(tapo_sender *s, const tapo_tx_info *tx, bool fin, bool bare_ack, double close_by_s);

/* The newest watched stall ended with the peer's bare ACK of all the
 * sender had out; new data the sender sends by release_by_s (capture
 * time, seconds) was held back by it. */
void tapo_sender_watch_acked(tapo_sender *s, double release_by_s);

/* The sender's packet seen at t_s (capture time, seconds); new_data: it
 * carried data never sent before. */
void tapo_sender_note_transmitted(tapo_sender *s, double t_s, bool new_data);

/* The newest watched stall ended with the sender's own retransmission tx. */
void tapo_sender_watch_cur(tapo_sender *s, const tapo_tx_info *tx);

/* A stall that the peer's packet ended, over [from_s, to_s) of the
 * sender's timeline: a sender packet seen later but sent inside it
 * shortens it (tapo_hs_sent_at). */
void tapo_sender_watch_gap(tapo_sender *s, tapo_facts *facts, double from_s, double to_s,
                           double threshold_s, double end_seen_s);

/* The sender's packet p was sent at t_s (sender time), placed that
 * precisely; receiver packets seen from unheard_from_s on (capture time)
 * had not reached the sender then (it resends what they acknowledge). */
void tapo_sender_sent_at(tapo_sender *s, const tapo_packet *p, double t_s, double margin_s,
                         tapo_opt_s unheard_from_s);

#endif /* TAPO_SENDER_STATE_H */
