/* packet-tapo.c: the TAPO post-dissector: registration, preferences, when
 * the analysis runs, the per-connection table and the two passes.
 *
 * TAPO reads each frame's TCP segment from its bytes (tapo_input.h) and
 * asks Wireshark for no field, so nothing is built for it unless something
 * needs TAPO: a display filter, column, coloring rule or -e naming a tapo
 * field (Wireshark then marks the protocol referenced), a tap on TAPO's
 * (the statistics tree, the Lua companion's listener), the preference
 * tapo.analyse, or a tshark command line naming tapo (the first pass of
 * tshark -2 has no tree to tell).  Installed but unused, TAPO returns at
 * once on every frame.
 *
 * The analysis takes the frames in order, from frame 1: the first pass
 * over the file that needs TAPO analyses every frame as it goes (tshark's
 * single or first pass, the GUI's loading, or the refilter or retap the
 * GUI runs when a TAPO filter or statistic is asked for later), and stores
 * a stall record with each stall-ending frame.  A frame dissected out of
 * order before that (the GUI's packet list) is not analysed yet.
 *
 * Compute once, render many: the verdict is rendered from the record.  A
 * frame rendered in the same call that analysed it gets the verdict known
 * at that packet (tapo.stall.final false); rendered later, the whole
 * capture has been read and hindsight is used (final true).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "packet-tapo.h"

#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/tap.h>

#include "connection_table.h"
#include "sender_choice.h"
#include "tapo_input.h"
#include "tapo_render.h"
#include "verdict.h"

/* Keys of our per-frame data. */
#define FRAME_KEY_STALL 0
#define FRAME_KEY_FLOW_START 1
#define FRAME_KEY_NOTE 2

static int proto_tapo = -1;
static int tapo_tap = -1;
static dissector_handle_t tapo_handle;
static bool command_names_tapo;   /* the tshark command line names tapo */

static tapo_config cfg;
static const char *pref_tau = "2";
static unsigned pref_small_window = 4;         /* segments */
static unsigned pref_rto_min_ms = 200;         /* milliseconds */
static unsigned pref_rto_initial_ms = 1000;    /* milliseconds */
static unsigned pref_min_stall_ms = 10;        /* milliseconds */
static int pref_sender = TAPO_SENDER_AUTO;
static int pref_vantage = TAPO_VANTAGE_MODE_AUTO;
static range_t *pref_server_ports;
static tapo_bool_pref pref_analyse_always;

/* The current file's connections (connection_table.h): file scope, so
 * that every frame's stall record stays as long as the file is open. */
static tapo_conn_table table;
static bool table_open;             /* between the init and cleanup routines */
static uint32_t analysed_frames;    /* frames 1..analysed_frames are analysed */
static double clock_s;              /* the latest capture time analysed (never goes back), seconds */

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

static void *file_scope_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return wmem_alloc0(wmem_file_scope(), size);
}

static void tapo_init(void)
{
    /* Connections that end stay in the file scope: their frames render
     * from them.  No idle timeout: a file ends. */
    tapo_table_hooks hooks = { .alloc = file_scope_alloc };
    tapo_table_init(&table, &cfg, TAPO_CLOSED_GRACE_S, 0.0, true, hooks);
    table_open = true;
    analysed_frames = 0;
    clock_s = 0.0;
}

static void tapo_cleanup(void)
{
    if (table_open)
        tapo_table_finish(&table);   /* the file scope frees the rest */
    table_open = false;
}

/* What the packet changed that deserves a note on the frame. */
static tapo_frame_note note_of(const tapo_conv_events *before, const tapo_conv_events *now)
{
    /* The time-order note once per connection: a file out of order says it
     * on every packet otherwise. */
    return now->restarts != before->restarts ? TAPO_NOTE_RESTART
         : now->strays != before->strays ? TAPO_NOTE_STRAY
         : now->time_jumps != before->time_jumps ? TAPO_NOTE_TIME_JUMP
         : now->time_backwards && !before->time_backwards ? TAPO_NOTE_TIME_BACKWARDS
         : TAPO_NOTE_NONE;
}

/* Analyses the next frame in order: updates its connection and stores
 * what the frame will render. */
static void analyse(tvbuff_t *tvb, packet_info *pinfo)
{
    tapo_segment_fields seg;
    tapo_decode_result decoded = tapo_input_decode(tvb, pinfo, &seg);
    if (decoded == TAPO_DECODE_QUOTED) {
        tapo_table_quoted(&table, &seg);
        return;
    }
    if (decoded != TAPO_DECODE_TCP)
        return;
    tapo_packet_place place = {
        .frame = pinfo->num, .rel_s = nstime_to_sec(&pinfo->rel_ts), .epoch_s = nstime_to_sec(&pinfo->abs_ts),
    };
    if (place.rel_s > clock_s)
        clock_s = place.rel_s;
    place.clock_s = clock_s;
    tapo_table_tick(&table, clock_s);
    tapo_table_result r;
    tapo_table_segment(&table, &place, &seg, &r);
    if (r.started)
        p_add_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_FLOW_START,
                         GUINT_TO_POINTER(r.conn->number + 1));
    tapo_frame_note note = note_of(&r.before, &r.conn->conv->events);
    if (note != TAPO_NOTE_NONE)
        p_add_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_NOTE, GUINT_TO_POINTER(note));
    if (r.stall)
        p_add_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_STALL, r.stall);
}

/* Whether anything asks for TAPO now (see the top of this file). */
static bool analysis_needed(proto_tree *tree)
{
    return TAPO_BOOL_PREF_VALUE(&pref_analyse_always) || command_names_tapo || have_tap_listener(tapo_tap) ||
           (tree && proto_field_is_referenced(tree, proto_tapo));
}

static void queue_tap(packet_info *pinfo, tapo_tap_kind kind, uint32_t stream,
                      const tapo_conn_stall *fs, const tapo_verdict *verdict)
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

static void render(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, bool final)
{
    void *start = p_get_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_FLOW_START);
    if (start)
        queue_tap(pinfo, TAPO_TAP_FLOW_START, GPOINTER_TO_UINT(start) - 1, NULL, NULL);
    void *note = p_get_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_NOTE);
    if (note)
        tapo_render_frame_note(tvb, pinfo, tree, proto_tapo, (tapo_frame_note)GPOINTER_TO_UINT(note));
    tapo_conn_stall *fs = p_get_proto_data(wmem_file_scope(), pinfo, proto_tapo, FRAME_KEY_STALL);
    if (!fs)
        return;
    tapo_verdict verdict;
    const tapo_conv_summary *sum = tapo_table_summary(fs->conn);
    if (!tapo_conv_verdict(sum, &fs->rec, &cfg, final, &verdict))
        return;   /* a stall only for the endpoint not analysed in this pass */
    tapo_render_notes notes = {
        .sender_reversed = tapo_conv_sender_looks_reversed(sum, verdict.sender, &cfg),
        .vantage = fs->conn->vantage_note_frame == fs->rec.frame &&
                   verdict.view->snap.vantage != TAPO_VANTAGE_SENDER,
    };
    tapo_render_stall(tvb, pinfo, tree, proto_tapo, &verdict, sum, &cfg, &notes);
    queue_tap(pinfo, TAPO_TAP_STALL, fs->conn->number, fs, &verdict);
}

static int dissect_tapo(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    (void)data;
    uint32_t frame = pinfo->num;
    bool analysed_now = false;
    if (frame == analysed_frames + 1 && analysis_needed(tree)) {
        analyse(tvb, pinfo);
        analysed_frames = frame;
        analysed_now = true;
    }
    if (frame > analysed_frames) {
        if (tree && proto_field_is_referenced(tree, proto_tapo))
            tapo_render_not_analysed(tvb, tree, proto_tapo);
        return 0;
    }
    render(tvb, pinfo, tree, !analysed_now);
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
    prefs_register_bool_preference(m, "analyse", "Analyse every capture",
        "Run the stall analysis on every capture read; otherwise (the default) only when "
        "something asks for TAPO: a tapo filter, column, coloring rule or field, the TAPO "
        "statistics, the Lua companion", TAPO_BOOL_PREF_PTR(&pref_analyse_always));
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
    command_names_tapo = tapo_input_command_names_tapo();
}

void proto_reg_handoff_tapo(void)
{
}
