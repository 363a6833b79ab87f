/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/* The name of a link type (ifi_type, an ARPHRD_* value) into buf, cut to size - 1 characters:
 * as networkctl(1) prints it and [Match] Type= takes it, the constant's name lowercased
 * ("ether", "loopback", "none" for tun…), and "0x%x" for a type <linux/if_arp.h> does not name. */
void arphrd_format(unsigned short type, char *buf, size_t size);
