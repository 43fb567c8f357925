/* test_json_text.c: the JSON text writer (json_text.h) writes what
 * json-glib's generator writes for the same tree, byte for byte, pretty
 * and compact: the report and partial results must not change by a byte.
 * Plain C + GLib + json-glib.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <json-glib/json-glib.h>

#include "json_text.h"

/* Every control byte json-glib treats in a way of its own, quotes,
 * backslashes and a UTF-8 letter. */
static const char awkward[] = "a\"b\\c\b\f\n\r\t\x01\x1b\x1e\x1f\x7f/\xc3\xa9";

/* The same tree twice: into the writer, and into a JsonBuilder. */
static void tree(tapo_json_text *w, JsonBuilder *b)
{
    tapo_json_begin_object(w), json_builder_begin_object(b);
    tapo_json_member(w, awkward), json_builder_set_member_name(b, awkward);
    tapo_json_string(w, awkward), json_builder_add_string_value(b, awkward);
    static const double doubles[] = { 1.0, 0.1, 1e-7, 1800000001.001, 0.0, -2.5e300, 1e21 };
    tapo_json_member(w, "doubles"), json_builder_set_member_name(b, "doubles");
    tapo_json_begin_array(w), json_builder_begin_array(b);
    for (unsigned i = 0; i < G_N_ELEMENTS(doubles); i++)
        tapo_json_double(w, doubles[i]), json_builder_add_double_value(b, doubles[i]);
    tapo_json_end_array(w), json_builder_end_array(b);
    tapo_json_member(w, "int"), json_builder_set_member_name(b, "int");
    tapo_json_int(w, -42), json_builder_add_int_value(b, -42);
    tapo_json_member(w, "null"), json_builder_set_member_name(b, "null");
    tapo_json_string(w, NULL), json_builder_add_null_value(b);
    tapo_json_member(w, "empty"), json_builder_set_member_name(b, "empty");
    tapo_json_begin_object(w), json_builder_begin_object(b);
    tapo_json_end_object(w), json_builder_end_object(b);
    tapo_json_member(w, "nested"), json_builder_set_member_name(b, "nested");
    tapo_json_begin_array(w), json_builder_begin_array(b);
    tapo_json_begin_array(w), json_builder_begin_array(b);
    tapo_json_end_array(w), json_builder_end_array(b);
    tapo_json_begin_object(w), json_builder_begin_object(b);
    tapo_json_member(w, "inner"), json_builder_set_member_name(b, "inner");
    tapo_json_begin_object(w), json_builder_begin_object(b);
    tapo_json_end_object(w), json_builder_end_object(b);
    tapo_json_member(w, "yes"), json_builder_set_member_name(b, "yes");
    tapo_json_bool(w, true), json_builder_add_boolean_value(b, TRUE);
    tapo_json_end_object(w), json_builder_end_object(b);
    tapo_json_end_array(w), json_builder_end_array(b);
    tapo_json_end_object(w), json_builder_end_object(b);
}

static void check(bool pretty)
{
    GString *text = g_string_new("");
    tapo_json_text w;
    tapo_json_text_init(&w, text, pretty);
    JsonBuilder *b = json_builder_new();
    tree(&w, b);
    JsonNode *root = json_builder_get_root(b);
    JsonGenerator *gen = json_generator_new();
    json_generator_set_root(gen, root);
    json_generator_set_pretty(gen, pretty);
    char *expected = json_generator_to_data(gen, NULL);
    g_assert_cmpstr(text->str, ==, expected);
    g_free(expected);
    json_node_unref(root);
    g_object_unref(gen);
    g_object_unref(b);
    g_string_free(text, TRUE);
}

static void test_pretty_as_json_glib(void)
{
    check(true);
}

static void test_compact_as_json_glib(void)
{
    check(false);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/json_text/pretty", test_pretty_as_json_glib);
    g_test_add_func("/json_text/compact", test_compact_as_json_glib);
    return g_test_run();
}
