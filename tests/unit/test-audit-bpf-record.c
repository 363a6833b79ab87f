/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The BPF audit records (src/bpf/bpf-audit-record.h) as user space parses them: the exe path put
 * back together from its components, the name vector clamped, every length checked.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-bpf-record.h"

/* A record as the BPF side sends it: comps are given innermost first, "\0"-separated. */
static size_t make_call(struct audit_record_call *r, const char *comps, size_t comps_len, int nlen,
                        const int *name, uint32_t flags)
{
        memset(r, 0, sizeof *r);
        r->type = AUDIT_RECORD_CALL;
        r->origin = AUDIT_ORIGIN_LIBC;
        r->tgid = 4242;
        r->tid = 4243;
        r->uid = 1000;
        r->nlen = nlen;
        r->flags = flags;
        for (int i = 0; i < nlen && i < AUDIT_RECORD_NAME_MAX; i++)
                r->name[i] = name[i];
        memcpy(r->comm, "legacy-tool", 11);
        memcpy(r->exe, comps, comps_len);
        r->exe_len = (uint32_t) comps_len;
        return AUDIT_RECORD_CALL_HEADER_SIZE + comps_len;
}

Test(audit_bpf_record, call_full)
{
        static const char comps[] = "legacy-tool\0bin\0usr"; /* with the final NUL */
        const int name[] = { 3, 5, 16, -2, 1 };
        struct audit_record_call r;
        AuditBpfCall c;
        size_t size = make_call(&r, comps, sizeof comps, 5, name, AUDIT_RECORD_WRITE);

        cr_assert_eq(audit_bpf_record_type(&r, size), AUDIT_RECORD_CALL);
        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_eq(c.pid, 4242);
        cr_expect_str_eq(audit_bpf_origin_to_string(AUDIT_ORIGIN_LIBC), "libc");
        cr_expect_eq(c.n_name, 5);
        cr_expect_arr_eq(c.name, name, sizeof name);
        cr_expect_str_eq(c.comm, "legacy-tool");
        cr_expect_eq(c.comm_len, 11);
        cr_expect_str_eq(c.exe, "/usr/bin/legacy-tool");
        cr_expect_eq(c.exe_len, strlen("/usr/bin/legacy-tool"));
}

Test(audit_bpf_record, exe_truncated_and_missing)
{
        static const char comps[] = "tool\0deep";
        struct audit_record_call r;
        AuditBpfCall c;
        size_t size = make_call(&r, comps, sizeof comps, 0, NULL, AUDIT_RECORD_EXE_TRUNCATED);

        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_str_eq(c.exe, "…/deep/tool");
        cr_expect_eq(c.n_name, 0);

        size = make_call(&r, "", 0, 0, NULL, AUDIT_RECORD_NO_EXE);
        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_str_eq(c.exe, "");
        cr_expect_eq(c.exe_len, 0);

        /* A last component without its NUL still counts; empty components are skipped. */
        size = make_call(&r, "x\0\0y", 4, 0, NULL, 0);
        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_str_eq(c.exe, "/y/x");
}

Test(audit_bpf_record, name_clamped_and_faults)
{
        int name[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
        struct audit_record_call r;
        AuditBpfCall c;
        size_t size = make_call(&r, "", 0, 12, name, 0);

        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_eq(c.n_name, AUDIT_RECORD_NAME_MAX);

        size = make_call(&r, "", 0, 3, name, AUDIT_RECORD_NAME_FAULT);
        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_eq(c.n_name, 0);

        size = make_call(&r, "", 0, 3, name, AUDIT_RECORD_ARGS_FAULT);
        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_eq(c.n_name, 0);

        size = make_call(&r, "", 0, -5, name, 0);
        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_eq(c.n_name, 0);
}

Test(audit_bpf_record, comm_fills_all_16_bytes)
{
        struct audit_record_call r;
        AuditBpfCall c;
        size_t size = make_call(&r, "", 0, 0, NULL, 0);

        memset(r.comm, 'A', sizeof r.comm); /* no NUL in the record */
        cr_assert_eq(audit_bpf_parse_call(&r, size, &c), 0);
        cr_expect_eq(c.comm_len, 16);
        cr_expect_eq(strlen(c.comm), 16);
}

Test(audit_bpf_record, lengths_checked)
{
        struct audit_record_call r;
        AuditBpfCall c;
        size_t size = make_call(&r, "abc", 4, 0, NULL, 0);

        cr_expect_eq(audit_bpf_parse_call(&r, size - 1, &c), -EBADMSG); /* exe_len beyond the record */
        cr_expect_eq(audit_bpf_parse_call(&r, AUDIT_RECORD_CALL_HEADER_SIZE - 1, &c), -EBADMSG);
        cr_expect_eq(audit_bpf_record_type(&r, 3), -EBADMSG);
        cr_expect_eq(audit_bpf_record_type(NULL, 0), -EBADMSG);
        r.exe_len = AUDIT_RECORD_EXE_BUFFER + 1;
        cr_expect_eq(audit_bpf_parse_call(&r, sizeof r, &c), -EBADMSG);
        make_call(&r, "", 0, 0, NULL, 0);
        r.origin = 99;
        cr_expect_eq(audit_bpf_parse_call(&r, size, &c), -EBADMSG);
        r.type = 77;
        cr_expect_eq(audit_bpf_record_type(&r, size), -EBADMSG);
}

/* Whatever the bytes, parsing never reads past them and the exe stays terminated. */
Test(audit_bpf_record, random_bytes)
{
        unsigned seed = 11;

        for (int round = 0; round < 20000; round++) {
                size_t size = (size_t) (rand_r(&seed) % (sizeof(struct audit_record_call) + 8));
                unsigned char *buf = malloc(size ?: 1);
                AuditBpfCall c;

                cr_assert_not_null(buf);
                for (size_t i = 0; i < size; i++)
                        buf[i] = (unsigned char) rand_r(&seed);
                if (size >= 4) {
                        uint32_t t = AUDIT_RECORD_CALL;
                        memcpy(buf, &t, sizeof t);
                }
                if (size >= AUDIT_RECORD_CALL_HEADER_SIZE) {
                        uint32_t v = (uint32_t) (rand_r(&seed) % 600);
                        memcpy(buf + offsetof(struct audit_record_call, exe_len), &v, sizeof v);
                        v = AUDIT_ORIGIN_SYSCALL;
                        memcpy(buf + offsetof(struct audit_record_call, origin), &v, sizeof v);
                }
                if (audit_bpf_parse_call(buf, size, &c) == 0) {
                        cr_assert_lt(c.exe_len, sizeof c.exe);
                        cr_assert_eq(strlen(c.exe), c.exe_len);
                        cr_assert_leq(c.n_name, AUDIT_RECORD_NAME_MAX);
                }
                free(buf);
        }
}

Test(audit_bpf_record, new_root)
{
        struct audit_record_new_root r = {
                .type = AUDIT_RECORD_NEW_ROOT, .tgid = 7, .mntns = 4026531841U, .root_dev = (8 << 20) | 1, .root_ino = 2,
        };
        AuditBpfNewRoot n;

        cr_assert_eq(audit_bpf_record_type(&r, sizeof r), AUDIT_RECORD_NEW_ROOT);
        cr_assert_eq(audit_bpf_parse_new_root(&r, sizeof r, &n), 0);
        cr_expect_eq(n.pid, 7);
        cr_expect_eq(n.mntns, 4026531841U);
        cr_expect_eq(n.root_dev, (8U << 20) | 1);
        cr_expect_eq(n.root_ino, 2);
        cr_expect_eq(audit_bpf_parse_new_root(&r, sizeof r - 1, &n), -EBADMSG);
}
