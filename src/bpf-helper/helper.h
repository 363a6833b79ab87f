/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * igmpd-bpf, the privileged half of igmpd's BPF audit sources: one function per request type
 * (src/shared/bpf-protocol.h), each filling a reply and the fds to send with it. The helper
 * never keeps an attachment: what it sends is all there is, and it is gone when igmpd is.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#include <linux/types.h>
#include <bpf/libbpf.h>

#include "bpf-protocol.h"
#include "macro.h"

#define HELPER_RINGBUF_SIZE (1U << 20)

/* A close-on-exec duplicate of fd, or -errno. */
static inline int dup_cloexec(int fd)
{
        int r = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        return r < 0 ? -errno : r;
}

/* The reply being built and the fds that go with it (closed by the caller once sent). */
typedef struct HelperReply {
        BpfReply reply;
        int fds[BPF_PROTOCOL_MAX_FDS];
        size_t n_fds;
} HelperReply;

void helper_reply_done(HelperReply *r);

/* Sets error and reason. Returns error. */
int helper_reply_error(HelperReply *r, int error, const char *fmt, ...) _printf_(3, 4);

/* Appends an entry; fd is ignored for role BPF_FD_NONE. Takes over fd (closed on failure). A
 * negative fd for another role is an error passed on (a failed dup_cloexec()). 0 or -errno. */
int helper_reply_add(HelperReply *r, BpfFdRole role, int fd, uint32_t size, const BpfFileId *file, const char *path);

/* Adds the link (taken over) that keeps a loaded object's program attached, where says where, and
 * the object's ring buffer (HELPER_RINGBUF_SIZE) and counters (.bss). 0 or the error of the reply. */
int helper_reply_attached(HelperReply *r, int link, const char *where, const struct bpf_map *events,
                          const struct bpf_map *bss);

/* Sizes the ring buffer (HELPER_RINGBUF_SIZE) of an opened skeleton and loads it; what names the
 * step in the reason of a failure. 0 or the error of the reply. */
int helper_load(HelperReply *r, struct bpf_object_skeleton *skeleton, struct bpf_map *events, const char *what);

/* An audit source's programs: an opened skeleton (its pid namespace constants in .rodata) whose
 * program attaches at a tp_btf tracepoint and reports through a ring buffer and counters. */
typedef struct HelperTpBtf {
        struct bpf_object_skeleton *skeleton;
        __u64 *pidns_dev, *pidns_ino;
        struct bpf_map *events, *bss;
        struct bpf_program *program;
        const char *name, *tracepoint; /* for messages: "libc BPF programs", "sys_enter" */
} HelperTpBtf;
#define HELPER_TP_BTF(skel, prog, name, tp)                                                                   \
        (&(HelperTpBtf) { (skel)->skeleton, &(skel)->rodata->pidns_dev, &(skel)->rodata->pidns_ino,         \
                          (skel)->maps.events, (skel)->maps.bss, (skel)->progs.prog, name, tp })

/* Checks that the kernel can run it (BTF), sets the pid namespace, sizes the ring buffer
 * (HELPER_RINGBUF_SIZE), loads, attaches, and adds the link and the maps to r. 0 or the error
 * of the reply. */
int helper_load_tp_btf(HelperReply *r, const HelperTpBtf *t);

/* Why the kernel cannot run the programs at all (no BTF), or NULL. */
const char *helper_kernel_unsupported(void);

/* Turns a failed load or attach into a reason naming the missing privilege or kernel feature. */
int helper_reply_bpf_error(HelperReply *r, int error, const char *what);

/* libbpf's log (libbpf_set_print()): its last warning goes into helper_reply_bpf_error()'s reasons. */
int helper_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap);

/* A request's handler; fds: the descriptors that came with the request (still owned by the caller). */
typedef int HelperHandler(const BpfRequest *req, const int *fds, size_t n_fds, HelperReply *r);
HelperHandler helper_syscall_attach, helper_libc_attach, helper_libc_rescan, helper_drift_attach;
