/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Link type names: the table igmpd took over with libnl-3's, unchanged.
 */

#include <linux/if_arp.h>
#include <stdio.h>

#include "arphrd.h"
#include "macro.h"

static const struct {
        unsigned short type;
        const char *name;
} arphrd_names[] = {
        { ARPHRD_NETROM, "generic" },
        { ARPHRD_ETHER, "ether" },
        { ARPHRD_EETHER, "eether" },
        { ARPHRD_AX25, "ax25" },
        { ARPHRD_PRONET, "pronet" },
        { ARPHRD_CHAOS, "chaos" },
        { ARPHRD_IEEE802, "ieee802" },
        { ARPHRD_ARCNET, "arcnet" },
        { ARPHRD_APPLETLK, "atalk" },
        { ARPHRD_DLCI, "dlci" },
        { ARPHRD_ATM, "atm" },
        { ARPHRD_METRICOM, "metricom" },
        { ARPHRD_IEEE1394, "ieee1394" },
        { ARPHRD_EUI64, "eui64" },
        { ARPHRD_INFINIBAND, "infiniband" },
        { ARPHRD_SLIP, "slip" },
        { ARPHRD_CSLIP, "cslip" },
        { ARPHRD_SLIP6, "slip6" },
        { ARPHRD_CSLIP6, "cslip6" },
        { ARPHRD_RSRVD, "rsrvd" },
        { ARPHRD_ADAPT, "adapt" },
        { ARPHRD_ROSE, "rose" },
        { ARPHRD_X25, "x25" },
        { ARPHRD_HWX25, "hwx25" },
        { ARPHRD_CAN, "can" },
        { ARPHRD_PPP, "ppp" },
        { ARPHRD_CISCO, "cisco" },
        { ARPHRD_LAPB, "lapb" },
        { ARPHRD_DDCMP, "ddcmp" },
        { ARPHRD_RAWHDLC, "rawhdlc" },
        { ARPHRD_TUNNEL, "ipip" },
        { ARPHRD_TUNNEL6, "tunnel6" },
        { ARPHRD_FRAD, "frad" },
        { ARPHRD_SKIP, "skip" },
        { ARPHRD_LOOPBACK, "loopback" },
        { ARPHRD_LOCALTLK, "localtlk" },
        { ARPHRD_FDDI, "fddi" },
        { ARPHRD_BIF, "bif" },
        { ARPHRD_SIT, "sit" },
        { ARPHRD_IPDDP, "ip/ddp" },
        { ARPHRD_IPGRE, "gre" },
        { ARPHRD_PIMREG, "pimreg" },
        { ARPHRD_HIPPI, "hippi" },
        { ARPHRD_ASH, "ash" },
        { ARPHRD_ECONET, "econet" },
        { ARPHRD_IRDA, "irda" },
        { ARPHRD_FCPP, "fcpp" },
        { ARPHRD_FCAL, "fcal" },
        { ARPHRD_FCPL, "fcpl" },
        /* ARPHRD_FCFABRIC + 0 … 12: "fcfb_0" … "fcfb_12", below */
        { ARPHRD_IEEE802_TR, "tr" },
        { ARPHRD_IEEE80211, "ieee802.11" },
        { ARPHRD_IEEE80211_PRISM, "ieee802.11_prism" },
        { ARPHRD_IEEE80211_RADIOTAP, "ieee802.11_radiotap" },
        { ARPHRD_IEEE802154, "ieee802.15.4" },
        { ARPHRD_IEEE802154_MONITOR, "ieee802.15.4_monitor" },
        { ARPHRD_PHONET, "phonet" },
        { ARPHRD_PHONET_PIPE, "phonet_pipe" },
        { ARPHRD_CAIF, "caif" },
        { ARPHRD_IP6GRE, "ip6gre" },
        { ARPHRD_NETLINK, "netlink" },
        { ARPHRD_6LOWPAN, "6lowpan" },
        { ARPHRD_NONE, "nohdr" },
        { ARPHRD_VOID, "void" },
};

void arphrd_format(unsigned short type, char *buf, size_t size)
{
        for (size_t i = 0; i < ELEMENTSOF(arphrd_names); i++)
                if (arphrd_names[i].type == type) {
                        snprintf(buf, size, "%s", arphrd_names[i].name);
                        return;
                }
        if (type >= ARPHRD_FCFABRIC && type <= ARPHRD_FCFABRIC + 12)
                snprintf(buf, size, "fcfb_%d", type - ARPHRD_FCFABRIC);
        else
                snprintf(buf, size, "0x%x", type);
}
