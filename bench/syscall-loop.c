/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * syscall-loop: the cost of one cheap system call, for the benchmark's BPF section (what the
 * syscall audit source, a program on sys_enter, adds to every system call on the machine).
 *
 *   syscall-loop COUNT     COUNT getpid() system calls (through syscall(), never cached)
 *
 * Prints "syscall-loop calls=COUNT ns_per_call=N".
 */

#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench-util.h"

int main(int argc, char *argv[])
{
        unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
        uint64_t t0, t1;

        if (count == 0) {
                fprintf(stderr, "Usage: %s COUNT\n", argv[0]);
                return 2;
        }
        t0 = now_us();
        for (unsigned long i = 0; i < count; i++)
                (void) syscall(SYS_getpid);
        t1 = now_us();
        printf("syscall-loop calls=%lu ns_per_call=%.1f\n", count, (double) (t1 - t0) * 1000.0 / (double) count);
        return 0;
}
