/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd's D-Bus errors; see bus-error.h.
 */

#include <errno.h>

#include "bus-error.h"

const sd_bus_error_map bus_igmpd_errors[] = {
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SUCH_LINK, ENODEV),
        SD_BUS_ERROR_MAP(BUS_ERROR_INVALID_ARGUMENT, EINVAL),
        SD_BUS_ERROR_MAP(BUS_ERROR_UNSUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP_END,
};
