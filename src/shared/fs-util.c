/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small file-system helpers shared by the daemon's state files; see fs-util.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"

/* mkdir -p: creates path and every missing parent with mode. */
static int mkdir_p(const char *path, mode_t mode)
{
        _cleanup_free_ char *p = strdup(path);

        if (!p)
                return -ENOMEM;
        for (char *s = p + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return negative_errno();
                *s = '/';
        }
        if (mkdir(p, mode) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

int write_file_atomic(const char *dir, const char *name, const char *content)
{
        return write_file_atomic_iov(dir, name, &(struct iovec) { (void *) content, strlen(content) }, 1);
}

int write_file_atomic_iov(const char *dir, const char *name, const struct iovec *iov, size_t n)
{
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char tmp[64];
        int r;

        for (size_t i = 0; i < n; i++)
                if (iov[i].iov_len > INT_MAX)
                        return -EFBIG;

        r = mkdir_p(dir, 0755);
        if (r < 0)
                return r;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();

        snprintf(tmp, sizeof tmp, ".#%.20s.%d.%u", name, getpid(), (unsigned) random());
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return negative_errno();

        /* dprintf() writes it all or fails. */
        for (size_t i = 0; i < n; i++)
                if ((size_t) dprintf(fd, "%.*s", (int) iov[i].iov_len, (const char *) iov[i].iov_base) !=
                    iov[i].iov_len) {
                        r = errno > 0 ? -errno : -EIO;
                        goto fail;
                }
        if (fsync(fd) < 0) {
                r = negative_errno();
                goto fail;
        }
        if (renameat(dfd, tmp, dfd, name) < 0) {
                r = negative_errno();
                goto fail;
        }
        if (fsync(dfd) < 0)
                return negative_errno();
        return 0;

fail:
        (void) unlinkat(dfd, tmp, 0);
        return r;
}

int remove_file_sync(const char *dir, const char *name)
{
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (unlinkat(dfd, name, 0) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        (void) fsync(dfd);
        return 1;
}
