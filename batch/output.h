/* output.h: an output file of the tapo command whose every write is
 * checked, flushes and closes included: a full disk (ENOSPC), a closed pipe
 * (EPIPE) or any other error is remembered with the file's name, so that
 * the command says so and exits non-zero instead of losing rows silently.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_OUTPUT_H
#define TAPO_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include <glib.h>

typedef struct tapo_output {
    FILE *f;
    char *name;                       /* as the user gave it; "standard output" for - */
    bool owned;                       /* opened here: closed here */
    int error;                        /* the first errno; 0: none */
} tapo_output;

/* Opens path for writing ("-" or NULL: standard output); false with
 * *error set when it cannot be opened. */
bool tapo_output_open(tapo_output *o, const char *path, GError **error);

/* Appends; a failure is remembered (later writes are skipped). */
void tapo_output_write(tapo_output *o, const char *data, size_t len);
void tapo_output_puts(tapo_output *o, const char *text);

/* Pushes what is buffered to the file (rows streamed as they settle). */
void tapo_output_flush(tapo_output *o);

/* Flushes and closes (standard output is flushed and checked, not closed);
 * false with *error naming the file when any write failed. */
bool tapo_output_close(tapo_output *o, GError **error);

#endif /* TAPO_OUTPUT_H */
