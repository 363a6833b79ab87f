/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the parts of the Manager's D-Bus face call of each other, and nobody else does:
 * manager-bus.c (the connection), manager-bus-vtable.c (org.igmpd1.Manager),
 * manager-bus-describe.c (Describe()'s JSON).
 *
 * It does not include manager-bus.h, so that manager-bus.c may include it without making a
 * circle (tests/style/check-include-graph.py counts manager-bus.c and manager-bus.h as one
 * module).
 */

#include "manager.h"

/* manager-bus-describe.c: the Describe() JSON (see there), in a string the caller frees.
 * 0 or -errno. */
int manager_describe(Manager *m, char **ret);
