/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysctl-flood: the audit-flood load of the benchmark (section 6). Calls the binary sysctl(2)
 * system call by its raw number (glibc has no wrapper; the kernel dropped it in 5.9 and answers
 * ENOSYS, but an audit rule on the number still sees every call) as fast as it can, always with
 * the same name vector, so every call has the same coalescing key in igmpd. Also reads the
 * kernel's audit counters for bench/run.sh.
 *
 *   sysctl-flood COUNT    COUNT calls back to back; COUNT 0 = until SIGTERM or SIGINT
 *   sysctl-flood status   the audit status (AUDIT_GET) as one line of key=value
 *
 * The flood prints "flood pid=… calls=… elapsed_us=… cpu_us=… stall_us=… errno=…" when done
 * (cpu_us: its own user + system time, which includes the kernel's audit work at syscall exit;
 * stall_us: the longest time 64 calls in a row took). Status times are in jiffies.
 * Exit 0, 1 on failure, 77 when the system call number or the audit subsystem is unknown here.
 */

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "sysctl-syscall.h"

#ifdef NR_SYSCTL
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
        (void) sig;
        stop = 1;
}

static uint64_t tv_us(struct timeval tv)
{
        return (uint64_t) tv.tv_sec * 1000000 + (uint64_t) tv.tv_usec;
}
#endif

static int flood(unsigned long count)
{
#ifndef NR_SYSCTL
        (void) count;
        fprintf(stderr, "No sysctl(2) system call number known for this architecture.\n");
        return 77;
#else
        /* net.ipv4.conf.all.igmpv3_unsolicited_report_interval as the old binary name would
         * have it; the kernel never looks at it. */
        int name[] = { 3, 5, 16, -2, 17 };
        struct sigaction sa = { .sa_handler = on_signal };
        struct rusage ru;
        unsigned long n = 0;
        uint64_t t0, t1, tc, stall = 0;
        int e = 0;

        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        t0 = tc = now_us();
        while ((count == 0 || n < count) && !stop) {
                char buf[64];
                size_t len = sizeof buf;
                struct sysctl_args a = { .name = name, .nlen = 5, .oldval = buf, .oldlenp = &len };

                if (syscall(NR_SYSCTL, &a) < 0)
                        e = errno;
                /* The longest run of 64 calls: shows a caller held up in the kernel (the audit
                 * backlog wait) without a clock read per call slowing the unaudited baseline. */
                if (++n % 64 == 0) {
                        uint64_t t = now_us();

                        if (t - tc > stall)
                                stall = t - tc;
                        tc = t;
                }
        }
        t1 = now_us();
        getrusage(RUSAGE_SELF, &ru);
        printf("flood pid=%ld calls=%lu elapsed_us=%llu cpu_us=%llu stall_us=%llu errno=%d\n", (long) getpid(), n,
               (unsigned long long) (t1 - t0), (unsigned long long) (tv_us(ru.ru_utime) + tv_us(ru.ru_stime)),
               (unsigned long long) stall, e);
        return 0;
#endif
}

static int status(void)
{
        struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
        struct timeval tv = { .tv_sec = 2 };
        struct {
                struct nlmsghdr h;
                char pad[64];
        } req = { .h = { .nlmsg_len = NLMSG_LENGTH(0), .nlmsg_type = AUDIT_GET, .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 } };
        char buf[8192];
        int fd;

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
        if (fd < 0) {
                fprintf(stderr, "No NETLINK_AUDIT: %m\n");
                return 77;
        }
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *) &addr, sizeof addr) < 0) {
                fprintf(stderr, "AUDIT_GET: %m\n");
                close(fd);
                return errno == EPERM || errno == ECONNREFUSED ? 77 : 1;
        }
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);

                if (n < 0) {
                        fprintf(stderr, "AUDIT_GET reply: %m\n");
                        close(fd);
                        return 1;
                }
                for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK(h, (size_t) n); h = NLMSG_NEXT(h, n)) {
                        struct audit_status s = {};

                        if (h->nlmsg_seq != 1)
                                continue;
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                int r = ((struct nlmsgerr *) NLMSG_DATA(h))->error;

                                if (r == 0)
                                        continue;
                                fprintf(stderr, "AUDIT_GET: %s\n", strerror(-r));
                                close(fd);
                                return r == -EPERM || r == -ECONNREFUSED ? 77 : 1;
                        }
                        if (h->nlmsg_type != AUDIT_GET)
                                continue;
                        memcpy(&s, NLMSG_DATA(h),
                               NLMSG_PAYLOAD(h, 0) < sizeof s ? NLMSG_PAYLOAD(h, 0) : sizeof s);
                        printf("status enabled=%u failure=%u pid=%u rate_limit=%u backlog_limit=%u lost=%u "
                               "backlog=%u backlog_wait_time=%u backlog_wait_time_actual=%u\n",
                               s.enabled, s.failure, s.pid, s.rate_limit, s.backlog_limit, s.lost, s.backlog,
                               s.backlog_wait_time, s.backlog_wait_time_actual);
                        close(fd);
                        return 0;
                }
        }
}

int main(int argc, char *argv[])
{
        char *end;
        unsigned long count;

        if (argc == 2 && strcmp(argv[1], "status") == 0)
                return status();
        if (argc != 2) {
                fprintf(stderr, "Usage: %s COUNT|status\n", argv[0]);
                return 1;
        }
        errno = 0;
        count = strtoul(argv[1], &end, 10);
        if (errno || end == argv[1] || *end) {
                fprintf(stderr, "Bad count '%s'.\n", argv[1]);
                return 1;
        }
        return flood(count);
}
