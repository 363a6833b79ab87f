/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "netns-util.h"

Test(netns_util, names)
{
        static const struct {
                const char *name;
                bool valid;
        } cases[] = {
                { "cni-0b5c6a47-3f1d-4a31-9d3e-6e0f1f2a3b4c", true },
                { "blue", true },
                { ".host", true }, /* a name like any other to the kernel; [Match] gives it its meaning */
                { "a b", true },
                { "", false },
                { ".", false },
                { "..", false },
                { "a/b", false },
                { "../x", false },
        };
        char longest[257];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_expect_eq(netns_name_valid(cases[i].name), cases[i].valid, "'%s'", cases[i].name);
        cr_expect(!netns_name_valid(NULL));
        memset(longest, 'n', sizeof longest - 1);
        longest[255] = '\0';
        cr_expect(netns_name_valid(longest)); /* NAME_MAX */
        longest[255] = 'n';
        longest[256] = '\0';
        cr_expect(!netns_name_valid(longest));
}

/* A file that is no namespace: an empty one (a name ip netns made, not bound yet) is -EAGAIN,
 * anything else -EMEDIUMTYPE; never a namespace. Needs no privilege. */
Test(netns_util, not_a_namespace)
{
        char dir[] = "/tmp/test-netns-util.XXXXXX";
        NetnsId id;
        int dfd, fd;

        cr_assert_not_null(mkdtemp(dir));
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(dfd, 0);
        fd = openat(dfd, "empty", O_WRONLY | O_CREAT | O_CLOEXEC, 0);
        cr_assert_geq(fd, 0);
        close(fd);
        fd = openat(dfd, "full", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        cr_assert_geq(fd, 0);
        cr_assert_eq(write(fd, "x", 1), 1);
        close(fd);

        cr_expect_eq(netns_open_at(dfd, "empty", &id), -EAGAIN);
        cr_expect_eq(netns_open_at(dfd, "full", &id), -EMEDIUMTYPE);
        cr_expect_eq(netns_open_at(dfd, "absent", &id), -ENOENT);
        cr_expect_eq(netns_open_at(dfd, "..", &id), -EINVAL);
        cr_expect_eq(netns_open_at(dfd, "a/b", &id), -EINVAL);

        (void) unlinkat(dfd, "empty", 0);
        (void) unlinkat(dfd, "full", 0);
        close(dfd);
        (void) rmdir(dir);
}

/* Our own namespace through /proc: a network namespace, with an id. */
Test(netns_util, own_namespace)
{
        NetnsId id, id2;
        int dfd, fd, fd2;

        dfd = open("/proc/self/ns", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                cr_skip_test("no /proc/self/ns");
        /* /proc/self/ns/net is a symlink: netns_open_at() does not follow one (O_NOFOLLOW). */
        cr_expect_lt(netns_open_at(dfd, "net", &id), 0);
        close(dfd);
        fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(fd, 0);
        cr_expect_eq(netns_fd_id(fd, &id), 0);
        fd2 = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(fd2, 0);
        cr_expect_eq(netns_fd_id(fd2, &id2), 0);
        cr_expect(netns_id_equal(id, id2));
        close(fd);
        close(fd2);
}
