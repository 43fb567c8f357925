/* monitoring.c: see monitoring.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "monitoring.h"

#include <stdio.h>
#include <string.h>

#include "live.h"
#include "run.h"

#define LINGER_POLL_US 100000         /* --metrics-linger: how often a signal is looked for, microseconds */

volatile sig_atomic_t tapo_stops;

static void stop(int signal_number)
{
    (void)signal_number;
    tapo_stops++;
    tapo_run_stop();
}

static void reopen(int signal_number)
{
    (void)signal_number;
    tapo_run_reopen();
}

void tapo_handle_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A reopening waits for the next frame: reading goes on. */
    sa.sa_handler = reopen;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* What a monitoring run adds: the metrics and their endpoint, the memory
 * cap. */

    tapo_metrics *metrics;
    tapo_metrics_http *http;
    tapo_memory_cap cap;


bool tapo_monitoring_start(const tapo_options *opt, tapo_monitoring *mon, GError **error)
{
    memset(mon, 0, sizeof *mon);
    if (opt->metrics_servers < 0 || opt->metrics_linger_s < 0.0 || opt->memory_limit_mib < 0.0 ||
        opt->rotate_interval_s < 0.0 || opt->buffer_kib < 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--metrics-servers, --metrics-linger, --memory-limit, --rotate-interval and --buffer-size "
                    "cannot be negative");
        return false;
    }
    if (opt->metrics_address) {
        mon->metrics = tapo_metrics_new((unsigned)opt->metrics_servers);
        mon->http = tapo_metrics_http_start(opt->metrics_address, mon->metrics, error);
        if (!mon->http)
            return false;
        fprintf(stderr, "tapo: metrics at %s\n", tapo_metrics_http_url(mon->http));
    }
    uint64_t buffer = opt->buffer_kib > 0 ? (uint64_t)opt->buffer_kib << 10 : TAPO_LIVE_DEFAULT_BUFFER;
    return tapo_memory_cap_init(&mon->cap, (uint64_t)(opt->memory_limit_mib * 1048576.0),
                                opt->interface ? buffer : 0, error);
}

void tapo_monitoring_stop(const tapo_options *opt, tapo_monitoring *mon)
{
    if (mon->metrics)
        tapo_metrics_set_running(mon->metrics, false);
    if (mon->http && opt->metrics_linger_s > 0.0) {
        sig_atomic_t seen = tapo_stops;
        gint64 until = g_get_monotonic_time() + (gint64)(opt->metrics_linger_s * 1e6);
        while (tapo_stops == seen && g_get_monotonic_time() < until)
            g_usleep(LINGER_POLL_US);
    }
    tapo_metrics_http_stop(mon->http);
    tapo_metrics_free(mon->metrics);
    memset(mon, 0, sizeof *mon);
}
