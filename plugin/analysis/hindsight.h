/* hindsight.h: facts about a stall that only later packets reveal (spec
 * section 6), revised in one place.
 *
 * When a stall is detected, the sender opens a tracker pointing at the stall's
 * tapo_facts.  Later events (new data, a new request, ACKs, SACKs, DSACKs)
 * update the facts of every open tracker.  A tracker closes once its
 * questions are settled; the facts then stay as they are.
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

#define TAPO_HINDSIGHT_MAX_OPEN 16   /* open trackers per sender */
#define TAPO_HINDSIGHT_GRACE_RTOS 2.0 /* RTOs to wait for DSACKs after the window is ACKed */

/* The classification inputs that hindsight may revise. */
typedef struct tapo_facts {
    bool cur_spurious;          /* a DSACK showed a copy of cur's segment had already arrived */
    bool outstanding_all_lost;  /* no segment outstanding at the stall's start is known to have arrived */
    bool had_more_data;         /* the sender sent new data after the stall, before the next request */
    uint32_t lost_out;          /* segments: retransmitted, outstanding, not shown duplicate by DSACK */
    uint32_t dsack_frame;       /* evidence: the DSACK that showed cur_spurious; 0 none */
    uint32_t window_open_frame; /* evidence: the peer packet that opened a window closed at the stall's start; 0 none */
} tapo_facts;

typedef struct tapo_tracker {
    tapo_facts *facts;          /* revised in place; owned by the stall record */
    int64_t una0;               /* snd_una at the stall's start, stream offset */
    int64_t nxt0;               /* snd_nxt at the stall's start, stream offset */
    int64_t cur_start;          /* cur's retransmitted range, stream offsets; empty if none */
    int64_t cur_end;
    uint64_t mark_order;        /* sender transmission counter at the stall's start */
    bool awaiting_more_data;    /* had_more_data not settled yet */
    bool awaiting_window;       /* the window was closed at the stall's start and has not opened yet */
    double acked_s;             /* when snd_una reached nxt0, seconds; < 0 not yet */
} tapo_tracker;

typedef struct tapo_hindsight {
    GArray *open;               /* tapo_tracker, oldest first; NULL when none is open */
} tapo_hindsight;

void tapo_hs_init(tapo_hindsight *hs);
void tapo_hs_destroy(tapo_hindsight *hs);
unsigned tapo_hs_open_count(const tapo_hindsight *hs);

/* Opens a tracker for a stall whose outstanding window was [una0, nxt0);
 * window_closed: the peer's window was closed then. */
void tapo_hs_open(tapo_hindsight *hs, tapo_facts *facts, int64_t una0, int64_t nxt0,
                  uint64_t mark_order, bool window_closed);

/* The stall's facts moved (the record was copied): trackers follow them. */
void tapo_hs_retarget(tapo_hindsight *hs, tapo_facts *from, tapo_facts *to);

/* Closes the tracker of facts that turned out to belong to no stall. */
void tapo_hs_forget(tapo_hindsight *hs, const tapo_facts *facts);

/* Tells the newest tracker which range cur retransmitted. */
void tapo_hs_set_cur_range(tapo_hindsight *hs, int64_t start, int64_t end);

/* The sender transmitted data beyond its previous snd_nxt. */
void tapo_hs_new_data(tapo_hindsight *hs);

/* The response ended: the peer sent a new request, or the sender its FIN. */
void tapo_hs_response_ended(tapo_hindsight *hs);

/* [start, end), last sent at counter last_tx_order, arrived. */
void tapo_hs_delivered(tapo_hindsight *hs, int64_t start, int64_t end, uint64_t last_tx_order);

/* The receiver reported [start, end) twice (see tapo_sb_listener), in frame. */
void tapo_hs_duplicated(tapo_hindsight *hs, int64_t start, int64_t end,
                        uint64_t first_retx_order, uint32_t segments, uint32_t frame);

/* The peer's packet in frame opened its closed window again. */
void tapo_hs_window_opened(tapo_hindsight *hs, uint32_t frame);

/* snd_una advanced; closes trackers whose questions are settled. */
void tapo_hs_acked(tapo_hindsight *hs, int64_t snd_una, double now_s, double rto_s);

#endif /* TAPO_HINDSIGHT_H */
