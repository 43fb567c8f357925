/* test_number_text.c: number_text.c writes what printf writes, byte for
 * byte: exact ties (dyadic values such as 2^-7 at 6 decimals), values just
 * either side of a tie, the powers of ten where %g changes its exponent,
 * zeros and negative zeros, subnormals, magnitudes
 * at the fall-back bound, NaN and infinities, and a million random doubles
 * of every magnitude the rows hold (times since 1970, durations, RTTs).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "number_text.h"

static int failures;

static void same_fixed(double x, unsigned decimals)
{
    char expected[512];
    snprintf(expected, sizeof expected, "%.*f", (int)decimals, x);
    GString *got = g_string_new("");
    tapo_append_fixed(got, x, decimals);
    if (strcmp(got->str, expected) != 0 && failures++ < 20)
        fprintf(stderr, "%.17g at %u decimals: printf %s, tapo_append_fixed %s\n", x, decimals, expected, got->str);
    g_string_free(got, TRUE);
}

static void same_general(double x, unsigned precision)
{
    char expected[512];
    snprintf(expected, sizeof expected, "%.*g", (int)precision, x);
    GString *got = g_string_new("");
    tapo_append_general(got, x, precision);
    if (strcmp(got->str, expected) != 0 && failures++ < 20)
        fprintf(stderr, "%.17g at precision %u: printf %s, tapo_append_general %s\n", x, precision, expected,
                got->str);
    g_string_free(got, TRUE);
}

static void every_precision(double x)
{
    for (unsigned p = 1; p <= TAPO_GENERAL_MAX_PRECISION; p++) {
        same_general(x, p);
        same_general(-x, p);
        same_general(nextafter(x, 0), p);
        same_general(nextafter(x, INFINITY), p);
    }
}

static void same_uint(uint64_t v)
{
    char expected[32];
    snprintf(expected, sizeof expected, "%" G_GUINT64_FORMAT, v);
    GString *got = g_string_new("");
    tapo_append_uint(got, v);
    if (strcmp(got->str, expected) != 0 && failures++ < 20)
        fprintf(stderr, "%s: tapo_append_uint %s\n", expected, got->str);
    g_string_free(got, TRUE);
}

static void every_decimals(double x)
{
    for (unsigned d = 0; d <= TAPO_FIXED_MAX_DECIMALS; d++) {
        same_fixed(x, d);
        same_fixed(-x, d);
        same_fixed(nextafter(x, 0), d);
        same_fixed(nextafter(x, INFINITY), d);
    }
}

int main(void)
{
    static const double edges[] = {
        0.0, 0.5, 1.5, 2.5, 0.0078125, 0.00048828125, 1.0 / 1024, 3.0 / 2048, 0.125, 0.375,
        1e-9, 5e-10, 4.9999999999e-10, 5e-7, 0.0000005, 0.9999995, 0.99999995, 9.9999999995,
        1.0, 10.0, 1e9, 1.8e9, 1799999999.9999995, 2e9 + 0.5, 4294967296.0, 9007199254740992.0,
        9007199254740993.0, 1e17, 9.99e17, 1e18, 1e19, 1e300, 4.9e-324, 2.2250738585072014e-308,
        0.1, 0.2, 0.3, 0.7, 123.456, 0.2000005, 1234567.8912345,
    };
    for (unsigned i = 0; i < G_N_ELEMENTS(edges); i++) {
        every_decimals(edges[i]);
        every_precision(edges[i]);
    }
    /* %g: the powers of ten where the style and the exponent change, and
     * values that round up to them. */
    for (int e = -7; e <= 18; e++) {
        double p = pow(10.0, e);
        every_precision(p);
        for (unsigned digits = 1; digits <= 17; digits++)
            every_precision(p * (1.0 - 0.5 * pow(10.0, -(double)digits)));
    }
    same_general(NAN, 15);
    same_general(-INFINITY, 15);
    same_fixed(-0.0, 6);
    same_fixed(NAN, 6);
    same_fixed(-NAN, 9);
    same_fixed(INFINITY, 6);
    same_fixed(-INFINITY, 0);
    /* Every dyadic tie k / 2^n near the places the rows print. */
    for (int n = 1; n <= 12; n++)
        for (int k = 1; k < 4096; k += 2)
            every_decimals(ldexp(k, -n));
    GRand *rand = g_rand_new_with_seed(27);
    for (int i = 0; i < 1000000; i++) {
        double magnitude = pow(10.0, g_rand_double_range(rand, -12.0, 19.0));
        double x = g_rand_double(rand) * magnitude;
        same_fixed(x, (unsigned)g_rand_int_range(rand, 0, TAPO_FIXED_MAX_DECIMALS + 1));
        /* a time since 1970 with a decimal tie within a few ulps */
        double t = floor(g_rand_double_range(rand, 1e9, 2e9) * 1e6) / 1e6 + 5e-7;
        same_fixed(nextafter(t, (i & 1) ? 0 : INFINITY), 6);
        same_uint(g_rand_int(rand) | ((uint64_t)g_rand_int(rand) << (i % 33)));
        /* a place in the data, 0 to 1, as the rows write it, and any double */
        same_general(g_rand_double(rand), 15);
        same_general(g_rand_double(rand) * magnitude, (unsigned)g_rand_int_range(rand, 1, TAPO_GENERAL_MAX_PRECISION + 1));
    }
    g_rand_free(rand);
    same_uint(0);
    same_uint(UINT64_MAX);
    if (failures) {
        fprintf(stderr, "%d differences from printf\n", failures);
        return 1;
    }
    printf("number_text: as printf writes them\n");
    return 0;
}
