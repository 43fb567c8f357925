/* output.c: see output.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE   /* memrchr */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_FLAGS (O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC)

static void remember(tapo_output *o, int e)
{
    if (!o->error)
        o->error = e ? e : EIO;
}

bool tapo_output_open(tapo_output *o, const char *path, GError **error)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        o->name = g_strdup("standard output");
        return true;
    }
    if (g_file_test(path, G_FILE_TEST_EXISTS) && !g_file_test(path, G_FILE_TEST_IS_REGULAR))
        o->f = fopen(path, "w");
    else
        o->fd = open(path, FILE_FLAGS | O_TRUNC, 0666);
    if (!o->f && o->fd < 0) {
        int e = errno;
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s", path, g_strerror(e));
        return false;
    }
    o->name = g_strdup(path);
    o->path = g_strdup(path);
    o->owned = true;
    return true;
}

/* ---- whole rows into a regular file ---------------------------------------- */

/* Writes len bytes; returns 0 or the errno, with *done the bytes written. */
static int write_all(int fd, const char *data, size_t len, size_t *done)
{
    *done = 0;
    while (*done < len) {
        ssize_t n = write(fd, data + *done, len - *done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : ENOSPC;
        *done += (size_t)n;
    }
    return 0;
}

static uint64_t lines_in(const char *data, size_t len)
{
    uint64_t n = 0;
    for (const char *p = data; (p = memchr(p, '\n', len - (size_t)(p - data))); p++)
        n++;
    return n;
}

static void failed(tapo_output *o, int e, uint64_t rows)
{
    remember(o, e);
    o->rows_lost += rows;
    if (!o->failing)
        fprintf(stderr, "tapo: %s: %s: rows are lost (and counted) until it can be written again\n", o->name,
                g_strerror(e));
    o->failing = true;
}

static void succeeded(tapo_output *o, uint64_t rows)
{
    o->rows += rows;
    o->rows_in_file += rows;
    if (o->failing)
        fprintf(stderr, "tapo: %s: written again, %" G_GUINT64_FORMAT " rows lost in all\n", o->name, o->rows_lost);
    o->failing = false;
}

/* Appends data (rows whole lines) to the file, the header first when the
 * file is empty; on a failure the file is cut back to its last whole row. */
static void append(tapo_output *o, const char *data, size_t len, uint64_t rows)
{
    size_t head = o->size == 0 && o->header ? strlen(o->header) : 0;
    size_t done_head = 0, done = 0;
    int e = head ? write_all(o->fd, o->header, head, &done_head) : 0;
    if (!e)
        e = write_all(o->fd, data, len, &done);
    if (!e) {
        o->size += head + len;
        succeeded(o, rows);
        return;
    }
    /* Keep the rows written whole, if the header made it. */
    uint64_t kept_rows = 0;
    size_t kept = 0;
    if (done_head == head && done > 0) {
        const char *last = memrchr(data, '\n', done);
        kept = last ? (size_t)(last - data) + 1 : 0;
        kept_rows = MIN(lines_in(data, kept), rows);
    }
    uint64_t size = kept || !head ? o->size + head + kept : o->size;
    if (ftruncate(o->fd, (off_t)size) != 0)
        remember(o, errno);
    o->size = size;
    o->rows += kept_rows;
    o->rows_in_file += kept_rows;
    failed(o, e, rows - kept_rows);
}

/* ---- segments ------------------------------------------------------------- */

static void finish_segment(tapo_output *o)
{
    if (o->fd < 0)
        return;
    if (close(o->fd) != 0)
        remember(o, errno);
    o->fd = -1;
    GError *error = NULL;
    bool keep = o->rows_in_file > 0;
    if (!tapo_rotation_finish(o->rotation, keep, &error)) {
        fprintf(stderr, "tapo: %s\n", error->message);
        remember(o, error->code == G_FILE_ERROR_NOSPC ? ENOSPC : EIO);
        g_error_free(error);
    } else if (keep) {
        o->files++;
    }
    o->size = 0;
    o->rows_in_file = 0;
}

static bool begin_segment(tapo_output *o)
{
    const char *part = tapo_rotation_begin(o->rotation);
    o->fd = open(part, FILE_FLAGS | O_EXCL, 0666);
    o->size = 0;
    o->rows_in_file = 0;
    if (o->fd < 0) {
        tapo_rotation_finish(o->rotation, false, NULL);
        return false;
    }
    return true;
}

bool tapo_output_open_segments(tapo_output *o, const char *path, uint64_t max_bytes, double max_age_s,
                               GError **error)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || strcmp(path, "-") == 0 ||
        (g_file_test(path, G_FILE_TEST_EXISTS) && !g_file_test(path, G_FILE_TEST_IS_REGULAR))) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s: only a file (--stalls FILE) can be rotated", path && strcmp(path, "-") ? path : "standard output");
        return false;
    }
    char *dir = g_path_get_dirname(path);
    int writable = access(dir, W_OK | X_OK);
    int e = errno;
    if (writable != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s", dir, g_strerror(e));
        g_free(dir);
        return false;
    }
    g_free(dir);
    o->name = g_strdup(path);
    o->path = g_strdup(path);
    o->owned = true;
    o->rotation = tapo_rotation_new(path, max_bytes, max_age_s);
    unsigned recovered = tapo_rotation_recover(o->rotation);
    if (recovered)
        fprintf(stderr, "tapo: %s: completed %u unfinished segment(s) of an earlier run\n", path, recovered);
    return true;
}

/* Rows into segments: a segment full or old enough is completed first, and
 * rows that would take it past its size begin the next one (a segment
 * holds at least one row, however long). */
static void write_segments(tapo_output *o, const char *data, size_t len, uint64_t rows)
{
    uint64_t max = tapo_rotation_max_bytes(o->rotation);
    while (len > 0) {
        if (o->fd >= 0 && tapo_rotation_due(o->rotation, o->size))
            finish_segment(o);
        if (o->fd < 0 && !begin_segment(o)) {
            failed(o, errno, rows);
            return;
        }
        size_t piece = len;
        if (max && rows > 0) {
            uint64_t head = o->size == 0 && o->header ? strlen(o->header) : 0;
            uint64_t room = o->size + head < max ? max - o->size - head : 0;
            const char *end = room ? memrchr(data, '\n', MIN(room, (uint64_t)len)) : NULL;
            if (end)
                piece = (size_t)(end - data) + 1;
            else if (o->rows_in_file > 0) {
                finish_segment(o);
                continue;
            } else {
                const char *first = memchr(data, '\n', len);
                piece = first ? (size_t)(first - data) + 1 : len;
            }
        }
        uint64_t piece_rows = piece == len ? rows : MIN(lines_in(data, piece), rows);
        append(o, data, piece, piece_rows);
        data += piece;
        len -= piece;
        rows -= piece_rows;
    }
}

/* ---- writing -------------------------------------------------------------- */

void tapo_output_set_header(tapo_output *o, const char *header)
{
    g_free(o->header);
    o->header = header && *header ? g_strdup(header) : NULL;
    if (o->header && o->f)
        tapo_output_puts(o, o->header);
    else if (o->header && !o->rotation)
        tapo_output_write_rows(o, "", 0, 0);
}

void tapo_output_write_rows(tapo_output *o, const char *data, size_t len, uint64_t rows)
{
    if (o->f) {
        /* stdio: the first error ends the writes. */
        if (!o->error && len) {
            errno = 0;
            if (fwrite(data, 1, len, o->f) != len)
                remember(o, errno);
        }
        if (o->error)
            o->rows_lost += rows;
        else
            o->rows += rows;
        return;
    }
    if (!o->path)
        return;   /* never opened */
    if (o->rotation) {
        write_segments(o, data, len, rows);
        return;
    }
    if (o->fd < 0) {
        tapo_output_reopen(o);
        if (o->fd < 0) {
            failed(o, errno, rows);
            return;
        }
    }
    if (len || (o->size == 0 && o->header))
        append(o, data, len, rows);
}

void tapo_output_write(tapo_output *o, const char *data, size_t len)
{
    tapo_output_write_rows(o, data, len, 0);
}

void tapo_output_puts(tapo_output *o, const char *text)
{
    tapo_output_write(o, text, strlen(text));
}

void tapo_output_flush(tapo_output *o)
{
    if (!o->f || o->error)
        return;
    errno = 0;
    if (fflush(o->f) != 0)
        remember(o, errno);
}

void tapo_output_tick(tapo_output *o)
{
    if (o->rotation && o->fd >= 0 && tapo_rotation_due(o->rotation, o->size))
        finish_segment(o);
}

void tapo_output_reopen(tapo_output *o)
{
    if (o->f || !o->path)
        return;
    if (o->rotation) {
        finish_segment(o);
        return;
    }
    if (o->fd >= 0 && close(o->fd) != 0)
        remember(o, errno);
    o->fd = open(o->path, FILE_FLAGS, 0666);
    struct stat st;
    o->size = o->fd >= 0 && fstat(o->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
    o->rows_in_file = 0;
    if (o->fd >= 0 && o->size == 0 && o->header)
        append(o, "", 0, 0);
}

void tapo_output_finish(tapo_output *o)
{
    if (o->f) {
        tapo_output_flush(o);
        if (!o->error && ferror(o->f))
            o->error = EIO;
    } else if (o->rotation) {
        finish_segment(o);
    }
}

bool tapo_output_close(tapo_output *o, GError **error)
{
    if (!o->f && !o->path) {
        memset(o, 0, sizeof *o);
        return true;
    }
    tapo_output_finish(o);
    if (o->f) {
        if (o->owned) {
            errno = 0;
            if (fclose(o->f) != 0)
                remember(o, errno);
        }
    } else if (o->rotation) {
        tapo_rotation_free(o->rotation);
    } else if (o->fd >= 0 && close(o->fd) != 0) {
        remember(o, errno);
    }
    bool ok = o->error == 0;
    if (!ok) {
        char *lost = o->rows_lost ? g_strdup_printf(" (%" G_GUINT64_FORMAT " rows lost)", o->rows_lost) : g_strdup("");
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(o->error), "%s: %s%s", o->name,
                    g_strerror(o->error), lost);
        g_free(lost);
    }
    g_free(o->name);
    g_free(o->path);
    g_free(o->header);
    memset(o, 0, sizeof *o);
    o->fd = -1;
    return ok;
}
