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

/* True when the sender sent less payload than its peer and its role (the
 * responder, the server port), not the stall or a preference, chose it
 * (basis): a responder's short answers to longer requests, under the
 * upload floor.  The verdict then rests on that reading (caveat
 * sender-choice). */
bool tapo_conv_sender_lighter(const tapo_conv_summary *sum, int sender, tapo_basis basis);

#endif /* TAPO_SENDER_CHOICE_H */
