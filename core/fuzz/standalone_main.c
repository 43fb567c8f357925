/* standalone_main.c: replays fuzzer inputs without libFuzzer: each file
 * named on the command line, or each file of each folder named.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
    gchar *data;
    gsize size;
    GError *error = NULL;
    if (!g_file_get_contents(path, &data, &size, &error)) {
        fprintf(stderr, "%s\n", error->message);
        g_error_free(error);
        return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, size);
    g_free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int failed = 0, replayed = 0;
    for (int i = 1; i < argc; i++) {
        if (!g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            failed |= replay(argv[i]);
            replayed++;
            continue;
        }
        GDir *dir = g_dir_open(argv[i], 0, NULL);
        const char *name;
        while (dir && (name = g_dir_read_name(dir))) {
            gchar *path = g_build_filename(argv[i], name, NULL);
            if (g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
                failed |= replay(path);
                replayed++;
            }
            g_free(path);
        }
        if (dir)
            g_dir_close(dir);
    }
    printf("%d inputs replayed\n", replayed);
    return failed;
}
