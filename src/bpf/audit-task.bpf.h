/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the audit BPF programs share: the counters and building a
 * struct audit_record_call for the current task (pid, uid, comm, the executable's path walked
 * in BPF — bpf_d_path() is not callable from uprobes or tracepoints, and user space cannot read
 * another user's /proc/PID/exe without CAP_SYS_PTRACE — and the caller's name vector).
 * Included once by each audit object; each object gets its own copy of the maps.
 */

#include <stdbool.h>

#include "bpf-audit-record.h"
#include "bpf-kernel.h"

/* One record under construction per CPU (too large for the 512-byte BPF stack). */
struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, 1);
        __type(key, __u32);
        __type(value, struct audit_record_call);
} scratch SEC(".maps");

struct audit_counters counters;

/* The PID namespace user space lives in (igmpd's and the helper's, set by the helper before
 * loading): pids are reported as seen from there, 0 for a process outside it. 0/0: the
 * initial namespace's numbers. */
const volatile __u64 pidns_dev = 0;
const volatile __u64 pidns_ino = 0;

/* The current task's process and thread ids in that namespace; 0 if it is not visible there. */
static __always_inline void current_ids(__u32 *tgid, __u32 *tid)
{
        struct bpf_pidns_info ns;
        __u64 id;

        if (pidns_ino != 0) {
                if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof ns) < 0) {
                        *tgid = *tid = 0;
                        return;
                }
                *tgid = ns.tgid;
                *tid = ns.pid;
                return;
        }
        id = bpf_get_current_pid_tgid();
        *tgid = id >> 32;
        *tid = (__u32) id;
}

/* Path components walked at most, and mounts stacked on one mount point crossed at most. */
#define EXE_COMPONENTS_MAX 24
#define EXE_MOUNTS_MAX 4

static __always_inline void walk_exe(struct audit_record_call *r, struct task_struct___igmpd *task)
{
        struct file___igmpd *f = BPF_CORE_READ(task, mm, exe_file);
        struct dentry___igmpd *d, *parent;
        struct vfsmount___igmpd *vm;
        struct mount___igmpd *m, *mp;
        __u32 off = 0;
        int i, j;

        if (!f) {
                r->flags |= AUDIT_RECORD_NO_EXE;
                return;
        }
        d = BPF_CORE_READ(f, f_path.dentry);
        vm = BPF_CORE_READ(f, f_path.mnt);
        m = (void *) vm - bpf_core_field_offset(struct mount___igmpd, mnt);

        /* Like the kernel's prepend_path(), without its locks (best effort): climb to the
         * root of the mount tree, crossing from the root of each mount to its mount point.
         * One way through each iteration keeps the verifier's work linear. */
        for (i = 0; i < EXE_COMPONENTS_MAX; i++) {
                long n;

                for (j = 0; j < EXE_MOUNTS_MAX; j++) {
                        if (d != BPF_CORE_READ(vm, mnt_root))
                                break;
                        mp = BPF_CORE_READ(m, mnt_parent);
                        if (mp == m)
                                goto done; /* the namespace's root mount */
                        d = BPF_CORE_READ(m, mnt_mountpoint);
                        m = mp;
                        vm = (void *) mp + bpf_core_field_offset(struct mount___igmpd, mnt);
                }
                parent = BPF_CORE_READ(d, d_parent);
                if (parent == d)
                        goto done;
                if (off >= AUDIT_RECORD_EXE_MAX)
                        break;
                /* off < 448 and the buffer has 512 bytes: the verifier sees a bounded write. */
                n = bpf_probe_read_kernel_str(&r->exe[off & (AUDIT_RECORD_EXE_BUFFER - 1)],
                                              AUDIT_RECORD_COMPONENT_MAX, BPF_CORE_READ(d, d_name.name));
                if (n <= 0)
                        break;
                if (n == AUDIT_RECORD_COMPONENT_MAX)
                        r->flags |= AUDIT_RECORD_EXE_TRUNCATED;
                off += n;
                d = parent;
        }
        /* Out of room, of iterations or of readable names before reaching the root. */
        r->flags |= AUDIT_RECORD_EXE_TRUNCATED;
done:
        r->exe_len = off;
}

static __always_inline struct audit_record_call *record_begin(__u32 origin)
{
        struct task_struct___igmpd *task = (void *) bpf_get_current_task();
        struct audit_record_call *r;
        __u32 zero = 0;

        __sync_fetch_and_add(&counters.calls, 1);
        r = bpf_map_lookup_elem(&scratch, &zero);
        if (!r)
                return NULL;
        r->type = AUDIT_RECORD_CALL;
        r->origin = origin;
        current_ids(&r->tgid, &r->tid);
        r->uid = (__u32) bpf_get_current_uid_gid();
        r->flags = 0;
        r->nlen = 0;
        r->exe_len = 0;
        __builtin_memset(r->name, 0, sizeof r->name);
        bpf_get_current_comm(r->comm, sizeof r->comm);
        walk_exe(r, task);
        return r;
}

/* Copies min(nlen, AUDIT_RECORD_NAME_MAX) ints of the caller's name vector. */
static __always_inline void record_read_name(struct audit_record_call *r, const void *uname, int nlen)
{
        __u32 n = nlen;

        r->nlen = nlen;
        if (nlen <= 0)
                return;
        if (n > AUDIT_RECORD_NAME_MAX)
                n = AUDIT_RECORD_NAME_MAX;
        /* Keep clang from handing the unclamped register to the helper. */
        asm volatile("" : "+r"(n));
        n &= 0xf;
        if (n > AUDIT_RECORD_NAME_MAX)
                n = AUDIT_RECORD_NAME_MAX;
        if (n == 0 || bpf_probe_read_user(r->name, n * sizeof(__s32), uname) < 0)
                r->flags |= AUDIT_RECORD_NAME_FAULT;
}

static __always_inline void record_send(struct audit_record_call *r)
{
        __u64 size = AUDIT_RECORD_CALL_HEADER_SIZE + (r->exe_len & (AUDIT_RECORD_EXE_BUFFER - 1));

        if (bpf_ringbuf_output(&events, r, size, 0) < 0)
                __sync_fetch_and_add(&counters.lost, 1);
}
