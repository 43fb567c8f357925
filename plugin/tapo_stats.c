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
#include <epan/stats_tree_priv.h>

#include "explain/breakdown.h"
#include "packet-tapo.h"

#define TREE_NAME "TCP Stalls (TAPO)"
/* stats_tree's columns: name, count, average, min, max, rate, percent,
 * burst rate, burst start (stats_tree.c, 4.0 to 4.6); this tree keeps
 * them up to the percent. */
#define COLUMNS_UP_TO_PERCENT 7

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

static void stats_init(stats_tree *st)
{
    /* Rate (per ms of capture) and burst rates mean nothing next to counts
     * of stalls and milliseconds of stalled time: the burst columns go
     * (tshark prints, and the dialog fills, num_columns), the rate stays
     * empty (stats_packet). */
    if (st->num_columns > COLUMNS_UP_TO_PERCENT)
        st->num_columns = COLUMNS_UP_TO_PERCENT;
    static const char *const roots[] = {
        TAPO_NODE_CONVERSATIONS, TAPO_NODE_STALLS, TAPO_NODE_TIME, TAPO_NODE_DOUBLE,
        TAPO_NODE_TAIL, TAPO_NODE_PHASE, TAPO_NODE_VANTAGE, TAPO_NODE_CONFIDENCE, TAPO_NODE_CAVEATS,
        TAPO_NODE_SAVINGS, TAPO_NODE_EPISODES,
    };
    for (unsigned i = 0; i < G_N_ELEMENTS(roots); i++)
        stats_tree_create_node(st, roots[i], 0, STAT_DT_INT, true);
    const char *const *b = tapo_duration_bucket_names;
    stats_tree_create_range_node(st, TAPO_NODE_DURATION, 0, b[0], b[1], b[2], b[3], b[4], b[5], b[6],
                                 NULL);
    g_hash_table_remove_all(stalled_streams(st));
}

static void stats_cleanup(stats_tree *st)
{
    if (stalled_streams_by_tree)
        g_hash_table_remove(stalled_streams_by_tree, st);
}

/* Each path of the breakdown: its nodes by name, each under the previous. */
static void add_path(stats_tree *st, const tapo_breakdown_path *path)
{
    int parent = 0;
    for (unsigned i = 0; i < path->depth; i++)
        parent = increase_stat_node(st, path->node[i], parent, i + 1 < path->depth, path->amount);
}

static void add_stall(stats_tree *st, const tapo_tap_info *info)
{
    tapo_breakdown_path paths[TAPO_BREAKDOWN_PATHS];
    unsigned n = tapo_breakdown(&info->verdict, paths);
    for (unsigned i = 0; i < n; i++)
        add_path(st, &paths[i]);
    if (info->episode) {
        /* Two passes: each episode once, with its scope and cause. */
        char name[TAPO_EPISODE_SCOPE_TEXT_MAX + 48];
        snprintf(name, sizeof name, "episode %u: %s, %s", info->episode->id, info->episode->scope_text,
                 tapo_cause_get(info->episode->cause)->name);
        int root = stats_tree_parent_id_by_name(st, TAPO_NODE_EPISODES);
        increase_stat_node(st, TAPO_NODE_EPISODES, 0, false, 1);
        increase_stat_node(st, name, root, false, 1);
    }
    tick_stat_node(st, TAPO_NODE_DURATION, 0, true);
    stats_tree_tick_range(st, TAPO_NODE_DURATION, 0,
                          tapo_milliseconds(info->verdict.duration_s));
    GHashTable *seen = stalled_streams(st);
    if (!g_hash_table_contains(seen, GUINT_TO_POINTER(info->stream + 1))) {
        g_hash_table_add(seen, GUINT_TO_POINTER(info->stream + 1));
        int conversations = stats_tree_parent_id_by_name(st, TAPO_NODE_CONVERSATIONS);
        tick_stat_node(st, TAPO_NODE_STALLED_CONVERSATIONS, conversations, false);
    }
}

static tap_packet_status stats_packet(stats_tree *st, packet_info *pinfo, epan_dissect_t *edt,
                                      const void *data, tap_flags_t flags)
{
    (void)pinfo;
    (void)edt;
    (void)flags;
    st->elapsed = 0.0;   /* stats_tree prints no rate without an elapsed time */
    const tapo_tap_info *info = data;
    if (info->kind == TAPO_TAP_FLOW_START)
        tick_stat_node(st, TAPO_NODE_CONVERSATIONS, 0, true);
    else
        add_stall(st, info);
    return TAP_PACKET_REDRAW;
}

void register_tapo_stats_tree(void)
{
    /* Each branch's nodes by count, largest first, whatever the user's
     * default (tshark, and the dialog from Wireshark 4.6 on); top-level
     * branches keep the order stats_init creates them in (the paper's
     * tables first) in tshark.  The 4.0 and 4.4 dialogs ignore these flags:
     * they enable sorting with Qt's default indicator, Topic descending (Z
     * to A), until a header is clicked (docs/statistics.md). */
    stats_tree_register_plugin(TAPO_TAP_NAME, "tapo", TREE_NAME,
                               ST_FLG_SORT_DESC | (ST_SORT_COL_COUNT << ST_FLG_SRTCOL_SHIFT), stats_packet,
                               stats_init, stats_cleanup);
}
