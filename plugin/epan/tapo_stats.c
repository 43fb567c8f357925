/* tapo_stats.c: the "TCP Stalls (TAPO)" statistics tree, also printed by
 * tshark -q -z tapo,tree[,FILTER].
 *
 * It follows the paper's tables: stalls and stalled time by category and
 * cause (Table 3), the timeout-retransmission causes (Table 5), f-double
 * versus t-double (Table 6), tail stalls by congestion state (Table 7),
 * plus the conversations analysed and the distribution of durations.
 * Counts and times come from the same verdict the fields show in that pass
 * (one pass: provisional; tshark -2 and the GUI dialog: final).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ws_compat.h"

#include <epan/stats_tree.h>

#include "packet-tapo.h"

#define TREE_NAME "TCP Stalls (TAPO)"
#define NODE_CONVERSATIONS "Conversations analysed"
#define NODE_STALLED_CONVERSATIONS "with stalls"
#define NODE_STALLS "Stalls"
#define NODE_TIME "Stalled time (ms)"
#define NODE_RETRANSMISSION "timeout retransmission"
#define NODE_DOUBLE "Double retransmissions, stalled time (ms)"
#define NODE_TAIL "Tail stalls by congestion state, stalled time (ms)"
#define NODE_DURATION "Stall duration (ms)"
#define NODE_VANTAGE "Stalls by vantage"

/* Per tree instance (the GUI may open several): the conversations that
 * stalled, so that each is counted once.  stats_tree has no user pointer. */
static GHashTable *stalled_streams_by_tree;

static GHashTable *stalled_streams(stats_tree *st)
{
    if (!stalled_streams_by_tree)
        stalled_streams_by_tree = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                                        (GDestroyNotify)g_hash_table_destroy);
    GHashTable *set = g_hash_table_lookup(stalled_streams_by_tree, st);
    if (!set) {
        set = g_hash_table_new(g_direct_hash, g_direct_equal);
        g_hash_table_insert(stalled_streams_by_tree, st, set);
    }
    return set;
}

static int node_conversations, node_stalls, node_time, node_double, node_tail, node_vantage;

static void stats_init(stats_tree *st)
{
    node_conversations = stats_tree_create_node(st, NODE_CONVERSATIONS, 0, STAT_DT_INT, true);
    node_stalls = stats_tree_create_node(st, NODE_STALLS, 0, STAT_DT_INT, true);
    node_time = stats_tree_create_node(st, NODE_TIME, 0, STAT_DT_INT, true);
    node_double = stats_tree_create_node(st, NODE_DOUBLE, 0, STAT_DT_INT, true);
    node_tail = stats_tree_create_node(st, NODE_TAIL, 0, STAT_DT_INT, true);
    node_vantage = stats_tree_create_node(st, NODE_VANTAGE, 0, STAT_DT_INT, true);
    stats_tree_create_range_node(st, NODE_DURATION, 0, "0-99", "100-199", "200-499", "500-999",
                                 "1000-1999", "2000-4999", "5000-", NULL);
    g_hash_table_remove_all(stalled_streams(st));
}

static void stats_cleanup(stats_tree *st)
{
    if (stalled_streams_by_tree)
        g_hash_table_remove(stalled_streams_by_tree, st);
}

/* Adds one stall (amount 1, or its milliseconds) under root, as
 * category / [timeout retransmission /] cause. */
static void add_to_breakdown(stats_tree *st, const char *root_name, int root,
                             const tapo_verdict *v, int amount)
{
    increase_stat_node(st, root_name, 0, true, amount);
    int parent = increase_stat_node(st, tapo_category_name(v->category), root, true, amount);
    if (v->retransmission)
        parent = increase_stat_node(st, NODE_RETRANSMISSION, parent, true, amount);
    increase_stat_node(st, tapo_cause_get(v->cause)->name, parent, false, amount);
}

static int milliseconds(double seconds)
{
    double ms = seconds * 1000.0 + 0.5;
    return ms > (double)G_MAXINT ? G_MAXINT : (int)ms;
}

static void add_stall(stats_tree *st, const tapo_tap_info *info)
{
    const tapo_verdict *v = &info->verdict;
    const tapo_snapshot *snap = &v->view->snap;
    int ms = milliseconds(snap->duration_s);
    add_to_breakdown(st, NODE_STALLS, node_stalls, v, 1);
    add_to_breakdown(st, NODE_TIME, node_time, v, ms);
    if (v->cause == TAPO_CAUSE_F_DOUBLE || v->cause == TAPO_CAUSE_T_DOUBLE) {
        increase_stat_node(st, NODE_DOUBLE, 0, true, ms);
        increase_stat_node(st, tapo_cause_get(v->cause)->name, node_double, false, ms);
    }
    if (v->cause == TAPO_CAUSE_TAIL) {
        increase_stat_node(st, NODE_TAIL, 0, true, ms);
        increase_stat_node(st, tapo_ca_state_name(snap->ca_state), node_tail, false, ms);
    }
    tick_stat_node(st, NODE_VANTAGE, 0, true);
    tick_stat_node(st, tapo_vantage_name(snap->vantage), node_vantage, false);
    tick_stat_node(st, NODE_DURATION, 0, true);
    stats_tree_tick_range(st, NODE_DURATION, 0, ms);
    GHashTable *seen = stalled_streams(st);
    if (!g_hash_table_contains(seen, GUINT_TO_POINTER(info->stream + 1))) {
        g_hash_table_add(seen, GUINT_TO_POINTER(info->stream + 1));
        tick_stat_node(st, NODE_STALLED_CONVERSATIONS, node_conversations, false);
    }
}

static tap_packet_status stats_packet(stats_tree *st, packet_info *pinfo, epan_dissect_t *edt,
                                      const void *data, tap_flags_t flags)
{
    (void)pinfo;
    (void)edt;
    (void)flags;
    const tapo_tap_info *info = data;
    if (info->kind == TAPO_TAP_FLOW_START)
        tick_stat_node(st, NODE_CONVERSATIONS, 0, true);
    else
        add_stall(st, info);
    return TAP_PACKET_REDRAW;
}

void register_tapo_stats_tree(void)
{
    stats_tree_register_plugin(TAPO_TAP_NAME, "tapo", TREE_NAME, 0, stats_packet, stats_init,
                               stats_cleanup);
}
