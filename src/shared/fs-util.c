/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small file-system helpers shared by the daemon's state files; see fs-util.h.
 */

#include <errno.h>
#include <fcntl.h>
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

int atomic_file_open(AtomicFile *f, const char *dir, const char *name)
{
        int r;

        *f = ATOMIC_FILE_NULL;
        r = mkdir_p(dir, 0755);
        if (r < 0)
                return r;
        f->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (f->dfd < 0)
                return negative_errno();
        snprintf(f->tmp, sizeof f->tmp, ".#%.20s.%d.%u", name, getpid(), (unsigned) random());
        f->fd = openat(f->dfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (f->fd < 0) {
                r = negative_errno();
                f->dfd = safe_close(f->dfd);
                return r;
        }
        f->name = name;
        return 0;
}

int atomic_file_commit(AtomicFile *f)
{
        int r = 0;

        if (fsync(f->fd) < 0 || renameat(f->dfd, f->tmp, f->dfd, f->name) < 0)
                r = negative_errno();
        else {
                f->tmp[0] = '\0'; /* in place: nothing to remove */
                if (fsync(f->dfd) < 0)
                        r = negative_errno();
        }
        atomic_file_abort(f);
        return r;
}

void atomic_file_abort(AtomicFile *f)
{
        if (f->fd >= 0 && f->tmp[0] != '\0')
                (void) unlinkat(f->dfd, f->tmp, 0);
        f->fd = safe_close(f->fd);
        f->dfd = safe_close(f->dfd);
}

int write_all(int fd, const void *p, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, p, len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? negative_errno() : -EIO;
                p = (const char *) p + n;
                len -= (size_t) n;
        }
        return 0;
}

int write_file_atomic(const char *dir, const char *name, const char *content)
{
        AtomicFile f;
        int r = atomic_file_open(&f, dir, name);

        if (r < 0)
                return r;
        r = write_all(f.fd, content, strlen(content));
        if (r >= 0)
                return atomic_file_commit(&f);
        atomic_file_abort(&f);
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
