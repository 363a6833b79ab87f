/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * igmpd's own D-Bus error names and the errno each stands for. Registered with
 * sd_bus_error_add_map(), the table makes sd_bus_error_set*() and sd_bus_error_get_errno()
 * translate them like the standard names, in the daemon and in any client.
 */

#include <systemd/sd-bus.h>

#define BUS_ERROR_NO_SUCH_LINK "org.igmpd1.Error.NoSuchLink"
#define BUS_ERROR_INVALID_ARGUMENT "org.igmpd1.Error.InvalidArgument"
#define BUS_ERROR_UNSUPPORTED "org.igmpd1.Error.Unsupported"

extern const sd_bus_error_map bus_igmpd_errors[];
