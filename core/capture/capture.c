/* capture.c: see capture.h.
 *
 * wiretap spends several hundred instructions a record creating and
 * freeing it; a mapped classic pcap file costs a few dozen (pcap_file.c).
 * This is also the only place that knows wiretap's API moved between
 * Wireshark versions: wtap_read() lost its Buffer in 4.6, where the bytes
 * live in the record.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "capture/capture.h"

#include <sys/stat.h>

#include <glib/gstdio.h>

#include <wireshark.h>
#include <ws_version.h>
#include <wiretap/wtap.h>
#include <wsutil/buffer.h>
#include <wsutil/wslog.h>

#include "capture/pcap_file.h"

#define TAPO_WS_AT_LEAST(major, minor) \
    (WIRESHARK_VERSION_MAJOR > (major) || \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))
#define BUFFER_START 65536   /* bytes: a frame's usual largest size */

/* wsutil keeps one cache of small buffers for the whole process (a
 * GPtrArray, buffer.c) that wiretap's readers take from and give back to
 * without a lock: two workers reading a pcapng file each at once
 * corrupted it (an abort about one run in twenty with -j 2).  Every call
 * into wiretap holds this lock; the mapped classic pcap reader needs none. */
static GMutex wiretap_lock;

struct tapo_capture {
    char *path;
    tapo_pcap_file pcap;              /* classic pcap, mapped; else pcap.map is NULL */
    wtap *wth;                        /* other formats: wiretap */
    wtap_rec rec;
#if !TAPO_WS_AT_LEAST(4, 6)
    Buffer buf;
#endif
    uint32_t frames;
};

void tapo_capture_init(void)
{
#if TAPO_WS_AT_LEAST(4, 6)
    ws_log_init(NULL);
#else
    ws_log_init("tapo", NULL);
#endif
    wtap_init(false);
}

tapo_capture *tapo_capture_open(const char *path, GError **error)
{
    /* Wiretap takes an empty file for an empty capture: it is no capture. */
    GStatBuf st;
    if (g_stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: the file is empty: it holds no capture", path);
        return NULL;
    }
    tapo_pcap_file pcap;
    if (tapo_pcap_file_open(&pcap, path)) {
        tapo_capture *c = g_new0(tapo_capture, 1);
        c->path = g_strdup(path);
        c->pcap = pcap;
        return c;
    }
    int err = 0;
    char *err_info = NULL;
    g_mutex_lock(&wiretap_lock);
    wtap *wth = wtap_open_offline(path, WTAP_TYPE_AUTO, &err, &err_info, false);
    if (!wth) {
        g_mutex_unlock(&wiretap_lock);
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s%s%s", path, wtap_strerror(err),
                    err_info ? ": " : "", err_info ? err_info : "");
        g_free(err_info);
        return NULL;
    }
    tapo_capture *c = g_new0(tapo_capture, 1);
    c->path = g_strdup(path);
    c->wth = wth;
#if TAPO_WS_AT_LEAST(4, 6)
    wtap_rec_init(&c->rec, BUFFER_START);
#else
    wtap_rec_init(&c->rec);
    ws_buffer_init(&c->buf, BUFFER_START);
#endif
    g_mutex_unlock(&wiretap_lock);
    return c;
}

bool tapo_capture_next(tapo_capture *c, tapo_frame *f, GError **error)
{
    if (c->pcap.map)
        return tapo_pcap_file_next(&c->pcap, c->path, f, error);
    int err = 0;
    char *err_info = NULL;
    int64_t offset;
    g_mutex_lock(&wiretap_lock);
    wtap_rec_reset(&c->rec);
#if TAPO_WS_AT_LEAST(4, 6)
    bool ok = wtap_read(c->wth, &c->rec, &err, &err_info, &offset);
    const uint8_t *bytes = ws_buffer_start_ptr(&c->rec.data);
#else
    bool ok = wtap_read(c->wth, &c->rec, &c->buf, &err, &err_info, &offset);
    const uint8_t *bytes = ws_buffer_start_ptr(&c->buf);
#endif
    g_mutex_unlock(&wiretap_lock);
    if (!ok) {
        if (err != 0)
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: after frame %u: %s%s%s", c->path,
                        c->frames, wtap_strerror(err), err_info ? ": " : "", err_info ? err_info : "");
        g_free(err_info);
        return false;
    }
    f->number = ++c->frames;
    f->is_packet = c->rec.rec_type == REC_TYPE_PACKET;
    f->has_time = (c->rec.presence_flags & WTAP_HAS_TS) != 0;
    f->time_sec = (int64_t)c->rec.ts.secs;
    f->time_nsec = c->rec.ts.nsecs;
    f->time_s = (double)c->rec.ts.secs + c->rec.ts.nsecs / 1e9;
    f->encap = f->is_packet ? c->rec.rec_header.packet_header.pkt_encap : WTAP_ENCAP_UNKNOWN;
    f->caplen = f->is_packet ? c->rec.rec_header.packet_header.caplen : 0;
    f->len = f->is_packet ? c->rec.rec_header.packet_header.len : 0;
    f->data = bytes;
    return true;
}

void tapo_capture_close(tapo_capture *c)
{
    if (!c)
        return;
    if (c->pcap.map) {
        tapo_pcap_file_close(&c->pcap);
        g_free(c->path);
        g_free(c);
        return;
    }
    g_mutex_lock(&wiretap_lock);
    wtap_close(c->wth);
    wtap_rec_cleanup(&c->rec);
#if !TAPO_WS_AT_LEAST(4, 6)
    ws_buffer_free(&c->buf);
#endif
    g_mutex_unlock(&wiretap_lock);
    g_free(c->path);
    g_free(c);
}

double tapo_rel_time(tapo_rel_clock *k, const tapo_frame *f)
{
    if (!k->started && f->has_time) {
        k->origin_sec = f->time_sec;
        k->origin_nsec = f->time_nsec;
        k->started = true;
    }
    if (!f->has_time || !k->started)
        return k->last_s;
    int64_t sec = f->time_sec - k->origin_sec;
    int64_t nsec = (int64_t)f->time_nsec - k->origin_nsec;
    if (nsec < 0) {
        sec--;
        nsec += 1000000000;
    }
    k->last_s = (double)sec + (double)nsec / 1e9;
    return k->last_s;
}
