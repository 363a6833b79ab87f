/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF_OP_DRIFT_ATTACH: load drift-watch.bpf.o, told which network namespace to watch and which
 * process to leave out (igmpd: the request's namespace fds and pid), and attach its
 * cgroup/sysctl program with a bpf_link at the root of the cgroup2 hierarchy. Sends the link,
 * the ring buffer and the counters.
 */

#include <errno.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>

#include "bpf-drift-record.h"
#include "cap-util.h"
#include "drift-watch.skel.h"
#include "helper.h"
#include "log.h"

/* Unread records that make the program wake igmpd at once rather than at the end of its short
 * batching delay: a quarter of the ring, so a flood is drained long before the ring is full. */
#define DRIFT_WAKEUP_BYTES (HELPER_RINGBUF_SIZE / 4)

DEFINE_TRIVIAL_CLEANUP_FUNC(struct drift_watch_bpf *, drift_watch_bpf__destroy);

/*
 * The root of the cgroup2 hierarchy (of this process's cgroup namespace), opened: the "unified"
 * mount of a hybrid host, /sys/fs/cgroup on a unified one, and otherwise a private, detached
 * cgroup2 mount — when nothing is mounted there, as under "ip netns exec" (which mounts a fresh
 * /sys) or on a host that mounts only cgroup v1: the cgroup2 hierarchy exists all the same, and
 * every process is in it. Returns the fd and says in where which it was, or -errno.
 */
static int open_cgroup2_root(char *where, size_t size)
{
        static const char *const paths[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
        _cleanup_close_ int fs = -EBADF, mnt = -EBADF;
        int fd;

        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                struct statfs sf;

                if (statfs(paths[i], &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC)
                        continue;
                fd = open(paths[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                snprintf(where, size, "%s", paths[i]);
                return fd;
        }

        fs = fsopen("cgroup2", FSOPEN_CLOEXEC);
        if (fs < 0)
                return -errno;
        if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
                return -errno;
        mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
        if (mnt < 0)
                return -errno;
        fd = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        snprintf(where, size, "the cgroup2 root, mounted privately (none at /sys/fs/cgroup here)");
        return fd;
}

/* Inode and device (kernel encoding, as BPF compares it) of a namespace fd of the given type. */
static int namespace_id(int fd, int type, uint64_t *ret_dev, uint64_t *ret_ino)
{
        struct stat st;
        int t;

        t = ioctl(fd, NS_GET_NSTYPE);
        if (t < 0)
                return -errno;
        if (t != type)
                return -EINVAL;
        if (fstat(fd, &st) < 0)
                return -errno;
        *ret_dev = ((uint64_t) major(st.st_dev) << 20) | minor(st.st_dev);
        *ret_ino = st.st_ino;
        return 0;
}

/* What the kernel asks for: CAP_BPF to load, CAP_NET_ADMIN for a cgroup/sysctl program,
 * CAP_PERFMON to read the writer's task (its network namespace); CAP_SYS_ADMIN stands in for
 * each. Fills missing with the names of those lacking. */
static bool has_capabilities(char *missing, size_t size)
{
        static const int needed[] = { CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON };
        CapabilitySets s = {};
        uint64_t lack = 0;

        (void) capability_get(&s);
        for (size_t i = 0; i < ELEMENTSOF(needed); i++)
                if (!(s.effective & (CAP_MASK(needed[i]) | CAP_MASK(CAP_SYS_ADMIN))))
                        lack |= CAP_MASK(needed[i]);
        capability_format(lack, missing, size);
        return lack == 0;
}

int helper_drift_attach(const BpfRequest *req, const int *fds, size_t n_fds, HelperReply *r)
{
        _cleanup_(drift_watch_bpf__destroyp) struct drift_watch_bpf *skel = NULL;
        _cleanup_close_ int cgroup = -EBADF;
        const char *unsupported = helper_kernel_unsupported();
        uint64_t net_dev, net_ino, pid_dev, pid_ino;
        char where[BPF_PROTOCOL_PATH_MAX], missing[96];
        int link, err;

        if (n_fds != 2 || req->n_pids != 1)
                return helper_reply_error(r, -EINVAL, "malformed drift-attach request (%zu fds, %u pids)", n_fds,
                                          req->n_pids);
        err = namespace_id(fds[0], CLONE_NEWNET, &net_dev, &net_ino);
        if (err >= 0)
                err = namespace_id(fds[1], CLONE_NEWPID, &pid_dev, &pid_ino);
        if (err < 0)
                return helper_reply_error(r, err, "the drift-attach request does not carry a network and a pid "
                                          "namespace: %s", strerror(-err));
        if (net_ino > UINT32_MAX)
                return helper_reply_error(r, -ERANGE, "network namespace inode %llu out of range",
                                          (unsigned long long) net_ino);
        if (unsupported)
                return helper_reply_error(r, -EOPNOTSUPP, "%s", unsupported);
        if (!has_capabilities(missing, sizeof missing))
                return helper_reply_error(r, -EPERM, "the BPF helper lacks %s (a cgroup/sysctl program needs "
                                          "CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON, or CAP_SYS_ADMIN)", missing);

        cgroup = open_cgroup2_root(where, sizeof where);
        if (cgroup < 0)
                return helper_reply_error(r, cgroup, "no cgroup2 file system at /sys/fs/cgroup or "
                                          "/sys/fs/cgroup/unified, and mounting one privately failed: %s",
                                          strerror(-cgroup));

        skel = drift_watch_bpf__open();
        if (!skel)
                return helper_reply_bpf_error(r, -errno, "Opening the drift watch BPF object");
        skel->rodata->watch_netns = req->flags & BPF_REQUEST_ALL_NETNS ? 0 : (uint32_t) net_ino;
        skel->rodata->self_pidns_dev = pid_dev;
        skel->rodata->self_pidns_ino = pid_ino;
        skel->rodata->self_pid = req->pids[0];
        skel->rodata->wakeup_bytes = DRIFT_WAKEUP_BYTES;
        err = helper_load(r, skel->skeleton, skel->maps.events, "Loading the drift watch BPF program");
        if (err == -EPERM || err == -EACCES)
                /* The capabilities are there (checked above): something filters bpf(). */
                return helper_reply_error(r, err, "the kernel refused to load the drift watch BPF program (%s) "
                                          "although the helper has the capabilities: a system call filter (a "
                                          "container's, such as systemd-nspawn's, which denies bpf()) or a security "
                                          "module keeps BPF out", err == -EPERM ? "EPERM" : "EACCES");
        if (err < 0)
                return err;

        link = bpf_link_create(bpf_program__fd(skel->progs.igmpd_drift_watch), cgroup, BPF_CGROUP_SYSCTL, NULL);
        if (link < 0)
                return helper_reply_bpf_error(r, link, "Attaching the drift watch to the cgroup2 root");

        err = helper_reply_attached(r, link, where, skel->maps.events, skel->maps.bss);
        if (err < 0)
                return err;
        log_debug("Attached the drift watch at %s for network namespace %llu, leaving out pid %u.", where,
                  (unsigned long long) net_ino, req->pids[0]);
        return 0;
}
