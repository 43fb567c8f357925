/* preferences.h: TAPO's preferences, declared once.
 *
 * One row per preference: its name (tapo.NAME), type, default, the values
 * it accepts, its title and its description.  The plugin registers its
 * Wireshark preferences from these rows (plugin/tapo_prefs.c), the batch
 * analyser parses -o tapo.NAME:VALUE from them (batch/prefs_option.c),
 * tapo_config_init_defaults takes its defaults from them, and the Lua
 * companion reads their names and defaults from lua/tapo_policy.lua,
 * generated from them (core/tools/lua_policy.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_PREFERENCES_H
#define TAPO_PREFERENCES_H

#include <stdbool.h>

#include <glib.h>

#include "base/config.h"

/* In the order Wireshark lists them (tshark -G defaultprefs). */
typedef enum {
    TAPO_PREF_ANALYSE,
    TAPO_PREF_TAU,
    TAPO_PREF_SMALL_WINDOW,
    TAPO_PREF_RTO_MIN_MS,
    TAPO_PREF_RTO_INITIAL_MS,
    TAPO_PREF_MIN_STALL_MS,
    TAPO_PREF_EPISODE_CONNECTIONS,
    TAPO_PREF_SENDER,
    TAPO_PREF_SERVER_PORTS,
    TAPO_PREF_VANTAGE,
    TAPO_PREF_RULE_ORDER,
    TAPO_PREF_COUNT
} tapo_pref_id;

typedef enum {
    TAPO_PREF_BOOL,                   /* TRUE or FALSE, any case */
    TAPO_PREF_UINT,                   /* a whole number, decimal */
    TAPO_PREF_DECIMAL,                /* a decimal number, kept as text (Wireshark has no such preference) */
    TAPO_PREF_ENUM,                   /* one of its choices, by name or by title, any case */
    TAPO_PREF_RANGE                   /* port ranges, "80,8000-8080": Wireshark's range syntax, which the
                                         glue parses with Wireshark's range API */
} tapo_pref_type;

#define TAPO_PREF_CHOICES_MAX 4       /* choices of an enum preference, at most */

typedef struct tapo_pref_choice {
    const char *name;                 /* what -o takes and Lua's get_preference returns: "auto" */
    const char *title;                /* what the GUI shows (and tshark -G defaultprefs writes) */
    int value;                        /* the enum member it stands for (config.h) */
} tapo_pref_choice;

typedef struct tapo_pref_def {
    const char *name;                 /* tapo.NAME */
    tapo_pref_type type;
    const char *default_text;         /* the default, as -o takes it */
    double min, max;                  /* UINT, DECIMAL: the values accepted, in the preference's unit */
    bool min_excluded;                /* DECIMAL: min itself is not accepted */
    tapo_pref_choice choices[TAPO_PREF_CHOICES_MAX + 1]; /* ENUM: ended by a NULL name */
    unsigned range_max;               /* RANGE: the largest value of a range (a port: 65535) */
    const char *title;                /* the GUI's label */
    const char *doc;                  /* the GUI's description */
} tapo_pref_def;

extern const tapo_pref_def tapo_pref_defs[TAPO_PREF_COUNT];

/* The preference named NAME (tapo.NAME, without "tapo."); NULL: none. */
const tapo_pref_def *tapo_pref_find(const char *name);

/* The value of text for a preference that is no RANGE: the number (BOOL:
 * 1 or 0; ENUM: the choice's value); false when text is no value it
 * accepts. */
bool tapo_pref_parse(const tapo_pref_def *d, const char *text, double *value);

/* Whether a UINT, DECIMAL, ENUM or BOOL value is one d accepts. */
bool tapo_pref_accepts(const tapo_pref_def *d, double value);

/* What d accepts, in words, for messages: "a number in (0, 100]",
 * "auto, responder, initiator or ports", ... */
char *tapo_pref_accepted_text(const tapo_pref_def *d);

/* The name of the choice whose value is value; NULL: none. */
const char *tapo_pref_choice_name(const tapo_pref_def *d, int value);

/* Sets what preference id, of value (parsed, accepted), changes in cfg.
 * tapo.analyse and tapo.server_ports are the glue's: no change here. */
void tapo_pref_apply(tapo_config *cfg, tapo_pref_id id, double value);

#endif /* TAPO_PREFERENCES_H */
