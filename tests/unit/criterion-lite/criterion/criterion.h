/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * criterion-lite: the part of Criterion's API that tests/unit uses, for the cross builds
 * (scripts/cross-build.sh) where Debian 12 has no Criterion to link: it is not built for armhf
 * at all, and the arm64 libcriterion-dev cannot be installed beside the native one (libgit2-dev,
 * libnanomsg-dev and libhttp-parser-dev are not Multi-Arch: same). Native builds use the real
 * Criterion; tests/unit/meson.build picks this one only in a cross build without it.
 *
 * Same meaning as Criterion: each Test() runs in a process of its own (fork), .init before and
 * .fini after it; cr_assert_* ends the test on failure, cr_expect_* records it and goes on;
 * cr_skip_test() ends it as skipped; .timeout (seconds) kills it. The runner (runner.c) prints
 * Criterion's "Synthesis" line and exits non-zero when a test failed or crashed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct criterion_lite_test {
        const char *suite;
        const char *name;
        void (*run)(void);
        /* The Test() options the tests use, named as in Criterion. */
        void (*init)(void);
        void (*fini)(void);
        double timeout;
        bool disabled;
        const char *description;
        struct criterion_lite_test *next;
};

void criterion_lite_register(struct criterion_lite_test *t);
/* kind: 0 expectation (the test goes on), 1 assertion (ends the test), 2 skip (ends it). The
 * format starts with a space (the macros prepend one, so an absent message is no empty format). */
void criterion_lite_report(int kind, const char *file, int line, const char *what, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

#define Test(suite, name, ...)                                                                      \
        static void criterion_lite_fn_##suite##_##name(void);                                       \
        static struct criterion_lite_test criterion_lite_desc_##suite##_##name = {                  \
                #suite, #name, criterion_lite_fn_##suite##_##name, __VA_ARGS__                      \
        };                                                                                          \
        __attribute__((constructor)) static void criterion_lite_reg_##suite##_##name(void)          \
        {                                                                                           \
                criterion_lite_register(&criterion_lite_desc_##suite##_##name);                     \
        }                                                                                           \
        static void criterion_lite_fn_##suite##_##name(void)

#define CRITERION_LITE_CHECK_(kind, cond, what, ...)                                                \
        do {                                                                                        \
                if (!(cond))                                                                        \
                        criterion_lite_report((kind), __FILE__, __LINE__, (what), " " __VA_ARGS__); \
        } while (0)

#define cr_assert(c, ...) CRITERION_LITE_CHECK_(1, (c), #c, __VA_ARGS__)
#define cr_expect(c, ...) CRITERION_LITE_CHECK_(0, (c), #c, __VA_ARGS__)
#define cr_assert_not(c, ...) CRITERION_LITE_CHECK_(1, !(c), "!(" #c ")", __VA_ARGS__)
#define cr_expect_not(c, ...) CRITERION_LITE_CHECK_(0, !(c), "!(" #c ")", __VA_ARGS__)

#define CRITERION_LITE_OP_(kind, a, op, b, ...) \
        CRITERION_LITE_CHECK_(kind, (a) op (b), #a " " #op " " #b, __VA_ARGS__)
#define cr_assert_eq(a, b, ...) CRITERION_LITE_OP_(1, a, ==, b, __VA_ARGS__)
#define cr_expect_eq(a, b, ...) CRITERION_LITE_OP_(0, a, ==, b, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) CRITERION_LITE_OP_(1, a, !=, b, __VA_ARGS__)
#define cr_expect_neq(a, b, ...) CRITERION_LITE_OP_(0, a, !=, b, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) CRITERION_LITE_OP_(1, a, <, b, __VA_ARGS__)
#define cr_expect_lt(a, b, ...) CRITERION_LITE_OP_(0, a, <, b, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) CRITERION_LITE_OP_(1, a, <=, b, __VA_ARGS__)
#define cr_expect_leq(a, b, ...) CRITERION_LITE_OP_(0, a, <=, b, __VA_ARGS__)
#define cr_assert_gt(a, b, ...) CRITERION_LITE_OP_(1, a, >, b, __VA_ARGS__)
#define cr_expect_gt(a, b, ...) CRITERION_LITE_OP_(0, a, >, b, __VA_ARGS__)
#define cr_assert_geq(a, b, ...) CRITERION_LITE_OP_(1, a, >=, b, __VA_ARGS__)
#define cr_expect_geq(a, b, ...) CRITERION_LITE_OP_(0, a, >=, b, __VA_ARGS__)
#define cr_assert_null(a, ...) CRITERION_LITE_OP_(1, a, ==, NULL, __VA_ARGS__)
#define cr_expect_null(a, ...) CRITERION_LITE_OP_(0, a, ==, NULL, __VA_ARGS__)
#define cr_assert_not_null(a, ...) CRITERION_LITE_OP_(1, a, !=, NULL, __VA_ARGS__)
#define cr_expect_not_null(a, ...) CRITERION_LITE_OP_(0, a, !=, NULL, __VA_ARGS__)

/* Strings: both are shown on failure; NULL is a failure, not a crash. */
int criterion_lite_str_differ(int kind, const char *file, int line, const char *what, const char *a,
                              const char *b);
#define CRITERION_LITE_STR_(kind, a, b, ...)                                                        \
        do {                                                                                        \
                if (criterion_lite_str_differ((kind), __FILE__, __LINE__, #a " == " #b, (a), (b)))  \
                        criterion_lite_report((kind), __FILE__, __LINE__, #a " == " #b,             \
                                              " " __VA_ARGS__);                                     \
        } while (0)
#define cr_assert_str_eq(a, b, ...) CRITERION_LITE_STR_(1, a, b, __VA_ARGS__)
#define cr_expect_str_eq(a, b, ...) CRITERION_LITE_STR_(0, a, b, __VA_ARGS__)
/* Different strings (NULL differs from every string, as a failure to compare would). */
#define CRITERION_LITE_STR_NEQ_(kind, a, b, ...)                                                    \
        do {                                                                                        \
                const char *criterion_lite_a_ = (a), *criterion_lite_b_ = (b);                      \
                CRITERION_LITE_CHECK_(kind, !criterion_lite_a_ || !criterion_lite_b_ ||             \
                                      strcmp(criterion_lite_a_, criterion_lite_b_) != 0,            \
                                      #a " != " #b, __VA_ARGS__);                                   \
        } while (0)
#define cr_assert_str_neq(a, b, ...) CRITERION_LITE_STR_NEQ_(1, a, b, __VA_ARGS__)
#define cr_expect_str_neq(a, b, ...) CRITERION_LITE_STR_NEQ_(0, a, b, __VA_ARGS__)

#define cr_assert_arr_eq(a, b, size, ...) \
        CRITERION_LITE_CHECK_(1, memcmp((a), (b), (size)) == 0, "memcmp(" #a ", " #b ", " #size ") == 0", __VA_ARGS__)
#define cr_expect_arr_eq(a, b, size, ...) \
        CRITERION_LITE_CHECK_(0, memcmp((a), (b), (size)) == 0, "memcmp(" #a ", " #b ", " #size ") == 0", __VA_ARGS__)

#define cr_assert_fail(...) criterion_lite_report(1, __FILE__, __LINE__, "cr_assert_fail", " " __VA_ARGS__)
#define cr_skip_test(...) criterion_lite_report(2, __FILE__, __LINE__, "skipped", " " __VA_ARGS__)
#define cr_log_info(...) (fprintf(stderr, "[----] " __VA_ARGS__), fputc('\n', stderr))
