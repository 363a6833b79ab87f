/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Reading and writing integer sysctls relative to a directory fd (e.g. /proc/sys/net/ipv4/conf),
 * so no path is ever built from an untrusted string: the interface name is one validated path
 * component and the knob name comes from the knob table.
 */

/* Opens /proc/sys/net/<family>/conf as a directory fd. Returns fd or -errno. */
int sysctl_open_conf_dir(const char *family);

/* Opens <ifname> below the conf dir. -EINVAL for an invalid name, -ENOENT if absent. */
int sysctl_open_link_dir(int conf_fd, const char *ifname);

/* "VALUE\n" in decimal at buf, which holds at least SYSCTL_INT_MAX bytes (no NUL written).
 * Returns the length. */
#define SYSCTL_INT_MAX 13 /* "-2147483648\n" and one to spare */
size_t sysctl_format_int(char *buf, int32_t value);

/*
 * A sysctl integer as text, as /proc/sys shows it or a writer sends it: optional blanks, an
 * optional '-', decimal digits, optional trailing blanks and newline. 0 or -EINVAL.
 */
int sysctl_parse_int(const char *s, size_t len, int32_t *ret);

/* Through an fd opened on the sysctl itself (read at and written at offset 0). */
int sysctl_read_int_fd(int fd, int32_t *ret);
int sysctl_write_int_fd(int fd, int32_t value);

int sysctl_read_int_at(int dir_fd, const char *name, int32_t *ret);
int sysctl_write_int_at(int dir_fd, const char *name, int32_t value);
