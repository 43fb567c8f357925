/* verdict.h: the verdict on a stall record, with what was known at the
 * packet (one pass) or with the whole capture (two passes, spec section 6).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_VERDICT_H
#define TAPO_VERDICT_H

#include <stdbool.h>

#include "base/config.h"
#include "record/stall.h"

/* False when, for the sender chosen in that pass, the packet ends no stall
 * (or hindsight revoked it). */
bool tapo_conv_verdict(const tapo_conv_summary *sum, const tapo_stall_record *rec,
                       const tapo_config *cfg, bool final, tapo_verdict *v);

#endif /* TAPO_VERDICT_H */
