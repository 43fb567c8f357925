/* run_read.c: reading capture files (run_worker.h): independent captures
 * in turn, or simultaneous ones merged by time; each frame decoded and fed
 * to the worker's table (table_feed.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run_worker.h"

#include <stdio.h>
#include <string.h>

#include "wire/decode.h"

#define MESSAGES_PER_FILE 5           /* undecodable frames reported one by one, count */
#define PROGRESS_EVERY_S 1.0          /* wall seconds between progress lines */

static const char *decode_problem(tapo_decode_result r)
{
    switch (r) {
    case TAPO_DECODE_TRUNCATED: return "the TCP/IP headers were cut by the snaplen";
    case TAPO_DECODE_MALFORMED: return "malformed IP or TCP lengths";
    case TAPO_DECODE_UNKNOWN_LINK: return "a link type the batch analyser does not decode";
    default: return NULL;
    }
}

void worker_progress(worker *w, bool last)
{
    if (!w->sh->o->progress || !worker_speaks(w))
        return;
    gint64 now = g_get_monotonic_time();
    if (!last && now - w->progress_last_us < (gint64)(PROGRESS_EVERY_S * 1e6))
        return;
    w->progress_last_us = now;
    double elapsed = (now - w->progress_start_us) / 1e6;
    fprintf(stderr, "\r%" G_GUINT64_FORMAT " packets, %.2f M/s, %.0f s elapsed%s", w->report.packets,
            elapsed > 0 ? w->report.packets / elapsed / 1e6 : 0.0, elapsed, last ? "\n" : "   ");
    fflush(stderr);
}

/* An input could not be read (to its end): said once, by the first
 * worker, with what happens next; the run is incomplete. */
static void input_failed(worker *w, GError *error, const char *next)
{
    if (worker_speaks(w))
        fprintf(stderr, "tapo: %s (%s)\n", error->message, next);
    g_error_free(error);
    w->complete = false;
}

/* Reads the next frame of an input; false at its end. */
static bool read_next(worker *w, run_input *in)
{
    GError *error = NULL;
    if (!tapo_capture_next(in->cap, &in->frame, &error)) {
        if (error)
            input_failed(w, error, "the run goes on with the next capture");
        return false;
    }
    if (worker_speaks(w))
        w->report.packets++;
    return true;
}

/* With several workers, the TCP header is the one's its endpoints hash
 * to, which then reads its options (tapo_decode_options, the frame decoded
 * once): the options of others' segments are never read. */
static bool claim_header(void *ctx, tapo_decode_result *decoded, tapo_segment_fields *seg)
{
    const worker *w = ctx;
    if (tapo_endpoints_either_way_hash(&seg->ends) % w->count != w->index)
        return false;
    if (*decoded == TAPO_DECODE_TCP)
        tapo_decode_options(seg);
    return true;
}

/* The frame decoded: in full by a lone worker, else its endpoints only
 * (claim_header reads the rest); an undecodable frame reported. */
static tapo_decode_result decode(worker *w, run_input *in, tapo_segment_fields *seg)
{
    const tapo_frame *f = &in->frame;
    tapo_decode_result decoded = !f->is_packet ? TAPO_DECODE_OTHER
        : w->count > 1 ? tapo_decode_frame_endpoints(f->encap, f->data, f->caplen, f->len, seg)
        : tapo_decode_frame(f->encap, f->data, f->caplen, f->len, seg);
    const char *problem = decode_problem(decoded);
    if (problem && worker_speaks(w)) {
        w->report.undecodable++;
        if (++in->messages <= MESSAGES_PER_FILE)
            fprintf(stderr, "tapo: %s: frame %u: %s; skipped\n", in->name, f->number, problem);
    }
    return decoded;
}

/* What a segment did: a stall waits to be written (streaming), a new
 * connection counts toward the next look at the memory. */
static void segment_fed(worker *w, const tapo_table_result *result, double clock_s)
{
    w->report.tcp_packets++;
    if (w->pending && result->stall) {
        g_hash_table_add(w->pending, result->conn);
        if (w->sh->o->settle_s <= 0.0)
            worker_write_all_settled(w, clock_s);
    }
    /* Last: an eviction may end the segment's own connection. */
    if (result->started) {
        w->connections++;
        if (w->cap.limit_bytes && ++w->since_cap_check >= CAP_CHECK_CONNECTIONS)
            worker_keep_under_cap(w);
    }
}

void worker_handle(worker *w, run_input *in, tapo_table_clock *k)
{
    const tapo_frame *f = &in->frame;
    if (f->time_s > w->latest_epoch_s)
        w->latest_epoch_s = f->time_s;
    tapo_segment_fields seg = { .ends.family = 0 };
    tapo_decode_result decoded = decode(w, in, &seg);
    tapo_table_result result;
    tapo_fed fed = tapo_table_feed(&w->table, k, f, in->index, decoded, &seg, w->count > 1 ? claim_header : NULL,
                                   w, &result);
    if (fed == TAPO_FED_ANOTHERS || fed == TAPO_FED_QUOTED)
        return;
    if (fed == TAPO_FED_SEGMENT)
        segment_fed(w, &result, k->clock_s);
    if (k->clock_s - w->settled_check_s >= SETTLE_CHECK_S || tapo_run_reopen_requested) {
        w->settled_check_s = k->clock_s;
        if (w->pending)
            worker_write_all_settled(w, k->clock_s);
        worker_upkeep(w);
    }
    worker_progress(w, false);
}
static void close_input(worker *w, run_input *in)
{
    if (in->messages > MESSAGES_PER_FILE && worker_speaks(w))
        fprintf(stderr, "tapo: %s: %u frames skipped in all\n", in->name, in->messages);
    tapo_capture_close(in->cap);
    in->cap = NULL;
}

static bool open_input(worker *w, run_input *in, uint32_t index)
{
    GError *error = NULL;
    memset(in, 0, sizeof *in);
    in->index = index;
    in->name = w->sh->o->files[index];
    in->cap = tapo_capture_open(in->name, &error);
    if (!in->cap) {
        input_failed(w, error, "skipped");
        return false;
    }
    if (worker_speaks(w))
        w->report.files++;
    return true;
}

/* Independent captures: each is analysed as if alone, with a clock of its
 * own and its connections ended at its end; consecutive parts of one
 * (continuous) go on from file to file. */
void worker_read_in_turn(worker *w, uint32_t count)
{
    tapo_table_clock k = { 0 };
    for (uint32_t i = 0; i < count; i++) {
        run_input in;
        if (!open_input(w, &in, i))
            continue;
        while (!tapo_run_stop_requested && read_next(w, &in))
            worker_handle(w, &in, &k);
        close_input(w, &in);
        if (!w->sh->o->continuous) {
            tapo_table_end_all(&w->table);
            worker_close_episodes(w, true);
            k = (tapo_table_clock){ 0 };
        }
    }
}

/* Several captures of overlapping times: the earliest pending frame next. */
void worker_read_merged(worker *w, uint32_t count)
{
    tapo_table_clock k = { 0 };
    run_input *ins = g_new0(run_input, count);
    for (uint32_t i = 0; i < count; i++)
        if (open_input(w, &ins[i], i))
            ins[i].pending = read_next(w, &ins[i]);
    while (!tapo_run_stop_requested) {
        run_input *next = NULL;
        for (uint32_t i = 0; i < count; i++)
            if (ins[i].pending && (!next || ins[i].frame.time_s < next->frame.time_s))
                next = &ins[i];
        if (!next)
            break;
        worker_handle(w, next, &k);
        next->pending = read_next(w, next);
    }
    for (uint32_t i = 0; i < count; i++)
        if (ins[i].cap)
            close_input(w, &ins[i]);
    g_free(ins);
}
