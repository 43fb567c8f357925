/* verdict.c: see verdict.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "verdict/verdict.h"

#include <math.h>

#include "verdict/audit.h"
#include "verdict/classifier.h"
#include "roles/sender_choice.h"

/* Where in the connection's life the stall happened: the handshake while
 * a SYN or SYN-ACK ends it or the handshake is still open; the teardown
 * once a FIN or reset ends it or was sent before, or when the stall is
 * an idle connection closed (the sender's data followed only by its FIN);
 * else the data. */
static tapo_phase phase_of(const tapo_verdict *v)
{
    const tapo_snapshot *snap = &v->view->snap;
    if (snap->cur.syn || snap->handshake_open)
        return TAPO_PHASE_HANDSHAKE;
    bool idle_close = v->facts->closing && v->cause == TAPO_CAUSE_CLIENT_IDLE;
    if (snap->cur.fin || snap->cur.rst || snap->closing || idle_close)
        return TAPO_PHASE_TEARDOWN;
    return TAPO_PHASE_DATA;
}

/* The sender's bare ACK of a pending request that it did not answer next
 * (hindsight; not yet, at the packet) delayed none of the sender's data:
 * only the data it acknowledged, which is the peer's stall if any
 * (sender_choice.c). */
static bool acknowledges_only(const tapo_snapshot *snap, const tapo_facts *facts)
{
    return tapo_cur_is_bare_ack(&snap->cur) && snap->request_pending && snap->packets_out == 0 && !facts->answered;
}

bool tapo_conv_verdict(const tapo_conv_summary *sum, const tapo_stall_record *rec,
                       const tapo_config *cfg, bool final, tapo_verdict *v)
{
    tapo_basis basis = rec->sender_basis_at_packet;
    int sender = final ? tapo_conv_sender(sum, cfg, rec, &basis) : rec->sender_at_packet;
    const tapo_stall_view *view = &rec->view[sender];
    const tapo_facts *facts = final ? &view->facts_final : &view->facts_at_packet;
    if (!view->stalled || facts->revoked || acknowledges_only(&view->snap, facts))
        return false;
    *v = tapo_classify(&view->snap, facts, cfg);
    v->duration_s = facts->duration_s;
    v->prev_frame = facts->prev_frame;
    v->final = final;
    v->sender = sender;
    v->sender_basis = basis;
    v->sender_uncertain = tapo_conv_sender_uncertain(sum, sender, basis, view);
    v->sender_role_known = sum->initiator.known;
    v->sender_role = sender == sum->initiator.e ? TAPO_ROLE_INITIATOR : TAPO_ROLE_RESPONDER;
    v->view = view;
    v->facts = facts;
    tapo_audit(view, facts, final && sum->ids_shared[sender], cfg, v);
    v->phase = phase_of(v);
    uint64_t total = final ? sum->payload_bytes[sender] : view->bytes_at_packet;
    double position = total ? (double)view->snap.cur.data_offset / (double)total : 0.0;
    v->position = fmin(1.0, position);
    return true;
}
