/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: what igmpd-bpf accepts from igmpd and igmpd from igmpd-bpf (bpf-protocol.h),
 * through a real SOCK_SEQPACKET socketpair. The first byte of the input says how many
 * descriptors (0-3) go with the datagram, whether the rest is sent as it is or laid over a
 * zeroed request or reply (the fixed sizes a peer sends), and whether it is received as a
 * request (as the helper does) or as a reply (as igmpd does); then it is validated as that.
 * Invariants: an accepted request has its counts in range, known flags and no more copies than
 * probes; an accepted reply has terminated strings and one descriptor per entry with a role;
 * no received descriptor is left open on any path.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bpf-protocol.h"
#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_request(const BpfRequest *req, size_t len)
{
        if (bpf_request_validate(req, len) < 0)
                return;
        assert(len == sizeof *req && req->version == BPF_PROTOCOL_VERSION);
        assert(bpf_op_to_string(req->op));
        assert(req->n_pids <= BPF_PROTOCOL_MAX_PIDS && req->n_known <= BPF_PROTOCOL_MAX_KNOWN);
        assert(req->max_copies <= req->max_probes);
        assert(!(req->flags & ~_BPF_REQUEST_ALL));
}

static void check_reply(const BpfReply *reply, size_t len, size_t n_fds)
{
        if (bpf_reply_validate(reply, len, n_fds) < 0)
                return;
        assert(reply->error <= 0 && reply->n_entries <= BPF_PROTOCOL_MAX_FDS);
        assert(memchr(reply->reason, '\0', sizeof reply->reason));
        assert(bpf_reply_n_fds(reply) == n_fds);
        for (size_t i = 0; i < reply->n_entries; i++)
                assert(memchr(reply->entries[i].path, '\0', sizeof reply->entries[i].path));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static int sv[2] = { -1, -1 }, lowest = -1;
        int fds[BPF_PROTOCOL_MAX_FDS], out[3];
        size_t len, n_in = 0, n_out, got = 0;
        bool as_reply;
        uint8_t *buf, *in;
        int r, probe;

        if (sv[0] < 0) {
                assert(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) == 0);
                lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
                assert(lowest >= 0);
                close(lowest);
        }
        if (size == 0)
                return 0;
        n_out = data[0] & 3;
        len = (data[0] >> 2 & 3) == 1 ? sizeof(BpfRequest) : (data[0] >> 2 & 3) == 2 ? sizeof(BpfReply) : size - 1;
        as_reply = data[0] & 0x10;
        buf = calloc(1, MAX(len, (size_t) 1));
        in = calloc(1, sizeof(BpfReply));
        assert(buf && in);
        memcpy(buf, data + 1, MIN(len, size - 1));

        for (size_t i = 0; i < n_out; i++)
                assert((out[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0);
        r = bpf_protocol_send(sv[0], buf, len, out, n_out);
        for (size_t i = 0; i < n_out; i++)
                close(out[i]);
        if (r >= 0) {
                r = bpf_protocol_recv_room(sv[1], in, as_reply ? sizeof(BpfReply) : sizeof(BpfRequest),
                                           &n_in, fds, as_reply ? BPF_PROTOCOL_MAX_FDS : 2,
                                           BPF_PROTOCOL_MAX_FDS, &got);
                if (r >= 0) {
                        assert(n_in <= (as_reply ? sizeof(BpfReply) : sizeof(BpfRequest)) && got <= n_out);
                        if (as_reply)
                                check_reply((const BpfReply *) in, n_in, got);
                        else
                                check_request((const BpfRequest *) in, n_in);
                        for (size_t i = 0; i < got; i++)
                                close(fds[i]);
                } else
                        assert(r == -EBADMSG || r == -EMFILE || r == -ECONNRESET);
        }
        /* Nothing of this input is left in the socket or the fd table. */
        while ((r = bpf_protocol_recv_room(sv[1], in, sizeof(BpfReply), &n_in, fds, BPF_PROTOCOL_MAX_FDS,
                                           BPF_PROTOCOL_MAX_FDS, &got)) != -EAGAIN)
                for (size_t i = 0; r >= 0 && i < got; i++)
                        close(fds[i]);
        probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert(probe == lowest);
        close(probe);
        free(buf);
        free(in);
        return 0;
}
