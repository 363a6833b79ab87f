/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF_OP_SYSCALL_ATTACH: load audit-syscall.bpf.o and attach its tp_btf/sys_enter program with
 * a raw tracepoint link. Sends the link, the ring buffer and the counters.
 */

#include <errno.h>

#include "bpf-audit-record.h"
#include "audit-syscall.skel.h"
#include "helper.h"
#include "log.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct audit_syscall_bpf *, audit_syscall_bpf__destroy);

int helper_syscall_attach(const BpfRequest *req, const int *fds, size_t n_fds, HelperReply *r)
{
        _cleanup_(audit_syscall_bpf__destroyp) struct audit_syscall_bpf *skel = audit_syscall_bpf__open();
        int err;

        if (!skel)
                return helper_reply_bpf_error(r, -errno, "Opening the syscall BPF object");
        err = helper_load_tp_btf(r, HELPER_TP_BTF(skel, igmpd_sys_enter, "syscall BPF program", "sys_enter"));
        if (err >= 0)
                log_debug("Attached tp_btf/sys_enter for system call 156/149.");
        return err;
}
