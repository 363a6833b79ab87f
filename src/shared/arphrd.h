/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/* The name of a link type (ifi_type, an ARPHRD_* value) into buf, cut to size - 1 characters:
 * as libnl-3.7's nl_llproto2str() spelled it, since that is what [Match] Type= and the Type
 * property have always said ("ether", "loopback", "nohdr" for ARPHRD_NONE…), and "0x%x" for a
 * type it did not know. */
void arphrd_format(unsigned short type, char *buf, size_t size);
