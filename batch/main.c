/* main.c: the tapo command: the plugin's analysis over many captures, on
 * every core, for capture sets beyond what tshark can hold, or over a live
 * interface.
 *
 *   tapo [OPTION...] CAPTURE...        stall rows, reports, partial results
 *   tapo -i IFACE [-f FILTER] ...      the same, live, rows streamed as stalls settle
 *   tapo -i IFACE --metrics ADDR:PORT  ... and Prometheus metrics (docs/monitoring.md)
 *   tapo --config /etc/tapo/tapo.conf  the settings from a file (the service)
 *   tapo merge [OPTION...] PARTIAL...  partial results merged into one report
 *   tapo --html R.html CAPTURE...      the incident report as one HTML page
 *   tapo --html R.html --compare BEFORE... -- AFTER...   two capture sets side by side
 *
 * The command line is read by command_line.c, each command carried out by
 * its own file (commands.h).  Every output is checked to its close: an
 * error (a full disk, a closed pipe) is reported with the file's name and
 * the exit status is 1.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include <glib.h>

#include "command_line.h"
#include "commands.h"

static int print_version(void)
{
    printf("tapo %s (TAPO for Wireshark; the analysis of its plugin, built against Wireshark %s)\n", TAPO_VERSION,
           TAPO_WIRESHARK_VERSION);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

int main(int argc, char **argv)
{
    GError *error = NULL;
    tapo_command_line cl;
    int status;
    if (!tapo_command_line_read(argc, argv, &cl, &error)) {
        status = tapo_fail(error);
    } else {
        switch (cl.command) {
        case TAPO_COMMAND_VERSION: status = print_version(); break;
        case TAPO_COMMAND_HELP: fputs(cl.help, stderr); status = 1; break;
        case TAPO_COMMAND_MERGE: status = tapo_command_merge(&cl.opt); break;
        case TAPO_COMMAND_COMPARE: status = tapo_command_compare(&cl.opt); break;
        case TAPO_COMMAND_ANALYSE: default: status = tapo_command_analyse(&cl.opt); break;
        }
    }
    tapo_command_line_free(&cl);
    return status;
}
