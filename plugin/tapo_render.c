/* tapo_render.c: turning a stall verdict into fields, expert info and the
 * Info column.  The field names are the contract of spec section 5.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tapo_render.h"

#include <epan/expert.h>

#include "explain/stall_fields.h"
#include "tapo_input.h"

static int hf_stall = -1;
/* By tapo_field_id: the fields of stall_fields.h. */
static int hf_fields[TAPO_F_COUNT];
static int ett_stall = -1;

/* One expert info per cause: the Expert Information dialog then counts
 * stalls per cause (SDK notes section 4). */
static expert_field ei_cause[TAPO_CAUSE_COUNT];
static expert_field ei_reversed = EI_INIT;
static expert_field ei_vantage_receiver = EI_INIT;
static expert_field ei_vantage_middle = EI_INIT;
static expert_field ei_restart = EI_INIT;
static expert_field ei_stray = EI_INIT;
static expert_field ei_time_backwards = EI_INIT;
static expert_field ei_time_jump = EI_INIT;

/* Wireshark's type and display for each kind of field. */
static void field_kind(tapo_field_type type, enum ftenum *ft, int *display)
{
    switch (type) {
    case TAPO_FIELD_STRING: *ft = FT_STRING; *display = BASE_NONE; break;
    case TAPO_FIELD_BOOL: *ft = FT_BOOLEAN; *display = BASE_NONE; break;
    case TAPO_FIELD_SECONDS: *ft = FT_RELATIVE_TIME; *display = BASE_NONE; break;
    case TAPO_FIELD_UINT: *ft = FT_UINT32; *display = BASE_DEC; break;
    case TAPO_FIELD_FRAME: *ft = FT_FRAMENUM; *display = BASE_NONE; break;
    case TAPO_FIELD_PORT: *ft = FT_UINT16; *display = BASE_DEC; break;
    case TAPO_FIELD_DOUBLE: *ft = FT_DOUBLE; *display = BASE_NONE; break;
    case TAPO_FIELD_TIME: *ft = FT_ABSOLUTE_TIME; *display = ABSOLUTE_TIME_LOCAL; break;
    }
}

/* The fields: tapo.stall, then one per row of the field table. */
static void register_fields(int proto)
{
    hf_register_info *hf = g_new0(hf_register_info, TAPO_F_COUNT + 1);
    hf[0] = (hf_register_info){ &hf_stall, { "Stall", "tapo.stall", FT_NONE, BASE_NONE, NULL, 0x0,
                                             "This packet ends a TCP stall: a gap longer than min(2 SRTT, RTO) before it", HFILL } };
    for (int i = 0; i < TAPO_F_COUNT; i++) {
        const tapo_field_def *def = &tapo_field_defs[i];
        enum ftenum ft = FT_NONE;
        int display = BASE_NONE;
        field_kind(def->type, &ft, &display);
        hf_fields[i] = -1;
        hf[i + 1] = (hf_register_info){ &hf_fields[i], { def->label, def->name, ft, display, NULL, 0x0,
                                                         def->blurb, HFILL } };
    }
    proto_register_field_array(proto, hf, TAPO_F_COUNT + 1);
    static int *ett[] = { &ett_stall };
    proto_register_subtree_array(ett, array_length(ett));
}

/* Expert infos come from the vocabulary table, one per cause. */
static void register_cause_experts(expert_module_t *module)
{
    ei_register_info *ei = g_new0(ei_register_info, TAPO_CAUSE_COUNT);
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        const tapo_cause_info *info = tapo_cause_get(c);
        ei_cause[c] = (expert_field)EI_INIT;
        ei[c].ids = &ei_cause[c];
        ei[c].eiinfo = (expert_field_info){
            .name = c == TAPO_CAUSE_RETRANS_UNDETERMINED
                        ? g_strdup("tapo.expert.undetermined_retransmission")
                        : g_strdup_printf("tapo.expert.%s", info->name),
            .group = PI_SEQUENCE,
            .severity = info->severity == TAPO_SEVERITY_WARN ? PI_WARN : PI_NOTE,
            .summary = info->summary,
            EXPFILL
        };
        g_strdelimit((char *)ei[c].eiinfo.name, "-", '_');
    }
    expert_register_field_array(module, ei, TAPO_CAUSE_COUNT);
}

/* The notes that are no cause: the sender's choice, the vantage, the
 * capture's time order. */
static void register_note_experts(expert_module_t *module)
{
    static ei_register_info ei_other[] = {
        { &ei_reversed, { "tapo.expert.sender_reversed", PI_ASSUMPTION, PI_NOTE,
          "TAPO: the analysed sender sent far less data than its peer (an upload?); "
          "set the preference tapo.sender to auto", EXPFILL } },
        { &ei_vantage_receiver, { "tapo.expert.vantage_receiver", PI_ASSUMPTION, PI_NOTE,
          "TAPO: captured at the receiver: the sender's RTT includes the whole path, and "
          "transmissions lost on the way never appear; retransmission causes are "
          "reconstructed (see tapo.stall.inferred)", EXPFILL } },
        { &ei_vantage_middle, { "tapo.expert.vantage_middle", PI_ASSUMPTION, PI_NOTE,
          "TAPO: captured in the middle of the path: the sender's RTT adds both halves, "
          "transmissions lost before this point never appear; retransmission causes are "
          "reconstructed (see tapo.stall.inferred)", EXPFILL } },
        { &ei_restart, { "tapo.expert.restart", PI_SEQUENCE, PI_NOTE,
          "TAPO: a new connection started on the same ports (another initial sequence "
          "number): the analysis starts over", EXPFILL } },
        { &ei_stray, { "tapo.expert.stray_syn_ack", PI_SEQUENCE, PI_NOTE,
          "TAPO: a second SYN-ACK with another initial sequence number, after the connection "
          "was established: another connection's, ignored", EXPFILL } },
        { &ei_time_backwards, { "tapo.expert.time_backwards", PI_SEQUENCE, PI_WARN,
          "TAPO: the capture is not in time order (this packet is stamped before an earlier "
          "one): gaps are measured from the latest packet; sort it with reordercap", EXPFILL } },
        { &ei_time_jump, { "tapo.expert.time_jump", PI_SEQUENCE, PI_WARN,
          "TAPO: more than a day since the connection's previous packet: the capture's clock "
          "may have jumped; the stall it ends counts the whole gap", EXPFILL } },
    };
    expert_register_field_array(module, ei_other, array_length(ei_other));
}

void tapo_render_register(int proto)
{
    register_fields(proto);
    expert_module_t *module = expert_register_protocol(proto);
    register_cause_experts(module);
    register_note_experts(module);
}

static nstime_t to_nstime(double seconds)
{
    nstime_t t;
    nstime_set_zero(&t);
    t.secs = (time_t)seconds;
    t.nsecs = (int)((seconds - (double)t.secs) * 1e9 + 0.5);
    if (t.nsecs >= 1000000000) {
        t.secs++;
        t.nsecs -= 1000000000;
    }
    return t;
}

/* Display notes the tree adds to a field's value (its value is unchanged:
 * filters and -T fields see the number). */
typedef struct display_notes {
    char duration[112], in_flight[112], mss[144];
} display_notes;

static const char *note_of(const display_notes *n, tapo_field_id id)
{
    return id == TAPO_F_DURATION ? n->duration : id == TAPO_F_IN_FLIGHT ? n->in_flight
         : id == TAPO_F_MSS ? n->mss : "";
}

static void add_field(proto_tree *tree, tvbuff_t *tvb, tapo_field_id id, const tapo_field_value *f,
                      const display_notes *extra)
{
    if (!f->present)
        return;
    int hf = hf_fields[id];
    proto_item *item = NULL;
    switch (tapo_field_defs[id].type) {
    case TAPO_FIELD_STRING:
        item = proto_tree_add_string(tree, hf, tvb, 0, 0, f->s);
        break;
    case TAPO_FIELD_BOOL:
        item = proto_tree_add_boolean(tree, hf, tvb, 0, 0, f->b);
        break;
    case TAPO_FIELD_SECONDS:
    case TAPO_FIELD_TIME: {
        nstime_t t = to_nstime(f->d);
        item = proto_tree_add_time(tree, hf, tvb, 0, 0, &t);
        break;
    }
    case TAPO_FIELD_UINT:
    case TAPO_FIELD_FRAME:
    case TAPO_FIELD_PORT:
        item = proto_tree_add_uint(tree, hf, tvb, 0, 0, f->u);
        break;
    case TAPO_FIELD_DOUBLE:
        /* A share (tapo.stall.position): three significant digits, not seventeen. */
        item = proto_tree_add_double_format_value(tree, hf, tvb, 0, 0, f->d, "%.3g", f->d);
        break;
    }
    proto_item_set_generated(item);
    if (f->note)
        proto_item_append_text(item, "%s", f->note);
    if (*note_of(extra, id))
        proto_item_append_text(item, "%s", note_of(extra, id));
}

/* What a reader of the tree needs beside some values: where the duration
 * was measured, how in-flight adds up, what the MSS was taken from. */
static void explain(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const tapo_verdict *v,
                    const tapo_field_value *fields, display_notes *out)
{
    memset(out, 0, sizeof *out);
    if (!tree)
        return;
    const tapo_snapshot *snap = &v->view->snap;
    if (snap->vantage != TAPO_VANTAGE_SENDER)
        snprintf(out->duration, sizeof out->duration,
                 " (on the sender's timeline: captured at the %s, this capture saw the packets at other times)",
                 tapo_vantage_name(snap->vantage));
    const tapo_field_value *in_flight = &fields[TAPO_F_IN_FLIGHT];
    if (in_flight->present)
        snprintf(out->in_flight, sizeof out->in_flight,
                 " (packets out %u + retransmitted out %u - SACKed out %u - lost out %u)",
                 fields[TAPO_F_PACKETS_OUT].u, fields[TAPO_F_RETRANS_OUT].u, fields[TAPO_F_SACKED_OUT].u,
                 fields[TAPO_F_LOST_OUT].u);
    tapo_segment_fields seg;
    if (fields[TAPO_F_MSS].present && snap->cur.dir == TAPO_DIR_OUT && snap->cur.payload &&
        tapo_input_decode(tvb, pinfo, &seg) == TAPO_DECODE_TCP && seg.payload_len > fields[TAPO_F_MSS].u)
        snprintf(out->mss, sizeof out->mss,
                 v->sender_role_known
                     ? " (this packet carries %u bytes: segments merged at the capture host, TSO or GRO)"
                     : " (the sender's largest segment before the stall: no MSS option in the capture; "
                       "this packet carries %u bytes)",
                 seg.payload_len);
}

void tapo_render_stall(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int proto,
                       const tapo_verdict *v, const tapo_conv_summary *sum,
                       const tapo_endpoint_names *names, const tapo_episode *episode,
                       const tapo_config *cfg, const tapo_render_notes *notes)
{
    const tapo_cause_info *info = tapo_cause_get(v->cause);
    col_append_sep_fstr(pinfo->cinfo, COL_INFO, " ", "[TAPO stall %.3f s: %s]", v->duration_s,
                        info->name);
    proto_item *top = proto_tree_add_item(tree, proto, tvb, 0, 0, ENC_NA);
    proto_item_append_text(top, ": %s stall of %.3f s", info->name, v->duration_s);
    proto_tree *pt = proto_item_add_subtree(top, ett_stall);
    /* Away from the sender the gap is measured on the sender's timeline,
     * not between the two frames' time stamps here. */
    proto_item *item = v->view->snap.vantage == TAPO_VANTAGE_SENDER
        ? proto_tree_add_none_format(pt, hf_stall, tvb, 0, 0, "Stall: %s (%s, %s), %.3f s after frame %u",
                                     info->name, tapo_category_name(v->category), tapo_phase_name(v->phase),
                                     v->duration_s, v->prev_frame)
        : proto_tree_add_none_format(pt, hf_stall, tvb, 0, 0,
                                     "Stall: %s (%s, %s), %.3f s at the sender since frame %u",
                                     info->name, tapo_category_name(v->category), tapo_phase_name(v->phase),
                                     v->duration_s, v->prev_frame);
    proto_item_set_generated(item);
    proto_tree *st = proto_item_add_subtree(item, ett_stall);
    tapo_field_value fields[TAPO_F_COUNT];
    tapo_field_text text;
    tapo_stall_fields(v, sum, cfg, names, episode, fields, &text);
    display_notes extra;
    explain(tvb, pinfo, tree, v, fields, &extra);
    for (int i = 0; i < TAPO_F_COUNT; i++)
        add_field(i < TAPO_F_FIRST_OUTSIDE_STALL ? st : pt, tvb, (tapo_field_id)i, &fields[i], &extra);
    if (notes->vantage)
        expert_add_info(pinfo, item, v->view->snap.vantage == TAPO_VANTAGE_MIDDLE ? &ei_vantage_middle
                                                                                   : &ei_vantage_receiver);
    expert_add_info(pinfo, item, &ei_cause[v->cause]);
    if (notes->sender_reversed)
        expert_add_info(pinfo, item, &ei_reversed);
}

void tapo_render_frame_note(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int proto,
                            tapo_frame_note note)
{
    static const struct {
        const char *text;            /* appended to the TAPO item */
        expert_field *ei;
    } notes[] = {
        [TAPO_NOTE_RESTART] = { ": a new connection on the same ports", &ei_restart },
        [TAPO_NOTE_STRAY] = { ": another connection's SYN-ACK, ignored", &ei_stray },
        [TAPO_NOTE_TIME_BACKWARDS] = { ": stamped before an earlier packet", &ei_time_backwards },
        [TAPO_NOTE_TIME_JUMP] = { ": more than a day after the previous packet", &ei_time_jump },
    };
    if (note <= TAPO_NOTE_NONE || (unsigned)note >= array_length(notes))
        return;
    proto_item *top = proto_tree_add_item(tree, proto, tvb, 0, 0, ENC_NA);
    proto_item_append_text(top, "%s", notes[note].text);
    expert_add_info(pinfo, top, notes[note].ei);
}

void tapo_render_not_analysed(tvbuff_t *tvb, proto_tree *tree, int proto)
{
    proto_item *top = proto_tree_add_item(tree, proto, tvb, 0, 0, ENC_NA);
    proto_item_append_text(top, ": not analysed yet (TAPO reads a capture in order, in the first pass "
                           "over it that asks for TAPO: apply a tapo display filter, add a TAPO column, "
                           "or open Statistics > TCP Stalls (TAPO))");
    proto_item_set_generated(top);
}
