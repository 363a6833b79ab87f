// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Audit source "syscall": every entry of system call 156 (x86_64 _sysctl; 149 for ia32 tasks),
 * whether the kernel still implements it (< 5.9) or answers ENOSYS, with the caller's
 * struct __sysctl_args and name vector. Runs on every system call of every process (a compare
 * and return for all but these), hence opt-in. A seccomp filter that denies the call acts
 * before sys_enter: such calls are not seen.
 */

#include "audit-task.bpf.h"

#define NR_SYSCTL_64 156
#define NR_SYSCTL_32 149

/* struct __sysctl_args as a 64-bit and as an ia32 caller lays it out. */
struct sysctl_args64 {
        __u64 name;
        __s32 nlen;
        __u32 pad;
        __u64 oldval, oldlenp, newval, newlen;
};

struct sysctl_args32 {
        __u32 name;
        __s32 nlen;
        __u32 oldval, oldlenp, newval, newlen;
};

/* tp_btf/sys_enter: ctx[0] is struct pt_regs *, ctx[1] the system call number. */
SEC("tp_btf/sys_enter")
int igmpd_sys_enter(__u64 *ctx)
{
        struct pt_regs___igmpd *regs = (void *) ctx[0];
        long id = (long) ctx[1];
        struct sysctl_args64 a = {};
        struct sysctl_args32 a32 = {};
        struct task_struct___igmpd *task;
        struct audit_record_call *r;
        bool compat;
        long err;

        if (id != NR_SYSCTL_64 && id != NR_SYSCTL_32)
                return 0;
        task = (void *) bpf_get_current_task();
        compat = BPF_CORE_READ(task, thread_info.status) & TS_COMPAT;
        if (id != (compat ? NR_SYSCTL_32 : NR_SYSCTL_64))
                return 0; /* 149 is mlock for 64-bit tasks, 156 sched_setscheduler for ia32 */

        r = record_begin(compat ? AUDIT_ORIGIN_SYSCALL32 : AUDIT_ORIGIN_SYSCALL);
        if (!r)
                return 0;
        if (compat) {
                /* Widened into the 64-bit layout: one path for both below. */
                err = bpf_probe_read_user(&a32, sizeof a32, (void *) (BPF_CORE_READ(regs, bx) & 0xffffffffUL));
                a.name = a32.name;
                a.nlen = a32.nlen;
                a.newval = a32.newval;
        } else
                err = bpf_probe_read_user(&a, sizeof a, (void *) BPF_CORE_READ(regs, di));
        if (err < 0)
                r->flags |= AUDIT_RECORD_ARGS_FAULT;
        else {
                if (a.newval)
                        r->flags |= AUDIT_RECORD_WRITE;
                record_read_name(r, (void *) a.name, a.nlen);
        }
        record_send(r);
        return 0;
}
