/* json_text.c: see json_text.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "json_text.h"

#include <string.h>

void tapo_json_text_init(tapo_json_text *w, GString *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
}

static void indent(tapo_json_text *w, unsigned level)
{
    for (unsigned i = 0; i < 2 * level; i++)
        g_string_append_c(w->out, ' ');
}

/* What goes before a value: after a member's name nothing more; in an
 * array, a comma after the previous element and, pretty, a new line at
 * the element's indentation. */
static void before_item(tapo_json_text *w)
{
    if (w->named) {
        w->named = false;
        return;
    }
    if (w->depth == 0)
        return;
    uint64_t bit = (uint64_t)1 << (w->depth - 1);
    if (w->filled & bit)
        g_string_append_c(w->out, ',');
    w->filled |= bit;
    if (w->pretty) {
        g_string_append_c(w->out, '\n');
        indent(w, w->depth);
    }
}

static void begin(tapo_json_text *w, char open)
{
    before_item(w);
    g_string_append_c(w->out, open);
    g_assert(w->depth < TAPO_JSON_MAX_DEPTH);
    w->depth++;
    w->filled &= ~((uint64_t)1 << (w->depth - 1));
}

/* Closes the innermost container; an empty object keeps the indentation of
 * its level inside its braces (json-glib's way), an empty array nothing. */
static void end(tapo_json_text *w, char close, bool object)
{
    bool filled = w->filled & ((uint64_t)1 << (w->depth - 1));
    w->depth--;
    if (w->pretty && filled)
        g_string_append_c(w->out, '\n');
    if (w->pretty && (filled || object))
        indent(w, w->depth);
    g_string_append_c(w->out, close);
}

void tapo_json_begin_object(tapo_json_text *w)
{
    begin(w, '{');
}

void tapo_json_end_object(tapo_json_text *w)
{
    end(w, '}', true);
}

void tapo_json_begin_array(tapo_json_text *w)
{
    begin(w, '[');
}

void tapo_json_end_array(tapo_json_text *w)
{
    end(w, ']', false);
}

static void quoted(tapo_json_text *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    g_string_append_c(w->out, '"');
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '"': g_string_append(w->out, "\\\""); break;
        case '\\': g_string_append(w->out, "\\\\"); break;
        case '\b': g_string_append(w->out, "\\b"); break;
        case '\f': g_string_append(w->out, "\\f"); break;
        case '\n': g_string_append(w->out, "\\n"); break;
        case '\r': g_string_append(w->out, "\\r"); break;
        case '\t': g_string_append(w->out, "\\t"); break;
        default:
            /* As json-glib: below 0x1f (not 0x1f itself), and DEL. */
            if (*c < 0x1f || *c == 0x7f) {
                char u[7] = { '\\', 'u', '0', '0', hex[*c >> 4], hex[*c & 15], 0 };
                g_string_append(w->out, u);
            } else {
                g_string_append_c(w->out, (char)*c);
            }
        }
    }
    g_string_append_c(w->out, '"');
}

void tapo_json_member(tapo_json_text *w, const char *name)
{
    before_item(w);
    quoted(w, name);
    g_string_append(w->out, w->pretty ? " : " : ":");
    w->named = true;
}

void tapo_json_int(tapo_json_text *w, int64_t v)
{
    before_item(w);
    g_string_append_printf(w->out, "%" G_GINT64_FORMAT, v);
}

/* v as json-glib writes a double: 17 significant digits, ".0" after them
 * when they hold no point. */
static void double_json(double v, char text[G_ASCII_DTOSTR_BUF_SIZE + 2])
{
    g_ascii_dtostr(text, G_ASCII_DTOSTR_BUF_SIZE, v);
    if (!strchr(text, '.'))
        strcat(text, ".0");
}

void tapo_json_double_text(double v, GString *text)
{
    char json[G_ASCII_DTOSTR_BUF_SIZE + 2];
    double_json(v, json);
    g_string_assign(text, json);
}

void tapo_json_double(tapo_json_text *w, double v)
{
    before_item(w);
    char json[G_ASCII_DTOSTR_BUF_SIZE + 2];
    double_json(v, json);
    g_string_append(w->out, json);
}

void tapo_json_raw(tapo_json_text *w, const char *json)
{
    before_item(w);
    g_string_append(w->out, json);
}

void tapo_json_string(tapo_json_text *w, const char *v)
{
    before_item(w);
    if (v)
        quoted(w, v);
    else
        g_string_append(w->out, "null");
}

void tapo_json_bool(tapo_json_text *w, bool v)
{
    before_item(w);
    g_string_append(w->out, v ? "true" : "false");
}
