/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * upstream: a lossy stand-in for the upstream multicast router of an IPTV set-top box. It
 * listens on every interface of its network namespace; the first membership report for a group
 * that gets through "starts the stream" of that group. Each report is dropped with probability
 * p, so a join only completes when one of its unsolicited reports survives — which is what
 * makes the report interval matter after a lost join.
 *
 *   upstream [-s SEED] [-p P[,P...]] [-t TIMEOUT_MS]
 *
 * The drop probability of an interface named <letters><K> is the (K mod count)-th P (default
 * 0.3). Whether the n-th report for group G is dropped is decided by a hash of (SEED, G, n), so
 * a run repeats exactly whatever the order packets arrive in (this kernel has no netem).
 * A report counts for every join it carries: IGMPv1/v2 and MLDv1 reports, and IGMPv3/MLDv2
 * records of type IS_EX or TO_EX (an any-source join). Per report and group it prints
 *
 *   USEC IFNAME GROUP N accept|drop|after
 *
 * USEC is the kernel receive timestamp moved onto CLOCK_MONOTONIC; N counts the reports for
 * GROUP from 1; "after" marks reports for a group whose stream already runs. Runs until
 * SIGTERM/SIGINT or TIMEOUT_MS.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_P 16
#define TABLE_SIZE (1u << 18)

static volatile sig_atomic_t stop;
static uint64_t seed = 1;
static double probs[MAX_P] = { 0.3 };
static unsigned n_probs = 1;

static struct group {
        uint8_t addr[16];
        uint8_t used, streaming;
        uint32_t reports;
} table[TABLE_SIZE];

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

static uint64_t splitmix64(uint64_t x)
{
        x += 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
}

static uint64_t hash_addr(const uint8_t *a)
{
        uint64_t h = 1469598103934665603ULL;

        for (int i = 0; i < 16; i++)
                h = (h ^ a[i]) * 1099511628211ULL;
        return h;
}

static struct group *group_get(const uint8_t addr[16])
{
        uint64_t h = hash_addr(addr);

        for (uint32_t i = 0; i < TABLE_SIZE; i++) {
                struct group *g = &table[(h + i) & (TABLE_SIZE - 1)];
                if (!g->used) {
                        g->used = 1;
                        memcpy(g->addr, addr, 16);
                        return g;
                }
                if (memcmp(g->addr, addr, 16) == 0)
                        return g;
        }
        return NULL;
}

static double prob_for(const char *ifname)
{
        const char *p = ifname + strlen(ifname);

        while (p > ifname && p[-1] >= '0' && p[-1] <= '9')
                p--;
        return probs[(unsigned) strtoul(p, NULL, 10) % n_probs];
}

static void on_join(int64_t t, const char *ifname, int family, const uint8_t *grp)
{
        uint8_t key[16] = {};
        char text[INET6_ADDRSTRLEN];
        struct group *g;
        const char *verdict;

        memcpy(key, grp, family == AF_INET ? 4 : 16);
        if (family == AF_INET)
                key[15] = 4; /* keep v4 and v6 keys apart */
        g = group_get(key);
        if (!g)
                return;
        g->reports++;
        if (g->streaming)
                verdict = "after";
        else {
                uint64_t h = splitmix64(seed ^ hash_addr(key) ^ splitmix64(g->reports));
                double u = (double) (h >> 11) * 0x1.0p-53;
                if (u < prob_for(ifname))
                        verdict = "drop";
                else {
                        verdict = "accept";
                        g->streaming = 1; /* here a real router would start forwarding */
                }
        }
        inet_ntop(family, grp, text, sizeof text);
        printf("%" PRId64 " %s %s %" PRIu32 " %s\n", t, ifname, text, g->reports, verdict);
}

/* IGMPv3 / MLDv2 group records: joins are IS_EX (2) and TO_EX (4) records. */
static void records(int64_t t, const char *ifname, int family, const uint8_t *p, size_t n, unsigned nrec)
{
        size_t alen = family == AF_INET ? 4 : 16;

        for (unsigned i = 0; i < nrec; i++) {
                size_t rec_len;

                if (n < 4 + alen)
                        return;
                rec_len = 4 + alen + ((size_t) p[2] << 8 | p[3]) * alen + (size_t) p[1] * 4;
                if (n < rec_len)
                        return;
                if (p[0] == 2 || p[0] == 4)
                        on_join(t, ifname, family, p + 4);
                p += rec_len;
                n -= rec_len;
        }
}

static void packet_ipv4(int64_t t, const char *ifname, const uint8_t *p, size_t n)
{
        size_t ihl, tot;

        if (n < 20 || (p[0] >> 4) != 4 || p[9] != IPPROTO_IGMP)
                return;
        ihl = (size_t) (p[0] & 0x0f) * 4;
        tot = (size_t) p[2] << 8 | p[3];
        if (ihl < 20 || tot < ihl + 8 || tot > n)
                return;
        p += ihl;
        n = tot - ihl;
        if (p[0] == 0x16 || p[0] == 0x12)
                on_join(t, ifname, AF_INET, p + 4);
        else if (p[0] == 0x22)
                records(t, ifname, AF_INET, p + 8, n - 8, (unsigned) p[6] << 8 | p[7]);
}

static void packet_ipv6(int64_t t, const char *ifname, const uint8_t *p, size_t n)
{
        size_t plen;
        uint8_t nh;

        if (n < 40 || (p[0] >> 4) != 6)
                return;
        plen = (size_t) p[4] << 8 | p[5];
        if (40 + plen > n)
                return;
        nh = p[6];
        p += 40;
        n = plen;
        while (nh == 0 || nh == 43 || nh == 60) {
                size_t ext;

                if (n < 8)
                        return;
                ext = ((size_t) p[1] + 1) * 8;
                if (ext > n)
                        return;
                nh = p[0];
                p += ext;
                n -= ext;
        }
        if (nh != IPPROTO_ICMPV6 || n < 8)
                return;
        if (p[0] == 131 && n >= 24)
                on_join(t, ifname, AF_INET6, p + 8);
        else if (p[0] == 143)
                records(t, ifname, AF_INET6, p + 8, n - 8, (unsigned) p[6] << 8 | p[7]);
}

int main(int argc, char *argv[])
{
        static uint8_t pkt[65536];
        struct sigaction sa = { .sa_handler = on_signal };
        unsigned timeout_ms = 0;
        int64_t deadline = 0;
        int fd, one = 1, c;

        while ((c = getopt(argc, argv, "s:p:t:")) >= 0)
                switch (c) {
                case 's':
                        seed = strtoull(optarg, NULL, 10);
                        break;
                case 'p': {
                        char *s = optarg, *end;
                        n_probs = 0;
                        while (*s && n_probs < MAX_P) {
                                probs[n_probs++] = strtod(s, &end);
                                if (end == s)
                                        return 2;
                                s = *end == ',' ? end + 1 : end;
                        }
                        break;
                }
                case 't':
                        timeout_ms = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                default:
                        fprintf(stderr, "usage: upstream [-s SEED] [-p P[,P...]] [-t TIMEOUT_MS]\n");
                        return 2;
                }

        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        setvbuf(stdout, NULL, _IOFBF, 1 << 16);

        fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ALL));
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) < 0) {
                perror("AF_PACKET socket");
                return 1;
        }
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int) { 8 << 20 }, sizeof(int));
        fprintf(stderr, "# upstream listening\n");
        if (timeout_ms)
                deadline = ts_us(CLOCK_MONOTONIC) + (int64_t) timeout_ms * 1000;

        while (!stop) {
                union {
                        struct cmsghdr align;
                        char buf[CMSG_SPACE(sizeof(struct timespec))];
                } control;
                struct sockaddr_ll from;
                struct iovec iov = { .iov_base = pkt, .iov_len = sizeof pkt };
                struct msghdr msg = {
                        .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = &control, .msg_controllen = sizeof control,
                };
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                char name[IF_NAMESIZE];
                int64_t t = 0;
                int wait_ms = -1;
                ssize_t n;

                if (deadline) {
                        int64_t left = deadline - ts_us(CLOCK_MONOTONIC);
                        if (left <= 0)
                                break;
                        wait_ms = (int) ((left + 999) / 1000);
                }
                if (poll(&pfd, 1, wait_ms) <= 0)
                        continue;
                n = recvmsg(fd, &msg, MSG_DONTWAIT);
                if (n < 0)
                        continue;
                if (from.sll_pkttype == PACKET_OUTGOING || !if_indextoname((unsigned) from.sll_ifindex, name))
                        continue;
                for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
                        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
                                struct timespec ts;
                                memcpy(&ts, CMSG_DATA(cm), sizeof ts);
                                t = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000 -
                                    (ts_us(CLOCK_REALTIME) - ts_us(CLOCK_MONOTONIC));
                        }
                if (!t)
                        t = ts_us(CLOCK_MONOTONIC);
                if (from.sll_protocol == htons(ETH_P_IP))
                        packet_ipv4(t, name, pkt, (size_t) n);
                else if (from.sll_protocol == htons(ETH_P_IPV6))
                        packet_ipv6(t, name, pkt, (size_t) n);
        }
        fflush(stdout);
        close(fd);
        return 0;
}
