/* rotation.c: see rotation.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "rotation.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

struct tapo_rotation {
    char *dir;                        /* the folder of the path */
    char *stem;                       /* its file name without the extension */
    char *ext;                        /* the extension with its dot, or "" */
    uint64_t max_bytes;               /* 0: any size */
    double max_age_s;                 /* 0: any age, seconds */
    char *final;                      /* the current segment's final path; NULL between segments */
    char *part;                       /* and its path while written */
    gint64 began_us;                  /* when it began, monotonic microseconds */
    gint64 last_ms;                   /* the time in the latest segment's name, milliseconds since the epoch */
};

tapo_rotation *tapo_rotation_new(const char *path, uint64_t max_bytes, double max_age_s)
{
    tapo_rotation *r = g_new0(tapo_rotation, 1);
    r->dir = g_path_get_dirname(path);
    char *base = g_path_get_basename(path);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) {
        r->stem = g_strndup(base, (gsize)(dot - base));
        r->ext = g_strdup(dot);
    } else {
        r->stem = g_strdup(base);
        r->ext = g_strdup("");
    }
    g_free(base);
    r->max_bytes = max_bytes;
    r->max_age_s = max_age_s;
    return r;
}

void tapo_rotation_free(tapo_rotation *r)
{
    if (!r)
        return;
    g_free(r->dir);
    g_free(r->stem);
    g_free(r->ext);
    g_free(r->final);
    g_free(r->part);
    g_free(r);
}

/* A segment's name: stem-YYYYmmddTHHMMSS.mmmZ[-serial]ext. */
static bool is_segment(const tapo_rotation *r, const char *name)
{
    gsize stem = strlen(r->stem);
    const char *t = name + stem;
    return strncmp(name, r->stem, stem) == 0 && strlen(t) > 21 && t[0] == '-' && g_ascii_isdigit(t[1]) &&
           t[9] == 'T' && t[16] == '.' && t[20] == 'Z';
}

unsigned tapo_rotation_recover(tapo_rotation *r)
{
    GDir *d = g_dir_open(r->dir, 0, NULL);
    if (!d)
        return 0;
    char *suffix = g_strconcat(r->ext, TAPO_ROTATION_PART, NULL);
    unsigned recovered = 0;
    const char *name;
    while ((name = g_dir_read_name(d))) {
        if (!is_segment(r, name) || !g_str_has_suffix(name, suffix))
            continue;
        char *part = g_build_filename(r->dir, name, NULL);
        char *final = g_strndup(part, strlen(part) - strlen(TAPO_ROTATION_PART));
        if (!g_file_test(final, G_FILE_TEST_EXISTS) && g_rename(part, final) == 0)
            recovered++;
        g_free(part);
        g_free(final);
    }
    g_free(suffix);
    g_dir_close(d);
    return recovered;
}

const char *tapo_rotation_begin(tapo_rotation *r)
{
    g_free(r->final);
    g_free(r->part);
    r->final = r->part = NULL;
    /* Named after the millisecond it began, or one later than the name
     * before (or one a file has), so that names sort as segments began. */
    gint64 ms = MAX(g_get_real_time() / 1000, r->last_ms + 1);
    for (;; ms++) {
        GDateTime *t = g_date_time_new_from_unix_utc(ms / 1000);
        char *second = g_date_time_format(t, "%Y%m%dT%H%M%S");
        g_date_time_unref(t);
        char *name = g_strdup_printf("%s-%s.%03dZ%s", r->stem, second, (int)(ms % 1000), r->ext);
        g_free(second);
        char *final = g_build_filename(r->dir, name, NULL);
        char *part = g_strconcat(final, TAPO_ROTATION_PART, NULL);
        g_free(name);
        if (!g_file_test(final, G_FILE_TEST_EXISTS) && !g_file_test(part, G_FILE_TEST_EXISTS)) {
            r->final = final;
            r->part = part;
            break;
        }
        g_free(final);
        g_free(part);
    }
    r->last_ms = ms;
    r->began_us = g_get_monotonic_time();
    return r->part;
}

uint64_t tapo_rotation_max_bytes(const tapo_rotation *r)
{
    return r->max_bytes;
}

bool tapo_rotation_due(const tapo_rotation *r, uint64_t size)
{
    if (!r->final)
        return false;
    if (r->max_bytes && size >= r->max_bytes)
        return true;
    return r->max_age_s > 0.0 && g_get_monotonic_time() - r->began_us >= (gint64)(r->max_age_s * 1e6);
}

bool tapo_rotation_finish(tapo_rotation *r, bool keep, GError **error)
{
    if (!r->final)
        return true;
    bool ok = true;
    if (!keep) {
        g_unlink(r->part);
    } else if (g_rename(r->part, r->final) != 0) {
        int e = errno;
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s", r->part, g_strerror(e));
        ok = false;
    }
    g_free(r->final);
    g_free(r->part);
    r->final = r->part = NULL;
    return ok;
}

const char *tapo_rotation_current(const tapo_rotation *r)
{
    return r->final;
}
