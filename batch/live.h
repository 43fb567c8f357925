/* live.h: frames from a live interface through libpcap (tapo -i), as the
 * original TAPO reads them.
 *
 * Only the headers matter to TAPO: frames are captured up to
 * TAPO_LIVE_SNAPLEN bytes, in immediate mode (each packet handed over at
 * once), with a short timeout so that the command keeps its clock and its
 * streamed rows going while the link is quiet.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_LIVE_H
#define TAPO_LIVE_H

#include <glib.h>

#include "capture/capture.h"

#define TAPO_LIVE_SNAPLEN 256          /* bytes kept of each frame: every TCP/IP header fits */
#define TAPO_LIVE_TIMEOUT_MS 200       /* longest wait for a packet before the command looks up */

typedef struct tapo_live tapo_live;

/* Opens iface with an optional BPF filter and a kernel buffer of
 * buffer_bytes (0: libpcap's default, TAPO_LIVE_DEFAULT_BUFFER); NULL and
 * an error saying what to do (the capture privilege, a wrong interface
 * name, a filter that does not compile). */
tapo_live *tapo_live_open(const char *iface, const char *filter, uint64_t buffer_bytes, GError **error);

#define TAPO_LIVE_DEFAULT_BUFFER (2u << 20)  /* libpcap's default kernel buffer on Linux, bytes */

typedef enum {
    TAPO_LIVE_FRAME,                  /* *f holds a frame, valid until the next call */
    TAPO_LIVE_QUIET,                  /* none within the timeout */
    TAPO_LIVE_STOPPED                 /* tapo_live_stop was called, or an error (then *error says it) */
} tapo_live_result;

tapo_live_result tapo_live_next(tapo_live *l, tapo_frame *f, GError **error);

/* Makes the next tapo_live_next return TAPO_LIVE_STOPPED; safe in a signal handler. */
void tapo_live_stop(tapo_live *l);

/* Since the capture began: packets the kernel dropped (its buffer was
 * full; libpcap's ps_drop) and those the interface dropped (ps_ifdrop),
 * counts.  libpcap's counters are 32 bits wide: they are widened here, so
 * that a long run's totals never wrap. */
void tapo_live_drops(tapo_live *l, uint64_t *kernel, uint64_t *interface);

void tapo_live_close(tapo_live *l);

#endif /* TAPO_LIVE_H */
