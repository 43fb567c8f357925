/* hindsight.h: facts about a stall that only later packets reveal (spec
 * section 6), revised in this one place.
 *
 * A stall record keeps two sets of facts: those known at the packet that
 * ended it (one pass), which never change, and the final ones (two passes),
 * which start equal to them and which only this module revises.  When a
 * packet may end a stall, the sender opens a tracker pointing at the final
 * facts of the record that will hold it.  Later events (new data, a new
 * request, ACKs, SACKs, D-SACKs) update the facts of every open tracker.
 * A tracker closes once its questions are settled; the facts then stay as
 * they are.  The facts count what still watches them (a tracker, the gap
 * watch): at zero they are settled and never change again, and the record
 * that holds them says so (tapo_record_settled).
 *
 * Away from the sender, a sender packet can be seen after receiver packets
 * that reached the sender later: the latest stall that a receiver packet
 * ended is watched, and a sender packet seen later but sent inside its gap
 * shortens it, or revokes it when what is left is no stall.  The watch
 * ends with the first sender packet sent after the gap, with the next
 * stall watched, or with the connection.
 *
 * Bound: at most TAPO_HINDSIGHT_MAX_OPEN trackers per sender.  Opening one
 * more closes the oldest, whose facts then keep what was learned so far.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_HINDSIGHT_H
#define TAPO_HINDSIGHT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/optional.h"

#define TAPO_HINDSIGHT_MAX_OPEN 16   /* open trackers per sender */
#define TAPO_HINDSIGHT_GRACE_RTOS 2.0 /* RTOs to wait for DSACKs after the window is ACKed */

/* What proves a retransmission unnecessary (spec rule 1.0): the receiver
 * had the data before this copy. */
typedef enum {
    TAPO_PROOF_NONE,
    TAPO_PROOF_DSACK,           /* a D-SACK covered all of it (this copy, or an earlier one) */
    TAPO_PROOF_ACKED,           /* an ACK covering it was captured before this copy */
    TAPO_PROOF_ARRIVED,         /* the capture at the receiver saw an earlier copy arrive before this one was sent,
                                   and the receiver's TCP answered after it */
    TAPO_PROOF_ECHO             /* the ACK that covered it echoes a timestamp older than this copy's (RFC 3522) */
} tapo_spurious_proof;

/* The facts of a stall that hindsight may revise. */
typedef struct tapo_facts {
    double duration_s;          /* the gap on the sender's timeline, seconds */
    uint32_t prev_frame;        /* the packet before the gap */
    bool revoked;               /* a sender packet seen later fell inside the gap: no stall on the sender's timeline */
    bool cur_spurious;          /* the packets prove cur's retransmission unnecessary (spurious_proof says how) */
    tapo_spurious_proof spurious_proof;
    uint32_t proof_frame;       /* evidence: the frame of that proof (the D-SACK, the ACK, the earlier copy); 0 none */
    bool outstanding_all_lost;  /* no segment outstanding at the stall's start is known to have arrived */
    bool had_more_data;         /* the sender sent new data after the stall, before the next request */
    uint32_t lost_out;          /* segments: retransmitted, outstanding, not shown duplicate by DSACK */
    uint32_t dsack_frame;       /* evidence: the DSACK that showed cur_spurious; 0 none */
    uint32_t window_open_frame; /* evidence: the peer packet that opened a window closed at the stall's start; 0 none */
    bool closing;               /* the sender's next transmission after cur was its FIN, or cur carried it */
    bool chain_went_on;         /* cur was a bare FIN after unanswered timer copies, and the sender resent the head
                                   after it: the FIN was its application's close, not the chain's end */
    bool answered;              /* cur was the sender's bare ACK, and its next transmission carried new payload */
    bool answered_at_once;      /* answered, and that payload came before a gap that would be a stall of its own */
    bool far_ack;               /* cur was the peer's ACK more than any window ahead of the data seen (ignored
                                   until the sender's segment at it confirms it: tapo_hs_gap_busy) */
    bool released;              /* cur was the peer's bare ACK of all the sender had out, and the sender's next
                                   transmission was new data sent at once (the ACK had held it back) */
    uint8_t watchers;           /* final facts: the trackers and the gap watch that may still revise them, count;
                                   0: settled, they never change again */
} tapo_facts;

/* Nothing later in the capture can change these facts. */
static inline bool tapo_facts_settled(const tapo_facts *f)
{
    return f->watchers == 0;
}

/* What the sender's packet that ended a stall showed about the stall's
 * start (away from the sender, what the capture point could not see). */
typedef struct tapo_cur_reveals {
    tapo_spurious_proof spurious;/* how the packets show the receiver had its data already; NONE: they do not */
    uint32_t proof_frame;       /* the frame that shows it */
    bool arrival_unanswered;    /* the capture at the receiver saw an earlier copy arrive, and the receiver had not
                                   answered since (hindsight confirms it once it does) */
    uint32_t arrived_frame;     /* then: that copy's frame; 0 not captured */
    bool has_ts;                /* the copy carried a TSval: */
    uint32_t tsval;             /* then: it, for the echo of the ACK that covers it */
    bool acks_late;             /* data it resent had arrived: the ACKs had not reached the sender */
    uint32_t lost_segments;     /* retransmitted segments lost before the capture point, outstanding then */
} tapo_cur_reveals;

/* Applies what cur revealed to a stall's facts (at the packet and final alike). */
static inline void tapo_facts_add_cur(tapo_facts *f, const tapo_cur_reveals *r)
{
    if (r->acks_late)
        f->outstanding_all_lost = false;   /* the receiver had them */
    f->lost_out += r->lost_segments;
    if (r->spurious != TAPO_PROOF_NONE && !f->cur_spurious) {
        f->cur_spurious = true;
        f->spurious_proof = r->spurious;
        f->proof_frame = r->proof_frame;
        if (r->spurious == TAPO_PROOF_DSACK)
            f->dsack_frame = r->proof_frame;
    }
}

typedef struct tapo_tracker {
    tapo_facts *facts;          /* revised in place; owned by the stall record */
    int64_t una0;               /* snd_una at the stall's start, stream offset */
    int64_t nxt0;               /* snd_nxt at the stall's start, stream offset */
    int64_t cur_start;          /* cur's retransmitted range, stream offsets; empty if none */
    int64_t cur_end;
    int64_t dup_start;          /* what D-SACKs have reported of it so far, merged, stream offsets; empty if none */
    int64_t dup_end;
    uint64_t mark_order;        /* sender transmission counter at the stall's start */
    bool awaiting_more_data;    /* had_more_data not settled yet */
    bool awaiting_window;       /* the window was closed at the stall's start and has not opened yet */
    bool awaiting_close;        /* whether the sender's next transmission after cur is its FIN, sent at once */
    bool awaiting_answer;       /* cur was the sender's bare ACK: whether its next transmission carries payload */
    bool awaiting_release;      /* cur was the peer's bare ACK: whether the sender's next transmission is new data
                                   sent by release_by_s */
    double at_once_by_s;        /* with awaiting_release, awaiting_close or awaiting_answer: the latest capture
                                 * time at which the sender's next transmission counts as sent at once, seconds */
    tapo_opt_s acked;           /* when snd_una reached nxt0, seconds */
    bool cur_acked;             /* an ACK has covered cur's range (the echo was read) */
    bool cur_resent;            /* cur's range was sent again after cur: a D-SACK may report that copy */
    bool cur_has_ts;            /* cur carried a TSval: */
    uint32_t cur_tsval;         /* then: it */
    bool arrival_unanswered;    /* an earlier copy seen arriving, unconfirmed (tapo_cur_reveals) */
    uint32_t arrived_frame;     /* then: its frame */
    bool awaiting_chain;        /* cur was a bare FIN after unanswered timer copies: whether the head is resent */
    int64_t chain_head;         /* then: the head's first byte, stream offset */
} tapo_tracker;

/* The latest stall a receiver packet ended, on the sender's timeline. */
typedef struct tapo_gap_watch {
    tapo_facts *facts;          /* its final facts; NULL: none */
    double from_s;              /* the gap, sender time, seconds */
    double to_s;
    double threshold_s;         /* the stall threshold it exceeded, seconds */
    double end_seen_s;          /* when the capture saw the receiver packet that ended it, seconds */
} tapo_gap_watch;

typedef struct tapo_hindsight {
    GArray *open;               /* tapo_tracker, oldest first; NULL when none is open */
    tapo_gap_watch gap;
} tapo_hindsight;

void tapo_hs_init(tapo_hindsight *hs);
/* Closes every tracker and the gap watch: the facts they watched are settled. */
void tapo_hs_destroy(tapo_hindsight *hs);
unsigned tapo_hs_open_count(const tapo_hindsight *hs);

/* Opens a tracker for the final facts of a stall whose outstanding window
 * was [una0, nxt0); window_closed: the peer's window was closed then. */
void tapo_hs_open(tapo_hindsight *hs, tapo_facts *facts, int64_t una0, int64_t nxt0,
                  uint64_t mark_order, bool window_closed);

/* Closes the tracker of facts that turned out to belong to no stall. */
void tapo_hs_forget(tapo_hindsight *hs, const tapo_facts *facts);

/* The newest tracker's stall ended with a retransmission of [start, end),
 * which revealed r. */
void tapo_hs_cur(tapo_hindsight *hs, int64_t start, int64_t end, const tapo_cur_reveals *r);

/* The newest tracker's stall ended with the sender's own packet (fin: it
 * carried a FIN; bare_ack: it carried nothing but an ACK); what the sender
 * sends next says whether it was closing, or answering. */
void tapo_hs_cur_sent(tapo_hindsight *hs, bool fin, bool bare_ack, double close_by_s);

/* The sender transmitted data beyond its previous snd_nxt, at t_s
 * (capture time, seconds). */
void tapo_hs_new_data(tapo_hindsight *hs, double t_s);

/* The sender sent [start, end) again (before the newest tracker's cur is
 * known: a later copy than every cur already known). */
void tapo_hs_resent(tapo_hindsight *hs, int64_t start, int64_t end);

/* The newest tracker's stall ended with the sender's bare FIN after its
 * timer's unanswered copies of the data at head (stream offset): whether
 * the sender resends it afterwards says whether the FIN ended the chain. */
void tapo_hs_cur_gave_up(tapo_hindsight *hs, int64_t head);

/* The sender sent its FIN (t_s: capture time, seconds); with the data of a
 * stall it closes only when sent at once after it (close_by_s): a FIN
 * after a pause of its own ends another stall.  answers_close: the peer's
 * FIN came first, and this one answers it (the peer closed). */
void tapo_hs_fin(tapo_hindsight *hs, double t_s, bool answers_close);

/* The response ended: the peer sent a new request, or the sender its FIN. */
void tapo_hs_response_ended(tapo_hindsight *hs);

/* The peer sent payload (a request): the sender goes on, not closing. */
void tapo_hs_request(tapo_hindsight *hs);

/* The newest tracker's stall ended with the peer's bare ACK of all the
 * sender had out: whether the sender's next transmission is new data seen
 * by release_by_s (capture time, seconds) says the ACK held it back. */
void tapo_hs_cur_acked(tapo_hindsight *hs, double release_by_s);

/* The sender transmitted at t_s (capture time, seconds); new_data: it
 * carried data never sent before. */
void tapo_hs_transmitted(tapo_hindsight *hs, double t_s, bool new_data);

/* The sender sent nothing but an ACK: a bare ACK before it answered
 * nothing.  (Its payload answers, whatever the peer asked meanwhile:
 * pipelined requests.) */
void tapo_hs_bare_ack(tapo_hindsight *hs);

/* [start, end), last sent at counter last_tx_order, arrived. */
void tapo_hs_delivered(tapo_hindsight *hs, int64_t start, int64_t end, uint64_t last_tx_order);

/* The receiver reported [start, end) twice (see tapo_sb_listener), in frame. */
void tapo_hs_duplicated(tapo_hindsight *hs, int64_t start, int64_t end,
                        uint64_t first_retx_order, uint32_t segments, uint32_t frame);

/* The peer's packet in frame opened its closed window again. */
void tapo_hs_window_opened(tapo_hindsight *hs, uint32_t frame);

/* What the ACK that moved snd_una echoed (its TSecr). */
typedef struct tapo_ack_echo {
    bool has_ts;
    uint32_t tsecr;
    uint32_t frame;
} tapo_ack_echo;

/* snd_una advanced, by the ACK with echo; closes trackers whose questions
 * are settled. */
void tapo_hs_acked(tapo_hindsight *hs, int64_t snd_una, double now_s, double rto_s, const tapo_ack_echo *echo);

/* The peer sent a packet, acknowledging up to acked (stream offset, when
 * known): its TCP is alive, so what the capture at the receiver saw
 * arrive before, it had, unless that ACK stops at the copy's range (at or
 * above its start, below its end): the receiver's TCP did not take it (a
 * capture point before a lossy last hop), as a duplicate ACK says before
 * the copy (sender_send.c, prove_unnecessary). */
void tapo_hs_peer_answered(tapo_hindsight *hs, tapo_opt_offset acked);

/* Watches the gap of a stall a receiver packet seen at end_seen_s (capture
 * time) ended (replacing the one watched before). */
void tapo_hs_watch_gap(tapo_hindsight *hs, tapo_facts *facts, double from_s, double to_s,
                       double threshold_s, double end_seen_s);

/* The sender's segment confirmed the peer's latest far ACK (more than any
 * window ahead of the data seen): the sender was at work throughout the
 * gap that ACK ended, which is no stall (revoked) when it is the gap
 * watched (facts->far_ack). */
void tapo_hs_gap_busy(tapo_hindsight *hs);

/* A sender packet sent at t_s (sender time, placed within margin_s) in
 * frame: the watched gap shrinks to start there, or is revoked.  When it
 * resends what a receiver packet seen from unheard_from_s on (capture
 * time) acknowledged, it left before that packet reached the sender. */
void tapo_hs_sent_at(tapo_hindsight *hs, double t_s, uint32_t frame, double margin_s, tapo_opt_s unheard_from_s);

#endif /* TAPO_HINDSIGHT_H */
