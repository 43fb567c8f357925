/* vocabulary.h: the names TAPO shows to users, in one place.
 *
 * Every cause, category, congestion state, retransmission trigger and file
 * position has one enum member and one row in a table.  The display-filter
 * strings, expert-info summaries, statistics nodes and the docs' cause table
 * all come from these rows, so they cannot drift apart.  The strings are the
 * contract of ../shared/docs/tapo-spec.md section 5: never rename them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_VOCABULARY_H
#define TAPO_VOCABULARY_H

#include <stdbool.h>

/* Stall causes, ordered by the precedence of the decision tree (spec section
 * 4).  The timeout-retransmission causes come first: a proven-spurious one
 * (ack-delay, rule 1.0), then the paper's Table 5 order (with
 * tapo.rule_order paper, ack-delay moves after continuous-loss, as rule
 * 1.5: classifier.c).  "undetermined" exists twice: once as the last retransmission
 * sub-rule (category network) and once as the tree's final fallback
 * (category unknown); both show the same filter string. */
typedef enum {
    TAPO_CAUSE_ACK_DELAY,
    TAPO_CAUSE_F_DOUBLE,
    TAPO_CAUSE_T_DOUBLE,
    TAPO_CAUSE_TAIL,
    TAPO_CAUSE_SMALL_RWND,
    TAPO_CAUSE_SMALL_CWND,
    TAPO_CAUSE_CONTINUOUS_LOSS,
    TAPO_CAUSE_LARGE_DUPTHRES,
    TAPO_CAUSE_RETRANS_UNDETERMINED,
    TAPO_CAUSE_ZERO_WINDOW,
    TAPO_CAUSE_DATA_UNAVAILABLE,
    TAPO_CAUSE_RESOURCE_CONSTRAINT,
    TAPO_CAUSE_CLIENT_IDLE,
    TAPO_CAUSE_PACKET_DELAY,
    TAPO_CAUSE_UNDETERMINED,
    TAPO_CAUSE_COUNT
} tapo_cause;

typedef enum {
    TAPO_CATEGORY_SERVER,
    TAPO_CATEGORY_CLIENT,
    TAPO_CATEGORY_NETWORK,
    TAPO_CATEGORY_UNKNOWN,
    TAPO_CATEGORY_COUNT
} tapo_category;

/* How loudly Wireshark's expert info reports a cause. */
typedef enum {
    TAPO_SEVERITY_NOTE,
    TAPO_SEVERITY_WARN
} tapo_severity;

typedef struct {
    const char *name;            /* filter string, e.g. "f-double" */
    tapo_category category;
    bool retransmission;         /* a timeout-retransmission cause (spec rule 1) */
    tapo_severity severity;
    const char *summary;         /* fixed expert-info summary */
    const char *advice;          /* what to check or change, on which machine: a template (advice.h) */
    const char *mitigation;      /* what the paper and the literature propose */
    const char *rule;            /* its rule in spec section 4, e.g. "1.3" */
} tapo_cause_info;

const tapo_cause_info *tapo_cause_get(tapo_cause cause);
const char *tapo_category_name(tapo_category category);

/* Linux congestion-avoidance states (paper Figure 4). */
typedef enum {
    TAPO_CA_OPEN,
    TAPO_CA_DISORDER,
    TAPO_CA_RECOVERY,
    TAPO_CA_LOSS,
    TAPO_CA_COUNT
} tapo_ca_state;

const char *tapo_ca_state_name(tapo_ca_state state);

/* What made the sender retransmit a segment (spec section 2). */
typedef enum {
    TAPO_TRIGGER_NONE,           /* never retransmitted */
    TAPO_TRIGGER_FAST,           /* loss signals (dupacks, SACKs) since it was last sent */
    TAPO_TRIGGER_TIMEOUT,        /* the retransmission timer */
    TAPO_TRIGGER_PROBE,          /* a tail-loss probe */
    TAPO_TRIGGER_COUNT
} tapo_trigger;

/* Name for the first_retrans field; NULL for TAPO_TRIGGER_NONE. */
const char *tapo_trigger_name(tapo_trigger trigger);

/* Where the sender is in the current response (paper Table 2, file_pos). */
typedef enum {
    TAPO_FILE_POS_HEAD,
    TAPO_FILE_POS_MIDDLE,
    TAPO_FILE_POS_TAIL,
    TAPO_FILE_POS_COUNT
} tapo_file_pos;

const char *tapo_file_pos_name(tapo_file_pos pos);

/* Where the capture was taken, relative to the analysed sender (spec
 * section 1). */
typedef enum {
    TAPO_VANTAGE_SENDER,         /* at the sender or next to it: the paper's vantage */
    TAPO_VANTAGE_RECEIVER,       /* at the receiver or next to it */
    TAPO_VANTAGE_MIDDLE,         /* in the path: a tap, a mirror port, a load balancer */
    TAPO_VANTAGE_COUNT
} tapo_vantage;

const char *tapo_vantage_name(tapo_vantage vantage);

/* How a vantage or a sender was decided. */
typedef enum {
    TAPO_BASIS_DEFAULT,          /* nothing measured yet: the paper's assumption */
    TAPO_BASIS_HANDSHAKE,        /* SYN, SYN-ACK and ACK timing, or who answered the SYN */
    TAPO_BASIS_TURNAROUND,       /* data-to-ACK and ACK-to-data turnarounds */
    TAPO_BASIS_DATA,             /* the endpoint that sent more payload */
    TAPO_BASIS_DIRECTION,        /* both endpoints send bulk data: the one whose data was in flight */
    TAPO_BASIS_PREFERENCE,       /* forced by a preference */
    TAPO_BASIS_PORTS,            /* the server's port: a system port, or one below the ephemeral range */
    TAPO_BASIS_HOPS,             /* only one endpoint's packets crossed no router (their TTL) */
    TAPO_BASIS_SAME_HOST,        /* both endpoints have one address: the capture is at both ends */
    TAPO_BASIS_COUNT
} tapo_basis;

const char *tapo_basis_name(tapo_basis basis);

/* Which endpoint of a conversation is analysed as the sender. */
typedef enum {
    TAPO_ROLE_RESPONDER,         /* answered the SYN */
    TAPO_ROLE_INITIATOR,         /* sent the SYN */
    TAPO_ROLE_COUNT
} tapo_role;

const char *tapo_role_name(tapo_role role);

/* What a verdict relies on that the capture could not see (spec section 5,
 * tapo.stall.inferred).  Bits, rendered in this order. */
typedef enum {
    TAPO_INFERRED_ORIGINAL_LOST = 1 << 0,   /* cur's segment was first sent in a copy lost before the capture point */
    TAPO_INFERRED_RETX_LOST = 1 << 1,       /* earlier retransmissions of it were lost before the capture point */
    TAPO_INFERRED_BY_IP_ID = 1 << 2,        /* counted from gaps in the sender's IPv4 IDs */
    TAPO_INFERRED_ACK_UNSEEN = 1 << 3,      /* the sender's silence shows it had an ACK the capture does not show */
    TAPO_INFERRED_ACKS_LATE = 1 << 4,       /* the sender had not yet received ACKs the capture shows */
    TAPO_INFERRED_DELAY_UNSEEN = 1 << 5,    /* a delay between the capture point and the sender would look the same */
    TAPO_INFERRED_PATH_RTT = 1 << 6,        /* SRTT and RTO include a round trip the capture measured only in part */
    TAPO_INFERRED_COUNT_BITS = 7
} tapo_inferred;

/* Description of one inferred bit, for the field and the docs. */
const char *tapo_inferred_text(tapo_inferred bit);

/* How sure a verdict is (spec section 8, tapo.stall.confidence). */
typedef enum {
    TAPO_CONFIDENCE_HIGH,        /* nothing the verdict rests on is uncertain */
    TAPO_CONFIDENCE_MEDIUM,      /* some of the stall's context is uncertain, not what the rule that fired read */
    TAPO_CONFIDENCE_LOW,         /* what the rule that fired read is uncertain, or no rule explains the stall */
    TAPO_CONFIDENCE_COUNT
} tapo_confidence;

const char *tapo_confidence_name(tapo_confidence confidence);

/* Why a verdict is not more certain (tapo.stall.caveat): a closed
 * vocabulary, bits rendered in this order.  docs/causes.md lists them. */
typedef enum {
    TAPO_CAVEAT_NO_RTT_SAMPLE = 1 << 0,       /* the threshold is the initial RTO: no RTT sample yet */
    TAPO_CAVEAT_NO_HANDSHAKE = 1 << 1,        /* the vantage or the sender was decided without a handshake */
    TAPO_CAVEAT_INFERRED = 1 << 2,            /* it relies on transmissions the capture could not see */
    TAPO_CAVEAT_CAPTURE_GAP = 1 << 3,         /* the capture missed packets of the connection */
    TAPO_CAVEAT_CLOCK = 1 << 4,               /* the capture's clock went backwards or jumped */
    TAPO_CAVEAT_WINDOW_SCALE = 1 << 5,        /* the window scale is unknown (handshake not captured) */
    TAPO_CAVEAT_AUDITED = 1 << 6,             /* the packets contradicted the decision tree's cause */
    TAPO_CAVEAT_UNEXPLAINED = 1 << 7,         /* no rule of the tree explains the stall */
    TAPO_CAVEAT_BARE_ACK = 1 << 8,            /* a bare ACK ended it: what the gap held is read from an ACK */
    TAPO_CAVEAT_SENDER_CHOICE = 1 << 9,       /* the data did not settle the sender (sender_choice.h) */
    TAPO_CAVEAT_PENDING_REQUEST = 1 << 10,    /* the receiver spoke again while its request was unanswered */
    TAPO_CAVEAT_COUNT_BITS = 11
} tapo_caveat;

/* The caveat's name in tapo.stall.caveat, and a sentence for the docs. */
const char *tapo_caveat_name(tapo_caveat bit);
const char *tapo_caveat_text(tapo_caveat bit);

/* Where in the connection's life a stall happened (docs/algorithm.md,
 * "Phases"). */
typedef enum {
    TAPO_PHASE_HANDSHAKE,        /* SYN or SYN-ACK retries, unanswered SYNs, a late handshake */
    TAPO_PHASE_DATA,
    TAPO_PHASE_TEARDOWN,         /* FIN retries, idle closes, aborts */
    TAPO_PHASE_COUNT
} tapo_phase;

const char *tapo_phase_name(tapo_phase phase);

#endif /* TAPO_VOCABULARY_H */
