/* whatif.h: how long a stall would have lasted with the mitigation its
 * cause calls for, where a model can be defended (spec section 9;
 * docs/causes.md, "What-if savings", with the sources and the lab's
 * check of each model).
 *
 * Two models, both of Linux's RACK-TLP loss recovery (RFC 8985):
 * - a tail loss probe for a `tail` stall in Open state with nothing sent
 *   after the lost segment: the probe leaves at the probe timeout,
 *   PTO = 2 SRTT, plus 200 ms (the worst-case delayed ACK) when a single
 *   segment is outstanding, at most the RTO (RFC 8985 section 7.2);
 * - RACK for a `tail` or `small-cwnd` stall where segments sent after the
 *   lost one were acknowledged (duplicate ACKs or SACKs, too few for the
 *   duplicate-ACK threshold): the loss is detected a reordering window,
 *   SRTT / 4, after that ACK (RFC 8985 section 6.2).
 * Other causes get no figure: a double needs its lost retransmission
 * detected (S-RTO is no Linux mechanism, and RACK needs later segments the
 * capture rarely has), F-RTO undoes an ack-delay timeout's cwnd reduction
 * but not the stall, and what a larger receive window would have sent
 * cannot be known.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_WHATIF_H
#define TAPO_WHATIF_H

#include <stdbool.h>

#include "record/stall.h"

/* Linux's TCP_RTO_MIN, added to the probe timeout for one segment out:
 * the receiver may delay its ACK that long. */
#define TAPO_WHATIF_DELAYED_ACK_S 0.2

typedef enum {
    TAPO_MITIGATION_NONE,
    TAPO_MITIGATION_TLP,          /* tail loss probe */
    TAPO_MITIGATION_RACK,         /* time-based loss detection */
    TAPO_MITIGATION_COUNT
} tapo_mitigation;

const char *tapo_mitigation_name(tapo_mitigation m);

typedef struct tapo_whatif {
    tapo_mitigation mitigation;
    double duration_s;            /* the stall with it, seconds */
    double saving_s;              /* the stall's duration less that, never below 0, seconds */
} tapo_whatif;

/* The model for verdict v; false (mitigation NONE) when none applies. */
bool tapo_whatif_of(const tapo_verdict *v, tapo_whatif *out);

#endif /* TAPO_WHATIF_H */
