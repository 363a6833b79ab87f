/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Audit SYSCALL record text → AuditRecord. The format follows kernel/audit.c and auditsc.c:
 * "audit(%llu.%03lu:%u): " then space-separated key=value fields; strings go through
 * audit_log_untrustedstring(), which quotes them, or hex-encodes them (upper case, two digits a
 * byte) when they hold a '"', a byte below 0x21 or above 0x7e; a missing string is "(null)".
 */

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "audit-record.h"
#include "macro.h"
#include "parse-util.h"
#include "range-util.h"

/*
 * Decodes a string value into buf (size bytes incl. the NUL); *ret_has is false for "(null)".
 * 0, or -EBADMSG for a value the kernel would not have written.
 */
static int decode_string(const char *s, const char *e, char *buf, size_t size, size_t *ret_len, bool *ret_has)
{
        bool hex = s >= e || *s != '"';
        size_t n = 0;

        assert(size > 0);

        if (range_skip_prefix(s, e, "(null)") == e) {
                *ret_has = false;
                return 0;
        }
        if (!hex) {
                /* The tokenizer hands over the quotes; nothing inside needs unescaping. */
                if (e - s < 2 || e[-1] != '"')
                        return -EBADMSG;
                s++;
                e--;
        } else if (s >= e || (e - s) % 2 != 0)
                return -EBADMSG;
        for (const char *q = s; hex && q < e; q += 2)
                if (unhexchar(q[0]) < 0 || unhexchar(q[1]) < 0)
                        return -EBADMSG;

        for (const char *q = s; q < e && n + 1 < size; q += hex ? 2 : 1)
                buf[n++] = hex ? (char) (unhexchar(q[0]) << 4 | unhexchar(q[1])) : *q;
        buf[n] = '\0';
        *ret_len = n;
        *ret_has = true;
        return 0;
}

/* "audit(SEC.MSEC:SERIAL):" at *p; SERIAL is checked, not kept. */
static int parse_header(const char **p, const char *end, AuditRecord *a)
{
        const char *s = range_skip_prefix(*p, end, "audit("), *q;
        uint64_t sec, v;

        if (!s)
                return -EBADMSG;

        q = memchr(s, '.', (size_t) (end - s));
        if (!q || parse_unsigned_range(s, q, 10, UINT64_MAX, &sec) < 0)
                return -EBADMSG;
        s = q + 1;
        q = memchr(s, ':', (size_t) (end - s));
        if (!q || q - s != 3 || parse_unsigned_range(s, q, 10, 999, &v) < 0)
                return -EBADMSG;
        a->realtime_usec = sec > (UINT64_MAX - 999999) / 1000000 ? UINT64_MAX : sec * 1000000 + v * 1000;
        s = q + 1;
        q = memchr(s, ')', (size_t) (end - s));
        if (!q || parse_unsigned_range(s, q, 10, UINT32_MAX, &v) < 0)
                return -EBADMSG;

        s = q + 1;
        if (s >= end || *s != ':')
                return -EBADMSG;
        *p = s + 1;
        return 0;
}

/* The fields read, arch and syscall (which a record needs) first. */
typedef enum FieldKind {
        FIELD_U32,
        FIELD_HEX32,
        FIELD_INT,
        FIELD_COMM,
        FIELD_EXE,
} FieldKind;

static const struct {
        const char *name;
        FieldKind kind;
        size_t offset;
} fields[] = {
        { "arch", FIELD_HEX32, offsetof(AuditRecord, arch) },
        { "syscall", FIELD_INT, offsetof(AuditRecord, syscall) },
        { "pid", FIELD_U32, offsetof(AuditRecord, pid) },
        { "ppid", FIELD_U32, offsetof(AuditRecord, ppid) },
        { "uid", FIELD_U32, offsetof(AuditRecord, uid) },
        { "auid", FIELD_U32, offsetof(AuditRecord, auid) },
        { "comm", FIELD_COMM },
        { "exe", FIELD_EXE },
};

static int parse_field(size_t i, const char *v, const char *ve, AuditRecord *a)
{
        void *p = (uint8_t *) a + fields[i].offset;
        uint64_t u;

        switch (fields[i].kind) {
        case FIELD_INT:
                return parse_int_range(v, ve, p) < 0 ? -EBADMSG : 0;
        case FIELD_COMM:
                return decode_string(v, ve, a->comm, sizeof(a->comm), &a->comm_len, &a->has_comm);
        case FIELD_EXE:
                return decode_string(v, ve, a->exe, sizeof(a->exe), &a->exe_len, &a->has_exe);
        default:
                if (parse_unsigned_range(v, ve, fields[i].kind == FIELD_HEX32 ? 16 : 10, UINT32_MAX, &u) < 0)
                        return -EBADMSG;
                *(uint32_t *) p = (uint32_t) u;
                return 0;
        }
}

int audit_record_parse(const char *text, size_t len, AuditRecord *ret)
{
        AuditRecord a = {
                .uid = UINT32_MAX,
                .auid = UINT32_MAX,
        };
        bool seen[ELEMENTSOF(fields)] = {};
        const char *p = text, *end = text + len;
        int r;

        assert(text || len == 0);
        assert(ret);

        if (!text)
                return -EBADMSG;

        while (end > p && (end[-1] == '\0' || end[-1] == '\n' || end[-1] == ' '))
                end--;

        /* audit.log form: "type=SYSCALL msg=audit(…): …" */
        if (range_skip_prefix(p, end, "type=")) {
                while (p < end && *p != ' ')
                        p++;
                while (p < end && *p == ' ')
                        p++;
                p = range_skip_prefix(p, end, "msg=");
                if (!p)
                        return -EBADMSG;
        }

        r = parse_header(&p, end, &a);
        if (r < 0)
                return r;

        while (p < end) {
                const char *k, *ke, *v, *ve;

                while (p < end && *p == ' ')
                        p++;
                if (p >= end)
                        break;

                k = p;
                while (p < end && *p != '=' && *p != ' ')
                        p++;
                ke = p;
                if (p >= end || *p != '=')
                        continue; /* a word without a value: not ours to judge */
                v = ++p;
                if (p < end && *p == '"') {
                        /* Quoted values cannot contain '"'; run to the closing one. */
                        const char *q = memchr(p + 1, '"', (size_t) (end - p - 1));

                        p = q ? q + 1 : end;
                } else
                        while (p < end && *p != ' ')
                                p++;
                ve = p;

                for (size_t f = 0; f < ELEMENTSOF(fields); f++)
                        if (!seen[f] && range_skip_prefix(k, ke, fields[f].name) == ke) {
                                seen[f] = true;
                                r = parse_field(f, v, ve, &a);
                                if (r < 0)
                                        return r;
                        }

                /* Something glued to a closing quote: not the kernel's format. */
                if (p < end && *p != ' ')
                        return -EBADMSG;
        }

        if (!seen[0] || !seen[1]) /* arch, syscall */
                return -EBADMSG;

        *ret = a;
        return 0;
}

bool audit_record_is_sysctl(const AuditRecord *r)
{
        assert(r);

        return (r->arch == AUDIT_ARCH_X86_64 && r->syscall == AUDIT_RECORD_SYSCTL_NR_X86_64) ||
                (r->arch == AUDIT_ARCH_I386 && r->syscall == AUDIT_RECORD_SYSCTL_NR_I386);
}
