/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The deprecated sysctl(2) audit's AuditManager: it owns the sources, the one coalescing timer,
 * journal logging and the observer hook (see audit.h; the events themselves are audit-event.c).
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <systemd/sd-login.h>

#include "audit-rules.h"
#include "audit.h"
#include "bpf-helper-client.h"
#include "cap-util.h"
#include "event-util.h"
#include "knob.h"
#include "log.h"
#include "utf8.h"

bool audit_manager_source_active(const AuditManager *a, AuditEventSource s)
{
        return a && s >= 0 && s < _AUDIT_EVENT_SOURCE_MAX && a->source[s] && a->source[s]->active;
}

/* The AuditSources= flags that want each source. */
static const unsigned audit_source_flag[_AUDIT_EVENT_SOURCE_MAX] = {
        [AUDIT_EVENT_SOURCE_KMSG] = AUDIT_SOURCE_KMSG | AUDIT_SOURCE_KMSG_AUTO,
        [AUDIT_EVENT_SOURCE_AUDIT] = AUDIT_SOURCE_AUDIT,
        [AUDIT_EVENT_SOURCE_LIBC] = AUDIT_SOURCE_LIBC,
        [AUDIT_EVENT_SOURCE_SYSCALL] = AUDIT_SOURCE_SYSCALL,
};

RunState audit_manager_source_state(const AuditManager *a, AuditEventSource s, char *note, size_t size)
{
        assert(note);
        snprintf(note, size, "%s", a ? "" : "the audit could not be set up");
        if (!a)
                return RUN_STATE_INACTIVE;
        if (s < 0 || s >= _AUDIT_EVENT_SOURCE_MAX)
                return _RUN_STATE_INVALID;
        if (audit_manager_source_active(a, s)) {
                audit_bpf_describe(a->source[s], note, size);
                return RUN_STATE_ACTIVE;
        }
        if (audit_bpf_is_starting(a->source[s]))
                return RUN_STATE_STARTING;
        if (!(a->sources & audit_source_flag[s])) {
                if (!HAVE_BPF && (s == AUDIT_EVENT_SOURCE_LIBC || s == AUDIT_EVENT_SOURCE_SYSCALL))
                        snprintf(note, size, "%s", BPF_NOT_BUILT_REASON); /* turning it on would not help */
                else if (s == AUDIT_EVENT_SOURCE_SYSCALL)
                        snprintf(note, size, "opt-in: AuditSources=syscall (it costs every system call)");
                else
                        snprintf(note, size, "not in AuditSources=");
                return RUN_STATE_OFF;
        }
        snprintf(note, size, "%s", a->reason[s]);
        /* kmsg by default (auto) on a kernel without sysctl(2) is off, not broken. */
        if (s == AUDIT_EVENT_SOURCE_KMSG && !(a->sources & AUDIT_SOURCE_KMSG) && !a->source[s])
                return RUN_STATE_OFF;
        return RUN_STATE_INACTIVE;
}

/* The caller's parent (when the source did not say) and systemd unit, read from /proc now: best
 * effort, the process may be gone, and with ProtectProc=invisible igmpd sees only its own. The
 * command name must still match, or the pid is someone else's by now. */
static void audit_caller_lookup(const AuditEvent *e, AuditCaller *ret, char **ret_unit)
{
        char path[64], buf[512], comm[16 * 4 + 1];
        _cleanup_fclose_ FILE *f = NULL;
        const char *lp, *rp;
        size_t n;

        *ret = (AuditCaller) { .ppid = e->ppid };
        *ret_unit = NULL;
        if (e->pid == 0)
                return;

        snprintf(path, sizeof path, "/proc/%" PRIu32 "/stat", e->pid);
        f = fopen(path, "re");
        if (!f)
                return;
        n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        /* "pid (comm) state ppid …": comm may hold any byte, ')' too; the numbers after it none. */
        lp = strchr(buf, '(');
        rp = strrchr(buf, ')');
        if (!lp || !rp || rp < lp || rp - lp - 1 > 16)
                return;
        (void) utf8_escape_bytes(lp + 1, (size_t) (rp - lp - 1), UTF8_ESCAPE_CONTROL, comm);
        if (!streq(comm, e->comm))
                return;
        if (ret->ppid == 0) /* left 0 when it does not parse */
                (void) sscanf(rp + 1, " %*c %" SCNu32, &ret->ppid);
        if (sd_pid_get_unit((pid_t) e->pid, ret_unit) >= 0)
                ret->unit = *ret_unit;
}

static void audit_log_event(const AuditEvent *e)
{
        char pid[32] = "";
        _cleanup_strv_free_ char **fields = NULL;
        _cleanup_free_ char *unit = NULL, *name = NULL;
        AuditCaller caller;
        int k = audit_event_knob(e);

        if (e->n_name > 0)
                (void) sysctl_binary_format_name(e->name, e->n_name, &name);
        if (e->pid > 0)
                snprintf(pid, sizeof pid, "%" PRIu32, e->pid);
        audit_caller_lookup(e, &caller, &unit);
        /* Without its fields (ENOMEM) the entry still says what happened. */
        fields = audit_event_journal_fields(e, &caller);

        log_internal_fields(LOG_WARNING, 0, NULL, 0, AUDIT_SYSCTL_MESSAGE_ID, (const char *const *) fields,
                            "Deprecated sysctl(2) call: process '%s' (pid %s, exe %s) used %s%s%s%s (source %s, %" PRIu32
                            " call%s). Use %s%s%s%s%s instead.",
                            e->comm, pid[0] ? pid : "?", isempty(e->exe) ? "?" : e->exe,
                            name ?: "an unknown name",
                            isempty(e->path) ? "" : " = ", strempty(e->path),
                            isempty(e->path) || e->complete ? "" : " (partly translated)",
                            audit_event_source_to_string(e->source), e->repeats, e->repeats == 1 ? "" : "s",
                            k >= 0 ? "igmpd's policy ([" : "/proc/sys", k >= 0 ? knob_info(k)->section : "",
                            k >= 0 ? "] " : "", k >= 0 ? knob_info(k)->key : "", k >= 0 ? "=)" : "");
}

static void audit_manager_publish(AuditManager *a, AuditEvent *e)
{
        const AuditEvent *stored;

        audit_log_event(e);
        if (audit_history_push(&a->history, e) < 0) {
                log_oom();
                return;
        }
        stored = audit_history_get(&a->history, a->history.n - 1);
        if (stored && a->observer)
                a->observer(stored, a->observer_userdata);
}

static int audit_manager_on_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* Idle means idle: the timer exists only while an event is pending. */
static void audit_manager_arm_timer(AuditManager *a)
{
        uint64_t next = audit_coalescer_next_due(&a->coalescer);
        int r;

        if (next == UINT64_MAX) {
                a->coalesce_timer = sd_event_source_disable_unref(a->coalesce_timer);
                return;
        }
        r = event_arm_timer(a->source_ctx.event, &a->coalesce_timer, next, 0, audit_manager_on_timer, a);
        if (r < 0)
                log_error_errno(r, "Failed to arm the audit coalescing timer, folded calls wait for the next event: %m");
}

static int audit_manager_on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        AuditManager *a = userdata;
        AuditEvent e;

        while (audit_coalescer_pop_due(&a->coalescer, now_usec(CLOCK_MONOTONIC), &e) > 0)
                audit_manager_publish(a, &e);
        audit_manager_arm_timer(a);
        return 0;
}

/* Where the sources' events go (source_ctx.submit). Takes over *e (left zeroed). */
static void audit_manager_submit(AuditEvent *e, void *userdata)
{
        AuditManager *a = userdata;
        int r;

        /* Now, not the loop's wake-up (sd_event_now()): a key's window opens when its event is
         * published, which may be late in a long dispatch, and lasts a second from there. */
        r = audit_coalescer_submit(&a->coalescer, e, now_usec(CLOCK_MONOTONIC));
        if (r != 0) /* 1: publish now; -ENOMEM: publish uncoalesced */
                audit_manager_publish(a, e);
        audit_event_done(e);
        audit_manager_arm_timer(a);
}

int audit_source_reason(const AuditSourceContext *ctx, AuditEventSource type, int error, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(ctx->reason[type], sizeof ctx->reason[type], fmt, ap);
        va_end(ap);
        return error;
}

void audit_source_started(AuditSource *s, sd_event_source *reader, const char *description)
{
        if (reader) {
                (void) sd_event_source_set_description(reader, description);
                (void) sd_event_source_set_priority(reader, AUDIT_EVENT_PRIORITY);
        }
        s->active = true;
        s->ctx->reason[s->type][0] = '\0';
}

void audit_source_stop(AuditSource *s)
{
        s->active = false;
        s->ctx->state_changed(s->ctx->userdata); /* Sources changed */
}

void audit_source_submit(AuditSource *s, AuditEvent *e, const char *comm, size_t comm_len, const char *exe,
                         size_t exe_len, const int *name, size_t n_name)
{
        int r = audit_event_fill(e, comm, comm_len, exe, exe_len, name, n_name, s->ctx->resolve,
                                 s->ctx->resolve_userdata);

        if (r < 0) /* "%.0u" prints nothing for 0: the kmsg source knows no pid */
                log_warning_errno(r, "Failed to record a deprecated sysctl(2) call%s%.0" PRIu32 ", ignoring: %m",
                                  e->pid > 0 ? " of pid " : "", e->pid);
        else
                s->ctx->submit(e, s->ctx->userdata);
}

/* Whether this kernel still has sysctl(2) (before 5.9), and so logs the deprecation warning.
 * Unknown versions count as having it. *major and *minor: the version, as far as it was read. */
static bool kernel_has_sysctl(unsigned *major, unsigned *minor)
{
        struct utsname u;

        if (uname(&u) < 0 || sscanf(u.release, "%u.%u", major, minor) != 2)
                return true;
        return *major < 5 || (*major == 5 && *minor < 9);
}

/* Whether to read the kernel log. By default only where the warning can appear at all: kernels
 * before 5.9 still have sysctl(2); later ones return ENOSYS and log nothing, so reading
 * /dev/kmsg there would only wake igmpd for every unrelated kernel message. */
bool audit_kmsg_wanted(unsigned sources, const char *kmsg_path, char *reason, size_t reason_size)
{
        unsigned major = 0, minor = 0;

        if (sources & AUDIT_SOURCE_KMSG)
                return true;
        if (!(sources & AUDIT_SOURCE_KMSG_AUTO))
                return false;
        if (kmsg_path)
                return true;
        if (kernel_has_sysctl(&major, &minor))
                return true;
        snprintf(reason, reason_size, "kernel %u.%u has no sysctl(2) and never logs the warning; "
                 "AuditSources=kmsg reads /dev/kmsg anyway", major, minor);
        return false;
}

static const char *const audit_coverage_table[_AUDIT_COVERAGE_MAX] = {
        [AUDIT_COVERAGE_SOME] = "some",
        [AUDIT_COVERAGE_STARTING] = "starting",
        [AUDIT_COVERAGE_UNCERTAIN] = "uncertain",
        [AUDIT_COVERAGE_NONE] = "none",
};

const char *audit_coverage_to_string(AuditCoverage c)
{
        return TABLE_NAME(audit_coverage_table, c);
}

/* Appends "; or " + what to buf. */
static void advice_add(char *buf, size_t size, const char *what)
{
        size_t len = strlen(buf);

        if (len < size)
                snprintf(buf + len, size - len, "%s%s", len > 0 ? "; or " : "", what);
}

AuditCoverage audit_manager_coverage(const AuditManager *a, char *advice, size_t size)
{
        unsigned major = 0, minor = 0;
        bool has_sysctl = kernel_has_sysctl(&major, &minor);
        bool starting = false, audit_active;
        char opts[768] = "";

        assert(advice);
        snprintf(advice, size, "%s", a ? "" : "The audit could not be set up (see igmpd's log).");
        if (!a)
                return AUDIT_COVERAGE_NONE;

        /* Who sees calls now. The kernel log carries the warning only before 5.9. */
        if (audit_manager_source_active(a, AUDIT_EVENT_SOURCE_KMSG) && (has_sysctl || a->kmsg_custom))
                return AUDIT_COVERAGE_SOME;
        if (audit_netlink_has_rule(a->source[AUDIT_EVENT_SOURCE_AUDIT]))
                return AUDIT_COVERAGE_SOME;
        if (audit_manager_source_active(a, AUDIT_EVENT_SOURCE_LIBC) ||
            audit_manager_source_active(a, AUDIT_EVENT_SOURCE_SYSCALL))
                return AUDIT_COVERAGE_SOME;
        starting = audit_bpf_is_starting(a->source[AUDIT_EVENT_SOURCE_LIBC]) ||
                   audit_bpf_is_starting(a->source[AUDIT_EVENT_SOURCE_SYSCALL]);
        audit_active = audit_manager_source_active(a, AUDIT_EVENT_SOURCE_AUDIT);

        /* What would help, from what is configured and what could run. */
        if (audit_active && !a->rule)
                advice_add(opts, sizeof opts, "AuditRule=yes in /etc/igmpd/igmpd.conf (igmpd then loads the audit "
                           "rule itself; it needs CAP_AUDIT_CONTROL, which the shipped unit grants), or auditd with "
                           AUDIT_RULES_PATH);
        else if (audit_active)
                advice_add(opts, sizeof opts, "load " AUDIT_RULES_PATH " with auditd (igmpd could not add the "
                           "rule, see its log)");
        else if (!(a->sources & AUDIT_SOURCE_AUDIT))
                advice_add(opts, sizeof opts, "add audit to AuditSources= in /etc/igmpd/igmpd.conf, with "
                           "AuditRule=yes");
        /* The BPF sources cannot run in a build without them: no advice that cannot work. */
        if (!HAVE_BPF)
                advice_add(opts, sizeof opts, "for the libc and syscall sources, igmpd built with BPF (clang, "
                           "bpftool and libbpf-dev installed when it is built)");
        if (HAVE_BPF && !(a->sources & AUDIT_SOURCE_LIBC))
                advice_add(opts, sizeof opts, "add libc to AuditSources= (BPF: programs that call glibc's "
                           "sysctl(); needs the igmpd-bpf helper)");
        if (HAVE_BPF && !(a->sources & AUDIT_SOURCE_SYSCALL))
                advice_add(opts, sizeof opts, "add syscall to AuditSources= (BPF: every caller, at a cost to "
                           "every system call)");
        if (has_sysctl && !(a->sources & (AUDIT_SOURCE_KMSG | AUDIT_SOURCE_KMSG_AUTO)))
                advice_add(opts, sizeof opts, "add kmsg to AuditSources= (the kernel's own warning)");

        if (starting)
                return AUDIT_COVERAGE_STARTING;
        if (!isempty(opts))
                snprintf(advice, size, "To see them: %s.", opts);
        else
                snprintf(advice, size, "Every source igmpd has is configured, but none can run here (see "
                         "each source's note).");
        return audit_active && !audit_netlink_has_rule(a->source[AUDIT_EVENT_SOURCE_AUDIT]) && !a->rule
                       ? AUDIT_COVERAGE_UNCERTAIN : AUDIT_COVERAGE_NONE;
}

/* Says at info level, once per change, when no source can see a call: an operator must not
 * read an empty audit as "nothing calls sysctl(2)". */
static void audit_manager_log_coverage(AuditManager *a)
{
        char advice[1024];
        AuditCoverage c = audit_manager_coverage(a, advice, sizeof advice);

        if (c == a->coverage_logged || c == AUDIT_COVERAGE_STARTING)
                return;
        if (c == AUDIT_COVERAGE_NONE)
                log_info("Deprecated sysctl(2) audit: no source can see a call on this system. %s", advice);
        else if (c == AUDIT_COVERAGE_UNCERTAIN)
                log_info("Deprecated sysctl(2) audit: only the audit source could see a call, and only if "
                         "an audit rule for it is loaded, which igmpd did not do (AuditRule=no). %s", advice);
        else if (a->coverage_logged == AUDIT_COVERAGE_NONE || a->coverage_logged == AUDIT_COVERAGE_UNCERTAIN)
                log_info("Deprecated sysctl(2) audit: calls can be seen now.");
        a->coverage_logged = c;
}

/* A source became active or stopped. */
static void audit_manager_on_state_changed(void *userdata)
{
        AuditManager *a = userdata;

        audit_manager_log_coverage(a);
        if (a->observer)
                a->observer(NULL, a->observer_userdata);
}

int audit_manager_new(sd_event *event, const char *root, size_t history_max, SysctlIfindexResolver resolve,
                      void *resolve_userdata, AuditManager **ret)
{
        _cleanup_(audit_manager_freep) AuditManager *a = NULL;
        int r;

        assert(event);
        assert(ret);

        a = calloc(1, sizeof *a);
        if (!a)
                return -ENOMEM;
        a->root = strdup(root ?: "");
        if (!a->root)
                return -ENOMEM;
        a->coverage_logged = _AUDIT_COVERAGE_INVALID;
        a->source_ctx = (AuditSourceContext) {
                .event = sd_event_ref(event),
                .root = a->root,
                .resolve = resolve,
                .resolve_userdata = resolve_userdata,
                .submit = audit_manager_submit,
                .state_changed = audit_manager_on_state_changed,
                .userdata = a,
                .reason = a->reason,
        };
        r = audit_history_init(&a->history, MAX(history_max, (size_t) 1));
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 0;
}

/* The netlink source removes the rules it added, the BPF ones detach their programs. */
static void audit_manager_stop_sources(AuditManager *a)
{
        for (AuditEventSource s = 0; s < _AUDIT_EVENT_SOURCE_MAX; s++)
                a->source[s] = a->source[s] ? a->source[s]->free(a->source[s]) : NULL;
}

AuditManager *audit_manager_free(AuditManager *a)
{
        if (!a)
                return NULL;
        audit_manager_stop_sources(a);
        bpf_helper_free(a->bpf_helper);
        sd_event_source_disable_unref(a->coalesce_timer);
        audit_coalescer_done(&a->coalescer);
        audit_history_done(&a->history);
        sd_event_unref(a->source_ctx.event);
        free(a->root);
        free(a);
        return NULL;
}

/* Starts the BPF sources AuditSources= wants, through the BPF helper (made on first need, tried
 * once per start: its failure holds for every BPF source). Each one that cannot run gets its
 * reason and one log line; nothing here fails the daemon. */
static void audit_manager_start_bpf(AuditManager *a)
{
        char helper_reason[AUDIT_REASON_MAX] = "";
        int r = 0;

        if (HAVE_BPF && !a->bpf_helper && (a->sources & (AUDIT_SOURCE_LIBC | AUDIT_SOURCE_SYSCALL))) {
                r = bpf_helper_new(a->source_ctx.event, NULL, NULL, &a->bpf_helper, helper_reason,
                                   sizeof helper_reason);
                if (r < 0 && !helper_reason[0])
                        snprintf(helper_reason, sizeof helper_reason, "cannot set up the BPF helper: %s", strerror(-r));
        }
        for (AuditEventSource s = AUDIT_EVENT_SOURCE_LIBC; s <= AUDIT_EVENT_SOURCE_SYSCALL; s++) {
                if (!(a->sources & audit_source_flag[s]) || a->source[s]) /* running already */
                        continue;
                if (!HAVE_BPF)
                        r = audit_source_reason(&a->source_ctx, s, -EOPNOTSUPP, "%s", BPF_NOT_BUILT_REASON);
                else if (!a->bpf_helper)
                        r = audit_source_reason(&a->source_ctx, s, -ENOENT, "%s", helper_reason);
                else if ((r = audit_bpf_new(&a->source_ctx, a->bpf_helper, s, &a->source[s])) < 0)
                        (void) audit_source_reason(&a->source_ctx, s, r, "cannot ask the BPF helper: %s", strerror(-r));
                if (r < 0)
                        log_info("Audit source %s is not active: %s.", audit_event_source_to_string(s), a->reason[s]);
        }
}

/* A source that cannot start because igmpd no longer holds its capability: igmpd drops, right
 * after start, those its configuration did not need then (privileges.c), and a reload cannot
 * get them back. Replaces the reason with one that says what to do. */
static bool audit_reason_if_lacking(AuditManager *a, AuditEventSource s, int cap)
{
        char name[16];

        if (capability_is_effective(cap))
                return false;
        snprintf(a->reason[s], sizeof a->reason[s],
                 "needs %s, which igmpd does not hold (dropped at start when the configuration did not "
                 "need it); restart igmpd", capability_to_name(cap, name));
        return true;
}

void audit_manager_start(AuditManager *a, const DaemonConfig *config, const char *kmsg_path)
{
        char states[256], note[sizeof a->reason[0] + 64];
        AuditChanges left;
        size_t len = 0;
        int r;

        assert(a);
        assert(config);

        a->sources = config->audit_sources;
        a->rule = config->audit_rule;
        a->kmsg_custom = kmsg_path != NULL;

        if (audit_kmsg_wanted(config->audit_sources, kmsg_path, a->reason[AUDIT_EVENT_SOURCE_KMSG],
                              sizeof a->reason[AUDIT_EVENT_SOURCE_KMSG])) {
                r = audit_kmsg_new(&a->source_ctx, kmsg_path, &a->source[AUDIT_EVENT_SOURCE_KMSG]);
                if ((r == -EPERM || r == -EACCES) && !kmsg_path)
                        (void) audit_reason_if_lacking(a, AUDIT_EVENT_SOURCE_KMSG, CAP_SYSLOG);
                if (r < 0)
                        log_notice("Audit source kmsg is not active: %s.", a->reason[AUDIT_EVENT_SOURCE_KMSG]);
        }
        if (config->audit_sources & AUDIT_SOURCE_AUDIT) {
                r = audit_netlink_new(&a->source_ctx, config->audit_rule, &a->source[AUDIT_EVENT_SOURCE_AUDIT]);
                if (r < 0 && !audit_reason_if_lacking(a, AUDIT_EVENT_SOURCE_AUDIT, CAP_AUDIT_READ) && config->audit_rule)
                        (void) audit_reason_if_lacking(a, AUDIT_EVENT_SOURCE_AUDIT, CAP_AUDIT_CONTROL);
                if (r < 0)
                        log_notice("Audit source audit is not active: %s.", a->reason[AUDIT_EVENT_SOURCE_AUDIT]);
        } else if (audit_changes_load(a->root, &left)) /* what a crashed igmpd may have left */
                audit_changes_undo_left(a->root, &left, NULL);
        audit_manager_start_bpf(a);
        for (AuditEventSource s = 0; s < _AUDIT_EVENT_SOURCE_MAX; s++) {
                RunState st = audit_manager_source_state(a, s, note, sizeof note);

                len += (size_t) snprintf(states + len, sizeof states - len, "%s %s%s, ", audit_event_source_to_string(s),
                                         run_state_to_string(st), st == RUN_STATE_OFF && s == AUDIT_EVENT_SOURCE_KMSG &&
                                         (a->sources & AUDIT_SOURCE_KMSG_AUTO) ? " (this kernel has no sysctl(2))" : "");
        }
        log_info("Deprecated sysctl(2) audit: %shistory of %zu events.", states, a->history.max);
        audit_manager_log_coverage(a);
}

void audit_manager_reload(AuditManager *a, const DaemonConfig *config, const char *kmsg_path)
{
        int r;

        assert(a);
        assert(config);

        r = audit_history_resize(&a->history, MAX(config->audit_history, 1u)); /* nothing to do if unchanged */
        if (r < 0)
                log_warning_errno(r, "Failed to resize the audit history, keeping %zu events: %m", a->history.max);
        if (config->audit_sources == a->sources && config->audit_rule == a->rule) {
                /* A reload is also the way to make the libc source look at every process again. */
                audit_bpf_request_sweep(a->source[AUDIT_EVENT_SOURCE_LIBC]);
                return;
        }

        log_info("Audit settings changed, restarting the audit sources.");
        audit_manager_stop_sources(a);
        memset(a->reason, 0, sizeof a->reason);
        audit_manager_start(a, config, kmsg_path);
        /* Sources, SourceStates and Coverage are EMITS_CHANGE, and other settings may change any of
         * them (AuditRule= only Coverage): tell the observer. */
        audit_manager_on_state_changed(a);
}
