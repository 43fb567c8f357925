/* decimal.h: an unsigned integer written in decimal, as printf's "%u" and
 * "%" PRIu64 write it, without printf (its format parsing and buffers cost
 * ten times as much for an address, a port or a row's numbers).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_DECIMAL_H
#define TAPO_DECIMAL_H

#include <stdint.h>

#define TAPO_DECIMAL_MAX 20           /* digits of the largest uint64_t, count */

/* Writes v at out, at least min_digits digits (zeros in front; at most
 * TAPO_DECIMAL_MAX), no terminating NUL; returns the end. */
static inline char *tapo_decimal(char *out, uint64_t v, unsigned min_digits)
{
    char digits[TAPO_DECIMAL_MAX];
    unsigned n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < min_digits && n < TAPO_DECIMAL_MAX)
        digits[n++] = '0';
    while (n)
        *out++ = digits[--n];
    return out;
}

#endif /* TAPO_DECIMAL_H */
