/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Regression inputs for the fuzz targets (tests/fuzz). Each fuzz target's source is included
 * here with its entry point renamed, so these tests run exactly the checks the fuzzer runs
 * (assert() failures, crashes and ASan reports fail the test), on every build, without clang.
 *
 * When a fuzzer finds a crash: minimise it (fuzz-X -minimize_crash=1 crash-…), add the bytes
 * below as a new row of the target's table with a comment saying what broke, and fix the code.
 * Inputs that were hard for the fuzzer to reach (lines past CONFIG_LINE_MAX, NUL bytes, the
 * largest numbers, every length limit) are kept here too.
 */

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#define LLVMFuzzerTestOneInput fuzz_policy_one
#include "../fuzz/fuzz-policy.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_duration_one
#include "../fuzz/fuzz-duration.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_kmsg_one
#include "../fuzz/fuzz-kmsg.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_audit_one
#include "../fuzz/fuzz-audit.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_sysctl_binary_one
#include "../fuzz/fuzz-sysctl-binary.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_bus_validate_one
#include "../fuzz/fuzz-bus-validate.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_elf_one
#include "../fuzz/fuzz-elf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_bpf_protocol_one
#include "../fuzz/fuzz-bpf-protocol.c"
#undef LLVMFuzzerTestOneInput

typedef struct Input {
        const char *what;
        const char *data;
        size_t len; /* 0: strlen(data) */
} Input;

#define IN(w, d) { .what = (w), .data = (d), .len = sizeof(d) - 1 }

static void run_all(int (*one)(const uint8_t *, size_t), const Input *in, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                cr_log_info("input: %s", in[i].what);
                cr_assert_eq(one((const uint8_t *) in[i].data, in[i].len), 0, "%s", in[i].what);
        }
}

/* A buffer of n copies of c followed by tail (for inputs past a length limit). */
static char *repeat(char c, size_t n, const char *head, const char *tail, size_t *ret_len)
{
        size_t hl = strlen(head), tl = strlen(tail);
        char *s = malloc(hl + n + tl + 1);

        cr_assert_not_null(s);
        memcpy(s, head, hl);
        memset(s + hl, c, n);
        memcpy(s + hl + n, tail, tl + 1);
        *ret_len = hl + n + tl;
        return s;
}

Test(fuzz_regressions, policy)
{
        static const Input in[] = {
                IN("empty", ""),
                IN("NUL inside a key", "[IGMP]\nV3Unsolicited\0ReportInterval=5\n"),
                IN("NUL inside a section header", "[Ma\0tch]\nName=a\n"),
                IN("unterminated section", "[Match\nName=a\n"),
                IN("continuation at EOF", "[IGMP]\nVersion=2\\"),
                IN("only backslashes", "\\\\\\\\\\\n\\\n"),
                IN("bang alone", "[Match]\nName=!\n"),
                IN("glob specials", "[Match]\nName=[ [!] ** \\ *[\n"),
                IN("MAC edge", "[Match]\nMACAddress=ff:ff:ff:ff:ff:ff 0:0:0:0:0:0 :::::\n"),
                IN("CR only", "[IGMP]\rVersion=3\r"),
                IN("largest value", "[IGMP]\nV3UnsolicitedReportInterval=2147483647\n"),
                IN("one past", "[IGMP]\nV3UnsolicitedReportInterval=2147483648\n"),
                IN("int64 overflow", "[IGMP]\nV3UnsolicitedReportInterval=99999999999999999999min\n"),
                IN("high bytes", "[\xff\xfe]\n\xc3\x28=\xa0\xa1\n"),
        };
        run_all(fuzz_policy_one, in, ELEMENTSOF(in));

        /* Lines at and past CONFIG_LINE_MAX, and a file of nothing but one long line. */
        for (size_t n = CONFIG_LINE_MAX - 40; n <= CONFIG_LINE_MAX + 2; n++) {
                size_t len;
                char *s = repeat('a', n, "[Match]\nName=", "\n[IGMP]\nVersion=2\n", &len);
                cr_assert_eq(fuzz_policy_one((const uint8_t *) s, len), 0);
                free(s);
        }
        size_t len;
        char *s = repeat('[', 3 * CONFIG_LINE_MAX, "", "", &len);
        cr_assert_eq(fuzz_policy_one((const uint8_t *) s, len), 0);
        free(s);
}

Test(fuzz_regressions, duration)
{
        static const Input in[] = {
                IN("empty", ""),
                IN("dot", "."),
                IN("dot unit", ".s"),
                IN("INT64_MAX", "9223372036854775807"),
                IN("INT64_MAX + 1", "9223372036854775808"),
                IN("INT64_MAX min", "9223372036854775807min"),
                IN("many fraction digits", "1.00000000000000000000000000001s"),
                IN("fraction overflow", "0.99999999999999999999999min"),
                IN("unit only", "ms"),
                IN("spaces", " \t 5 \t ms \t "),
                IN("NUL after number", "5\0s"),
                IN("negative", "-5"),
                IN("plus", "+5"),
                IN("hex", "0x10"),
                /* fuzz-duration, crash-0c071702…: whole * mult fits, adding the fraction
                 * overflowed int64 (UBSan: signed integer overflow in duration.c; without
                 * UBSan a negative duration came out). */
                IN("fraction pushes past INT64_MAX", "9223372036854775.8080s"),
                IN("fraction pushes past INT64_MAX, min", "153722867280912.9min"),
                /* fuzz-duration, crash-1481aac0…: "…775.80s" gives 9223372036854775800 ms, but
                 * that number written as a bare number was refused with -ERANGE: the digit loop's
                 * overflow check ((INT64_MAX - 9) / 10) refuses every value above
                 * 9223372036854775799, INT64_MAX itself included. */
                IN("largest value from a fraction", "9223372036854775.80s"),
        };
        run_all(fuzz_duration_one, in, ELEMENTSOF(in));
}

#define WARN "warning: process `sysctl' used the deprecated sysctl system call with "

Test(fuzz_regressions, kmsg)
{
        static const Input in[] = {
                IN("style byte only", "\x01"),
                IN("empty records", "\x01\0\0\0"),
                IN("header only", "\x00" "6,1,2,-;"),
                IN("no semicolon", "\x00" "6,1,2,-"),
                IN("huge numbers", "\x00" "99999999999999999999,18446744073709551616,1,-;x"),
                IN("negative prio", "\x00" "-1,1,2,-;x"),
                IN("caller overflow", "\x01" "6,1,2,-,caller=T99999999999;x"),
                IN("bad escape", "\x00" "6,1,2,-;\\x\\xZ\\x4"),
                IN("NUL-free escapes", "\x00" "6,1,2,-;\\x00\\x00"),
                IN("legacy orphan +", "\x00" "4,11,101,+;3.5.\n"),
                IN("legacy c then gap", "\x00" "6,10,100,c;" WARN "\0" "4,12,101,+;3.5.\n"),
                IN("seq going back", "\x01" "6,10,100,-;a\0" "6,9,100,c;b\0" "6,8,100,c;c"),
                IN("warning, 11 components", "\x00" "6,1,2,-;" WARN "1.2.3.4.5.6.7.8.9.10.11."),
                IN("warning, INT_MIN", "\x00" "6,1,2,-;" WARN "-2147483648."),
                IN("warning, past INT_MAX", "\x00" "6,1,2,-;" WARN "2147483648."),
                IN("warning, no dot", "\x00" "6,1,2,-;" WARN "3.5"),
                IN("warning, comm with quote", "\x00" "6,1,2,-;warning: process `a'b' used the deprecated sysctl system call with 1."),
                IN("warning, comm 16 bytes", "\x00" "6,1,2,-;warning: process `0123456789abcdef' used the deprecated sysctl system call with 1."),
                IN("removed wording", "\x00" "6,1,2,-;warning: process `x' used the removed sysctl system call"),
                IN("release junk", "\x01" "99999999999999999999.9"),
        };
        run_all(fuzz_kmsg_one, in, ELEMENTSOF(in));

        /* A record longer than KMSG_MESSAGE_MAX, and continuations that push the joined text past it. */
        size_t len;
        char *s = repeat('x', 3 * KMSG_MESSAGE_MAX, "\x01" "6,1,2,-;", "", &len);
        cr_assert_eq(fuzz_kmsg_one((const uint8_t *) s, len), 0);
        free(s);
        static const char tail[] = "\0" "6,2,3,+;1.2.3.\0" "6,3,4,+;4.5.";
        s = repeat('y', KMSG_MESSAGE_MAX - 10, "\x02" "6,1,2,c;" WARN, "", &len);
        s = realloc(s, len + sizeof tail);
        cr_assert_not_null(s);
        memcpy(s + len, tail, sizeof tail);
        len += sizeof tail - 1;
        cr_assert_eq(fuzz_kmsg_one((const uint8_t *) s, len), 0);
        free(s);
}

#define AHDR "audit(1700000000.123:456): "

Test(fuzz_regressions, audit)
{
        static const Input in[] = {
                IN("empty", ""),
                IN("header only", AHDR),
                IN("unterminated header", "audit(1.2:3"),
                IN("no colon", "audit(1.2:3) arch=c000003e syscall=156"),
                IN("quote unterminated", AHDR "arch=c000003e syscall=156 comm=\"abc"),
                IN("odd hex", AHDR "arch=c000003e syscall=156 comm=616"),
                IN("hex with NUL", AHDR "arch=c000003e syscall=156 comm=610062 exe=00"),
                IN("key without value", AHDR "arch=c000003e syscall=156 pid= comm="),
                IN("huge numbers", AHDR "arch=fffffffffffffffff syscall=99999999999 pid=99999999999"),
                IN("NUL in the middle", AHDR "arch=c000003e\0syscall=156"),
                IN("trailing NULs only", "\0\0\0\0"),
                IN("type prefix alone", "type=SYSCALL msg="),
        };
        run_all(fuzz_audit_one, in, ELEMENTSOF(in));

        /* exe and comm past their limits, quoted and hex-encoded */
        size_t len;
        char *s = repeat('e', 2 * AUDIT_RECORD_EXE_MAX, AHDR "arch=c000003e syscall=156 exe=\"/", "\" comm=\"x\"", &len);
        cr_assert_eq(fuzz_audit_one((const uint8_t *) s, len), 0);
        free(s);
        s = repeat('4', 2 * AUDIT_RECORD_EXE_MAX, AHDR "arch=c000003e syscall=156 comm=", " exe=41", &len);
        cr_assert_eq(fuzz_audit_one((const uint8_t *) s, len), 0);
        free(s);
}

Test(fuzz_regressions, sysctl_binary)
{
        static const int vecs[][SYSCTL_BINARY_NAME_MAX + 2] = {
                { 3, 5, 16, -2, 17 },
                { 3, 12, 16, -3, 17 },
                { 3, 5, 16, 0x7fffffff, 17 },
                { 3, 5, 16, (int) 0x80000000, 17 },
                { 3, 5, 17, 3, 1, 1, 1, 1, 1, 1 },
                { -1, -1, -1 },
                { 1, 7, 1, 2, 3 },
        };
        for (size_t i = 0; i < ELEMENTSOF(vecs); i++)
                for (size_t n = 0; n <= SYSCTL_BINARY_NAME_MAX + 2; n++) {
                        cr_assert_eq(fuzz_sysctl_binary_one((const uint8_t *) vecs[i], n * sizeof(int)), 0);
                        cr_assert_eq(fuzz_sysctl_binary_one((const uint8_t *) vecs[i], n * sizeof(int) + 1), 0);
                }
}

Test(fuzz_regressions, bus_validate)
{
        static const Input in[] = {
                IN("nothing", ""),
                IN("eight entries of the same knob", "\x08\x01u\0\0\0\0\0\0\0\xc8\x01u\0\0\0\0\0\0\0\xc8\x01u\0\0\0\0\0\0\0\xc8"),
                IN("names: dot dot", "\x00\x00" "\0\0\0\0\0\0\0\0" "\0\0\0\0\0\0\0\1" ".."),
                IN("names: slash", "\x00\x00" "\0\0\0\0\0\0\0\0" "\0\0\0\0\0\0\0\1" "a/b"),
                IN("names: 200 bytes", "\x00\x00" "\0\0\0\0\0\0\0\0" "\0\0\0\0\0\0\0\1"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
                IN("names: UTF-8 cut at 64", "\x00\x00" "\0\0\0\0\0\0\0\0" "\0\0\0\0\0\0\0\1"
                   "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                   "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                   "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xe2\x82\xac\xe2\x82\xac"),
                IN("unknown knob, long name", "\x01\xff\xff" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                   "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                   "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
                IN("value INT64_MIN as 'i'", "\x01\x00" "i" "\x80\0\0\0\0\0\0\0"),
                IN("value UINT32_MAX+1 as 'u'", "\x01\x01" "u" "\0\0\0\x01\0\0\0\0"),
        };
        run_all(fuzz_bus_validate_one, in, ELEMENTSOF(in));
}

Test(fuzz_regressions, elf)
{
        static const Input in[] = {
                IN("empty", ""),
                IN("magic only", "\x7f" "ELF"),
                IN("ident, 64-bit LE, nothing else", "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0"),
                IN("big endian", "\x7f" "ELF\x02\x02\x01\0\0\0\0\0\0\0\0\0"),
                IN("32-bit truncated header", "\x7f" "ELF\x01\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x03\0"),
        };

        run_all(fuzz_elf_one, in, sizeof in / sizeof in[0]);
}

Test(fuzz_regressions, bpf_protocol)
{
        static const Input in[] = {
                IN("nothing", ""),
                IN("an empty datagram with three fds, received as a reply", "\x13"),
                IN("a zeroed request with three fds (the helper takes two)", "\x07"),
                IN("a zeroed reply received as a request (truncated)", "\x08"),
                IN("a rescan request, version 2, one fd", "\x05\x02\0\0\0\x03\0\0\0\x01\0\0\0"),
                IN("a reply, version 2, nothing in it", "\x18\x02\0\0\0\0\0\0\0"),
        };

        run_all(fuzz_bpf_protocol_one, in, ELEMENTSOF(in));
}
