/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF_OP_LIBC_ATTACH and BPF_OP_LIBC_RESCAN: find the libc files in use and put the uprobe on
 * the compat sysctl@GLIBC_2.2.5 of each one that has it.
 *
 * Where libc copies are looked for:
 *  - every process's /proc/PID/maps (with BPF_REQUEST_SWEEP): executable mappings of a file
 *    named libc.so* or libc-2.*, through /proc/PID/map_files/RANGE (the very inode mapped,
 *    even if it was deleted or lives in another mount namespace), else — another user's
 *    process — the same path inside /proc/PID/root;
 *  - for the processes in the request (and for pid 1 on a sweep) also the usual libc paths
 *    inside their root, /proc/PID/root/lib/x86_64-linux-gnu/libc.so.6 and the like, which a
 *    process that has just exec()ed has not mapped yet.
 * A file whose sysctl is not the non-default compat version (an old glibc's
 * sysctl@@GLIBC_2.2.5 makes the system call: the syscall source sees it; musl has none) is
 * reported without a probe, so igmpd does not ask about it again.
 *
 * Any user chooses the names, files, mounts and number of processes this looks at, so
 * (SECURITY.md, "igmpd-bpf"): a candidate is opened O_PATH (a FIFO or a device is never opened),
 * root paths with RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS (an absolute symlink in a container
 * stays in it), and statx()ed without asking a FUSE server; only a regular file of at most
 * LIBC_FILE_MAX bytes owned by root (of the initial user namespace) that neither group nor
 * others may write is reopened (O_NONBLOCK, through /proc/self/fd, the same inode) and read.
 * Files are deduplicated by device and inode before they are opened, and by content (FNV-1a of
 * the bytes, read anyway, which unlike a build-id cannot be left out or borrowed) for igmpd's
 * cap: the request says how many uprobes igmpd still takes and how many of them may go to
 * copies of a content already probed. A request stops at LIBC_DEADLINE_USEC, LIBC_READ_MAX
 * bytes, LIBC_CANDIDATES_MAX files or a full reply and answers with what it found, flagged
 * incomplete; per process at most LIBC_MAPS_MAX mappings and LIBC_PER_PID_MAX files. A system
 * call stuck in the kernel is for main.c's backstop.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpf-audit-record.h"
#include "audit-libc.skel.h"
#include "elf-sysctl.h"
#include "fnv.h"
#include "helper.h"
#include "log.h"

#define LIBC_PROGRAM_NAME "igmpd_libc_sysctl"
#define LIBC_DEADLINE_USEC (3ULL * 1000000ULL)
#define LIBC_FILE_MAX (16U << 20)       /* Debian 12's libc.so.6 has 1.9 MiB */
#define LIBC_READ_MAX (128U << 20)
#define LIBC_CANDIDATES_MAX 1024U
#define LIBC_PER_PID_MAX 8U
#define LIBC_MAPS_MAX 65536U            /* vm.max_map_count's default */

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
        BpfFileId seen[LIBC_CANDIDATES_MAX]; /* content set once probed */
        size_t n_seen;
        uint64_t deadline, n_read;
        unsigned n_pids, n_probed, n_copies, n_skipped, n_failed;
        int last_error;
        char last_failure[128];
        const char *stop; /* the bound that ended the scan early */
} LibcScan;

static bool scan_stopped(LibcScan *s)
{
        if (!s->stop && now_usec(CLOCK_MONOTONIC) >= s->deadline)
                s->stop = "its 3 s deadline passed";
        if (!s->stop && s->reply->reply.n_entries >= BPF_PROTOCOL_MAX_FDS - 1)
                s->stop = "its reply is full";
        return s->stop;
}

/* Known by device and inode (content 0); with a content: whether a file of that content is probed. */
static bool file_known(const LibcScan *s, const BpfFileId *id)
{
        for (size_t i = 0; i < s->req->n_known + s->n_seen; i++) {
                const BpfFileId *k = i < s->req->n_known ? &s->req->known[i] : &s->seen[i - s->req->n_known];

                if (id->content ? k->content == id->content : k->dev == id->dev && k->ino == id->ino)
                        return true;
        }
        return false;
}

static int uprobe_pmu_type(void)
{
        static int type = -1;
        _cleanup_fclose_ FILE *f = NULL;

        if (type < 0 && (!(f = fopen("/sys/bus/event_source/devices/uprobe/type", "re")) ||
                         fscanf(f, "%d", &type) != 1))
                type = -1;
        return type < 0 ? -ENOENT : type;
}

/*
 * Puts the program on the instruction at offset of the file open as fd. Returns the fd that
 * keeps it there: a bpf_link (kernel ≥ 5.15), or the perf event itself, to which the program is
 * attached with PERF_EVENT_IOC_SET_BPF on older kernels — in both cases closing it detaches.
 */
static int attach_uprobe(int program_fd, int fd, uint64_t offset)
{
        struct perf_event_attr attr = { .size = sizeof attr };
        _cleanup_close_ int pfd = -EBADF;
        char path[64];
        int type = uprobe_pmu_type(), link;

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
        if (link >= 0)
                return link; /* it holds the event */
        if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, program_fd) < 0 || ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0) < 0)
                return -errno;
        return TAKE_FD(pfd);
}

/* The first size bytes of fd into a new buffer: 0, or -errno (-EIO if the file got shorter). */
static int read_file(int fd, size_t size, void **ret)
{
        _cleanup_free_ uint8_t *buf = malloc(size);

        if (!buf)
                return -ENOMEM;
        for (size_t off = 0; off < size;) {
                ssize_t n = pread(fd, buf + off, size - off, (off_t) off);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EIO;
                off += (size_t) n;
        }
        *ret = TAKE_PTR(buf);
        return 0;
}

/* openat2() without the system call, for where it is missing (Linux < 5.6) or a seccomp filter
 * denies it (nspawn's and some container runtimes' answer ENOSYS): O_PATH, and for a root path
 * (resolve != 0) one component at a time with O_NOFOLLOW, refusing ".." and every symlink
 * (-ELOOP) — stricter than RESOLVE_IN_ROOT, which follows them inside the root; the usual
 * paths list both /lib and /usr/lib for a merged /usr. */
static int open_path_beneath(int dirfd, const char *path, uint64_t resolve)
{
        _cleanup_close_ int cur = -EBADF;
        const char *p = path;

        if (resolve == 0) {
                int fd = openat(dirfd, path, O_PATH | O_CLOEXEC);

                return fd < 0 ? -errno : fd;
        }
        for (;;) {
                char comp[256];
                size_t n;
                int fd;

                p += strspn(p, "/");
                n = strcspn(p, "/");
                if (n == 0)
                        return cur >= 0 ? TAKE_FD(cur) : -EISDIR;
                if (n >= sizeof comp || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return -ELOOP;
                memcpy(comp, p, n);
                comp[n] = '\0';
                p += n;
                fd = openat(cur >= 0 ? cur : dirfd, comp,
                            O_PATH | O_NOFOLLOW | O_CLOEXEC | (p[strspn(p, "/")] ? O_DIRECTORY : 0));
                if (fd < 0)
                        return errno == ENOTDIR ? -ELOOP : -errno;
                safe_close(cur);
                cur = fd;
        }
}

/* Opens path (below dirfd, resolved as resolve says) for reading if it is a file worth reading
 * (see the top): the fd with *id filled, -EPERM for one refused, -EALREADY for one known, or
 * -errno. Nothing is opened for reading before the checks. */
static int open_candidate(LibcScan *s, int dirfd, const char *path, uint64_t resolve, BpfFileId *id,
                          uint64_t *ret_size)
{
        struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = resolve };
        _cleanup_close_ int p = -EBADF, fd = -EBADF;
        struct statx sx;
        struct stat st;
        char self[32];

        static bool no_openat2 = false;

        if (!no_openat2) {
                p = (int) syscall(SYS_openat2, dirfd, path, &how, sizeof how);
                if (p < 0 && (errno == ENOSYS || errno == EPERM)) {
                        log_debug("openat2() is not available (%m), looking at files without it.");
                        no_openat2 = true;
                } else if (p < 0)
                        return -errno;
        }
        if (no_openat2) {
                p = open_path_beneath(dirfd, path, resolve);
                if (p < 0)
                        return p;
        }
        if (statx(p, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &sx) < 0)
                return -errno;
        *id = (BpfFileId) { .dev = makedev(sx.stx_dev_major, sx.stx_dev_minor), .ino = sx.stx_ino };
        if (file_known(s, id))
                return -EALREADY;
        if (s->n_seen >= LIBC_CANDIDATES_MAX) {
                s->stop = "it looked at 1024 files";
                return -E2BIG;
        }
        s->seen[s->n_seen++] = *id;
        if (!S_ISREG(sx.stx_mode) || sx.stx_uid != 0 || (sx.stx_mode & (S_IWGRP | S_IWOTH)) || sx.stx_size == 0 ||
            sx.stx_size > LIBC_FILE_MAX)
                return -EPERM;
        if (s->n_read + sx.stx_size > LIBC_READ_MAX) {
                s->stop = "it read 128 MiB";
                return -E2BIG;
        }
        snprintf(self, sizeof self, "/proc/self/fd/%d", p);
        fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || st.st_dev != id->dev || st.st_ino != id->ino ||
            (uint64_t) st.st_size != sx.stx_size)
                return -ESTALE;
        s->n_read += sx.stx_size;
        *ret_size = sx.stx_size;
        return TAKE_FD(fd);
}

/* Looks at one candidate libc file, path below dirfd; where describes it for the log. Returns
 * why it could not be opened (-EACCES: no way through path) or 0. */
static int inspect_candidate(LibcScan *s, int dirfd, const char *path, uint64_t resolve, const char *where)
{
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ void *p = NULL;
        uint64_t offset, size = 0;
        BpfFileId id;
        bool copy;
        ElfView v;
        int r;

        if (scan_stopped(s))
                return 0;
        fd = open_candidate(s, dirfd, path, resolve, &id, &size);
        if (fd == -EPERM) {
                s->reply->reply.n_refused++;
                log_debug("Not reading %s: not a regular file of at most 16 MiB owned by root and writable only by it.",
                          where);
        }
        else if (fd < 0 && fd != -EALREADY && fd != -E2BIG)
                log_debug("Not reading %s: %s", where, strerror(-fd));
        if (fd < 0)
                return fd;

        /* Read, not mapped: the file may belong to a container that truncates it under us
         * (a mapping would then fault with SIGBUS). */
        r = read_file(fd, size, &p);
        if (r >= 0) {
                id.content = fnv1a64(FNV1A64_INIT, p, size) ?: 1;
                r = elf_view_init(&v, p, size);
        }
        if (r >= 0)
                r = elf_sysctl_compat_offset(&v, &offset);
        copy = r > 0 && file_known(s, &id);
        if (r <= 0 || s->n_probed >= s->req->max_probes || (copy && s->n_copies >= s->req->max_copies)) {
                char note[BPF_PROTOCOL_PATH_MAX];

                snprintf(note, sizeof note, "%.160s: %s", where,
                         r <= 0 ? "no compat sysctl@GLIBC_2.2.5 (not glibc ≥ 2.32 x86_64), not probed" :
                         s->n_probed >= s->req->max_probes ? "not probed: igmpd holds as many uprobes as it takes" :
                         "a copy of a libc already probed, not probed: copies have had their share of uprobes");
                (void) helper_reply_add(s->reply, BPF_FD_NONE, -EBADF, 0, &id, note);
                s->n_skipped++;
                return 0;
        }
        r = attach_uprobe(s->program_fd, fd, offset);
        if (r < 0) {
                s->n_failed++;
                s->last_error = r;
                snprintf(s->last_failure, sizeof s->last_failure, "%s", where);
                log_debug("Cannot probe %s at 0x%" PRIx64 ": %s", where, offset, strerror(-r));
                return 0;
        }
        log_debug("Probing sysctl@GLIBC_2.2.5 in %s (dev %u:%u inode %" PRIu64 ", file offset 0x%" PRIx64 ").", where,
                  major(id.dev), minor(id.dev), id.ino, offset);
        if (helper_reply_add(s->reply, BPF_FD_LINK, r, 0, &id, where) < 0)
                return 0;
        s->seen[s->n_seen - 1].content = id.content;
        s->n_probed++;
        s->n_copies += copy;
        return 0;
}

static int open_root(const char *pid)
{
        char path[64];

        snprintf(path, sizeof path, "/proc/%s/root", pid);
        return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* The libc mappings in /proc/PID/maps. */
static void scan_maps(LibcScan *s, const char *pid)
{
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_close_ int root = -EBADF;
        char path[160], line[4096 + 128];
        unsigned n_lines = 0, n_files = 0;

        snprintf(path, sizeof path, "/proc/%s/maps", pid);
        f = fopen(path, "re");
        if (!f)
                return; /* gone, or a kernel thread */
        while (!scan_stopped(s) && n_lines++ < LIBC_MAPS_MAX && n_files < LIBC_PER_PID_MAX &&
               fgets(line, sizeof line, f)) {
                char range[64], perms[8], file[4096], where[BPF_PROTOCOL_PATH_MAX];
                unsigned long long ino;
                unsigned maj, min;
                BpfFileId id;

                /* start-end perms offset maj:min inode path */
                if (sscanf(line, "%63s %7s %*s %x:%x %llu %4095[^\n]", range, perms, &maj, &min, &ino, file) != 6)
                        continue;
                id = (BpfFileId) { .dev = makedev(maj, min), .ino = ino };
                if (perms[2] != 'x' || file[0] != '/' || !elf_libc_name(file) || file_known(s, &id))
                        continue;
                n_files++;
                snprintf(path, sizeof path, "/proc/%s/map_files/%s", pid, range);
                snprintf(where, sizeof where, "%.200s (mapped by pid %s)", file, pid);
                if (inspect_candidate(s, AT_FDCWD, path, 0, where) != -EACCES)
                        continue;
                /* map_files/ is searchable by its process's user alone (the helper has no
                 * CAP_DAC_READ_SEARCH): the same path inside the process's root then. */
                if (root < 0)
                        root = open_root(pid);
                if (root >= 0)
                        (void) inspect_candidate(s, root, file, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, where);
        }
}

/* The usual libc paths inside the process's root directory (and mount namespace). */
static void scan_root(LibcScan *s, const char *pid)
{
        _cleanup_close_ int root = open_root(pid);
        char where[BPF_PROTOCOL_PATH_MAX];

        for (size_t i = 0; root >= 0 && libc_paths[i]; i++) {
                snprintf(where, sizeof where, "%s (root of pid %s)", libc_paths[i], pid);
                (void) inspect_candidate(s, root, libc_paths[i], RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, where);
        }
}

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct audit_libc_bpf *, audit_libc_bpf__destroy);

static int libc_scan(HelperReply *r, const BpfRequest *req, int program_fd)
{
        LibcScan scan = { .reply = r, .req = req, .program_fd = program_fd }, *s = &scan;

        s->deadline = now_usec(CLOCK_MONOTONIC) + LIBC_DEADLINE_USEC;
        for (size_t i = 0; i < s->req->n_pids && !scan_stopped(s); i++, s->n_pids++) {
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
                while (!scan_stopped(s) && (de = readdir(d)))
                        if (isdigit((unsigned char) de->d_name[0])) {
                                scan_maps(s, de->d_name);
                                s->n_pids++;
                        }
        }
        if (s->n_failed > 0 && s->n_probed == 0) /* main.c drops the entries of an error reply */
                return helper_reply_bpf_error(r, s->last_error, "Putting a uprobe on libc's sysctl@GLIBC_2.2.5");
        if (s->n_failed > 0)
                log_warning("Could not probe %u libc cop%s (last: %s): %s", s->n_failed, s->n_failed == 1 ? "y" : "ies",
                            s->last_failure, strerror(-s->last_error));
        if (s->stop) {
                r->reply.flags |= BPF_REPLY_INCOMPLETE;
                snprintf(r->reply.reason, sizeof r->reply.reason, "stopped early, after %u processes: %s",
                         s->n_pids, s->stop);
        }
        log_debug("libc scan of %u processes: %u probed, %u not, %u refused unread, %u failed%s%s.", s->n_pids,
                  s->n_probed, s->n_skipped, r->reply.n_refused, s->n_failed, s->stop ? "; " : "",
                  s->stop ? r->reply.reason : "");
        return 0;
}

int helper_libc_attach(const BpfRequest *req, const int *fds, size_t n_fds, HelperReply *r)
{
        _cleanup_(audit_libc_bpf__destroyp) struct audit_libc_bpf *skel = audit_libc_bpf__open();
        int err;

        if (!skel)
                return helper_reply_bpf_error(r, -errno, "Opening the libc BPF object");
        err = helper_load_tp_btf(r, HELPER_TP_BTF(skel, igmpd_exec_watch, "libc BPF programs", "sched_process_exec"));
        if (err < 0)
                return err;
        err = helper_reply_add(r, BPF_FD_PROGRAM, dup_cloexec(bpf_program__fd(skel->progs.igmpd_libc_sysctl)), 0,
                               NULL, NULL);
        if (err < 0)
                return helper_reply_error(r, err, "Building the reply failed");
        return libc_scan(r, req, bpf_program__fd(skel->progs.igmpd_libc_sysctl));
}

int helper_libc_rescan(const BpfRequest *req, const int *fds, size_t n_fds, HelperReply *r)
{
        struct bpf_prog_info info = {};
        uint32_t len = sizeof info;

        /* The program comes from igmpd, which got it from us: check it is that one. */
        if (n_fds != 1 || bpf_obj_get_info_by_fd(fds[0], &info, &len) < 0 ||
            info.type != BPF_PROG_TYPE_KPROBE || strncmp(info.name, LIBC_PROGRAM_NAME, sizeof info.name - 1) != 0)
                return helper_reply_error(r, -EINVAL, "a rescan needs igmpd's libc uprobe program");
        return libc_scan(r, req, fds[0]);
}
