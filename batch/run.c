/* run.c: see run.h: the workers of a run (run_worker.h says which file
 * does what).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run_worker.h"

#include <stdio.h>
#include <string.h>

#define LONGEST_EPISODE_STALL_S 60.0  /* streaming: a stall longer than this may miss an earlier episode, seconds */
volatile sig_atomic_t tapo_run_stop_requested;
volatile sig_atomic_t tapo_run_reopen_requested;
tapo_live *volatile tapo_run_live;

static void *heap_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return g_malloc0(size);
}

static void heap_release(void *ctx, void *storage)
{
    (void)ctx;
    g_free(storage);
}

void tapo_run_reopen(void)
{
    tapo_run_reopen_requested = 1;
}

void tapo_run_stop(void)
{
    tapo_run_stop_requested = 1;
    tapo_live *live = tapo_run_live;
    if (live)
        tapo_live_stop(live);
}

bool tapo_input_streams(const char *path)
{
    return strcmp(path, "-") == 0 || !g_file_test(path, G_FILE_TEST_IS_REGULAR);
}

static void worker_init(worker *w, shared *sh, unsigned index, unsigned count)
{
    memset(w, 0, sizeof *w);
    w->sh = sh;
    w->index = index;
    w->count = count;
    w->complete = true;
    tapo_report_init(&w->report);
    w->stall_out = g_string_sized_new(OUTPUT_FLUSH_BYTES);
    w->flow_out = g_string_sized_new(OUTPUT_FLUSH_BYTES);
    w->episode_out = g_string_new("");
    if (sh->o->memory)
        w->cap = *sh->o->memory;
    if (sh->o->metrics)
        w->stall_notes = g_array_new(FALSE, FALSE, sizeof(tapo_metrics_stall_note));
    if (sh->o->stream && !sh->o->html) {
        w->episodes = tapo_episode_stream_new(sh->o->cfg.episode_min_connections,
                                              sh->o->settle_s + SETTLE_CHECK_S + LONGEST_EPISODE_STALL_S);
        w->scratch = g_string_chunk_new(256);
    }
    if (sh->o->stream)
        w->pending = g_hash_table_new(g_direct_hash, g_direct_equal);
    w->summary_last_us = g_get_monotonic_time();
    w->episode_stalls = g_array_new(FALSE, FALSE, sizeof(tapo_episode_stall));
    w->episode_places = g_array_new(FALSE, FALSE, sizeof(tapo_row_member));
    w->episode_texts = g_string_chunk_new(4096);
    if (sh->o->html)
        tapo_html_stalls_init(&w->html);
    tapo_table_hooks hooks = { heap_alloc, heap_release, worker_connection_ended, w };
    tapo_table_init(&w->table, &sh->o->cfg, sh->o->grace_s, sh->o->idle_s, false, hooks);
    w->progress_start_us = w->progress_last_us = g_get_monotonic_time();
}

static gpointer worker_run(gpointer data)
{
    worker *w = data;
    uint32_t count = w->sh->o->files ? g_strv_length(w->sh->o->files) : 0;
    if (w->sh->o->interface)
        worker_read_live(w);
    else if (w->sh->o->merge_by_time)
        worker_read_merged(w, count);
    else
        worker_read_in_turn(w, count);
    tapo_table_finish(&w->table);
    worker_close_episodes(w, true);
    worker_flush(w, true);
    worker_publish(w, true);
    worker_progress(w, true);
    return NULL;
}

/* After the run: the worker's stalls into the HTML report's (html; NULL:
 * none), what it holds freed. */
static void worker_finish(worker *w, tapo_html_stalls *html)
{
    for (guint k = 0; html && k < w->html.stalls->len; k++)
        tapo_html_stalls_add(html, &g_array_index(w->html.stalls, tapo_html_stall, k));
    tapo_html_stalls_free(&w->html);
    g_array_free(w->episode_stalls, TRUE);
    g_array_free(w->episode_places, TRUE);
    g_string_chunk_free(w->episode_texts);
    tapo_report_free(&w->report);
    g_string_free(w->stall_out, TRUE);
    g_string_free(w->flow_out, TRUE);
    g_string_free(w->episode_out, TRUE);
    tapo_episode_stream_free(w->episodes);
    if (w->scratch)
        g_string_chunk_free(w->scratch);
    if (w->episodes_unlisted)
        fprintf(stderr, "tapo: %" G_GUINT64_FORMAT " more episodes are in --episodes and the metrics, not in the "
                "report\n", w->episodes_unlisted);
    if (w->pending)
        g_hash_table_destroy(w->pending);
    if (w->stall_notes)
        g_array_free(w->stall_notes, TRUE);   /* empty: the last flush counted them */
}

/* Every input is a file that each worker can open and read for itself. */
static bool inputs_rereadable(const tapo_run_options *o)
{
    if (o->interface)
        return false;
    for (char **f = o->files; *f; f++)
        if (tapo_input_streams(*f))
            return false;
    return true;
}

bool tapo_run(const tapo_run_options *o, tapo_report *report)
{
    const char *live_names[1] = { o->interface };
    shared sh = { .o = o, .names = o->interface ? live_names : (const char *const *)o->files };
    g_mutex_init(&sh.output_lock);
    unsigned jobs = o->jobs > 1 && inputs_rereadable(o) ? (unsigned)o->jobs : 1;
    worker *ws = g_new0(worker, jobs);
    for (unsigned i = 0; i < jobs; i++)
        worker_init(&ws[i], &sh, i, jobs);
    if (jobs == 1) {
        worker_run(&ws[0]);
    } else {
        for (unsigned i = 0; i < jobs; i++)
            ws[i].thread = g_thread_new("tapo-worker", worker_run, &ws[i]);
        for (unsigned i = 0; i < jobs; i++)
            g_thread_join(ws[i].thread);
    }
    bool complete = true;
    for (unsigned i = 0; i < jobs; i++) {
        complete = complete && ws[i].complete;
        tapo_report_merge(report, &ws[i].report);
    }
    tapo_run_find_episodes(o, ws, jobs, report);
    for (unsigned i = 0; i < jobs; i++)
        worker_finish(&ws[i], o->html);
    g_free(ws);
    g_mutex_clear(&sh.output_lock);
    return complete;
}
