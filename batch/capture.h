/* capture.h: reading capture files: pcap and pcapng with libpcap (fast),
 * every other format tshark reads (snoop, ..., gzip-compressed files too)
 * with Wireshark's own wiretap, with the same frame numbers as tshark.
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

/* Once per program, before the first open. */
void tapo_capture_init(void);

/* NULL and an error naming the file when it cannot be read. */
tapo_capture *tapo_capture_open(const char *path, GError **error);

/* The next frame; false at the end, or on an error (then *error names the
 * file and the frame where reading stopped). */
bool tapo_capture_next(tapo_capture *c, tapo_frame *f, GError **error);

void tapo_capture_close(tapo_capture *c);

#endif /* TAPO_CAPTURE_H */
