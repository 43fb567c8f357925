/* tapo_prefs.h: TAPO's Wireshark preferences, registered from the core's
 * table (core/base/preferences.h), and the configuration they make.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_PREFS_H
#define TAPO_PREFS_H

#include <stdbool.h>

#include "base/config.h"

/* Registers the preferences of protocol proto; whenever Wireshark applies
 * them, cfg is rebuilt from them. */
void tapo_prefs_register(int proto, tapo_config *cfg);

/* Rebuilds the configuration from the preferences now. */
void tapo_prefs_apply(void);

/* tapo.analyse: analyse every capture, asked for or not. */
bool tapo_prefs_analyse_always(void);

#endif /* TAPO_PREFS_H */
