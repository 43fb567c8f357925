/* rotation.h: an output file split into segments by size or by age
 * (--rotate-size, --rotate-interval), each written whole: a segment is
 * written under its final name plus ".part" and renamed to that name once
 * complete, so that whatever reads the folder sees only whole files.
 *
 * For --stalls /var/log/tapo/stalls.csv, a segment begun at 12:00:00.250
 * UTC on 26 November 2025 is written as
 *     /var/log/tapo/stalls-20251126T120000.250Z.csv.part
 * and renamed to stalls-20251126T120000.250Z.csv.  A segment begun within
 * the same millisecond as the one before, or whose name is taken, is named
 * a millisecond later: names are unique and sort as segments began.  Segments a previous run left
 * unfinished (".part", after a crash or a power cut) are completed when
 * the next run starts: their rows are not lost.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_ROTATION_H
#define TAPO_ROTATION_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#define TAPO_ROTATION_PART ".part"

typedef struct tapo_rotation tapo_rotation;

/* Segments of path, of at most max_bytes (0: any size) and max_age_s
 * seconds (0: any age). */
tapo_rotation *tapo_rotation_new(const char *path, uint64_t max_bytes, double max_age_s);
void tapo_rotation_free(tapo_rotation *r);

/* Completes the segments of path a previous run left as ".part"; returns
 * how many. */
unsigned tapo_rotation_recover(tapo_rotation *r);

/* The path (with ".part") of a new segment that begins now: a name no
 * file has yet.  Valid until the segment is finished. */
const char *tapo_rotation_begin(tapo_rotation *r);

/* The most bytes a segment holds; 0: any. */
uint64_t tapo_rotation_max_bytes(const tapo_rotation *r);

/* Whether the current segment, size bytes now, is full or old enough. */
bool tapo_rotation_due(const tapo_rotation *r, uint64_t size);

/* The current segment is complete: renamed to its final name (keep), or
 * removed (it holds no row); false with *error when the rename failed. */
bool tapo_rotation_finish(tapo_rotation *r, bool keep, GError **error);

/* The final name of the segment being written; NULL between segments. */
const char *tapo_rotation_current(const tapo_rotation *r);

#endif /* TAPO_ROTATION_H */
