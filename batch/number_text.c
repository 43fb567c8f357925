/* number_text.c: see number_text.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "number_text.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>

#include "base/decimal.h"

#define MAX_POWER 19                  /* 10^19 < 2^64 */

static const uint64_t powers_of_ten[MAX_POWER + 1] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u,
};

/* The digits of v, at least min_digits of them (zeros in front). */
static void append_digits(GString *s, uint64_t v, unsigned min_digits)
{
    char text[TAPO_DECIMAL_MAX];
    g_string_append_len(s, text, tapo_decimal(text, v, min_digits) - text);
}

/* v / 10^decimals in decimal, its sign first, no point without decimals. */
static void append_point(GString *s, bool negative, uint64_t v, unsigned decimals)
{
    if (negative)
        g_string_append_c(s, '-');
    uint64_t unit = powers_of_ten[decimals];
    append_digits(s, v / unit, 1);
    if (decimals == 0)
        return;
    g_string_append_c(s, '.');
    append_digits(s, v % unit, decimals);
}

void tapo_append_uint(GString *s, uint64_t v)
{
    append_digits(s, v, 1);
}

/* |x| times 10^decimals, rounded to the nearest integer (an exact tie to
 * the even one) or, not rounding, its integer part; decimals at most
 * MAX_POWER - 1, the result below 2^64. */
static uint64_t scaled(double magnitude, unsigned decimals, bool rounding)
{
    int exponent;
    double fraction = frexp(magnitude, &exponent);               /* in [0.5, 1), or 0 */
    uint64_t mantissa = (uint64_t)ldexp(fraction, 53);           /* exact: 53 bits */
    int shift = 53 - exponent;                                   /* magnitude = mantissa / 2^shift */
    unsigned __int128 product = (unsigned __int128)mantissa * powers_of_ten[decimals];   /* < 2^113 */
    if (shift <= 0)
        return (uint64_t)(product << -shift);                    /* an integer; fits, by the bound */
    if (shift > 114)
        return 0;                                                /* below a half: product < 2^113 */
    unsigned __int128 one = 1;
    uint64_t quotient = (uint64_t)(product >> shift);
    unsigned __int128 rest = product & ((one << shift) - 1), half = one << (shift - 1);
    if (rounding && (rest > half || (rest == half && (quotient & 1))))
        quotient++;
    return quotient;
}

void tapo_append_fixed(GString *s, double x, unsigned decimals)
{
    if (decimals > TAPO_FIXED_MAX_DECIMALS || !isfinite(x) ||
        fabs(x) >= 1e18 / (double)powers_of_ten[decimals]) {
        g_string_append_printf(s, "%.*f", (int)decimals, x);
        return;
    }
    /* printf writes -0.000000 for -0.0 and for -1e-9 too */
    append_point(s, signbit(x), scaled(fabs(x), decimals, true), decimals);
}

/* The decimal exponent of m (> 0) written with precision significant
 * digits, and those digits: floor(log10(m)) estimated, corrected until
 * m's integer part at that scale has precision digits, then m rounded
 * there (a rounding up to 10^precision moves the exponent up by one);
 * INT_MIN where the scale is beyond this arithmetic. */
static int rounded_exponent(double m, unsigned precision, uint64_t *digits)
{
    int exponent = (int)floor(log10(m));
    for (int tries = 0;; tries++) {
        int decimals = (int)precision - 1 - exponent;
        if (tries == 4 || decimals < 0 || decimals >= MAX_POWER)
            return INT_MIN;
        uint64_t whole = scaled(m, (unsigned)decimals, false);
        if (whole < powers_of_ten[precision - 1]) {
            exponent--;
        } else if (whole >= powers_of_ten[precision]) {
            exponent++;
        } else {
            *digits = scaled(m, (unsigned)decimals, true);
            if (*digits == powers_of_ten[precision]) {
                *digits = powers_of_ten[precision - 1];
                exponent++;
            }
            return exponent;
        }
    }
}

void tapo_append_general(GString *s, double x, unsigned precision)
{
    if (x == 0.0 && precision >= 1 && precision <= TAPO_GENERAL_MAX_PRECISION) {
        g_string_append(s, signbit(x) ? "-0" : "0");
        return;
    }
    double m = fabs(x);
    uint64_t digits = 0;
    int exponent = precision >= 1 && precision <= TAPO_GENERAL_MAX_PRECISION && isfinite(x) &&
                   m >= 1e-5 && m < 1e16 ? rounded_exponent(m, precision, &digits) : INT_MIN;
    if (exponent < -4 || exponent >= (int)precision) {
        g_string_append_printf(s, "%.*g", (int)precision, x);   /* the exponent style, or beyond this */
        return;
    }
    unsigned decimals = (unsigned)((int)precision - 1 - exponent);   /* >= 0: exponent < precision */
    while (decimals > 0 && digits % 10 == 0) {   /* %g drops trailing zeros, and a bare point */
        digits /= 10;
        decimals--;
    }
    append_point(s, signbit(x), digits, decimals);
}
