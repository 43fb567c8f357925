/* html_points.h: the packets of the HTML report's worst connections, for
 * their time-sequence graphs (html.h).
 *
 * The analysis keeps no packets; the report reads the captures a second
 * time, for the worst connections alone: from each one's first frame to
 * its last packet, the data its sender sent and the ACKs that came back.
 * A graph keeps at most TAPO_HTML_POINTS points: past that, every other
 * packet is dropped (and then every fourth...), but never a frame a
 * verdict names (the packet that ended a stall, its evidence).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_HTML_POINTS_H
#define TAPO_HTML_POINTS_H

#include <glib.h>

#include "html.h"
#include "report.h"

/* One GArray of tapo_html_point for each of report's first
 * TAPO_HTML_WORST worst flows, in order (empty when the flow has no stall
 * in stalls or its capture cannot be read again: then *error says why,
 * the others are still read). */
GPtrArray *tapo_html_points_read(const tapo_report *report, const tapo_html_stalls *stalls, GError **error);

#endif /* TAPO_HTML_POINTS_H */
