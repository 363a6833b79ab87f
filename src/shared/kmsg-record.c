/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /dev/kmsg record parsing, continuation joining and the deprecated-sysctl warning recogniser.
 * Everything here works on bytes handed in by the caller and bounds what it copies.
 */

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "kmsg-record.h"
#include "macro.h"
#include "parse-util.h"
#include "range-util.h"

/* Parses decimal digits at *p (at least one) up to end, advancing *p. */
static int parse_u64(const char **p, const char *end, uint64_t *ret)
{
        const char *s = *p;

        while (s < end && isdigit((unsigned char) *s))
                s++;
        if (parse_unsigned_range(*p, s, 10, UINT64_MAX, ret) < 0)
                return -EBADMSG;
        *p = s;
        return 0;
}

static int expect_char(const char **p, const char *end, char c)
{
        if (*p >= end || **p != c)
                return -EBADMSG;
        (*p)++;
        return 0;
}

/* One ",name=value" field after the flag. Unknown or malformed fields are skipped: newer kernels
 * may add fields, and none of them is needed to trust the record. */
static void parse_extra_field(const char *s, const char *e, KmsgRecord *r)
{
        uint64_t id;

        s = range_skip_prefix(s, e, "caller=");
        if (!s || s >= e || (*s != 'T' && *s != 'C'))
                return;
        bool cpu = *s == 'C';
        s++;
        if (parse_u64(&s, e, &id) < 0 || s != e || id > UINT32_MAX)
                return;
        r->has_caller = true;
        r->caller_is_cpu = cpu;
        r->caller_id = (uint32_t) id;
}

int kmsg_record_parse(const char *buf, size_t len, KmsgRecord *ret)
{
        KmsgRecord r = {};
        const char *p = buf, *end = buf + len, *msg, *msg_end;
        uint64_t prio;

        assert(buf || len == 0);
        assert(ret);

        if (!buf)
                return -EBADMSG;

        if (parse_u64(&p, end, &prio) < 0 || prio > UINT32_MAX)
                return -EBADMSG;
        r.facility = (unsigned) (prio >> 3);

        if (expect_char(&p, end, ',') < 0 ||
            parse_u64(&p, end, &r.seq) < 0 ||
            expect_char(&p, end, ',') < 0 ||
            parse_u64(&p, end, &r.ts_usec) < 0 ||
            expect_char(&p, end, ',') < 0)
                return -EBADMSG;

        /* The flag: one printable character. */
        if (p >= end || *p <= ' ' || *p >= 0x7f || *p == ',' || *p == ';')
                return -EBADMSG;
        r.flag = *p++;

        while (p < end && *p == ',') {
                const char *s = ++p;

                while (p < end && *p != ',' && *p != ';' && *p != '\n')
                        p++;
                parse_extra_field(s, p, &r);
        }
        if (expect_char(&p, end, ';') < 0)
                return -EBADMSG;

        /* The message runs to the first newline (a newline inside it is escaped); what follows
         * are " KEY=VALUE" dictionary lines, not needed here. A missing final newline is
         * tolerated. */
        msg = p;
        msg_end = memchr(msg, '\n', (size_t) (end - msg)) ?: end;

        for (const char *s = msg; s < msg_end; ) {
                unsigned char c = (unsigned char) *s;

                if (c == '\\' && msg_end - s >= 4 && s[1] == 'x' && unhexchar(s[2]) >= 0 && unhexchar(s[3]) >= 0) {
                        c = (unsigned char) (unhexchar(s[2]) << 4 | unhexchar(s[3]));
                        s += 4;
                } else
                        s++;

                if (r.message_len >= KMSG_MESSAGE_MAX) {
                        r.message_truncated = true;
                        break;
                }
                r.message[r.message_len++] = (char) c;
        }
        r.message[r.message_len] = '\0';

        *ret = r;
        return 0;
}

uint64_t kmsg_seq_lost(uint64_t prev_seq, uint64_t seq)
{
        if (prev_seq == UINT64_MAX || seq <= prev_seq + 1)
                return 0;
        return seq - prev_seq - 1;
}

KmsgContStyle kmsg_cont_style_from_release(const char *release)
{
        const char *p = release, *end;
        uint64_t major, minor;

        if (!release)
                return _KMSG_CONT_STYLE_INVALID;
        end = release + strlen(release);

        if (parse_u64(&p, end, &major) < 0 || expect_char(&p, end, '.') < 0 ||
            parse_u64(&p, end, &minor) < 0)
                return _KMSG_CONT_STYLE_INVALID;

        /* Linux 4.9 dropped the '+' flag and made 'c' mean "continues the previous record". */
        if (major < 4 || (major == 4 && minor < 9))
                return KMSG_CONT_LEGACY;
        return KMSG_CONT_MODERN;
}

void kmsg_assembler_init(KmsgAssembler *a, KmsgContStyle style)
{
        assert(a);
        assert(style >= 0 && style < _KMSG_CONT_STYLE_MAX);

        *a = (KmsgAssembler) { .style = style };
}

static void message_append(KmsgMessage *m, const KmsgRecord *r)
{
        size_t room = KMSG_MESSAGE_MAX - m->len, n = MIN(room, r->message_len);

        memcpy(m->text + m->len, r->message, n);
        m->len += n;
        m->text[m->len] = '\0';
        if (n < r->message_len || r->message_truncated)
                m->truncated = true;
        m->seq_last = r->seq;
        m->n_records++;
}

static void message_start(KmsgMessage *m, const KmsgRecord *r)
{
        *m = (KmsgMessage) {
                .seq = r->seq,
                .ts_usec = r->ts_usec,
                .has_caller = r->has_caller,
                .caller_is_cpu = r->caller_is_cpu,
                .caller_id = r->caller_id,
        };
        message_append(m, r);
}

/* Both records name their caller and it differs: certainly not one line. */
static bool caller_conflict(const KmsgMessage *m, const KmsgRecord *r)
{
        return m->has_caller && r->has_caller &&
                (m->caller_is_cpu != r->caller_is_cpu || m->caller_id != r->caller_id);
}

static const char sysctl_warning_prefix[] = "warning: process `";

/*
 * Kernels from 4.9 until sysctl_binary.c gained KERN_CONT printed each "%d." of the sysctl warning
 * as a record of its own ("3.", "5.", …, then an empty one for the "\n"). Such a bare fragment is
 * joined to a message that is that warning still waiting for its numbers.
 */
static bool is_bare_name_fragment(const KmsgRecord *r)
{
        size_t i = 0;

        if (r->message_len == 0)
                return true;
        if (r->message[i] == '-')
                i++;
        if (i >= r->message_len || !isdigit((unsigned char) r->message[i]))
                return false;
        while (i < r->message_len && isdigit((unsigned char) r->message[i]))
                i++;
        return i + 1 == r->message_len && r->message[i] == '.';
}

static bool is_sysctl_warning_awaiting_name(const KmsgMessage *m)
{
        const char *end = m->text + m->len;

        if (m->truncated || !range_skip_prefix(m->text, end, sysctl_warning_prefix))
                return false;
        if (m->len >= STRLEN(" call with ") && range_skip_prefix(end - STRLEN(" call with "), end, " call with "))
                return true;
        return m->len >= 2 && m->text[m->len - 1] == '.' && isdigit((unsigned char) m->text[m->len - 2]);
}

int kmsg_assembler_flush(KmsgAssembler *a, KmsgMessage *ret)
{
        assert(a);
        assert(ret);

        if (!a->pending)
                return 0;
        *ret = a->msg;
        a->pending = false;
        a->open = false;
        return 1;
}

/* Hands out the pending message (1, or 0 if none) and starts a new one with r. */
static int restart_pending(KmsgAssembler *a, const KmsgRecord *r, bool open, KmsgMessage *ret)
{
        int k = kmsg_assembler_flush(a, ret);

        message_start(&a->msg, r);
        a->pending = true;
        a->open = open;
        return k;
}

/* A continuation: appended to the open message of its caller, or (its head lost) a message of
 * its own. */
static int push_continuation(KmsgAssembler *a, const KmsgRecord *r, KmsgMessage *ret)
{
        if (a->pending && a->open && !caller_conflict(&a->msg, r)) {
                message_append(&a->msg, r);
                return 0;
        }
        return restart_pending(a, r, true, ret);
}

int kmsg_assembler_push(KmsgAssembler *a, const KmsgRecord *r, KmsgMessage *ret)
{
        bool gap;

        assert(a);
        assert(r);
        assert(ret);

        /* Before the first record nothing is open: a "gap" then changes nothing. */
        gap = r->seq != a->last_seq + 1;
        a->last_seq = r->seq;

        if (!kmsg_record_is_kernel(r))
                return 0;

        /* Records were lost: whatever was in progress will not get its missing pieces. */
        if (gap)
                a->open = false;

        if (a->style == KMSG_CONT_LEGACY) {
                switch (r->flag) {
                case 'c':
                        return restart_pending(a, r, true, ret);
                case '+':
                        return push_continuation(a, r, ret);
                default:
                        /* A whole line. */
                        if (!a->pending) {
                                message_start(ret, r);
                                return 1;
                        }
                        return restart_pending(a, r, false, ret);
                }
        }

        /* MODERN */
        if (r->flag == 'c' || r->flag == '+')
                return push_continuation(a, r, ret);

        if (a->pending && a->open && !caller_conflict(&a->msg, r) &&
            r->seq == a->msg.seq_last + 1 &&
            is_bare_name_fragment(r) && is_sysctl_warning_awaiting_name(&a->msg)) {
                message_append(&a->msg, r);
                if (r->message_len > 0)
                        return 0;
                /* The empty record is the "\n": the line is complete. */
                return kmsg_assembler_flush(a, ret);
        }
        return restart_pending(a, r, true, ret);
}

int kmsg_parse_sysctl_warning(const char *text, size_t len, SysctlWarning *ret)
{
        static const char *const words[] = { "deprecated", "removed" };
        SysctlWarning w = {};
        const char *p = NULL, *end, *comm;

        assert(text || len == 0);
        assert(ret);

        if (!text)
                return -ENOMSG;
        end = text + len;
        comm = range_skip_prefix(text, end, sysctl_warning_prefix);
        if (!comm)
                return -ENOMSG;

        /* COMM may contain anything, quotes and "' used the " included, but is at most 15 bytes,
         * shorter than the marker, and the marker holds a single quote: so the first position at
         * which a whole marker matches is the real one. */
        for (size_t k = 0; k < KMSG_COMM_MAX && k <= (size_t) (end - comm) && !p; k++) {
                const char *m = range_skip_prefix(comm + k, end, "' used the ");

                for (size_t i = 0; m && !p && i < ELEMENTSOF(words); i++) {
                        p = range_skip_prefix(m, end, words[i]);
                        p = p ? range_skip_prefix(p, end, " sysctl system call") : NULL;
                        if (!p)
                                continue;
                        if (memchr(comm, '\0', k))
                                return -EBADMSG;
                        memcpy(w.comm, comm, k);
                        w.comm[k] = '\0';
                        w.comm_len = k;
                }
        }
        if (!p)
                /* Some other "warning: process `…'" line (there were a few), or a comm longer
                 * than any task can have. */
                return -ENOMSG;

        /* Trailing whitespace (a newline kept by a joiner, a syslog line) is not part of it. */
        while (end > p && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\r' || end[-1] == '\t'))
                end--;

        if (p == end) {
                /* The 2.6.19-rc wording, without the name. */
                *ret = w;
                return 0;
        }

        /* " with " may have lost its trailing space to the trimming above when nlen was 0. */
        if (range_skip_prefix(p, end, " with") == end)
                p = end;
        else if (!(p = range_skip_prefix(p, end, " with ")))
                return -EBADMSG;

        while (p < end) {
                const char *dot = memchr(p, '.', (size_t) (end - p));
                int v;

                if (!dot || parse_int_range(p, dot, &v) < 0)
                        return -EBADMSG;
                if (w.n_name >= SYSCTL_BINARY_NAME_MAX)
                        return -E2BIG;
                w.name[w.n_name++] = v;
                p = dot + 1;
        }

        *ret = w;
        return 0;
}
