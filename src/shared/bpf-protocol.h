/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The wire format between igmpd and its BPF helper (igmpd-bpf). The daemon holds no
 * capability for BPF or perf events; the helper (socket-activated by igmpd-bpf.socket with
 * Accept=yes, or, when igmpd runs as root outside systemd, a child it started before dropping
 * its capabilities) loads the programs, attaches them with bpf_link fds and sends those fds,
 * the ring buffer and the counters to igmpd over a SOCK_SEQPACKET unix socket (SCM_RIGHTS).
 * The helper keeps nothing: once igmpd exits — even by SIGKILL — the last fds close and the
 * kernel detaches everything.
 *
 * One request and one reply per exchange, each a single datagram of the fixed-size structs
 * below (the two programs come from the same build; the version field catches a mismatch).
 */

#include <stddef.h>
#include <stdint.h>

#define BPF_PROTOCOL_VERSION 2
#define BPF_PROTOCOL_MAX_FDS 64       /* descriptors in one reply (SCM_MAX_FD is 253) */
#define BPF_PROTOCOL_MAX_PIDS 64      /* processes a rescan looks at */
#define BPF_PROTOCOL_MAX_KNOWN 256    /* files the daemon already holds a probe for */
#define BPF_PROTOCOL_REASON_MAX 256
#define BPF_PROTOCOL_PATH_MAX 256

typedef enum BpfOp {
        BPF_OP_SYSCALL_ATTACH = 1, /* load audit-syscall, attach tp_btf/sys_enter */
        BPF_OP_LIBC_ATTACH,        /* load audit-libc, attach the exec watch, probe every libc in use */
        BPF_OP_LIBC_RESCAN,        /* probe libc copies not yet known (request carries the program) */
        BPF_OP_DRIFT_ATTACH,       /* load drift-watch, attach it at the cgroup2 root; the request
                                      carries igmpd's network and pid namespaces (fds, in this
                                      order) and its pid in the latter (pids[0]) */
        _BPF_OP_MAX,
} BpfOp;

typedef enum BpfFdRole {
        BPF_FD_NONE = 0,     /* a descriptor entry without an fd (a libc file not probed) */
        BPF_FD_RINGBUF,      /* the ring buffer map; size = its data size */
        BPF_FD_COUNTERS,     /* the .bss map (struct audit_counters at offset 0); size = bytes */
        BPF_FD_PROGRAM,      /* the uprobe program, sent back with BPF_OP_LIBC_RESCAN */
        BPF_FD_LINK,         /* a bpf_link (or perf event) that keeps a program attached */
        _BPF_FD_ROLE_MAX,
} BpfFdRole;

enum {
        BPF_REQUEST_SWEEP = 1 << 0, /* look at every process, not only pids[] */
        BPF_REQUEST_ALL_NETNS = 1 << 1, /* drift watch: writes in every network namespace, not only
                                         * the one of the fd sent ([Daemon] Namespaces=named) */
        _BPF_REQUEST_ALL = BPF_REQUEST_SWEEP | BPF_REQUEST_ALL_NETNS,
};

enum {
        BPF_REPLY_INCOMPLETE = 1 << 0, /* a bound (deadline, bytes, files, room) stopped the scan: reason says which */
        _BPF_REPLY_ALL = BPF_REPLY_INCOMPLETE,
};

typedef struct BpfFileId {
        uint64_t dev; /* st_dev */
        uint64_t ino;
        uint64_t content; /* FNV-1a 64 of the bytes (src/shared/fnv.h) once read, else 0: copies share it */
} BpfFileId;

typedef struct BpfRequest {
        uint32_t version;
        uint32_t op;      /* BpfOp */
        uint32_t flags;   /* BPF_REQUEST_* */
        uint32_t n_pids;
        uint32_t n_known;
        uint32_t max_probes; /* libc: new uprobes igmpd still takes (its cap minus those it holds) */
        uint32_t max_copies; /* of those, how many may be copies of a content known[] has probed */
        uint32_t pids[BPF_PROTOCOL_MAX_PIDS];
        BpfFileId known[BPF_PROTOCOL_MAX_KNOWN]; /* content != 0: probed */
} BpfRequest;

typedef struct BpfReplyEntry {
        uint32_t role;    /* BpfFdRole */
        uint32_t size;
        BpfFileId file;   /* LINK of a uprobe, NONE: the libc file */
        char path[BPF_PROTOCOL_PATH_MAX]; /* same: where it was found, or why it was skipped */
} BpfReplyEntry;

typedef struct BpfReply {
        uint32_t version;
        int32_t error;    /* 0 or a negative errno */
        char reason[BPF_PROTOCOL_REASON_MAX]; /* with error or INCOMPLETE: why, for the operator */
        uint32_t flags;   /* BPF_REPLY_* */
        uint32_t n_refused; /* libc: candidates refused unread (not a regular file owned by root, and
                               writable by no one else, of at most 16 MiB) */
        uint32_t n_entries;
        BpfReplyEntry entries[BPF_PROTOCOL_MAX_FDS]; /* the fds arrive in the order of the
                                                        entries with role != NONE */
} BpfReply;

const char *bpf_op_to_string(BpfOp op);

/* Checks a received request of len bytes. 0 or -EBADMSG. */
int bpf_request_validate(const BpfRequest *req, size_t len);

/* Checks a received reply of len bytes that came with n_fds descriptors: every string
 * terminated, counts in range, one fd per entry with a role. 0 or -EBADMSG. */
int bpf_reply_validate(const BpfReply *reply, size_t len, size_t n_fds);

/* Number of entries of the reply that carry an fd. */
size_t bpf_reply_n_fds(const BpfReply *reply);

/*
 * Sends one datagram with the given fds attached (n_fds may be 0). 0 or -errno.
 */
int bpf_protocol_send(int sock, const void *buf, size_t len, const int *fds, size_t n_fds);

/*
 * Receives one datagram into buf (at most size bytes) and up to max_fds descriptors (made
 * O_CLOEXEC). *ret_len and *ret_n_fds are set on success. A datagram that was truncated, or
 * carried more descriptors than max_fds, is refused with -EBADMSG (its descriptors closed); one
 * whose descriptors the kernel could not all pass (MSG_CTRUNC: the receiver is out of file
 * descriptors) with -EMFILE. Either way the datagram is consumed. 0 on end of file is
 * -ECONNRESET. Otherwise 0 or -errno.
 *
 * The kernel installs at most room descriptors (room 0: none at all; BPF_PROTOCOL_MAX_FDS: every
 * one a datagram may carry); the rest are dropped without ever being opened in this process, and
 * the datagram is refused with -EMFILE like one truncated for lack of descriptors. For a receiver
 * that would refuse them anyway: it never holds them, not even for a moment.
 */
int bpf_protocol_recv_room(int sock, void *buf, size_t size, size_t *ret_len, int *fds, size_t max_fds, size_t room,
                           size_t *ret_n_fds);
