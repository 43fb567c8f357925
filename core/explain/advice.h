/* advice.h: a stall's hint in an operator's words (tapo.stall.hint): what
 * to check or change, on which machine.
 *
 * The cause's advice (vocabulary.h) names the machines as {sender} and
 * {receiver}; they become "the server 192.0.2.1:443" or "the client
 * 198.51.100.7:51234" by their role in the connection (roles.h), or "the
 * server" and "the client" where the addresses are not known; {duration},
 * the stall's ("0.512 s").  Handshake
 * retries have their own advice: an unanswered SYN is the server's (or a
 * filter's) to explain, and a FIN resent alone says the other end went
 * silent.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_ADVICE_H
#define TAPO_ADVICE_H

#include "roles/roles.h"
#include "record/stall.h"

#define TAPO_HINT_LINE_MAX 512   /* bytes */

/* The hint of verdict v into line; names may be NULL. */
void tapo_advice(const tapo_verdict *v, const tapo_conv_summary *sum, const tapo_endpoint_names *names,
                 char line[TAPO_HINT_LINE_MAX]);

/* An endpoint as an operator names it: "the client 198.51.100.7:51234". */
void tapo_role_phrase(const tapo_conv_summary *sum, const tapo_endpoint_names *names, int endpoint,
                      char out[TAPO_ENDPOINT_NAME_MAX + 16]);

#endif /* TAPO_ADVICE_H */
