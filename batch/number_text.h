/* number_text.h: numbers appended to a GString as printf writes them,
 * byte for byte, without printf.
 *
 * The stall and flow rows are mostly numbers: on a large capture, glibc's
 * printf (its format parsing, a temporary buffer allocated per call, and
 * its multi-precision path for every double) was a quarter of what tapo
 * did.  A double is a 53-bit integer times a power of two, so its value
 * times 10^decimals is exact in 128-bit integer arithmetic, and rounding
 * it to the nearest integer (an exact tie to even, as glibc rounds in the
 * default rounding mode) gives printf's digits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_NUMBER_TEXT_H
#define TAPO_NUMBER_TEXT_H

#include <stdint.h>

#include <glib.h>

#define TAPO_FIXED_MAX_DECIMALS 9     /* the most tapo_append_fixed takes, digits */

/* printf's "%" PRIu64. */
void tapo_append_uint(GString *s, uint64_t v);

/* printf's "%.<decimals>f", decimals 0 to TAPO_FIXED_MAX_DECIMALS; what the
 * integer arithmetic cannot hold (NaN, infinities, magnitudes of 10^18
 * over 10^decimals and more) is left to printf. */
void tapo_append_fixed(GString *s, double x, unsigned decimals);

#define TAPO_GENERAL_MAX_PRECISION 17  /* the most tapo_append_general takes, digits */

/* printf's "%.<precision>g", precision 1 to TAPO_GENERAL_MAX_PRECISION:
 * the plain style (-4 <= exponent < precision) written here, the exponent
 * style, NaN and infinities left to printf. */
void tapo_append_general(GString *s, double x, unsigned precision);

#endif /* TAPO_NUMBER_TEXT_H */
