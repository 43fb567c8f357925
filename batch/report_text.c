/* report_text.c: the report as text (tapo --report text): the breakdown
 * of the statistics tree, the distributions, the savings, the episodes and
 * the connections to look at first.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "report.h"

static void print_node(FILE *out, const tapo_report_node *n, int64_t parent_total, int depth)
{
    if (depth > 0) {
        fprintf(out, "%*s%-*s %12" G_GINT64_FORMAT, 2 * (depth - 1), "", 52 - 2 * (depth - 1), n->name,
                n->total);
        if (depth > 1 && parent_total > 0)
            fprintf(out, " %7.2f%%", 100.0 * (double)n->total / (double)parent_total);
        fputc('\n', out);
    }
    GPtrArray *sorted = tapo_report_node_sorted(n);
    for (guint i = 0; i < sorted->len; i++)
        print_node(out, sorted->pdata[i], n->total, depth + 1);
    g_ptr_array_free(sorted, TRUE);
}

/* "tail loss probe would have cut the stalled time by 0.018 s (0.1 %)". */
static void print_savings(const tapo_report *r, FILE *out)
{
    const tapo_report_node *savings = tapo_report_node_find(r->tree, TAPO_NODE_SAVINGS);
    const tapo_report_node *time = tapo_report_node_find(r->tree, TAPO_NODE_TIME);
    if (!savings || !time || time->total <= 0)
        return;
    fprintf(out, "\nWhat-if savings (docs/causes.md, \"What-if savings\"):");
    for (guint i = 0; i < savings->children->len; i++) {
        const tapo_report_node *m = savings->children->pdata[i];
        fprintf(out, "%s %s would have cut the stalled time by %.3f s (%.1f %%)", i ? ";" : "", m->name,
                m->total / 1000.0, 100.0 * (double)m->total / (double)time->total);
    }
}

#define EPISODES_LISTED 10

static void print_episodes(const tapo_report *r, FILE *out)
{
    fprintf(out, "\nEpisodes (stalls of several connections at once): %u", r->episodes->len);
    for (guint i = 0; i < r->episodes->len && i < EPISODES_LISTED; i++) {
        const tapo_report_episode *re = &g_array_index(r->episodes, tapo_report_episode, i);
        fprintf(out, "\n  #%u %s at %.6f, %.3f s: %u connections, %u stalls, %s; mostly %s", re->e.id, re->file,
                re->e.start_s, re->e.end_s - re->e.start_s, re->e.connections, re->e.stalls, re->e.scope_text,
                tapo_cause_get(re->e.cause)->name);
    }
    if (r->episodes->len > EPISODES_LISTED)
        fprintf(out, "\n  (%u more: --report json or --episodes lists them all)", r->episodes->len - EPISODES_LISTED);
}

/* The connections to look at first, one line each. */
static void print_worst(const tapo_report *r, FILE *out)
{
    fprintf(out, "\n\nConnections to look at: network and server stalls first, then the rest, idle time last\n"
            "%-22s %-46s %8s %6s %5s %10s %8s %6s  %-9s %-20s %s\n", "capture:frame", "client -> server", "dur(s)",
            "stalls", "low", "stalled(s)", "idle(s)", "ratio", "vantage", "cause", "advice");
    for (guint i = 0; i < r->worst->len; i++) {
        const tapo_flow_row *f = r->worst->pdata[i];
        char *where = g_strdup_printf("%s:%u", f->file, f->first_frame);
        char *ends = g_strdup_printf("%s -> %s", f->client, f->server);
        fprintf(out, "%-22s %-46s %8.3f %6u %5u %10.3f %8.3f %6.2f  %-9s %-20s %s\n", where, ends, f->duration_s,
                f->stalls, f->low_confidence, f->stalled_s, tapo_flow_idle_s(f), tapo_flow_ratio(f),
                f->vantage ? f->vantage : "-",
                f->dominant ? f->dominant : "-", f->dominant && f->advice ? f->advice : "");
        g_free(where);
        g_free(ends);
    }
}

/* The duration bins and quantiles, and the stall ratio's quantiles. */
static void print_distributions(const tapo_report *r, FILE *out)
{
    fprintf(out, "\n%s:", TAPO_NODE_DURATION);
    for (int i = 0; i < TAPO_DURATION_BUCKETS; i++)
        fprintf(out, " %s: %" G_GUINT64_FORMAT, tapo_duration_bucket_names[i], r->duration_buckets[i]);
    fprintf(out, "\nStall duration quantiles (s): p50 %.3f, p90 %.3f, p99 %.3f\n",
            tapo_sketch_quantile(&r->durations, 0.5), tapo_sketch_quantile(&r->durations, 0.9),
            tapo_sketch_quantile(&r->durations, 0.99));
    fprintf(out, "Stall ratio (stalled time / flow duration) over all flows (paper Figure 3):");
    for (unsigned i = 0; i < TAPO_FLOW_QUANTILE_COUNT; i++)
        fprintf(out, "%s p%u %.2f", i ? "," : "", tapo_flow_ratio_quantiles[i],
                tapo_sketch_quantile(&r->flow_ratios, tapo_flow_ratio_quantiles[i] / 100.0));
}

void tapo_report_print_text(const tapo_report *r, FILE *out)
{
    fprintf(out, "TAPO batch report: %" G_GUINT64_FORMAT " captures, %" G_GUINT64_FORMAT " packets (%"
            G_GUINT64_FORMAT " TCP, %" G_GUINT64_FORMAT " undecodable)\n", r->files, r->packets,
            r->tcp_packets, r->undecodable);
    fprintf(out, "Connections analysed: %" G_GUINT64_FORMAT ", with stalls: %" G_GUINT64_FORMAT
            ", written out after the idle timeout: %" G_GUINT64_FORMAT "\n\n", r->conversations,
            r->stalled_conversations, r->idle_flushed);
    const tapo_report_node *stalls = tapo_report_node_find(r->tree, TAPO_NODE_STALLS);
    fprintf(out, "Stalls: %" G_GINT64_FORMAT ", stalled time: %.3f s, of which idle (client-idle, nothing to fix "
            "in TCP): %.3f s\n\n", stalls ? stalls->total : 0, r->stalled_ns / 1e9,
            r->stalled_by_cause_ns[TAPO_CAUSE_CLIENT_IDLE] / 1e9);
    fprintf(out, "%-52s %12s %8s\n", "Breakdown (paper Tables 3, 5, 6, 7)", "count/ms", "percent");
    print_node(out, r->tree, 0, 0);
    print_distributions(r, out);
    print_savings(r, out);
    print_episodes(r, out);
    print_worst(r, out);
}
