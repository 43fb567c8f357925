/* pcap_file.h: classic pcap files (microsecond and nanosecond, either byte
 * order) mapped into memory and read in place: no copy and no call per
 * packet, where a stream reader copies every record through stdio.
 * Anything else is left to wiretap (capture.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_PCAP_FILE_H
#define TAPO_PCAP_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "capture/capture.h"

typedef struct tapo_pcap_file {
    GMappedFile *map;
    const uint8_t *data;              /* the whole file */
    size_t size;                      /* bytes */
    size_t pos;                       /* the next record's offset */
    size_t released;                  /* bytes from the start given back to the system (read already) */
    bool swapped;                     /* written in the other byte order */
    bool nanoseconds;                 /* timestamps' fractions are nanoseconds */
    uint32_t snaplen;                 /* bytes */
    int encap;                        /* WTAP_ENCAP_* of its link type */
    uint32_t frames;                  /* records read, count */
} tapo_pcap_file;

/* True when path is a classic pcap file this reader takes; false (and no
 * error) when it is something else or cannot be mapped (a pipe). */
bool tapo_pcap_file_open(tapo_pcap_file *pf, const char *path);

/* The next frame; false at the end or when the file was cut short (then
 * *error says where). */
bool tapo_pcap_file_next(tapo_pcap_file *pf, const char *path, tapo_frame *f, GError **error);

void tapo_pcap_file_close(tapo_pcap_file *pf);

#endif /* TAPO_PCAP_FILE_H */
