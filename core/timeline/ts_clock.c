/* ts_clock.c: see ts_clock.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "timeline/ts_clock.h"

#include <math.h>

/* TSval rates in use: 1 ms (Linux since 4.13, BSDs, Windows), and kernel
 * ticks of older stacks. */
static const double common_rates_hz[] = { 1000.0, 250.0, 100.0, 300.0, 1024.0, 10.0 };

static double ticks_since(const tapo_ts_clock *k, uint32_t tsval)
{
    return (double)(int32_t)(tsval - k->first_tsval);
}

/* Arrival time minus the clock's time for the packet at rate_hz, seconds. */
static double lag_at(const tapo_ts_clock *k, double rate_hz, uint32_t tsval, double t_s)
{
    return t_s - k->first_s - ticks_since(k, tsval) / rate_hz;
}

static double lag(const tapo_ts_clock *k, uint32_t tsval, double t_s)
{
    return lag_at(k, k->rate_hz, tsval, t_s);
}

static void include_lag(tapo_ts_clock *k, uint32_t tsval, double t_s)
{
    double l = lag(k, tsval, t_s);
    if (!k->lag_known || l < k->lag_min_s)
        k->lag_min_s = l;
    k->lag_known = true;
}

/* The clock starts over from the latest packet. */
static void restart(tapo_ts_clock *k)
{
    k->first_tsval = k->last_tsval;
    k->first_s = k->last_s;
    k->fastest_hz = 0.0;
    k->early_count = 0;
}

/* The latest packet's rate from the reference, when measured long enough.
 * No TCP timestamp clock ticks faster than once a millisecond (RFC 7323
 * 5.4; 1024 Hz on some stacks): a faster rate says the reference was no
 * reading of this clock (a SYN-ACK whose TSval is 0, a proxy's), and the
 * clock starts over from the latest packet. */
static void measure(tapo_ts_clock *k)
{
    double span = k->last_s - k->first_s;
    double ticks = ticks_since(k, k->last_tsval);
    if (span < TAPO_TS_CLOCK_MIN_SPAN_S || ticks < TAPO_TS_CLOCK_MIN_TICKS)
        return;
    if (ticks / span > TAPO_TS_CLOCK_MAX_HZ * (1.0 + TAPO_TS_CLOCK_SNAP_SHARE))
        restart(k);
    else
        k->fastest_hz = fmax(k->fastest_hz, ticks / span);
}

static bool tick_fits_provisional_rate(const tapo_ts_clock *k, uint32_t tsval, double t_s)
{
    double span = t_s - k->first_s;
    double ticks = ticks_since(k, tsval);
    if (ticks < TAPO_TS_CLOCK_PROVISIONAL_TICKS || span <= 0.0)
        return false;
    return fabs(ticks / span / TAPO_TS_CLOCK_PROVISIONAL_HZ - 1.0) < TAPO_TS_CLOCK_PROVISIONAL_SHARE;
}

/* Queueing does not speed a clock up, and a tick early in a connection is
 * rarely queued for long: one of the first packets (or the latest) fits
 * 1 ms ticks within a quarter, or the rate is left unknown.  (One held on
 * the way, a burst released late, fits no rate.) */
static bool fits_provisional_rate(const tapo_ts_clock *k)
{
    if (tick_fits_provisional_rate(k, k->last_tsval, k->last_s))
        return true;
    for (unsigned i = 0; i < k->early_count; i++)
        if (tick_fits_provisional_rate(k, k->early[i].tsval, k->early[i].t_s))
            return true;
    return false;
}

/* The rate: the fastest measured, taken as the common rate it is near.
 * Measured rates are lower bounds (queueing slows them): where the first
 * packets fit 1 ms ticks, that rate stands unless a faster one is
 * measured, so that a burst released late, climbing through slower common
 * rates, is not taken for one of them. */
static double measured_rate(const tapo_ts_clock *k)
{
    double span = k->last_s - k->first_s;
    double rate = k->fastest_hz;
    if (rate == 0.0)
        return 0.0;
    if (rate < TAPO_TS_CLOCK_PROVISIONAL_HZ * (1.0 + TAPO_TS_CLOCK_SNAP_SHARE) && fits_provisional_rate(k))
        return TAPO_TS_CLOCK_PROVISIONAL_HZ;
    for (unsigned i = 0; i < sizeof common_rates_hz / sizeof common_rates_hz[0]; i++)
        if (fabs(rate / common_rates_hz[i] - 1.0) < TAPO_TS_CLOCK_SNAP_SHARE)
            return common_rates_hz[i];
    return span >= TAPO_TS_CLOCK_FREE_SPAN_S ? rate : 0.0;
}

void tapo_ts_clock_note(tapo_ts_clock *k, uint32_t tsval, double t_s)
{
    if (!k->started) {
        k->started = true;
        k->first_tsval = k->last_tsval = tsval;
        k->first_s = t_s;
    }
    if (ticks_since(k, tsval) < ticks_since(k, k->last_tsval))
        return;   /* reordered on the way: the latest tick stays the reference */
    k->last_tsval = tsval;
    k->last_s = t_s;
    k->rate_from_latest = false;
    if (k->rate_hz == 0.0) {
        measure(k);
        if (k->early_count < TAPO_TS_CLOCK_EARLY)
            k->early[k->early_count++] = (tapo_ts_tick){ tsval, t_s };
        k->rate_hz = measured_rate(k);
        if (k->rate_hz == 0.0)
            return;
        k->rate_from_latest = true;
        for (unsigned i = 0; i < k->early_count; i++)
            include_lag(k, k->early[i].tsval, k->early[i].t_s);
    }
    include_lag(k, tsval, t_s);
}

/* Before the rate is measured: the least lag of the first packets at the
 * provisional rate, seconds. */
static double provisional_lag_min(const tapo_ts_clock *k)
{
    double least = lag_at(k, TAPO_TS_CLOCK_PROVISIONAL_HZ, k->last_tsval, k->last_s);
    for (unsigned i = 0; i < k->early_count; i++)
        least = fmin(least, lag_at(k, TAPO_TS_CLOCK_PROVISIONAL_HZ, k->early[i].tsval, k->early[i].t_s));
    return least;
}

tapo_opt_s tapo_ts_clock_delay(const tapo_ts_clock *k, uint32_t tsval, double t_s)
{
    double d;
    if (!k->started)
        return tapo_opt_s_none();
    if (k->rate_hz > 0.0 && k->rate_hz < TAPO_TS_CLOCK_PLACING_MIN_HZ)
        return tapo_opt_s_none();   /* a tick too coarse to place a packet */
    /* A rate that this packet alone measured cannot measure its delay
     * (one long span: a slow clock and a late packet look the same),
     * unless the first packets had already shown it. */
    if (k->rate_from_latest && tsval == k->last_tsval && !fits_provisional_rate(k))
        return tapo_opt_s_none();
    if (k->rate_hz > 0.0 && k->lag_known)
        d = lag(k, tsval, t_s) - k->lag_min_s;
    else if (fits_provisional_rate(k))
        d = lag_at(k, TAPO_TS_CLOCK_PROVISIONAL_HZ, tsval, t_s) - provisional_lag_min(k);
    else
        return tapo_opt_s_none();
    return tapo_opt_s_of(d > 0.0 ? d : 0.0);
}
