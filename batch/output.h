/* output.h: an output file of the tapo command whose every write is
 * checked, flushes and closes included: a full disk (ENOSPC), a closed pipe
 * (EPIPE) or any other error is remembered with the file's name, so that
 * the command says so and exits non-zero instead of losing rows silently.
 *
 * A regular file is written row by row with write(2), each chunk of whole
 * rows appended or, when the disk is full, cut back to its last whole row:
 * the file never ends in a partial row, every row before the disk filled
 * is in it, and the rows that could not be written are counted (rows_lost)
 * and said on stderr when it happens, not only at the end; later rows are
 * tried again, so writing resumes when there is room.  Such a file may be
 * split into segments (rotation.h) and reopened (SIGHUP, after logrotate
 * moved it).  Standard output, pipes and devices go through stdio, as
 * before: their first error ends their writes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_OUTPUT_H
#define TAPO_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <glib.h>

#include "rotation.h"

typedef struct tapo_output {
    FILE *f;                          /* standard output, a pipe, a device: stdio; NULL otherwise */
    int fd;                           /* a regular file: whole rows; -1 otherwise (or between segments) */
    char *name;                       /* as the user gave it; "standard output" for - */
    char *path;                       /* the file's path (NULL for standard output) */
    bool owned;                       /* opened here: closed here */
    int error;                        /* the first errno; 0: none */
    bool failing;                     /* the latest write failed (said on stderr): rows are being lost */
    uint64_t size;                    /* bytes of whole rows in the file (or segment) now */
    uint64_t rows_in_file;            /* rows in the file (or segment) now, count */
    char *header;                     /* written at the top of every file it starts; NULL: none */
    tapo_rotation *rotation;          /* segments; NULL: one file */
    uint64_t rows;                    /* written, count */
    uint64_t rows_lost;               /* not written (a full disk, a closed pipe), count */
    uint64_t files;                   /* segments completed, count */
} tapo_output;

/* Opens path for writing ("-" or NULL: standard output); false with
 * *error set when it cannot be opened. */
bool tapo_output_open(tapo_output *o, const char *path, GError **error);

/* Segments named after path (rotation.h), of at most max_bytes (0: any
 * size) and max_age_s seconds (0: any age); path itself is left alone.
 * Completes the segments a previous run left unfinished.  False with
 * *error when path's folder cannot be written or path is no regular file
 * (standard output, a pipe, a device). */
bool tapo_output_open_segments(tapo_output *o, const char *path, uint64_t max_bytes, double max_age_s,
                               GError **error);

/* The header (a CSV's first line): written now, and at the top of every
 * file the output starts later (segments, reopened files). */
void tapo_output_set_header(tapo_output *o, const char *header);

/* Appends rows rows (whole lines); a failure is counted and said. */
void tapo_output_write_rows(tapo_output *o, const char *data, size_t len, uint64_t rows);

/* Appends text that is no row (a report). */
void tapo_output_write(tapo_output *o, const char *data, size_t len);
void tapo_output_puts(tapo_output *o, const char *text);

/* Pushes what is buffered to the file (rows streamed as they settle). */
void tapo_output_flush(tapo_output *o);

/* Completes a segment that is old enough (--rotate-interval) though no row came. */
void tapo_output_tick(tapo_output *o);

/* SIGHUP: a segment is completed; a single file is closed and opened
 * again at its path, appending (logrotate moved it: a new file begins,
 * with the header). */
void tapo_output_reopen(tapo_output *o);

/* Flushes and completes the current segment, so that the counts are
 * final (the first half of closing). */
void tapo_output_finish(tapo_output *o);

/* Flushes and closes (standard output is flushed and checked, not closed);
 * false with *error naming the file when any write failed. */
bool tapo_output_close(tapo_output *o, GError **error);

#endif /* TAPO_OUTPUT_H */
