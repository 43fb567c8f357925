/* fuzz_conversation.c: feeds arbitrary packet sequences (packet_stream.h)
 * to one conversation and renders every stall in both passes, checking the
 * verdicts' invariants.  Built as a libFuzzer target with clang
 * (-DTAPO_FUZZ=ON), or with standalone_main.c to replay inputs (the
 * regression test of every input that once crashed).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/classifier.h"
#include "connection/conversation.h"
#include "packet_stream.h"
#include "explain/stall_fields.h"
#include "verdict/verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Evidence links point at earlier frames (the stall's own for a window
 * update), or at frames seen by the end; every field renders, and the
 * decision line names the cause's rule. */
static void check_fields(const tapo_verdict *v, const tapo_stall_record *rec,
                         const tapo_conv_summary *sum, const tapo_config *cfg, uint32_t last_frame)
{
    const tapo_snapshot *s = &v->view->snap;
    if (s->cur.orig_frame >= rec->frame || s->cur.first_retx_frame >= rec->frame ||
        s->cur.loss_signal_frame >= rec->frame || s->window_closed_frame >= rec->frame)
        abort();
    if (v->facts->dsack_frame > last_frame || v->facts->window_open_frame > last_frame)
        abort();
    tapo_field_value fields[TAPO_F_COUNT];
    tapo_field_text text;
    tapo_stall_fields(v, sum, cfg, NULL, NULL, fields, &text);
    const char *rule = tapo_cause_rule(tapo_cause_get(v->cause), cfg);
    if (!g_str_has_prefix(fields[TAPO_F_RULE].s, rule) || fields[TAPO_F_RULE].s[strlen(rule)] != ' ')
        abort();
}

/* What every verdict must satisfy, whatever the input. */
static void check_verdict(const tapo_verdict *v)
{
    const tapo_snapshot *s = &v->view->snap;
    if ((unsigned)v->cause >= TAPO_CAUSE_COUNT || (unsigned)v->category >= TAPO_CATEGORY_COUNT)
        abort();
    if (v->retransmission != tapo_cause_get(v->cause)->retransmission)
        abort();
    if (v->in_flight != tapo_in_flight(s, v->lost_out))
        abort();
    if (!(v->position >= 0.0 && v->position <= 1.0))
        abort();
    if (!(v->duration_s >= 0.0) || !(s->threshold_s >= 0.0) || (unsigned)s->vantage >= TAPO_VANTAGE_COUNT)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tapo_config cfg;
    tapo_stream_reader r;
    tapo_stream_open(&r, data, size, &cfg);
    tapo_conv conv;
    tapo_conv_init(&conv, &cfg);
    GPtrArray *records = g_ptr_array_new_with_free_func(g_free);
    tapo_packet p;
    uint32_t last_frame = 0;
    while (tapo_stream_next(&r, &p)) {
        tapo_stall_record *rec = tapo_conv_process(&conv, &p, &cfg, &tapo_heap_records);
        if (rec)
            g_ptr_array_add(records, rec);
        last_frame = p.frame > last_frame ? p.frame : last_frame;
    }
    tapo_conv_summary sum;
    tapo_conv_summarize(&conv, &sum);
    for (unsigned i = 0; i < records->len; i++) {
        for (int final = 0; final < 2; final++) {
            tapo_verdict v;
            if (tapo_conv_verdict(&sum, records->pdata[i], &cfg, final, &v)) {
                check_verdict(&v);
                check_fields(&v, records->pdata[i], &sum, &cfg, last_frame);
            }
        }
    }
    tapo_conv_destroy(&conv);
    g_ptr_array_free(records, TRUE);
    return 0;
}
