/* config_file.c: see config_file.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config_file.h"

#include <stdbool.h>
#include <string.h>

const char *tapo_config_file_named(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            return argv[i + 1];
        if (g_str_has_prefix(argv[i], "--config="))
            return argv[i] + strlen("--config=");
    }
    return NULL;
}

static const GOptionEntry *entry_named(const GOptionEntry *entries, const char *name)
{
    for (const GOptionEntry *e = entries; e->long_name; e++)
        if (strcmp(e->long_name, name) == 0 && strcmp(name, "config") != 0 && e->long_name[0])
            return e;
    return NULL;
}

static bool add_setting(GKeyFile *kf, const char *path, const GOptionEntry *e, const char *key, GPtrArray *args,
                        GError **error)
{
    GError *failure = NULL;
    if (e->arg == G_OPTION_ARG_NONE) {
        gboolean on = g_key_file_get_boolean(kf, TAPO_CONFIG_GROUP, key, &failure);
        if (!failure && on)
            g_ptr_array_add(args, g_strdup_printf("--%s", key));
    } else if (e->arg == G_OPTION_ARG_STRING_ARRAY || e->arg == G_OPTION_ARG_FILENAME_ARRAY) {
        char **values = g_key_file_get_string_list(kf, TAPO_CONFIG_GROUP, key, NULL, &failure);
        for (char **v = values; v && *v; v++)
            g_ptr_array_add(args, g_strdup_printf("--%s=%s", key, g_strstrip(*v)));
        g_strfreev(values);
    } else {
        char *value = g_key_file_get_string(kf, TAPO_CONFIG_GROUP, key, &failure);
        if (value)
            g_ptr_array_add(args, g_strdup_printf("--%s=%s", key, g_strstrip(value)));
        g_free(value);
    }
    if (failure) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s: %s: %s", path, key,
                    failure->message);
        g_error_free(failure);
        return false;
    }
    return true;
}

char **tapo_config_file_args(const char *path, const GOptionEntry *entries, GError **error)
{
    GKeyFile *kf = g_key_file_new();
    GError *failure = NULL;
    if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &failure)) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE, "%s: %s", path, failure->message);
        g_error_free(failure);
        g_key_file_free(kf);
        return NULL;
    }
    GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
    char **groups = g_key_file_get_groups(kf, NULL);
    bool ok = true;
    for (char **g = groups; ok && *g; g++)
        if (strcmp(*g, TAPO_CONFIG_GROUP) != 0) {
            g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
                        "%s: [%s]: the settings belong in the group [%s]", path, *g, TAPO_CONFIG_GROUP);
            ok = false;
        }
    g_strfreev(groups);
    char **keys = ok ? g_key_file_get_keys(kf, TAPO_CONFIG_GROUP, NULL, NULL) : NULL;
    for (char **k = keys; ok && k && *k; k++) {
        const GOptionEntry *e = entry_named(entries, *k);
        if (!e) {
            g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                        "%s: %s is no setting of tapo (the long options of tapo --help are)", path, *k);
            ok = false;
        } else {
            ok = add_setting(kf, path, e, *k, args, error);
        }
    }
    g_strfreev(keys);
    g_key_file_free(kf);
    if (!ok) {
        g_ptr_array_unref(args);
        return NULL;
    }
    g_ptr_array_set_free_func(args, NULL);
    g_ptr_array_add(args, NULL);
    return (char **)g_ptr_array_free(args, FALSE);
}
