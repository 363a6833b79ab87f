/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * chanchange: channel changes as a set-top box makes them, timed from the join to the first
 * multicast packet of the new channel (bench/gateway.sh). One process holds both ends: the
 * source's socket, opened in the source's network namespace, streams the channel each lane is
 * tuned to; each lane's receiver, opened in the box's namespace on one interface, joins a fresh
 * group per channel change and waits for its first packet.
 *
 *   chanchange SRC_NETNS SRC_IF BOX_NETNS JOINS TIMEOUT_MS LANE...
 *
 * NETNS is a path (/run/netns/NAME); LANE is IFNAME:GROUP, the box interface and the first group
 * of that lane (join k uses GROUP + k). Per lane and join: the source starts the channel (a
 * packet every 5 ms), 50 ms later the box joins (the stream exists before the viewer tunes in),
 * then waits up to TIMEOUT_MS for a packet of that group, watches 200 ms more, leaves, and
 * 100 ms later the next channel starts. Lanes run side by side. Prints per join
 *
 *   join IFNAME K GROUP LATENCY_US|never
 *
 * with the latency from just before the join's setsockopt() (CLOCK_MONOTONIC) to the packet's
 * kernel receive timestamp (SO_TIMESTAMPNS, moved from CLOCK_REALTIME onto CLOCK_MONOTONIC).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

#define MAX_LANES 16
#define SEND_EVERY_US 5000
#define PREROLL_US 50000
#define WATCH_US 200000
#define PAUSE_US 100000
#define PORT 5004

enum { PREROLL, WAITING, WATCHING, PAUSED, DONE };

typedef struct {
        char ifname[IF_NAMESIZE];
        int ifindex, fd, state, k;
        struct in_addr base, group;
        uint64_t t_state, t_join;
} Lane;

static int joins, timeout_ms;

static int enter_netns(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
                fprintf(stderr, "chanchange: cannot enter %s: %m\n", path);
                return -1;
        }
        close(fd);
        return 0;
}

/* CLOCK_REALTIME of a kernel timestamp, moved onto CLOCK_MONOTONIC. */
static uint64_t realtime_to_mono_us(const struct timespec *ts)
{
        struct timespec r, m;

        clock_gettime(CLOCK_REALTIME, &r);
        clock_gettime(CLOCK_MONOTONIC, &m);
        return (uint64_t) ((int64_t) ts->tv_sec * 1000000 + ts->tv_nsec / 1000 -
                           ((int64_t) r.tv_sec * 1000000 + r.tv_nsec / 1000) +
                           ((int64_t) m.tv_sec * 1000000 + m.tv_nsec / 1000));
}

static int membership(Lane *l, int op)
{
        struct ip_mreqn mr = { .imr_multiaddr = l->group, .imr_ifindex = l->ifindex };

        return setsockopt(l->fd, IPPROTO_IP, op, &mr, sizeof mr);
}

static void lane_step(Lane *l, uint64_t now)
{
        switch (l->state) {
        case PREROLL:
                if (now - l->t_state < PREROLL_US)
                        return;
                l->t_join = now_us();
                if (membership(l, IP_ADD_MEMBERSHIP) < 0)
                        fprintf(stderr, "chanchange: join on %s: %m\n", l->ifname);
                l->state = WAITING;
                l->t_state = l->t_join;
                return;
        case WAITING:
                if (now - l->t_state < (uint64_t) timeout_ms * 1000)
                        return;
                printf("join %s %d %s never\n", l->ifname, l->k, inet_ntoa(l->group));
                l->state = WATCHING;
                l->t_state = now;
                return;
        case WATCHING:
                if (now - l->t_state < WATCH_US)
                        return;
                (void) membership(l, IP_DROP_MEMBERSHIP);
                l->state = PAUSED;
                l->t_state = now;
                return;
        case PAUSED:
                if (now - l->t_state < PAUSE_US)
                        return;
                if (++l->k >= joins) {
                        l->state = DONE;
                        return;
                }
                l->group.s_addr = htonl(ntohl(l->base.s_addr) + (uint32_t) l->k);
                l->state = PREROLL;
                l->t_state = now;
                return;
        }
}

static void lane_receive(Lane *l)
{
        char buf[64], cbuf[CMSG_SPACE(sizeof(struct timespec))];
        struct sockaddr_in from;
        struct iovec iov = { buf, sizeof buf };
        struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = cbuf, .msg_controllen = sizeof cbuf };
        ssize_t n;

        while ((n = recvmsg(l->fd, &mh, MSG_DONTWAIT)) >= 0) {
                uint32_t g;

                /* The payload names the group it was sent to: a late packet of the previous
                 * channel is not the new one. */
                if (n < (ssize_t) sizeof g || l->state != WAITING)
                        goto next;
                memcpy(&g, buf, sizeof g);
                if (g != l->group.s_addr)
                        goto next;
                for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                                struct timespec ts;
                                uint64_t t;

                                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                                t = realtime_to_mono_us(&ts);
                                printf("join %s %d %s %llu\n", l->ifname, l->k, inet_ntoa(l->group),
                                       (unsigned long long) (t > l->t_join ? t - l->t_join : 0));
                                l->state = WATCHING;
                                l->t_state = now_us();
                        }
        next:
                mh.msg_namelen = sizeof from;
                mh.msg_controllen = sizeof cbuf;
        }
}

int main(int argc, char *argv[])
{
        Lane lanes[MAX_LANES] = {};
        int n_lanes = 0, src, one = 1, zero = 0, ttl = 8;
        uint64_t next_send;

        if (argc < 7 || argc - 6 > MAX_LANES) {
                fprintf(stderr, "Usage: %s SRC_NETNS SRC_IF BOX_NETNS JOINS TIMEOUT_MS IFNAME:GROUP...\n", argv[0]);
                return 2;
        }
        joins = atoi(argv[4]);
        timeout_ms = atoi(argv[5]);

        if (enter_netns(argv[1]) < 0)
                return 1;
        src = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct ip_mreqn mif = { .imr_ifindex = (int) if_nametoindex(argv[2]) };
        if (src < 0 || !mif.imr_ifindex || setsockopt(src, IPPROTO_IP, IP_MULTICAST_IF, &mif, sizeof mif) < 0 ||
            setsockopt(src, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl) < 0 ||
            setsockopt(src, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof zero) < 0) {
                fprintf(stderr, "chanchange: source socket on %s: %m\n", argv[2]);
                return 1;
        }

        if (enter_netns(argv[3]) < 0)
                return 1;
        for (int i = 6; i < argc; i++, n_lanes++) {
                Lane *l = &lanes[n_lanes];
                char *colon = strchr(argv[i], ':');
                struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT + n_lanes) };

                if (!colon || colon - argv[i] >= IF_NAMESIZE || inet_pton(AF_INET, colon + 1, &l->base) != 1) {
                        fprintf(stderr, "chanchange: bad lane '%s' (IFNAME:GROUP)\n", argv[i]);
                        return 2;
                }
                memcpy(l->ifname, argv[i], (size_t) (colon - argv[i]));
                l->ifindex = (int) if_nametoindex(l->ifname);
                l->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                if (!l->ifindex || l->fd < 0 ||
                    setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
                    setsockopt(l->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) < 0 ||
                    setsockopt(l->fd, IPPROTO_IP, IP_MULTICAST_ALL, &zero, sizeof zero) < 0 ||
                    setsockopt(l->fd, SOL_SOCKET, SO_BINDTODEVICE, l->ifname, (socklen_t) strlen(l->ifname)) < 0 ||
                    bind(l->fd, (struct sockaddr *) &a, sizeof a) < 0) {
                        fprintf(stderr, "chanchange: receiver on %s: %m\n", l->ifname);
                        return 1;
                }
                l->group = l->base;
                l->state = PREROLL;
                l->t_state = now_us();
        }

        next_send = now_us();
        for (;;) {
                struct pollfd p[MAX_LANES];
                uint64_t now = now_us();
                int active = 0;

                if (now >= next_send) {
                        for (int i = 0; i < n_lanes; i++) {
                                struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PORT + i),
                                                          .sin_addr = lanes[i].group };

                                if (lanes[i].state == PAUSED || lanes[i].state == DONE)
                                        continue;
                                (void) sendto(src, &lanes[i].group.s_addr, sizeof lanes[i].group.s_addr, 0,
                                              (struct sockaddr *) &to, sizeof to);
                        }
                        next_send += SEND_EVERY_US;
                        if (next_send < now)
                                next_send = now + SEND_EVERY_US;
                }
                for (int i = 0; i < n_lanes; i++) {
                        lane_step(&lanes[i], now);
                        active += lanes[i].state != DONE;
                        p[i] = (struct pollfd) { .fd = lanes[i].fd, .events = POLLIN };
                }
                fflush(stdout);
                if (!active)
                        return 0;
                now = now_us();
                if (poll(p, (nfds_t) n_lanes, next_send > now ? (int) ((next_send - now + 999) / 1000) : 0) > 0)
                        for (int i = 0; i < n_lanes; i++)
                                if (p[i].revents & POLLIN)
                                        lane_receive(&lanes[i]);
        }
}
