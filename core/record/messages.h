/* messages.h: who answers whom, counted in messages.
 *
 * A message is a run of an endpoint's new payload that no packet of its
 * peer interrupts (a request, a response's flight, a heartbeat).  Whether
 * the peer answers an endpoint's messages with payload of its own tells a
 * request (answered) from data pushed to a peer that only acknowledges it
 * (an upload, reports, heartbeats): roles/sender_choice.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_MESSAGES_H
#define TAPO_MESSAGES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tapo_message_counts {
    uint32_t messages[2];         /* each endpoint's messages, count */
    uint32_t answered[2];         /* of which the peer answered with payload before the endpoint's next, count */
} tapo_message_counts;

typedef struct tapo_message_tracker {
    tapo_message_counts counts;
    int8_t run_from;              /* the endpoint whose message the next payload may continue; -1 none */
    int8_t last_from;             /* the endpoint that sent the latest message; -1 none */
} tapo_message_tracker;

void tapo_messages_init(tapo_message_tracker *m);

/* A packet of endpoint 'from', carrying new payload or not. */
void tapo_messages_packet(tapo_message_tracker *m, int from, bool new_payload);

/* Continues counting after the state was dropped (tapo_conv_resume). */
void tapo_messages_resume(tapo_message_tracker *m, const tapo_message_counts *counts);

#endif /* TAPO_MESSAGES_H */
