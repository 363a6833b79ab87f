// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Audit source "libc": glibc ≥ 2.32 keeps sysctl() only as the compat symbol
 * sysctl@GLIBC_2.2.5, which answers ENOSYS without making a system call, so neither the kernel
 * log, nor audit, nor sys_enter sees an old program calling it. igmpd_libc_sysctl is a uprobe
 * on that symbol, attached by the helper to each libc file (inode) in use; it costs nothing
 * until a program calls it.
 *
 * A uprobe is bound to one inode: a libc copy in a container, chroot or another mount
 * namespace needs its own. igmpd_exec_watch tells user space about the first exec()s in a
 * mount namespace and root directory pair (a few, during the pair's first seconds, while
 * mounts are still being set up), so that the helper looks for a libc copy there. Not for a
 * namespace owned by a user namespace other than the initial one, nor for a task whose
 * credentials are in one: any user can make those (unshare -Urm), and the helper never probes
 * a file such a user made (it probes only root's, helper-libc.c), so their exec()s start no
 * privileged rescan at all.
 */

#include <asm/ptrace.h>

#include "audit-task.bpf.h"

/* int sysctl(int *name, int nlen, void *oldval, size_t *oldlenp, void *newval, size_t newlen):
 * x86_64 arguments in rdi, rsi, rdx, rcx, r8, r9. */
SEC("uprobe")
int igmpd_libc_sysctl(struct pt_regs *ctx)
{
        struct audit_record_call *r = record_begin(AUDIT_ORIGIN_LIBC);

        if (!r)
                return 0;
        if (ctx->r8)
                r->flags |= AUDIT_RECORD_WRITE;
        record_read_name(r, (const void *) ctx->rdi, (int) ctx->rsi);
        record_send(r);
        return 0;
}

/* A mount namespace and root directory. The namespace's inode number alone would do, but the
 * kernel gives a freed one to the next namespace at once: under a stream of short-lived
 * namespaces (every `ip netns exec` makes one) a new namespace would inherit a gone one's
 * reports, up to none left. Its id, which is never reused, tells them apart. */
struct root_key {
        __u64 mntns_id; /* 0 on a kernel that has neither ns.ns_id nor seq */
        __u32 mntns;
        __u32 dev;
        __u64 ino;
};

static __always_inline __u64 mntns_id(struct mnt_namespace___igmpd *mnt)
{
        if (bpf_core_field_exists(mnt->ns.ns_id))
                return BPF_CORE_READ(mnt, ns.ns_id);
        if (bpf_core_field_exists(mnt->seq))
                return BPF_CORE_READ(mnt, seq);
        return 0;
}

struct root_seen {
        __u64 first_ns;
        __u32 sent;
        __u32 pad;
};

/* Each pair is reported for its first exec()s, at most ROOT_REPORTS_MAX times during its first
 * ROOT_SETTLE_NS: a namespace is usually set up (bind mounts, pivot_root) right after it is
 * made, and the libc its programs map may change during that time. */
#define ROOT_REPORTS_MAX 8
#define ROOT_SETTLE_NS (10ULL * 1000000000ULL)

struct {
        __uint(type, BPF_MAP_TYPE_LRU_HASH);
        __uint(max_entries, 4096);
        __type(key, struct root_key);
        __type(value, struct root_seen);
} roots SEC(".maps");

SEC("tp_btf/sched_process_exec")
int igmpd_exec_watch(__u64 *ctx)
{
        struct task_struct___igmpd *task = (void *) bpf_get_current_task();
        struct dentry___igmpd *root = BPF_CORE_READ(task, fs, root.dentry);
        struct mnt_namespace___igmpd *mnt = BPF_CORE_READ(task, nsproxy, mnt_ns);
        struct root_key key = {
                .mntns_id = mntns_id(mnt),
                .mntns = BPF_CORE_READ(mnt, ns.inum),
                .dev = BPF_CORE_READ(root, d_inode, i_sb, s_dev),
                .ino = BPF_CORE_READ(root, d_inode, i_ino),
        };
        struct audit_record_new_root rec = {};
        struct root_seen *seen, fresh = {};
        __u64 now = bpf_ktime_get_ns();
        __u32 tgid, tid;

        /* A process user space cannot see (another PID namespace's sibling) it cannot look at. */
        current_ids(&tgid, &tid);
        if (tgid == 0 || BPF_CORE_READ(mnt, user_ns, level) != 0 || BPF_CORE_READ(task, cred, user_ns, level) != 0)
                return 0;

        seen = bpf_map_lookup_elem(&roots, &key);
        if (!seen) {
                fresh.first_ns = now;
                fresh.sent = 1;
                if (bpf_map_update_elem(&roots, &key, &fresh, BPF_NOEXIST) < 0)
                        return 0; /* another CPU was first */
        } else {
                if (seen->sent >= ROOT_REPORTS_MAX || now - seen->first_ns > ROOT_SETTLE_NS)
                        return 0;
                /* Not atomic (fetch-and-add needs BPF ISA v3): a race costs one report more or
                 * less, nothing else. */
                seen->sent++;
        }

        rec.type = AUDIT_RECORD_NEW_ROOT;
        rec.tgid = tgid;
        rec.mntns = key.mntns;
        rec.root_dev = key.dev;
        rec.root_ino = key.ino;
        if (bpf_ringbuf_output(&events, &rec, sizeof rec, 0) < 0)
                __sync_fetch_and_add(&counters.lost, 1);
        return 0;
}
