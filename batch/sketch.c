/* sketch.c: see sketch.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sketch.h"

#include <math.h>
#include <string.h>

/* gamma = (1 + a) / (1 - a): a bucket [gamma^(i-1), gamma^i) holds values
 * within a of its midpoint 2 gamma^i / (gamma + 1). */
static double log_gamma(void)
{
    return log((1.0 + TAPO_SKETCH_ACCURACY) / (1.0 - TAPO_SKETCH_ACCURACY));
}

static int bucket_offset(void)
{
    return (int)floor(log(TAPO_SKETCH_MIN) / log_gamma());
}

static int bucket_count(void)
{
    return (int)ceil(log(TAPO_SKETCH_MAX) / log_gamma()) - bucket_offset() + 1;
}

static int bucket_of(double value)
{
    if (value < TAPO_SKETCH_MIN)
        value = TAPO_SKETCH_MIN;
    if (value > TAPO_SKETCH_MAX)
        value = TAPO_SKETCH_MAX;
    return (int)ceil(log(value) / log_gamma()) - bucket_offset();
}

static double bucket_value(int i)
{
    double gamma = exp(log_gamma());
    return 2.0 * pow(gamma, i + bucket_offset()) / (gamma + 1.0);
}

void tapo_sketch_init(tapo_sketch *s)
{
    memset(s, 0, sizeof *s);
}

void tapo_sketch_free(tapo_sketch *s)
{
    g_free(s->buckets);
    s->buckets = NULL;
    if (s->exact)
        g_array_free(s->exact, TRUE);
    s->exact = NULL;
}

/* Keeps values exactly while they are few enough. */
static void keep_exact(tapo_sketch *s, const double *values, guint n)
{
    if (s->inexact)
        return;
    if (s->count > TAPO_SKETCH_EXACT_MAX) {
        if (s->exact)
            g_array_free(s->exact, TRUE);
        s->exact = NULL;
        s->inexact = true;
        return;
    }
    if (!s->exact)
        s->exact = g_array_new(FALSE, FALSE, sizeof(double));
    g_array_append_vals(s->exact, values, n);
}

static void ensure_buckets(tapo_sketch *s)
{
    if (!s->buckets)
        s->buckets = g_new0(uint64_t, (gsize)bucket_count());
}

void tapo_sketch_add(tapo_sketch *s, double value)
{
    if (!(value == value))
        return;   /* NaN */
    s->count++;
    s->sum_nano += (int64_t)llround(value * 1e9);
    keep_exact(s, &value, 1);
    if (value <= 0.0) {
        s->zeros++;
        return;
    }
    ensure_buckets(s);
    s->buckets[bucket_of(value)]++;
}

void tapo_sketch_merge(tapo_sketch *into, const tapo_sketch *from)
{
    into->count += from->count;
    into->sum_nano += from->sum_nano;
    into->zeros += from->zeros;
    if (from->inexact || (from->count && !from->exact)) {
        keep_exact(into, NULL, 0);
        if (into->exact)
            g_array_free(into->exact, TRUE);
        into->exact = NULL;
        into->inexact = true;
    } else if (from->exact) {
        keep_exact(into, (const double *)(const void *)from->exact->data, from->exact->len);
    }
    if (!from->buckets)
        return;
    ensure_buckets(into);
    for (int i = 0; i < bucket_count(); i++)
        into->buckets[i] += from->buckets[i];
}

double tapo_sketch_sum(const tapo_sketch *s)
{
    return (double)s->sum_nano / 1e9;
}

static int by_value(gconstpointer a, gconstpointer b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The exact values in order (g_array_sort is stable); values already in
 * order, as after the first sort, are left as they are: the same result
 * without a sort's n log n comparisons for every quantile asked. */
static void sort_exact(GArray *exact)
{
    const double *v = (const double *)(const void *)exact->data;
    for (guint i = 1; i < exact->len; i++)
        if (v[i - 1] > v[i]) {
            g_array_sort(exact, by_value);
            return;
        }
}

double tapo_sketch_quantile(const tapo_sketch *s, double q)
{
    if (s->count == 0)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)s->count);
    if (rank < 1)
        rank = 1;
    if (s->exact && s->exact->len == s->count) {
        sort_exact(s->exact);
        return g_array_index(s->exact, double, rank > s->count ? s->count - 1 : rank - 1);
    }
    if (rank <= s->zeros || !s->buckets)
        return 0.0;
    uint64_t seen = s->zeros;
    for (int i = 0; i < bucket_count(); i++) {
        seen += s->buckets[i];
        if (seen >= rank)
            return bucket_value(i);
    }
    return bucket_value(bucket_count() - 1);
}

void tapo_sketch_write_json(const tapo_sketch *s, tapo_json_text *w)
{
    tapo_json_begin_object(w);
    tapo_json_member(w, "count");
    tapo_json_int(w, (int64_t)s->count);
    tapo_json_member(w, "sum_nano");
    tapo_json_int(w, s->sum_nano);
    tapo_json_member(w, "zeros");
    tapo_json_int(w, (int64_t)s->zeros);
    tapo_json_member(w, "buckets");
    tapo_json_begin_array(w);
    for (int i = 0; s->buckets && i < bucket_count(); i++) {
        if (!s->buckets[i])
            continue;
        tapo_json_begin_array(w);
        tapo_json_int(w, i);
        tapo_json_int(w, (int64_t)s->buckets[i]);
        tapo_json_end_array(w);
    }
    tapo_json_end_array(w);
    if (s->exact && s->exact->len == s->count) {
        sort_exact(s->exact);
        tapo_json_member(w, "exact");
        tapo_json_begin_array(w);
        /* In order, equal values lie side by side: each is written as
         * text once (17 digits cost a few thousand instructions). */
        GString *previous = g_string_new("");
        for (guint i = 0; i < s->exact->len; i++) {
            double v = g_array_index(s->exact, double, i);
            if (i == 0 || v != g_array_index(s->exact, double, i - 1))
                tapo_json_double_text(v, previous);
            tapo_json_raw(w, previous->str);
        }
        g_string_free(previous, TRUE);
        tapo_json_end_array(w);
    }
    tapo_json_end_object(w);
}

bool tapo_sketch_from_json(tapo_sketch *s, JsonNode *node)
{
    tapo_sketch_init(s);
    if (!node || !JSON_NODE_HOLDS_OBJECT(node))
        return false;
    JsonObject *o = json_node_get_object(node);
    JsonArray *buckets = json_object_get_array_member(o, "buckets");
    if (!buckets)
        return false;
    s->count = (uint64_t)json_object_get_int_member(o, "count");
    s->sum_nano = json_object_get_int_member(o, "sum_nano");
    s->zeros = (uint64_t)json_object_get_int_member(o, "zeros");
    uint64_t total = s->zeros;
    for (guint k = 0; k < json_array_get_length(buckets); k++) {
        JsonArray *pair = json_array_get_array_element(buckets, k);
        gint64 i = pair && json_array_get_length(pair) == 2 ? json_array_get_int_element(pair, 0) : -1;
        if (i < 0 || i >= bucket_count()) {
            tapo_sketch_free(s);
            tapo_sketch_init(s);
            return false;
        }
        ensure_buckets(s);
        uint64_t n = (uint64_t)json_array_get_int_element(pair, 1);
        s->buckets[i] += n;
        total += n;
    }
    JsonArray *exact = json_object_has_member(o, "exact") ? json_object_get_array_member(o, "exact") : NULL;
    if (exact && json_array_get_length(exact) == s->count) {
        s->exact = g_array_sized_new(FALSE, FALSE, sizeof(double), json_array_get_length(exact));
        for (guint k = 0; k < json_array_get_length(exact); k++) {
            double v = json_array_get_double_element(exact, k);
            g_array_append_val(s->exact, v);
        }
    } else {
        s->inexact = s->count > 0;
    }
    return total == s->count;
}
