/* test_episodes.c: episodes across connections (episodes.h): one outage
 * that stalls several connections is one episode, with the narrowest
 * scope they share; independent stalls are none.  Plain C + GLib.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "incidents/episodes.h"

/* A stall of connection conn from client to server, [start, end] seconds. */
static tapo_episode_stall stall(uint64_t conn, const char *client, const char *server, double start, double end)
{
    static char prefixes[64][2][64];
    static unsigned used;
    char (*p)[64] = prefixes[used++ % 64];
    tapo_address_prefix(client, p[0]);
    char address[64];
    g_strlcpy(address, server, sizeof address);
    char *colon = strrchr(address, ':');
    if (colon)
        *colon = '\0';
    tapo_address_prefix(address, p[1]);
    tapo_episode_stall s = { .connection = conn, .start_s = start, .end_s = end, .cause = TAPO_CAUSE_TAIL,
                             .keys = { server, client, p[0], p[1] } };
    return s;
}

/* The stalls make exactly one episode, of this scope. */
static void assert_one_episode(tapo_episode_stall *s, guint count, const char *scope_text)
{
    GArray *e = tapo_episodes_find(s, count, 3);
    g_assert_cmpuint(e->len, ==, 1);
    g_assert_cmpstr(g_array_index(e, tapo_episode, 0).scope_text, ==, scope_text);
    g_array_free(e, TRUE);
}

static void test_an_outage_at_one_server(void)
{
    tapo_episode_stall s[] = {
        stall(1, "10.1.0.1", "192.0.2.1:443", 10.0, 11.0),
        stall(2, "10.2.0.1", "192.0.2.1:443", 10.1, 11.2),
        stall(3, "10.3.0.1", "192.0.2.1:443", 10.3, 10.9),
        stall(4, "10.4.0.1", "192.0.2.1:443", 10.5, 11.5),
        stall(5, "10.5.0.1", "198.51.100.1:80", 30.0, 31.0),
    };
    GArray *e = tapo_episodes_find(s, G_N_ELEMENTS(s), 3);
    g_assert_cmpuint(e->len, ==, 1);
    tapo_episode *ep = &g_array_index(e, tapo_episode, 0);
    g_assert_cmpint(ep->scope, ==, TAPO_SCOPE_SERVER);
    g_assert_cmpstr(ep->scope_text, ==, "server 192.0.2.1:443");
    g_assert_cmpuint(ep->connections, ==, 4);
    g_assert_cmpfloat(ep->start_s, ==, 10.0);
    g_assert_cmpfloat(ep->end_s, ==, 11.5);
    for (unsigned i = 0; i < G_N_ELEMENTS(s); i++)
        g_assert_cmpuint(s[i].episode, ==, s[i].connection == 5 ? 0 : 1);
    g_array_free(e, TRUE);
}

static void test_one_client_and_its_prefix(void)
{
    /* One client's link: its connections to three servers. */
    tapo_episode_stall a[] = {
        stall(1, "10.9.0.7", "192.0.2.1:443", 5.0, 6.0),
        stall(2, "10.9.0.7", "192.0.2.2:443", 5.2, 6.0),
        stall(3, "10.9.0.7", "203.0.113.9:80", 5.9, 7.0),
    };
    assert_one_episode(a, G_N_ELEMENTS(a), "client 10.9.0.7");
    /* Three clients of one /24 (an office behind one uplink). */
    tapo_episode_stall b[] = {
        stall(1, "10.9.0.7", "192.0.2.1:443", 5.0, 6.0),
        stall(2, "10.9.0.8", "192.0.2.2:443", 5.2, 6.0),
        stall(3, "10.9.0.9", "203.0.113.9:80", 5.9, 7.0),
    };
    assert_one_episode(b, G_N_ELEMENTS(b), "client prefix 10.9.0.0/24");
}

static void test_independent_stalls_are_none(void)
{
    /* Stalls far apart in time, and two connections only. */
    tapo_episode_stall s[] = {
        stall(1, "10.1.0.1", "192.0.2.1:443", 1.0, 1.5),
        stall(2, "10.1.0.2", "192.0.2.1:443", 3.0, 3.5),
        stall(3, "10.1.0.3", "192.0.2.1:443", 6.0, 6.5),
        stall(4, "10.1.0.4", "192.0.2.1:443", 9.0, 9.5),
        stall(4, "10.1.0.4", "192.0.2.1:443", 9.6, 10.0),
        stall(5, "10.1.0.5", "192.0.2.1:443", 9.7, 10.2),
    };
    GArray *e = tapo_episodes_find(s, G_N_ELEMENTS(s), 3);
    g_assert_cmpuint(e->len, ==, 0);
    for (unsigned i = 0; i < G_N_ELEMENTS(s); i++)
        g_assert_cmpuint(s[i].episode, ==, 0);
    g_array_free(e, TRUE);
}

static void test_the_whole_capture_last(void)
{
    /* Three unrelated hosts stalled at once: nothing narrower explains it. */
    tapo_episode_stall s[] = {
        stall(1, "10.1.0.1", "192.0.2.1:443", 1.0, 2.0),
        stall(2, "172.16.0.1", "198.51.100.1:80", 1.1, 2.0),
        stall(3, "10.200.0.1", "203.0.113.1:22", 1.5, 2.5),
    };
    assert_one_episode(s, G_N_ELEMENTS(s), "capture");
}

static void test_a_long_stall_meets_a_later_window(void)
{
    /* Connection 9's stall spans two windows of three connections
     * stalled at once: in the first, the server of 1 to 3 explains them
     * and nothing explains 9; in the second, 9 shares a client /24 with 4
     * and 5, whose server alone has too few: one episode of the three. */
    tapo_episode_stall s[] = {
        stall(1, "10.1.0.1", "192.0.2.1:443", 10.0, 11.0),
        stall(2, "10.2.0.1", "192.0.2.1:443", 10.0, 11.0),
        stall(3, "10.3.0.1", "192.0.2.1:443", 10.0, 11.0),
        stall(9, "10.7.0.9", "203.0.113.9:80", 10.5, 30.5),
        stall(4, "10.7.0.4", "198.51.100.1:80", 30.0, 31.0),
        stall(5, "10.7.0.5", "198.51.100.1:80", 30.0, 31.0),
    };
    GArray *e = tapo_episodes_find(s, G_N_ELEMENTS(s), 3);
    g_assert_cmpuint(e->len, ==, 2);
    g_assert_cmpstr(g_array_index(e, tapo_episode, 0).scope_text, ==, "server 192.0.2.1:443");
    tapo_episode *later = &g_array_index(e, tapo_episode, 1);
    g_assert_cmpstr(later->scope_text, ==, "client prefix 10.7.0.0/24");
    g_assert_cmpuint(later->connections, ==, 3);
    g_assert_cmpfloat(later->start_s, ==, 10.5);
    for (unsigned i = 0; i < G_N_ELEMENTS(s); i++)
        g_assert_cmpuint(s[i].episode, ==, s[i].connection <= 3 ? 1 : 2);
    g_array_free(e, TRUE);
}

static void test_prefixes(void)
{
    char p[64];
    g_assert_true(tapo_address_prefix("192.0.2.77", p));
    g_assert_cmpstr(p, ==, "192.0.2.0/24");
    g_assert_true(tapo_address_prefix("2001:db8:1:2:3:4:5:6", p));
    g_assert_cmpstr(p, ==, "2001:db8:1:2::/64");
    g_assert_false(tapo_address_prefix("not an address", p));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/episodes/an-outage-at-one-server", test_an_outage_at_one_server);
    g_test_add_func("/episodes/one-client-and-its-prefix", test_one_client_and_its_prefix);
    g_test_add_func("/episodes/independent-stalls-are-none", test_independent_stalls_are_none);
    g_test_add_func("/episodes/the-whole-capture-last", test_the_whole_capture_last);
    g_test_add_func("/episodes/a-long-stall-meets-a-later-window", test_a_long_stall_meets_a_later_window);
    g_test_add_func("/episodes/prefixes", test_prefixes);
    return g_test_run();
}
