/* audit.c: see audit.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "verdict/audit.h"

#include <stddef.h>

/* What the audit found against the tree's cause: the cause the evidence
 * shows and why; NULL reason: nothing. */
typedef struct finding {
    tapo_cause cause;
    const char *reason;
} finding;

static bool is_double(tapo_cause c)
{
    return c == TAPO_CAUSE_F_DOUBLE || c == TAPO_CAUSE_T_DOUBLE;
}

/* A D-SACK, or an ACK the sender resent past, shows the receiver had the
 * data before this copy: the earlier copy was not lost again.  The
 * retransmission was spurious, its timer fired because ACKs were late or
 * lost (spec rule 1.5; lost_out counts only copies no D-SACK shows
 * arrived, spec section 2). */
static finding dsack_against_double(const tapo_verdict *v, const tapo_facts *facts)
{
    if (is_double(v->cause) && facts->cur_spurious)
        return (finding){ TAPO_CAUSE_ACK_DELAY,
                          "the receiver had this data before (its ACK or D-SACK says so): no copy was lost again" };
    return (finding){ v->cause, NULL };
}

/* packet-delay says no loss: a hole the receiver's SACK blocks showed says
 * there was one, and no retransmission ended the stall.  No rule explains
 * that.  (The sender's own state, Loss after a timeout that turns out
 * spurious, is no such evidence.) */
static finding loss_against_packet_delay(const tapo_verdict *v, const tapo_snapshot *snap)
{
    if (v->cause == TAPO_CAUSE_PACKET_DELAY && snap->holes > 0)
        return (finding){ TAPO_CAUSE_UNDETERMINED,
                          "the receiver's SACK blocks showed a hole (a loss), yet no retransmission ended the stall" };
    return (finding){ v->cause, NULL };
}

/* A reset ends a connection: what the stall was waiting for never came. */
static finding reset_against_delivery(const tapo_verdict *v, const tapo_snapshot *snap)
{
    bool waits_for_delivery = v->cause == TAPO_CAUSE_PACKET_DELAY || v->cause == TAPO_CAUSE_DATA_UNAVAILABLE ||
                              v->cause == TAPO_CAUSE_RESOURCE_CONSTRAINT;
    if (snap->cur.rst && waits_for_delivery)
        return (finding){ TAPO_CAUSE_UNDETERMINED, "a reset ended the stall: the connection was aborted" };
    return (finding){ v->cause, NULL };
}

/* resource-constraint is the application pausing in the middle of a
 * response; data followed by nothing but the sender's FIN, with no request
 * pending, is the sender closing an idle connection (a TLS close_notify,
 * an application's goodbye): spec rule 5. */
static finding close_against_pause(const tapo_verdict *v, const tapo_snapshot *snap, const tapo_facts *facts)
{
    if (v->cause == TAPO_CAUSE_RESOURCE_CONSTRAINT && facts->closing && !snap->request_pending)
        return (finding){ TAPO_CAUSE_CLIENT_IDLE,
                          "the sender's data came right before its FIN: it closed an idle connection" };
    return (finding){ v->cause, NULL };
}

/* Copies counted from the sender's IPv4 IDs (recovery.c) rest on its
 * counter being this connection's; a counter that the capture proves
 * numbered other connections' packets too, at any time (a host does not
 * change its counter in the middle of a connection), makes each skipped
 * ID as likely a packet sent elsewhere: no copy is proven (spec section
 * 8).  What the sender did instead the packets do not tell. */
static finding shared_counter_against_copies(const tapo_verdict *v, const tapo_snapshot *snap, bool counter_shared)
{
    if (counter_shared && v->retransmission && (snap->inferred & TAPO_INFERRED_BY_IP_ID))
        return (finding){ TAPO_CAUSE_UNDETERMINED,
                          "the copies were counted from IP IDs that the capture shows numbered other connections' "
                          "packets too: none is proven" };
    return (finding){ v->cause, NULL };
}

static unsigned caveats_of(const tapo_verdict *v, const tapo_snapshot *snap)
{
    unsigned c = 0;
    /* A SYN or SYN-ACK resent by its timer is a stall whatever the
     * threshold, and what it says is plain: no answer came. */
    bool handshake_retry = snap->cur.handshake_retransmission;
    if (!snap->srtt.known && !handshake_retry)
        c |= TAPO_CAVEAT_NO_RTT_SAMPLE;
    if (!v->sender_role_known)
        c |= TAPO_CAVEAT_NO_HANDSHAKE;
    if (snap->inferred & (TAPO_INFERRED_ORIGINAL_LOST | TAPO_INFERRED_RETX_LOST | TAPO_INFERRED_ACKS_LATE |
                          TAPO_INFERRED_DELAY_UNSEEN | TAPO_INFERRED_ACK_UNSEEN))
        c |= TAPO_CAVEAT_INFERRED;
    if (snap->capture_gap)
        c |= TAPO_CAVEAT_CAPTURE_GAP;
    if (snap->clock_trouble)
        c |= TAPO_CAVEAT_CLOCK;
    bool window_rule = v->cause == TAPO_CAUSE_ZERO_WINDOW || v->cause == TAPO_CAUSE_SMALL_RWND ||
                       v->cause == TAPO_CAUSE_SMALL_CWND;
    if (window_rule && snap->rwnd_seen && !snap->rwnd_scale_known)
        c |= TAPO_CAVEAT_WINDOW_SCALE;
    if (v->audit_reason)
        c |= TAPO_CAVEAT_AUDITED;
    if ((v->cause == TAPO_CAUSE_UNDETERMINED || v->cause == TAPO_CAUSE_RETRANS_UNDETERMINED) && !handshake_retry)
        c |= TAPO_CAVEAT_UNEXPLAINED;
    /* An ACK carries no data: a delayed ACK, the sender's think time and
     * the path's delay all end a gap with one alike (docs/causes.md,
     * "Confidence": on the verdict set these were the high verdicts that
     * readers refuted). */
    if (tapo_cur_is_bare_ack(&snap->cur))
        c |= TAPO_CAVEAT_BARE_ACK;
    /* Which endpoint is the sender decides the cause (the same packet is
     * one side's think time and the other's idle); where the choice went
     * against the byte counts, or rested on a client's unanswered messages
     * alone, readers of the packets split on it (docs/causes.md,
     * "Confidence"). */
    if (v->sender_uncertain)
        c |= TAPO_CAVEAT_SENDER_CHOICE;
    /* Rule 5 as decided where the receiver spoke again with its own
     * request unanswered (classifier.c, is_client_idle): a message that
     * needed no answer, or a receiver that gave up waiting (a TLS alert
     * before its close), alike in the packets. */
    if (v->cause == TAPO_CAUSE_CLIENT_IDLE && snap->request_pending && snap->cur.dir == TAPO_DIR_IN)
        c |= TAPO_CAVEAT_PENDING_REQUEST;
    return c;
}

/* Low when what the rule that fired read is uncertain: a retransmission
 * cause resting on transmissions never seen, a window cause without the
 * window scale, packet-delay (RTT jitter) judged without an RTT sample;
 * or when no rule explains the stall. */
static tapo_confidence confidence_of(const tapo_verdict *v, const tapo_snapshot *snap, unsigned caveats)
{
    const tapo_cause_info *info = tapo_cause_get(v->cause);
    bool unexplained = (v->cause == TAPO_CAUSE_UNDETERMINED || v->cause == TAPO_CAUSE_RETRANS_UNDETERMINED) &&
                       !snap->cur.handshake_retransmission;
    bool inferred_retx = info->retransmission &&
                         (snap->inferred & (TAPO_INFERRED_ORIGINAL_LOST | TAPO_INFERRED_RETX_LOST));
    if (unexplained || inferred_retx || (caveats & TAPO_CAVEAT_WINDOW_SCALE) ||
        (v->cause == TAPO_CAUSE_PACKET_DELAY && (caveats & TAPO_CAVEAT_NO_RTT_SAMPLE)))
        return TAPO_CONFIDENCE_LOW;
    return caveats ? TAPO_CONFIDENCE_MEDIUM : TAPO_CONFIDENCE_HIGH;
}

void tapo_audit(const tapo_stall_view *view, const tapo_facts *facts, bool counter_shared, const tapo_config *cfg,
                tapo_verdict *v)
{
    (void)cfg;
    const tapo_snapshot *snap = &view->snap;
    v->tree_cause = v->cause;
    v->audit_reason = NULL;
    finding found[] = {
        dsack_against_double(v, facts),
        loss_against_packet_delay(v, snap),
        reset_against_delivery(v, snap),
        close_against_pause(v, snap, facts),
        shared_counter_against_copies(v, snap, counter_shared),
    };
    for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
        if (found[i].reason) {
            v->cause = found[i].cause;
            v->audit_reason = found[i].reason;
            break;
        }
    }
    const tapo_cause_info *info = tapo_cause_get(v->cause);
    v->category = info->category;
    v->retransmission = info->retransmission;
    v->caveats = caveats_of(v, snap);
    v->confidence = confidence_of(v, snap, v->caveats);
}
