/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd ↔ igmpd-bpf messages: what a receiver accepts, and fds passing through a real
 * SOCK_SEQPACKET socketpair (one datagram, descriptors in order, too many refused).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf-protocol.h"

Test(bpf_protocol, request_validate)
{
        BpfRequest req = { .version = BPF_PROTOCOL_VERSION, .op = BPF_OP_LIBC_RESCAN, .n_pids = 3 };

        cr_expect_eq(bpf_request_validate(&req, sizeof req), 0);
        cr_expect_eq(bpf_request_validate(&req, sizeof req - 1), -EBADMSG);
        req.op = 0;
        cr_expect_eq(bpf_request_validate(&req, sizeof req), -EBADMSG);
        req.op = _BPF_OP_MAX;
        cr_expect_eq(bpf_request_validate(&req, sizeof req), -EBADMSG);
        req.op = BPF_OP_SYSCALL_ATTACH;
        req.n_pids = BPF_PROTOCOL_MAX_PIDS + 1;
        cr_expect_eq(bpf_request_validate(&req, sizeof req), -EBADMSG);
        req.n_pids = 0;
        req.n_known = BPF_PROTOCOL_MAX_KNOWN + 1;
        cr_expect_eq(bpf_request_validate(&req, sizeof req), -EBADMSG);
        req.n_known = 0;
        req.flags = 1u << 7; /* unknown */
        cr_expect_eq(bpf_request_validate(&req, sizeof req), -EBADMSG);
        req.flags = BPF_REQUEST_SWEEP;
        req.max_probes = 2;
        req.max_copies = 3; /* more copies than probes */
        cr_expect_eq(bpf_request_validate(&req, sizeof req), -EBADMSG);
        req.max_copies = 2;
        cr_expect_eq(bpf_request_validate(&req, sizeof req), 0);
        req.version = BPF_PROTOCOL_VERSION + 1;
        cr_expect_eq(bpf_request_validate(&req, sizeof req), -EBADMSG);
        cr_expect_str_eq(bpf_op_to_string(BPF_OP_LIBC_ATTACH), "libc-attach");
        cr_expect_null(bpf_op_to_string(_BPF_OP_MAX));
}

static BpfReply *reply_new(void)
{
        BpfReply *r = calloc(1, sizeof *r);

        cr_assert_not_null(r);
        r->version = BPF_PROTOCOL_VERSION;
        return r;
}

Test(bpf_protocol, reply_validate)
{
        BpfReply *r = reply_new();

        r->n_entries = 3;
        r->entries[0].role = BPF_FD_RINGBUF;
        r->entries[1].role = BPF_FD_NONE; /* a libc file that was not probed: no fd */
        r->entries[2].role = BPF_FD_LINK;
        cr_expect_eq(bpf_reply_n_fds(r), 2);
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 2), 0);
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 1), -EBADMSG);  /* fd count differs */
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 3), -EBADMSG);
        cr_expect_eq(bpf_reply_validate(r, sizeof *r - 8, 2), -EBADMSG);

        r->entries[2].role = _BPF_FD_ROLE_MAX;
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 2), -EBADMSG);
        r->entries[2].role = BPF_FD_LINK;

        memset(r->entries[1].path, 'x', sizeof r->entries[1].path); /* unterminated */
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 2), -EBADMSG);
        r->entries[1].path[0] = '\0';

        memset(r->reason, 'y', sizeof r->reason);
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 2), -EBADMSG);
        r->reason[0] = '\0';

        r->error = -EPERM; /* an error carries no fds */
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 2), -EBADMSG);
        r->n_entries = 0;
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 0), 0);
        r->error = 5;
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 0), -EBADMSG);
        r->error = 0;
        r->flags = 1u << 9; /* unknown */
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 0), -EBADMSG);
        r->flags = BPF_REPLY_INCOMPLETE;
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 0), 0);
        r->n_entries = BPF_PROTOCOL_MAX_FDS + 1;
        cr_expect_eq(bpf_reply_validate(r, sizeof *r, 0), -EBADMSG);
        free(r);
}

static ino_t inode_of(int fd)
{
        struct stat st;

        cr_assert_eq(fstat(fd, &st), 0);
        return st.st_ino;
}

Test(bpf_protocol, send_recv_fds)
{
        int sv[2], fds[3], got[BPF_PROTOCOL_MAX_FDS];
        BpfReply *out = reply_new(), *in = reply_new();
        size_t len = 0, n = 0;

        cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        fds[0] = open("/", O_RDONLY | O_CLOEXEC);
        fds[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        fds[2] = open("/proc", O_RDONLY | O_CLOEXEC);
        out->n_entries = 3;
        for (int i = 0; i < 3; i++)
                out->entries[i].role = BPF_FD_LINK;
        snprintf(out->reason, sizeof out->reason, "hello");

        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, fds, 3), 0);
        cr_assert_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, BPF_PROTOCOL_MAX_FDS,
                                            BPF_PROTOCOL_MAX_FDS, &n),
                     0);
        cr_expect_eq(len, sizeof *in);
        cr_expect_eq(n, 3);
        cr_expect_eq(bpf_reply_validate(in, len, n), 0);
        cr_expect_str_eq(in->reason, "hello");
        for (int i = 0; i < 3; i++) {
                cr_expect_eq(inode_of(got[i]), inode_of(fds[i]), "fd %d arrived out of order", i);
                cr_expect(fcntl(got[i], F_GETFD) & FD_CLOEXEC);
                close(got[i]);
        }

        /* More descriptors than the receiver takes: refused, nothing leaks. */
        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, fds, 3), 0);
        cr_expect_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, 2, BPF_PROTOCOL_MAX_FDS, &n),
                     -EBADMSG);

        /* A datagram larger than the buffer: refused. */
        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, NULL, 0), 0);
        cr_expect_eq(
                bpf_protocol_recv_room(sv[1], in, sizeof *in - 1, &len, got, 2, BPF_PROTOCOL_MAX_FDS, &n),
                -EBADMSG);

        /* End of file. */
        close(sv[0]);
        cr_expect_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, 2, BPF_PROTOCOL_MAX_FDS, &n),
                     -ECONNRESET);
        for (int i = 0; i < 3; i++)
                close(fds[i]);
        close(sv[1]);
        free(out);
        free(in);
}

/* A receiver out of descriptors: the kernel passes what fits and says MSG_CTRUNC; that is
 * -EMFILE, nothing is left open, and the next datagram is read in step. */
Test(bpf_protocol, recv_out_of_fds)
{
        int sv[2], fds[3], got[BPF_PROTOCOL_MAX_FDS], probe;
        BpfReply *out = reply_new(), *in = reply_new();
        size_t len = 0, n = 0;
        struct rlimit rl;

        cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        for (int i = 0; i < 3; i++)
                fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, fds, 3), 0);
        out->reason[0] = 'x';
        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, NULL, 0), 0);

        probe = open("/dev/null", O_RDONLY | O_CLOEXEC); /* the lowest free number */
        cr_assert_geq(probe, 0);
        close(probe);
        cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
        rl.rlim_cur = (rlim_t) probe + 1; /* room for one of the three */
        cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
        cr_expect_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, BPF_PROTOCOL_MAX_FDS,
                                            BPF_PROTOCOL_MAX_FDS, &n),
                     -EMFILE);
        probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
        cr_expect_geq(probe, 0, "the one descriptor that fitted was not closed");
        close(probe);
        cr_expect_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, BPF_PROTOCOL_MAX_FDS,
                                            BPF_PROTOCOL_MAX_FDS, &n),
                     0);
        cr_expect_eq(in->reason[0], 'x');
        cr_expect_eq(n, 0);
        for (int i = 0; i < 3; i++)
                close(fds[i]);
        close(sv[0]);
        close(sv[1]);
        free(out);
        free(in);
}

/* The slots of this process's descriptor table: grown (64, 128…) for a descriptor beyond it,
 * never shrunk; so it tells whether one was ever opened there. */
static long fd_table_slots(void)
{
        char line[128];
        long slots = -1;
        FILE *f = fopen("/proc/self/status", "re");

        cr_assert_not_null(f);
        while (fgets(line, sizeof line, f))
                if (sscanf(line, "FDSize: %ld", &slots) == 1)
                        break;
        fclose(f);
        return slots;
}

/* A receiver with room for fewer descriptors than a datagram carries: -EMFILE, the next datagram
 * is read in step, and with no room the descriptors were never opened here (64 of them would
 * have grown the descriptor table). */
Test(bpf_protocol, recv_room)
{
        int sv[2], fds[BPF_PROTOCOL_MAX_FDS], got[BPF_PROTOCOL_MAX_FDS], probe, lowest;
        BpfReply *out = reply_new(), *in = reply_new();
        size_t len = 0, n = 0;
        long slots;

        /* qemu-user (the cross builds' tests) receives SCM_RIGHTS into a control buffer of its
         * own and opens every descriptor whatever room the program gave: only a kernel does what
         * is tested here. */
        if (getenv("MESON_EXE_WRAPPER") && *getenv("MESON_EXE_WRAPPER"))
                cr_skip_test("under qemu-user, which opens every passed descriptor itself");

        cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(fds[0], 0);
        for (size_t i = 1; i < BPF_PROTOCOL_MAX_FDS; i++)
                fds[i] = fds[0];
        lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(lowest, 0);
        close(lowest);

        /* Room for exactly as many as sent: received. */
        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, fds, 3), 0);
        cr_expect_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, BPF_PROTOCOL_MAX_FDS, 3, &n), 0);
        cr_expect_eq(n, 3);
        for (size_t i = 0; i < n; i++)
                close(got[i]);

        /* One short: refused as out of descriptors, in step with the next datagram. */
        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, fds, 3), 0);
        out->reason[0] = 'x';
        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, NULL, 0), 0);
        cr_expect_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, BPF_PROTOCOL_MAX_FDS, 2, &n), -EMFILE);
        cr_expect_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, BPF_PROTOCOL_MAX_FDS, 0, &n), 0);
        cr_expect_eq(in->reason[0], 'x');
        cr_expect_eq(n, 0);

        /* No room: 64 descriptors dropped unopened. */
        slots = fd_table_slots();
        cr_assert_eq(bpf_protocol_send(sv[0], out, sizeof *out, fds, BPF_PROTOCOL_MAX_FDS), 0);
        cr_expect_eq(bpf_protocol_recv_room(sv[1], in, sizeof *in, &len, got, BPF_PROTOCOL_MAX_FDS, 0, &n), -EMFILE);
        probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
        cr_expect_eq(probe, lowest, "a descriptor was left open");
        close(probe);
        if (lowest + BPF_PROTOCOL_MAX_FDS > slots)
                cr_expect_eq(fd_table_slots(), slots, "the descriptors were opened (the table grew from %ld slots)",
                             slots);
        close(fds[0]);
        close(sv[0]);
        close(sv[1]);
        free(out);
        free(in);
}
