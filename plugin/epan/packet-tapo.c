/* packet-tapo.c: the TAPO post-dissector: registration, preferences, the
 * per-stream table and the two passes.
 *
 * Compute once, render many (SDK notes section 3): on the first pass
 * (frame not visited) each frame updates its conversation and a stall
 * record is stored with the frame; later passes only render it.  The one
 * place where hindsight enters is the verdict: on a visited frame the
 * whole capture has been seen, so tapo_conv_verdict() uses the revised
 * facts and tapo.stall.final is true.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "packet-tapo.h"

#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/tap.h>

#include "conversation.h"
#include "tapo_input.h"
#include "tapo_render.h"

/* Keys of our per-frame data. */
#define FRAME_KEY_STALL 0
#define FRAME_KEY_FLOW_START 1
#define FRAME_KEY_NOTE 2

static int proto_tapo = -1;
static int tapo_tap = -1;
static dissector_handle_t tapo_handle;
static bool inputs_ok;

static tapo_config cfg;
static const char *pref_tau = "2";
static unsigned pref_small_window = 4;         /* segments */
static unsigned pref_rto_min_ms = 200;         /* milliseconds */
static unsigned pref_rto_initial_ms = 1000;    /* milliseconds */
static unsigned pref_min_stall_ms = 10;        /* milliseconds */
static int pref_sender = TAPO_SENDER_AUTO;
static int pref_vantage = TAPO_VANTAGE_MODE_AUTO;
static range_t *pref_server_ports;

/* One TCP connection (tcp.stream) and how to tell its endpoints apart.
 * Its state lives while the connection is open; once it is over only the
 * summary stays (the memory a long capture holds depends on the
 * connections open at once, not on how many there were). */
typedef struct tapo_flow {
    tapo_conv *conv;            /* NULL once the connection is over */
    tapo_conv_summary summary;  /* kept when conv is dropped */
    address first_src;          /* source address of endpoint 0 */
    uint16_t first_port;        /* source port of endpoint 0 */
    uint32_t vantage_note_frame;/* the stall that carries the note about the vantage; 0 none yet */
} tapo_flow;

/* What a stall-ending frame keeps between passes. */
typedef struct tapo_frame_stall {
    tapo_stall_record rec;
    tapo_flow *flow;
    uint32_t stream;
} tapo_frame_stall;

/* tcp.stream -> tapo_flow; file scope, rebuilt by the init routine. */
static wmem_map_t *flows;

static bool is_server_port(uint16_t port, void *data)
{
    (void)data;
    return pref_server_ports && value_is_in_range(pref_server_ports, port);
}

static void apply_prefs(void)
{
    tapo_config_init_defaults(&cfg);
    char *end = NULL;
    double tau = g_ascii_strtod(pref_tau ? pref_tau : "", &end);
    if (end && *end == '\0' && tau > 0.0 && tau <= 100.0)
        cfg.tau = tau;
    else
        ws_warning("TAPO: tau \"%s\" is not a number in (0, 100]; using 2", pref_tau);
    cfg.small_window_segments = pref_small_window;
    cfg.rto_min_s = pref_rto_min_ms / 1000.0;
    cfg.rto_initial_s = pref_rto_initial_ms / 1000.0;
    cfg.min_stall_s = pref_min_stall_ms / 1000.0;
    cfg.sender_mode = (tapo_sender_mode)pref_sender;
    cfg.vantage_mode = (tapo_vantage_mode)pref_vantage;
    cfg.is_server_port = is_server_port;
}

static void tapo_init(void)
{
    flows = wmem_map_new(wmem_file_scope(), g_direct_hash, g_direct_equal);
}

static void drop_state(tapo_flow *flow)
{
    tapo_conv_destroy(flow->conv);
    g_free(flow->conv);
    flow->conv = NULL;
}

static void destroy_flow(gpointer key, gpointer value, gpointer user_data)
{
    (void)key;
    (void)user_data;
    tapo_flow *flow = value;
    if (flow->conv)
        drop_state(flow);
}

/* The summary verdicts are computed from: the live state's, or the one kept. */
static const tapo_conv_summary *flow_summary(tapo_flow *flow)
{
    if (flow->conv)
        tapo_conv_summarize(flow->conv, &flow->summary);
    return &flow->summary;
}

/* A packet of a connection whose state was dropped starts a fresh state
 * that goes on from the summary. */
static tapo_conv *live_state(tapo_flow *flow)
{
    if (!flow->conv) {
        flow->conv = g_new0(tapo_conv, 1);
        tapo_conv_init(flow->conv, &cfg);
        tapo_conv_resume(flow->conv, &flow->summary);
    }
    return flow->conv;
}

static void tapo_cleanup(void)
{
    if (flows)
        wmem_map_foreach(flows, destroy_flow, NULL);
    flows = NULL;   /* the file scope frees the rest */
}

static tapo_flow *flow_for(uint32_t stream, packet_info *pinfo, const tapo_packet *pkt,
                           bool *created)
{
    tapo_flow *flow = wmem_map_lookup(flows, GUINT_TO_POINTER(stream));
    *created = flow == NULL;
    if (flow)
        return flow;
    flow = wmem_new0(wmem_file_scope(), tapo_flow);
    flow->conv = g_new0(tapo_conv, 1);
    tapo_conv_init(flow->conv, &cfg);
    copy_address_wmem(wmem_file_scope(), &flow->first_src, &pinfo->src);
    flow->first_port = pkt->src_port;
    wmem_map_insert(flows, GUINT_TO_POINTER(stream), flow);
    return flow;
}

/* Endpoint 0 sent the first packet seen; ports tell the sides apart, and
 * addresses when both ports are equal. */
static int endpoint_of(const tapo_flow *flow, packet_info *pinfo, const tapo_packet *pkt)
{
    if (pkt->src_port != pkt->dst_port)
        return pkt->src_port == flow->first_port ? 0 : 1;
    return addresses_equal(&pinfo->src, &flow->first_src) ? 0 : 1;
}

/* Where a stall record goes: a frame-scoped container stored with the
 * frame, allocated only when the frame ends a stall. */
typedef struct alloc_ctx {
    packet_info *pinfo;
    tapo_flow *flow;
    uint32_t stream;
    tapo_frame_stall *fs;
} alloc_ctx;

static tapo_stall_record *alloc_frame_stall(void *data)
{
    alloc_ctx *ctx = data;
    tapo_frame_stall *fs = wmem_new0(wmem_file_scope(), tapo_frame_stall);
    fs->flow = ctx->flow;
    fs->stream = ctx->stream;
    p_add_proto_data(wmem_file_scope(), ctx->pinfo, proto_tapo, FRAME_KEY_STALL, fs);
    ctx->fs = fs;
    return &fs->rec;
}

/* The first stall seen away from the sender carries the note on what the
 * vantage means for the verdicts (once per conversation). */
static void choose_vantage_note(tapo_flow *flow, const tapo_frame_stall *fs)
{
    const tapo_stall_view *view = &fs->rec.view[fs->rec.sender_at_packet];
    if (flow->vantage_note_frame == 0 && view->stalled && view->snap.vantage != TAPO_VANTAGE_SENDER)
        flow->vantage_note_frame = fs->rec.frame;
}

/* First pass: updates the conversation; returns the stall record stored
 * with the frame, or NULL. */
static tapo_frame_stall *analyse(proto_tree *tree, packet_info *pinfo)
{
    uint32_t stream;
    tapo_packet pkt;
    if (!tapo_input_read(tree, pinfo, &stream, &pkt))
        return NULL;
    bool created;
    tapo_flow *flow = flow_for(stream, pinfo, &pkt, &created);
    if (created)
        p_add_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_FLOW_START,
                         GUINT_TO_POINTER(stream + 1));
    pkt.from = endpoint_of(flow, pinfo, &pkt);
    tapo_conv *conv = live_state(flow);
    tapo_conv_events before = conv->events, *now = &conv->events;
    alloc_ctx ctx = { pinfo, flow, stream, NULL };
    tapo_conv_process(conv, &pkt, &cfg, alloc_frame_stall, &ctx);
    /* The time-order note once per connection: a file out of order says it
     * on every packet otherwise. */
    tapo_frame_note note = now->restarts != before.restarts ? TAPO_NOTE_RESTART
                         : now->strays != before.strays ? TAPO_NOTE_STRAY
                         : now->time_jumps != before.time_jumps ? TAPO_NOTE_TIME_JUMP
                         : now->time_backwards && !before.time_backwards ? TAPO_NOTE_TIME_BACKWARDS
                         : TAPO_NOTE_NONE;
    if (note != TAPO_NOTE_NONE)
        p_add_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_NOTE, GUINT_TO_POINTER(note));
    if (ctx.fs)
        choose_vantage_note(flow, ctx.fs);
    if (tapo_conv_is_over(conv)) {
        tapo_conv_summarize(conv, &flow->summary);
        drop_state(flow);
    }
    return ctx.fs;
}

static void queue_tap(packet_info *pinfo, tapo_tap_kind kind, uint32_t stream,
                      const tapo_frame_stall *fs, const tapo_verdict *verdict)
{
    tapo_tap_info *info = wmem_new0(pinfo->pool, tapo_tap_info);
    info->kind = kind;
    info->stream = stream;
    if (fs) {
        info->rec = &fs->rec;
        info->verdict = *verdict;
    }
    tap_queue_packet(tapo_tap, pinfo, info);
}

static int dissect_tapo(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    (void)data;
    if (!inputs_ok)
        return 0;
    bool visited = pinfo->fd->visited;
    tapo_frame_stall *fs = visited ? p_get_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_STALL)
                                   : analyse(tree, pinfo);
    void *start = p_get_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_FLOW_START);
    if (start)
        queue_tap(pinfo, TAPO_TAP_FLOW_START, GPOINTER_TO_UINT(start) - 1, NULL, NULL);
    void *note = p_get_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_NOTE);
    if (note)
        tapo_render_frame_note(tvb, pinfo, tree, proto_tapo, (tapo_frame_note)GPOINTER_TO_UINT(note));
    if (!fs)
        return 0;
    /* Hindsight: a visited frame is rendered after the whole capture. */
    tapo_verdict verdict;
    const tapo_conv_summary *sum = flow_summary(fs->flow);
    if (!tapo_conv_verdict(sum, &fs->rec, &cfg, visited, &verdict))
        return 0;   /* a stall only for the endpoint not analysed in this pass */
    tapo_render_notes notes = {
        .sender_reversed = tapo_conv_sender_looks_reversed(sum, verdict.sender, &cfg),
        .vantage = fs->flow->vantage_note_frame == fs->rec.frame &&
                   verdict.view->snap.vantage != TAPO_VANTAGE_SENDER,
    };
    tapo_render_stall(tvb, pinfo, tree, proto_tapo, &verdict, sum, &notes);
    queue_tap(pinfo, TAPO_TAP_STALL, fs->stream, fs, &verdict);
    return 0;
}

static void register_prefs(void)
{
    static const enum_val_t sender_modes[] = {
        { "auto", "Automatic (the heavier data sender)", TAPO_SENDER_AUTO },
        { "responder", "Responder (sent the SYN-ACK)", TAPO_SENDER_RESPONDER },
        { "initiator", "Initiator (sent the SYN)", TAPO_SENDER_INITIATOR },
        { "ports", "Server ports (below)", TAPO_SENDER_PORTS },
        { NULL, NULL, 0 }
    };
    static const enum_val_t vantage_modes[] = {
        { "auto", "Inferred per connection", TAPO_VANTAGE_MODE_AUTO },
        { "sender", "At the sender", TAPO_VANTAGE_MODE_SENDER },
        { "receiver", "At the receiver", TAPO_VANTAGE_MODE_RECEIVER },
        { "middle", "In the middle of the path", TAPO_VANTAGE_MODE_MIDDLE },
        { NULL, NULL, 0 }
    };
    module_t *m = prefs_register_protocol(proto_tapo, apply_prefs);
    prefs_register_string_preference(m, "tau", "Stall threshold multiplier (tau)",
        "A gap longer than min(tau x SRTT, RTO) is a stall; the paper uses 2", &pref_tau);
    prefs_register_uint_preference(m, "small_window", "Small in-flight limit (segments)",
        "Fewer segments in flight than this cannot trigger fast retransmit (paper: 4)",
        10, &pref_small_window);
    prefs_register_uint_preference(m, "rto_min_ms", "Minimum RTO (ms)",
        "Lower bound of the RTO and of its variance term; Linux uses 200 ms", 10, &pref_rto_min_ms);
    prefs_register_uint_preference(m, "rto_initial_ms", "Initial RTO (ms)",
        "RTO before the first RTT sample; RFC 6298 says 1000 ms", 10, &pref_rto_initial_ms);
    prefs_register_uint_preference(m, "min_stall_ms", "Minimum stall duration (ms)",
        "Shorter gaps are no stall: on a LAN, timestamp jitter and interrupt coalescing "
        "make sub-millisecond gaps longer than 2 SRTT; 0 follows the paper exactly",
        10, &pref_min_stall_ms);
    prefs_register_enum_preference(m, "sender", "Analysed sender",
        "Which endpoint is the paper's server; automatic: the heavier data sender, per "
        "direction when both send bulk data", &pref_sender, sender_modes, false);
    pref_server_ports = range_empty(wmem_epan_scope());
    prefs_register_range_preference(m, "server_ports", "Server ports",
        "With \"ports\": endpoints using these ports are the sender", &pref_server_ports, 65535);
    prefs_register_enum_preference(m, "vantage", "Capture vantage",
        "Where the capture was taken, relative to the analysed sender; inferred by default "
        "from the handshake and the turnarounds", &pref_vantage, vantage_modes, false);
}

void proto_register_tapo(void)
{
    proto_tapo = proto_register_protocol("TCP Stall Analysis (TAPO)", "TAPO", "tapo");
    tapo_render_register(proto_tapo);
    register_prefs();
    apply_prefs();
    tapo_handle = create_dissector_handle(dissect_tapo, proto_tapo);
    register_postdissector(tapo_handle);
    register_init_routine(tapo_init);
    register_cleanup_routine(tapo_cleanup);
    tapo_tap = register_tap(TAPO_TAP_NAME);
}

void proto_reg_handoff_tapo(void)
{
    GArray *wanted = tapo_input_resolve();
    inputs_ok = wanted != NULL;
    if (inputs_ok)
        set_postdissector_wanted_hfids(tapo_handle, wanted);
}
