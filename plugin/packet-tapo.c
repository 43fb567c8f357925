/* packet-tapo.c: the TAPO post-dissector: registration, when
 * the analysis runs, the per-connection table and the two passes.
 *
 * TAPO reads each frame's TCP segment from its bytes (tapo_input.h) and
 * asks Wireshark for no field, so nothing is built for it unless something
 * needs TAPO: a display filter, column, coloring rule or -e naming a tapo
 * field (Wireshark then marks the protocol referenced), a tap on TAPO's
 * (the statistics tree, the Lua companion's listener), a listener on the
 * expert tap (tshark -z expert, the Expert Information dialog: TAPO's
 * expert entries are part of what they show), the preference
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

#include <cfile.h>
#include <epan/packet.h>
#include <epan/plugin_if.h>
#include <epan/tap.h>

#include "roles/sender_choice.h"
#include "tapo_file.h"
#include "tapo_input.h"
#include "tapo_prefs.h"
#include "tapo_render.h"
#include "verdict/verdict.h"

static int proto_tapo = -1;
static int tapo_tap = -1;
static int expert_tap = -1;       /* Wireshark's expert tap, found when a file opens */
static dissector_handle_t tapo_handle;
static tapo_command command;      /* what tshark's command line says */

static tapo_config cfg;             /* as the preferences make it (tapo_prefs.h) */

static bool read_ahead_tried;       /* for the open capture */
static bool input_ended;            /* for the open capture: everything was analysed (tapo_file_input_ended) */
static bool capture_published;      /* its path is in TAPO_CAPTURE_FILE_ENV (the GUI) */

static void tapo_init(void)
{
    tapo_file_open(&cfg);
    read_ahead_tried = false;
    input_ended = false;
    capture_published = false;
    expert_tap = find_tap_id("expert");
}

static void tapo_cleanup(void)
{
    tapo_file_close();
    if (!command.is_tshark)
        g_unsetenv(TAPO_CAPTURE_FILE_ENV);
}

/* The GUI's open capture, when it is a file TAPO can read to its end (not
 * the temporary file of a capture in progress). */
static void *gui_capture_path(capture_file *cf, void *data)
{
    (void)data;
    return cf->filename && !cf->is_tempfile ? g_strdup(cf->filename) : NULL;
}

/* The GUI's open capture file, a temporary one included (a capture in
 * progress, or not saved yet). */
static void *gui_capture_file(capture_file *cf, void *data)
{
    (void)data;
    return cf->filename ? g_strdup(cf->filename) : NULL;
}

/* Tells the Lua companion which file is open (TAPO_CAPTURE_FILE_ENV). */
static void publish_capture(void)
{
    capture_published = true;
    char *path = plugin_if_get_capture_file(gui_capture_file, NULL);
    if (path)
        g_setenv(TAPO_CAPTURE_FILE_ENV, path, TRUE);
    else
        g_unsetenv(TAPO_CAPTURE_FILE_ENV);
    g_free(path);
}

/* The capture to read ahead (tapo_file.h), allocated; NULL: analyse frame
 * by frame.  The GUI shows verdicts from the first pass over a capture,
 * and tshark -2 may ask for TAPO only after its first pass (-V, or a
 * field that names no tapo): both read it ahead.  tshark -2 that names
 * TAPO analyses it in its first pass; one-pass tshark and live captures
 * frame by frame. */
static char *capture_to_read_ahead(packet_info *pinfo)
{
    if (!command.is_tshark)
        return plugin_if_get_capture_file(gui_capture_path, NULL);
    bool late = pinfo->fd->visited || pinfo->num != 1;
    return command.two_pass && late && !command.read_filter && command.read_file
               ? g_strdup(command.read_file) : NULL;
}

/* Whether anything asks for TAPO now (see the top of this file). */
static bool analysis_needed(proto_tree *tree)
{
    return tapo_prefs_analyse_always() || command.names_tapo || have_tap_listener(tapo_tap) ||
           (expert_tap >= 0 && have_tap_listener(expert_tap)) ||
           (tree && proto_field_is_referenced(tree, proto_tapo));
}

static void queue_tap(packet_info *pinfo, tapo_tap_kind kind, uint32_t stream,
                      const tapo_conn_stall *fs, const tapo_verdict *verdict, const tapo_episode *episode)
{
    tapo_tap_info *info = wmem_new0(pinfo->pool, tapo_tap_info);
    info->kind = kind;
    info->stream = stream;
    if (fs) {
        info->rec = &fs->rec;
        info->verdict = *verdict;
        info->episode = episode;
    }
    tap_queue_packet(tapo_tap, pinfo, info);
}

/* later: the frame was analysed before this call.  The verdict uses
 * hindsight once its record is settled (a capture read to its end settles
 * every record); before, it is the one known at the packet. */
static void render(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, bool later)
{
    const tapo_frame_result *r = tapo_file_frame(pinfo->num);
    if (!r)
        return;
    if (r->starts_connection)
        queue_tap(pinfo, TAPO_TAP_FLOW_START, r->connection, NULL, NULL, NULL);
    if (r->note != TAPO_NOTE_NONE)
        tapo_render_frame_note(tvb, pinfo, tree, proto_tapo, r->note);
    const tapo_conn_stall *fs = r->stall;
    if (!fs)
        return;
    tapo_verdict verdict;
    bool final = later && tapo_record_settled(&fs->rec);
    const tapo_conv_summary *sum = tapo_table_summary(fs->conn);
    if (!tapo_conv_verdict(sum, &fs->rec, &cfg, final, &verdict))
        return;   /* a stall only for the endpoint not analysed in this pass */
    tapo_render_notes notes = {
        .sender_reversed = tapo_conv_sender_looks_reversed(sum, verdict.sender, &cfg),
        .vantage = fs->conn->vantage_note_frame == fs->rec.frame &&
                   verdict.view->snap.vantage != TAPO_VANTAGE_SENDER,
    };
    tapo_endpoint_names names;
    tapo_endpoint_names_of(&fs->conn->id.first, &names);
    /* Episodes group every stall of the capture: with hindsight only. */
    const tapo_episode *episode = final ? tapo_file_episode(pinfo->num) : NULL;
    tapo_render_stall(tvb, pinfo, tree, proto_tapo, &verdict, sum, &names, episode, &cfg, &notes);
    ws_debug("frame %u: %s stall (%s)", pinfo->num, tapo_cause_get(verdict.cause)->name,
             final ? "final" : "one pass");
    queue_tap(pinfo, TAPO_TAP_STALL, fs->conn->number, fs, &verdict, episode);
}

static int dissect_tapo(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    (void)data;
    uint32_t frame = pinfo->num;
    bool analysed_now = false;
    if (!capture_published && !command.is_tshark)
        publish_capture();
    if (frame > tapo_file_analysed() && analysis_needed(tree)) {
        if (tapo_file_analysed() == 0 && !read_ahead_tried) {
            read_ahead_tried = true;
            char *path = capture_to_read_ahead(pinfo);
            if (path)
                tapo_file_read_ahead(path);
            g_free(path);
        }
        if (frame == tapo_file_analysed() + 1) {
            tapo_file_analyse_frame(tvb, pinfo);
            analysed_now = true;
        }
    }
    if (!analysed_now && !input_ended && command.is_tshark && command.two_pass && frame <= tapo_file_analysed()) {
        input_ended = true;   /* tshark's second pass: the first read everything */
        tapo_file_input_ended();
    }
    if (frame > tapo_file_analysed()) {
        if (tree && proto_field_is_referenced(tree, proto_tapo))
            tapo_render_not_analysed(tvb, tree, proto_tapo);
        return 0;
    }
    render(tvb, pinfo, tree, !analysed_now);
    return 0;
}

void proto_register_tapo(void)
{
    proto_tapo = proto_register_protocol("TCP Stall Analysis (TAPO)", "TAPO", "tapo");
    tapo_render_register(proto_tapo);
    tapo_prefs_register(proto_tapo, &cfg);
    tapo_prefs_apply();
    tapo_handle = create_dissector_handle(dissect_tapo, proto_tapo);
    register_postdissector(tapo_handle);
    register_init_routine(tapo_init);
    register_cleanup_routine(tapo_cleanup);
    tapo_tap = register_tap(TAPO_TAP_NAME);
    tapo_input_read_command(&command);
}

void proto_reg_handoff_tapo(void)
{
}
