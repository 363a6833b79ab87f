/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * igmpd's side of the BPF helper (src/shared/bpf-protocol.h). Two ways to reach it:
 *  - socket: /run/igmpd-bpf.sock exists (igmpd-bpf.socket, Accept=yes): a connection starts
 *    one igmpd-bpf@.service instance, which serves every call made on it; igmpd keeps the
 *    connection BPF_HELPER_IDLE_USEC (30 s) after a call, so a stream of rescans is served by
 *    one instance, and closes it then (the instance exits at end of file);
 *  - child: no socket, but igmpd itself holds CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON (root
 *    outside systemd, e.g. the tests): igmpd starts igmpd-bpf once, over a socketpair, before it
 *    drops its own capabilities; the child exits when igmpd does (end of file, and
 *    PR_SET_PDEATHSIG).
 * Calls are asynchronous, one at a time, in order; each ends with its callback exactly once
 * (unless cancelled), with the reply's fds or an error and a reason for the operator.
 */

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "bpf-protocol.h"
#include "macro.h"

/* Why nothing BPF can run (drift watch, libc and syscall audit sources), with HAVE_BPF 0. */
#define BPF_NOT_BUILT_REASON "igmpd was built without BPF support (meson -Dbpf=disabled, or clang, bpftool " \
        "or libbpf-dev was missing when it was built)"

typedef struct BpfHelper BpfHelper;
typedef struct BpfHelperCall BpfHelperCall;

/*
 * error < 0: the call failed (reason says why; reply is NULL or the helper's error reply).
 * Otherwise reply is valid and fds[0..n_fds) are its descriptors in entry order: the callback
 * owns them (close what it does not keep). The call object is freed after the callback.
 */
typedef void (*BpfHelperReplyFn)(int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds,
                                 void *userdata);

/*
 * Chooses how to reach the helper. socket_path NULL: $IGMPD_BPF_SOCKET or BPF_HELPER_SOCKET;
 * helper_path NULL: $IGMPD_BPF_HELPER or BPF_HELPER_PATH. On failure (-ENOENT: neither way
 * works here) reason says why.
 */
int bpf_helper_new(sd_event *e, const char *socket_path, const char *helper_path, BpfHelper **ret, char *reason,
                   size_t reason_size);
BpfHelper *bpf_helper_free(BpfHelper *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(BpfHelper *, bpf_helper_free);

/* "socket /run/igmpd-bpf.sock" or "child process PID", for the log. */
const char *bpf_helper_describe(const BpfHelper *h);

/* Queues a request; fds (duplicated) go with it. 0 or -errno. *ret_call (may be NULL) can be
 * cancelled until the callback runs. */
int bpf_helper_call(BpfHelper *h, const BpfRequest *req, const int *fds, size_t n_fds, BpfHelperReplyFn cb,
                    void *userdata, BpfHelperCall **ret_call);

/* Drops a queued or running call without calling its callback; NULL is fine. */
void bpf_helper_call_cancel(BpfHelper *h, BpfHelperCall *call);
