/* capture.h: reading capture files frame by frame, with the frame numbers
 * and relative times tshark gives them: classic pcap files are mapped into
 * memory and read in place (pcap_file.c); every other format Wireshark
 * reads (pcapng with any mix of interfaces, snoop, compressed files, ...)
 * goes through Wireshark's own wiretap.
 *
 * The batch analyser reads its inputs with it, and the plugin reads the
 * open capture ahead of Wireshark when it needs the whole of it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CAPTURE_H
#define TAPO_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

typedef struct tapo_capture tapo_capture;

typedef struct tapo_frame {
    uint32_t number;             /* from 1, every record of the file counted, as tshark does */
    bool is_packet;              /* a packet record (others carry no TCP) */
    bool has_time;
    double time_s;               /* seconds since the epoch */
    int64_t time_sec;            /* the same, split, for exact differences */
    int32_t time_nsec;
    int encap;                   /* WTAP_ENCAP_* */
    const uint8_t *data;         /* valid until the next read */
    uint32_t caplen;             /* bytes captured */
    uint32_t len;                /* bytes on the wire */
} tapo_frame;

/* Once per program that has not initialised wiretap itself (the batch
 * analyser; Wireshark has, for the plugin). */
void tapo_capture_init(void);

/* NULL and an error naming the file when it cannot be read. */
tapo_capture *tapo_capture_open(const char *path, GError **error);

/* The next frame; false at the end, or on an error (then *error names the
 * file and the frame where reading stopped). */
bool tapo_capture_next(tapo_capture *c, tapo_frame *f, GError **error);

void tapo_capture_close(tapo_capture *c);

/* Times since a capture's first frame, computed as Wireshark computes
 * frame.time_relative (exact nanoseconds, then a double), so that gaps are
 * the same everywhere. */
typedef struct tapo_rel_clock {
    bool started;
    int64_t origin_sec;               /* the first frame with a time */
    int32_t origin_nsec;
    double last_s;                    /* the latest relative time given, seconds */
} tapo_rel_clock;

/* The frame's time since the first frame with a time (frames without a
 * time get the previous one's). */
double tapo_rel_time(tapo_rel_clock *k, const tapo_frame *f);

#endif /* TAPO_CAPTURE_H */
