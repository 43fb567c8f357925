/* tapo_prefs.c: see tapo_prefs.h.
 *
 * Each row of the core's table becomes the Wireshark preference of its
 * type; a value Wireshark cannot refuse but the table does (tau "abc", an
 * episode of one connection) is reported in Wireshark's log and the
 * default used.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tapo_prefs.h"

#include "ws_compat.h"

#include <epan/prefs.h>
#include <epan/range.h>

#include "base/preferences.h"

/* Where Wireshark keeps each preference's value, by its type. */
typedef union pref_storage {
    tapo_bool_pref flag;              /* BOOL */
    unsigned number;                  /* UINT */
    const char *text;                 /* DECIMAL */
    int choice;                       /* ENUM: the choice's value */
    range_t *ranges;                  /* RANGE */
} pref_storage;

static pref_storage storage[TAPO_PREF_COUNT];
/* The enum preferences' choices as Wireshark takes them, NULL-ended. */
static enum_val_t enum_values[TAPO_PREF_COUNT][TAPO_PREF_CHOICES_MAX + 1];
static tapo_config *applied;          /* what the preferences make */

static bool is_server_port(uint16_t port, void *data)
{
    (void)data;
    const range_t *ports = storage[TAPO_PREF_SERVER_PORTS].ranges;
    return ports && value_is_in_range(ports, port);
}

static double default_of(const tapo_pref_def *d)
{
    double value = 0.0;
    tapo_pref_parse(d, d->default_text, &value);
    return value;
}

/* The value of a preference that is no range, as the table reads it; the
 * default, with a message, when the table does not accept it. */
static double value_of(tapo_pref_id id)
{
    const tapo_pref_def *d = &tapo_pref_defs[id];
    const pref_storage *s = &storage[id];
    double value = 0.0;
    bool ok = true;
    char given[32];
    switch (d->type) {
    case TAPO_PREF_BOOL: value = TAPO_BOOL_PREF_VALUE(&s->flag); break;
    case TAPO_PREF_UINT: value = s->number; ok = tapo_pref_accepts(d, value); break;
    case TAPO_PREF_DECIMAL: ok = tapo_pref_parse(d, s->text ? s->text : "", &value); break;
    case TAPO_PREF_ENUM: value = s->choice; ok = tapo_pref_accepts(d, value); break;
    case TAPO_PREF_RANGE: break;
    }
    if (ok)
        return value;
    if (d->type == TAPO_PREF_DECIMAL)
        g_strlcpy(given, s->text ? s->text : "", sizeof given);
    else
        g_snprintf(given, sizeof given, "%g", value);
    char *accepted = tapo_pref_accepted_text(d);
    ws_warning("TAPO: %s \"%s\" is not %s; using %s", d->name, given, accepted, d->default_text);
    g_free(accepted);
    return default_of(d);
}

void tapo_prefs_apply(void)
{
    tapo_config_init_defaults(applied);
    for (int id = 0; id < TAPO_PREF_COUNT; id++)
        if (tapo_pref_defs[id].type != TAPO_PREF_RANGE)
            tapo_pref_apply(applied, (tapo_pref_id)id, value_of((tapo_pref_id)id));
    applied->is_server_port = is_server_port;
}

bool tapo_prefs_analyse_always(void)
{
    return TAPO_BOOL_PREF_VALUE(&storage[TAPO_PREF_ANALYSE].flag);
}

static const enum_val_t *enum_values_of(tapo_pref_id id)
{
    const tapo_pref_def *d = &tapo_pref_defs[id];
    for (int k = 0; d->choices[k].name; k++)
        enum_values[id][k] = (enum_val_t){ d->choices[k].name, d->choices[k].title, d->choices[k].value };
    return enum_values[id];
}

/* One row of the table as the Wireshark preference of its type, holding
 * its default. */
static void register_one(module_t *m, tapo_pref_id id)
{
    const tapo_pref_def *d = &tapo_pref_defs[id];
    pref_storage *s = &storage[id];
    double initial = d->type == TAPO_PREF_RANGE ? 0.0 : default_of(d);
    switch (d->type) {
    case TAPO_PREF_BOOL:
        *TAPO_BOOL_PREF_PTR(&s->flag) = initial != 0.0;
        prefs_register_bool_preference(m, d->name, d->title, d->doc, TAPO_BOOL_PREF_PTR(&s->flag));
        break;
    case TAPO_PREF_UINT:
        s->number = (unsigned)initial;
        prefs_register_uint_preference(m, d->name, d->title, d->doc, 10, &s->number);
        break;
    case TAPO_PREF_DECIMAL:
        s->text = d->default_text;
        prefs_register_string_preference(m, d->name, d->title, d->doc, &s->text);
        break;
    case TAPO_PREF_ENUM:
        s->choice = (int)initial;
        prefs_register_enum_preference(m, d->name, d->title, d->doc, &s->choice, enum_values_of(id), false);
        break;
    case TAPO_PREF_RANGE:
        range_convert_str(wmem_epan_scope(), &s->ranges, d->default_text, d->range_max);
        prefs_register_range_preference(m, d->name, d->title, d->doc, &s->ranges, d->range_max);
        break;
    }
}

void tapo_prefs_register(int proto, tapo_config *cfg)
{
    applied = cfg;
    module_t *m = prefs_register_protocol(proto, tapo_prefs_apply);
    for (int id = 0; id < TAPO_PREF_COUNT; id++)
        register_one(m, (tapo_pref_id)id);
}
