/* stall.h: what TAPO records about one stall, and the verdict it renders.
 *
 * A snapshot is the sender state just before the stall-ending packet ("cur"),
 * plus what cur was.  It is built once (stall_build.h) and never changes.
 * The facts that later packets can revise live beside it (hindsight.h),
 * once as known at the packet (one pass) and once as revised by the whole
 * capture (two passes).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_STALL_H
#define TAPO_STALL_H

#include <stdbool.h>
#include <stdint.h>

#include "record/hindsight.h"
#include "record/messages.h"
#include "base/optional.h"
#include "base/vocabulary.h"

/* Whether an advertised window of 'window' bytes is below 'bytes', as far
 * as the capture lets us know: without the handshake the scale is unknown
 * (the window is unscaled), so only a zero window is certain.  One rule for
 * the classifier and for the evidence of a closed window. */
static inline bool tapo_window_below(uint32_t window, bool scale_known, uint64_t bytes)
{
    return scale_known ? window < bytes : window == 0;
}

typedef enum {
    TAPO_DIR_OUT,    /* sender to receiver */
    TAPO_DIR_IN      /* receiver to sender */
} tapo_pkt_dir;

/* The packet that ends the stall, seen from one candidate sender. */
typedef struct tapo_cur {
    tapo_pkt_dir dir;
    bool payload;                   /* carries data bytes */
    bool new_data;                  /* sender data beyond snd_nxt */
    bool retransmission;            /* sender data sent again (not a keep-alive or window probe) */
    bool handshake_retransmission;  /* a SYN or SYN-ACK sent again, by either side */
    bool syn;                       /* it carries a SYN (a SYN or a SYN-ACK) */
    bool fin;                       /* it carries a FIN */
    bool rst;                       /* it carries a RST */
    bool receiver_retransmission;   /* the receiver re-sent its own data */
    bool window_probe;              /* sender keep-alive or zero-window probe */
    bool acks_all;                  /* from the receiver: it acknowledged all the sender had outstanding */
    bool may_resend_unseen;         /* new data that may resend an original lost before the capture point, unprovable either way */
    uint16_t ids_skipped_unclaimed; /* away from the sender, its own packet: IP IDs it skipped since its previous
                                     * packet that no packet of the capture carried, not provably its own (endpoint.c), count */
    bool reveals_data;              /* from the receiver: it acknowledged sender data the capture never saw, sent in the gap */
    bool unseen_resent;             /* with reveals_data: the receiver's D-SACK of that data proves the sender sent it
                                       twice in the gap, a retransmission the capture never saw */
    bool unseen_refill;             /* with reveals_data: that data fills a hole the receiver had reported below data it
                                       SACKed before the gap: a copy of a lost original, sent in the gap, unseen */
    uint64_t unseen_bytes;          /* sender data sent in the gap that the capture never saw (before cur, or acknowledged by it), bytes */
    bool both_unseen;               /* both endpoints sent payload in the gap that the capture never saw: cur's own
                                     * sequence number skips it, and cur acknowledges the other's (a capture hole) */
    bool gives_up;                  /* the sender's reset or bare FIN after unanswered timer copies: classified as the chain's next copy */
    uint32_t retrans_count;         /* times cur's segment was retransmitted, this one included */
    tapo_trigger first_retrans;     /* trigger of that segment's first retransmission */
    tapo_trigger trigger;           /* trigger of this transmission */
    uint32_t segs_sent_after;       /* segments the sender had sent above cur's segment */
    tapo_opt_s acked_after_s;       /* from the receiver: how long after the capture saw the sender data it newly
                                     * acknowledges it came, seconds; unknown without a clean sample (Karn) */
    uint64_t data_offset;           /* sender payload bytes before cur's first byte */
    /* Evidence about cur's retransmitted segment (frame numbers; 0 when the
     * capture has none): its original, its first retransmission (whose
     * trigger names a double) and the first loss signal for it. */
    uint32_t orig_frame;
    uint32_t first_retx_frame;
    uint32_t loss_signal_frame;
} tapo_cur;

/* cur is the sender's bare ACK: no data, SYN, FIN or RST, no probe. */
static inline bool tapo_cur_is_bare_ack(const tapo_cur *cur)
{
    return cur->dir == TAPO_DIR_OUT && !cur->payload && !cur->syn && !cur->fin && !cur->rst && !cur->retransmission &&
           !cur->handshake_retransmission && !cur->window_probe && !cur->gives_up;
}

/* cur is the receiver's ACK of exactly one sequence number the capture
 * never saw the sender send: the sender's FIN, or (rarely) one byte. */
static inline bool tapo_cur_acks_unseen_one(const tapo_cur *cur)
{
    return cur->dir == TAPO_DIR_IN && cur->reveals_data && cur->unseen_bytes == 1;
}

/* cur, from the view of the endpoint that did not send it: a bare ACK
 * (no data, SYN, FIN or RST, none unseen) of everything it had out. */
static inline bool tapo_cur_is_peer_bare_ack(const tapo_cur *cur)
{
    return cur->dir == TAPO_DIR_IN && cur->acks_all && !cur->payload && !cur->syn && !cur->fin && !cur->rst &&
           !cur->reveals_data;
}

typedef struct tapo_snapshot {
    double threshold_s;             /* min(tau * SRTT, RTO) used, seconds */
    tapo_opt_s srtt;                /* seconds; unknown without a sample */
    double rto_s;                   /* seconds */
    tapo_vantage vantage;           /* where the capture was taken, relative to this sender */
    tapo_basis vantage_basis;       /* how that was decided */
    tapo_opt_s rtt_to_sender;       /* capture point -> sender -> capture point, seconds (away from the sender) */
    tapo_opt_s rtt_to_receiver;     /* capture point -> receiver -> capture point, seconds */
    unsigned inferred;              /* tapo_inferred bits: what the verdict relies on that the capture did not show */
    tapo_ca_state ca_state;
    uint32_t packets_out;           /* segments between snd_una and snd_nxt */
    uint32_t sacked_out;            /* segments */
    uint32_t holes;                 /* segments */
    uint32_t retrans_out;           /* segments */
    uint32_t dupthres;              /* segments */
    uint32_t loss_signals;          /* segments SACKed, or duplicate ACKs for the head without SACK */
    uint32_t rwnd;                  /* receiver's last window, bytes */
    uint32_t init_rwnd;             /* receiver's window in its SYN, bytes; 0 unknown */
    uint32_t mss;                   /* bytes */
    bool rwnd_seen;                 /* the receiver advertised a window (rwnd is meaningful) */
    bool rwnd_scale_known;          /* the window scale is known (handshake captured) */
    bool request_pending;           /* the receiver sent payload after the sender's last payload */
    bool request_unheard;           /* it had, but cur acknowledges none of it: the request had not reached the sender */
    bool sent_payload;              /* the sender had sent payload before */
    bool queued_more;               /* the sender's latest new segment was full-sized or used up the window: more was queued */
    uint32_t window_closed_frame;   /* evidence: the receiver's packet that closed the window in force; 0 open */
    bool capture_gap;               /* the capture missed some of the sender's data before the stall */
    bool clock_trouble;             /* the capture's clock went backwards or jumped in the connection before it */
    bool handshake_open;            /* a SYN was seen and nothing had completed the handshake yet */
    bool closing;                   /* an endpoint had sent its FIN, or a reset, before cur */
    tapo_cur cur;
} tapo_snapshot;

/* The receiver's request had had time to reach the sender, and the
 * sender's own packet cur, with nothing outstanding, acknowledges none of
 * it: it was lost on its way (classifier.c, before rules 3 to 5). */
static inline bool tapo_request_lost(const tapo_snapshot *snap)
{
    return snap->request_unheard && snap->packets_out == 0 && snap->cur.dir == TAPO_DIR_OUT;
}

/* cur is the sender's close (a FIN or a reset) with a request pending,
 * carrying no byte and skipping none the capture missed: it answers
 * nothing, so nothing shows whether the request awaited an answer
 * (classifier.c, rule 3; advice.c). */
static inline bool tapo_close_unanswered(const tapo_snapshot *snap)
{
    const tapo_cur *cur = &snap->cur;
    return cur->dir == TAPO_DIR_OUT && snap->request_pending && snap->packets_out == 0 && !cur->payload &&
           cur->unseen_bytes == 0 && !cur->syn && (cur->fin || cur->rst);
}

/* cur is the sender's new data with nothing outstanding, seen away from
 * it, continuing its sequence exactly (no data skipped that the unseen
 * packets could have carried), and its IP IDs skip values that no packet
 * of the capture carried: it may have sent this data before and lost it
 * before the capture point (its timer's copies), or sent packets of other
 * connections from one counter; nothing proves that it sent nothing while
 * it was silent (classifier.c, before rules 3 and 4). */
static inline bool tapo_unseen_sends_possible(const tapo_snapshot *snap)
{
    return snap->cur.dir == TAPO_DIR_OUT && snap->cur.new_data && !snap->cur.retransmission &&
           snap->cur.unseen_bytes == 0 && snap->packets_out == 0 && snap->cur.ids_skipped_unclaimed > 0;
}

/* cur is the sender's bare FIN after its timer's unanswered copies, and
 * it resent the head after it (hindsight: facts): its application closed
 * while the timer still waited (classifier.c, before rule 1). */
static inline bool tapo_close_inside_chain(const tapo_snapshot *snap, const tapo_facts *facts)
{
    return snap->cur.dir == TAPO_DIR_OUT && snap->cur.gives_up && facts->chain_went_on;
}

/* One endpoint's view of a stall: the gap as that endpoint, analysed as the
 * sender, lived it. */
typedef struct tapo_stall_view {
    bool stalled;                   /* the gap was a stall for this sender */
    uint64_t bytes_at_packet;       /* its payload bytes sent up to and including cur */
    tapo_snapshot snap;
    tapo_facts facts_at_packet;     /* what was known at cur (one pass): the gap as measured there */
    tapo_facts facts_final;         /* revised by the rest of the capture (two passes), by hindsight only */
} tapo_stall_view;

/* Everything stored for a stall-ending frame.  Both endpoints' views are
 * kept: the analysed sender is chosen from the data, and two passes may
 * settle on the other one (spec section 1). */
typedef struct tapo_stall_record {
    uint32_t frame;                 /* the stall-ending frame */
    uint8_t sender_at_packet;       /* endpoint analysed as the sender when cur was seen */
    tapo_basis sender_basis_at_packet;
    tapo_stall_view view[2];        /* by endpoint */
} tapo_stall_record;

/* Nothing later in the capture can change the record: every view's final
 * facts are settled (hindsight.h).  The plugin's second pass, the batch
 * analyser and its streamed rows all read a record's final facts once it
 * is, or once the connection ends (which settles every record). */
static inline bool tapo_record_settled(const tapo_stall_record *rec)
{
    for (int e = 0; e < 2; e++)
        if (rec->view[e].stalled && !tapo_facts_settled(&rec->view[e].facts_final))
            return false;
    return true;
}

/* What rendering a connection's verdicts needs once its state is gone
 * (tapo_conv_is_over): the sender is chosen from these with hindsight. */
typedef struct tapo_conv_summary {
    uint64_t payload_bytes[2];    /* new payload each endpoint sent, bytes */
    tapo_message_counts messages; /* who answered whom (record/messages.h) */
    tapo_opt_endpoint initiator;  /* the endpoint that sent the SYN */
    uint16_t port[2];             /* TCP port of each endpoint */
    bool ids_shared[2];           /* each endpoint's IPv4 IDs proven numbered with other connections' (endpoint.c) */
} tapo_conv_summary;

/* The classification of one stall. */
typedef struct tapo_verdict {
    tapo_cause cause;
    double duration_s;              /* the gap, seconds (final: as hindsight placed it on the sender's timeline) */
    uint32_t prev_frame;            /* the packet before the gap */
    tapo_category category;
    bool retransmission;            /* a timeout-retransmission cause (spec rule 1) */
    bool final;                     /* used the whole capture */
    bool spurious;                  /* DSACK proved cur's retransmission unnecessary */
    tapo_file_pos file_pos;
    uint32_t in_flight;             /* segments, paper equation 1 */
    uint32_t lost_out;              /* segments */
    double position;                /* cur's place in the sender's data, 0..1 (one pass: in the data sent so far) */
    int sender;                     /* endpoint analysed as the sender */
    tapo_basis sender_basis;        /* how it was chosen */
    bool sender_uncertain;          /* the data did not settle the sender and its role (or the server port),
                                     * not the stall, chose it (sender_choice.h) */
    bool sender_role_known;         /* the handshake was captured: */
    tapo_role sender_role;          /* then: that endpoint's role */
    tapo_cause tree_cause;          /* the decision tree's cause, before the audit (audit.h) */
    const char *audit_reason;       /* why the audit changed it; NULL: it did not */
    tapo_confidence confidence;
    unsigned caveats;               /* tapo_caveat bits */
    tapo_phase phase;               /* handshake, data or teardown (verdict.c) */
    const tapo_stall_view *view;    /* the record's view for that sender */
    const tapo_facts *facts;        /* the view's facts the verdict used (at the packet, or final) */
} tapo_verdict;

#endif /* TAPO_STALL_H */
