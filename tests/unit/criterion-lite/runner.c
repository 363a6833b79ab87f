/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * criterion-lite's runner (see criterion/criterion.h): runs every registered Test() in a child
 * process, in Criterion's order (by suite, then name), and prints Criterion's summary:
 *
 *   [====] Synthesis: Tested: N | Passing: N | Failing: N | Crashing: N
 *
 * Options meson passes to Criterion (--jobs N, --verbose…) are accepted and ignored; tests run
 * one after the other. A test's stdout and stderr are the runner's.
 */

#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "criterion/criterion.h"

enum { RESULT_PASS = 0, RESULT_FAIL = 1, RESULT_SKIP = 3 };

static struct criterion_lite_test *tests;
static jmp_buf test_end;
static int test_failed;

void criterion_lite_register(struct criterion_lite_test *t)
{
        struct criterion_lite_test **p = &tests;
        int c;

        while (*p && ((c = strcmp((*p)->suite, t->suite)) < 0 || (c == 0 && strcmp((*p)->name, t->name) < 0)))
                p = &(*p)->next;
        t->next = *p;
        *p = t;
}

void criterion_lite_report(int kind, const char *file, int line, const char *what, const char *fmt, ...)
{
        char msg[1024];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        /* fmt is " " plus the caller's message, if any. */
        if (kind == 2)
                fprintf(stderr, "[SKIP] %s:%d:%s\n", file, line, msg);
        else
                fprintf(stderr, "[----] %s:%d: %s failed: %s%s\n", file, line,
                        kind == 1 ? "Assertion" : "Expectation", what, msg);
        if (kind != 2)
                test_failed = 1;
        if (kind != 0)
                longjmp(test_end, kind == 2 ? RESULT_SKIP : RESULT_FAIL);
}

int criterion_lite_str_differ(int kind, const char *file, int line, const char *what, const char *a, const char *b)
{
        if (a && b && strcmp(a, b) == 0)
                return 0;
        fprintf(stderr, "[----] %s:%d: \"%s\" != \"%s\"\n", file, line, a ?: "(null)", b ?: "(null)");
        return 1;
}

static int run_child(const struct criterion_lite_test *t)
{
        volatile int result;

        if (t->timeout > 0)
                alarm((unsigned) ceil(t->timeout));
        result = setjmp(test_end);
        if (result == 0) {
                if (t->init)
                        t->init();
                t->run();
                result = test_failed ? RESULT_FAIL : RESULT_PASS;
        } else if (result == RESULT_SKIP && test_failed)
                result = RESULT_FAIL; /* an expectation failed before the skip */
        if (t->fini && (result != RESULT_SKIP || t->init))
                t->fini();
        fflush(NULL);
        return result;
}

int main(void)
{
        unsigned tested = 0, passed = 0, failed = 0, crashed = 0, skipped = 0;

        for (const struct criterion_lite_test *t = tests; t; t = t->next) {
                int status;
                pid_t pid;

                if (t->disabled) {
                        skipped++;
                        continue;
                }
                fflush(NULL);
                pid = fork();
                if (pid < 0) {
                        perror("fork");
                        return 1;
                }
                if (pid == 0)
                        _exit(run_child(t));
                while (waitpid(pid, &status, 0) < 0)
                        ;
                if (WIFEXITED(status) && WEXITSTATUS(status) == RESULT_SKIP) {
                        skipped++;
                        continue;
                }
                tested++;
                if (WIFEXITED(status) && WEXITSTATUS(status) == RESULT_PASS)
                        passed++;
                else if (WIFEXITED(status)) {
                        failed++;
                        fprintf(stderr, "[FAIL] %s::%s\n", t->suite, t->name);
                } else {
                        crashed++;
                        fprintf(stderr, "[FAIL] %s::%s: %s\n", t->suite, t->name,
                                WTERMSIG(status) == SIGALRM ? "timed out" : strsignal(WTERMSIG(status)));
                }
        }
        printf("[====] Synthesis: Tested: %u | Skipped: %u | Passing: %u | Failing: %u | Crashing: %u\n", tested,
               skipped, passed, failed, crashed);
        return failed || crashed ? 1 : 0;
}
