/* monitoring.h: what a long analysis run adds (docs/monitoring.md): the
 * signals that end it or reopen its outputs, the metrics and their HTTP
 * endpoint, the memory cap.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_MONITORING_H
#define TAPO_MONITORING_H

#include <signal.h>
#include <stdbool.h>

#include <glib.h>

#include "memory_cap.h"
#include "metrics.h"
#include "metrics_http.h"
#include "options.h"

/* SIGINT and SIGTERM end the run as if the input ended (every connection
 * written out, the report printed); SIGHUP reopens the outputs (logrotate);
 * a closed pipe is an error to report, not a silent death. */
void tapo_handle_signals(void);

/* SIGINT and SIGTERM received, count: the second ends --metrics-linger. */
extern volatile sig_atomic_t tapo_stops;

typedef struct tapo_monitoring {
    tapo_metrics *metrics;            /* --metrics; NULL: none */
    tapo_metrics_http *http;
    tapo_memory_cap cap;              /* --memory-limit; a zero limit: none */
} tapo_monitoring;

bool tapo_monitoring_start(const tapo_options *opt, tapo_monitoring *mon, GError **error);

/* The inputs ended: the metrics say so, and stay --metrics-linger seconds
 * for a last scrape, or until SIGINT or SIGTERM. */
void tapo_monitoring_stop(const tapo_options *opt, tapo_monitoring *mon);

#endif /* TAPO_MONITORING_H */
