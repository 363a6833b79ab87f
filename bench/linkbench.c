/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * linkbench: creates and deletes veth pairs over rtnetlink and measures how long it takes until
 * a running igmpd has configured them, by reading the knobs back from /proc/sys.
 *
 *   linkbench create PFX START COUNT        pairs PFX<i>a/PFX<i>b, i = START … START+COUNT-1
 *   linkbench delete PFX START COUNT        deletes them (deleting one end removes the peer)
 *   linkbench delgroup - GROUP 1            deletes every link of link group GROUP at once
 *                                           (pairs created with LINKBENCH_GROUP=GROUP in the
 *                                           environment put their "a" end in that group)
 *   linkbench wait   PFX START COUNT VALUE TIMEOUT_MS
 *   linkbench single PFX START COUNT VALUE GAP_MS
 *   linkbench burst  PFX START COUNT VALUE
 *   linkbench dump   - 0 REPEAT                one RTM_GETLINK dump of every link, statistics
 *                                           skipped (the request igmpd makes to refresh kernel
 *                                           values), REPEAT times: the kernel's share of it
 *
 * Every create is one RTM_NEWLINK request, answered (ACK) before the next is sent — what
 * `ip -batch` does. The kernel announces the new links (RTM_NEWLINK multicast, which igmpd
 * listens to) while handling the request, before it sends the ACK, so the ACK time is the
 * moment the links exist, give or take the ACK's own delivery (microseconds).
 *
 * "Configured" means mldv2_unsolicited_report_interval of both ends reads VALUE: igmpd writes
 * the IPv4 knobs first, then the IPv6 ones in table order, so that is the last knob it writes.
 * After a run all four policy knobs of every end are checked once more (a wrong one counts as
 * "bad"). Reads are pread() at offset 0 on a descriptor opened once per file.
 *
 * single: one pair at a time; after the ACK the prober polls the two files every 20 µs (plus
 * timer slack, ~50 µs) until both read VALUE, then waits GAP_MS before the next pair. Latency = last knob seen written − ACK.
 * burst: one thread creates COUNT pairs back to back; a second thread sweeps over the created,
 * not yet configured pairs every 100 µs and stamps each as it is first seen configured (the
 * resolution is the sweep period, printed). Also prints the time from the last pair's ACK until
 * every pair is configured.
 * wait: returns once every pair is configured (or TIMEOUT_MS passed).
 *
 * Output: one line "MODE key=value ..." with times in microseconds.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

static const struct {
        const char *family, *name;
} knobs[] = {
        { "ipv4", "igmpv2_unsolicited_report_interval" },
        { "ipv4", "igmpv3_unsolicited_report_interval" },
        { "ipv6", "mldv1_unsolicited_report_interval" },
        { "ipv6", "mldv2_unsolicited_report_interval" },
};
#define LAST_KNOB 3

static const char *pfx;
static uint32_t link_group; /* $LINKBENCH_GROUP: the "a" end of every created pair joins it */
static unsigned start, count;
static int value;

static void sleep_us(unsigned us)
{
        struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long) (us % 1000000) * 1000 };

        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
                ;
}

static void ifname(char *buf, unsigned i, char end)
{
        snprintf(buf, IF_NAMESIZE, "%s%u%c", pfx, i, end);
}

/* ---- rtnetlink ---- */

struct req {
        _Alignas(struct nlmsghdr) char buf[1024];
};

static struct rtattr *addattr(struct nlmsghdr *nh, unsigned short type, const void *data, size_t len)
{
        struct rtattr *rta = (struct rtattr *) ((char *) nh + NLMSG_ALIGN(nh->nlmsg_len));

        rta->rta_type = type;
        rta->rta_len = (unsigned short) RTA_LENGTH(len);
        if (len)
                memcpy(RTA_DATA(rta), data, len);
        nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
        return rta;
}

static void nest_end(struct nlmsghdr *nh, struct rtattr *nest)
{
        nest->rta_len = (unsigned short) ((char *) nh + nh->nlmsg_len - (char *) nest);
}

static int rtnl_fd = -1;
static uint32_t rtnl_seq;

static int rtnl_talk(struct nlmsghdr *nh)
{
        char buf[8192];

        nh->nlmsg_seq = ++rtnl_seq;
        if (send(rtnl_fd, nh, nh->nlmsg_len, 0) < 0)
                return -errno;
        for (;;) {
                ssize_t n = recv(rtnl_fd, buf, sizeof buf, 0);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK(h, (size_t) n); h = NLMSG_NEXT(h, n))
                        if (h->nlmsg_seq == rtnl_seq && h->nlmsg_type == NLMSG_ERROR)
                                return ((struct nlmsgerr *) NLMSG_DATA(h))->error;
        }
}

static int veth_create(unsigned i)
{
        struct req r = {};
        struct nlmsghdr *nh = (struct nlmsghdr *) r.buf;
        struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
        struct rtattr *linkinfo, *data, *peer;
        char a[IF_NAMESIZE], b[IF_NAMESIZE];

        ifname(a, i, 'a');
        ifname(b, i, 'b');
        nh->nlmsg_len = NLMSG_LENGTH(sizeof ifi);
        nh->nlmsg_type = RTM_NEWLINK;
        nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
        memcpy(NLMSG_DATA(nh), &ifi, sizeof ifi);
        addattr(nh, IFLA_IFNAME, a, strlen(a) + 1);
        if (link_group)
                addattr(nh, IFLA_GROUP, &link_group, sizeof link_group);
        linkinfo = addattr(nh, IFLA_LINKINFO, NULL, 0);
        addattr(nh, IFLA_INFO_KIND, "veth", 5);
        data = addattr(nh, IFLA_INFO_DATA, NULL, 0);
        peer = addattr(nh, VETH_INFO_PEER, &ifi, sizeof ifi);
        addattr(nh, IFLA_IFNAME, b, strlen(b) + 1);
        nest_end(nh, peer);
        nest_end(nh, data);
        nest_end(nh, linkinfo);
        return rtnl_talk(nh);
}

/* Deletes every link of a group in one request: the kernel unregisters them as one batch, far
 * faster than one RTM_DELLINK per link. */
static int group_delete(uint32_t group)
{
        struct req r = {};
        struct nlmsghdr *nh = (struct nlmsghdr *) r.buf;
        struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };

        nh->nlmsg_len = NLMSG_LENGTH(sizeof ifi);
        nh->nlmsg_type = RTM_DELLINK;
        nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        memcpy(NLMSG_DATA(nh), &ifi, sizeof ifi);
        addattr(nh, IFLA_GROUP, &group, sizeof group);
        return rtnl_talk(nh);
}

static int veth_delete(unsigned i)
{
        struct req r = {};
        struct nlmsghdr *nh = (struct nlmsghdr *) r.buf;
        struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
        char a[IF_NAMESIZE];

        ifname(a, i, 'a');
        nh->nlmsg_len = NLMSG_LENGTH(sizeof ifi);
        nh->nlmsg_type = RTM_DELLINK;
        nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        memcpy(NLMSG_DATA(nh), &ifi, sizeof ifi);
        addattr(nh, IFLA_IFNAME, a, strlen(a) + 1);
        return rtnl_talk(nh);
}

/* ---- knob reading ---- */

static int knob_open(unsigned i, char end, unsigned k)
{
        char path[256], name[IF_NAMESIZE];

        ifname(name, i, end);
        snprintf(path, sizeof path, "/proc/sys/net/%s/conf/%s/%s", knobs[k].family, name, knobs[k].name);
        return open(path, O_RDONLY | O_CLOEXEC);
}

static bool fd_reads_value(int fd)
{
        char buf[32];
        ssize_t n;

        if (fd < 0)
                return false;
        n = pread(fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
                return false;
        buf[n] = 0;
        return atoi(buf) == value;
}

/* All four knobs on both ends. */
static bool pair_fully_configured(unsigned i)
{
        for (int e = 0; e < 2; e++)
                for (unsigned k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
                        int fd = knob_open(i, e ? 'b' : 'a', k);
                        bool ok = fd_reads_value(fd);

                        if (fd >= 0)
                                close(fd);
                        if (!ok)
                                return false;
                }
        return true;
}

static unsigned count_bad(void)
{
        unsigned bad = 0;

        for (unsigned i = 0; i < count; i++)
                if (!pair_fully_configured(start + i))
                        bad++;
        return bad;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t pct(const uint64_t *v, size_t n, unsigned q)
{
        size_t r;

        if (n == 0)
                return 0;
        r = (n * q + 99) / 100;
        return v[r ? r - 1 : 0];
}

/* ---- modes ---- */

static int do_single(unsigned gap_ms)
{
        uint64_t *lat = calloc(count, sizeof *lat), *lat_send = calloc(count, sizeof *lat_send);
        size_t n = 0, missed = 0;

        if (!lat || !lat_send)
                return 1;
        for (unsigned j = 0; j < count; j++) {
                unsigned i = start + j;
                uint64_t t0, t1, t2 = 0;
                int fa, fb, r;

                t0 = now_us();
                r = veth_create(i);
                t1 = now_us();
                if (r < 0) {
                        fprintf(stderr, "create %u: %s\n", i, strerror(-r));
                        return 1;
                }
                fa = knob_open(i, 'a', LAST_KNOB);
                fb = knob_open(i, 'b', LAST_KNOB);
                for (;;) {
                        uint64_t t = now_us();
                        if (fd_reads_value(fa) && fd_reads_value(fb)) {
                                t2 = t;
                                break;
                        }
                        if (t - t1 > 2000000) {
                                missed++;
                                break;
                        }
                        /* Not a busy loop: on a 2-CPU machine a spinning prober takes the CPU
                         * igmpd needs. 20 µs (+ timer slack) is the resolution. */
                        sleep_us(20);
                }
                if (fa >= 0)
                        close(fa);
                if (fb >= 0)
                        close(fb);
                if (t2) {
                        lat[n] = t2 - t1;
                        lat_send[n++] = t2 - t0;
                }
                sleep_us(gap_ms * 1000);
        }
        qsort(lat, n, sizeof *lat, cmp_u64);
        qsort(lat_send, n, sizeof *lat_send, cmp_u64);
        printf("single n=%zu missed=%zu bad=%u p50_us=%llu p99_us=%llu max_us=%llu "
               "fromsend_p50_us=%llu fromsend_p99_us=%llu\n",
               n, missed, count_bad(), (unsigned long long) pct(lat, n, 50), (unsigned long long) pct(lat, n, 99),
               (unsigned long long) (n ? lat[n - 1] : 0), (unsigned long long) pct(lat_send, n, 50),
               (unsigned long long) pct(lat_send, n, 99));
        return 0;
}

static uint64_t *t_ack, *t_done;
static _Atomic unsigned created;
static _Atomic bool creator_failed;

static void *creator(void *arg)
{
        (void) arg;
        for (unsigned j = 0; j < count; j++) {
                int r = veth_create(start + j);
                if (r < 0) {
                        fprintf(stderr, "create %u: %s\n", start + j, strerror(-r));
                        atomic_store(&creator_failed, true);
                        return NULL;
                }
                t_ack[j] = now_us();
                atomic_store_explicit(&created, j + 1, memory_order_release);
        }
        return NULL;
}

static int do_burst(void)
{
        int *fds = malloc(2 * (size_t) count * sizeof *fds);
        uint64_t *lat = calloc(count, sizeof *lat), t_first, t_last_ack, t_end = 0, deadline = 0, sweep_sum = 0;
        unsigned first = 0, opened = 0, done = 0, sweeps = 0;
        pthread_t th;

        t_ack = calloc(count, sizeof *t_ack);
        t_done = calloc(count, sizeof *t_done);
        if (!fds || !lat || !t_ack || !t_done)
                return 1;

        t_first = now_us();
        if (pthread_create(&th, NULL, creator, NULL) != 0)
                return 1;
        while (done < count) {
                unsigned c = atomic_load_explicit(&created, memory_order_acquire);
                uint64_t s0 = now_us();

                if (atomic_load(&creator_failed))
                        break;
                for (; opened < c; opened++) {
                        fds[2 * opened] = knob_open(start + opened, 'a', LAST_KNOB);
                        fds[2 * opened + 1] = knob_open(start + opened, 'b', LAST_KNOB);
                }
                for (unsigned j = first; j < c; j++) {
                        if (t_done[j])
                                continue;
                        if (fd_reads_value(fds[2 * j]) && fd_reads_value(fds[2 * j + 1])) {
                                t_done[j] = now_us();
                                done++;
                                close(fds[2 * j]);
                                close(fds[2 * j + 1]);
                        }
                }
                while (first < c && t_done[first])
                        first++;
                sweep_sum += now_us() - s0 + 100;
                sweeps++;
                if (c == count) {
                        if (!deadline)
                                deadline = now_us() + 30000000;
                        else if (now_us() > deadline)
                                break;
                }
                sleep_us(100);
        }
        pthread_join(th, NULL);
        if (atomic_load(&creator_failed))
                return 1;
        t_end = now_us();
        t_last_ack = t_ack[count - 1];
        size_t n = 0;
        uint64_t all_done = 0;
        for (unsigned j = 0; j < count; j++) {
                if (!t_done[j])
                        continue;
                lat[n++] = t_done[j] > t_ack[j] ? t_done[j] - t_ack[j] : 0;
                if (t_done[j] > all_done)
                        all_done = t_done[j];
        }
        qsort(lat, n, sizeof *lat, cmp_u64);
        printf("burst n=%zu missed=%u bad=%u p50_us=%llu p99_us=%llu max_us=%llu create_us=%llu "
               "after_last_us=%llu sweep_us=%llu\n",
               n, count - (unsigned) n, count_bad(), (unsigned long long) pct(lat, n, 50),
               (unsigned long long) pct(lat, n, 99), (unsigned long long) (n ? lat[n - 1] : 0),
               (unsigned long long) (t_last_ack - t_first),
               (unsigned long long) (n == count ? (all_done > t_last_ack ? all_done - t_last_ack : 0) : t_end - t_last_ack),
               (unsigned long long) (sweeps ? sweep_sum / sweeps : 0));
        return 0;
}

static int do_wait(unsigned timeout_ms)
{
        uint64_t t0 = now_us();
        unsigned next = 0;

        while (next < count) {
                int fa = knob_open(start + next, 'a', LAST_KNOB), fb = knob_open(start + next, 'b', LAST_KNOB);
                bool ok = fd_reads_value(fa) && fd_reads_value(fb);

                if (fa >= 0)
                        close(fa);
                if (fb >= 0)
                        close(fb);
                if (ok) {
                        next++;
                        continue;
                }
                if (now_us() - t0 > (uint64_t) timeout_ms * 1000)
                        break;
                sleep_us(1000);
        }
        printf("wait usec=%llu missing=%u\n", (unsigned long long) (now_us() - t0), count - next);
        return next == count ? 0 : 1;
}

static int parse_u(const char *s, unsigned *ret)
{
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || end == s || *end || v > 100000000)
                return -1;
        *ret = (unsigned) v;
        return 0;
}

/* Times `repeat` link dumps read to NLMSG_DONE (messages counted, not parsed); prints the median. */
static int do_dump(unsigned repeat)
{
        static char buf[1 << 20];
        uint64_t *t = calloc(repeat, sizeof *t);
        unsigned links = 0;
        size_t bytes = 0;
        int rcvbuf = 4 * 1024 * 1024;

        if (!t)
                return 1;
        (void) setsockopt(rtnl_fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf);
        for (unsigned i = 0; i < repeat; i++) {
                struct {
                        struct nlmsghdr h;
                        struct ifinfomsg ifi;
                        struct rtattr a;
                        uint32_t mask;
                } req = {
                        .h = { .nlmsg_len = sizeof req, .nlmsg_type = RTM_GETLINK,
                               .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = i + 1 },
                        .ifi = { .ifi_family = AF_UNSPEC },
                        .a = { .rta_len = RTA_LENGTH(sizeof(uint32_t)), .rta_type = IFLA_EXT_MASK },
                        .mask = RTEXT_FILTER_SKIP_STATS,
                };
                bool done = false;
                uint64_t t0 = now_us();

                links = 0;
                bytes = 0;
                if (send(rtnl_fd, &req, sizeof req, 0) < 0) {
                        perror("dump request");
                        return 1;
                }
                while (!done) {
                        ssize_t n = recv(rtnl_fd, buf, sizeof buf, 0);
                        if (n < 0) {
                                perror("dump");
                                return 1;
                        }
                        bytes += (size_t) n;
                        for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK(h, (size_t) n); h = NLMSG_NEXT(h, n)) {
                                if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
                                        done = true;
                                else if (h->nlmsg_type == RTM_NEWLINK)
                                        links++;
                        }
                }
                t[i] = now_us() - t0;
        }
        qsort(t, repeat, sizeof *t, cmp_u64);
        printf("dump links=%u bytes=%zu repeat=%u p50_us=%llu\n", links, bytes, repeat,
               (unsigned long long) t[repeat / 2]);
        free(t);
        return 0;
}

int main(int argc, char *argv[])
{
        const char *mode;
        unsigned extra = 0, v = 0;
        struct rlimit rl = { 65536, 65536 };

        if (argc < 5 || parse_u(argv[3], &start) < 0 || parse_u(argv[4], &count) < 0 || count == 0) {
                fprintf(stderr, "usage: linkbench create|delete|wait|single|burst|dump PFX START COUNT [VALUE [ARG]]\n");
                return 2;
        }
        mode = argv[1];
        pfx = argv[2];
        if (strlen(pfx) + 9 >= IF_NAMESIZE) {
                fprintf(stderr, "prefix too long\n");
                return 2;
        }
        if (argc > 5 && parse_u(argv[5], &v) < 0)
                return 2;
        value = (int) v;
        if (argc > 6 && parse_u(argv[6], &extra) < 0)
                return 2;
        (void) setrlimit(RLIMIT_NOFILE, &rl);

        if (getenv("LINKBENCH_GROUP"))
                link_group = (uint32_t) strtoul(getenv("LINKBENCH_GROUP"), NULL, 10);

        rtnl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (rtnl_fd < 0) {
                perror("netlink");
                return 1;
        }

        if (strcmp(mode, "dump") == 0)
                return do_dump(count);
        if (strcmp(mode, "delgroup") == 0) {
                uint64_t t0 = now_us();
                int r = group_delete(start);
                if (r < 0) {
                        fprintf(stderr, "delete group %u: %s\n", start, strerror(-r));
                        return 1;
                }
                printf("delgroup group=%u usec=%llu\n", start, (unsigned long long) (now_us() - t0));
                return 0;
        }
        if (strcmp(mode, "create") == 0 || strcmp(mode, "delete") == 0) {
                bool create = mode[0] == 'c';
                uint64_t t0 = now_us();
                for (unsigned j = 0; j < count; j++) {
                        int r = create ? veth_create(start + j) : veth_delete(start + j);
                        if (r < 0) {
                                fprintf(stderr, "%s %u: %s\n", mode, start + j, strerror(-r));
                                return 1;
                        }
                }
                printf("%s pairs=%u usec=%llu\n", mode, count, (unsigned long long) (now_us() - t0));
                return 0;
        }
        if (argc < 6) {
                fprintf(stderr, "%s needs VALUE\n", mode);
                return 2;
        }
        if (strcmp(mode, "wait") == 0)
                return do_wait(argc > 6 ? extra : 10000);
        if (strcmp(mode, "single") == 0)
                return do_single(extra);
        if (strcmp(mode, "burst") == 0)
                return do_burst();
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
}
