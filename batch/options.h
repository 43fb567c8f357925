/* options.h: what tapo's command line says (command_line.h reads it), for
 * the commands that carry it out (commands.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_OPTIONS_H
#define TAPO_OPTIONS_H

#include <glib.h>

#include "prefs_option.h"

#define EXIT_INPUT_PROBLEM 2          /* as tshark: an input could not be read to its end */

typedef struct tapo_options {
    int jobs;                         /* workers; 0: every core */
    char *interface;
    char *capture_filter;
    char *read_file;
    double settle_s;                  /* streaming: hindsight a stall's row waits for, capture seconds */
    double interval_s;                /* live: between summary lines, seconds */
    gboolean version;
    gboolean merge_by_time;
    gboolean continuous;
    char *format;
    char *stalls_path;
    char *flows_path;
    char *episodes_path;
    char *report;
    char *partial_path;
    char *html_path;
    char *chart_js;
    gboolean compare;
    char **after;                     /* --compare: the files after "--" */
    char **prefs;                     /* -o tapo.NAME:VALUE */
    tapo_prefs_given given;           /* what they say */
    double grace_s;                   /* after a connection is over, seconds */
    double idle_s;                    /* without packets, seconds */
    gboolean quiet;
    char *config_path;
    char *metrics_address;
    int metrics_servers;              /* server endpoints with a label of their own, count */
    double metrics_linger_s;          /* seconds */
    double memory_limit_mib;          /* MiB; 0: no cap */
    char *rotate_size;
    double rotate_interval_s;         /* seconds; 0: none */
    int buffer_kib;                   /* KiB; 0: libpcap's */
    char **files;
} tapo_options;

void tapo_options_free(tapo_options *opt);

#endif /* TAPO_OPTIONS_H */
