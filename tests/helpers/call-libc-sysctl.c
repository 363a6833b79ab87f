/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * call-libc-sysctl: a legacy caller of libc's sysctl(), linked as a program built against glibc
 * < 2.32 was: an undefined dynamic reference to sysctl@GLIBC_2.2.5 (readelf --dyn-syms shows
 * "UND sysctl@GLIBC_2.2.5"; current headers no longer declare sysctl(), so the reference is
 * made with .symver). On glibc ≥ 2.32 the call returns ENOSYS inside libc, without a system
 * call: only the libc audit source sees it.
 *
 *   call-libc-sysctl NAME [COUNT] [--wait-for FILE] [--print-libc]
 *
 * NAME like 3.5.16.-2.1; COUNT calls back to back (default 1). --wait-for: map libc, print
 * "ready PID", then wait (up to 10 minutes) until FILE exists before calling — so a test can
 * let igmpd find this process's libc first. --print-libc: print the libc file the call goes to.
 * Prints "pid PID result RET errno ERRNO" and, with COUNT > 1, "ns_per_call N".
 */

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
extern int legacy_sysctl(int *name, int nlen, void *oldval, size_t *oldlenp, void *newval, size_t newlen);
__asm__(".symver legacy_sysctl,sysctl@GLIBC_2.2.5");
#endif

int main(int argc, char *argv[])
{
        const char *name_arg = NULL, *wait_for = NULL;
        bool print_libc = false;
        long count = 1;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--wait-for") == 0 && i + 1 < argc)
                        wait_for = argv[++i];
                else if (strcmp(argv[i], "--print-libc") == 0)
                        print_libc = true;
                else if (!name_arg)
                        name_arg = argv[i];
                else
                        count = strtol(argv[i], NULL, 10);
        }
        if (!name_arg || count < 1) {
                fprintf(stderr, "Usage: %s NAME [COUNT] [--wait-for FILE] [--print-libc]\n", argv[0]);
                return 2;
        }
#if !defined(__x86_64__)
        (void) wait_for;
        (void) print_libc;
        fprintf(stderr, "sysctl@GLIBC_2.2.5 is the x86_64 compat symbol; not built for this architecture.\n");
        return 77;
#else
        int name[10], n = 0;

        for (const char *p = name_arg; *p && n < 10;) {
                char *end;
                errno = 0;
                long v = strtol(p, &end, 10);
                if (errno || end == p || (*end && *end != '.')) {
                        fprintf(stderr, "Bad name '%s'.\n", name_arg);
                        return 2;
                }
                name[n++] = (int) v;
                p = *end ? end + 1 : end;
        }
        if (print_libc) {
                Dl_info info;
                if (dladdr((void *) legacy_sysctl, &info) && info.dli_fname)
                        printf("libc %s\n", info.dli_fname);
        }
        if (wait_for) {
                printf("ready %ld\n", (long) getpid());
                fflush(stdout);
                for (int i = 0; i < 6000 && access(wait_for, F_OK) < 0; i++)
                        usleep(100 * 1000);
        }

        struct timespec a, b;
        int r = 0, e = 0;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (long i = 0; i < count; i++) {
                char buf[64];
                size_t len = sizeof buf;
                errno = 0;
                r = legacy_sysctl(name, n, buf, &len, NULL, 0);
                e = errno;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("pid %ld result %d errno %d (%s)\n", (long) getpid(), r, e, e ? strerror(e) : "ok");
        if (count > 1)
                printf("ns_per_call %.1f\n",
                       ((double) (b.tv_sec - a.tv_sec) * 1e9 + (double) (b.tv_nsec - a.tv_nsec)) / (double) count);
        fflush(stdout);
        return 0;
#endif
}
