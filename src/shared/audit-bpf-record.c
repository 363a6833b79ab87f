/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Audit BPF records → AuditBpfCall / AuditBpfNewRoot. The executable's path arrives as its
 * components, innermost first, each NUL-terminated (the BPF side walks dentries upwards); it is
 * put back together here.
 */

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "audit-bpf-record.h"
#include "macro.h"

int audit_bpf_record_type(const void *data, size_t size)
{
        uint32_t type;

        if (!data || size < sizeof type)
                return -EBADMSG;
        memcpy(&type, data, sizeof type);
        if (type == AUDIT_RECORD_CALL && size >= AUDIT_RECORD_CALL_HEADER_SIZE)
                return AUDIT_RECORD_CALL;
        if (type == AUDIT_RECORD_NEW_ROOT && size >= sizeof(struct audit_record_new_root))
                return AUDIT_RECORD_NEW_ROOT;
        return -EBADMSG;
}

static const char *const origin_table[] = {
        [AUDIT_ORIGIN_LIBC] = "libc",
        [AUDIT_ORIGIN_SYSCALL] = "syscall",
        [AUDIT_ORIGIN_SYSCALL32] = "syscall32",
};

const char *audit_bpf_origin_to_string(uint32_t origin)
{
        return origin < ELEMENTSOF(origin_table) ? origin_table[origin] : NULL;
}

/* Joins components (innermost first, NUL-separated) into "/outer/…/inner". */
static void exe_from_components(const char *comps, size_t len, bool truncated, AuditBpfCall *ret)
{
        size_t off = len > 0 && truncated ? (size_t) snprintf(ret->exe, sizeof ret->exe, "…") : 0;

        /* From the end, outermost first; a last component without its NUL (cannot happen from the
         * BPF side) counts too, empty ones do not. */
        for (size_t i = len; i > 0;) {
                size_t end = i, room = sizeof ret->exe - 1 - off;

                while (i > 0 && comps[i - 1] != '\0')
                        i--;
                if (i == end) {
                        i--;
                        continue;
                }
                if (room < 2)
                        break;
                ret->exe[off++] = '/';
                memcpy(ret->exe + off, comps + i, MIN(end - i, room - 1));
                off += MIN(end - i, room - 1);
        }
        ret->exe[off] = '\0';
        ret->exe_len = off;
}

int audit_bpf_parse_call(const void *data, size_t size, AuditBpfCall *ret)
{
        struct audit_record_call r = {};
        AuditBpfCall c = {};

        assert(ret);

        if (audit_bpf_record_type(data, size) != AUDIT_RECORD_CALL)
                return -EBADMSG;
        memcpy(&r, data, MIN(size, sizeof r));
        if (r.exe_len > AUDIT_RECORD_EXE_BUFFER || size < AUDIT_RECORD_CALL_HEADER_SIZE + r.exe_len)
                return -EBADMSG;
        if (!audit_bpf_origin_to_string(r.origin))
                return -EBADMSG;

        c.pid = r.tgid;
        if (r.nlen > 0 && !(r.flags & (AUDIT_RECORD_NAME_FAULT | AUDIT_RECORD_ARGS_FAULT))) {
                c.n_name = MIN((size_t) r.nlen, (size_t) AUDIT_RECORD_NAME_MAX);
                memcpy(c.name, r.name, c.n_name * sizeof c.name[0]);
        }
        c.comm_len = strnlen(r.comm, sizeof r.comm);
        memcpy(c.comm, r.comm, c.comm_len);
        if (!(r.flags & AUDIT_RECORD_NO_EXE))
                exe_from_components(r.exe, r.exe_len, r.flags & AUDIT_RECORD_EXE_TRUNCATED, &c);
        *ret = c;
        return 0;
}

int audit_bpf_parse_new_root(const void *data, size_t size, AuditBpfNewRoot *ret)
{
        struct audit_record_new_root r;

        assert(ret);

        if (audit_bpf_record_type(data, size) != AUDIT_RECORD_NEW_ROOT)
                return -EBADMSG;
        memcpy(&r, data, sizeof r);
        *ret = (AuditBpfNewRoot) {
                .pid = r.tgid,
                .mntns = r.mntns,
                .root_dev = r.root_dev,
                .root_ino = r.root_ino,
        };
        return 0;
}
