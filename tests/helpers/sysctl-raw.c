/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysctl-raw: makes the binary sysctl(2) system call with its own "mov $156,%eax; syscall" (as
 * old static glibc did), built statically, for igmpctl audit scan's tests (and it calls it,
 * for the syscall audit source). Prints "pid PID result RET".
 */

#include <stdio.h>
#include <unistd.h>

#include "sysctl-syscall.h"

int main(void)
{
#if defined(__x86_64__)
        int name[] = { 3, 5, 16, -2, 1 };
        char buf[64];
        size_t len = sizeof buf;
        struct sysctl_args a = { .name = name, .nlen = 5, .oldval = buf, .oldlenp = &len };
        long ret;

        __asm__ volatile("mov $156, %%eax\n\tsyscall"
                         : "=a"(ret)
                         : "D"(&a)
                         : "rcx", "r11", "memory");
        printf("pid %ld result %ld\n", (long) getpid(), ret);
        return 0;
#else
        fprintf(stderr, "x86_64 only.\n");
        return 77;
#endif
}
