/* number_text.c: see number_text.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "number_text.h"

#include <math.h>

static const uint64_t powers_of_ten[TAPO_FIXED_MAX_DECIMALS + 1] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

/* The digits of v, at least min_digits of them (zeros in front). */
static void append_digits(GString *s, uint64_t v, unsigned min_digits)
{
    char digits[24];
    unsigned n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < min_digits)
        digits[n++] = '0';
    while (n)
        g_string_append_c(s, digits[--n]);
}

void tapo_append_uint(GString *s, uint64_t v)
{
    append_digits(s, v, 1);
}

/* |x| times 10^decimals rounded to the nearest integer, an exact tie to the
 * even one; |x| below 10^18 / 10^decimals. */
static uint64_t scaled_rounded(double magnitude, unsigned decimals)
{
    int exponent;
    double fraction = frexp(magnitude, &exponent);               /* in [0.5, 1), or 0 */
    uint64_t mantissa = (uint64_t)ldexp(fraction, 53);           /* exact: 53 bits */
    int shift = 53 - exponent;                                   /* magnitude = mantissa / 2^shift */
    unsigned __int128 scaled = (unsigned __int128)mantissa * powers_of_ten[decimals];   /* < 2^83 */
    if (shift <= 0)
        return (uint64_t)(scaled << -shift);                     /* an integer; fits, by the bound */
    if (shift > 84)
        return 0;                                                /* below a half: scaled < 2^83 */
    unsigned __int128 one = 1;
    uint64_t quotient = (uint64_t)(scaled >> shift);
    unsigned __int128 rest = scaled & ((one << shift) - 1), half = one << (shift - 1);
    if (rest > half || (rest == half && (quotient & 1)))
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
    if (signbit(x))
        g_string_append_c(s, '-');   /* printf writes -0.000000 for -0.0 and for -1e-9 too */
    uint64_t v = scaled_rounded(fabs(x), decimals);
    uint64_t unit = powers_of_ten[decimals];
    append_digits(s, v / unit, 1);
    if (decimals == 0)
        return;
    g_string_append_c(s, '.');
    append_digits(s, v % unit, decimals);
}
