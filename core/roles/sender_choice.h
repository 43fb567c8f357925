/* sender_choice.h: which endpoint of a connection is analysed as the sender
 * (spec section 1): forced by a preference, or chosen from the data.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SENDER_CHOICE_H
#define TAPO_SENDER_CHOICE_H

#include <stdbool.h>

#include "base/config.h"
#include "record/stall.h"

/* A forced sender whose peer sent more than this many times its payload,
 * and at least TAPO_REVERSED_MIN_BYTES, is probably the wrong endpoint. */
#define TAPO_REVERSED_RATIO 4
#define TAPO_REVERSED_MIN_BYTES 65536

/* The endpoint analysed as the sender now (one pass: so far; at the end of
 * the capture: with hindsight), and how it was chosen.  rec, when given,
 * lets a stall of a connection where both endpoints send bulk data be
 * analysed from the side whose data was in flight. */
int tapo_conv_sender(const tapo_conv_summary *sum, const tapo_config *cfg,
                     const tapo_stall_record *rec, tapo_basis *basis);

/* True when a forced sender's peer sent much more payload: the capture is
 * probably an upload and the preference is wrong. */
bool tapo_conv_sender_looks_reversed(const tapo_conv_summary *sum, int sender,
                                     const tapo_config *cfg);

/* True when the data did not settle which endpoint is the sender, and its
 * role, not the stall (view: the sender's own copy ended it) or a
 * preference, chose it (basis): it sent less payload than its peer (a
 * responder's short answers to longer requests, under the upload floor),
 * or it is the client, chosen under the upload floor by its unanswered
 * messages alone.  The verdict then rests on that reading (caveat
 * sender-choice). */
bool tapo_conv_sender_uncertain(const tapo_conv_summary *sum, int sender, tapo_basis basis,
                                const tapo_stall_view *view);

#endif /* TAPO_SENDER_CHOICE_H */
