/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Link type names, made at build time from <linux/if_arp.h> (arphrd-names.sh), as systemd makes
 * the ones networkctl(1) prints.
 */

#include <stdio.h>

#include "arphrd.h"
#include "macro.h"

static const struct {
        unsigned short type;
        const char *name;
} arphrd_names[] = {
#include "arphrd-names.h"
};

void arphrd_format(unsigned short type, char *buf, size_t size)
{
        for (size_t i = 0; i < ELEMENTSOF(arphrd_names); i++)
                if (arphrd_names[i].type == type) {
                        snprintf(buf, size, "%s", arphrd_names[i].name);
                        return;
                }
        snprintf(buf, size, "0x%x", type);
}
