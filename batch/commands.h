/* commands.h: what tapo does, one command per file, each returning the
 * exit status (0; 1 on a usage error or an output that could not be
 * written; EXIT_INPUT_PROBLEM when an input could not be read to its end):
 *   command_analyse.c   captures or a live interface: rows, report, partial result, HTML page;
 *   command_compare.c   two capture sets side by side in one HTML page;
 *   command_merge.c     partial results merged into one report;
 *   command_run.c       what the runs of the first two share.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_COMMANDS_H
#define TAPO_COMMANDS_H

#include <glib.h>

#include "options.h"
#include "run.h"

int tapo_command_analyse(tapo_options *opt);
int tapo_command_compare(tapo_options *opt);
int tapo_command_merge(tapo_options *opt);

/* The message of error on standard error, freed: exit status 1. */
int tapo_fail(GError *error);

/* The inputs: -r FILE (as tshark) and the files named, NULL-terminated. */
char **tapo_inputs(const tapo_options *opt);

/* What a run of files (or of the interface) takes from the options:
 * preferences, format, workers; false with why when they do not go. */
bool tapo_run_options_of(const tapo_options *opt, char **files, tapo_run_options *o, GError **error);

#endif /* TAPO_COMMANDS_H */
