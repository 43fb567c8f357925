/* audit.h: a verdict checked against evidence the rule that fired did not
 * use, before it is shown (spec section 8).
 *
 * The decision tree reads a few numbers of the snapshot; the packets say
 * more.  Where they contradict the tree's cause, the audit changes it,
 * to the cause the evidence shows or to undetermined with the reason (a
 * confident wrong cause is the worst outcome); the reason is appended to
 * the decision line.  Whatever the cause, it says how sure the verdict is
 * (tapo.stall.confidence) and why not more (tapo.stall.caveat).  Every
 * rule is listed in docs/algorithm.md with its evidence.
 *
 * Evidence the audit reads that the state machine also weighs before (so
 * that no verdict rests on it): IPv4 IDs (two consecutive IDs: nothing was
 * sent in between, endpoint.c), keep-alives (not data, sender_send.c),
 * D-SACKs covering only part of a resent segment (not spurious,
 * hindsight.c), ACKs still on their way to the sender (not known to it,
 * sender_state.c) and Karn's rule (sender_receive.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_AUDIT_H
#define TAPO_AUDIT_H

#include "base/config.h"
#include "record/stall.h"

/* Audits v (the decision tree's verdict on view with facts): may change
 * its cause; sets its confidence and caveats.  counter_shared: the
 * sender's IPv4 IDs were proven numbered with other connections' (two
 * passes: anywhere in the capture). */
void tapo_audit(const tapo_stall_view *view, const tapo_facts *facts, bool counter_shared, const tapo_config *cfg,
                tapo_verdict *v);

#endif /* TAPO_AUDIT_H */
