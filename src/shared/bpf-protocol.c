/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd ↔ igmpd-bpf messages: validation (pure) and SCM_RIGHTS send/receive.
 */

#include <assert.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "bpf-protocol.h"
#include "macro.h"

static const char *const bpf_op_table[_BPF_OP_MAX] = {
        [BPF_OP_SYSCALL_ATTACH] = "syscall-attach",
        [BPF_OP_LIBC_ATTACH] = "libc-attach",
        [BPF_OP_LIBC_RESCAN] = "libc-rescan",
        [BPF_OP_DRIFT_ATTACH] = "drift-attach",
};

const char *bpf_op_to_string(BpfOp op)
{
        return TABLE_NAME(bpf_op_table, op);
}

/* Room for the control message of the most descriptors one datagram carries. */
typedef union FdControl {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int) * BPF_PROTOCOL_MAX_FDS)];
} FdControl;

int bpf_request_validate(const BpfRequest *req, size_t len)
{
        assert(req);

        if (len != sizeof *req || req->version != BPF_PROTOCOL_VERSION)
                return -EBADMSG;
        if (!bpf_op_to_string(req->op))
                return -EBADMSG;
        if (req->n_pids > BPF_PROTOCOL_MAX_PIDS || req->n_known > BPF_PROTOCOL_MAX_KNOWN ||
            (req->flags & ~_BPF_REQUEST_ALL) || req->max_copies > req->max_probes)
                return -EBADMSG;
        return 0;
}

size_t bpf_reply_n_fds(const BpfReply *reply)
{
        size_t n = 0;

        for (size_t i = 0; i < MIN(reply->n_entries, (uint32_t) BPF_PROTOCOL_MAX_FDS); i++)
                if (reply->entries[i].role != BPF_FD_NONE)
                        n++;
        return n;
}

int bpf_reply_validate(const BpfReply *reply, size_t len, size_t n_fds)
{
        assert(reply);

        if (len != sizeof *reply || reply->version != BPF_PROTOCOL_VERSION)
                return -EBADMSG;
        if (reply->error > 0 || !memchr(reply->reason, '\0', sizeof reply->reason) ||
            (reply->flags & ~_BPF_REPLY_ALL) || reply->n_entries > BPF_PROTOCOL_MAX_FDS)
                return -EBADMSG;
        for (const BpfReplyEntry *e = reply->entries; e < reply->entries + reply->n_entries; e++)
                if (e->role >= _BPF_FD_ROLE_MAX || !memchr(e->path, '\0', sizeof e->path))
                        return -EBADMSG;
        if (bpf_reply_n_fds(reply) != n_fds)
                return -EBADMSG;
        if (reply->error < 0 && n_fds > 0)
                return -EBADMSG;
        return 0;
}

int bpf_protocol_send(int sock, const void *buf, size_t len, const int *fds, size_t n_fds)
{
        FdControl control = {};
        struct iovec iov = { .iov_base = (void *) buf, .iov_len = len };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        ssize_t n;

        assert(buf);

        if (n_fds > BPF_PROTOCOL_MAX_FDS)
                return -E2BIG;
        if (n_fds > 0) {
                struct cmsghdr *c;

                mh.msg_control = control.buf;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
        }
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

int bpf_protocol_recv_room(int sock, void *buf, size_t size, size_t *ret_len, int *fds, size_t max_fds, size_t room,
                           size_t *ret_n_fds)
{
        FdControl control = {};
        struct iovec iov = { .iov_base = buf, .iov_len = size };
        /* The kernel installs as many descriptors as the control buffer holds, (len -
         * sizeof(struct cmsghdr)) / sizeof(int), and drops the rest unopened: CMSG_LEN, not
         * CMSG_SPACE, whose padding would hold one more. */
        struct msghdr mh = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = room > 0 ? control.buf : NULL,
                .msg_controllen = room > 0 ? CMSG_LEN(sizeof(int) * MIN(room, (size_t) BPF_PROTOCOL_MAX_FDS)) : 0,
        };
        size_t n_fds = 0;
        bool too_many = false;
        ssize_t n;

        assert(buf);
        assert(ret_len);
        assert(ret_n_fds);

        do
                n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;

        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                size_t k;
                int *p;

                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                        continue;
                k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                p = (int *) CMSG_DATA(c);
                for (size_t i = 0; i < k; i++) {
                        int fd;

                        memcpy(&fd, p + i, sizeof fd);
                        if (n_fds < max_fds)
                                fds[n_fds++] = fd;
                        else {
                                safe_close(fd);
                                too_many = true;
                        }
                }
        }
        if (too_many || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
                close_many(fds, n_fds);
                return !too_many && (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) == MSG_CTRUNC ? -EMFILE : -EBADMSG;
        }
        if (n == 0 && n_fds == 0)
                return -ECONNRESET;
        *ret_len = (size_t) n;
        *ret_n_fds = n_fds;
        return 0;
}
