// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The drift watch: a cgroup/sysctl program, attached (through a bpf_link) at the root of the
 * cgroup2 hierarchy, so it runs for every /proc/sys access of every process. It reports each
 * WRITE of the six knobs (net/ipv4/conf/X/{igmpv2,igmpv3}_unsolicited_report_interval,
 * force_igmp_version, net/ipv6/conf/X/{mldv1,mldv2}_unsolicited_report_interval,
 * force_mld_version; X a link, "all" or "default"), and of the namespace knobs
 * net/ipv4/igmp_qrv and net/ipv6/mld_qrv, made in igmpd's network namespace by any
 * process but igmpd, with the value before the write, the bytes written, pid, uid and comm.
 * It always returns 1: the write goes ahead unchanged, and the kernel may still reject it, which
 * is why igmpd re-reads the knob before acting on a record.
 *
 * The hook runs before the kernel parses the value, so the record is in the ring buffer before
 * the new value can be read back.
 *
 * Wake-ups: a record is submitted without flags, which makes the kernel wake the reader only
 * when it is the first record since the reader caught up; igmpd then leaves the ring alone for
 * a short while and drains everything written meanwhile at once, so a burst of writes costs one
 * wake-up, not one each (a wake-up per record made a watched write 2.7–3× as expensive; batched,
 * 1.2×). Past wakeup_bytes of unread records the program forces a wake-up, so a flood is
 * drained before the ring fills. Reading the writer's task (netns) needs CAP_PERFMON.
 */

#include "bpf-drift-record.h"
#include "bpf-kernel.h"

struct drift_counters counters;

/* Set by the loader (igmpd-bpf) before loading. */
const volatile __u32 watch_netns = 0;    /* inode of igmpd's network namespace; 0: all */
const volatile __u64 self_pidns_dev = 0; /* igmpd's pid namespace (kernel dev_t and inode) … */
const volatile __u64 self_pidns_ino = 0;
const volatile __u32 self_pid = 0;       /* … and igmpd's pid in it; 0: report igmpd too */
const volatile __u32 wakeup_bytes = 0;   /* force a wake-up once this much is unread; 0: never */

static const char knob0[] = "igmpv2_unsolicited_report_interval";
static const char knob1[] = "igmpv3_unsolicited_report_interval";
static const char knob2[] = "force_igmp_version";
static const char knob3[] = "mldv1_unsolicited_report_interval";
static const char knob4[] = "mldv2_unsolicited_report_interval";
static const char knob5[] = "force_mld_version";
static const char ns_knob0[] = "igmp_qrv";
static const char ns_knob1[] = "mld_qrv";

/* Sized for the longest name plus its NUL; a longer base name cannot be one of ours. */
#define BASE_NAME_MAX 40

static __always_inline int is_knob(const char *base)
{
        return !bpf_strncmp(base, BASE_NAME_MAX, knob0) || !bpf_strncmp(base, BASE_NAME_MAX, knob1) ||
               !bpf_strncmp(base, BASE_NAME_MAX, knob2) || !bpf_strncmp(base, BASE_NAME_MAX, knob3) ||
               !bpf_strncmp(base, BASE_NAME_MAX, knob4) || !bpf_strncmp(base, BASE_NAME_MAX, knob5) ||
               !bpf_strncmp(base, BASE_NAME_MAX, ns_knob0) || !bpf_strncmp(base, BASE_NAME_MAX, ns_knob1);
}

static __always_inline int is_self(void)
{
        struct bpf_pidns_info ns = {};

        if (!self_pid)
                return 0;
        /* Fails unless the writer lives in igmpd's pid namespace. */
        if (bpf_get_ns_current_pid_tgid(self_pidns_dev, self_pidns_ino, &ns, sizeof ns) < 0)
                return 0;
        return ns.tgid == self_pid;
}

SEC("cgroup/sysctl")
int igmpd_drift_watch(struct bpf_sysctl *ctx)
{
        /* Initialised: without it the verifier refuses the helper's use of the stack. */
        char base[BASE_NAME_MAX] = {};
        struct task_struct___igmpd *task;
        struct drift_record *r;
        __u64 flags = 0;
        __u32 netns;

        if (!ctx->write)
                return 1;
        if (bpf_sysctl_get_name(ctx, base, sizeof base, BPF_F_SYSCTL_BASE_NAME) < 0)
                return 1; /* -E2BIG: longer than any of ours */
        if (!is_knob(base))
                return 1;

        task = (void *) bpf_get_current_task();
        netns = BPF_CORE_READ(task, nsproxy, net_ns, ns.inum);
        if (watch_netns && netns != watch_netns) {
                __sync_fetch_and_add(&counters.elsewhere, 1);
                return 1;
        }
        if (is_self()) {
                __sync_fetch_and_add(&counters.own, 1);
                return 1;
        }

        r = bpf_ringbuf_reserve(&events, sizeof *r, 0);
        if (!r) {
                __sync_fetch_and_add(&counters.lost, 1);
                return 1;
        }
        r->type = DRIFT_RECORD_WRITE;
        r->tgid = bpf_get_current_pid_tgid() >> 32;
        r->uid = (__u32) bpf_get_current_uid_gid();
        r->netns = netns;
        if (bpf_get_current_comm(r->comm, sizeof r->comm) < 0)
                r->comm[0] = '\0';
        r->name_len = bpf_sysctl_get_name(ctx, r->name, sizeof r->name, 0);
        r->old_len = bpf_sysctl_get_current_value(ctx, r->old_value, sizeof r->old_value);
        r->new_len = bpf_sysctl_get_new_value(ctx, r->new_value, sizeof r->new_value);

        if (wakeup_bytes && bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
                flags = BPF_RB_FORCE_WAKEUP;
        bpf_ringbuf_submit(r, flags);
        __sync_fetch_and_add(&counters.sent, 1);
        return 1;
}
