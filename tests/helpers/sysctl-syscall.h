/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The deprecated sysctl(2) system call, for the programs that call it on purpose
 * (tests/helpers/call-sysctl, bench/sysctl-flood). glibc dropped its wrapper; the number is
 * still reserved (and audited) on kernels that removed the call (5.5+).
 */

#include <stddef.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define NR_SYSCTL 156
#elif defined(__i386__)
#define NR_SYSCTL 149
#elif defined(SYS__sysctl)
#define NR_SYSCTL SYS__sysctl
#endif

struct sysctl_args {
        int *name;
        int nlen;
        void *oldval;
        size_t *oldlenp;
        void *newval;
        size_t newlen;
        unsigned long unused[4];
};
