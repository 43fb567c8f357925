/* classifier.h: the paper's decision tree (spec section 4) as a pure
 * function of a stall snapshot and its facts.  No Wireshark, no state.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CLASSIFIER_H
#define TAPO_CLASSIFIER_H

#include "base/config.h"
#include "record/stall.h"

/* Names the cause of one stall.  The caller fills final, position and
 * sender of the result. */
tapo_verdict tapo_classify(const tapo_snapshot *snap, const tapo_facts *facts,
                           const tapo_config *cfg);

#define TAPO_RULE_LINE_MAX 512   /* bytes, for the decision line */

/* The decision path in one line (tapo.stall.rule): the rule that fired,
 * its cause, and the values it compared, e.g. "1.3 small-cwnd:
 * retransmission; in_flight 2 < 4 segments; rwnd 65160 >= 4 MSS (5792
 * bytes)".  It is written by the same predicates that decide the cause. */
void tapo_classify_explain(const tapo_snapshot *snap, const tapo_facts *facts,
                           const tapo_config *cfg, char line[TAPO_RULE_LINE_MAX]);

/* The rule of spec section 4 that names a cause under cfg's rule order:
 * ack-delay is rule 1.0 in the evidence order, 1.5 in the paper's. */
#define TAPO_ACK_DELAY_PAPER_RULE "1.5"
const char *tapo_cause_rule(const tapo_cause_info *info, const tapo_config *cfg);

/* in_flight = packets_out + retrans_out - (sacked_out + lost_out), paper
 * equation 1, in segments and never negative. */
uint32_t tapo_in_flight(const tapo_snapshot *snap, uint32_t lost_out);

#endif /* TAPO_CLASSIFIER_H */
