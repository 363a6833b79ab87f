/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Audit source 2: SYSCALL records from the audit multicast group. Owns the multicast socket,
 * its event source, and what the source changed in the host's audit configuration (to undo
 * exactly that on exit, or at the next start after a crash); making and undoing those changes,
 * and their record in ROOT/run/igmpd/audit-changes, is audit-rules.c.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit-event.h"
#include "audit-record.h"
#include "audit-rules.h"
#include "event-util.h"
#include "log.h"

/* MAX_AUDIT_MESSAGE_LENGTH is 8970; leave room for the header and more. */
#define AUDIT_READ_SIZE 16384
/* Receive buffer of the multicast listener: at ~1 KiB of kernel memory per queued record, room
 * for a few thousand sysctl(2) calls while igmpd is scheduled out. */
#define AUDIT_RCVBUF (8 * 1024 * 1024)
#define AUDIT_REPORT_USEC (60 * 1000000ULL) /* overruns and receive errors: said once a minute at most */
#define AUDIT_RETRY_FIRST_USEC (100 * 1000ULL)
#define AUDIT_RETRY_MAX_USEC (60 * 1000000ULL)

typedef struct AuditNetlink {
        AuditSource src;
        int fd;                   /* multicast listener */
        sd_event_source *source;

        AuditChanges changes;     /* what to undo on exit, kept in ROOT/run/igmpd/audit-changes */
        bool rule_found[AUDIT_RULES_MAX]; /* the rule was there already (not ours) */

        unsigned overruns_unsaid;     /* ENOBUFS (records the kernel dropped for us) since the warning */
        uint64_t overrun_logged_usec; /* CLOCK_MONOTONIC of that warning */
        bool forged;                  /* a message not from the kernel came (and was ignored) */

        /* A receive error other than an overrun pauses the source: audit_netlink_receive_failed(). */
        sd_event_source *retry_timer;
        uint64_t retry_usec;          /* the current pause; 0 while receiving works */
        uint64_t n_errors;
        unsigned errors_unsaid;       /* since the warning at error_logged_usec */
        uint64_t error_logged_usec;
} AuditNetlink;

bool audit_netlink_has_rule(const AuditSource *s)
{
        const AuditNetlink *n = (const AuditNetlink *) s;

        /* The native architecture's rule (the first) is what a 64-bit caller needs. */
        return n && n->src.active && (n->changes.rule[0] || n->rule_found[0]);
}

static AuditSource *audit_netlink_free(AuditSource *s)
{
        AuditNetlink *n = (AuditNetlink *) s;

        if (!n)
                return NULL;
        audit_rules_remove(n->src.ctx->root, &n->changes);
        sd_event_source_disable_unref(n->retry_timer);
        sd_event_source_disable_unref(n->source);
        safe_close(n->fd);
        free(n);
        return NULL;
}

/* ---- the multicast listener ---- */

static void audit_netlink_handle(AuditNetlink *n, const char *text, size_t len)
{
        AuditEvent e = { .source = AUDIT_EVENT_SOURCE_AUDIT };
        AuditRecord rec;
        int r;

        r = audit_record_parse(text, len, &rec);
        if (r < 0) {
                log_debug_errno(r, "Ignoring an unparsable audit SYSCALL record: %m");
                return;
        }
        if (!audit_record_is_sysctl(&rec))
                return;

        e.realtime_usec = rec.realtime_usec;
        e.pid = rec.pid;
        e.ppid = rec.ppid;
        audit_source_submit(&n->src, &e, rec.has_comm ? rec.comm : "", rec.has_comm ? rec.comm_len : 0,
                            rec.has_exe ? rec.exe : "", rec.has_exe ? rec.exe_len : 0, NULL, 0);
}

/* The kernel dropped records because our receive buffer was full: a program calling sysctl(2)
 * in a tight loop outruns us. Said at most once per AUDIT_REPORT_USEC with a count, not once
 * per overrun (a flood overruns hundreds of times), and computed from the clock when it happens:
 * no timer. */
static void audit_netlink_overrun(AuditNetlink *n)
{
        bool first = n->overrun_logged_usec == 0;
        unsigned unsaid;

        if (event_report_due(n->src.ctx->event, AUDIT_REPORT_USEC, &n->overrun_logged_usec, &n->overruns_unsaid,
                             &unsaid))
                log_warning("Audit records were dropped %u time(s) (receive buffer full, a program is calling "
                            "sysctl(2) faster than igmpd reads); deprecated sysctl(2) calls among them are not "
                            "counted.%s", unsaid + 1, first ? " Said at most once a minute." : "");
}

static int audit_netlink_on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
        AuditNetlink *n = userdata;

        log_debug("Trying again to read audit records (paused %" PRIu64 " ms after a failure).",
                  n->retry_usec / 1000);
        (void) sd_event_source_set_enabled(n->source, SD_EVENT_ON);
        return 0;
}

/* A receive error other than an overrun. The data that caused it is still queued, so the
 * socket stays readable: without a pause this would spin and log for ever. */
static void audit_netlink_receive_failed(AuditNetlink *n, int error)
{
        unsigned unsaid;
        int r;

        n->n_errors++;
        n->retry_usec = n->retry_usec == 0 ? AUDIT_RETRY_FIRST_USEC : MIN(n->retry_usec * 2, AUDIT_RETRY_MAX_USEC);
        if (event_report_due(n->src.ctx->event, AUDIT_REPORT_USEC, &n->error_logged_usec, &n->errors_unsaid, &unsaid))
                log_warning_errno(error, "Failed to read audit records%s; pausing the audit source, trying again "
                                  "in %" PRIu64 " ms and less often while it fails (said at most once a minute): %m",
                                  unsaid > 0 ? " (again)" : "", n->retry_usec / 1000);
        else
                log_debug_errno(error, "Failed to read audit records again (%" PRIu64 " times), next try in %" PRIu64
                                " ms: %m", n->n_errors, n->retry_usec / 1000);

        (void) sd_event_source_set_enabled(n->source, SD_EVENT_OFF);
        r = event_arm_timer_in(n->src.ctx->event, &n->retry_timer, n->retry_usec, 0, audit_netlink_on_retry, n);
        if (r < 0) {
                /* No timer, no retry: stop rather than spin. */
                log_warning_errno(r, "Failed to schedule reading audit records again, the audit source stops: %m");
                (void) audit_source_reason(n->src.ctx, n->src.type, r, "cannot schedule reading audit records "
                                           "again: %s", strerror(-r));
                audit_source_stop(&n->src);
        }
}

static int audit_netlink_on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        AuditNetlink *n = userdata;
        static char buf[AUDIT_READ_SIZE];

        for (unsigned i = 0; i < 256; i++) {
                struct sockaddr_nl from = {};
                socklen_t from_len = sizeof from;
                ssize_t len = recvfrom(fd, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *) &from, &from_len);
                const struct nlmsghdr *h = (const struct nlmsghdr *) buf;
                size_t payload;

                if (len < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                break;
                        if (errno == ENOBUFS) {
                                audit_netlink_overrun(n);
                                continue;
                        }
                        audit_netlink_receive_failed(n, errno);
                        return 0;
                }
                /* Only the kernel (port 0) speaks for audit: a process with CAP_NET_ADMIN can send
                 * to our port too, and must not make up deprecated sysctl(2) calls. */
                if (from_len < sizeof from || from.nl_family != AF_NETLINK || from.nl_pid != 0) {
                        if (!n->forged)
                                log_notice("Ignoring audit messages not sent by the kernel (this one from netlink "
                                           "port %" PRIu32 "); said once.", from.nl_pid);
                        n->forged = true;
                        continue;
                }
                if ((size_t) len < NLMSG_HDRLEN || h->nlmsg_type != AUDIT_SYSCALL)
                        continue;
                /* One record per datagram; trust nlmsg_len only when it is sane. */
                payload = h->nlmsg_len >= NLMSG_HDRLEN && h->nlmsg_len <= (size_t) len ? h->nlmsg_len - NLMSG_HDRLEN
                                                                                       : (size_t) len - NLMSG_HDRLEN;
                audit_netlink_handle(n, buf + NLMSG_HDRLEN, payload);
        }
        if (n->retry_usec > 0) {
                log_info("Reading audit records works again (after %" PRIu64 " failures).", n->n_errors);
                n->retry_usec = 0;
        }
        return 0;
}

/* The initial network namespace's inode number since Linux 6.x (PROC_NET_INIT_INO). */
#define NET_INIT_INO 0xEFFFFFF9U

static bool is_kthreadd(void)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/2/comm", "re");
        char comm[32];

        return f && fgets(comm, sizeof comm, f) && streq(comm, "kthreadd\n");
}

/*
 * The kernel multicasts audit records only on the initial network namespace's socket; elsewhere
 * binding works but nothing ever arrives. 1 if we are there, 0 if not, -errno if unknown.
 * Compared with kthreadd's namespace (kernel threads live in init_net), else pid 1's (may be
 * unreadable in a sandbox), else the fixed inode number of newer kernels.
 */
static int in_initial_netns(void)
{
        struct stat self, init;

        if (stat("/proc/self/ns/net", &self) < 0)
                return -errno;
        if ((is_kthreadd() && stat("/proc/2/ns/net", &init) >= 0) || stat("/proc/1/ns/net", &init) >= 0)
                return self.st_dev == init.st_dev && self.st_ino == init.st_ino;
        if (self.st_ino == NET_INIT_INO)
                return 1;
        /* Those namespace links need ptrace access, which igmpd, having dropped its
         * capabilities (privileges.c), lacks for root's processes: the kernel registers
         * net.core.netdev_max_backlog (net_core_table) in the initial namespace only. */
        if (access("/proc/sys/net/core/netdev_max_backlog", F_OK) >= 0)
                return 1;
        if (errno == ENOENT && access("/proc/sys/net/core/somaxconn", F_OK) >= 0)
                return 0;
        return -EUNATCH;
}

int audit_netlink_new(const AuditSourceContext *ctx, bool add_rule, AuditSource **ret)
{
        const AuditEventSource type = AUDIT_EVENT_SOURCE_AUDIT;
        _cleanup_(audit_source_freep) AuditNetlink *n = NULL;
        struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1U << (AUDIT_NLGRP_READLOG - 1) };
        AuditChanges left = {};
        int r;

        assert(ctx);
        assert(ret);

        if (in_initial_netns() == 0)
                return audit_source_reason(ctx, type, -EOPNOTSUPP, "not in the initial network namespace (the "
                                           "kernel sends audit records only there)");
        n = calloc(1, sizeof *n);
        if (!n)
                return audit_source_reason(ctx, type, -ENOMEM, "out of memory");
        n->src = (AuditSource) { .ctx = ctx, .type = type, .free = audit_netlink_free };
        n->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT);
        r = n->fd < 0 ? -errno : 0;
        if (r == -EPROTONOSUPPORT || r == -EAFNOSUPPORT)
                return audit_source_reason(ctx, type, r, "kernel without audit support (CONFIG_AUDIT)");
        if (r < 0)
                return audit_source_reason(ctx, type, r, "cannot open an audit netlink socket: %s", strerror(-r));
        r = bind(n->fd, (struct sockaddr *) &addr, sizeof addr) < 0 ? -errno : 0;
        if (r < 0)
                return audit_source_reason(ctx, type, r, "cannot join the audit multicast group: %s%s", strerror(-r),
                                           r == -EPERM || r == -EACCES ? " (needs CAP_AUDIT_READ)" : "");
        /* A flood of sysctl(2) calls is several records per call, each its own datagram: give the
         * kernel room to queue a burst while we are scheduled out (charged only when used). */
        if (setsockopt(n->fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int) { AUDIT_RCVBUF }, sizeof(int)) < 0 &&
            setsockopt(n->fd, SOL_SOCKET, SO_RCVBUF, &(int) { AUDIT_RCVBUF }, sizeof(int)) < 0)
                log_debug_errno(errno, "Failed to enlarge the audit socket's receive buffer, ignoring: %m");
        r = sd_event_add_io(ctx->event, &n->source, n->fd, EPOLLIN, audit_netlink_on_io, n);
        if (r < 0)
                return audit_source_reason(ctx, type, r, "cannot watch the audit socket: %s", strerror(-r));
        /* Link events and bus calls go first: a program flooding sysctl(2) must not delay them
         * by more than the batch being read (the receive buffer holds the rest meanwhile). */
        audit_source_started(&n->src, n->source, "audit-netlink");

        (void) audit_changes_load(ctx->root, &left);
        if (add_rule)
                audit_rules_add(ctx->root, &n->changes, n->rule_found, &left);
        else
                log_info("AuditRule=no: the audit source sees sysctl(2) calls only if a rule for them is loaded "
                         "some other way (auditd with " AUDIT_RULES_PATH ").");
        /* Left by an igmpd that did not stop cleanly, and not taken over: undone now. */
        audit_changes_undo_left(ctx->root, &left, &n->changes);
        *ret = &TAKE_PTR(n)->src;
        return 0;
}
