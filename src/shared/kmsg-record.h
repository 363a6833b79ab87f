/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The kernel log as /dev/kmsg hands it out: one record per read(), parsed into plain data; the
 * joiner that puts printk continuation fragments back together; and the recogniser of the
 * deprecated-sysctl(2) warning. No I/O: the caller reads /dev/kmsg and feeds the bytes in.
 *
 * Record format (Documentation/ABI/testing/dev-kmsg):
 *     "prio,seq,ts_usec,flag[,field…];message\n" then optional " KEY=VALUE\n" lines,
 * non-printable bytes and '\' in message escaped as "\xNN".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysctl-binary.h"

/* Longest message kept, per record and per joined message; longer ones are cut and flagged. */
#define KMSG_MESSAGE_MAX 1024

/* TASK_COMM_LEN: a comm is at most 15 bytes plus the NUL. */
#define KMSG_COMM_MAX 16

typedef struct KmsgRecord {
        unsigned facility; /* 0 = kernel; writers to /dev/kmsg always get ≥ 1 */
        uint64_t seq;
        uint64_t ts_usec;  /* µs since boot (the kernel's local_clock(), not wall-clock time) */
        char flag;         /* '-', 'c' or '+' (3.5–4.8); other characters are kept as they came */
        bool has_caller;   /* ",caller=T<tid>" or ",caller=C<cpu>" (CONFIG_PRINTK_CALLER, 5.1+) */
        bool caller_is_cpu;
        uint32_t caller_id; /* thread id, or cpu number if caller_is_cpu */
        bool message_truncated;
        size_t message_len;
        char message[KMSG_MESSAGE_MAX + 1]; /* unescaped bytes; message[message_len] == '\0' */
} KmsgRecord;

/*
 * Parses one record (the bytes of one read() of /dev/kmsg). The dictionary lines after the
 * message are skipped. Returns 0, or -EBADMSG for anything that is not a record header.
 * *ret is untouched on failure.
 */
int kmsg_record_parse(const char *buf, size_t len, KmsgRecord *ret);

/* Whether the kernel itself logged the record. Only these may count as events: anything a
 * process writes to /dev/kmsg is stored with a facility ≥ 1. */
static inline bool kmsg_record_is_kernel(const KmsgRecord *r)
{
        return r->facility == 0;
}

/*
 * Records missed between the last record read (prev_seq) and the one just read (seq): after a
 * read() failed with EPIPE the reader continues at the oldest record still in the buffer.
 * 0 when seq follows prev_seq or does not move forward, or prev_seq is UINT64_MAX (none read yet).
 */
uint64_t kmsg_seq_lost(uint64_t prev_seq, uint64_t seq);

/*
 * How a kernel marks a printk() line that was stored as several records:
 * LEGACY (3.5 … 4.8): 'c' is the first fragment, '+' each following one, '-' a whole line.
 * MODERN (4.9 and later): a line starts with a '-' record (complete or not, nothing says);
 *     'c' marks a record that continues the same caller's previous one.
 */
typedef enum KmsgContStyle {
        KMSG_CONT_LEGACY,
        KMSG_CONT_MODERN,
        _KMSG_CONT_STYLE_MAX,
        _KMSG_CONT_STYLE_INVALID = -22, /* -EINVAL */
} KmsgContStyle;

/* From uname's release, e.g. "4.9.0-19-amd64" → MODERN. _KMSG_CONT_STYLE_INVALID if unparsable. */
KmsgContStyle kmsg_cont_style_from_release(const char *release);

typedef struct KmsgMessage {
        uint64_t seq;       /* of the first record */
        uint64_t seq_last;  /* of the last record joined in */
        uint64_t ts_usec;   /* of the first record */
        bool has_caller;
        bool caller_is_cpu;
        uint32_t caller_id;
        unsigned n_records;
        bool truncated;     /* text was cut at KMSG_MESSAGE_MAX */
        size_t len;
        char text[KMSG_MESSAGE_MAX + 1]; /* text[len] == '\0' */
} KmsgMessage;

/*
 * Joins the records of kernel-facility lines into messages. It holds the newest message back
 * until the next record shows whether it continues, so: push every record as it is read (records
 * of other facilities are only used to track seq), and call kmsg_assembler_flush() whenever
 * /dev/kmsg has nothing more to read (EAGAIN). A lost record (seq gap) ends the message in
 * progress. Limitation: in MODERN style a continuation that arrives after another kernel line
 * (another CPU printing in between) cannot be told apart, and is attached to that line unless
 * both records carry different caller ids.
 */
typedef struct KmsgAssembler {
        KmsgContStyle style;
        uint64_t last_seq;
        bool pending;       /* msg holds a message not handed out yet */
        bool open;          /* … which may still get fragments */
        KmsgMessage msg;
} KmsgAssembler;

void kmsg_assembler_init(KmsgAssembler *a, KmsgContStyle style);

/*
 * Feeds one record. Returns 1 with *ret set to a complete message (never more than one per call),
 * 0 if none is ready yet; *ret is untouched then.
 */
int kmsg_assembler_push(KmsgAssembler *a, const KmsgRecord *r, KmsgMessage *ret);

/* Hands out the message held back, if any: 1 with *ret set, or 0. */
int kmsg_assembler_flush(KmsgAssembler *a, KmsgMessage *ret);

/*
 * The warning sys_sysctl() printed from 2.6.24 until the syscall went away in 5.9:
 *     "warning: process `COMM' used the deprecated sysctl system call with 3.5.16.-2.17."
 * (5.5 … 5.8 kept the same text while the syscall already did nothing.) Also accepted: "removed"
 * instead of "deprecated" (2.6.19 … 2.6.23 built with CONFIG_SYSCTL_SYSCALL=n; the 2.6.19 release
 * candidates printed it without " with …"). COMM is any bytes but NUL, up to 15.
 */
typedef struct SysctlWarning {
        char comm[KMSG_COMM_MAX]; /* NUL-terminated after comm_len bytes */
        size_t comm_len;
        size_t n_name;            /* may be 0: sysctl(2) accepted nlen == 0 */
        int name[SYSCTL_BINARY_NAME_MAX];
} SysctlWarning;

/*
 * Recognises the warning in a (joined, unescaped) message. Returns 0; -ENOMSG if the message is
 * not this warning (including a "comm" longer than 15 bytes); -EBADMSG if the text after
 * "sysctl system call" is malformed (bad or out-of-range number, missing dot, junk);
 * -E2BIG for more than SYSCTL_BINARY_NAME_MAX components. *ret is untouched on failure.
 */
int kmsg_parse_sysctl_warning(const char *text, size_t len, SysctlWarning *ret);
