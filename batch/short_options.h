/* short_options.h: short options with their value attached, as getopt and
 * tshark take them (-j1, -Fjsonl, -qj1, -otapo.tau:3), for GLib's option
 * parser, which reads "-j1" as the options -j and -1 and takes -j's value
 * from the next argument (the capture's name, or the next option).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SHORT_OPTIONS_H
#define TAPO_SHORT_OPTIONS_H

#include <glib.h>

/* argv (argc arguments) with every group of short options split: "-qj1"
 * becomes "-q", "-j", "1" when -q takes no value and -j one (as entries
 * say); a group naming an option entries lack is left whole for GLib to
 * report, and nothing after "--" changes.  A new NULL-terminated array
 * (g_free it), *new_argc its length; the strings it adds are kept in
 * owned (give it g_free as its free function), the others are argv's. */
char **tapo_split_short_options(const GOptionEntry *entries, int argc, char **argv, int *new_argc,
                                GPtrArray *owned);

#endif /* TAPO_SHORT_OPTIONS_H */
