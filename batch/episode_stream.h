/* episode_stream.h: episodes (episodes.h) found as stalls come, for runs
 * that never end (live, or from a pipe), in bounded memory.
 *
 * A capture file's episodes are found at its end, over all its stalls.  A
 * stream keeps only the stalls that may still be part of an episode: when
 * the capture's clock has passed a point that no kept stall's gap (widened
 * by the episode slack) spans, by more than the horizon, the stalls before
 * that point are grouped as the whole capture's would be, their episodes
 * given out and the stalls dropped.  Stalls reach the stream as their rows
 * are written (settle seconds after they end), so a horizon of the settle
 * time plus the longest stall expected loses nothing: a stall longer than
 * that which began before the point joins the episodes after it only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_EPISODE_STREAM_H
#define TAPO_EPISODE_STREAM_H

#include <glib.h>

#include "incidents/episodes.h"
#include "rows.h"

typedef struct tapo_episode_stream tapo_episode_stream;

tapo_episode_stream *tapo_episode_stream_new(unsigned min_connections, double horizon_s);
void tapo_episode_stream_free(tapo_episode_stream *es);

/* A stall (its keys are copied), and where its row is (file must outlive
 * the stream). */
void tapo_episode_stream_add(tapo_episode_stream *es, const tapo_episode_stall *s, const char *file,
                             uint32_t frame);

/* An episode found, numbered from 1 in the stream, with its stalls. */
typedef void (*tapo_episode_found)(void *ctx, const tapo_episode *e, const tapo_row_member *members,
                                   guint count);

/* Groups the stalls that can no longer change at now_s (seconds on the
 * stalls' clock), or every stall kept (all: the capture ended), and gives
 * out their episodes in order of start. */
void tapo_episode_stream_close(tapo_episode_stream *es, double now_s, bool all, tapo_episode_found found,
                               void *ctx);

/* Stalls kept, count. */
guint tapo_episode_stream_kept(const tapo_episode_stream *es);

#endif /* TAPO_EPISODE_STREAM_H */
