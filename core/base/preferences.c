/* preferences.c: see preferences.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "base/preferences.h"

#include <math.h>
#include <string.h>

const tapo_pref_def tapo_pref_defs[TAPO_PREF_COUNT] = {
    [TAPO_PREF_ANALYSE] = { "analyse", TAPO_PREF_BOOL, "FALSE",
        .title = "Analyse every capture",
        .doc = "Run the stall analysis on every capture read; otherwise (the default) only when something asks "
               "for TAPO: a tapo filter, column, coloring rule or field, the TAPO statistics, the Lua companion" },
    /* tau > 0, and at most 100: a bound against typing errors. */
    [TAPO_PREF_TAU] = { "tau", TAPO_PREF_DECIMAL, "2", .min = 0.0, .max = 100.0, .min_excluded = true,
        .title = "Stall threshold multiplier (tau)",
        .doc = "A gap longer than min(tau x SRTT, RTO) is a stall; the paper uses 2" },
    [TAPO_PREF_SMALL_WINDOW] = { "small_window", TAPO_PREF_UINT, "4", .min = 0.0, .max = G_MAXUINT32,
        .title = "Small in-flight limit (segments)",
        .doc = "Fewer segments in flight than this cannot trigger fast retransmit (paper: 4)" },
    [TAPO_PREF_RTO_MIN_MS] = { "rto_min_ms", TAPO_PREF_UINT, "200", .min = 0.0, .max = G_MAXUINT32,
        .title = "Minimum RTO (ms)",
        .doc = "Lower bound of the RTO and of its variance term; Linux uses 200 ms" },
    [TAPO_PREF_RTO_INITIAL_MS] = { "rto_initial_ms", TAPO_PREF_UINT, "1000", .min = 0.0, .max = G_MAXUINT32,
        .title = "Initial RTO (ms)",
        .doc = "RTO before the first RTT sample; RFC 6298 says 1000 ms" },
    [TAPO_PREF_MIN_STALL_MS] = { "min_stall_ms", TAPO_PREF_UINT, "10", .min = 0.0, .max = G_MAXUINT32,
        .title = "Minimum stall duration (ms)",
        .doc = "Shorter gaps are no stall: on a LAN, timestamp jitter and interrupt coalescing make "
               "sub-millisecond gaps longer than 2 SRTT; 0 follows the paper exactly" },
    /* One connection stalled alone is no incident: an episode needs two. */
    [TAPO_PREF_EPISODE_CONNECTIONS] = { "episode_connections", TAPO_PREF_UINT, "3", .min = 2.0, .max = G_MAXUINT32,
        .title = "Connections in an episode",
        .doc = "Stalls of at least this many connections at once, sharing a server, a client, a prefix or only "
               "the capture, are one episode (an incident: tapo.episode); two passes only" },
    [TAPO_PREF_SENDER] = { "sender", TAPO_PREF_ENUM, "auto",
        .choices = { { "auto", "Automatic (the heavier data sender)", TAPO_SENDER_AUTO },
                     { "responder", "Responder (sent the SYN-ACK)", TAPO_SENDER_RESPONDER },
                     { "initiator", "Initiator (sent the SYN)", TAPO_SENDER_INITIATOR },
                     { "ports", "Server ports (below)", TAPO_SENDER_PORTS } },
        .title = "Analysed sender",
        .doc = "Which endpoint is the paper's server; automatic: the heavier data sender, per direction when "
               "both send bulk data" },
    [TAPO_PREF_SERVER_PORTS] = { "server_ports", TAPO_PREF_RANGE, "", .range_max = 65535,
        .title = "Server ports",
        .doc = "With \"ports\": endpoints using these ports are the sender" },
    [TAPO_PREF_VANTAGE] = { "vantage", TAPO_PREF_ENUM, "auto",
        .choices = { { "auto", "Inferred per connection", TAPO_VANTAGE_MODE_AUTO },
                     { "sender", "At the sender", TAPO_VANTAGE_MODE_SENDER },
                     { "receiver", "At the receiver", TAPO_VANTAGE_MODE_RECEIVER },
                     { "middle", "In the middle of the path", TAPO_VANTAGE_MODE_MIDDLE } },
        .title = "Capture vantage",
        .doc = "Where the capture was taken, relative to the analysed sender; inferred by default from the "
               "handshake and the turnarounds" },
    [TAPO_PREF_RULE_ORDER] = { "rule_order", TAPO_PREF_ENUM, "evidence",
        .choices = { { "evidence", "Evidence first (a proven-spurious retransmission is ack-delay)",
                       TAPO_RULE_ORDER_EVIDENCE },
                     { "paper", "The paper's Table 5 order", TAPO_RULE_ORDER_PAPER } },
        .title = "Rule order",
        .doc = "evidence (default): a retransmission the packets prove unnecessary (a D-SACK, or the capture at "
               "the receiver) is ack-delay before any loss rule; paper: the paper's Table 5 order, to reproduce "
               "its tables" },
};

const tapo_pref_def *tapo_pref_find(const char *name)
{
    for (int i = 0; i < TAPO_PREF_COUNT; i++)
        if (strcmp(tapo_pref_defs[i].name, name) == 0)
            return &tapo_pref_defs[i];
    return NULL;
}

static bool parse_choice(const tapo_pref_def *d, const char *text, double *value)
{
    for (const tapo_pref_choice *c = d->choices; c->name; c++)
        if (g_ascii_strcasecmp(text, c->name) == 0 || g_ascii_strcasecmp(text, c->title) == 0) {
            *value = c->value;
            return true;
        }
    return false;
}

static bool parse_number(const tapo_pref_def *d, const char *text, double *value)
{
    if (d->type == TAPO_PREF_UINT) {
        guint64 n;
        if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT32, &n, NULL))
            return false;
        *value = (double)n;
        return true;
    }
    char *end = NULL;
    double x = g_ascii_strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(x))
        return false;
    *value = x;
    return true;
}

bool tapo_pref_parse(const tapo_pref_def *d, const char *text, double *value)
{
    switch (d->type) {
    case TAPO_PREF_BOOL:
        if (g_ascii_strcasecmp(text, "true") != 0 && g_ascii_strcasecmp(text, "false") != 0)
            return false;
        *value = g_ascii_strcasecmp(text, "true") == 0;
        return true;
    case TAPO_PREF_UINT:
    case TAPO_PREF_DECIMAL:
        return parse_number(d, text, value) && tapo_pref_accepts(d, *value);
    case TAPO_PREF_ENUM:
        return parse_choice(d, text, value);
    case TAPO_PREF_RANGE:
        break;
    }
    return false;
}

bool tapo_pref_accepts(const tapo_pref_def *d, double value)
{
    switch (d->type) {
    case TAPO_PREF_BOOL:
        return value == 0.0 || value == 1.0;
    case TAPO_PREF_UINT:
    case TAPO_PREF_DECIMAL:
        return (d->min_excluded ? value > d->min : value >= d->min) && value <= d->max;
    case TAPO_PREF_ENUM:
        return tapo_pref_choice_name(d, (int)value) != NULL;
    case TAPO_PREF_RANGE:
        break;
    }
    return false;
}

const char *tapo_pref_choice_name(const tapo_pref_def *d, int value)
{
    for (const tapo_pref_choice *c = d->choices; c->name; c++)
        if (c->value == value)
            return c->name;
    return NULL;
}

char *tapo_pref_accepted_text(const tapo_pref_def *d)
{
    GString *s = g_string_new("");
    switch (d->type) {
    case TAPO_PREF_BOOL:
        g_string_append(s, "TRUE or FALSE");
        break;
    case TAPO_PREF_UINT:
        if (d->max >= G_MAXUINT32)
            g_string_append_printf(s, "a whole number of at least %.0f", d->min);
        else
            g_string_append_printf(s, "a whole number from %.0f to %.0f", d->min, d->max);
        break;
    case TAPO_PREF_DECIMAL:
        g_string_append_printf(s, "a number in %c%g, %g]", d->min_excluded ? '(' : '[', d->min, d->max);
        break;
    case TAPO_PREF_ENUM:
        for (const tapo_pref_choice *c = d->choices; c->name; c++)
            g_string_append_printf(s, "%s%s", c == d->choices ? "" : c[1].name ? ", " : " or ", c->name);
        break;
    case TAPO_PREF_RANGE:
        g_string_append_printf(s, "port ranges up to %u such as 80,8000-8080, or nothing", d->range_max);
        break;
    }
    return g_string_free(s, FALSE);
}

void tapo_pref_apply(tapo_config *cfg, tapo_pref_id id, double value)
{
    switch (id) {
    case TAPO_PREF_TAU: cfg->tau = value; break;
    case TAPO_PREF_SMALL_WINDOW: cfg->small_window_segments = (uint32_t)value; break;
    case TAPO_PREF_RTO_MIN_MS: cfg->rto_min_s = value / 1000.0; break;
    case TAPO_PREF_RTO_INITIAL_MS: cfg->rto_initial_s = value / 1000.0; break;
    case TAPO_PREF_MIN_STALL_MS: cfg->min_stall_s = value / 1000.0; break;
    case TAPO_PREF_EPISODE_CONNECTIONS: cfg->episode_min_connections = (uint32_t)value; break;
    case TAPO_PREF_SENDER: cfg->sender_mode = (tapo_sender_mode)value; break;
    case TAPO_PREF_VANTAGE: cfg->vantage_mode = (tapo_vantage_mode)value; break;
    case TAPO_PREF_RULE_ORDER: cfg->rule_order = (tapo_rule_order)value; break;
    case TAPO_PREF_ANALYSE:        /* when the plugin runs: plugin/tapo_prefs.c */
    case TAPO_PREF_SERVER_PORTS:   /* Wireshark's ranges: the glue sets is_server_port */
    case TAPO_PREF_COUNT:
        break;
    }
}

/* The defaults of the paper and of Linux: the preferences' defaults. */
void tapo_config_init_defaults(tapo_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (int i = 0; i < TAPO_PREF_COUNT; i++) {
        double value;
        if (tapo_pref_parse(&tapo_pref_defs[i], tapo_pref_defs[i].default_text, &value))
            tapo_pref_apply(cfg, (tapo_pref_id)i, value);
    }
    cfg->is_server_port = NULL;
    cfg->is_server_port_data = NULL;
}
