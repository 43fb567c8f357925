/* prefs_option.h: the plugin's preferences given to tapo as tshark takes
 * them (-o tapo.NAME:VALUE), read from the core's one table
 * (core/base/preferences.h): every preference of the plugin, by its name,
 * with the values it accepts, enums by name or title.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_PREFS_OPTION_H
#define TAPO_PREFS_OPTION_H

#include <stdbool.h>

#include <glib.h>

#include "base/config.h"

struct epan_range;

/* What the -o options say. */
typedef struct tapo_prefs_given {
    tapo_config cfg;                  /* the configuration they make; its is_server_port reads server_ports */
    struct epan_range *server_ports;  /* tapo.server_ports, parsed by Wireshark's range API; NULL: none */
    bool defaults;                    /* every preference keeps its default value */
} tapo_prefs_given;

/* Reads args ("tapo.NAME:VALUE" each, NULL-terminated; NULL: none); false,
 * with a message naming the option, on one that names no preference or
 * gives a value it does not accept.  Free with tapo_prefs_given_free. */
bool tapo_prefs_given_read(tapo_prefs_given *given, char **args, GError **error);

void tapo_prefs_given_free(tapo_prefs_given *given);

#endif /* TAPO_PREFS_OPTION_H */
