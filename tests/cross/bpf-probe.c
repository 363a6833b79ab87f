/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bpf-probe: whether bpf(2) reaches the kernel from where this runs. Exit 0 if it does (an
 * invalid command gets the kernel's EINVAL), 1 if the call fails with ENOSYS, as under
 * qemu-user 7.2, which has no translation for it. test-cross-smoke.sh asks before it lets the
 * drift watch try: only a bpf(2) that works can attach anything at the host's cgroup2 root.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
        long r = syscall(SYS_bpf, -1, NULL, 0);

        printf("bpf(2): %s\n", r < 0 && errno == ENOSYS ? "not implemented" : "reaches the kernel");
        return r < 0 && errno == ENOSYS ? 1 : 0;
}
