/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* igmpd --restore: with the daemon stopped for good (a package removal), writes back the knob
 * values found before igmpd changed them, from the record its last run kept (see
 * originals.h): only on links still there under the same index and name, and only where the
 * knob still holds what igmpd wrote. Prints one line per knob. Returns 0, 1 if a write failed,
 * or -errno. */
int restore_run(Manager *m);
