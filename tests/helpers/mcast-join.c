/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mcast-join: joins COUNT multicast groups on one interface, one after the other, so that every
 * join makes the kernel start a fresh series of unsolicited membership reports.
 *
 *   mcast-join -4|-6 IFNAME GROUP COUNT HOLD_MS PAUSE_MS
 *
 * Join i (counting from 0) is of GROUP + i (i added to the low 16 bits of the address), is held
 * HOLD_MS, then left, then PAUSE_MS pass before the next join. A distinct group per join keeps
 * the reports of one join apart from the leave records of the previous one; HOLD_MS longer than
 * the report interval lets all retransmissions of a join go out before the next join restarts
 * the interface's report timer. Every join and leave is printed on stdout as
 *
 *   join|leave MONOTONIC_US IFNAME GROUP
 *
 * with the time read just before the setsockopt() call, so a capture on the same machine
 * (CLOCK_MONOTONIC is not per namespace) can attribute reports to joins.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static void sleep_ms(unsigned ms)
{
        struct timespec ts = {
                .tv_sec = ms / 1000,
                .tv_nsec = (long) (ms % 1000) * 1000000L,
        };

        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
                ;
}

static int parse_uint(const char *s, unsigned max, unsigned *ret)
{
        unsigned long v;
        char *end;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > max)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

/* Adds n to the low 16 bits of the group; the rest of the address stays as given. */
static void group_nth(int family, const void *base, unsigned n, void *ret)
{
        if (family == AF_INET) {
                struct in_addr a = *(const struct in_addr *) base;
                uint32_t h = ntohl(a.s_addr);

                h = (h & 0xffff0000u) | ((h + n) & 0xffffu);
                a.s_addr = htonl(h);
                *(struct in_addr *) ret = a;
        } else {
                struct in6_addr a = *(const struct in6_addr *) base;
                unsigned low = ((unsigned) a.s6_addr[14] << 8 | a.s6_addr[15]) + n;

                a.s6_addr[14] = (uint8_t) (low >> 8);
                a.s6_addr[15] = (uint8_t) low;
                *(struct in6_addr *) ret = a;
        }
}

static int membership(int fd, int family, unsigned ifindex, const void *group, bool join)
{
        int r;

        if (family == AF_INET) {
                struct ip_mreqn mr = {
                        .imr_multiaddr = *(const struct in_addr *) group,
                        .imr_ifindex = (int) ifindex,
                };

                r = setsockopt(fd, IPPROTO_IP, join ? IP_ADD_MEMBERSHIP : IP_DROP_MEMBERSHIP, &mr,
                               sizeof(mr));
        } else {
                struct ipv6_mreq mr = {
                        .ipv6mr_multiaddr = *(const struct in6_addr *) group,
                        .ipv6mr_interface = ifindex,
                };

                r = setsockopt(fd, IPPROTO_IPV6, join ? IPV6_JOIN_GROUP : IPV6_LEAVE_GROUP, &mr,
                               sizeof(mr));
        }
        return r < 0 ? -errno : 0;
}

static void usage(FILE *f)
{
        fprintf(f, "Usage: mcast-join -4|-6 IFNAME GROUP COUNT HOLD_MS PAUSE_MS\n"
                   "Joins GROUP, GROUP+1, ... GROUP+COUNT-1 on IFNAME one after the other, each\n"
                   "held HOLD_MS then left, PAUSE_MS apart; prints 'join|leave USEC IFNAME GROUP'.\n");
}

int main(int argc, char *argv[])
{
        union {
                struct in_addr v4;
                struct in6_addr v6;
        } base, group;
        char text[INET6_ADDRSTRLEN];
        unsigned ifindex, count, hold_ms, pause_ms;
        const char *ifname;
        int family, fd, r;

        if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
                usage(stdout);
                return 0;
        }
        if (argc != 7) {
                usage(stderr);
                return 2;
        }

        if (strcmp(argv[1], "-4") == 0)
                family = AF_INET;
        else if (strcmp(argv[1], "-6") == 0)
                family = AF_INET6;
        else {
                usage(stderr);
                return 2;
        }

        ifname = argv[2];
        ifindex = if_nametoindex(ifname);
        if (ifindex == 0) {
                fprintf(stderr, "mcast-join: no interface '%s': %m\n", ifname);
                return 1;
        }
        if (inet_pton(family, argv[3], &base) != 1) {
                fprintf(stderr, "mcast-join: '%s' is not an IPv%c address\n", argv[3],
                        family == AF_INET ? '4' : '6');
                return 2;
        }
        if (family == AF_INET ? !IN_MULTICAST(ntohl(base.v4.s_addr)) : !IN6_IS_ADDR_MULTICAST(&base.v6)) {
                fprintf(stderr, "mcast-join: '%s' is not a multicast group\n", argv[3]);
                return 2;
        }
        if (parse_uint(argv[4], 65535, &count) < 0 || count == 0 ||
            parse_uint(argv[5], INT_MAX / 1000, &hold_ms) < 0 ||
            parse_uint(argv[6], INT_MAX / 1000, &pause_ms) < 0) {
                fprintf(stderr, "mcast-join: COUNT must be 1..65535, HOLD_MS and PAUSE_MS non-negative\n");
                return 2;
        }

        fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
                fprintf(stderr, "mcast-join: socket: %m\n");
                return 1;
        }

        setvbuf(stdout, NULL, _IOLBF, 0);

        for (unsigned i = 0; i < count; i++) {
                uint64_t t;

                group_nth(family, &base, i, &group);
                inet_ntop(family, &group, text, sizeof(text));

                t = now_us();
                r = membership(fd, family, ifindex, &group, true);
                if (r < 0) {
                        fprintf(stderr, "mcast-join: cannot join %s on %s: %s\n", text, ifname,
                                strerror(-r));
                        return 1;
                }
                printf("join %" PRIu64 " %s %s\n", t, ifname, text);
                sleep_ms(hold_ms);

                t = now_us();
                r = membership(fd, family, ifindex, &group, false);
                if (r < 0) {
                        fprintf(stderr, "mcast-join: cannot leave %s on %s: %s\n", text, ifname,
                                strerror(-r));
                        return 1;
                }
                printf("leave %" PRIu64 " %s %s\n", t, ifname, text);
                if (i + 1 < count)
                        sleep_ms(pause_ms);
        }

        close(fd);
        return 0;
}
