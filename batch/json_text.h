/* json_text.h: JSON written straight into a GString, as json-glib's
 * generator writes the same tree, byte for byte, pretty or compact.
 *
 * The report and the partial results were written through a JsonBuilder
 * tree and json-glib's generator: on a large capture that was most of what
 * printing the report cost, for text that a writer can produce as it goes.
 * What json-glib (1.6) writes, and so this writer:
 *   - pretty: two spaces an indentation level, members as "name" : value,
 *     each member and element on a line of its own; an empty object is "{"
 *     and the indentation of its own level and "}", an empty array "[]";
 *   - compact: no blanks at all;
 *   - numbers: integers in decimal; doubles as g_ascii_dtostr writes them
 *     (17 significant digits), with ".0" appended when that has no point;
 *   - strings: '"' and '\' escaped, \b \f \n \r \t, the other bytes below
 *     0x1f and 0x7f as \u00xx, every other byte as it is.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_JSON_TEXT_H
#define TAPO_JSON_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#define TAPO_JSON_MAX_DEPTH 64        /* containers open at once, count */

typedef struct tapo_json_text {
    GString *out;                     /* where the text goes */
    bool pretty;
    unsigned depth;                   /* containers open, count */
    uint64_t filled;                  /* bit d: the container at depth d holds a value already */
    bool named;                       /* a member's name was written: its value follows */
} tapo_json_text;

void tapo_json_text_init(tapo_json_text *w, GString *out, bool pretty);

void tapo_json_begin_object(tapo_json_text *w);
void tapo_json_end_object(tapo_json_text *w);
void tapo_json_begin_array(tapo_json_text *w);
void tapo_json_end_array(tapo_json_text *w);

/* The name of the object member whose value comes next. */
void tapo_json_member(tapo_json_text *w, const char *name);

void tapo_json_int(tapo_json_text *w, int64_t v);
void tapo_json_double(tapo_json_text *w, double v);
/* A double as tapo_json_double writes it, into text (replaced). */
void tapo_json_double_text(double v, GString *text);
/* A value already written as JSON text. */
void tapo_json_raw(tapo_json_text *w, const char *json);
/* NULL writes null. */
void tapo_json_string(tapo_json_text *w, const char *v);
void tapo_json_bool(tapo_json_text *w, bool v);

#endif /* TAPO_JSON_TEXT_H */
