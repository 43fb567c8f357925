/* command_line.h: tapo's command line read into options (options.h): the
 * settings of --config FILE first, then the command line's, which win;
 * "tapo merge" as a command of its own; --compare BEFORE... -- AFTER...;
 * values attached to short options as tshark takes them (-j1, -Fjsonl);
 * the -o preferences read (prefs_option.h); and which command the options
 * ask for, or why none.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_COMMAND_LINE_H
#define TAPO_COMMAND_LINE_H

#include <glib.h>

#include "options.h"

typedef enum {
    TAPO_COMMAND_ANALYSE,             /* tapo CAPTURE... or -i IFACE */
    TAPO_COMMAND_COMPARE,             /* tapo --html R.html --compare BEFORE... -- AFTER... */
    TAPO_COMMAND_MERGE,               /* tapo merge PARTIAL... */
    TAPO_COMMAND_VERSION,             /* --version */
    TAPO_COMMAND_HELP                 /* nothing to read: the help, and exit status 1 */
} tapo_command;

typedef struct tapo_command_line {
    tapo_options opt;
    tapo_command command;
    char *help;                       /* TAPO_COMMAND_HELP: the help text */
} tapo_command_line;

/* Reads argv into cl; false, with the reason (a usage error), when it
 * cannot.  Free cl with tapo_command_line_free either way. */
bool tapo_command_line_read(int argc, char **argv, tapo_command_line *cl, GError **error);

void tapo_command_line_free(tapo_command_line *cl);

#endif /* TAPO_COMMAND_LINE_H */
