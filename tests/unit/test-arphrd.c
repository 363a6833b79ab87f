/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <linux/if_arp.h>

#include "arphrd.h"
#include "macro.h"

/* The names networkctl(1) prints (the ARPHRD_* constant's name, lowercased), in a buffer of
 * Link's size (20). */
static const struct {
        unsigned short type;
        const char *name;
} cases[] = {
        { 0, "netrom" },
        { ARPHRD_ETHER, "ether" },
        { ARPHRD_LOOPBACK, "loopback" },
        { ARPHRD_NONE, "none" }, /* tun: libnl called it "nohdr", which Type=none never matched */
        { ARPHRD_VOID, "void" },
        { ARPHRD_TUNNEL, "tunnel" },
        { ARPHRD_IPGRE, "ipgre" },
        { ARPHRD_CISCO, "cisco" }, /* ARPHRD_HDLC is an alias */
        { ARPHRD_FCFABRIC, "fcfabric" },
        { ARPHRD_IEEE802_TR, "ieee802_tr" },
        { ARPHRD_IEEE802154_MONITOR, "ieee802154_monitor" },
        { ARPHRD_IEEE80211_RADIOTAP, "ieee80211_radiotap" },
        { ARPHRD_RAWIP, "rawip" },
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
