/* capture.c: see capture.h.
 *
 * pcap and pcapng files are read with libpcap, which costs a few dozen
 * instructions a packet where wiretap spends several hundred creating and
 * freeing a block per record; anything libpcap does not open (snoop,
 * compressed files, other formats) goes to wiretap.  Both count frames as
 * tshark does.  This is also the only place that knows Wiretap's API moved
 * between Wireshark versions: wtap_read() lost its Buffer in 4.6, where the
 * bytes live in the record.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "capture.h"

#include <pcap/pcap.h>

#include <wireshark.h>
#include <ws_version.h>
#include <wiretap/pcap-encap.h>
#include <wiretap/wtap.h>
#include <wsutil/buffer.h>
#include <wsutil/wslog.h>

#define TAPO_WS_AT_LEAST(major, minor) \
    (WIRESHARK_VERSION_MAJOR > (major) || \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))
#define BUFFER_START 65536   /* bytes: a frame's usual largest size */

struct tapo_capture {
    char *path;
    pcap_t *pcap;                     /* pcap and pcapng: libpcap; else NULL */
    int pcap_encap;                   /* its link type as WTAP_ENCAP_* */
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

static tapo_capture *open_with_libpcap(const char *path)
{
    char errbuf[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!p)
        return NULL;
    tapo_capture *c = g_new0(tapo_capture, 1);
    c->path = g_strdup(path);
    c->pcap = p;
    c->pcap_encap = wtap_pcap_encap_to_wtap_encap(pcap_datalink(p));
    return c;
}

static bool next_with_libpcap(tapo_capture *c, tapo_frame *f, GError **error)
{
    struct pcap_pkthdr *h;
    const u_char *data;
    int r = pcap_next_ex(c->pcap, &h, &data);
    if (r != 1) {
        if (r == PCAP_ERROR)
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: after frame %u: %s", c->path,
                        c->frames, pcap_geterr(c->pcap));
        return false;
    }
    f->number = ++c->frames;
    f->is_packet = true;
    f->has_time = true;
    f->time_sec = (int64_t)h->ts.tv_sec;
    f->time_nsec = (int32_t)h->ts.tv_usec;   /* nanoseconds: opened with nanosecond precision */
    f->time_s = (double)h->ts.tv_sec + h->ts.tv_usec / 1e9;
    f->encap = c->pcap_encap;
    f->data = data;
    f->caplen = h->caplen;
    f->len = h->len;
    return true;
}

tapo_capture *tapo_capture_open(const char *path, GError **error)
{
    tapo_capture *fast = open_with_libpcap(path);
    if (fast)
        return fast;
    int err = 0;
    char *err_info = NULL;
    wtap *wth = wtap_open_offline(path, WTAP_TYPE_AUTO, &err, &err_info, false);
    if (!wth) {
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
    return c;
}

bool tapo_capture_next(tapo_capture *c, tapo_frame *f, GError **error)
{
    if (c->pcap)
        return next_with_libpcap(c, f, error);
    int err = 0;
    char *err_info = NULL;
    int64_t offset;
    wtap_rec_reset(&c->rec);
#if TAPO_WS_AT_LEAST(4, 6)
    bool ok = wtap_read(c->wth, &c->rec, &err, &err_info, &offset);
    const uint8_t *bytes = ws_buffer_start_ptr(&c->rec.data);
#else
    bool ok = wtap_read(c->wth, &c->rec, &c->buf, &err, &err_info, &offset);
    const uint8_t *bytes = ws_buffer_start_ptr(&c->buf);
#endif
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
    if (c->pcap) {
        pcap_close(c->pcap);
        g_free(c->path);
        g_free(c);
        return;
    }
    wtap_close(c->wth);
    wtap_rec_cleanup(&c->rec);
#if !TAPO_WS_AT_LEAST(4, 6)
    ws_buffer_free(&c->buf);
#endif
    g_free(c->path);
    g_free(c);
}
