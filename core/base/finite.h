/* finite.h: the smaller and the larger of two numbers known to be finite.
 * fmin() and fmax() also order NaNs, at the cost of a library call each:
 * on the per-packet path, where every time and estimate is finite (the
 * RTT estimator and the turnarounds refuse anything else), these compile
 * to one instruction.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_FINITE_H
#define TAPO_FINITE_H

static inline double tapo_min(double a, double b)
{
    return b < a ? b : a;
}

static inline double tapo_max(double a, double b)
{
    return b > a ? b : a;
}

#endif /* TAPO_FINITE_H */
