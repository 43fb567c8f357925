/* tapo_file.h: what TAPO knows of the open capture: its connections
 * (connection_table.h) and, for each frame analysed, what it renders.
 *
 * Frames are analysed in order, from frame 1, in one of two ways:
 *   - ahead: the capture file is read to its end with the frames library
 *     the first time TAPO is needed, so that every verdict rendered
 *     afterwards, in any pass, uses the whole capture (the GUI, tshark -2);
 *   - as Wireshark dissects them: one frame at a time, from its bytes, by
 *     the first pass over the capture that needs TAPO (tshark's single
 *     pass, a live capture, a file that cannot be read again).
 * Either way the frames go through the same table, so the verdicts are the
 * same.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_FILE_H
#define TAPO_FILE_H

#include "ws_compat.h"

#include <epan/packet.h>

#include "base/config.h"
#include "table/connection_table.h"
#include "tapo_frame_results.h"
#include "tapo_render.h"


/* A capture file is opened (the init routine) or closed (cleanup). */
void tapo_file_open(const tapo_config *cfg);
void tapo_file_close(void);

/* Frames 1 to this one are analysed. */
uint32_t tapo_file_analysed(void);

/* Analyses the next frame, as Wireshark dissects it. */
void tapo_file_analyse_frame(tvbuff_t *tvb, packet_info *pinfo);

/* Analyses the capture file at path from its first frame to its end
 * (nothing may be analysed yet); false, with nothing analysed, when it
 * cannot be read to its end. */
bool tapo_file_read_ahead(const char *path);

/* The whole capture has been analysed (read ahead, or tshark's first pass
 * is over): every connection ends, which settles every stall record. */
void tapo_file_input_ended(void);

/* What frame renders; NULL when nothing. */
const tapo_frame_result *tapo_file_frame(uint32_t frame);

/* The episode of the stall frame ends, grouping every stall of the file
 * with its final verdict (the first call groups them: the whole capture
 * must be analysed, as for any final verdict); NULL: none. */
const tapo_episode *tapo_file_episode(uint32_t frame);

#endif /* TAPO_FILE_H */
