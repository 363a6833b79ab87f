/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * call-sysctl: calls the binary sysctl(2) system call (raw syscall number, since glibc dropped
 * its wrapper and 5.9 dropped the syscall) with a name vector given as "3.5.16.-2.17", reading
 * the value. Prints "pid PID result RET errno ERRNO" on stdout, so a test can match the audit
 * event to this process. The call fails on modern kernels (ENOSYS from 5.9 on); that is
 * expected and not an error of this program.
 *
 *   call-sysctl NAME [COUNT]
 *
 * COUNT (default 1) calls are made back to back (for coalescing tests).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sysctl-syscall.h"

int main(int argc, char *argv[])
{
        if (argc < 2 || argc > 3) {
                fprintf(stderr, "Usage: %s NAME [COUNT]   (NAME like 3.5.16.-2.17)\n", argv[0]);
                return 2;
        }
#ifndef NR_SYSCTL
        /* arm64 and the other asm-generic architectures never had the system call. */
        fprintf(stderr, "No sysctl(2) system call number known for this architecture.\n");
        return 77;
#else
        int name[10];
        int n = 0;
        long count = 1;
        char *p, *end;

        for (p = argv[1]; *p && n < 10;) {
                errno = 0;
                long v = strtol(p, &end, 10);
                if (errno || end == p) {
                        fprintf(stderr, "Bad name component at '%s'.\n", p);
                        return 2;
                }
                name[n++] = (int) v;
                p = *end == '.' ? end + 1 : end;
                if (*end && *end != '.') {
                        fprintf(stderr, "Bad name '%s'.\n", argv[1]);
                        return 2;
                }
        }
        if (argc == 3)
                count = strtol(argv[2], NULL, 10);

        for (long i = 0; i < count; i++) {
                char buf[256];
                size_t len = sizeof buf;
                struct sysctl_args a = { .name = name, .nlen = n, .oldval = buf, .oldlenp = &len };
                long r = syscall(NR_SYSCTL, &a);
                int e = r < 0 ? errno : 0;

                if (i == 0 || i == count - 1)
                        printf("pid %ld result %ld errno %d (%s)\n", (long) getpid(), r, e, e ? strerror(e) : "ok");
        }
        fflush(stdout);
        return 0;
#endif
}
