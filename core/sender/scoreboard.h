/* scoreboard.h: the sender's outstanding data, one entry per transmitted
 * range, with its retransmission history and SACK/DSACK marks.
 *
 * The scoreboard covers [snd_una, snd_nxt) of one sender.  Entries are split
 * where a retransmission, a SACK block or an ACK cuts them, so each entry has
 * one history.  Entries leave when they are cumulatively acknowledged; the
 * retransmitted ones are remembered a little longer (a small ring) because a
 * DSACK for them arrives after their ACK.
 *
 * Bound: at most TAPO_SB_MAX_SEGMENTS entries.  Past it, neighbouring entries
 * that were sent once and never SACKed are merged (their RTT samples become
 * coarser); if that is not enough, the oldest half is forgotten.  This only
 * matters for captures that see no ACKs at all (one direction of asymmetric
 * routing) or windows of many thousands of segments.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SCOREBOARD_H
#define TAPO_SCOREBOARD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/optional.h"
#include "base/ring.h"
#include "base/vocabulary.h"

#define TAPO_SB_MAX_SEGMENTS 8192   /* entries; about 750 KB of state at most */
#define TAPO_SB_HISTORY 32          /* acknowledged retransmitted ranges kept for DSACK matching */

typedef struct tapo_segment {
    int64_t start;               /* stream offset of the first byte */
    int64_t end;                 /* stream offset one past the last byte */
    uint64_t last_tx_order;      /* sender's transmission counter at the last transmission */
    uint64_t first_retx_order;   /* counter at the first retransmission; 0 = never retransmitted */
    uint64_t dupacks_at_last_tx; /* peer's duplicate-ACK counter at the last transmission */
    double last_tx_s;            /* when the sender made its last transmission, sender time, seconds */
    double last_seen_s;          /* when the capture saw it, seconds */
    uint32_t tx_count;           /* transmissions seen; 1 = the original only */
    tapo_trigger first_retx;     /* what triggered the first retransmission */
    /* Evidence links (frame numbers; 0 when the capture has no such frame). */
    uint32_t orig_frame;         /* its first transmission, when captured */
    uint32_t first_retx_frame;   /* its first retransmission, when captured */
    uint32_t signal_frame;       /* first duplicate ACK or SACK that showed it missing */
    uint32_t dsack_frame;        /* the D-SACK that reported it received twice */
    bool seen;                   /* some transmission of it was captured (false: inferred, lost before the capture point) */
    bool sacked;                 /* covered by a SACK block (not a DSACK) */
    bool dsacked;                /* the receiver reported a duplicate copy (RFC 2883) */
    bool arrived;                /* a copy was proven to have arrived (spec rule 1.0: seen at the receiver, and its
                                  * TCP answered after it): every later copy was unnecessary too */
} tapo_segment;

/* An acknowledged range that had been retransmitted, kept for DSACKs. */
typedef struct tapo_acked_retx {
    int64_t start;               /* bytes */
    int64_t end;                 /* bytes */
    uint64_t first_retx_order;   /* see tapo_segment */
    uint32_t tx_count;           /* transmissions before it was acknowledged, count */
    uint32_t dsack_frame;        /* the D-SACK that reported it; 0 none yet */
    bool dsacked;                /* already reported */
} tapo_acked_retx;

typedef struct tapo_scoreboard {
    /* The entries, sorted by start and non-overlapping, are segs[first] to
     * segs[first + count - 1]: acknowledged entries leave from the front
     * without moving the rest, new data joins at the back. */
    tapo_segment *segs;          /* room entries; NULL until used */
    uint32_t first;              /* index of the first entry */
    uint32_t count;              /* entries, count */
    uint32_t room;               /* entries segs holds, count */
    tapo_acked_retx *history;    /* TAPO_SB_HISTORY entries (ring); NULL until a retransmission is ACKed */
    tapo_ring history_ring;
    int64_t highest_sacked;      /* end of the highest SACKed byte, stream offset; 0 = none */
    int64_t signalled_below;     /* entries starting below this offset have their signal_frame, stream offset */
} tapo_scoreboard;

/* Callbacks for facts other modules learn from the receiver's feedback. */
typedef struct tapo_sb_listener {
    /* [start, end) arrived (cumulatively ACKed or SACKed); it had last been
     * sent at transmission counter last_tx_order. */
    void (*delivered)(void *ctx, int64_t start, int64_t end, uint64_t last_tx_order);
    /* The receiver got [start, end) twice (DSACK).  first_retx_order is 0
     * when the range was never retransmitted (the network duplicated it). */
    void (*duplicated)(void *ctx, int64_t start, int64_t end,
                       uint64_t first_retx_order, uint32_t segments);
    void *ctx;
} tapo_sb_listener;

/* What a retransmission is about to resend, read before it is recorded. */
typedef struct tapo_sb_desc {
    bool found;                  /* some outstanding entry overlaps the range */
    bool unseen;                 /* no transmission of the overlapped entries was captured */
    uint32_t prior_tx_max;       /* most transmissions of any overlapped entry, before this one */
    tapo_trigger first_retx;     /* first retransmission trigger of the lowest retransmitted entry */
    bool dsacked;                /* every part of the range was already reported duplicate */
    uint32_t dsack_frame;        /* then: the D-SACK that reported the lowest entry */
    bool all_seen;               /* every overlapped entry had a transmission captured */
    bool all_arrived;            /* every overlapped entry had a copy proven arrived (tapo_sb_mark_arrived) */
    double latest_seen_s;        /* then: the latest capture time of their last transmissions, seconds */
    uint32_t sacked_sent_after;  /* segments SACKed that were sent after the lowest entry's last transmission */
    uint64_t dupacks_since;      /* duplicate ACKs received since the lowest entry's last transmission */
    double last_tx_s;            /* last transmission of the lowest entry, sender time, seconds */
    uint32_t orig_frame;         /* the lowest entry's first transmission; 0 not captured */
    uint32_t first_retx_frame;   /* the first retransmission whose trigger first_retx is; 0 not captured */
    uint32_t signal_frame;       /* the first loss signal for the lowest entry; 0 none */
} tapo_sb_desc;

/* Result of a cumulative ACK or a SACK block. */
typedef struct tapo_sb_feedback {
    int64_t newly_delivered;     /* bytes newly ACKed or SACKed */
    bool retransmitted_delivered;/* some newly delivered entry had been retransmitted (Karn) */
    tapo_opt_s earliest_tx;      /* earliest transmission among newly delivered entries sent once, sender time */
    double earliest_seen_s;      /* when the capture saw that transmission, seconds */
    uint32_t reordering;         /* reordering degree seen, segments; 0 none */
} tapo_sb_feedback;

/* Counts in segments of mss bytes, for the sender-state snapshot. */
typedef struct tapo_sb_counts {
    uint32_t sacked_out;         /* SACKed segments */
    uint32_t holes;              /* un-SACKed segments below the highest SACKed byte */
    uint32_t retrans_out;        /* retransmitted, not yet ACKed or SACKed */
    uint32_t lost_out;           /* retransmitted, not ACKed, SACKed or shown duplicate by DSACK */
} tapo_sb_counts;

/* Segments needed for bytes: ceil(bytes / mss), and 1 for a non-empty range. */
uint32_t tapo_segments(int64_t bytes, uint32_t mss);

void tapo_sb_init(tapo_scoreboard *sb);
void tapo_sb_destroy(tapo_scoreboard *sb);

/* When a transmission happened: the sender's time, and the capture's. */
typedef struct tapo_tx_time {
    double sent_s;               /* sender time, seconds */
    double seen_s;               /* capture time, seconds */
    uint32_t frame;              /* the frame that carried it; 0 inferred (never captured) */
} tapo_tx_time;

/* New data [start, end) sent for the first time; seen false when the
 * transmission was inferred (lost before the capture point). */
void tapo_sb_append(tapo_scoreboard *sb, int64_t start, int64_t end, tapo_tx_time when,
                    uint64_t tx_order, uint64_t dupacks, bool seen);

/* Describes the outstanding entries overlapping [start, end), unchanged. */
void tapo_sb_describe(const tapo_scoreboard *sb, int64_t start, int64_t end, uint32_t mss,
                      uint64_t dupacks_now, tapo_sb_desc *desc);

/* Records a retransmission of [start, end), preceded by lost_before
 * retransmissions the capture never saw; first_trigger is the trigger of
 * the first of them all. */
void tapo_sb_retransmit(tapo_scoreboard *sb, int64_t start, int64_t end, tapo_trigger first_trigger,
                        uint32_t lost_before, tapo_tx_time when, uint64_t tx_order, uint64_t dupacks);

/* A copy of [start, end), already recorded, was proven to have arrived
 * before the latest copy was sent (spec rule 1.0): so were all of them. */
void tapo_sb_mark_arrived(tapo_scoreboard *sb, int64_t start, int64_t end);

/* Cumulative ACK up to ack (exclusive). */
void tapo_sb_ack(tapo_scoreboard *sb, int64_t ack, uint32_t mss,
                 const tapo_sb_listener *listener, tapo_sb_feedback *fb);

/* A SACK block [left, right) above the cumulative ACK. */
void tapo_sb_sack(tapo_scoreboard *sb, int64_t left, int64_t right, uint32_t mss,
                  const tapo_sb_listener *listener, tapo_sb_feedback *fb);

/* A DSACK block [left, right) in frame: the receiver got that range twice. */
void tapo_sb_dsack(tapo_scoreboard *sb, int64_t left, int64_t right, uint32_t mss, uint32_t frame,
                   const tapo_sb_listener *listener);

/* The receiver's packet in frame showed every un-SACKed entry starting
 * below offset 'below' missing (a duplicate ACK for the head, or SACK
 * blocks above holes): entries not signalled before take it as their first
 * loss signal. */
void tapo_sb_signal(tapo_scoreboard *sb, int64_t below, uint32_t frame);

void tapo_sb_count(const tapo_scoreboard *sb, uint32_t mss, tapo_sb_counts *counts);

/* The most transmissions an acknowledged, retransmitted range overlapping
 * [start, end) had, among those remembered; 1 (the original) when none. */
uint32_t tapo_sb_acked_transmissions(const tapo_scoreboard *sb, int64_t start, int64_t end);

/* Number of entries currently held (for tests and the memory bound). */
unsigned tapo_sb_size(const tapo_scoreboard *sb);

#endif /* TAPO_SCOREBOARD_H */
