/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BpfHelper's descriptor reserve, against a fake helper on a socket of the test's own (socket
 * mode): a reply whose descriptors would land in the last 256 below RLIMIT_NOFILE is refused,
 * and igmpd never holds them, not even between receiving and closing them. The descriptor
 * table's size (FDSize in /proc/self/status) grows for a descriptor beyond it and never
 * shrinks: it shows one that was held for a moment.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "bpf-helper-client.h"

#define SKIP 77

/* The scenario runs in a grandchild with a fresh descriptor table (a fork copies the parent's
 * table size, and Criterion's workers have a large one): failures are printed, and the exit
 * status tells them. */
#define check(cond, ...)                                                                            \
        do {                                                                                        \
                if (!(cond)) {                                                                      \
                        fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
                        fprintf(stderr, __VA_ARGS__);                                               \
                        fputc('\n', stderr);                                                        \
                        _exit(1);                                                                   \
                }                                                                                   \
        } while (0)

typedef struct Result {
        bool done;
        int error;
        size_t n_fds;
} Result;

static void on_done(int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds, void *userdata)
{
        Result *res = userdata;

        res->done = true;
        res->error = error;
        res->n_fds = n_fds;
        for (size_t i = 0; i < n_fds; i++)
                close(fds[i]);
}

static long fd_table_slots(void)
{
        char line[128];
        long slots = -1;
        FILE *f = fopen("/proc/self/status", "re");

        check(f, "cannot open /proc/self/status");
        while (fgets(line, sizeof line, f))
                if (sscanf(line, "FDSize: %ld", &slots) == 1)
                        break;
        fclose(f);
        return slots;
}

static int lowest_free(void)
{
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

        check(fd >= 0, "cannot open /dev/null");
        close(fd);
        return fd;
}

/* One exchange: igmpd's call, the fake helper's reply with n_fds copies of /dev/null (as uprobe
 * links), igmpd's callback. */
static Result exchange(sd_event *e, BpfHelper *h, int listen_fd, int *conn, size_t n_fds)
{
        BpfRequest req = { .op = BPF_OP_LIBC_RESCAN };
        BpfRequest *in = calloc(1, sizeof *in);
        BpfReply *reply = calloc(1, sizeof *reply);
        int fds[BPF_PROTOCOL_MAX_FDS], null_fd, got[2];
        size_t len = 0, n = 0;
        Result res = {};

        check(in && reply, "out of memory");
        check(bpf_helper_call(h, &req, NULL, 0, on_done, &res, NULL) == 0, "no call");
        for (int i = 0; i < 10 && *conn < 0; i++) {
                check(sd_event_run(e, 100 * 1000) >= 0, "event loop");
                *conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        }
        check(*conn >= 0, "igmpd did not connect");
        for (int i = 0; i < 10 && bpf_protocol_recv_room(*conn, in, sizeof *in, &len, got, 2,
                                                         BPF_PROTOCOL_MAX_FDS, &n) == -EAGAIN;
             i++)
                check(sd_event_run(e, 100 * 1000) >= 0, "event loop");
        check(bpf_request_validate(in, len) == 0, "no request arrived");

        null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        check(null_fd >= 0, "cannot open /dev/null");
        reply->version = BPF_PROTOCOL_VERSION;
        reply->n_entries = (uint32_t) n_fds;
        for (size_t i = 0; i < n_fds; i++) {
                reply->entries[i].role = BPF_FD_LINK;
                fds[i] = null_fd;
        }
        check(bpf_protocol_send(*conn, reply, sizeof *reply, fds, n_fds) == 0, "cannot send the reply");
        close(null_fd);
        for (int i = 0; i < 50 && !res.done; i++)
                check(sd_event_run(e, 100 * 1000) >= 0, "event loop");
        check(res.done, "no reply reached the callback");
        free(in);
        free(reply);
        return res;
}

/* limit: RLIMIT_NOFILE for the reply of 64, from the lowest free descriptor number up (0:
 * scenario_holes()). */
/* igmpd's BpfHelper connected to the fake helper on a socket of the test's own, after one
 * exchange that fits (taken; it also makes the event loop's own descriptors). */
typedef struct Fixture {
        char dir[sizeof "/tmp/test-bpf-helper-client.XXXXXX"];
        struct sockaddr_un sa;
        int listen_fd, conn;
        sd_event *e;
        BpfHelper *h;
} Fixture;

static void fixture_open(Fixture *f)
{
        char reason[256] = "";
        Result res;

        *f = (Fixture) { .dir = "/tmp/test-bpf-helper-client.XXXXXX", .sa.sun_family = AF_UNIX, .conn = -1 };
        check(mkdtemp(f->dir), "mkdtemp");
        snprintf(f->sa.sun_path, sizeof f->sa.sun_path, "%s/sock", f->dir);
        f->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        check(f->listen_fd >= 0, "socket");
        check(bind(f->listen_fd, (struct sockaddr *) &f->sa, sizeof f->sa) == 0, "bind");
        check(listen(f->listen_fd, 4) == 0, "listen");
        check(sd_event_new(&f->e) >= 0, "sd_event_new");
        check(bpf_helper_new(f->e, f->sa.sun_path, NULL, &f->h, reason, sizeof reason) == 0, "%s", reason);
        res = exchange(f->e, f->h, f->listen_fd, &f->conn, 2);
        check(res.error == 0 && res.n_fds == 2, "error %d, %zu fds", res.error, res.n_fds);
}

static void fixture_close(Fixture *f)
{
        bpf_helper_free(f->h);
        sd_event_unref(f->e);
        close(f->conn);
        close(f->listen_fd);
        unlink(f->sa.sun_path);
        rmdir(f->dir);
}

static void scenario(rlim_t limit)
{
        Fixture fx;
        int lowest;
        struct rlimit rl, saved;
        long slots;
        Result res;

        fixture_open(&fx);

        /* igmpd short of descriptors: 64 in a reply, room for fewer (or none) below the reserve.
         * 64 taken in would reach past the table, the 36 that fit in the second test would not. */
        lowest = lowest_free();
        slots = fd_table_slots();
        if (slots < 0 || lowest + BPF_PROTOCOL_MAX_FDS - 1 < slots || lowest + 36 > slots) {
                fprintf(stderr, "the descriptor table (%ld slots, lowest free %d) cannot show a descriptor held\n",
                        slots, lowest);
                _exit(SKIP);
        }
        check(getrlimit(RLIMIT_NOFILE, &saved) == 0, "getrlimit");
        rl = saved;
        rl.rlim_cur = (rlim_t) lowest + limit;
        check(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit");
        res = exchange(fx.e, fx.h, fx.listen_fd, &fx.conn, BPF_PROTOCOL_MAX_FDS);
        check(res.error == -EMFILE, "error %d", res.error);
        check(lowest_free() == lowest, "a descriptor was left open");
        check(fd_table_slots() == slots,
              "igmpd held the refused descriptors for a moment (its table grew from %ld to %ld slots)", slots,
              fd_table_slots());
        check(setrlimit(RLIMIT_NOFILE, &saved) == 0, "setrlimit");

        /* In step: the next reply is read. */
        res = exchange(fx.e, fx.h, fx.listen_fd, &fx.conn, 1);
        check(res.error == 0 && res.n_fds == 1, "error %d, %zu fds", res.error, res.n_fds);

        fixture_close(&fx);
}

/* A fragmented table: room for 4 below the reserve from the lowest free number up, but two of
 * those numbers taken. A reply of 4 lands at lowest, lowest + 2, lowest + 4 and lowest + 5, the
 * last two in the reserve: refused, although the count fitted (the check after receiving). */
static void scenario_holes(void)
{
        Fixture fx;
        int lowest, null_fd;
        struct rlimit rl, saved;
        Result res;

        fixture_open(&fx);

        lowest = lowest_free();
        null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        check(null_fd == lowest, "/dev/null at %d, not %d", null_fd, lowest);
        check(dup3(null_fd, lowest + 1, O_CLOEXEC) == lowest + 1 && dup3(null_fd, lowest + 3, O_CLOEXEC) == lowest + 3,
              "dup3");
        close(null_fd);
        check(getrlimit(RLIMIT_NOFILE, &saved) == 0, "getrlimit");
        rl = saved;
        rl.rlim_cur = (rlim_t) lowest + 256 + 4;
        check(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit");
        res = exchange(fx.e, fx.h, fx.listen_fd, &fx.conn, 4);
        check(res.error == -EMFILE, "a reply whose descriptors reached the reserve was taken (error %d, %zu fds)",
              res.error, res.n_fds);
        check(lowest_free() == lowest, "a descriptor was left open");
        check(fcntl(lowest + 1, F_GETFD) >= 0 && fcntl(lowest + 3, F_GETFD) >= 0, "igmpd closed a descriptor not its own");
        check(setrlimit(RLIMIT_NOFILE, &saved) == 0, "setrlimit");
        close(lowest + 1);
        close(lowest + 3);

        fixture_close(&fx);
}

static void run(rlim_t limit)
{
        pid_t pid;
        int status;

        pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                /* Only 0-2 open: the grandchild's table starts at its smallest (64 slots). */
                pid_t inner;

                (void) close_range(3, ~0U, 0);
                inner = fork();
                if (inner < 0)
                        _exit(2);
                if (inner == 0) {
                        if (limit)
                                scenario(limit);
                        else
                                scenario_holes();
                        _exit(0);
                }
                if (waitpid(inner, &status, 0) != inner)
                        _exit(2);
                _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 3);
        }
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status));
        if (WEXITSTATUS(status) == SKIP)
                cr_skip_test("the descriptor table cannot show a descriptor held (see the output)");
        cr_expect_eq(WEXITSTATUS(status), 0, "the scenario failed (see the output)");
}

/* RLIMIT_NOFILE below the reserve itself: no descriptor may come in at all (the binary before
 * bpf_protocol_recv_room took in as many as the limit let it, 64 here, then closed them). */
Test(bpf_helper_client, refused_reply_no_room)
{
        run(BPF_PROTOCOL_MAX_FDS + 8);
}

/* Room for 36 below the reserve: the reply of 64 is refused; at most 36 were ever held. */
Test(bpf_helper_client, refused_reply_some_room)
{
        /* qemu-user (the cross builds' tests) receives SCM_RIGHTS into a control buffer of its
         * own and opens every descriptor whatever room the program gave: only a kernel does what
         * is tested here. */
        if (getenv("MESON_EXE_WRAPPER") && *getenv("MESON_EXE_WRAPPER"))
                cr_skip_test("under qemu-user, which opens every passed descriptor itself");
        run(256 + 36);
}

/* Descriptors land on the lowest free numbers, not on consecutive ones: a count that fits the
 * room can still reach the reserve. The check of where they landed refuses such a reply. */
Test(bpf_helper_client, refused_reply_into_reserve_through_holes)
{
        if (getenv("MESON_EXE_WRAPPER") && *getenv("MESON_EXE_WRAPPER"))
                cr_skip_test("under qemu-user, which opens every passed descriptor itself");
        run(0);
}
