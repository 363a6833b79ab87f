/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The integer sysctl helpers, on regular files in a temporary directory: what is written, and
 * that reading it back gives the value. */

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysctl-util.h"

static const int32_t values[] = { 0, 1, -1, 9, 10, 11, 99, 100, 101, 200, 999, 1000, 12345, -200, 99999,
                                  100000, 1000000000, 1234567890, -1234567890, -10, -99, -100,
                                  INT32_MAX, INT32_MIN, INT32_MIN + 1 };

Test(sysctl_util, format_int)
{
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
                char want[32], buf[SYSCTL_INT_MAX + 1];
                size_t n;

                snprintf(want, sizeof want, "%d\n", values[i]);
                memset(buf, 'x', sizeof buf);
                n = sysctl_format_int(buf, values[i]);
                cr_assert_leq(n, (size_t) SYSCTL_INT_MAX);
                cr_assert_eq(n, strlen(want), "%d: length %zu", values[i], n);
                cr_assert_eq(memcmp(buf, want, n), 0, "%d: '%.*s'", values[i], (int) n, buf);
        }
}

Test(sysctl_util, write_read_update)
{
        char dir[] = "/tmp/test-sysctl-util.XXXXXX", content[32];
        int dfd, fd;
        int32_t v;
        ssize_t n;

        cr_assert_not_null(mkdtemp(dir));
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(dfd, 0);
        fd = openat(dfd, "knob", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        cr_assert_geq(fd, 0);
        close(fd);

        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
                fd = openat(dfd, "knob", O_WRONLY | O_TRUNC | O_CLOEXEC); /* pwrite at 0 on a file */
                cr_assert_geq(fd, 0);
                close(fd);
                cr_assert_eq(sysctl_write_int_at(dfd, "knob", values[i]), 0);
                fd = openat(dfd, "knob", O_RDONLY | O_CLOEXEC);
                n = read(fd, content, sizeof content - 1);
                close(fd);
                cr_assert_gt(n, 0);
                content[n] = '\0';
                cr_assert_eq(strtol(content, NULL, 10), values[i]);
                cr_assert_eq(content[n - 1], '\n');
                cr_assert_eq(sysctl_read_int_at(dfd, "knob", &v), 0);
                cr_assert_eq(v, values[i]);
        }

        cr_assert_eq(sysctl_write_int_at(dfd, "absent", 1), -ENOENT);
        cr_assert_eq(unlinkat(dfd, "knob", 0), 0);
        close(dfd);
        cr_assert_eq(rmdir(dir), 0);
}
