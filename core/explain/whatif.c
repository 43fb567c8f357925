/* whatif.c: see whatif.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "explain/whatif.h"

#include <math.h>

static const char *const mitigation_names[TAPO_MITIGATION_COUNT] = {
    "", "tail loss probe", "RACK"
};

const char *tapo_mitigation_name(tapo_mitigation m)
{
    return (unsigned)m < TAPO_MITIGATION_COUNT ? mitigation_names[m] : "";
}

static bool model(tapo_whatif *out, tapo_mitigation m, double with_s, double duration_s)
{
    out->mitigation = m;
    out->duration_s = fmin(with_s, duration_s);
    out->saving_s = duration_s - out->duration_s;
    return true;
}

bool tapo_whatif_of(const tapo_verdict *v, tapo_whatif *out)
{
    const tapo_snapshot *snap = &v->view->snap;
    const tapo_cur *cur = &snap->cur;
    *out = (tapo_whatif){ TAPO_MITIGATION_NONE, v->duration_s, 0.0 };
    bool timer = cur->first_retrans == TAPO_TRIGGER_TIMEOUT && cur->retrans_count == 1;
    if (!timer || !snap->srtt.known || snap->srtt.s <= 0.0)
        return false;   /* the sender probed already, or no round trip to model with */
    bool signalled = snap->loss_signals > 0 && cur->segs_sent_after > 0;
    if ((v->cause == TAPO_CAUSE_TAIL || v->cause == TAPO_CAUSE_SMALL_CWND) && signalled)
        return model(out, TAPO_MITIGATION_RACK, snap->srtt.s / 4.0, v->duration_s);
    if (v->cause == TAPO_CAUSE_TAIL && cur->segs_sent_after == 0 && snap->ca_state == TAPO_CA_OPEN) {
        double pto = 2.0 * snap->srtt.s + (snap->packets_out == 1 ? TAPO_WHATIF_DELAYED_ACK_S : 0.0);
        return model(out, TAPO_MITIGATION_TLP, fmin(pto, snap->rto_s), v->duration_s);
    }
    return false;
}
