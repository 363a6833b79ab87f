/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Network namespaces by file: the binds under /run/netns (ip netns, containerd/CNI), and the
 * one calling thread switching into one of them and back (setns(2), CAP_SYS_ADMIN).
 *
 * Only what is *created* needs the switch: a socket stays in the namespace it was made in, and a
 * directory fd of /proc/sys/net/... opened inside a namespace goes on resolving names in that
 * namespace whichever namespace the caller is in later (checked on Linux 6.18; a path walked from
 * /proc/sys itself resolves in the caller's namespace).
 */

#include <stdbool.h>
#include <stdint.h>

#define NETNS_RUN_DIR "/run/netns"

/* The identity of a namespace file (st_dev, st_ino of the nsfs inode). */
typedef struct NetnsId {
        uint64_t dev, ino;
} NetnsId;

static inline bool netns_id_equal(NetnsId a, NetnsId b)
{
        return a.dev == b.dev && a.ino == b.ino;
}

/* A name `ip netns` could have made: one path component, not "." or "..", at most NAME_MAX. */
bool netns_name_valid(const char *name);

/* Opens dir/name if it is a bound network namespace (not yet bound: -EAGAIN; not a network
 * namespace: -EMEDIUMTYPE). Returns the fd and fills *ret_id, or -errno. dir_fd: the fd of
 * NETNS_RUN_DIR. */
int netns_open_at(int dir_fd, const char *name, NetnsId *ret_id);

/* The id of the namespace fd refers to. 0 or -errno. */
int netns_fd_id(int fd, NetnsId *ret);
