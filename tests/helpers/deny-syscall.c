/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * deny-syscall: runs a command under a seccomp filter that fails the named system calls with
 * EPERM, as systemd's SystemCallFilter= does (igmpd.service removes @privileged, capset(2)
 * among it). Sets no_new_privs, as a filter without CAP_SYS_ADMIN requires (and the unit's
 * NoNewPrivileges=yes does).
 *
 *   deny-syscall NAME[,NAME…] COMMAND [ARG…]     NAME: capset, capget, bpf, recvfrom (x86_64 numbers)
 */

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
        const char *name;
        long nr;
} known[] = {
        { "capset", SYS_capset },
        { "capget", SYS_capget },
        { "bpf", SYS_bpf },
        { "recvfrom", SYS_recvfrom },
};

int main(int argc, char *argv[])
{
        struct sock_filter f[2 + 2 * 8 + 1];
        struct sock_fprog prog = { .filter = f };
        size_t n = 0, k = 0;
        char names[256], *save = NULL;

        if (argc < 3) {
                fprintf(stderr, "Usage: %s NAME[,NAME…] COMMAND [ARG…]\n", argv[0]);
                return 2;
        }
        f[n++] = (struct sock_filter) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        snprintf(names, sizeof names, "%s", argv[1]);
        for (char *w = strtok_r(names, ",", &save); w && k < 8; w = strtok_r(NULL, ",", &save), k++) {
                size_t i;

                for (i = 0; i < sizeof known / sizeof known[0] && strcmp(known[i].name, w) != 0; i++)
                        ;
                if (i == sizeof known / sizeof known[0]) {
                        fprintf(stderr, "Unknown system call '%s'.\n", w);
                        return 2;
                }
                f[n++] = (struct sock_filter) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned) known[i].nr, 0, 1);
                f[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
        }
        f[n++] = (struct sock_filter) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        prog.len = (unsigned short) n;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
                perror("seccomp");
                return 1;
        }
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        return 127;
}
