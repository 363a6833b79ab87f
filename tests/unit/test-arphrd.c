/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <linux/if_arp.h>

#include "arphrd.h"
#include "macro.h"

/* The names libnl-3.7's nl_llproto2str() gave (compared for every type when the table was
 * taken over), in a buffer of Link's size (20). */
static const struct {
        unsigned short type;
        const char *name;
} cases[] = {
        { 0, "generic" },
        { ARPHRD_ETHER, "ether" },
        { ARPHRD_LOOPBACK, "loopback" },
        { ARPHRD_NONE, "nohdr" }, /* tun: not networkctl's "none" */
        { ARPHRD_VOID, "void" },
        { ARPHRD_TUNNEL, "ipip" },
        { ARPHRD_IPGRE, "gre" },
        { ARPHRD_CISCO, "cisco" },
        { ARPHRD_FCFABRIC, "fcfb_0" },
        { ARPHRD_FCFABRIC + 12, "fcfb_12" },
        { ARPHRD_IEEE802_TR, "tr" },
        { ARPHRD_IEEE802154_MONITOR, "ieee802.15.4_monito" }, /* cut to 19 characters */
        { ARPHRD_RAWIP, "0x207" },                            /* newer than libnl's table */
        { 9, "0x9" },
};

Test(arphrd, table)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[20];

                arphrd_format(cases[i].type, buf, sizeof buf);
                cr_expect_str_eq(buf, cases[i].name, "type %u", cases[i].type);
        }
}
