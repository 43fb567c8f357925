/* sketch.h: a quantile sketch that merges exactly.
 *
 * Values are counted in logarithmic buckets of 1 % relative width (as
 * DDSketch does): any quantile is known to within 1 % of its value, and
 * two sketches merge by adding their buckets, so a sketch of many partial
 * results is exactly the sketch of all their values together, whatever
 * the order or grouping (per file, per shard, per machine).  Up to
 * TAPO_SKETCH_EXACT_MAX values are also kept as they are, and quantiles
 * are then exact: the nearest rank the Lua companion's report gives.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SKETCH_H
#define TAPO_SKETCH_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "json_text.h"

#define TAPO_SKETCH_ACCURACY 0.01     /* relative error of a quantile */
#define TAPO_SKETCH_MIN 1e-6          /* smaller positive values count in the lowest bucket */
#define TAPO_SKETCH_MAX 1e9           /* larger ones in the highest */
#define TAPO_SKETCH_EXACT_MAX (1u << 20) /* values kept exactly, count (8 bytes each) */

typedef struct tapo_sketch {
    uint64_t zeros;                   /* values <= 0, count */
    uint64_t count;                   /* all values, count */
    int64_t sum_nano;                 /* their sum in billionths: integers add up in any order */
    uint64_t *buckets;                /* TAPO_SKETCH_BUCKETS counts; NULL until a positive value */
    GArray *exact;                    /* double: every value while count <= TAPO_SKETCH_EXACT_MAX; else NULL */
    bool inexact;                     /* more values than that were seen: exact is gone */
} tapo_sketch;

void tapo_sketch_init(tapo_sketch *s);
void tapo_sketch_free(tapo_sketch *s);
void tapo_sketch_add(tapo_sketch *s, double value);
void tapo_sketch_merge(tapo_sketch *into, const tapo_sketch *from);

/* The sum of the values. */
double tapo_sketch_sum(const tapo_sketch *s);

/* The q-quantile (0..1) by nearest rank; 0 when empty. */
double tapo_sketch_quantile(const tapo_sketch *s, double q);

/* As JSON: {"count":N,"sum_nano":S,"zeros":Z,"buckets":[[index,count],...],
 * "exact":[values in order]} ("exact" only while kept). */
void tapo_sketch_write_json(const tapo_sketch *s, tapo_json_text *w);

/* From such a node; false (and an empty sketch) on a malformed one. */
bool tapo_sketch_from_json(tapo_sketch *s, JsonNode *node);

#endif /* TAPO_SKETCH_H */
