/* metrics_http.h: the HTTP endpoint Prometheus scrapes (tapo --metrics):
 * GET /metrics answers with the run's metrics (metrics.h) in the text
 * exposition format.
 *
 * It runs on a thread of its own, with GLib's main loop and a threaded
 * socket service: a few requests at once, each with a timeout, so that a
 * busy capture, a slow client or a flood of connections never stops the
 * analysis, nor the analysis the answers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_METRICS_HTTP_H
#define TAPO_METRICS_HTTP_H

#include <glib.h>

#include "metrics.h"

typedef struct tapo_metrics_http tapo_metrics_http;

/* Listens on address: "HOST:PORT" (a name, an IPv4 address, or an IPv6
 * one in brackets) or ":PORT" (every address); port 0: one the system
 * picks.  NULL and *error when it cannot listen there. */
tapo_metrics_http *tapo_metrics_http_start(const char *address, tapo_metrics *m, GError **error);

/* Where it answers, e.g. "http://127.0.0.1:9977/metrics" (with the port
 * picked when 0 was asked for). */
const char *tapo_metrics_http_url(const tapo_metrics_http *h);

/* Stops listening and waits for the thread. */
void tapo_metrics_http_stop(tapo_metrics_http *h);

#endif /* TAPO_METRICS_HTTP_H */
