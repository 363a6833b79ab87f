/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Capability masks over capget(2)/capset(2) (version 3: two 32-bit words per set) and the
 * ambient set's prctl(2) interface.
 */

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cap-util.h"
#include "macro.h"

#define CAP_BITS 64

static const char *const capability_names[] = {
        "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
        "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
        "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
        "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
        "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
        "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
        "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
        "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
        "CAP_CHECKPOINT_RESTORE",
};

int capability_get(CapabilitySets *ret)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};
        CapabilitySets s = {};

        if (syscall(SYS_capget, &h, d) < 0)
                return -errno;
        s.effective = (uint64_t) d[1].effective << 32 | d[0].effective;
        s.permitted = (uint64_t) d[1].permitted << 32 | d[0].permitted;
        s.inheritable = (uint64_t) d[1].inheritable << 32 | d[0].inheritable;
        /* The kernel keeps ambient ⊆ permitted ∩ inheritable: only those are asked about (none,
         * usually: a prctl() per capability was most of a start's system calls before READY=1). */
        for (int c = 0; c < CAP_BITS; c++) {
                int r;

                if (!(s.permitted & s.inheritable & CAP_MASK(c)))
                        continue;
                r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, (unsigned long) c, 0UL, 0UL);
                if (r < 0)
                        break; /* past the kernel's last capability, or no ambient set */
                if (r > 0)
                        s.ambient |= CAP_MASK(c);
        }
        *ret = s;
        return 0;
}

bool capability_is_effective(int cap)
{
        CapabilitySets s;

        return cap >= 0 && cap < CAP_BITS && capability_get(&s) >= 0 && (s.effective & CAP_MASK(cap));
}

int capability_drop_except(uint64_t keep)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};
        CapabilitySets s;
        int r;

        r = capability_get(&s);
        if (r < 0)
                return r;
        /* Ambient capabilities must go first: the kernel keeps ambient ⊆ permitted ∩ inheritable. */
        for (int c = 0; c < CAP_BITS; c++)
                if ((s.ambient & CAP_MASK(c)) && !(keep & CAP_MASK(c)) &&
                    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, (unsigned long) c, 0UL, 0UL) < 0)
                        return -errno;
        for (size_t i = 0; i < 2; i++) /* the low word first */
                d[i] = (struct __user_cap_data_struct) {
                        .effective = (uint32_t) ((s.effective & keep) >> 32 * i),
                        .permitted = (uint32_t) ((s.permitted & keep) >> 32 * i),
                        .inheritable = (uint32_t) ((s.inheritable & keep) >> 32 * i),
                };
        return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

const char *capability_to_name(int cap, char buf[16])
{
        if (cap < 0 || cap >= CAP_BITS)
                return NULL;
        if ((size_t) cap < ELEMENTSOF(capability_names))
                return capability_names[cap];
        snprintf(buf, 16, "cap_%d", cap);
        return buf;
}

void capability_format(uint64_t mask, char *buf, size_t size)
{
        size_t off = 0;

        if (size == 0)
                return;
        buf[0] = '\0';
        for (int c = 0; c < CAP_BITS && off < size; c++) {
                char tmp[16];

                if (!(mask & CAP_MASK(c)))
                        continue;
                off += (size_t) snprintf(buf + off, size - off, "%s%s", off > 0 ? " " : "",
                                         capability_to_name(c, tmp));
        }
}
