/* breakdown.c: see breakdown.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "explain/breakdown.h"

#include "explain/whatif.h"

#include <limits.h>

const char *const tapo_duration_bucket_names[TAPO_DURATION_BUCKETS] = {
    "0-99", "100-199", "200-499", "500-999", "1000-1999", "2000-4999", "5000-"
};
const int tapo_duration_bucket_floor_ms[TAPO_DURATION_BUCKETS] = {
    0, 100, 200, 500, 1000, 2000, 5000
};

int tapo_milliseconds(double seconds)
{
    double ms = seconds * 1000.0 + 0.5;
    if (!(ms >= 0.0))
        return 0;
    return ms > (double)INT_MAX ? INT_MAX : (int)ms;
}

unsigned tapo_duration_bucket(int ms)
{
    unsigned b = 0;
    while (b + 1 < TAPO_DURATION_BUCKETS && ms >= tapo_duration_bucket_floor_ms[b + 1])
        b++;
    return b;
}

/* root / category / [timeout retransmission /] cause. */
static tapo_breakdown_path by_cause(const char *root, const tapo_verdict *v, int amount)
{
    tapo_breakdown_path p = { { root, tapo_category_name(v->category) }, 2, amount };
    if (v->retransmission)
        p.node[p.depth++] = TAPO_NODE_RETRANSMISSION;
    p.node[p.depth++] = tapo_cause_get(v->cause)->name;
    return p;
}

unsigned tapo_breakdown(const tapo_verdict *v, tapo_breakdown_path out[TAPO_BREAKDOWN_PATHS])
{
    const tapo_snapshot *snap = &v->view->snap;
    int ms = tapo_milliseconds(v->duration_s);
    unsigned n = 0;
    out[n++] = by_cause(TAPO_NODE_STALLS, v, 1);
    out[n++] = by_cause(TAPO_NODE_TIME, v, ms);
    if (v->cause == TAPO_CAUSE_F_DOUBLE || v->cause == TAPO_CAUSE_T_DOUBLE)
        out[n++] = (tapo_breakdown_path){ { TAPO_NODE_DOUBLE, tapo_cause_get(v->cause)->name }, 2, ms };
    if (v->cause == TAPO_CAUSE_TAIL)
        out[n++] = (tapo_breakdown_path){ { TAPO_NODE_TAIL, tapo_ca_state_name(snap->ca_state) }, 2, ms };
    out[n++] = (tapo_breakdown_path){
        { TAPO_NODE_PHASE, tapo_phase_name(v->phase), tapo_cause_get(v->cause)->name }, 3, 1 };
    out[n++] = (tapo_breakdown_path){ { TAPO_NODE_VANTAGE, tapo_vantage_name(snap->vantage) }, 2, 1 };
    out[n++] = (tapo_breakdown_path){
        { TAPO_NODE_CONFIDENCE, tapo_confidence_name(v->confidence), tapo_cause_get(v->cause)->name }, 3, 1 };
    for (unsigned i = 0; i < TAPO_CAVEAT_COUNT_BITS; i++)
        if (v->caveats & (1u << i))
            out[n++] = (tapo_breakdown_path){ { TAPO_NODE_CAVEATS, tapo_caveat_name((tapo_caveat)(1u << i)) }, 2, 1 };
    tapo_whatif w;
    if (tapo_whatif_of(v, &w))
        out[n++] = (tapo_breakdown_path){ { TAPO_NODE_SAVINGS, tapo_mitigation_name(w.mitigation),
                                            tapo_cause_get(v->cause)->name }, 3, tapo_milliseconds(w.saving_s) };
    return n;
}
