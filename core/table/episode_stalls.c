/* episode_stalls.c: see episode_stalls.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "table/episode_stalls.h"
#include "base/endpoint_pair.h"

#include "wire/endpoints.h"

void tapo_episode_connection_describe(tapo_connection *c, GStringChunk *chunk, tapo_episode_stall *out)
{
    const tapo_conv_summary *sum = tapo_table_summary(c);
    tapo_basis basis;
    int client = tapo_conv_client(sum, &basis);
    tapo_endpoint_names names;
    tapo_endpoint_names_of(&c->id.first, &names);
    char client_address[TAPO_ADDRESS_TEXT_MAX], prefix[TAPO_PREFIX_TEXT_MAX];
    uint16_t port;
    tapo_endpoint_address(&c->id.first, client, client_address, &port);
    *out = (tapo_episode_stall){ .connection = ((uint64_t)c->start.file << 32) | c->start.frame };
    out->keys[TAPO_SCOPE_SERVER] = g_string_chunk_insert_const(chunk, names.name[tapo_peer_of(client)]);
    out->keys[TAPO_SCOPE_CLIENT] = g_string_chunk_insert_const(chunk, client_address);
    tapo_endpoint_prefix(&c->id.first, client, prefix);
    out->keys[TAPO_SCOPE_CLIENT_PREFIX] = g_string_chunk_insert_const(chunk, prefix);
    tapo_endpoint_prefix(&c->id.first, tapo_peer_of(client), prefix);
    out->keys[TAPO_SCOPE_SERVER_PREFIX] = g_string_chunk_insert_const(chunk, prefix);
}

void tapo_episode_stall_place(const tapo_conn_stall *s, const tapo_verdict *v, tapo_episode_stall *out)
{
    out->end_s = s->place.epoch_s;
    out->start_s = s->place.epoch_s - v->duration_s;
    out->cause = v->cause;
    out->episode = 0;
}

void tapo_episode_stall_describe(tapo_connection *c, const tapo_conn_stall *s, const tapo_verdict *v,
                                 GStringChunk *chunk, tapo_episode_stall *out)
{
    tapo_episode_connection_describe(c, chunk, out);
    tapo_episode_stall_place(s, v, out);
}
