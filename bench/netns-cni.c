/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * netns-cni: the CNI flow's latency under igmpd's Namespaces=named.
 *
 *   netns-cni NETNS COUNT KNOB VALUE
 *
 * COUNT times: makes a veth pair (zcniA/zcniB) in the caller's namespace, moves zcniA into
 * /run/netns/NETNS, renames it eth0 there (SIOCSIFNAME, as CNI plugins do through netlink), and
 * then reads /proc/sys/net/ipv4/conf/eth0/KNOB in NETNS in a tight loop until it reads VALUE,
 * which the policy for NETNS sets (igmpd must write it). Prints one line per iteration,
 * "cni USEC", the microseconds from the rename's return to the first read of VALUE
 * (CLOCK_MONOTONIC), then deletes the pair. The pair is made and moved with ip(8): that part is
 * not timed. Gives up on an iteration after 5 s ("cni timeout"). NETNS ".host": the same in the
 * caller's namespace, nothing moved (the baseline: igmpd's own namespace).
 */

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_usec(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static int run(const char *cmd)
{
        int r = system(cmd);
        return r == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
        char path[512], cmd[1024], buf[32];
        int home, target, count;
        long want;

        if (argc != 5) {
                fprintf(stderr, "usage: netns-cni NETNS COUNT KNOB VALUE\n");
                return 2;
        }
        count = atoi(argv[2]);
        want = strtol(argv[4], NULL, 10);
        snprintf(path, sizeof path, "/run/netns/%s", argv[1]);
        home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        target = strcmp(argv[1], ".host") == 0 ? open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)
                                               : open(path, O_RDONLY | O_CLOEXEC);
        if (home < 0 || target < 0) {
                perror("open namespace");
                return 1;
        }
        snprintf(path, sizeof path, "/proc/sys/net/ipv4/conf/eth0/%s", argv[3]);

        for (int i = 0; i < count; i++) {
                struct ifreq ifr = {};
                uint64_t t0, t1;
                int s, fd;
                bool done = false;

                if (strcmp(argv[1], ".host") == 0)
                        snprintf(cmd, sizeof cmd, "ip link add zcniA type veth peer name zcniB");
                else
                        snprintf(cmd, sizeof cmd, "ip link add zcniA type veth peer name zcniB && ip link set zcniA netns %s",
                                 argv[1]);
                if (run(cmd) < 0)
                        return 1;
                if (setns(target, CLONE_NEWNET) < 0) {
                        perror("setns");
                        return 1;
                }
                s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "zcniA");
                snprintf(ifr.ifr_newname, sizeof ifr.ifr_newname, "eth0");
                if (s < 0 || ioctl(s, SIOCSIFNAME, &ifr) < 0) {
                        perror("SIOCSIFNAME");
                        return 1;
                }
                t0 = now_usec();
                while (now_usec() - t0 < 5000000) {
                        ssize_t n;

                        fd = open(path, O_RDONLY | O_CLOEXEC);
                        if (fd < 0)
                                continue; /* the conf directory follows the rename */
                        n = read(fd, buf, sizeof buf - 1);
                        close(fd);
                        if (n > 0) {
                                buf[n] = '\0';
                                if (strtol(buf, NULL, 10) == want) {
                                        done = true;
                                        break;
                                }
                        }
                }
                t1 = now_usec();
                if (done)
                        printf("cni %llu\n", (unsigned long long) (t1 - t0));
                else
                        printf("cni timeout\n");
                fflush(stdout);
                close(s);
                (void) run("ip link del eth0");
                if (setns(home, CLONE_NEWNET) < 0) {
                        perror("setns home");
                        return 1;
                }
        }
        return 0;
}
