/* pcap_file.c: see pcap_file.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "capture/pcap_file.h"

#include <string.h>
#include <sys/mman.h>

#include <wireshark.h>
#include <wiretap/wtap.h>

#define PCAP_MAGIC_US 0xa1b2c3d4u     /* microsecond timestamps */
#define PCAP_MAGIC_NS 0xa1b23c4du     /* nanosecond timestamps */
#define PCAP_HEADER_BYTES 24
#define RECORD_HEADER_BYTES 16
/* What was read is given back to the system in steps of this many bytes:
 * the pages of a file read once would otherwise stay in the process's
 * resident memory, growing with the capture. */
#define RELEASE_STEP_BYTES (16u << 20)
/* wiretap refuses records larger than this for the link types read here. */
#define RECORD_MAX_BYTES 262144
/* pcap link types whose bytes wiretap hands on unchanged (no pseudo-header
 * stripped), with their wiretap encapsulations. */
static const struct {
    uint32_t linktype;
    int encap;
} plain_links[] = {
    { 0, WTAP_ENCAP_NULL },
    { 1, WTAP_ENCAP_ETHERNET },
    { 9, WTAP_ENCAP_PPP },
    { 101, WTAP_ENCAP_RAW_IP },
    { 104, WTAP_ENCAP_CHDLC },
    { 107, WTAP_ENCAP_FRELAY },
    { 108, WTAP_ENCAP_LOOP },
    { 113, WTAP_ENCAP_SLL },
    { 228, WTAP_ENCAP_RAW_IP4 },
    { 229, WTAP_ENCAP_RAW_IP6 },
    { 276, WTAP_ENCAP_SLL2 },
};

static uint32_t read32(const uint8_t *p, bool swapped)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swapped ? GUINT32_SWAP_LE_BE(v) : v;
}

static bool plain_link(uint32_t linktype, int *encap)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(plain_links); i++)
        if (plain_links[i].linktype == linktype) {
            *encap = plain_links[i].encap;
            return true;
        }
    return false;
}

bool tapo_pcap_file_open(tapo_pcap_file *pf, const char *path)
{
    memset(pf, 0, sizeof *pf);
    GMappedFile *map = g_mapped_file_new(path, FALSE, NULL);
    if (!map)
        return false;
    const uint8_t *data = (const uint8_t *)g_mapped_file_get_contents(map);
    size_t size = g_mapped_file_get_length(map);
    uint32_t magic = 0;
    if (size >= PCAP_HEADER_BYTES)
        memcpy(&magic, data, sizeof magic);
    bool swapped = magic == GUINT32_SWAP_LE_BE(PCAP_MAGIC_US) || magic == GUINT32_SWAP_LE_BE(PCAP_MAGIC_NS);
    if (swapped)
        magic = GUINT32_SWAP_LE_BE(magic);
    int encap;
    if ((magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_NS) || !plain_link(read32(data + 20, swapped), &encap)) {
        g_mapped_file_unref(map);
        return false;
    }
    pf->map = map;
    pf->data = data;
    pf->size = size;
    pf->pos = PCAP_HEADER_BYTES;
    pf->swapped = swapped;
    pf->nanoseconds = magic == PCAP_MAGIC_NS;
    pf->snaplen = read32(data + 16, swapped);
    pf->encap = encap;
    return true;
}

bool tapo_pcap_file_next(tapo_pcap_file *pf, const char *path, tapo_frame *f, GError **error)
{
    if (pf->pos == pf->size)
        return false;
    const uint8_t *h = pf->data + pf->pos;
    uint32_t caplen = pf->size - pf->pos >= RECORD_HEADER_BYTES ? read32(h + 8, pf->swapped) : 0;
    if (pf->size - pf->pos < RECORD_HEADER_BYTES || caplen > RECORD_MAX_BYTES ||
        pf->size - pf->pos - RECORD_HEADER_BYTES < caplen) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                    "%s: after frame %u: %s", path, pf->frames,
                    caplen > RECORD_MAX_BYTES ? "a record is larger than any packet"
                                              : "the file appears to have been cut short in the middle of a packet");
        pf->pos = pf->size;
        return false;
    }
    uint32_t fraction = read32(h + 4, pf->swapped);
    f->number = ++pf->frames;
    f->is_packet = true;
    f->has_time = true;
    f->time_sec = read32(h, pf->swapped);
    f->time_nsec = (int32_t)(pf->nanoseconds ? fraction : fraction * 1000u);
    f->time_s = (double)f->time_sec + f->time_nsec / 1e9;
    f->encap = pf->encap;
    f->data = h + RECORD_HEADER_BYTES;
    f->caplen = caplen;
    f->len = read32(h + 12, pf->swapped);
    pf->pos += RECORD_HEADER_BYTES + caplen;
#ifdef MADV_DONTNEED
    if (pf->pos - pf->released >= 2 * RELEASE_STEP_BYTES) {
        /* The data is read-only and mapped privately: a later read of these
         * pages (none comes) would fault them in again from the file. */
        madvise((void *)(pf->data + pf->released), RELEASE_STEP_BYTES, MADV_DONTNEED);
        pf->released += RELEASE_STEP_BYTES;
    }
#endif
    return true;
}

void tapo_pcap_file_close(tapo_pcap_file *pf)
{
    if (pf->map)
        g_mapped_file_unref(pf->map);
    memset(pf, 0, sizeof *pf);
}
