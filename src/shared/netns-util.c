/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Network namespace files; see netns-util.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "macro.h"
#include "netns-util.h"

bool netns_name_valid(const char *name)
{
        return !isempty(name) && strlen(name) <= NAME_MAX && !strchr(name, '/') && !streq(name, ".") &&
               !streq(name, "..");
}

int netns_fd_id(int fd, NetnsId *ret)
{
        struct statfs sfs;
        struct stat st;

        if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0)
                return -errno;
        if ((uint64_t) sfs.f_type != NSFS_MAGIC)
                return S_ISREG(st.st_mode) && st.st_size == 0 ? -EAGAIN : -EMEDIUMTYPE;
        *ret = (NetnsId) { .dev = (uint64_t) st.st_dev, .ino = (uint64_t) st.st_ino };
        return 0;
}

int netns_open_at(int dir_fd, const char *name, NetnsId *ret_id)
{
        NetnsId id;
        int fd, r;

        if (!netns_name_valid(name))
                return -EINVAL;
        /* O_NONBLOCK: never wait on a FIFO someone put there; nsfs ignores it. */
        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return -errno;
        r = netns_fd_id(fd, &id);
        if (r >= 0 && ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET)
                r = -EMEDIUMTYPE; /* another kind of namespace */
        if (r < 0) {
                close(fd);
                return r;
        }
        *ret_id = id;
        return fd;
}
