/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BpfHelper: reaching igmpd-bpf (socket or child), the queue of calls, and their replies.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf-helper-client.h"
#include "cap-util.h"
#include "log.h"
#include "parse-util.h"

/* The helper answers within 10 s or ends itself: one silent for longer is stuck (or systemd could
 * not start it). A stuck child is killed, a new one starts at the next call (one per 5 s). */
#define BPF_HELPER_TIMEOUT_USEC (20ULL * 1000000ULL)
#define BPF_HELPER_RESPAWN_USEC (5ULL * 1000000ULL)
/* Socket mode: a connection (one igmpd-bpf@.service instance) is kept this long after a call:
 * a stream of rescans runs one instance, not one (and two journal lines) each. */
#define BPF_HELPER_IDLE_USEC (30ULL * 1000000ULL)
/* A reply whose fds land this close to RLIMIT_NOFILE is refused: the rest is for link
 * configuration (main.c raises the soft limit to the hard one). */
#define BPF_HELPER_FD_RESERVE 256

struct BpfHelperCall {
        BpfHelperCall *next;
        BpfRequest req;
        int fds[BPF_PROTOCOL_MAX_FDS];
        size_t n_fds;
        BpfHelperReplyFn cb;
        void *userdata;
};

struct BpfHelper {
        sd_event *event;
        char *socket_path;         /* socket mode */
        char *helper_path;         /* child mode */
        pid_t child_pid;           /* until reaped */
        sd_event_source *child_source;
        uint64_t spawn_usec;
        char description[sizeof(struct sockaddr_un) + 32];

        BpfHelperCall *head;       /* the running call, while io_source exists, then the queued ones */
        int conn_fd;               /* the child's socketpair, or a connection to the socket; -EBADF
                                      when gone, out of step or idle */
        sd_event_source *io_source, *timeout_source; /* the latter closes an idle connection too */
        sd_event_source *kick_source; /* starts the next call from the event loop */
};

static void call_free(BpfHelperCall *c)
{
        if (!c)
                return;
        close_many(c->fds, c->n_fds);
        free(c);
}
DEFINE_TRIVIAL_CLEANUP_FUNC(BpfHelperCall *, call_free);

/* Whether igmpd could start a helper child now that gets the capabilities it needs (igmpd holds
 * them, or is root without no_new_privs). */
static bool bpf_helper_can_spawn(void)
{
        uint64_t need = CAP_MASK(CAP_SYS_ADMIN) | CAP_MASK(CAP_BPF) | CAP_MASK(CAP_PERFMON);
        CapabilitySets s;

        if (capability_get(&s) < 0)
                return false;
        if ((s.effective & need) == need)
                return true;
        /* Root gets the bounding set back at exec (unless no_new_privs): igmpd may have dropped
         * these itself and still start a helper that has them. */
        if (geteuid() != 0 || prctl(PR_GET_NO_NEW_PRIVS, 0UL, 0UL, 0UL, 0UL) != 0)
                return false;
        return prctl(PR_CAPBSET_READ, (unsigned long) CAP_SYS_ADMIN, 0UL, 0UL, 0UL) == 1 &&
               prctl(PR_CAPBSET_READ, (unsigned long) CAP_BPF, 0UL, 0UL, 0UL) == 1 &&
               prctl(PR_CAPBSET_READ, (unsigned long) CAP_PERFMON, 0UL, 0UL, 0UL) == 1;
}

static int on_child_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
        BpfHelper *h = userdata;

        if (si->si_code == CLD_EXITED && si->si_status == 0)
                log_debug("BPF helper (pid %d) exited.", (int) si->si_pid);
        else
                log_warning("BPF helper (pid %d) %s %d; igmpd starts a new one when it next needs it.",
                            (int) si->si_pid, si->si_code == CLD_EXITED ? "exited with status" : "was killed by signal",
                            si->si_status);
        h->child_pid = 0;
        if (!h->io_source) /* else the running call sees the end of file */
                h->conn_fd = safe_close(h->conn_fd);
        return 0;
}

/* Starts igmpd-bpf over a socketpair (child mode). */
static int helper_spawn(BpfHelper *h)
{
        char listen_pid[32] = "LISTEN_PID=", *argv[] = { h->helper_path, NULL };
        char env_target[64], env_level[64];
        char *envp[] = { (char *) "LISTEN_FDS=1", listen_pid, env_target, env_level, NULL };
        sigset_t mask;
        int sv[2], r;
        pid_t pid;

        snprintf(env_target, sizeof env_target, "SYSTEMD_LOG_TARGET=%s", strempty(getenv("SYSTEMD_LOG_TARGET")));
        snprintf(env_level, sizeof env_level, "SYSTEMD_LOG_LEVEL=%s", strempty(getenv("SYSTEMD_LOG_LEVEL")));
        if (access(h->helper_path, X_OK) < 0)
                return -errno;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        _cleanup_close_ int ours = sv[0], theirs = sv[1];

        /* sd-event reaps the child through SIGCHLD, which must be blocked for that. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                /* Child: only async-signal-safe calls until exec. */
                sigset_t none;

                *format_int32(listen_pid + STRLEN("LISTEN_PID="), (int32_t) getpid()) = '\0';
                if (dup2(theirs, 3) < 0)
                        _exit(127);
                (void) close_range(4, ~0U, 0);
                (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
                sigemptyset(&none);
                (void) sigprocmask(SIG_SETMASK, &none, NULL);
                execve(h->helper_path, argv, envp);
                _exit(127);
        }
        h->child_pid = pid;
        h->conn_fd = TAKE_FD(ours);
        (void) sd_event_now(h->event, CLOCK_MONOTONIC, &h->spawn_usec);
        r = sd_event_add_child(h->event, &h->child_source, pid, WEXITED, on_child_exit, h);
        if (r < 0)
                return r;
        (void) fcntl(h->conn_fd, F_SETFL, fcntl(h->conn_fd, F_GETFL) | O_NONBLOCK);
        snprintf(h->description, sizeof h->description, "child process %d (%s)", (int) pid, h->helper_path);
        return 0;
}

int bpf_helper_new(sd_event *e, const char *socket_path, const char *helper_path, BpfHelper **ret, char *reason,
                   size_t reason_size)
{
        _cleanup_(bpf_helper_freep) BpfHelper *h = NULL;
        struct stat st;
        int r;

        assert(e);
        assert(ret);

        h = calloc(1, sizeof *h);
        if (!h)
                return -ENOMEM;
        h->event = sd_event_ref(e);
        h->conn_fd = -EBADF;
        socket_path = socket_path ?: getenv("IGMPD_BPF_SOCKET") ?: BPF_HELPER_SOCKET;
        helper_path = helper_path ?: getenv("IGMPD_BPF_HELPER") ?: BPF_HELPER_PATH;

        if (strlen(socket_path) >= sizeof((struct sockaddr_un) {}.sun_path))
                return -EINVAL;
        if (stat(socket_path, &st) >= 0 && S_ISSOCK(st.st_mode)) {
                h->socket_path = strdup(socket_path);
                if (!h->socket_path)
                        return -ENOMEM;
                snprintf(h->description, sizeof h->description, "socket %s", socket_path);
                *ret = TAKE_PTR(h);
                return 0;
        }
        if (!bpf_helper_can_spawn()) {
                snprintf(reason, reason_size,
                         "no BPF helper: %s does not exist (is igmpd-bpf.socket enabled?) and igmpd lacks "
                         "CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON to start %s itself",
                         socket_path, helper_path);
                return -ENOENT;
        }
        h->helper_path = strdup(helper_path);
        if (!h->helper_path)
                return -ENOMEM;
        r = helper_spawn(h);
        if (r < 0) {
                snprintf(reason, reason_size, "cannot start the BPF helper %s: %s", helper_path, strerror(-r));
                return r;
        }
        *ret = TAKE_PTR(h);
        return 0;
}

static void call_stop_io(BpfHelper *h)
{
        h->io_source = sd_event_source_disable_unref(h->io_source);
        h->timeout_source = sd_event_source_disable_unref(h->timeout_source);
}

BpfHelper *bpf_helper_free(BpfHelper *h)
{
        if (!h)
                return NULL;
        call_stop_io(h);
        safe_close(h->conn_fd); /* the child exits at end of file; it holds nothing of its own */
        sd_event_source_disable_unref(h->kick_source);
        while (h->head) {
                BpfHelperCall *c = h->head;
                h->head = c->next;
                call_free(c);
        }
        sd_event_source_disable_unref(h->child_source);
        sd_event_unref(h->event);
        free(h->socket_path);
        free(h->helper_path);
        free(h);
        return NULL;
}

const char *bpf_helper_describe(const BpfHelper *h)
{
        return h ? h->description : "none";
}

static void helper_start_next(BpfHelper *h);

static int on_idle(sd_event_source *s, uint64_t usec, void *userdata)
{
        BpfHelper *h = userdata;

        h->timeout_source = sd_event_source_disable_unref(h->timeout_source);
        h->conn_fd = safe_close(h->conn_fd); /* the helper instance exits */
        return 0;
}

/* Ends the running call: hands the result to its callback, then starts the next one. */
static void call_complete(BpfHelper *h, int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds)
{
        BpfHelperCall *c = h->head;

        assert(c);
        call_stop_io(h);
        h->head = c->next;
        if (c->cb)
                c->cb(error, reason, reply, fds, n_fds, c->userdata);
        else
                close_many(fds, n_fds);
        call_free(c);
        if (h->socket_path && h->conn_fd >= 0 &&
            sd_event_add_time_relative(h->event, &h->timeout_source, CLOCK_MONOTONIC, BPF_HELPER_IDLE_USEC, 0,
                                       on_idle, h) < 0)
                h->conn_fd = safe_close(h->conn_fd);
        helper_start_next(h);
}

static void call_fail(BpfHelper *h, int error, const char *fmt, ...) _printf_(3, 4);
static void call_fail(BpfHelper *h, int error, const char *fmt, ...)
{
        char reason[BPF_PROTOCOL_REASON_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(reason, sizeof reason, fmt, ap);
        va_end(ap);
        call_stop_io(h);
        /* A helper that missed a reply is out of step with us, or stuck: never talk to it again. */
        h->conn_fd = safe_close(h->conn_fd);
        if (h->child_pid > 0)
                (void) kill(h->child_pid, SIGKILL);
        call_complete(h, -abs(error), reason, NULL, NULL, 0);
}

static bool fds_in_reserve(const int *fds, size_t n_fds)
{
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
                return false;
        for (size_t i = 0; i < n_fds; i++)
                if ((rlim_t) fds[i] + BPF_HELPER_FD_RESERVE >= rl.rlim_cur)
                        return true;
        return false;
}

/* How many descriptors a reply may bring before one would surely land in the reserve: they take
 * the lowest free numbers, so n of them reach at least lowest + n - 1. A reply with more is
 * refused anyway; the kernel then drops them unopened (else igmpd would hold them, reserve
 * included, until it closed them again). */
static size_t fds_room(int sock)
{
        struct rlimit rl;
        rlim_t line;
        int lowest;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
                return BPF_PROTOCOL_MAX_FDS;
        if (rl.rlim_cur <= BPF_HELPER_FD_RESERVE)
                return 0; /* no number is below the line: not even a probe */
        line = rl.rlim_cur - BPF_HELPER_FD_RESERVE;
        lowest = fcntl(sock, F_DUPFD_CLOEXEC, 0);
        if (lowest < 0)
                return 0; /* EMFILE: none is free at all */
        safe_close(lowest);
        return (rlim_t) lowest >= line ? 0 : (size_t) MIN(line - (rlim_t) lowest, (rlim_t) BPF_PROTOCOL_MAX_FDS);
}

static int on_reply(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        BpfHelper *h = userdata;
        _cleanup_free_ BpfReply *reply = malloc(sizeof *reply);
        int fds[BPF_PROTOCOL_MAX_FDS];
        size_t len = 0, n_fds = 0;
        int r;

        if (!reply) {
                call_fail(h, ENOMEM, "out of memory");
                return 0;
        }
        r = bpf_protocol_recv_room(fd, reply, sizeof *reply, &len, fds, ELEMENTSOF(fds), fds_room(fd), &n_fds);
        if (r == -EAGAIN)
                return 0;
        if (r >= 0 && fds_in_reserve(fds, n_fds)) {
                close_many(fds, n_fds);
                r = -EMFILE;
        }
        if (r == -EMFILE)
                /* The datagram is consumed: the helper is still in step. */
                call_complete(h, r, "igmpd is short of file descriptors, the BPF helper's reply is refused (the "
                              "last 256 below RLIMIT_NOFILE are kept for link configuration)", NULL, NULL, 0);
        else if (r < 0)
                call_fail(h, r, "%s the BPF helper (%s) failed: %s",
                          r == -ECONNRESET ? "the connection to" : "receiving from", h->description,
                          r == -ECONNRESET ? "it closed without a reply (see its log)" : strerror(-r));
        else if (bpf_reply_validate(reply, len, n_fds) < 0) {
                close_many(fds, n_fds);
                call_fail(h, EBADMSG, "the BPF helper (%s) sent a malformed reply (%zu bytes, %zu fds)",
                          h->description, len, n_fds);
        } else
                call_complete(h, reply->error, reply->error < 0 ? reply->reason : "", reply, fds, n_fds);
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
        BpfHelper *h = userdata;

        call_fail(h, ETIMEDOUT, "the BPF helper (%s) did not answer within %llu s", h->description,
                  BPF_HELPER_TIMEOUT_USEC / 1000000ULL);
        return 0;
}

/* Socket mode: a new connection, i.e. a new helper instance. 0 or -errno. */
static int helper_connect(BpfHelper *h)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        if (fd < 0)
                return -errno;
        strncpy(sa.sun_path, h->socket_path, sizeof sa.sun_path - 1);
        if (connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0 && errno != EINPROGRESS)
                return -errno;
        h->conn_fd = TAKE_FD(fd);
        return 0;
}

/* Child mode: a new helper in place of one that is gone (reaped), at most one per
 * BPF_HELPER_RESPAWN_USEC. 0 or -errno. */
static int helper_respawn(BpfHelper *h)
{
        uint64_t now = 0;
        int r;

        (void) sd_event_now(h->event, CLOCK_MONOTONIC, &now);
        if (h->child_pid > 0 || now < h->spawn_usec + BPF_HELPER_RESPAWN_USEC)
                return -EAGAIN;
        h->child_source = sd_event_source_disable_unref(h->child_source);
        r = helper_spawn(h);
        if (r >= 0)
                log_info("Started a new BPF helper, %s.", h->description);
        return r;
}

static void helper_start_next(BpfHelper *h)
{
        BpfHelperCall *c = h->head;
        bool reused;
        int r;

        if (!c || h->io_source)
                return;
        h->timeout_source = sd_event_source_disable_unref(h->timeout_source); /* the idle timer */
        reused = h->conn_fd >= 0;
        r = reused ? 0 : h->socket_path ? helper_connect(h) : helper_respawn(h);
        if (r < 0) {
                if (h->socket_path)
                        call_fail(h, r, "cannot connect to the BPF helper socket %s: %s", h->socket_path, strerror(-r));
                else
                        call_fail(h, r, "the BPF helper (%s) is gone%s", h->description,
                                  r == -EAGAIN ? ", a new one starts at a later request" : "");
                return;
        }
        r = bpf_protocol_send(h->conn_fd, &c->req, sizeof c->req, c->fds, c->n_fds);
        if (r < 0 && reused && h->socket_path) {
                /* The instance behind a kept connection ended (RuntimeMaxSec=): a new one. */
                h->conn_fd = safe_close(h->conn_fd);
                r = helper_connect(h);
                if (r >= 0)
                        r = bpf_protocol_send(h->conn_fd, &c->req, sizeof c->req, c->fds, c->n_fds);
        }
        if (r < 0) {
                call_fail(h, r, "sending to the BPF helper (%s) failed: %s", h->description, strerror(-r));
                return;
        }
        r = sd_event_add_io(h->event, &h->io_source, h->conn_fd, EPOLLIN, on_reply, h);
        if (r >= 0)
                r = sd_event_add_time_relative(h->event, &h->timeout_source, CLOCK_MONOTONIC,
                                               BPF_HELPER_TIMEOUT_USEC, 0, on_timeout, h);
        if (r < 0)
                call_fail(h, r, "cannot wait for the BPF helper: %s", strerror(-r));
}

static int on_kick(sd_event_source *s, void *userdata)
{
        helper_start_next(userdata);
        return 0;
}

int bpf_helper_call(BpfHelper *h, const BpfRequest *req, const int *fds, size_t n_fds, BpfHelperReplyFn cb,
                    void *userdata, BpfHelperCall **ret_call)
{
        _cleanup_(call_freep) BpfHelperCall *c = NULL;
        BpfHelperCall **p;

        assert(h);
        assert(req);

        if (n_fds > BPF_PROTOCOL_MAX_FDS)
                return -E2BIG;
        if (!h->kick_source) {
                int r = sd_event_add_defer(h->event, &h->kick_source, on_kick, h);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_enabled(h->kick_source, SD_EVENT_OFF);
        }
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        c->req = *req;
        c->req.version = BPF_PROTOCOL_VERSION;
        c->cb = cb;
        c->userdata = userdata;
        for (size_t i = 0; i < n_fds; i++) {
                int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
                if (fd < 0)
                        return -errno;
                c->fds[c->n_fds++] = fd;
        }
        for (p = &h->head; *p; p = &(*p)->next)
                ;
        if (ret_call)
                *ret_call = c;
        *p = TAKE_PTR(c);
        /* Never from here: a call that fails at once must not reach its callback before the
         * caller has stored *ret_call. */
        (void) sd_event_source_set_enabled(h->kick_source, SD_EVENT_ONESHOT);
        return 0;
}

void bpf_helper_call_cancel(BpfHelper *h, BpfHelperCall *call)
{
        if (!h || !call)
                return;
        /* A running call still gets its reply read (to stay in step with a child); only the
         * callback is dropped. */
        call->cb = NULL;
        call->userdata = NULL;
}
