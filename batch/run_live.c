/* run_live.c: reading a live interface (live.h; run_worker.h): a summary
 * line every interval, and the capture's clock following the wall clock
 * while the link is quiet.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run_worker.h"

#include <stdio.h>

/* The summary line of a live run on stderr, every interval. */
static void summary_line(worker *w, bool force)
{
    const tapo_run_options *o = w->sh->o;
    gint64 now = g_get_monotonic_time();
    if (o->interval_s <= 0.0 || (!force && now - w->summary_last_us < (gint64)(o->interval_s * 1e6)))
        return;
    w->summary_last_us = now;
    GDateTime *t = g_date_time_new_now_local();
    char *when = g_date_time_format(t, "%H:%M:%S");
    uint64_t kernel = 0, interface = 0;
    tapo_live_drops(tapo_run_live, &kernel, &interface);
    fprintf(stderr, "tapo: %s %s: %" G_GUINT64_FORMAT " packets (%" G_GUINT64_FORMAT " TCP), %u connections "
            "open, %" G_GUINT64_FORMAT " stalls written, %" G_GUINT64_FORMAT " dropped by the kernel, %"
            G_GUINT64_FORMAT " by the interface, %" G_GUINT64_FORMAT " connections evicted\n", when, o->interface,
            w->report.packets, w->report.tcp_packets, tapo_table_size(&w->table), w->rows_streamed, kernel,
            interface, w->table.evicted);
    g_free(when);
    g_date_time_unref(t);
}

/* While the link is quiet the capture's clock follows the wall clock, so
 * that stalls settle and idle connections end. */
static void quiet(worker *w, tapo_table_clock *k, double first_epoch_s)
{
    double now_s = g_get_real_time() / 1e6, now_rel = now_s - first_epoch_s;
    if (first_epoch_s > 0.0 && now_rel > k->clock_s) {
        k->clock_s = now_rel;
        w->latest_epoch_s = MAX(w->latest_epoch_s, now_s);
        tapo_table_tick(&w->table, k->clock_s);
        worker_write_all_settled(w, k->clock_s);
    }
    worker_upkeep(w);
}

void worker_read_live(worker *w)
{
    GError *error = NULL;
    tapo_live *live = tapo_live_open(w->sh->o->interface, w->sh->o->capture_filter, w->sh->o->buffer_bytes, &error);
    if (!live) {
        fprintf(stderr, "tapo: %s\n", error->message);
        g_error_free(error);
        w->complete = false;
        return;
    }
    tapo_run_live = live;
    if (tapo_run_stop_requested)
        tapo_live_stop(live);
    run_input in = { .index = 0, .name = w->sh->o->interface };
    tapo_table_clock k = { 0 };
    double first_epoch_s = 0.0;
    w->report.files++;
    for (;;) {
        tapo_live_result r = tapo_live_next(live, &in.frame, &error);
        if (r == TAPO_LIVE_STOPPED)
            break;
        if (r == TAPO_LIVE_FRAME) {
            w->report.packets++;
            if (first_epoch_s == 0.0)
                first_epoch_s = in.frame.time_s;
            worker_handle(w, &in, &k);
        } else {
            quiet(w, &k, first_epoch_s);
        }
        summary_line(w, false);
    }
    if (error) {
        fprintf(stderr, "tapo: %s\n", error->message);
        g_error_free(error);
        w->complete = false;
    }
    summary_line(w, true);
    worker_publish(w, true);
    tapo_run_live = NULL;
    tapo_live_close(live);
}
