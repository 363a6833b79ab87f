/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF_OP_LIBC_ATTACH and BPF_OP_LIBC_RESCAN: find the libc files in use and put the uprobe on
 * the compat sysctl@GLIBC_2.2.5 of each one that has it.
 *
 * Where libc copies are looked for:
 *  - every process's /proc/PID/maps (with BPF_REQUEST_SWEEP): executable mappings of a file
 *    named libc.so* or libc-2.*, opened through /proc/PID/map_files/RANGE (the very inode
 *    mapped, even if it was deleted or lives in another mount namespace), else through
 *    /proc/PID/root;
 *  - for the processes in the request (and for pid 1 on a sweep) also the usual libc paths
 *    inside their root, /proc/PID/root/lib/x86_64-linux-gnu/libc.so.6 and the like, which a
 *    process that has just exec()ed has not mapped yet.
 * A file is identified by device and inode; those igmpd already knows are skipped. A file whose
 * sysctl is not the non-default compat version (an old glibc's sysctl@@GLIBC_2.2.5 makes the
 * system call: the syscall source sees it; musl has none) is reported without a probe, so igmpd
 * does not ask about it again.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpf-audit-record.h"
#include "audit-libc.skel.h"
#include "elf-sysctl.h"
#include "helper.h"
#include "log.h"

#define LIBC_PROGRAM_NAME "igmpd_libc_sysctl"

static const char *const libc_paths[] = {
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/lib64/libc.so.6",
        "/usr/lib64/libc.so.6",
        "/lib/libc.so.6",
        "/usr/lib/libc.so.6",
        NULL,
};

typedef struct LibcScan {
        HelperReply *reply;
        int program_fd;
        const BpfRequest *req;
        BpfFileId seen[BPF_PROTOCOL_MAX_FDS];
        size_t n_seen;
        unsigned n_probed, n_skipped, n_failed;
        int last_error;
        char last_failure[128];
        bool full;       /* the reply has no room left */
} LibcScan;

static bool file_known(const LibcScan *s, const BpfFileId *id)
{
        for (size_t i = 0; i < s->req->n_known; i++)
                if (s->req->known[i].dev == id->dev && s->req->known[i].ino == id->ino)
                        return true;
        for (size_t i = 0; i < s->n_seen; i++)
                if (s->seen[i].dev == id->dev && s->seen[i].ino == id->ino)
                        return true;
        return false;
}

static bool libc_name(const char *path)
{
        const char *base = strrchr(path, '/');

        base = base ? base + 1 : path;
        return startswith(base, "libc.so") || startswith(base, "libc-2.");
}

static int uprobe_pmu_type(void)
{
        static int type = -1;
        char buf[32] = "";
        int fd;

        if (type >= 0)
                return type;
        fd = open("/sys/bus/event_source/devices/uprobe/type", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (read(fd, buf, sizeof buf - 1) <= 0) {
                safe_close(fd);
                return -EIO;
        }
        safe_close(fd);
        type = atoi(buf);
        return type;
}

/*
 * Puts the program on the instruction at offset of the file open as fd. Returns the fd that
 * keeps it there: a bpf_link (kernel ≥ 5.15), or the perf event itself, to which the program is
 * attached with PERF_EVENT_IOC_SET_BPF on older kernels — in both cases closing it detaches.
 */
static int attach_uprobe(int program_fd, int fd, uint64_t offset)
{
        struct perf_event_attr attr = { .size = sizeof attr };
        char path[64];
        int type = uprobe_pmu_type(), pfd, link;

        if (type < 0)
                return type;
        /* The kernel resolves the path: through our fd, it is exactly the inode we inspected. */
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        attr.type = (uint32_t) type;
        attr.config1 = (uint64_t) (uintptr_t) path;
        attr.config2 = offset;
        pfd = (int) syscall(SYS_perf_event_open, &attr, -1 /* any process */, 0 /* cpu: required with pid -1 */,
                            -1, PERF_FLAG_FD_CLOEXEC);
        if (pfd < 0)
                return -errno;
        link = bpf_link_create(program_fd, pfd, BPF_PERF_EVENT, NULL);
        if (link >= 0) {
                safe_close(pfd); /* the link holds the event */
                return link;
        }
        if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, program_fd) < 0 || ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
                int r = -errno;
                safe_close(pfd);
                return r;
        }
        return pfd;
}

#define LIBC_SIZE_MAX (64U << 20)

/* The first size bytes of fd into a new buffer: 0, or -errno (-EFBIG past LIBC_SIZE_MAX,
 * -EIO if the file got shorter). */
static int read_file(int fd, size_t size, void **ret)
{
        uint8_t *buf;
        size_t off = 0;

        if (size == 0 || size > LIBC_SIZE_MAX)
                return -EFBIG;
        buf = malloc(size);
        if (!buf)
                return -ENOMEM;
        while (off < size) {
                ssize_t n = pread(fd, buf + off, size - off, (off_t) off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        free(buf);
                        return n < 0 ? -errno : -EIO;
                }
                off += (size_t) n;
        }
        *ret = buf;
        return 0;
}

/* Looks at one candidate libc file, open as fd; where describes it for the log. */
static void inspect_candidate(LibcScan *s, int fd, const char *where)
{
        struct stat st;
        BpfFileId id;
        uint64_t offset;
        ElfView v;
        void *p = NULL;
        int r;

        if (s->full || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return;
        id = (BpfFileId) { .dev = st.st_dev, .ino = st.st_ino };
        if (file_known(s, &id))
                return;
        if (s->reply->reply.n_entries >= BPF_PROTOCOL_MAX_FDS - 1) {
                s->full = true;
                return;
        }
        if (s->n_seen < ELEMENTSOF(s->seen))
                s->seen[s->n_seen++] = id;

        /* Read, not mapped: the file may belong to a container that truncates it under us
         * (a mapping would then fault with SIGBUS). */
        r = read_file(fd, (size_t) st.st_size, &p);
        if (r >= 0) {
                r = elf_view_init(&v, p, (size_t) st.st_size);
                if (r >= 0)
                        r = elf_sysctl_compat_offset(&v, &offset);
                free(p);
        }
        if (r <= 0) {
                char note[BPF_PROTOCOL_PATH_MAX];

                snprintf(note, sizeof note, "%s: no compat sysctl@GLIBC_2.2.5 (not glibc ≥ 2.32 x86_64), not probed",
                         where);
                (void) helper_reply_add(s->reply, BPF_FD_NONE, -EBADF, 0, &id, note);
                s->n_skipped++;
                return;
        }
        r = attach_uprobe(s->program_fd, fd, offset);
        if (r < 0) {
                s->n_failed++;
                s->last_error = r;
                snprintf(s->last_failure, sizeof s->last_failure, "%s", where);
                log_debug("Cannot probe %s at 0x%" PRIx64 ": %s", where, offset, strerror(-r));
                return;
        }
        log_debug("Probing sysctl@GLIBC_2.2.5 in %s (dev %u:%u inode %" PRIu64 ", file offset 0x%" PRIx64 ").", where,
                  major(st.st_dev), minor(st.st_dev), (uint64_t) st.st_ino, offset);
        if (helper_reply_add(s->reply, BPF_FD_LINK, r, 0, &id, where) >= 0)
                s->n_probed++;
}

/* The libc mappings in /proc/PID/maps. */
static void scan_maps(LibcScan *s, const char *pid)
{
        _cleanup_fclose_ FILE *f = NULL;
        char path[160], line[4096 + 128], last[4096] = "";

        snprintf(path, sizeof path, "/proc/%s/maps", pid);
        f = fopen(path, "re");
        if (!f)
                return; /* gone, or a kernel thread */
        while (!s->full && fgets(line, sizeof line, f)) {
                char range[64], perms[8], file[4096], where[BPF_PROTOCOL_PATH_MAX];
                unsigned long long ino;
                unsigned maj, min;
                int fd;

                /* start-end perms offset maj:min inode path */
                if (sscanf(line, "%63s %7s %*s %x:%x %llu %4095[^\n]", range, perms, &maj, &min, &ino, file) != 6)
                        continue;
                if (perms[2] != 'x' || file[0] != '/' || !libc_name(file) || streq(file, last))
                        continue;
                snprintf(last, sizeof last, "%s", file);
                snprintf(path, sizeof path, "/proc/%s/map_files/%s", pid, range);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0) {
                        char alt[4200];
                        snprintf(alt, sizeof alt, "/proc/%s/root%s", pid, file);
                        fd = open(alt, O_RDONLY | O_CLOEXEC);
                }
                if (fd >= 0) {
                        struct stat st;
                        if (fstat(fd, &st) >= 0 && st.st_ino == ino && major(st.st_dev) == maj &&
                            minor(st.st_dev) == min) {
                                snprintf(where, sizeof where, "%.200s (mapped by pid %s)", file, pid);
                                inspect_candidate(s, fd, where);
                        }
                        safe_close(fd);
                }
        }
}

/* The usual libc paths inside the process's root directory (and mount namespace). */
static void scan_root(LibcScan *s, const char *pid)
{
        for (size_t i = 0; libc_paths[i] && !s->full; i++) {
                char path[128], where[BPF_PROTOCOL_PATH_MAX];
                int fd;

                snprintf(path, sizeof path, "/proc/%s/root%s", pid, libc_paths[i]);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                snprintf(where, sizeof where, "%s (root of pid %s)", libc_paths[i], pid);
                inspect_candidate(s, fd, where);
                safe_close(fd);
        }
}

static void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}

static int libc_scan(LibcScan *s)
{
        HelperReply *r = s->reply;

        for (size_t i = 0; i < s->req->n_pids && !s->full; i++) {
                char pid[16];

                snprintf(pid, sizeof pid, "%" PRIu32, s->req->pids[i]);
                scan_root(s, pid);
                scan_maps(s, pid);
        }
        if (s->req->flags & BPF_REQUEST_SWEEP) {
                _cleanup_(closedirp) DIR *d = opendir("/proc");
                struct dirent *de;

                if (!d)
                        return helper_reply_error(r, -errno, "cannot read /proc: %s", strerror(errno));
                scan_root(s, "1");
                while (!s->full && (de = readdir(d)))
                        if (isdigit((unsigned char) de->d_name[0]))
                                scan_maps(s, de->d_name);
        }
        if (s->n_failed > 0 && s->n_probed == 0) {
                helper_reply_done(r);
                r->reply.n_entries = 0;
                return helper_reply_bpf_error(r, s->last_error, "Putting a uprobe on libc's sysctl@GLIBC_2.2.5");
        }
        if (s->n_failed > 0)
                log_warning("Could not probe %u libc cop%s (last: %s): %s", s->n_failed, s->n_failed == 1 ? "y" : "ies",
                            s->last_failure, strerror(-s->last_error));
        log_debug("libc scan: %u probed, %u without the compat symbol, %u failed%s.", s->n_probed, s->n_skipped,
                  s->n_failed, s->full ? ", reply full (the rest at the next rescan)" : "");
        return 0;
}

static void audit_libc_bpf_destroyp(struct audit_libc_bpf **p)
{
        audit_libc_bpf__destroy(*p);
}

int helper_libc_attach(const BpfRequest *req, HelperReply *r)
{
        _cleanup_(audit_libc_bpf_destroyp) struct audit_libc_bpf *skel = NULL;
        const char *unsupported = helper_kernel_unsupported();
        LibcScan s = { .reply = r, .req = req };
        uint64_t pidns_dev, pidns_ino;
        int link, err;

        if (unsupported)
                return helper_reply_error(r, -EOPNOTSUPP, "%s", unsupported);

        skel = audit_libc_bpf__open();
        if (!skel)
                return helper_reply_bpf_error(r, -errno, "Opening the libc BPF object");
        helper_pid_namespace(&pidns_dev, &pidns_ino);
        skel->rodata->pidns_dev = pidns_dev;
        skel->rodata->pidns_ino = pidns_ino;
        err = bpf_map__set_max_entries(skel->maps.events, HELPER_RINGBUF_SIZE);
        if (err < 0)
                return helper_reply_bpf_error(r, err, "Sizing the ring buffer");
        err = audit_libc_bpf__load(skel);
        if (err < 0)
                return helper_reply_bpf_error(r, err, "Loading the libc BPF programs");

        link = bpf_raw_tracepoint_open(NULL, bpf_program__fd(skel->progs.igmpd_exec_watch));
        if (link < 0)
                return helper_reply_bpf_error(r, link, "Attaching to the sched_process_exec tracepoint");
        err = helper_reply_add(r, BPF_FD_LINK, link, 0, NULL, "tp_btf/sched_process_exec");
        if (err >= 0)
                err = helper_reply_add(r, BPF_FD_RINGBUF, dup_cloexec(bpf_map__fd(skel->maps.events)),
                                       HELPER_RINGBUF_SIZE, NULL, NULL);
        if (err >= 0)
                err = helper_reply_add(r, BPF_FD_COUNTERS, dup_cloexec(bpf_map__fd(skel->maps.bss)),
                                       bpf_map__value_size(skel->maps.bss), NULL, NULL);
        if (err >= 0)
                err = helper_reply_add(r, BPF_FD_PROGRAM, dup_cloexec(bpf_program__fd(skel->progs.igmpd_libc_sysctl)),
                                       0, NULL, NULL);
        if (err < 0)
                return helper_reply_error(r, err, "Building the reply failed");

        s.program_fd = bpf_program__fd(skel->progs.igmpd_libc_sysctl);
        return libc_scan(&s);
}

int helper_libc_rescan(const BpfRequest *req, const int *fds, size_t n_fds, HelperReply *r)
{
        struct bpf_prog_info info = {};
        uint32_t len = sizeof info;
        LibcScan s = { .reply = r, .req = req };

        /* The program comes from igmpd, which got it from us: check it is that one. */
        if (n_fds != 1 || bpf_obj_get_info_by_fd(fds[0], &info, &len) < 0 ||
            info.type != BPF_PROG_TYPE_KPROBE || strncmp(info.name, LIBC_PROGRAM_NAME, sizeof info.name - 1) != 0)
                return helper_reply_error(r, -EINVAL, "a rescan needs igmpd's libc uprobe program");
        s.program_fd = fds[0];
        return libc_scan(&s);
}
