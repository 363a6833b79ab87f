/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd-bpf: serves igmpd's BPF requests on one connected SOCK_SEQPACKET socket passed as
 * $LISTEN_FDS (igmpd-bpf.socket with Accept=yes starts one instance per connection; igmpd,
 * running as root outside systemd, starts one the same way over a socketpair). Each request
 * gets one reply; the helper exits when igmpd closes the connection. A request not answered
 * HELPER_BACKSTOP_SEC after it came (a system call stuck in the kernel: a FUSE or NFS server, a
 * process holding its mmap lock) ends the helper: SIGALRM at its default action.
 */

#include <errno.h>
#include <linux/capability.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>

#include "cap-util.h"
#include "helper.h"
#include "log.h"

#define HELPER_BACKSTOP_SEC 10

static void help(void)
{
        printf("Usage: igmpd-bpf\n"
               "\n"
               "The privileged helper of igmpd's BPF audit sources: loads and attaches the BPF\n"
               "programs and hands their links and ring buffers to igmpd. Not for interactive use:\n"
               "started by igmpd-bpf.socket (or by igmpd itself) with one connected socket.\n"
               "See igmpd(8).\n");
}

/* Only root and the igmpd system user may ask. The socket's mode says so too. */
static int check_peer(int fd)
{
        struct ucred cred;
        socklen_t len = sizeof cred;
        struct passwd *pw;

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return log_error_errno(errno, "Failed to read the peer's credentials: %m");
        if (cred.uid == 0)
                return 0;
        pw = getpwnam("igmpd");
        if (pw && pw->pw_uid == cred.uid)
                return 0;
        log_warning("Refusing a request from uid %u (pid %d): only root and the igmpd user may ask.",
                    (unsigned) cred.uid, (int) cred.pid);
        return -EPERM;
}

static HelperHandler *const handlers[_BPF_OP_MAX] = {
#if HAVE_BPF_AUDIT
        [BPF_OP_SYSCALL_ATTACH] = helper_syscall_attach,
        [BPF_OP_LIBC_ATTACH] = helper_libc_attach,
        [BPF_OP_LIBC_RESCAN] = helper_libc_rescan,
#endif
        [BPF_OP_DRIFT_ATTACH] = helper_drift_attach,
};

static int serve_one(int fd)
{
        BpfRequest req;
        HelperReply r = { .reply.version = BPF_PROTOCOL_VERSION };
        int fds[BPF_PROTOCOL_MAX_FDS];
        size_t len = 0, n_fds = 0;
        int err;

        err = bpf_protocol_recv_room(fd, &req, sizeof req, &len, fds, ELEMENTSOF(fds), BPF_PROTOCOL_MAX_FDS,
                                     &n_fds);
        if (err == -ECONNRESET)
                return 0;
        if (err < 0)
                return log_error_errno(err, "Failed to receive a request: %m");

        (void) alarm(HELPER_BACKSTOP_SEC);
        if (bpf_request_validate(&req, len) < 0) {
                log_warning("Ignoring a malformed request (%zu bytes).", len);
                helper_reply_error(&r, -EBADMSG, "malformed request (igmpd and igmpd-bpf from different builds?)");
        } else {
                log_debug("Request %s (%u pids, %u known files, %zu fds).", bpf_op_to_string(req.op),
                          req.n_pids, req.n_known, n_fds);
                if (handlers[req.op])
                        (void) handlers[req.op](&req, fds, n_fds, &r);
                else
                        helper_reply_error(&r, -EOPNOTSUPP, "this igmpd-bpf does not handle %s%s", bpf_op_to_string(req.op),
                                           HAVE_BPF_AUDIT ? "" : " (the audit programs are built for x86_64 only)");
        }
        close_many(fds, n_fds);
        if (r.reply.error < 0) {
                helper_reply_done(&r); /* an error reply carries no fds */
                r.reply.n_entries = 0;
                log_info("%s: %s", bpf_op_to_string(req.op) ?: "request", r.reply.reason);
        }

        err = bpf_protocol_send(fd, &r.reply, sizeof r.reply, r.fds, r.n_fds);
        (void) alarm(0);
        helper_reply_done(&r);
        if (err == -EPIPE || err == -ECONNRESET) {
                /* igmpd went away (stopped or restarted) before the answer: nothing was attached
                 * for anyone, since the fds we held are closed now. */
                log_debug("igmpd closed the connection before the reply, nothing to do.");
                return 0;
        }
        if (err < 0)
                return log_error_errno(err, "Failed to send the reply: %m");
        return 1;
}

int main(int argc, char *argv[])
{
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {}
        };
        int c, n, fd, type = 0, r;
        socklen_t len = sizeof type;

        log_setup();
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case 'V':
                        printf("igmpd-bpf %s\n", PACKAGE_VERSION);
                        return EXIT_SUCCESS;
                default:
                        return 2;
                }

        n = sd_listen_fds(true);
        if (n != 1) {
                log_error("igmpd-bpf needs exactly one connected socket in $LISTEN_FDS (got %d); it is started "
                          "by igmpd-bpf.socket or by igmpd.", n);
                return EXIT_FAILURE;
        }
        fd = SD_LISTEN_FDS_START;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_SEQPACKET) {
                log_error("The socket passed to igmpd-bpf is not a connected SOCK_SEQPACKET socket.");
                return EXIT_FAILURE;
        }
        if (check_peer(fd) < 0)
                return EXIT_FAILURE;
        /* Started by root igmpd, the helper has every capability: keep what it uses. */
        r = capability_drop_except(CAP_MASK(CAP_SYS_ADMIN) | CAP_MASK(CAP_BPF) | CAP_MASK(CAP_PERFMON) |
                                   CAP_MASK(CAP_SYS_PTRACE));
        if (r < 0)
                log_debug_errno(r, "Cannot drop the capabilities the helper does not use, ignoring: %m");
        libbpf_set_print(helper_libbpf_print);
        (void) signal(SIGALRM, SIG_DFL); /* an ignored signal stays ignored across exec */

        while ((r = serve_one(fd)) > 0)
                ;
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
