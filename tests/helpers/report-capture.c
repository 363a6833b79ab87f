/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report-capture: prints the IGMP and MLD messages seen on some interfaces, one line each.
 *
 *   report-capture [-t TIMEOUT_MS] [-c COUNT] [-q] IFNAME...
 *
 * One AF_PACKET socket (SOCK_DGRAM, ETH_P_ALL) sees every IPv4 and IPv6 packet the named
 * interfaces receive, router-alert options and hop-by-hop headers included. Packets the
 * interfaces send themselves are skipped. Each message is printed as
 *
 *   USEC IFNAME KIND [ITEM...]
 *
 * USEC is the kernel's receive timestamp (SO_TIMESTAMPNS) moved onto CLOCK_MONOTONIC, in µs, so
 * it does not include this program's scheduling delay and compares with mcast-join's times.
 * KIND and ITEMs:
 *   igmpv3-report  RTYPE:GROUP[/NSRC]...   (0x22; RTYPE IS_IN IS_EX TO_IN TO_EX ALLOW BLOCK)
 *   igmpv2-report  GROUP                   (0x16)
 *   igmpv1-report  GROUP                   (0x12)
 *   igmp-leave     GROUP                   (0x17)
 *   igmp-query     GROUP                   (0x11, only without -q)
 *   mldv2-report   RTYPE:GROUP[/NSRC]...   (ICMPv6 143)
 *   mldv1-report   GROUP                   (ICMPv6 131)
 *   mld-done       GROUP                   (ICMPv6 132)
 *   mld-query      GROUP                   (ICMPv6 130, only without -q)
 * A join of an any-source group is a TO_EX record with no sources, its leave a TO_IN record
 * with no sources. "# listening on ..." is printed once the socket is ready; the program stops
 * after TIMEOUT_MS, after COUNT messages, or on SIGINT/SIGTERM, and exits 0.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_IFACES 64
#define LINE_MAX_LEN 8192

static volatile sig_atomic_t stop;

static struct {
        unsigned index;
        const char *name;
} ifaces[MAX_IFACES];
static unsigned n_ifaces;

static void on_signal(int sig)
{
        (void) sig;
        stop = 1;
}

static int64_t ts_us(clockid_t clk)
{
        struct timespec ts;

        clock_gettime(clk, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int parse_uint(const char *s, unsigned *ret)
{
        unsigned long v;
        char *end;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > INT_MAX)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

static const char *iface_name(unsigned index)
{
        for (unsigned i = 0; i < n_ifaces; i++)
                if (ifaces[i].index == index)
                        return ifaces[i].name;
        return NULL;
}

static const char *rtype_name(uint8_t t)
{
        static const char *const names[] = {
                [1] = "IS_IN", [2] = "IS_EX", [3] = "TO_IN", [4] = "TO_EX", [5] = "ALLOW", [6] = "BLOCK",
        };

        if (t < sizeof(names) / sizeof(names[0]) && names[t])
                return names[t];
        return "UNKNOWN";
}

/* Appends printf output to a fixed line buffer; silently truncates (lines are bounded). */
static void append(char *buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t *len, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (*len >= LINE_MAX_LEN)
                return;
        va_start(ap, fmt);
        n = vsnprintf(buf + *len, LINE_MAX_LEN - *len, fmt, ap);
        va_end(ap);
        if (n > 0)
                *len = *len + (size_t) n < LINE_MAX_LEN ? *len + (size_t) n : LINE_MAX_LEN;
}

/*
 * Group records of an IGMPv3 (addr_len 4) or MLDv2 (16) report: type, aux words, number of
 * sources, group, sources, aux data. Returns false if the message is truncated.
 */
static bool append_records(char *buf, size_t *len, int family, const uint8_t *p, size_t n, unsigned nrec)
{
        size_t addr_len = family == AF_INET ? 4 : 16;
        char text[INET6_ADDRSTRLEN];

        for (unsigned i = 0; i < nrec; i++) {
                size_t rec_len;
                unsigned nsrc;

                if (n < 4 + addr_len)
                        return false;
                nsrc = (unsigned) p[2] << 8 | p[3];
                rec_len = 4 + addr_len + nsrc * addr_len + (size_t) p[1] * 4;
                if (n < rec_len)
                        return false;
                inet_ntop(family, p + 4, text, sizeof(text));
                append(buf, len, " %s:%s", rtype_name(p[0]), text);
                if (nsrc > 0)
                        append(buf, len, "/%u", nsrc);
                p += rec_len;
                n -= rec_len;
        }
        return true;
}

/* IGMP message (after the IPv4 header). Returns false if it is not one to print. */
static bool format_igmp(char *buf, size_t *len, const uint8_t *p, size_t n, bool queries)
{
        char text[INET_ADDRSTRLEN];

        if (n < 8)
                return false;
        inet_ntop(AF_INET, p + 4, text, sizeof(text));
        switch (p[0]) {
        case 0x22:
                append(buf, len, "igmpv3-report");
                return append_records(buf, len, AF_INET, p + 8, n - 8, (unsigned) p[6] << 8 | p[7]);
        case 0x16:
                append(buf, len, "igmpv2-report %s", text);
                return true;
        case 0x12:
                append(buf, len, "igmpv1-report %s", text);
                return true;
        case 0x17:
                append(buf, len, "igmp-leave %s", text);
                return true;
        case 0x11:
                if (!queries)
                        return false;
                append(buf, len, "igmp-query %s", text);
                return true;
        default:
                return false;
        }
}

static bool format_ipv4(char *buf, size_t *len, const uint8_t *p, size_t n, bool queries)
{
        size_t ihl, tot;

        if (n < 20 || (p[0] >> 4) != 4)
                return false;
        ihl = (size_t) (p[0] & 0x0f) * 4;
        tot = (size_t) p[2] << 8 | p[3];
        if (ihl < 20 || tot < ihl || tot > n)
                return false;
        if (p[9] != IPPROTO_IGMP)
                return false;
        /* A fragment other than the first holds no IGMP header. */
        if ((((unsigned) p[6] << 8 | p[7]) & 0x1fff) != 0)
                return false;
        return format_igmp(buf, len, p + ihl, tot - ihl, queries);
}

static bool format_mld(char *buf, size_t *len, const uint8_t *p, size_t n, bool queries)
{
        char text[INET6_ADDRSTRLEN];

        if (n < 8)
                return false;
        if (p[0] == 143) {
                append(buf, len, "mldv2-report");
                return append_records(buf, len, AF_INET6, p + 8, n - 8, (unsigned) p[6] << 8 | p[7]);
        }
        if (n < 24)
                return false;
        inet_ntop(AF_INET6, p + 8, text, sizeof(text));
        switch (p[0]) {
        case 131:
                append(buf, len, "mldv1-report %s", text);
                return true;
        case 132:
                append(buf, len, "mld-done %s", text);
                return true;
        case 130:
                if (!queries)
                        return false;
                append(buf, len, "mld-query %s", text);
                return true;
        default:
                return false;
        }
}

static bool format_ipv6(char *buf, size_t *len, const uint8_t *p, size_t n, bool queries)
{
        size_t plen;
        uint8_t nh;

        if (n < 40 || (p[0] >> 4) != 6)
                return false;
        plen = (size_t) p[4] << 8 | p[5];
        if (40 + plen > n)
                return false;
        nh = p[6];
        p += 40;
        n = plen;

        /* MLD comes behind a hop-by-hop header carrying the router alert. */
        while (nh == 0 || nh == 43 || nh == 60) {
                size_t ext;

                if (n < 8)
                        return false;
                ext = ((size_t) p[1] + 1) * 8;
                if (ext > n)
                        return false;
                nh = p[0];
                p += ext;
                n -= ext;
        }
        if (nh != IPPROTO_ICMPV6)
                return false;
        return format_mld(buf, len, p, n, queries);
}

static void usage(FILE *f)
{
        fprintf(f, "Usage: report-capture [-t TIMEOUT_MS] [-c COUNT] [-q] IFNAME...\n"
                   "Prints one line per IGMP/MLD message received on the interfaces:\n"
                   "  USEC IFNAME KIND [RTYPE:GROUP[/NSRC]...]   (USEC: CLOCK_MONOTONIC)\n"
                   "  -t  stop after TIMEOUT_MS    -c  stop after COUNT messages\n"
                   "  -q  leave out queries\n");
}

int main(int argc, char *argv[])
{
        static uint8_t pkt[65536];
        unsigned timeout_ms = 0, max_count = 0, printed = 0;
        bool queries = true;
        struct sigaction sa = {
                .sa_handler = on_signal,
        };
        int64_t deadline = 0;
        int fd, one = 1, opt;

        while ((opt = getopt(argc, argv, "t:c:qh")) != -1) {
                switch (opt) {
                case 't':
                        if (parse_uint(optarg, &timeout_ms) < 0) {
                                fprintf(stderr, "report-capture: bad timeout '%s'\n", optarg);
                                return 2;
                        }
                        break;
                case 'c':
                        if (parse_uint(optarg, &max_count) < 0) {
                                fprintf(stderr, "report-capture: bad count '%s'\n", optarg);
                                return 2;
                        }
                        break;
                case 'q':
                        queries = false;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (optind >= argc || argc - optind > MAX_IFACES) {
                usage(stderr);
                return 2;
        }
        for (int i = optind; i < argc; i++) {
                ifaces[n_ifaces].name = argv[i];
                ifaces[n_ifaces].index = if_nametoindex(argv[i]);
                if (ifaces[n_ifaces].index == 0) {
                        fprintf(stderr, "report-capture: no interface '%s': %m\n", argv[i]);
                        return 1;
                }
                n_ifaces++;
        }

        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        setvbuf(stdout, NULL, _IOLBF, 0);

        fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ALL));
        if (fd < 0) {
                fprintf(stderr, "report-capture: AF_PACKET socket: %m\n");
                return 1;
        }
        if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) {
                fprintf(stderr, "report-capture: SO_TIMESTAMPNS: %m\n");
                return 1;
        }
        /* With one interface, let the kernel filter; with several, filter on sll_ifindex below. */
        if (n_ifaces == 1) {
                struct sockaddr_ll sll = {
                        .sll_family = AF_PACKET,
                        .sll_protocol = htons(ETH_P_ALL),
                        .sll_ifindex = (int) ifaces[0].index,
                };

                if (bind(fd, (struct sockaddr *) &sll, sizeof(sll)) < 0) {
                        fprintf(stderr, "report-capture: bind to %s: %m\n", ifaces[0].name);
                        return 1;
                }
        }

        printf("# listening on");
        for (unsigned i = 0; i < n_ifaces; i++)
                printf("%s%s", i ? "," : " ", ifaces[i].name);
        printf("\n");

        if (timeout_ms > 0)
                deadline = ts_us(CLOCK_MONOTONIC) + (int64_t) timeout_ms * 1000;

        while (!stop && (max_count == 0 || printed < max_count)) {
                union {
                        struct cmsghdr align;
                        char buf[CMSG_SPACE(sizeof(struct timespec))];
                } control;
                struct sockaddr_ll from;
                struct iovec iov = {
                        .iov_base = pkt,
                        .iov_len = sizeof(pkt),
                };
                struct msghdr msg = {
                        .msg_name = &from,
                        .msg_namelen = sizeof(from),
                        .msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = &control,
                        .msg_controllen = sizeof(control),
                };
                struct pollfd pfd = {
                        .fd = fd,
                        .events = POLLIN,
                };
                char line[LINE_MAX_LEN];
                int64_t t_us = 0, wait_ms = -1;
                const char *name;
                size_t len = 0;
                ssize_t n;
                bool ok;

                if (deadline > 0) {
                        int64_t left = deadline - ts_us(CLOCK_MONOTONIC);

                        if (left <= 0)
                                break;
                        wait_ms = (left + 999) / 1000;
                }
                if (poll(&pfd, 1, (int) wait_ms) < 0) {
                        if (errno == EINTR)
                                continue;
                        fprintf(stderr, "report-capture: poll: %m\n");
                        return 1;
                }
                if (!(pfd.revents & POLLIN))
                        continue;

                n = recvmsg(fd, &msg, MSG_DONTWAIT);
                if (n < 0) {
                        if (errno == EINTR || errno == EAGAIN)
                                continue;
                        fprintf(stderr, "report-capture: recvmsg: %m\n");
                        return 1;
                }
                if (from.sll_pkttype == PACKET_OUTGOING)
                        continue;
                name = iface_name((unsigned) from.sll_ifindex);
                if (!name)
                        continue;

                for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
                        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                                struct timespec ts;

                                memcpy(&ts, CMSG_DATA(c), sizeof(ts));
                                /* Realtime stamp onto the monotonic clock. */
                                t_us = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000 -
                                       (ts_us(CLOCK_REALTIME) - ts_us(CLOCK_MONOTONIC));
                        }
                if (t_us == 0)
                        t_us = ts_us(CLOCK_MONOTONIC);

                append(line, &len, "%" PRId64 " %s ", t_us, name);
                if (from.sll_protocol == htons(ETH_P_IP))
                        ok = format_ipv4(line, &len, pkt, (size_t) n, queries);
                else if (from.sll_protocol == htons(ETH_P_IPV6))
                        ok = format_ipv6(line, &len, pkt, (size_t) n, queries);
                else
                        ok = false;
                if (!ok)
                        continue;

                printf("%s\n", line);
                printed++;
        }

        fflush(stdout);
        close(fd);
        return 0;
}
