/* test_monitoring.c: the pieces of a long run that are pure logic: the
 * bounded server labels of the metrics (busiest_servers.h) and episodes
 * found as stalls come (episode_stream.h), which must group stalls as the
 * whole capture's grouping does.  Plain C + GLib.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>

#include "busiest_servers.h"
#include "episode_stream.h"

/* ---- server labels --------------------------------------------------------- */

static const tapo_busiest_series *series_of(const tapo_busiest_series *s, unsigned n, const char *server)
{
    for (unsigned i = 0; i < n; i++)
        if (strcmp(s[i].server, server) == 0)
            return &s[i];
    return NULL;
}

static void test_labels_are_bounded_and_every_stall_counted_once(void)
{
    tapo_busiest *b = tapo_busiest_new(2);
    tapo_busiest_series s[3];
    /* Two servers take the two labels. */
    tapo_busiest_add(b, "a:1", 1.0);
    tapo_busiest_add(b, "b:1", 2.0);
    /* A third one goes to "other" until it has stalled longer than a (1 s). */
    tapo_busiest_add(b, "c:1", 0.5);
    unsigned n = tapo_busiest_series_now(b, s);
    g_assert_cmpuint(n, ==, 3);
    g_assert_nonnull(series_of(s, n, "a:1"));
    g_assert_cmpuint(series_of(s, n, TAPO_BUSIEST_OTHER)->stalls, ==, 1);
    tapo_busiest_add(b, "c:1", 0.7);   /* c: 1.2 s in all, more than a's 1 s: c takes a's label */
    n = tapo_busiest_series_now(b, s);
    g_assert_cmpuint(n, ==, 3);
    g_assert_null(series_of(s, n, "a:1"));
    const tapo_busiest_series *c = series_of(s, n, "c:1");
    g_assert_nonnull(c);
    g_assert_cmpuint(c->stalls, ==, 0);               /* its series starts at zero... */
    g_assert_cmpuint(series_of(s, n, TAPO_BUSIEST_OTHER)->stalls, ==, 2);   /* ...its stalls so far are "other"'s */
    tapo_busiest_add(b, "c:1", 1.0);
    tapo_busiest_add(b, "a:1", 0.1);                  /* a lost its label: "other" */
    n = tapo_busiest_series_now(b, s);
    g_assert_cmpuint(series_of(s, n, "c:1")->stalls, ==, 1);
    g_assert_cmpuint(series_of(s, n, TAPO_BUSIEST_OTHER)->stalls, ==, 3);
    /* Many more servers, each a little: the labels stay with the busiest,
     * and the series never number more than N + 1. */
    for (int i = 0; i < 1000; i++) {
        char name[32];
        g_snprintf(name, sizeof name, "10.0.%d.%d:80", i / 256, i % 256);
        tapo_busiest_add(b, name, 0.01);
        g_assert_cmpuint(tapo_busiest_series_now(b, s), <=, 3);
    }
    n = tapo_busiest_series_now(b, s);
    g_assert_nonnull(series_of(s, n, "b:1"));
    g_assert_nonnull(series_of(s, n, "c:1"));
    /* Every stall is in exactly one series now, or in a label's series
     * that ended (a's first stall). */
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += s[i].stalls;
    g_assert_cmpuint(total + 1, ==, 1006);
    tapo_busiest_free(b);
}

static void test_no_labels(void)
{
    tapo_busiest *b = tapo_busiest_new(0);
    tapo_busiest_series s[1];
    tapo_busiest_add(b, "a:1", 1.0);
    tapo_busiest_add(b, "b:1", 1.0);
    g_assert_cmpuint(tapo_busiest_series_now(b, s), ==, 1);
    g_assert_cmpstr(s[0].server, ==, TAPO_BUSIEST_OTHER);
    g_assert_cmpuint(s[0].stalls, ==, 2);
    tapo_busiest_free(b);
}

/* ---- episodes as stalls come --------------------------------------------------- */

static tapo_episode_stall stall(uint64_t conn, const char *client, double start, double end)
{
    tapo_episode_stall s = { .connection = conn, .start_s = start, .end_s = end, .cause = TAPO_CAUSE_TAIL,
                             .keys = { "192.0.2.1:443", client, "10.0.0.0/24", "192.0.2.0/24" } };
    return s;
}

typedef struct found_log {
    GArray *episodes;                 /* tapo_episode */
    GArray *sizes;                    /* guint: members of each */
} found_log;

static void found(void *ctx, const tapo_episode *e, const tapo_row_member *members, guint count)
{
    found_log *log = ctx;
    g_array_append_val(log->episodes, *e);
    g_array_append_val(log->sizes, count);
    for (guint i = 1; i < count; i++)
        g_assert_cmpuint(members[i - 1].frame, <, members[i].frame);
}

static void test_stream_groups_as_the_whole_capture(void)
{
    /* Two outages of one server, 100 s apart, each stalling three
     * connections; a lone stall between them. */
    tapo_episode_stall all[] = {
        stall(1, "10.0.0.1", 10.0, 11.0), stall(2, "10.0.0.2", 10.1, 11.1), stall(3, "10.0.0.3", 10.2, 11.0),
        stall(4, "10.0.0.4", 60.0, 61.0),
        stall(5, "10.0.0.5", 110.0, 111.0), stall(6, "10.0.0.6", 110.1, 111.0), stall(7, "10.0.0.7", 110.3, 111.2),
    };
    found_log log = { g_array_new(FALSE, FALSE, sizeof(tapo_episode)), g_array_new(FALSE, FALSE, sizeof(guint)) };
    tapo_episode_stream *es = tapo_episode_stream_new(3, 10.0);
    /* The stalls come as their rows would, a little after they end; the
     * clock goes on. */
    for (unsigned i = 0; i < G_N_ELEMENTS(all); i++) {
        tapo_episode_stream_add(es, &all[i], "c.pcap", 100 + i);
        tapo_episode_stream_close(es, all[i].end_s + 1.0, false, found, &log);
        /* Nothing is given out before the horizon has passed the first outage. */
        if (all[i].end_s + 1.0 < 11.1 + TAPO_EPISODE_SLACK_S + 10.0)
            g_assert_cmpuint(log.episodes->len, ==, 0);
    }
    /* At 65 s the first outage is complete and given out; the lone stall
     * is kept until the horizon passes it. */
    g_assert_cmpuint(log.episodes->len, ==, 1);
    g_assert_cmpuint(g_array_index(log.sizes, guint, 0), ==, 3);
    g_assert_cmpuint(tapo_episode_stream_kept(es), ==, 3);
    tapo_episode_stream_close(es, 200.0, false, found, &log);
    g_assert_cmpuint(log.episodes->len, ==, 2);
    g_assert_cmpuint(tapo_episode_stream_kept(es), ==, 0);
    /* The same as the whole capture's episodes. */
    GArray *whole = tapo_episodes_find(all, G_N_ELEMENTS(all), 3);
    g_assert_cmpuint(whole->len, ==, 2);
    for (guint e = 0; e < 2; e++) {
        const tapo_episode *x = &g_array_index(whole, tapo_episode, e), *y = &g_array_index(log.episodes, tapo_episode, e);
        g_assert_cmpuint(y->id, ==, e + 1);
        g_assert_cmpstr(x->scope_text, ==, y->scope_text);
        g_assert_cmpuint(x->connections, ==, y->connections);
        g_assert_cmpfloat(x->start_s, ==, y->start_s);
        g_assert_cmpfloat(x->end_s, ==, y->end_s);
    }
    g_array_free(whole, TRUE);
    tapo_episode_stream_free(es);
    g_array_free(log.episodes, TRUE);
    g_array_free(log.sizes, TRUE);
}

static void test_a_stall_spanning_the_cut_keeps_its_neighbours(void)
{
    /* A long stall (0-50 s) overlaps a short one that ends at 40 s: even
     * when the clock is far past 40 s, neither is given out alone while the
     * long one reaches past the horizon. */
    tapo_episode_stall s[] = { stall(1, "10.0.0.1", 0.0, 50.0), stall(2, "10.0.0.2", 39.0, 40.0),
                               stall(3, "10.0.0.3", 39.5, 40.5) };
    found_log log = { g_array_new(FALSE, FALSE, sizeof(tapo_episode)), g_array_new(FALSE, FALSE, sizeof(guint)) };
    tapo_episode_stream *es = tapo_episode_stream_new(3, 10.0);
    for (unsigned i = 0; i < G_N_ELEMENTS(s); i++)
        tapo_episode_stream_add(es, &s[i], "c.pcap", 1 + i);
    tapo_episode_stream_close(es, 55.0, false, found, &log);
    g_assert_cmpuint(tapo_episode_stream_kept(es), ==, 3);
    tapo_episode_stream_close(es, 61.0, false, found, &log);
    g_assert_cmpuint(tapo_episode_stream_kept(es), ==, 0);
    g_assert_cmpuint(log.episodes->len, ==, 1);
    g_assert_cmpuint(g_array_index(log.sizes, guint, 0), ==, 3);
    tapo_episode_stream_free(es);
    g_array_free(log.episodes, TRUE);
    g_array_free(log.sizes, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/busiest/bounded_and_counted_once", test_labels_are_bounded_and_every_stall_counted_once);
    g_test_add_func("/busiest/no_labels", test_no_labels);
    g_test_add_func("/episode_stream/as_the_whole_capture", test_stream_groups_as_the_whole_capture);
    g_test_add_func("/episode_stream/spanning_stall", test_a_stall_spanning_the_cut_keeps_its_neighbours);
    return g_test_run();
}
