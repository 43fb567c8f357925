/* recovery.h: how the sender came to retransmit a segment, and what the
 * capture point could not see of it (spec sections 1 and 2).
 *
 * A retransmission is fast when the ACK or SACK that released it brought
 * loss signals for it; it is timer-driven (an RTO or a tail-loss probe) when
 * the sender had heard nothing for a stall threshold: only a timer sends
 * after such a silence.  The time since the original transmission does not
 * matter: SACK-driven recovery can resend a hole long after it was first
 * sent.
 *
 * When the capture was not taken at the sender, some transmissions never
 * reach the capture point.  Their number comes from gaps in the sender's
 * IPv4 IDs when the sender numbers its packets one by one (Linux, Windows),
 * and otherwise from the timing: loss signals that must have released a
 * fast retransmission which never arrived, and the retransmission timer's
 * schedule (RTO, doubled after each expiry; or a tail-loss probe first).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RECOVERY_H
#define TAPO_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/optional.h"
#include "base/vocabulary.h"

/* A timer fires at or after its deadline; capture timestamps can shave a
 * little off a silence (a SYN resent after exactly the 1 s initial RTO). */
#define TAPO_TIMER_SLACK 0.98
#define TAPO_CHAIN_TIMEOUT_FLOOR_S 1.0 /* RFC 6298 (2.4): the least RTO a timer chain is allowed, seconds */
#define TAPO_CHAIN_MAX_DOUBLINGS 16   /* a chain of unseen copies counted at most this long, count */
/* With one segment outstanding Linux's probe timer is capped by the RTO;
 * a probe fires clearly before it. */
#define TAPO_PROBE_RTO_SHARE 0.75
/* A tail-loss probe with one segment outstanding waits this much longer
 * than 2 SRTT (Linux: TCP_RTO_MIN), seconds. */
#define TAPO_PROBE_SINGLE_EXTRA_S 0.2
/* Expiries of the retransmission timer considered in one silence, count. */
#define TAPO_TIMER_EXPIRIES_MAX 8

/* What is known when a retransmission is seen. */
typedef struct tapo_retx_clues {
    uint64_t signals;            /* loss signals since its last transmission: SACKed later data, or dupacks without SACK */
    uint32_t fast_signals;       /* signals that make a sender retransmit at once: 1 with SACK (RACK), else dupthres */
    double silence_s;            /* sender time since the latest feedback the sender had received, seconds */
    double threshold_s;          /* stall threshold, seconds */
    tapo_opt_s srtt;             /* seconds; unknown without a sample */
    double rto_s;                /* seconds */
    bool open;                   /* ca_state Open or Disorder */
    bool resends_last;           /* nothing was sent above the range */
    bool above_una;              /* the range starts above snd_una: not the head */
    bool since_tx_known;         /* since_tx_s is meaningful */
    double since_tx_s;           /* sender time since the range was last sent, seconds */
} tapo_retx_clues;

/* The trigger of a retransmission the capture saw. */
tapo_trigger tapo_retx_trigger(const tapo_retx_clues *c);

/* What the capture point missed of a range it now sees retransmitted. */
typedef struct tapo_unseen_clues {
    bool original_new;           /* the original is inferred only now (nothing showed it was sent) */
    bool queued_more;            /* then: the lost original was full-sized (or used up the window): more was queued behind it */
    tapo_opt_count unseen_packets;/* sender packets never captured since the previous one seen that can have carried data */
    double since_armed_s;        /* sender time since the retransmission timer was last armed, seconds */
} tapo_unseen_clues;

typedef struct tapo_unseen_estimate {
    uint32_t lost_retransmissions; /* retransmissions of the range lost before the capture point, count */
    tapo_trigger first_trigger;    /* trigger of the first retransmission (of them, or this one) */
    uint32_t unseen_beyond;        /* other unseen packets: transmissions of data above the range, count */
    unsigned inferred;             /* tapo_inferred bits */
} tapo_unseen_estimate;

/* Estimates the transmissions of a range the capture point missed; this
 * copy's own trigger is 'trigger' (tapo_retx_trigger). */
void tapo_retx_unseen(const tapo_retx_clues *c, const tapo_unseen_clues *u, tapo_trigger trigger,
                      tapo_unseen_estimate *out);

#endif /* TAPO_RECOVERY_H */
