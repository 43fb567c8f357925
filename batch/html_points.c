/* html_points.c: see html_points.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "html_points.h"

#include <string.h>

#include "capture/capture.h"
#include "wire/decode.h"
#include "wire/endpoints.h"

/* A sequence number unwrapped to 64 bits around the latest one seen, so
 * that a graph crosses 2^32 and goes below the first number seen. */
typedef struct unwrapped {
    bool known;
    uint32_t raw;
    int64_t value;
} unwrapped;

static int64_t unwrap(unwrapped *u, uint32_t raw)
{
    if (!u->known) {
        u->known = true;
        u->value = raw;
    } else {
        u->value += (int32_t)(raw - u->raw);
    }
    u->raw = raw;
    return u->value;
}

/* One worst connection being read. */
typedef struct target {
    const tapo_flow_row *flow;
    const tapo_html_stall *stall;     /* any of its stalls: its endpoints and sender */
    GHashTable *named;                /* frames its verdicts name: always drawn */
    GArray *points;                   /* tapo_html_point */
    guint stride;                     /* of the unnamed packets, one in stride is kept */
    uint64_t unnamed;                 /* unnamed packets seen, count */
    unwrapped seq, ack;
    int64_t base;                     /* the sender's first sequence number (its SYN's + 1), unwrapped */
    bool has_base;
    bool reading;                     /* its capture is being read */
    bool done;                        /* past its last packet */
} target;

/* A stall of flow f (its endpoints and sender); the frames of the
 * verdicts the report lists, into named.  NULL: none. */
static const tapo_html_stall *stall_of(const tapo_html_stalls *stalls, const tapo_flow_row *f, GHashTable *named)
{
    GPtrArray *listed = tapo_html_connection_stalls(stalls, f->file, f->first_frame, TAPO_HTML_VERDICTS);
    const tapo_html_stall *any = listed->len ? listed->pdata[0] : NULL;
    for (guint i = 0; i < listed->len; i++) {
        const tapo_html_stall *s = listed->pdata[i];
        g_hash_table_add(named, GUINT_TO_POINTER(s->frame));
        for (unsigned k = 0; k < G_N_ELEMENTS(s->evidence); k++)
            if (s->evidence[k])
                g_hash_table_add(named, GUINT_TO_POINTER(s->evidence[k]));
    }
    g_ptr_array_free(listed, TRUE);
    return any;
}

/* Halves the unnamed points kept so far, and keeps one in twice as many. */
static void thin(target *t)
{
    guint kept = 0, unnamed = 0;
    for (guint i = 0; i < t->points->len; i++) {
        tapo_html_point p = g_array_index(t->points, tapo_html_point, i);
        bool named = g_hash_table_contains(t->named, GUINT_TO_POINTER(p.frame));
        if (!named && unnamed++ % 2 == 1)
            continue;
        g_array_index(t->points, tapo_html_point, kept++) = p;
    }
    g_array_set_size(t->points, kept);
    t->stride *= 2;
}

/* Which endpoint sent seg: 0 as the connection's first packet, 1 back; -1
 * another connection. */
static int sent_by(const tapo_endpoints *first, const tapo_endpoints *seg)
{
    if (tapo_endpoints_equal(first, seg))
        return 0;
    tapo_endpoints back = *seg;
    memcpy(back.src, seg->dst, sizeof back.src);
    memcpy(back.dst, seg->src, sizeof back.dst);
    back.sport = seg->dport;
    back.dport = seg->sport;
    return tapo_endpoints_equal(first, &back) ? 1 : -1;
}

static void add_packet(target *t, const tapo_frame *f, const tapo_segment_fields *seg)
{
    int from = sent_by(&t->stall->ends, &seg->ends);
    if (from < 0)
        return;
    tapo_html_point p = { f->number, (float)(f->time_s - t->flow->start_s), 0, TAPO_HTML_DATA };
    if (from == t->stall->sender) {
        int64_t seq = unwrap(&t->seq, seg->seq_raw);
        if (!t->has_base) {
            t->base = seq + ((seg->flags & TAPO_TCP_SYN) ? 1 : 0);
            t->has_base = true;
        }
        if (seg->payload_len == 0)
            return;
        p.seq = (double)(seq - t->base);
    } else {
        if (!(seg->flags & TAPO_TCP_ACK) || !t->has_base)
            return;
        /* The ACK numbers count the sender's bytes: unwrapped beside them. */
        if (!t->ack.known)
            t->ack = t->seq;
        p.seq = (double)(unwrap(&t->ack, seg->ack_raw) - t->base);
        p.kind = TAPO_HTML_ACK;
    }
    bool named = g_hash_table_contains(t->named, GUINT_TO_POINTER(f->number));
    if (!named && t->unnamed++ % t->stride != 0)
        return;
    g_array_append_val(t->points, p);
    if (t->points->len > TAPO_HTML_POINTS)
        thin(t);
}

/* Reads the packets of the targets that started in file. */
static bool read_file(const char *file, target *targets, guint count, GError **error)
{
    uint32_t first = UINT32_MAX;
    guint open = 0;
    for (guint i = 0; i < count; i++) {
        targets[i].reading = targets[i].stall && strcmp(targets[i].flow->file, file) == 0;
        if (targets[i].reading) {
            first = MIN(first, targets[i].flow->first_frame);
            open++;
        }
    }
    if (!open)
        return true;
    tapo_capture *cap = tapo_capture_open(file, error);
    if (!cap)
        return false;
    tapo_frame f;
    GError *failure = NULL;
    while (open > 0 && tapo_capture_next(cap, &f, &failure)) {
        if (f.number < first || !f.is_packet)
            continue;
        tapo_segment_fields seg;
        memset(&seg, 0, sizeof seg);
        bool tcp = tapo_decode_frame_endpoints(f.encap, f.data, f.caplen, f.len, &seg) == TAPO_DECODE_TCP;
        for (guint i = 0; i < count; i++) {
            target *t = &targets[i];
            if (!t->reading || t->done || f.number < t->flow->first_frame)
                continue;
            /* A microsecond of slack: the row's times went through doubles. */
            if (f.time_s > t->flow->start_s + t->flow->duration_s + 1e-6) {
                t->done = true;
                open--;
                continue;
            }
            if (tcp)
                add_packet(t, &f, &seg);
        }
    }
    tapo_capture_close(cap);
    if (failure) {
        g_propagate_error(error, failure);
        return false;
    }
    return true;
}

GPtrArray *tapo_html_points_read(const tapo_report *report, const tapo_html_stalls *stalls, GError **error)
{
    guint count = MIN(report->worst->len, TAPO_HTML_WORST);
    target *targets = g_new0(target, count);
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint i = 0; i < count; i++) {
        target *t = &targets[i];
        t->flow = report->worst->pdata[i];
        t->named = g_hash_table_new(g_direct_hash, g_direct_equal);
        t->stall = stall_of(stalls, t->flow, t->named);
        t->points = g_array_new(FALSE, FALSE, sizeof(tapo_html_point));
        t->stride = 1;
    }
    for (guint i = 0; i < count; i++) {
        bool seen = false;
        for (guint k = 0; k < i; k++)
            seen = seen || strcmp(targets[k].flow->file, targets[i].flow->file) == 0;
        GError *failure = NULL;
        if (!seen && !read_file(targets[i].flow->file, targets, count, &failure)) {
            if (error && !*error)
                g_propagate_error(error, failure);
            else
                g_error_free(failure);
        }
    }
    for (guint i = 0; i < count; i++) {
        g_ptr_array_add(out, targets[i].points);
        g_hash_table_destroy(targets[i].named);
    }
    g_free(targets);
    return out;
}
