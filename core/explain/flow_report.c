/* flow_report.c: see flow_report.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "explain/flow_report.h"

#include <math.h>
#include <string.h>

#include <glib.h>

#include "explain/whatif.h"

const unsigned tapo_flow_ratio_quantiles[TAPO_FLOW_QUANTILE_COUNT] = { 50, 75, 90, 95, 99, 100 };

#define COLUMN(id, name, kind, storage, member) \
    [id] = { name, kind, storage, offsetof(tapo_flow_row, member) }
#define DERIVED_COLUMN(id, name) [id] = { name, TAPO_FLOW_SECONDS, TAPO_FLOW_DERIVED, 0 }

const tapo_flow_column tapo_flow_columns[TAPO_FLOW_COLUMNS] = {
    COLUMN(TAPO_FLOW_FILE, "file", TAPO_FLOW_TEXT, TAPO_FLOW_IN_TEXT, file),
    COLUMN(TAPO_FLOW_FIRST_FRAME, "first_frame", TAPO_FLOW_COUNT, TAPO_FLOW_IN_U32, first_frame),
    COLUMN(TAPO_FLOW_CLIENT, "client", TAPO_FLOW_TEXT, TAPO_FLOW_IN_TEXT, client),
    COLUMN(TAPO_FLOW_SERVER, "server", TAPO_FLOW_TEXT, TAPO_FLOW_IN_TEXT, server),
    COLUMN(TAPO_FLOW_START, "start_s", TAPO_FLOW_SECONDS, TAPO_FLOW_IN_DOUBLE, start_s),
    COLUMN(TAPO_FLOW_DURATION, "duration_s", TAPO_FLOW_SECONDS, TAPO_FLOW_IN_DOUBLE, duration_s),
    COLUMN(TAPO_FLOW_BYTES_TO_SERVER, "bytes_to_server", TAPO_FLOW_COUNT, TAPO_FLOW_IN_U64, bytes_to_server),
    COLUMN(TAPO_FLOW_BYTES_TO_CLIENT, "bytes_to_client", TAPO_FLOW_COUNT, TAPO_FLOW_IN_U64, bytes_to_client),
    COLUMN(TAPO_FLOW_STALLS, "stalls", TAPO_FLOW_COUNT, TAPO_FLOW_IN_U32, stalls),
    COLUMN(TAPO_FLOW_STALLED, "stalled_time_s", TAPO_FLOW_SECONDS, TAPO_FLOW_IN_DOUBLE, stalled_s),
    DERIVED_COLUMN(TAPO_FLOW_RATIO, "stall_ratio"),
    COLUMN(TAPO_FLOW_DOMINANT, "dominant_cause", TAPO_FLOW_TEXT, TAPO_FLOW_IN_CAUSE_NAME, dominant),
    COLUMN(TAPO_FLOW_DOMINANT_TIME, "dominant_cause_time_s", TAPO_FLOW_SECONDS, TAPO_FLOW_IN_DOUBLE, dominant_s),
    COLUMN(TAPO_FLOW_ADVICE, "advice", TAPO_FLOW_TEXT, TAPO_FLOW_IN_TEXT, advice),
    COLUMN(TAPO_FLOW_VANTAGE, "vantage", TAPO_FLOW_TEXT, TAPO_FLOW_IN_VANTAGE_NAME, vantage),
    COLUMN(TAPO_FLOW_LOW_CONFIDENCE, "low_confidence_stalls", TAPO_FLOW_COUNT, TAPO_FLOW_IN_U32, low_confidence),
    COLUMN(TAPO_FLOW_HANDSHAKE, "handshake_stalls", TAPO_FLOW_COUNT, TAPO_FLOW_IN_U32, handshake_stalls),
    COLUMN(TAPO_FLOW_TEARDOWN, "teardown_stalls", TAPO_FLOW_COUNT, TAPO_FLOW_IN_U32, teardown_stalls),
    COLUMN(TAPO_FLOW_SAVING, "whatif_saving_s", TAPO_FLOW_SECONDS, TAPO_FLOW_IN_DOUBLE, saving_s),
    DERIVED_COLUMN(TAPO_FLOW_IDLE, "idle_time_s"),
};

/* ---- a row ---------------------------------------------------------------- */

void tapo_flow_row_free(tapo_flow_row *f)
{
    if (!f)
        return;
    g_free(f->file);
    g_free(f->client);
    g_free(f->server);
    g_free(f->advice);
    g_free(f);
}

tapo_flow_row *tapo_flow_row_copy(const tapo_flow_row *f)
{
    tapo_flow_row *c = g_memdup2(f, sizeof *f);
    c->file = g_strdup(f->file);
    c->client = g_strdup(f->client);
    c->server = g_strdup(f->server);
    c->advice = g_strdup(f->advice);
    return c;
}

void tapo_flow_add_stall(tapo_flow_row *f, const tapo_verdict *v, uint32_t place)
{
    f->stalls++;
    f->latest_by_cause[v->cause] = place;
    f->stalled_s += v->duration_s;
    f->stalled_by_cause_s[v->cause] += v->duration_s;
    f->stalls_by_cause[v->cause]++;
    f->vantage = tapo_vantage_name(v->view->snap.vantage);
    f->low_confidence += v->confidence == TAPO_CONFIDENCE_LOW;
    f->handshake_stalls += v->phase == TAPO_PHASE_HANDSHAKE;
    f->teardown_stalls += v->phase == TAPO_PHASE_TEARDOWN;
    tapo_whatif what;
    if (tapo_whatif_of(v, &what))
        f->saving_s += what.saving_s;
}

bool tapo_flow_cause_is(tapo_cause cause, const char *name)
{
    return name && strcmp(tapo_cause_get(cause)->name, name) == 0;
}

/* One cause name's stalls, every rule of that name together. */
typedef struct named_total {
    const char *name;
    int64_t ns;                       /* stalled time, whole nanoseconds */
    uint32_t count;                   /* stalls */
} named_total;

static named_total total_named(const tapo_flow_row *f, const char *name)
{
    named_total t = { name, 0, 0 };
    double s = 0.0;
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++)
        if (tapo_flow_cause_is((tapo_cause)c, name)) {
            s += f->stalled_by_cause_s[c];
            t.count += f->stalls_by_cause[c];
        }
    t.ns = isfinite(s) ? llround(s * 1e9) : 0;
    return t;
}

/* Whether a is the better dominant cause: idle time only when nothing
 * else, then more time, more stalls, the name first alphabetically. */
static bool dominates(const named_total *a, const named_total *b)
{
    bool a_idle = strcmp(a->name, tapo_cause_get(TAPO_CAUSE_CLIENT_IDLE)->name) == 0;
    bool b_idle = strcmp(b->name, tapo_cause_get(TAPO_CAUSE_CLIENT_IDLE)->name) == 0;
    if (a_idle != b_idle)
        return b_idle;
    if (a->ns != b->ns)
        return a->ns > b->ns;
    if (a->count != b->count)
        return a->count > b->count;
    return strcmp(a->name, b->name) < 0;
}

void tapo_flow_decide(tapo_flow_row *f)
{
    named_total best = { NULL, 0, 0 };
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        if (!f->stalls_by_cause[c])
            continue;
        named_total t = total_named(f, tapo_cause_get((tapo_cause)c)->name);
        if (!best.name || dominates(&t, &best))
            best = t;
    }
    f->dominant = best.name;
    f->dominant_s = 0.0;
    for (int c = 0; best.name && c < TAPO_CAUSE_COUNT; c++)
        if (tapo_flow_cause_is((tapo_cause)c, best.name))
            f->dominant_s += f->stalled_by_cause_s[c];
}

uint32_t tapo_flow_advice_place(const tapo_flow_row *f)
{
    uint32_t latest = 0;
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++)
        if (tapo_flow_cause_is((tapo_cause)c, f->dominant) && f->latest_by_cause[c] > latest)
            latest = f->latest_by_cause[c];
    return latest;
}

double tapo_flow_ratio(const tapo_flow_row *f)
{
    if (f->duration_s <= 0.0)
        return f->stalled_s > 0.0 ? 1.0 : 0.0;
    double r = f->stalled_s / f->duration_s;
    return r > 1.0 ? 1.0 : r;
}

double tapo_flow_idle_s(const tapo_flow_row *f)
{
    return f->stalled_by_cause_s[TAPO_CAUSE_CLIENT_IDLE];
}

/* ---- ranking -------------------------------------------------------------- */

bool tapo_flow_actionable(tapo_category category)
{
    return category == TAPO_CATEGORY_NETWORK || category == TAPO_CATEGORY_SERVER;
}

tapo_rank tapo_rank_of(const double stalled_by_cause_s[TAPO_CAUSE_COUNT])
{
    tapo_rank r = { 0.0, 0.0, 0.0 };
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        if (c == TAPO_CAUSE_CLIENT_IDLE)
            r.idle_s += stalled_by_cause_s[c];
        else if (tapo_flow_actionable(tapo_cause_get((tapo_cause)c)->category))
            r.act_s += stalled_by_cause_s[c];
        else
            r.other_s += stalled_by_cause_s[c];
    }
    return r;
}

int tapo_rank_compare(const tapo_rank *a, const tapo_rank *b)
{
    if (a->act_s != b->act_s)
        return a->act_s > b->act_s ? -1 : 1;
    if (a->other_s != b->other_s)
        return a->other_s > b->other_s ? -1 : 1;
    if (a->idle_s != b->idle_s)
        return a->idle_s > b->idle_s ? -1 : 1;
    return 0;
}

/* ---- columns -------------------------------------------------------------- */

static const void *member(const tapo_flow_row *f, const tapo_flow_column *col)
{
    return (const char *)f + col->offset;
}

tapo_flow_value tapo_flow_get(const tapo_flow_row *f, tapo_flow_column_id id)
{
    const tapo_flow_column *col = &tapo_flow_columns[id];
    tapo_flow_value v = { NULL, 0, 0.0 };
    switch (col->storage) {
    case TAPO_FLOW_IN_TEXT:
        v.text = *(char *const *)member(f, col);
        if (!v.text)
            v.text = "";
        break;
    case TAPO_FLOW_IN_CAUSE_NAME:
    case TAPO_FLOW_IN_VANTAGE_NAME: v.text = *(const char *const *)member(f, col); break;
    case TAPO_FLOW_IN_U32: v.count = *(const uint32_t *)member(f, col); break;
    case TAPO_FLOW_IN_U64: v.count = *(const uint64_t *)member(f, col); break;
    case TAPO_FLOW_IN_DOUBLE: v.number = *(const double *)member(f, col); break;
    case TAPO_FLOW_DERIVED: v.number = id == TAPO_FLOW_RATIO ? tapo_flow_ratio(f) : tapo_flow_idle_s(f); break;
    }
    return v;
}

/* The vocabulary's own copy of a cause's or a vantage's name; NULL: none. */
static const char *known_name(tapo_flow_storage storage, const char *name)
{
    for (int k = 0; name && storage == TAPO_FLOW_IN_CAUSE_NAME && k < TAPO_CAUSE_COUNT; k++)
        if (tapo_flow_cause_is((tapo_cause)k, name))
            return tapo_cause_get((tapo_cause)k)->name;
    for (int k = 0; name && storage == TAPO_FLOW_IN_VANTAGE_NAME && k < TAPO_VANTAGE_COUNT; k++)
        if (strcmp(tapo_vantage_name((tapo_vantage)k), name) == 0)
            return tapo_vantage_name((tapo_vantage)k);
    return NULL;
}

void tapo_flow_set(tapo_flow_row *f, tapo_flow_column_id id, const tapo_flow_value *v)
{
    const tapo_flow_column *col = &tapo_flow_columns[id];
    void *at = (char *)f + col->offset;
    switch (col->storage) {
    case TAPO_FLOW_IN_TEXT:
        g_free(*(char **)at);
        *(char **)at = g_strdup(v->text);
        break;
    case TAPO_FLOW_IN_CAUSE_NAME:
    case TAPO_FLOW_IN_VANTAGE_NAME: *(const char **)at = known_name(col->storage, v->text); break;
    case TAPO_FLOW_IN_U32: *(uint32_t *)at = (uint32_t)v->count; break;
    case TAPO_FLOW_IN_U64: *(uint64_t *)at = v->count; break;
    case TAPO_FLOW_IN_DOUBLE: *(double *)at = v->number; break;
    case TAPO_FLOW_DERIVED: break;
    }
}
