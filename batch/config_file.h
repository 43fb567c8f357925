/* config_file.h: tapo --config FILE, the settings of a run kept in a file
 * (the service's /etc/tapo/tapo.conf): a GLib key file whose group [tapo]
 * holds the command's long options by name, e.g.
 *
 *     [tapo]
 *     interface=eth0
 *     filter=tcp port 443
 *     metrics=127.0.0.1:9977
 *     pref=tapo.tau:3;tapo.min_stall_ms:0
 *     quiet=true
 *
 * A switch takes true or false, an option given several times a list
 * separated by ';'.  The file's settings come before the command line's,
 * which therefore win.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CONFIG_FILE_H
#define TAPO_CONFIG_FILE_H

#include <glib.h>

#define TAPO_CONFIG_GROUP "tapo"

/* The file named by --config FILE or --config=FILE in argv; NULL: none. */
const char *tapo_config_file_named(int argc, char **argv);

/* The file's settings as command-line arguments ("--name=value", ...),
 * NULL-terminated; NULL and *error naming the file and the setting for a
 * file that cannot be read, a group or a setting that is not tapo's, or a
 * switch that is neither true nor false. */
char **tapo_config_file_args(const char *path, const GOptionEntry *entries, GError **error);

#endif /* TAPO_CONFIG_FILE_H */
