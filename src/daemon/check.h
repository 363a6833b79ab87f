/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* igmpd --check: parse everything as the daemon would, list links with the effective value and
 * source of every knob, change nothing. Returns 0 if the configuration had no problems, 1 if it
 * had some, or -errno. */
int check_run(Manager *m);
