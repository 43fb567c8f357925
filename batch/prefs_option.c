/* prefs_option.c: see prefs_option.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "prefs_option.h"

#include <string.h>

#include <gmodule.h>
#include <epan/range.h>

#include "base/preferences.h"

#define PREFIX "tapo."

/* Wireshark's range API, from libwireshark loaded when a range is given:
 * linked, that library cost every run about 25 ms of start-up (its 1.5
 * million relocations) for three functions most runs never call. */
typedef struct range_api {
    __typeof__(range_convert_str) *convert;
    __typeof__(ranges_are_equal) *equal;
    __typeof__(value_is_in_range) *contains;
} range_api;

static range_api wireshark_ranges;   /* set once, before any worker starts */

/* Loads the range API; false, with the reason, when it cannot. */
static bool load_range_api(const char *arg, GError **error)
{
    if (wireshark_ranges.convert)
        return true;
    GModule *lib = g_module_open(TAPO_LIBWIRESHARK_SONAME, G_MODULE_BIND_LOCAL);
    range_api api = { NULL, NULL, NULL };
    if (lib && g_module_symbol(lib, "range_convert_str", (gpointer *)&api.convert) &&
        g_module_symbol(lib, "ranges_are_equal", (gpointer *)&api.equal) &&
        g_module_symbol(lib, "value_is_in_range", (gpointer *)&api.contains)) {
        wireshark_ranges = api;   /* the library stays loaded for the run */
        return true;
    }
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "-o %s: Wireshark's range API cannot be loaded: %s",
                arg, g_module_error());
    if (lib)
        g_module_close(lib);
    return false;
}

static bool is_server_port(uint16_t port, void *data)
{
    const range_t *ports = data;
    return ports && wireshark_ranges.contains(ports, port);
}

/* "tapo.analyse, tapo.tau, ...": every preference, for a message. */
static char *every_name(void)
{
    GString *s = g_string_new("");
    for (int i = 0; i < TAPO_PREF_COUNT; i++)
        g_string_append_printf(s, "%s" PREFIX "%s", i ? ", " : "", tapo_pref_defs[i].name);
    return g_string_free(s, FALSE);
}

static bool no_such_preference(const char *arg, GError **error)
{
    char *names = every_name();
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "-o %s: no preference of the TAPO plugin (-o tapo.NAME:VALUE; the names: %s)", arg, names);
    g_free(names);
    return false;
}

static bool bad_value(const char *arg, const tapo_pref_def *d, GError **error)
{
    char *accepted = tapo_pref_accepted_text(d);
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "-o %s: " PREFIX "%s takes %s", arg, d->name,
                accepted);
    g_free(accepted);
    return false;
}

/* tapo.server_ports: Wireshark's range syntax, read by Wireshark. */
static bool read_ranges(tapo_prefs_given *given, const char *arg, const tapo_pref_def *d, const char *value,
                        GError **error)
{
    if (!load_range_api(arg, error))
        return false;
    range_t *ranges = NULL;
    if (wireshark_ranges.convert(NULL, &ranges, value, d->range_max) != CVT_NO_ERROR) {
        wmem_free(NULL, ranges);
        return bad_value(arg, d, error);
    }
    range_t *defaults = NULL;
    wireshark_ranges.convert(NULL, &defaults, d->default_text, d->range_max);
    given->defaults = given->defaults && wireshark_ranges.equal(ranges, defaults);
    wmem_free(NULL, defaults);
    wmem_free(NULL, given->server_ports);
    given->server_ports = ranges;
    given->cfg.is_server_port_data = ranges;
    return true;
}

/* One "tapo.NAME:VALUE". */
static bool read_one(tapo_prefs_given *given, const char *arg, GError **error)
{
    const char *colon = strchr(arg, ':');
    if (!g_str_has_prefix(arg, PREFIX) || !colon)
        return no_such_preference(arg, error);
    char *name = g_strndup(arg + strlen(PREFIX), (gsize)(colon - arg - strlen(PREFIX)));
    const tapo_pref_def *d = tapo_pref_find(name);
    g_free(name);
    if (!d)
        return no_such_preference(arg, error);
    const char *value = colon + 1;
    if (d->type == TAPO_PREF_RANGE)
        return read_ranges(given, arg, d, value, error);
    double number, default_number;
    if (!tapo_pref_parse(d, value, &number))
        return bad_value(arg, d, error);
    tapo_pref_parse(d, d->default_text, &default_number);
    given->defaults = given->defaults && number == default_number;
    tapo_pref_apply(&given->cfg, (tapo_pref_id)(d - tapo_pref_defs), number);
    return true;
}

bool tapo_prefs_given_read(tapo_prefs_given *given, char **args, GError **error)
{
    memset(given, 0, sizeof *given);
    tapo_config_init_defaults(&given->cfg);
    given->cfg.is_server_port = is_server_port;
    given->defaults = true;
    for (char **p = args; p && *p; p++)
        if (!read_one(given, *p, error))
            return false;
    return true;
}

void tapo_prefs_given_free(tapo_prefs_given *given)
{
    wmem_free(NULL, given->server_ports);
    memset(given, 0, sizeof *given);
}
