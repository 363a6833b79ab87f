/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * notify-run: starts a program and times it, from just before fork+exec to either its READY=1
 * sd_notify message or its exit.
 *
 *   notify-run [-e] [-k] SOCKPATH PROGRAM [ARGS...]
 *
 * A datagram socket is bound at SOCKPATH (removed first) and passed to the child as
 * NOTIFY_SOCKET. Default: waits for a datagram holding a "READY=1" line and prints
 *
 *   ready USEC PID
 *
 * (USEC = microseconds from exec to READY, CLOCK_MONOTONIC), then, with -k, stops the child
 * (SIGTERM) and exits; without -k it waits for the child and exits with its status (so a
 * benchmark script can run it in the background and signal the child by PID). With -k the line
 * has a fourth field: the CPU time the child's main thread had used at READY, in microseconds
 * (/proc/PID/schedstat), read before it is stopped.
 * With -e it does not wait for READY: it prints "exit USEC STATUS" when the child exits.
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

static bool has_ready(const char *buf)
{
        for (const char *p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (strncmp(p, "READY=1", 7) == 0 && (p[7] == '\n' || p[7] == '\0'))
                        return true;
        return false;
}

int main(int argc, char *argv[])
{
        bool wait_exit = false, kill_child = false;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int c, fd, status;
        uint64_t t0;
        pid_t pid;

        while ((c = getopt(argc, argv, "+ek")) >= 0)
                switch (c) {
                case 'e':
                        wait_exit = true;
                        break;
                case 'k':
                        kill_child = true;
                        break;
                default:
                        return 2;
                }
        if (argc - optind < 2) {
                fprintf(stderr, "usage: notify-run [-e] [-k] SOCKPATH PROGRAM [ARGS...]\n");
                return 2;
        }
        if (strlen(argv[optind]) >= sizeof sa.sun_path) {
                fprintf(stderr, "socket path too long\n");
                return 2;
        }
        strcpy(sa.sun_path, argv[optind]);
        (void) unlink(sa.sun_path);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                perror("notify socket");
                return 1;
        }
        if (setenv("NOTIFY_SOCKET", sa.sun_path, 1) < 0)
                return 1;

        t0 = now_us();
        pid = fork();
        if (pid < 0) {
                perror("fork");
                return 1;
        }
        if (pid == 0) {
                execvp(argv[optind + 1], argv + optind + 1);
                perror("exec");
                _exit(127);
        }

        if (!wait_exit) {
                char buf[4096];

                /* Wait for the datagram or the child's end, whichever comes first: a child that
                 * dies before READY (a failed exec, a crash) must not hang the benchmark. */
                int pfd = (int) syscall(SYS_pidfd_open, pid, 0);

                for (;;) {
                        struct pollfd p[2] = {
                                { .fd = fd, .events = POLLIN },
                                { .fd = pfd, .events = POLLIN },
                        };
                        ssize_t n;

                        if (poll(p, pfd >= 0 ? 2 : 1, -1) < 0) {
                                if (errno == EINTR)
                                        continue;
                                perror("poll");
                                kill(pid, SIGTERM);
                                return 1;
                        }
                        if (!(p[0].revents & POLLIN) && (p[1].revents & POLLIN)) {
                                (void) waitpid(pid, &status, 0);
                                fprintf(stderr, "notify-run: %s ended before READY=1 (status %d)\n",
                                        argv[optind + 1],
                                        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
                                (void) unlink(sa.sun_path);
                                return 1;
                        }
                        n = recv(fd, buf, sizeof buf - 1, 0);
                        if (n < 0) {
                                if (errno == EINTR)
                                        continue;
                                perror("recv");
                                kill(pid, SIGTERM);
                                return 1;
                        }
                        buf[n] = 0;
                        if (has_ready(buf))
                                break;
                }
                unsigned long long us = now_us() - t0, cpu_ns = 0;
                if (kill_child) {
                        char path[64];
                        FILE *f;

                        snprintf(path, sizeof path, "/proc/%d/schedstat", (int) pid);
                        f = fopen(path, "re");
                        if (!f || fscanf(f, "%llu", &cpu_ns) != 1)
                                cpu_ns = 0;
                        if (f)
                                fclose(f);
                        printf("ready %llu %d %llu\n", us, (int) pid, cpu_ns / 1000);
                        fflush(stdout);
                        kill(pid, SIGTERM);
                } else {
                        printf("ready %llu %d\n", us, (int) pid);
                        fflush(stdout);
                }
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR) {
                        perror("waitpid");
                        return 1;
                }
        (void) unlink(sa.sun_path);
        if (wait_exit) {
                printf("exit %llu %d\n", (unsigned long long) (now_us() - t0),
                       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
                return 0;
        }
        if (kill_child)
                return 0;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
