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

/* A segment's name: stem-YYYYmmddTHHMMSSZ[-serial]ext. */
static bool is_segment(const tapo_rotation *r, const char *name)
{
    gsize stem = strlen(r->stem);
    return strncmp(name, r->stem, stem) == 0 && name[stem] == '-' && strlen(name) > stem + 17 &&
           g_ascii_isdigit(name[stem + 1]) && name[stem + 9] == 'T' && name[stem + 16] == 'Z';
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
    GDateTime *now = g_date_time_new_now_utc();
    char *when = g_date_time_format(now, "%Y%m%dT%H%M%SZ");
    g_date_time_unref(now);
    g_free(r->final);
    g_free(r->part);
    r->final = r->part = NULL;
    for (unsigned serial = 0; !r->final; serial++) {
        char *name = serial ? g_strdup_printf("%s-%s-%u%s", r->stem, when, serial, r->ext)
                            : g_strdup_printf("%s-%s%s", r->stem, when, r->ext);
        char *final = g_build_filename(r->dir, name, NULL);
        char *part = g_strconcat(final, TAPO_ROTATION_PART, NULL);
        if (g_file_test(final, G_FILE_TEST_EXISTS) || g_file_test(part, G_FILE_TEST_EXISTS)) {
            g_free(final);
            g_free(part);
        } else {
            r->final = final;
            r->part = part;
        }
        g_free(name);
    }
    g_free(when);
    r->began_us = g_get_monotonic_time();
    return r->part;
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
