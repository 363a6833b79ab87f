/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reply building and error wording shared by the helper's request handlers, and libbpf's log.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "helper.h"
#include "log.h"

void helper_reply_done(HelperReply *r)
{
        close_many(r->fds, r->n_fds);
        r->n_fds = 0;
}

int helper_reply_error(HelperReply *r, int error, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(r->reply.reason, sizeof r->reply.reason, fmt, ap);
        va_end(ap);
        r->reply.error = -abs(error);
        return r->reply.error;
}

int helper_reply_add(HelperReply *r, BpfFdRole role, int fd, uint32_t size, const BpfFileId *file, const char *path)
{
        BpfReplyEntry *e;

        if (role != BPF_FD_NONE && fd < 0)
                return fd;
        if (r->reply.n_entries >= BPF_PROTOCOL_MAX_FDS) {
                safe_close(fd);
                return -E2BIG;
        }
        e = &r->reply.entries[r->reply.n_entries++];
        *e = (BpfReplyEntry) { .role = role, .size = size };
        if (file)
                e->file = *file;
        snprintf(e->path, sizeof e->path, "%s", strempty(path));
        if (role != BPF_FD_NONE)
                r->fds[r->n_fds++] = fd;
        return 0;
}

int helper_reply_attached(HelperReply *r, int link, const char *where, const struct bpf_map *events,
                          const struct bpf_map *bss)
{
        int err = helper_reply_add(r, BPF_FD_LINK, link, 0, NULL, where);

        if (err >= 0)
                err = helper_reply_add(r, BPF_FD_RINGBUF, dup_cloexec(bpf_map__fd(events)), HELPER_RINGBUF_SIZE,
                                       NULL, NULL);
        if (err >= 0)
                err = helper_reply_add(r, BPF_FD_COUNTERS, dup_cloexec(bpf_map__fd(bss)), bpf_map__value_size(bss),
                                       NULL, NULL);
        return err < 0 ? helper_reply_error(r, err, "Building the reply failed") : 0;
}

int helper_load(HelperReply *r, struct bpf_object_skeleton *skeleton, struct bpf_map *events, const char *what)
{
        int err = bpf_map__set_max_entries(events, HELPER_RINGBUF_SIZE);

        if (err < 0)
                return helper_reply_bpf_error(r, err, "Sizing the ring buffer");
        err = bpf_object__load_skeleton(skeleton);
        return err < 0 ? helper_reply_bpf_error(r, err, what) : 0;
}

int helper_load_tp_btf(HelperReply *r, const HelperTpBtf *t)
{
        const char *unsupported = helper_kernel_unsupported();
        struct stat st;
        char what[128];
        int link, err;

        if (unsupported)
                return helper_reply_error(r, -EOPNOTSUPP, "%s", unsupported);
        /* The helper's (= igmpd's) PID namespace, for the programs to report pids as seen from
         * there; left 0/0 if unknown (then the initial namespace's pids). */
        if (stat("/proc/self/ns/pid", &st) >= 0) {
                *t->pidns_dev = st.st_dev;
                *t->pidns_ino = st.st_ino;
        }
        snprintf(what, sizeof what, "Loading the %s", t->name);
        err = helper_load(r, t->skeleton, t->events, what);
        if (err < 0)
                return err;

        /* tp_btf: the attach point comes from the program's BTF, hence no name. */
        link = bpf_raw_tracepoint_open(NULL, bpf_program__fd(t->program));
        snprintf(what, sizeof what, "Attaching to the %s tracepoint", t->tracepoint);
        if (link < 0)
                return helper_reply_bpf_error(r, link, what);
        snprintf(what, sizeof what, "tp_btf/%s", t->tracepoint);
        return helper_reply_attached(r, link, what, t->events, t->bss);
}

const char *helper_kernel_unsupported(void)
{
        if (access("/sys/kernel/btf/vmlinux", R_OK) < 0)
                return "this kernel has no BTF type information (/sys/kernel/btf/vmlinux is missing: "
                       "CONFIG_DEBUG_INFO_BTF=y is needed)";
        return NULL;
}

static char libbpf_last[BPF_PROTOCOL_REASON_MAX];

int helper_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
        char line[1024];
        size_t n;

        vsnprintf(line, sizeof line, fmt, ap);
        n = strlen(line);
        while (n > 0 && line[n - 1] == '\n')
                line[--n] = '\0';
        if (level != LIBBPF_DEBUG) {
                /* Cut to the reason's size (not snprintf: -Wformat-truncation at -O0). */
                size_t k = MIN(n, sizeof libbpf_last - 1);
                memcpy(libbpf_last, line, k);
                libbpf_last[k] = '\0';
        }
        log_debug("%s", line);
        return 0;
}

int helper_reply_bpf_error(HelperReply *r, int error, const char *what)
{
        const char *why;

        error = -abs(error);
        switch (error) {
        case -EPERM:
        case -EACCES:
                /* No strerror() here: "not permitted" is the expected state of a container. */
                return helper_reply_error(r, error, "%s was refused: igmpd-bpf lacks a capability (loading "
                                          "needs CAP_BPF and CAP_PERFMON, uprobes CAP_SYS_ADMIN), or a system "
                                          "call filter or security module denied it", what);
        case -ENOSYS:
        case -EOPNOTSUPP:
        case -EINVAL:
                why = "this kernel does not support it";
                break;
        case -ENOENT:
                why = "this kernel lacks the tracepoint or the BTF the program needs";
                break;
        default:
                why = NULL;
        }
        if (why)
                return helper_reply_error(r, error, "%s failed: %s (%s)", what, strerror(-error), why);
        return helper_reply_error(r, error, "%s failed: %s%s%s", what, strerror(-error),
                                  libbpf_last[0] ? "; " : "", libbpf_last);
}
