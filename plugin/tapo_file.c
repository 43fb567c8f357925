/* tapo_file.c: see tapo_file.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tapo_file.h"

#include <wiretap/wtap.h>

#include "capture/capture.h"
#include "table/episode_stalls.h"
#include "table/table_feed.h"
#include "tapo_input.h"
#include "verdict/verdict.h"

/* The open capture's state: file scope, rebuilt by tapo_file_open. */
static const tapo_config *file_cfg;
static tapo_conn_table table;
static bool table_open;             /* between tapo_file_open and tapo_file_close */
static tapo_frame_results results;  /* what each frame renders */
static uint32_t analysed;           /* frames 1..analysed are analysed */
static tapo_table_clock run_clock;  /* times since the first frame, and the latest (never going back) */
static GArray *episodes;            /* tapo_episode, once grouped; NULL before */
static GHashTable *episode_of;      /* frame number -> index in episodes + 1 */

static void *file_scope_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return wmem_alloc0(wmem_file_scope(), size);
}

void tapo_file_open(const tapo_config *cfg)
{
    /* Connections that end stay in the file scope: their frames render
     * from them.  No idle timeout: a file ends. */
    tapo_table_hooks hooks = { .alloc = file_scope_alloc };
    tapo_table_init(&table, cfg, TAPO_CLOSED_GRACE_S, 0.0, true, hooks);
    file_cfg = cfg;
    table_open = true;
    tapo_frame_results_clear(&results);
    tapo_frame_results_init(&results);
    analysed = 0;
    run_clock = (tapo_table_clock){ 0 };
}

static void forget_episodes(void)
{
    if (episodes)
        g_array_free(episodes, TRUE);
    if (episode_of)
        g_hash_table_destroy(episode_of);
    episodes = NULL;
    episode_of = NULL;
}

void tapo_file_close(void)
{
    if (table_open)
        tapo_table_finish(&table);   /* the file scope frees the rest */
    table_open = false;
    tapo_frame_results_clear(&results);
    forget_episodes();
}

void tapo_file_input_ended(void)
{
    if (table_open)
        tapo_table_end_all(&table);
}

uint32_t tapo_file_analysed(void)
{
    return analysed;
}

const tapo_frame_result *tapo_file_frame(uint32_t frame)
{
    return tapo_frame_results_find(&results, frame);
}

typedef struct collect {
    GArray *stalls;                   /* tapo_episode_stall */
    GArray *frames;                   /* uint32_t: the frame of each */
    GStringChunk *texts;
} collect;

static void collect_stall(uint32_t frame, const tapo_frame_result *r, void *data)
{
    collect *c = data;
    tapo_verdict v;
    if (!r->stall || !tapo_conv_verdict(tapo_table_summary(r->stall->conn), &r->stall->rec, file_cfg, true, &v))
        return;
    tapo_episode_stall s;
    tapo_episode_stall_describe(r->stall->conn, r->stall, &v, c->texts, &s);
    g_array_append_val(c->stalls, s);
    g_array_append_val(c->frames, frame);
}

const tapo_episode *tapo_file_episode(uint32_t frame)
{
    if (!results.entries)
        return NULL;
    if (!episodes) {
        collect c = { g_array_new(FALSE, FALSE, sizeof(tapo_episode_stall)),
                      g_array_new(FALSE, FALSE, sizeof(uint32_t)), g_string_chunk_new(4096) };
        tapo_frame_results_foreach(&results, collect_stall, &c);
        episodes = tapo_episodes_find((tapo_episode_stall *)(void *)c.stalls->data, c.stalls->len,
                                      file_cfg->episode_min_connections);
        episode_of = g_hash_table_new(g_direct_hash, g_direct_equal);
        for (guint i = 0; i < c.stalls->len; i++) {
            uint32_t e = g_array_index(c.stalls, tapo_episode_stall, i).episode;
            if (e)
                g_hash_table_insert(episode_of, GUINT_TO_POINTER(g_array_index(c.frames, uint32_t, i)),
                                    GUINT_TO_POINTER(e));
        }
        g_array_free(c.stalls, TRUE);
        g_array_free(c.frames, TRUE);
        g_string_chunk_free(c.texts);
    }
    guint e = GPOINTER_TO_UINT(g_hash_table_lookup(episode_of, GUINT_TO_POINTER(frame)));
    return e ? &g_array_index(episodes, tapo_episode, e - 1) : NULL;
}

/* What the packet changed that deserves a note on the frame. */
static tapo_frame_note note_of(const tapo_conv_events *before, const tapo_conv_events *now)
{
    /* The time-order note once per connection: a file out of order says it
     * on every packet otherwise. */
    return now->restarts != before->restarts ? TAPO_NOTE_RESTART
         : now->strays != before->strays ? TAPO_NOTE_STRAY
         : now->time_jumps != before->time_jumps ? TAPO_NOTE_TIME_JUMP
         : now->time_backwards && !before->time_backwards ? TAPO_NOTE_TIME_BACKWARDS
         : TAPO_NOTE_NONE;
}

/* One frame, decoded, in order. */
static void analyse(const tapo_frame *f, tapo_decode_result decoded, tapo_segment_fields *seg)
{
    analysed = f->number;
    tapo_table_result r;
    if (tapo_table_feed(&table, &run_clock, f, 0, decoded, seg, NULL, NULL, &r) != TAPO_FED_SEGMENT)
        return;
    tapo_frame_note note = note_of(&r.before, &r.conn->conv->events);
    if (!r.started && !r.stall && note == TAPO_NOTE_NONE)
        return;
    tapo_frame_result *res = tapo_frame_results_add(&results, f->number);
    res->stall = r.stall;
    res->starts_connection = r.started;
    res->connection = r.conn->number;
    res->note = note;
}

void tapo_file_analyse_frame(tvbuff_t *tvb, packet_info *pinfo)
{
    tapo_frame f = {
        .number = pinfo->num,
        .has_time = pinfo->rec && (pinfo->rec->presence_flags & WTAP_HAS_TS),
        .time_sec = (int64_t)pinfo->abs_ts.secs,
        .time_nsec = pinfo->abs_ts.nsecs,
        .time_s = nstime_to_sec(&pinfo->abs_ts),
    };
    tapo_segment_fields seg;
    analyse(&f, tapo_input_decode(tvb, pinfo, &seg), &seg);
}

bool tapo_file_read_ahead(const char *path)
{
    GError *error = NULL;
    tapo_capture *cap = tapo_capture_open(path, &error);
    if (!cap) {
        ws_warning("TAPO: cannot read %s ahead (%s): analysing frame by frame", path, error->message);
        g_error_free(error);
        return false;
    }
    tapo_frame f;
    while (tapo_capture_next(cap, &f, &error)) {
        tapo_segment_fields seg = { .ends.family = 0 };
        tapo_decode_result decoded = f.is_packet ? tapo_decode_frame(f.encap, f.data, f.caplen, f.len, &seg)
                                                 : TAPO_DECODE_OTHER;
        analyse(&f, decoded, &seg);
    }
    tapo_capture_close(cap);
    if (!error)
        tapo_file_input_ended();
    if (error) {
        /* Wireshark reads what it can of a damaged file: so do we, frame
         * by frame, after starting over. */
        ws_warning("TAPO: cannot read %s ahead (%s): analysing frame by frame", path, error->message);
        g_error_free(error);
        const tapo_config *cfg = file_cfg;
        tapo_file_close();
        tapo_file_open(cfg);
        return false;
    }
    return true;
}
