/* vocabulary.c: the one table of causes and the other user-visible names.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "base/vocabulary.h"

#include <stddef.h>

#define NET TAPO_CATEGORY_NETWORK
#define SRV TAPO_CATEGORY_SERVER
#define CLI TAPO_CATEGORY_CLIENT
#define UNK TAPO_CATEGORY_UNKNOWN
#define WARN TAPO_SEVERITY_WARN
#define NOTE TAPO_SEVERITY_NOTE

/* Indexed by tapo_cause; the static assertion below keeps it complete.
 * The advice is an operator's: which machine to look at and what to check
 * or turn on there ({sender} and {receiver} become "the server 192.0.2.1:443"
 * or "the client ..."; advice.h); the mitigation is what the paper and the
 * literature propose (docs/causes.md). */
static const tapo_cause_info cause_table[] = {
    [TAPO_CAUSE_ACK_DELAY] = { "ack-delay",
        NET, true, WARN, "TAPO stall: ack-delay (spurious timeout, ACKs delayed or lost)",
        "{sender} resent data that had arrived: the ACKs from {receiver} were late or lost; look for "
        "delay on the path, and check that spurious timeouts are undone there (Linux: net.ipv4.tcp_frto=2)",
        "a less aggressive minimum RTO, or undo spurious timeouts (F-RTO, Eifel)",
        "1.0" },
    [TAPO_CAUSE_F_DOUBLE] = { "f-double",
        NET, true, WARN, "TAPO stall: f-double (a fast retransmission was lost again)",
        "{sender} lost a fast retransmission again and waited {duration} for its timeout: look for persistent loss "
        "on the path, and check that RACK loss detection is on there (Linux: net.ipv4.tcp_recovery=1)",
        "S-RTO or RACK: detect the lost retransmission without waiting for the RTO",
        "1.1" },
    [TAPO_CAUSE_T_DOUBLE] = { "t-double",
        NET, true, WARN, "TAPO stall: t-double (a timeout retransmission was lost again)",
        "{sender} lost a retransmission again and waited {duration} for a doubled timeout: look for persistent "
        "loss or an outage on the path between {sender} and {receiver}",
        "S-RTO: probe before the backed-off RTO; check the path for persistent loss",
        "1.1" },
    [TAPO_CAUSE_TAIL] = { "tail",
        NET, true, WARN, "TAPO stall: tail (loss of the last segments)",
        "{sender} lost the last segments it sent and waited {duration} for its timeout: check that tail loss "
        "probes are on there (Linux: net.ipv4.tcp_early_retrans=3)",
        "TLP (tail-loss probe) in Open state; S-RTO in Recovery",
        "1.2" },
    [TAPO_CAUSE_SMALL_RWND] = { "small-rwnd",
        NET, true, WARN, "TAPO stall: small-rwnd (too few segments in flight, receiver window)",
        "{receiver} offered a receive window of fewer than 4 segments: enlarge its receive buffer "
        "(Linux: net.ipv4.tcp_rmem, or the application's SO_RCVBUF)",
        "a larger client receive window (init_rwnd of at least 10 MSS)",
        "1.3" },
    [TAPO_CAUSE_SMALL_CWND] = { "small-cwnd",
        NET, true, WARN, "TAPO stall: small-cwnd (too few segments in flight for fast retransmit)",
        "{sender} had fewer than 4 segments in flight, too few for a fast retransmission: check that "
        "tail loss probes and early retransmit are on there (Linux: net.ipv4.tcp_early_retrans=3)",
        "early retransmit (RFC 5827) or TLP",
        "1.3" },
    [TAPO_CAUSE_CONTINUOUS_LOSS] = { "continuous-loss",
        NET, true, WARN, "TAPO stall: continuous-loss (every outstanding segment was lost)",
        "every segment {sender} had in flight was lost: look for a burst loss or an outage on the "
        "path; pacing on {sender} spreads its bursts (Linux: the fq qdisc)",
        "pacing: spread the window over the RTT to avoid burst losses",
        "1.4" },
    [TAPO_CAUSE_LARGE_DUPTHRES] = { "large-dupthres",
        NET, true, WARN, "TAPO stall: large-dupthres (SACKs arrived but no fast retransmit)",
        "{sender} waited {duration} for its timeout though the ACKs had reported the loss (reordering had raised "
        "its threshold): check that RACK loss detection is on there (Linux: net.ipv4.tcp_recovery=1)",
        "RACK: time-based loss detection instead of a reordering-raised dupthres",
        "1.6" },
    [TAPO_CAUSE_RETRANS_UNDETERMINED] = { "undetermined",
        NET, true, WARN, "TAPO stall: undetermined timeout retransmission",
        "{sender} resent after {duration} for a reason the packets do not show: inspect the packets "
        "around the gap between {sender} and {receiver}",
        "none: the decision tree has no rule for it",
        "1.7" },
    [TAPO_CAUSE_ZERO_WINDOW] = { "zero-window",
        CLI, false, NOTE, "TAPO stall: zero-window (the receiver's window was closed)",
        "{receiver} closed its receive window: its application reads too slowly, or its receive "
        "buffer is too small",
        "the client reads too slowly or advertises a small buffer: enlarge it",
        "2" },
    [TAPO_CAUSE_DATA_UNAVAILABLE] = { "data-unavailable",
        SRV, false, NOTE, "TAPO stall: data-unavailable (the server had not produced the response)",
        "{sender} waited {duration} before answering: look at its application (processing, back ends, "
        "caches)",
        "server think time: cache the content near the front end",
        "3" },
    [TAPO_CAUSE_RESOURCE_CONSTRAINT] = { "resource-constraint",
        SRV, false, NOTE, "TAPO stall: resource-constraint (the application paused mid-response)",
        "the application on {sender} stopped feeding TCP for {duration} in the middle of sending: "
        "check its load, disk and CPU",
        "the server application did not feed TCP: more resources, or a faster back end",
        "4" },
    [TAPO_CAUSE_CLIENT_IDLE] = { "client-idle",
        CLI, false, NOTE, "TAPO stall: client-idle (no request pending)",
        "{client} had nothing more to ask or to send: idle time, nothing to fix in TCP",
        "none: the client had nothing to ask",
        "5" },
    [TAPO_CAUSE_PACKET_DELAY] = { "packet-delay",
        NET, false, NOTE, "TAPO stall: packet-delay (ACKs or data were late, no loss)",
        "packets or ACKs between {sender} and {receiver} were {duration} late and nothing was lost: look for "
        "queueing (bufferbloat) or a slow link on the path",
        "RTT jitter or queueing: smaller buffers on the path (AQM)",
        "6" },
    [TAPO_CAUSE_UNDETERMINED] = { "undetermined",
        UNK, false, NOTE, "TAPO stall: undetermined cause",
        "no rule explains this gap between {sender} and {receiver}: inspect the packets around it",
        "none: the decision tree has no rule for it",
        "7" },
};

_Static_assert(sizeof cause_table / sizeof cause_table[0] == TAPO_CAUSE_COUNT,
               "every tapo_cause needs a row in cause_table");

const tapo_cause_info *tapo_cause_get(tapo_cause cause)
{
    if ((unsigned)cause >= TAPO_CAUSE_COUNT)
        cause = TAPO_CAUSE_UNDETERMINED;
    return &cause_table[cause];
}

static const char *const category_names[TAPO_CATEGORY_COUNT] = {
    "server", "client", "network", "unknown"
};

const char *tapo_category_name(tapo_category category)
{
    return (unsigned)category < TAPO_CATEGORY_COUNT ? category_names[category] : "unknown";
}

static const char *const ca_state_names[TAPO_CA_COUNT] = {
    "Open", "Disorder", "Recovery", "Loss"
};

const char *tapo_ca_state_name(tapo_ca_state state)
{
    return (unsigned)state < TAPO_CA_COUNT ? ca_state_names[state] : "Open";
}

static const char *const trigger_names[TAPO_TRIGGER_COUNT] = {
    NULL, "fast", "timeout", "probe"
};

const char *tapo_trigger_name(tapo_trigger trigger)
{
    return (unsigned)trigger < TAPO_TRIGGER_COUNT ? trigger_names[trigger] : NULL;
}

static const char *const file_pos_names[TAPO_FILE_POS_COUNT] = {
    "head", "middle", "tail"
};

const char *tapo_file_pos_name(tapo_file_pos pos)
{
    return (unsigned)pos < TAPO_FILE_POS_COUNT ? file_pos_names[pos] : "middle";
}

static const char *const vantage_names[TAPO_VANTAGE_COUNT] = {
    "sender", "receiver", "middle"
};

const char *tapo_vantage_name(tapo_vantage vantage)
{
    return (unsigned)vantage < TAPO_VANTAGE_COUNT ? vantage_names[vantage] : "sender";
}

static const char *const basis_names[TAPO_BASIS_COUNT] = {
    "default", "handshake", "turnaround", "data", "direction", "preference", "ports", "hops", "same-host"
};

const char *tapo_basis_name(tapo_basis basis)
{
    return (unsigned)basis < TAPO_BASIS_COUNT ? basis_names[basis] : "default";
}

static const char *const role_names[TAPO_ROLE_COUNT] = {
    "responder", "initiator"
};

const char *tapo_role_name(tapo_role role)
{
    return (unsigned)role < TAPO_ROLE_COUNT ? role_names[role] : "responder";
}

static const char *const inferred_texts[TAPO_INFERRED_COUNT_BITS] = {
    "the original transmission was lost before the capture point",
    "earlier retransmissions were lost before the capture point",
    "counted from gaps in the sender's IP IDs",
    "the sender's silence, longer than its retransmission timer, shows it had an ACK the capture does not show",
    "the sender had not yet received ACKs that the capture shows",
    "a delay between the capture point and the sender would look the same (packet-delay)",
    "SRTT includes the sender's side of the path, measured from turnarounds",
};

const char *tapo_inferred_text(tapo_inferred bit)
{
    for (unsigned i = 0; i < TAPO_INFERRED_COUNT_BITS; i++)
        if (bit == (tapo_inferred)(1u << i))
            return inferred_texts[i];
    return "";
}

static const char *const confidence_names[TAPO_CONFIDENCE_COUNT] = { "high", "medium", "low" };

const char *tapo_confidence_name(tapo_confidence confidence)
{
    return (unsigned)confidence < TAPO_CONFIDENCE_COUNT ? confidence_names[confidence] : "low";
}

static const struct {
    const char *name;
    const char *text;
} caveats[TAPO_CAVEAT_COUNT_BITS] = {
    { "no-rtt-sample", "no RTT sample yet: the stall threshold is the initial RTO, so the gap may not be a stall" },
    { "no-handshake", "the handshake was not captured: where the capture was taken, or which endpoint sends, is a guess" },
    { "inferred", "the verdict relies on transmissions the capture could not see (tapo.stall.inferred)" },
    { "capture-gap", "the capture missed packets of this connection (the peer acknowledged data never seen, or the sender's sequence skips)" },
    { "clock", "the capture's clock went backwards or jumped in this connection" },
    { "window-scale", "the window scale is unknown (handshake not captured): only a zero window is certain" },
    { "audited", "the packets contradicted the decision tree's cause: the audit changed it (tapo.stall.rule says why)" },
    { "unexplained", "no rule of the decision tree explains the stall (tapo.stall.rule says what was seen)" },
    { "bare-ack", "a bare ACK ended the stall: whether the gap was a delayed ACK, think time or the path is read from an ACK, not from data" },
    { "sender-choice", "the data did not settle which endpoint is the sender: it sent less data than its peer (a responder's short answers to longer requests; between bulk senders, one chosen because it answered, or because the peer's next message acknowledged its data), or a client sent under 4 KB in messages its peer only acknowledged; read with the other endpoint as the sender, the cause may differ" },
    { "pending-request", "the receiver sent new data while its own request was still unanswered: it needed no answer (client-idle), or it gave up waiting (the server's wait); the packets do not tell which" },
};

const char *tapo_caveat_name(tapo_caveat bit)
{
    for (unsigned i = 0; i < TAPO_CAVEAT_COUNT_BITS; i++)
        if (bit == (tapo_caveat)(1u << i))
            return caveats[i].name;
    return "";
}

const char *tapo_caveat_text(tapo_caveat bit)
{
    for (unsigned i = 0; i < TAPO_CAVEAT_COUNT_BITS; i++)
        if (bit == (tapo_caveat)(1u << i))
            return caveats[i].text;
    return "";
}

static const char *const phase_names[TAPO_PHASE_COUNT] = { "handshake", "data", "teardown" };

const char *tapo_phase_name(tapo_phase phase)
{
    return (unsigned)phase < TAPO_PHASE_COUNT ? phase_names[phase] : "data";
}
