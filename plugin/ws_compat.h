/* ws_compat.h: the only place that knows Wireshark versions differ.
 *
 * The same source builds against Wireshark 4.0 (Debian 12), 4.2, 4.4 and
 * 4.6; every difference found is shimmed here by a feature test, never by
 * guessing from version numbers where a feature test works
 * (see ../shared/docs/wireshark-sdk-notes.md section 1).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_WS_COMPAT_H
#define TAPO_WS_COMPAT_H

#define WS_BUILD_DLL
/* TAPO's messages, in Wireshark's log: --log-debug TAPO shows every
 * verdict rendered (tests read it). */
#define WS_LOG_DOMAIN "TAPO"
#include <wireshark.h>
#include <ws_version.h>

#include <epan/proto.h>

/* field_info::value is an embedded fvalue_t in 4.0 and a pointer from 4.2
 * or 4.4 on: one expression gives a pointer either way (needs C11). */
#define TAPO_FI_VALUE(fi) \
    _Generic((fi)->value, fvalue_t *: (fi)->value, default: &(fi)->value)

/* Boolean preferences point at a gboolean in 4.0 and at a bool from 4.4
 * (prefs.h lost its glib types): a union holds either, and the prototype
 * this Wireshark has picks the member (C11 _Generic on its type). */
#include <epan/prefs.h>
typedef union tapo_bool_pref {
    gboolean g;
    bool b;
} tapo_bool_pref;
#define TAPO_PREFS_BOOL_USES_BOOL(then, otherwise) \
    _Generic(&prefs_register_bool_preference, \
             void (*)(module_t *, const char *, const char *, const char *, bool *): (then), \
             default: (otherwise))
#define TAPO_BOOL_PREF_PTR(u) TAPO_PREFS_BOOL_USES_BOOL(&(u)->b, &(u)->g)
#define TAPO_BOOL_PREF_VALUE(u) TAPO_PREFS_BOOL_USES_BOOL((u)->b, (u)->g != 0)

/* Other differences need no shim: the statistics tree has a flat name
 * (no "/" or "//" menu separator, which changed in 4.4), and return values
 * that became non-void (stats_tree_register_plugin in 4.4) are ignored. */

#endif /* TAPO_WS_COMPAT_H */
