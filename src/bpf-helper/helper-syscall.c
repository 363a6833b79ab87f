/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF_OP_SYSCALL_ATTACH: load audit-syscall.bpf.o and attach its tp_btf/sys_enter program with
 * a raw tracepoint link. Sends the link, the ring buffer and the counters.
 */

#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpf-audit-record.h"
#include "audit-syscall.skel.h"
#include "helper.h"
#include "log.h"

static void audit_syscall_bpf_destroyp(struct audit_syscall_bpf **p)
{
        audit_syscall_bpf__destroy(*p);
}

int helper_syscall_attach(const BpfRequest *req, HelperReply *r)
{
        _cleanup_(audit_syscall_bpf_destroyp) struct audit_syscall_bpf *skel = NULL;
        const char *unsupported = helper_kernel_unsupported();
        uint64_t pidns_dev, pidns_ino;
        int link, err;

        if (unsupported)
                return helper_reply_error(r, -EOPNOTSUPP, "%s", unsupported);

        skel = audit_syscall_bpf__open();
        if (!skel)
                return helper_reply_bpf_error(r, -errno, "Opening the syscall BPF object");
        helper_pid_namespace(&pidns_dev, &pidns_ino);
        skel->rodata->pidns_dev = pidns_dev;
        skel->rodata->pidns_ino = pidns_ino;
        err = bpf_map__set_max_entries(skel->maps.events, HELPER_RINGBUF_SIZE);
        if (err < 0)
                return helper_reply_bpf_error(r, err, "Sizing the ring buffer");
        err = audit_syscall_bpf__load(skel);
        if (err < 0)
                return helper_reply_bpf_error(r, err, "Loading the syscall BPF program");

        /* tp_btf: the attach point comes from the program's BTF, hence no name. */
        link = bpf_raw_tracepoint_open(NULL, bpf_program__fd(skel->progs.igmpd_sys_enter));
        if (link < 0)
                return helper_reply_bpf_error(r, link, "Attaching to the sys_enter tracepoint");

        err = helper_reply_add(r, BPF_FD_LINK, link, 0, NULL, "tp_btf/sys_enter");
        if (err >= 0)
                err = helper_reply_add_maps(r, skel->maps.events, skel->maps.bss);
        if (err < 0)
                return helper_reply_error(r, err, "Building the reply failed");
        log_debug("Attached tp_btf/sys_enter for system call 156/149.");
        return 0;
}
