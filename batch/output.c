/* output.c: see output.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "output.h"

#include <errno.h>
#include <string.h>

bool tapo_output_open(tapo_output *o, const char *path, GError **error)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        o->name = g_strdup("standard output");
        return true;
    }
    o->f = fopen(path, "w");
    if (!o->f) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", path, g_strerror(errno));
        return false;
    }
    o->name = g_strdup(path);
    o->owned = true;
    return true;
}

static void remember(tapo_output *o)
{
    if (!o->error)
        o->error = errno ? errno : EIO;
}

void tapo_output_write(tapo_output *o, const char *data, size_t len)
{
    if (!o->f || o->error || len == 0)
        return;
    errno = 0;
    if (fwrite(data, 1, len, o->f) != len)
        remember(o);
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
        remember(o);
}

bool tapo_output_close(tapo_output *o, GError **error)
{
    if (!o->f)
        return true;
    tapo_output_flush(o);
    if (!o->error && ferror(o->f))
        o->error = EIO;
    if (o->owned) {
        errno = 0;
        if (fclose(o->f) != 0)
            remember(o);
    }
    bool ok = o->error == 0;
    if (!ok)
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(o->error), "%s: %s", o->name,
                    g_strerror(o->error));
    g_free(o->name);
    memset(o, 0, sizeof *o);
    return ok;
}
