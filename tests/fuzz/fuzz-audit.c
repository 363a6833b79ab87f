/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: audit_record_parse() on arbitrary bytes (not NUL-terminated: the input is
 * copied to a buffer of exactly its size so ASan sees any over-read). Invariants: strings within
 * bounds and NUL-terminated, a failed parse leaves the output untouched.
 */

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit-record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static AuditRecord r, canary;
        char *buf;
        int k;

        if (size > 64 * 1024)
                return 0;
        buf = malloc(size ? size : 1);
        if (!buf)
                return 0;
        memcpy(buf, data, size);

        memset(&r, 0xa5, sizeof r);
        memset(&canary, 0xa5, sizeof canary);
        k = audit_record_parse(buf, size, &r);
        assert(k == 0 || k == -EBADMSG);
        if (k < 0)
                assert(memcmp(&r, &canary, sizeof r) == 0);
        else {
                assert(r.comm_len < AUDIT_RECORD_COMM_MAX);
                assert(r.comm[r.comm_len] == '\0');
                assert(r.exe_len < AUDIT_RECORD_EXE_MAX);
                assert(r.exe[r.exe_len] == '\0');
                (void) audit_record_is_sysctl(&r);
        }
        free(buf);
        return 0;
}
