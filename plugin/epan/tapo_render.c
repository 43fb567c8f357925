/* tapo_render.c: turning a stall verdict into fields, expert info and the
 * Info column.  The field names are the contract of spec section 5.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tapo_render.h"

#include <epan/expert.h>

static int hf_stall = -1;
static int hf_cause = -1;
static int hf_category = -1;
static int hf_retransmission = -1;
static int hf_duration = -1;
static int hf_threshold = -1;
static int hf_srtt = -1;
static int hf_rto = -1;
static int hf_prev_frame = -1;
static int hf_ca_state = -1;
static int hf_in_flight = -1;
static int hf_packets_out = -1;
static int hf_sacked_out = -1;
static int hf_lost_out = -1;
static int hf_retrans_out = -1;
static int hf_holes = -1;
static int hf_dupthres = -1;
static int hf_rwnd = -1;
static int hf_init_rwnd = -1;
static int hf_mss = -1;
static int hf_retrans_count = -1;
static int hf_first_retrans = -1;
static int hf_spurious = -1;
static int hf_position = -1;
static int hf_file_pos = -1;
static int hf_pkt_dir = -1;
static int hf_final = -1;
static int hf_hint = -1;
static int hf_vantage = -1;
static int hf_vantage_basis = -1;
static int hf_sender = -1;
static int hf_sender_basis = -1;
static int hf_sender_port = -1;
static int hf_inferred = -1;
static int hf_rtt_to_sender = -1;
static int hf_rtt_to_receiver = -1;

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

#define FIELD(var, name, abbrev, type, display, blurb) \
    { &var, { name, abbrev, type, display, NULL, 0x0, blurb, HFILL } }

void tapo_render_register(int proto)
{
    static hf_register_info hf[] = {
        FIELD(hf_stall, "Stall", "tapo.stall", FT_NONE, BASE_NONE,
              "This packet ends a TCP stall (spec section 3)"),
        FIELD(hf_cause, "Cause", "tapo.stall.cause", FT_STRING, BASE_NONE,
              "Why the connection stalled (the TAPO decision tree)"),
        FIELD(hf_category, "Category", "tapo.stall.category", FT_STRING, BASE_NONE,
              "server, client, network or unknown"),
        FIELD(hf_retransmission, "Timeout retransmission", "tapo.stall.retransmission", FT_BOOLEAN,
              BASE_NONE, "The stall ended with a retransmission (spec rule 1)"),
        FIELD(hf_duration, "Duration", "tapo.stall.duration", FT_RELATIVE_TIME, BASE_NONE,
              "Gap before this packet, seconds"),
        FIELD(hf_threshold, "Threshold", "tapo.stall.threshold", FT_RELATIVE_TIME, BASE_NONE,
              "min(tau * SRTT, RTO) that the gap exceeded, seconds"),
        FIELD(hf_srtt, "SRTT", "tapo.stall.srtt", FT_RELATIVE_TIME, BASE_NONE,
              "Sender's smoothed RTT at the stall's start, seconds (RFC 6298)"),
        FIELD(hf_rto, "RTO", "tapo.stall.rto", FT_RELATIVE_TIME, BASE_NONE,
              "Sender's retransmission timeout at the stall's start, seconds"),
        FIELD(hf_prev_frame, "Previous frame", "tapo.stall.prev_frame", FT_FRAMENUM, BASE_NONE,
              "The packet before the gap"),
        FIELD(hf_ca_state, "Congestion state", "tapo.stall.ca_state", FT_STRING, BASE_NONE,
              "Open, Disorder, Recovery or Loss at the stall's start"),
        FIELD(hf_in_flight, "In flight", "tapo.stall.in_flight", FT_UINT32, BASE_DEC,
              "packets_out + retrans_out - (sacked_out + lost_out), segments"),
        FIELD(hf_packets_out, "Packets out", "tapo.stall.packets_out", FT_UINT32, BASE_DEC,
              "snd_nxt - snd_una, segments"),
        FIELD(hf_sacked_out, "SACKed out", "tapo.stall.sacked_out", FT_UINT32, BASE_DEC,
              "Segments above snd_una covered by SACK blocks"),
        FIELD(hf_lost_out, "Lost out", "tapo.stall.lost_out", FT_UINT32, BASE_DEC,
              "Retransmitted segments not shown duplicate by DSACK"),
        FIELD(hf_retrans_out, "Retransmitted out", "tapo.stall.retrans_out", FT_UINT32, BASE_DEC,
              "Retransmitted segments not yet acknowledged"),
        FIELD(hf_holes, "Holes", "tapo.stall.holes", FT_UINT32, BASE_DEC,
              "Un-SACKed segments below the highest SACKed byte"),
        FIELD(hf_dupthres, "Duplicate-ACK threshold", "tapo.stall.dupthres", FT_UINT32, BASE_DEC,
              "3, raised by observed reordering, segments"),
        FIELD(hf_rwnd, "Receiver window", "tapo.stall.rwnd", FT_UINT32, BASE_DEC,
              "Receiver's last advertised window, bytes"),
        FIELD(hf_init_rwnd, "Initial receiver window", "tapo.stall.init_rwnd", FT_UINT32, BASE_DEC,
              "Receiver's window in its SYN, bytes"),
        FIELD(hf_mss, "MSS", "tapo.stall.mss", FT_UINT32, BASE_DEC, "Segment size used, bytes"),
        FIELD(hf_retrans_count, "Retransmissions", "tapo.stall.retrans_count", FT_UINT32, BASE_DEC,
              "Times this segment has been retransmitted, this one included"),
        FIELD(hf_first_retrans, "First retransmission", "tapo.stall.first_retrans", FT_STRING,
              BASE_NONE, "What triggered the segment's first retransmission: fast, timeout or probe"),
        FIELD(hf_spurious, "Spurious", "tapo.stall.spurious", FT_BOOLEAN, BASE_NONE,
              "A DSACK proved the retransmission unnecessary"),
        FIELD(hf_position, "Position", "tapo.stall.position", FT_DOUBLE, BASE_NONE,
              "Place of this packet in the sender's data, 0 to 1"),
        FIELD(hf_file_pos, "Response position", "tapo.stall.file_pos", FT_STRING, BASE_NONE,
              "head, middle or tail of the current response"),
        FIELD(hf_pkt_dir, "Direction", "tapo.stall.pkt_dir", FT_STRING, BASE_NONE,
              "out (sender to receiver) or in"),
        FIELD(hf_final, "Final", "tapo.stall.final", FT_BOOLEAN, BASE_NONE,
              "The cause used the whole capture (two-pass); false: provisional (one pass)"),
        FIELD(hf_hint, "Hint", "tapo.stall.hint", FT_STRING, BASE_NONE,
              "Which mitigation addresses this cause"),
        FIELD(hf_vantage, "Vantage", "tapo.vantage", FT_STRING, BASE_NONE,
              "Where the capture was taken, relative to the analysed sender: sender, receiver or middle"),
        FIELD(hf_vantage_basis, "Vantage decided by", "tapo.vantage.basis", FT_STRING, BASE_NONE,
              "handshake, turnaround, preference, or default (nothing measured yet)"),
        FIELD(hf_sender, "Sender", "tapo.sender", FT_STRING, BASE_NONE,
              "The analysed sender: responder or initiator (absent without the handshake)"),
        FIELD(hf_sender_basis, "Sender chosen by", "tapo.sender.basis", FT_STRING, BASE_NONE,
              "data (the heavier sender), direction (the side whose data was in flight), "
              "handshake, preference or default"),
        FIELD(hf_sender_port, "Sender port", "tapo.sender.port", FT_UINT16, BASE_DEC,
              "TCP port of the analysed sender"),
        FIELD(hf_inferred, "Inferred", "tapo.stall.inferred", FT_STRING, BASE_NONE,
              "What the verdict relies on that the capture could not see"),
        FIELD(hf_rtt_to_sender, "RTT to the sender", "tapo.stall.rtt_to_sender", FT_RELATIVE_TIME,
              BASE_NONE, "Round trip from the capture point to the sender and back, seconds"),
        FIELD(hf_rtt_to_receiver, "RTT to the receiver", "tapo.stall.rtt_to_receiver",
              FT_RELATIVE_TIME, BASE_NONE,
              "Round trip from the capture point to the receiver and back, seconds"),
    };
    static int *ett[] = { &ett_stall };
    proto_register_field_array(proto, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));

    /* Expert infos come from the vocabulary table, one per cause. */
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
    expert_module_t *module = expert_register_protocol(proto);
    expert_register_field_array(module, ei, TAPO_CAUSE_COUNT);
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

static void add_seconds(proto_tree *tree, int hf, tvbuff_t *tvb, double seconds)
{
    nstime_t t;
    nstime_set_zero(&t);
    t.secs = (time_t)seconds;
    t.nsecs = (int)((seconds - (double)t.secs) * 1e9 + 0.5);
    if (t.nsecs >= 1000000000) {
        t.secs++;
        t.nsecs -= 1000000000;
    }
    proto_item_set_generated(proto_tree_add_time(tree, hf, tvb, 0, 0, &t));
}

static void add_uint(proto_tree *tree, int hf, tvbuff_t *tvb, uint32_t value)
{
    proto_item_set_generated(proto_tree_add_uint(tree, hf, tvb, 0, 0, value));
}

static void add_string(proto_tree *tree, int hf, tvbuff_t *tvb, const char *value)
{
    proto_item_set_generated(proto_tree_add_string(tree, hf, tvb, 0, 0, value));
}

static void add_bool(proto_tree *tree, int hf, tvbuff_t *tvb, bool value)
{
    proto_item_set_generated(proto_tree_add_boolean(tree, hf, tvb, 0, 0, value));
}

/* The sender state at the stall's start (paper Table 2). */
static void add_state(proto_tree *st, tvbuff_t *tvb, const tapo_snapshot *s,
                      const tapo_verdict *v)
{
    add_string(st, hf_ca_state, tvb, tapo_ca_state_name(s->ca_state));
    add_uint(st, hf_in_flight, tvb, v->in_flight);
    add_uint(st, hf_packets_out, tvb, s->packets_out);
    add_uint(st, hf_sacked_out, tvb, s->sacked_out);
    add_uint(st, hf_lost_out, tvb, v->lost_out);
    add_uint(st, hf_retrans_out, tvb, s->retrans_out);
    add_uint(st, hf_holes, tvb, s->holes);
    add_uint(st, hf_dupthres, tvb, s->dupthres);
    if (s->rwnd_seen) {
        proto_item *rwnd = proto_tree_add_uint(st, hf_rwnd, tvb, 0, 0, s->rwnd);
        proto_item_set_generated(rwnd);
        if (!s->rwnd_scale_known)
            proto_item_append_text(rwnd, " (window scale unknown: handshake not captured)");
    }
    if (s->init_rwnd)
        add_uint(st, hf_init_rwnd, tvb, s->init_rwnd);
    add_uint(st, hf_mss, tvb, s->mss);
}

/* What the stall-ending packet was. */
static void add_cur(proto_tree *st, tvbuff_t *tvb, const tapo_snapshot *s,
                    const tapo_verdict *v)
{
    const tapo_cur *cur = &s->cur;
    if (cur->retrans_count) {
        add_uint(st, hf_retrans_count, tvb, cur->retrans_count);
        const char *first = tapo_trigger_name(cur->first_retrans);
        if (first)
            add_string(st, hf_first_retrans, tvb, first);
    }
    add_bool(st, hf_spurious, tvb, v->spurious);
    proto_item_set_generated(proto_tree_add_double(st, hf_position, tvb, 0, 0, v->position));
    add_string(st, hf_file_pos, tvb, tapo_file_pos_name(v->file_pos));
    add_string(st, hf_pkt_dir, tvb, cur->dir == TAPO_DIR_OUT ? "out" : "in");
}

/* The inferred bits as one readable line. */
static const char *inferred_line(packet_info *pinfo, unsigned bits)
{
    wmem_strbuf_t *buf = wmem_strbuf_new(pinfo->pool, "");
    for (unsigned i = 0; i < TAPO_INFERRED_COUNT_BITS; i++) {
        if (!(bits & (1u << i)))
            continue;
        if (wmem_strbuf_get_len(buf))
            wmem_strbuf_append(buf, "; ");
        wmem_strbuf_append(buf, tapo_inferred_text((tapo_inferred)(1u << i)));
    }
    return wmem_strbuf_get_str(buf);
}

/* Where the capture was taken and which endpoint is analysed. */
static void add_vantage(proto_tree *st, tvbuff_t *tvb, packet_info *pinfo,
                        const tapo_verdict *v, const tapo_render_notes *notes, proto_item *item)
{
    const tapo_snapshot *s = &v->view->snap;
    add_string(st, hf_vantage, tvb, tapo_vantage_name(s->vantage));
    add_string(st, hf_vantage_basis, tvb, tapo_basis_name(s->vantage_basis));
    if (v->sender_role >= 0)
        add_string(st, hf_sender, tvb, tapo_role_name((tapo_role)v->sender_role));
    add_string(st, hf_sender_basis, tvb, tapo_basis_name(v->sender_basis));
    proto_item_set_generated(proto_tree_add_uint(st, hf_sender_port, tvb, 0, 0, notes->sender_port));
    if (s->rtt_to_sender_s > 0.0)
        add_seconds(st, hf_rtt_to_sender, tvb, s->rtt_to_sender_s);
    if (s->rtt_to_receiver_s > 0.0)
        add_seconds(st, hf_rtt_to_receiver, tvb, s->rtt_to_receiver_s);
    if (s->inferred)
        add_string(st, hf_inferred, tvb, inferred_line(pinfo, s->inferred));
    if (notes->vantage)
        expert_add_info(pinfo, item, s->vantage == TAPO_VANTAGE_MIDDLE ? &ei_vantage_middle
                                                                        : &ei_vantage_receiver);
}

void tapo_render_stall(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int proto,
                       const tapo_stall_record *rec, const tapo_verdict *v,
                       const tapo_render_notes *notes)
{
    (void)rec;
    const tapo_cause_info *info = tapo_cause_get(v->cause);
    const tapo_snapshot *s = &v->view->snap;
    col_append_sep_fstr(pinfo->cinfo, COL_INFO, " ", "[TAPO stall %.3f s: %s]", s->duration_s,
                        info->name);
    proto_item *top = proto_tree_add_item(tree, proto, tvb, 0, 0, ENC_NA);
    proto_item_append_text(top, ": %s stall of %.3f s", info->name, s->duration_s);
    proto_tree *pt = proto_item_add_subtree(top, ett_stall);
    proto_item *item = proto_tree_add_none_format(pt, hf_stall, tvb, 0, 0,
        "Stall: %s (%s), %.3f s after frame %u", info->name,
        tapo_category_name(v->category), s->duration_s, s->prev_frame);
    proto_item_set_generated(item);
    proto_tree *st = proto_item_add_subtree(item, ett_stall);
    add_string(st, hf_cause, tvb, info->name);
    add_string(st, hf_category, tvb, tapo_category_name(v->category));
    add_bool(st, hf_retransmission, tvb, v->retransmission);
    add_seconds(st, hf_duration, tvb, s->duration_s);
    add_seconds(st, hf_threshold, tvb, s->threshold_s);
    add_seconds(st, hf_srtt, tvb, s->srtt_s);
    add_seconds(st, hf_rto, tvb, s->rto_s);
    proto_item_set_generated(proto_tree_add_uint(st, hf_prev_frame, tvb, 0, 0, s->prev_frame));
    add_state(st, tvb, s, v);
    add_cur(st, tvb, s, v);
    add_bool(st, hf_final, tvb, v->final);
    add_string(st, hf_hint, tvb, info->hint);
    add_vantage(pt, tvb, pinfo, v, notes, item);
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
