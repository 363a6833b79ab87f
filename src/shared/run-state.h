/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The state of what igmpd runs when it is configured and can: an audit source, the drift watch. */

#include <errno.h>
#include "macro.h"

typedef enum RunState {
        RUN_STATE_OFF,      /* not configured (or not wanted on this kernel) */
        RUN_STATE_STARTING, /* waiting for the BPF helper */
        RUN_STATE_ACTIVE,
        RUN_STATE_INACTIVE, /* configured, but cannot run here: its note says why */
        _RUN_STATE_MAX,
        _RUN_STATE_INVALID = -EINVAL,
} RunState;

static inline const char *run_state_to_string(RunState s)
{
        static const char *const table[_RUN_STATE_MAX] = { "off", "starting", "active", "inactive" };

        return TABLE_NAME(table, s);
}
