/* rows.c: see rows.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "rows.h"

#include <string.h>

#include "explain/stall_fields.h"
#include "number_text.h"

static const char *const place_columns[] = {
    "file", "frame.number", "frame.time_epoch", "src", "srcport", "dst", "dstport", "tapo.conn", "sender",
};

void tapo_rows_stall_header(GString *out, tapo_rows_format format)
{
    if (format != TAPO_ROWS_CSV)
        return;
    for (unsigned i = 0; i < G_N_ELEMENTS(place_columns); i++)
        g_string_append_printf(out, "%s%s", i ? "," : "", place_columns[i]);
    for (int f = 0; f < TAPO_F_COUNT; f++)
        g_string_append_printf(out, ",%s", tapo_field_defs[f].name);
    g_string_append_c(out, '\n');
}

/* The columns of the flow report (flow_report.h): the Lua companion's
 * CSV's, with the capture and the connection's first frame for a stream
 * number. */
void tapo_rows_flow_header(GString *out, tapo_rows_format format)
{
    if (format != TAPO_ROWS_CSV)
        return;
    for (int i = 0; i < TAPO_FLOW_COLUMNS; i++)
        g_string_append_printf(out, "%s%s", i ? "," : "", tapo_flow_columns[i].name);
    g_string_append_c(out, '\n');
}

/* CSV quotes a text with a comma, quote or newline; JSON escapes it. */
static void put_text(GString *s, tapo_rows_format format, const char *text)
{
    if (format == TAPO_ROWS_JSONL) {
        g_string_append_c(s, '"');
        for (const char *c = text; *c; c++) {
            if (*c == '"' || *c == '\\')
                g_string_append_printf(s, "\\%c", *c);
            else if ((unsigned char)*c < 0x20)
                g_string_append_printf(s, "\\u%04x", (unsigned char)*c);
            else
                g_string_append_c(s, *c);
        }
        g_string_append_c(s, '"');
        return;
    }
    if (!strpbrk(text, ",\"\n")) {
        g_string_append(s, text);
        return;
    }
    g_string_append_c(s, '"');
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            g_string_append_c(s, '"');
        g_string_append_c(s, *c);
    }
    g_string_append_c(s, '"');
}

static void put_value(GString *s, tapo_rows_format format, tapo_field_type type,
                      const tapo_field_value *f)
{
    if (!f->present) {
        if (format == TAPO_ROWS_JSONL)
            g_string_append(s, "null");
        return;
    }
    switch (type) {
    case TAPO_FIELD_STRING:
        put_text(s, format, f->s);
        break;
    case TAPO_FIELD_BOOL:
        g_string_append(s, format == TAPO_ROWS_JSONL ? (f->b ? "true" : "false") : (f->b ? "1" : "0"));
        break;
    case TAPO_FIELD_SECONDS:
        tapo_append_fixed(s, f->d, 9);
        break;
    case TAPO_FIELD_DOUBLE:
        tapo_append_general(s, f->d, 15);
        break;
    case TAPO_FIELD_TIME:
        tapo_append_fixed(s, f->d, 6);
        break;
    case TAPO_FIELD_UINT:
    case TAPO_FIELD_FRAME:
    case TAPO_FIELD_PORT:
        tapo_append_uint(s, f->u);
        break;
    }
}

static void begin(GString *s, tapo_rows_format format, const char *name, bool first)
{
    if (format == TAPO_ROWS_JSONL) {
        g_string_append_c(s, first ? '{' : ',');
        g_string_append_c(s, '"');
        g_string_append(s, name);
        g_string_append(s, "\":");
    } else if (!first)
        g_string_append_c(s, ',');
}

void tapo_rows_stall(GString *s, tapo_rows_format format, const tapo_row_place *place,
                     const tapo_verdict *v, const tapo_conv_summary *sum, const tapo_config *cfg)
{
    begin(s, format, place_columns[0], true);
    put_text(s, format, place->file);
    begin(s, format, place_columns[1], false);
    tapo_append_uint(s, place->frame);
    begin(s, format, place_columns[2], false);
    tapo_append_fixed(s, place->time_s, 6);
    begin(s, format, place_columns[3], false);
    put_text(s, format, place->src);
    begin(s, format, place_columns[4], false);
    tapo_append_uint(s, place->sport);
    begin(s, format, place_columns[5], false);
    put_text(s, format, place->dst);
    begin(s, format, place_columns[6], false);
    tapo_append_uint(s, place->dport);
    begin(s, format, place_columns[7], false);
    tapo_append_uint(s, place->conn);
    begin(s, format, place_columns[8], false);
    put_text(s, format, place->sender);
    tapo_field_value fields[TAPO_F_COUNT];
    tapo_field_text text;
    tapo_stall_fields(v, sum, cfg, place->names, place->episode, fields, &text);
    for (int f = 0; f < TAPO_F_COUNT; f++) {
        begin(s, format, tapo_field_defs[f].name, false);
        put_value(s, format, tapo_field_defs[f].type, &fields[f]);
    }
    g_string_append(s, format == TAPO_ROWS_JSONL ? "}\n" : "\n");
}

void tapo_rows_flow(GString *s, tapo_rows_format format, const tapo_flow_row *f)
{
    for (int id = 0; id < TAPO_FLOW_COLUMNS; id++) {
        const tapo_flow_column *col = &tapo_flow_columns[id];
        tapo_flow_value v = tapo_flow_get(f, (tapo_flow_column_id)id);
        begin(s, format, col->name, id == 0);
        if (col->kind == TAPO_FLOW_TEXT)
            put_text(s, format, v.text ? v.text : "");   /* none: empty, in both formats */
        else if (col->kind == TAPO_FLOW_COUNT)
            tapo_append_uint(s, v.count);
        else
            tapo_append_fixed(s, v.number, 6);
    }
    g_string_append(s, format == TAPO_ROWS_JSONL ? "}\n" : "\n");
}

static const char *const episode_columns[] = {
    "file", "tapo.episode", "tapo.episode.scope", "tapo.episode.connections", "stalls", "tapo.episode.start",
    "tapo.episode.duration", "tapo.episode.cause", "members",
};

void tapo_rows_episode_header(GString *out, tapo_rows_format format)
{
    if (format != TAPO_ROWS_CSV)
        return;
    for (unsigned i = 0; i < G_N_ELEMENTS(episode_columns); i++)
        g_string_append_printf(out, "%s%s", i ? "," : "", episode_columns[i]);
    g_string_append_c(out, '\n');
}

/* Members as "file:frame" separated by spaces (CSV), or objects (JSON). */
static void put_members(GString *s, tapo_rows_format format, const tapo_row_member *m, guint n)
{
    if (format == TAPO_ROWS_JSONL) {
        g_string_append_c(s, '[');
        for (guint i = 0; i < n; i++) {
            g_string_append_printf(s, "%s{\"file\":", i ? "," : "");
            put_text(s, format, m[i].file);
            g_string_append_printf(s, ",\"frame\":%u}", m[i].frame);
        }
        g_string_append_c(s, ']');
        return;
    }
    GString *text = g_string_new("");
    for (guint i = 0; i < n; i++)
        g_string_append_printf(text, "%s%s:%u", i ? " " : "", m[i].file, m[i].frame);
    put_text(s, format, text->str);
    g_string_free(text, TRUE);
}

void tapo_rows_episode(GString *s, tapo_rows_format format, const tapo_episode *e, const char *file,
                       const tapo_row_member *members, guint count)
{
    begin(s, format, episode_columns[0], true);
    put_text(s, format, file);
    begin(s, format, episode_columns[1], false);
    g_string_append_printf(s, "%u", e->id);
    begin(s, format, episode_columns[2], false);
    put_text(s, format, e->scope_text);
    begin(s, format, episode_columns[3], false);
    g_string_append_printf(s, "%u", e->connections);
    begin(s, format, episode_columns[4], false);
    g_string_append_printf(s, "%u", e->stalls);
    begin(s, format, episode_columns[5], false);
    g_string_append_printf(s, "%.6f", e->start_s);
    begin(s, format, episode_columns[6], false);
    g_string_append_printf(s, "%.9f", e->end_s - e->start_s);
    begin(s, format, episode_columns[7], false);
    put_text(s, format, tapo_cause_get(e->cause)->name);
    begin(s, format, episode_columns[8], false);
    put_members(s, format, members, count);
    g_string_append(s, format == TAPO_ROWS_JSONL ? "}\n" : "\n");
}
