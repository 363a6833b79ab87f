/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * set-inet-conf: sets one IPv4 per-link devconf value over rtnetlink — RTM_SETLINK with
 * IFLA_AF_SPEC → AF_INET → IFLA_INET_CONF — instead of writing /proc/sys, the path a
 * cgroup/sysctl program never sees (the drift tests).
 *
 *   set-inet-conf IFNAME force_igmp_version|igmpv2_unsolicited_report_interval|
 *                 igmpv3_unsolicited_report_interval VALUE
 *
 * Exits 0 once the kernel acknowledged the change.
 */

#include <errno.h>
#include <linux/ip.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const struct {
        const char *name;
        int id;
} knobs[] = {
        { "force_igmp_version", IPV4_DEVCONF_FORCE_IGMP_VERSION },
        { "igmpv2_unsolicited_report_interval", IPV4_DEVCONF_IGMPV2_UNSOLICITED_REPORT_INTERVAL },
        { "igmpv3_unsolicited_report_interval", IPV4_DEVCONF_IGMPV3_UNSOLICITED_REPORT_INTERVAL },
};

typedef struct Request {
        struct nlmsghdr h;
        struct ifinfomsg ifi;
        char attrs[256];
} Request;

/* Opens a nested attribute at the end of the message; close it with nest_end(). */
static struct rtattr *nest_begin(Request *req, unsigned short type)
{
        struct rtattr *a = (struct rtattr *) ((char *) req + NLMSG_ALIGN(req->h.nlmsg_len));

        a->rta_type = type;
        a->rta_len = RTA_LENGTH(0);
        req->h.nlmsg_len = NLMSG_ALIGN(req->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
        return a;
}

static void nest_end(Request *req, struct rtattr *a)
{
        a->rta_len = (unsigned short) ((char *) req + req->h.nlmsg_len - (char *) a);
}

static void put_u32(Request *req, unsigned short type, unsigned v)
{
        struct rtattr *a = (struct rtattr *) ((char *) req + NLMSG_ALIGN(req->h.nlmsg_len));

        a->rta_type = type;
        a->rta_len = RTA_LENGTH(sizeof v);
        memcpy(RTA_DATA(a), &v, sizeof v);
        req->h.nlmsg_len = NLMSG_ALIGN(req->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

int main(int argc, char *argv[])
{
        Request req = {};
        struct rtattr *spec, *inet, *conf;
        char reply[1024];
        unsigned ifindex;
        unsigned long v;
        char *end;
        int id = 0, fd, err;
        ssize_t n;

        if (argc != 4) {
                fprintf(stderr, "usage: %s IFNAME KNOB VALUE\n", argv[0]);
                return 2;
        }
        for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
                if (strcmp(knobs[i].name, argv[2]) == 0)
                        id = knobs[i].id;
        errno = 0;
        v = strtoul(argv[3], &end, 10);
        if (!id || errno || *end || end == argv[3] || v > 0xffffffffUL) {
                fprintf(stderr, "%s: unknown knob or bad value\n", argv[0]);
                return 2;
        }
        ifindex = if_nametoindex(argv[1]);
        if (!ifindex) {
                perror(argv[1]);
                return 1;
        }

        req.h.nlmsg_len = NLMSG_LENGTH(sizeof req.ifi);
        req.h.nlmsg_type = RTM_SETLINK;
        req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        req.h.nlmsg_seq = 1;
        req.ifi.ifi_family = AF_UNSPEC;
        req.ifi.ifi_index = (int) ifindex;
        spec = nest_begin(&req, IFLA_AF_SPEC);
        inet = nest_begin(&req, AF_INET);
        conf = nest_begin(&req, IFLA_INET_CONF);
        put_u32(&req, (unsigned short) id, (unsigned) v);
        nest_end(&req, conf);
        nest_end(&req, inet);
        nest_end(&req, spec);

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (fd < 0 || send(fd, &req, req.h.nlmsg_len, 0) < 0) {
                perror("netlink");
                return 1;
        }
        n = recv(fd, reply, sizeof reply, 0);
        if (n < (ssize_t) NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
            ((struct nlmsghdr *) reply)->nlmsg_type != NLMSG_ERROR) {
                fprintf(stderr, "%s: no acknowledgement from the kernel\n", argv[0]);
                return 1;
        }
        err = ((struct nlmsgerr *) NLMSG_DATA((struct nlmsghdr *) reply))->error;
        if (err < 0) {
                fprintf(stderr, "RTM_SETLINK %s %s=%lu: %s\n", argv[1], argv[2], v, strerror(-err));
                return 1;
        }
        close(fd);
        return 0;
}
