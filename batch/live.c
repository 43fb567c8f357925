/* live.c: see live.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "live.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include <wireshark.h>
#include <wiretap/pcap-encap.h>

struct tapo_live {
    pcap_t *pcap;
    int fd;                           /* to wait on: the capture is read without blocking */
    char *iface;
    int encap;                        /* WTAP_ENCAP_* of the interface's link type */
    uint32_t frames;                  /* read so far, count */
    uint32_t last_drop, last_ifdrop;  /* libpcap's counters when last read (32 bits, wrapping) */
    uint64_t drops, ifdrops;          /* widened: since the capture began, count */
    volatile sig_atomic_t stopped;
};

static GError *live_error(const char *iface, const char *what)
{
    return g_error_new(G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", iface, what);
}

/* What the user can do about an activation failure. */
static GError *activation_error(const char *iface, int status, pcap_t *p)
{
    const char *detail = pcap_geterr(p);
    switch (status) {
    case PCAP_ERROR_PERM_DENIED:
        return live_error(iface, "no permission to capture: run tapo as root, or give it the capture "
                                 "capability (setcap cap_net_raw+eip $(command -v tapo))");
    case PCAP_ERROR_NO_SUCH_DEVICE:
        return live_error(iface, "no such interface (ip link lists them)");
    case PCAP_ERROR_IFACE_NOT_UP:
        return live_error(iface, "the interface is down");
    default:
        return live_error(iface, detail && *detail ? detail : pcap_statustostr(status));
    }
}

tapo_live *tapo_live_open(const char *iface, const char *filter, uint64_t buffer_bytes, GError **error)
{
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_create(iface, errbuf);
    if (!p) {
        g_propagate_error(error, live_error(iface, errbuf));
        return NULL;
    }
    pcap_set_snaplen(p, TAPO_LIVE_SNAPLEN);
    pcap_set_timeout(p, TAPO_LIVE_TIMEOUT_MS);
    pcap_set_immediate_mode(p, 1);
    if (buffer_bytes)
        pcap_set_buffer_size(p, (int)MIN(buffer_bytes, (uint64_t)G_MAXINT));
    int status = pcap_activate(p);
    if (status < 0) {
        g_propagate_error(error, activation_error(iface, status, p));
        pcap_close(p);
        return NULL;
    }
    if (filter && *filter) {
        struct bpf_program prog;
        if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0 || pcap_setfilter(p, &prog) != 0) {
            char *what = g_strdup_printf("the filter \"%s\": %s", filter, pcap_geterr(p));
            g_propagate_error(error, live_error(iface, what));
            g_free(what);
            pcap_close(p);
            return NULL;
        }
        pcap_freecode(&prog);
    }
    if (pcap_setnonblock(p, 1, errbuf) != 0) {
        g_propagate_error(error, live_error(iface, errbuf));
        pcap_close(p);
        return NULL;
    }
    tapo_live *l = g_new0(tapo_live, 1);
    l->pcap = p;
    l->fd = pcap_get_selectable_fd(p);
    l->iface = g_strdup(iface);
    l->encap = wtap_pcap_encap_to_wtap_encap(pcap_datalink(p));
    return l;
}

tapo_live_result tapo_live_next(tapo_live *l, tapo_frame *f, GError **error)
{
    struct pcap_pkthdr *h;
    const u_char *data;
    int r = 0;
    /* Immediate mode hands packets over at once, but a read may block for
     * ever on a quiet link: wait on the descriptor with a timeout instead. */
    for (int waited = 0; !l->stopped; waited++) {
        r = pcap_next_ex(l->pcap, &h, &data);
        if (r != 0 || waited)
            break;
        struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
        int ready = l->fd >= 0 ? poll(&pfd, 1, TAPO_LIVE_TIMEOUT_MS) : 0;
        if (ready == 0 || (ready < 0 && errno == EINTR))
            return l->stopped ? TAPO_LIVE_STOPPED : TAPO_LIVE_QUIET;
    }
    if (l->stopped || r == PCAP_ERROR_BREAK)
        return TAPO_LIVE_STOPPED;
    if (r == 0)
        return TAPO_LIVE_QUIET;
    if (r < 0) {
        g_propagate_error(error, live_error(l->iface, pcap_geterr(l->pcap)));
        return TAPO_LIVE_STOPPED;
    }
    memset(f, 0, sizeof *f);
    f->number = ++l->frames;
    f->is_packet = true;
    f->has_time = true;
    f->time_sec = h->ts.tv_sec;
    f->time_nsec = (int32_t)h->ts.tv_usec * 1000;
    f->time_s = (double)h->ts.tv_sec + h->ts.tv_usec / 1e6;
    f->encap = l->encap;
    f->data = data;
    f->caplen = h->caplen;
    f->len = h->len;
    return TAPO_LIVE_FRAME;
}

void tapo_live_stop(tapo_live *l)
{
    l->stopped = 1;
    pcap_breakloop(l->pcap);
}

void tapo_live_drops(tapo_live *l, uint64_t *kernel, uint64_t *interface)
{
    struct pcap_stat st;
    if (pcap_stats(l->pcap, &st) == 0) {
        l->drops += (uint32_t)(st.ps_drop - l->last_drop);
        l->ifdrops += (uint32_t)(st.ps_ifdrop - l->last_ifdrop);
        l->last_drop = st.ps_drop;
        l->last_ifdrop = st.ps_ifdrop;
    }
    *kernel = l->drops;
    *interface = l->ifdrops;
}

void tapo_live_close(tapo_live *l)
{
    if (!l)
        return;
    pcap_close(l->pcap);
    g_free(l->iface);
    g_free(l);
}
