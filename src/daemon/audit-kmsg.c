/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Audit source 1: the deprecated-sysctl warning in the kernel log (/dev/kmsg, or a test stream).
 * Owns the file descriptor, its event source, the continuation joiner and the sequence memory
 * (the cursor file and the timer that writes it lazily).
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

#include "audit-event.h"
#include "event-util.h"
#include "fs-util.h"
#include "kmsg-record.h"
#include "log.h"

/* One /dev/kmsg record: message up to ~1 KiB, plus dictionary lines. */
#define KMSG_READ_SIZE 8192
/* Records handled per wake-up before giving the event loop back. */
#define KMSG_BATCH 1024
/* How long the cursor may lag behind while only non-matching records arrive (see kmsg_after_read). */
#define KMSG_SAVE_DELAY_USEC (5 * 1000000ULL)
#define KMSG_SAVE_ACCURACY_USEC (1 * 1000000ULL)
#define KMSG_SEQ_NAME "kmsg-seq"

typedef struct AuditKmsg {
        AuditSource src;
        int fd;
        sd_event_source *source;
        bool stream;       /* --kmsg-path: one record per line */
        bool regular;      /* … from a regular file, read once */

        KmsgAssembler assembler;

        char *seq_dir;     /* ROOT/run/igmpd, holding KMSG_SEQ_NAME */
        char *seq_path;
        char boot_id[SD_ID128_UUID_STRING_MAX];
        uint64_t last_seq;    /* last record read; UINT64_MAX: none yet */
        uint64_t written_seq; /* what seq_path holds: records up to it were handled (also by an
                               * earlier run: they are skipped) */
        bool written;
        bool event_unsaved;   /* an event came from records past written_seq */
        sd_event_source *save_timer; /* one-shot, enabled only while the cursor lags behind */

        uint64_t n_lost;

        char line[KMSG_READ_SIZE];
        size_t line_len;
        bool line_overlong;   /* discarding the rest of a too-long line */
} AuditKmsg;

/* Reads "SEQ BOOT_ID" — only a file written in this boot counts (seq restarts at boot). */
static void kmsg_load_seq(AuditKmsg *k)
{
        _cleanup_fclose_ FILE *f = fopen(k->seq_path, "re");
        char id[64] = "";
        uint64_t seq;

        if (!f)
                return;
        if (fscanf(f, "%" SCNu64 " %63s", &seq, id) == 2 && streq(id, k->boot_id)) {
                k->written = true;
                k->written_seq = seq;
                log_debug("Kernel log records up to %" PRIu64 " were handled before, skipping them.", seq);
        }
}

/* Whether the cursor file is behind the newest seq up to which every record has been handled
 * (*ret): a message the assembler still holds back (it may get more fragments) is not, so a
 * restart reads it again whole. Within a boot seq only grows: while a restart reads records
 * already handled, the file is not moved back. */
static bool kmsg_seq_behind(const AuditKmsg *k, uint64_t *ret)
{
        uint64_t seq = k->last_seq;

        if (!k->seq_path || k->last_seq == UINT64_MAX)
                return false;
        if (k->assembler.pending) {
                if (k->assembler.msg.seq == 0)
                        return false;
                seq = k->assembler.msg.seq - 1;
        }
        if (k->written && seq <= k->written_seq)
                return false;
        *ret = seq;
        return true;
}

static void kmsg_save_seq(AuditKmsg *k)
{
        char buf[sizeof(uint64_t) * 3 + 1 + sizeof k->boot_id + 1];
        uint64_t seq;
        int r;

        if (kmsg_seq_behind(k, &seq)) {
                /* Written whole, fsynced and renamed over (write_file_atomic()): a reader, or the
                 * next start after a crash, sees the old cursor or the new one. */
                snprintf(buf, sizeof buf, "%" PRIu64 " %s\n", seq, k->boot_id);
                r = write_file_atomic(k->seq_dir, KMSG_SEQ_NAME, buf);
                if (r < 0)
                        /* Not fatal: at worst a restart publishes this boot's old warnings again.
                         * Not retried either until more records come (at most once per
                         * KMSG_SAVE_DELAY_USEC, or per event). */
                        log_warning_errno(r, "Failed to save the kernel log position to %s, ignoring: %m",
                                          k->seq_path);
                else
                        log_debug("Saved the kernel log position %" PRIu64 " to %s.", seq, k->seq_path);
                k->written = true;
                k->written_seq = seq;
        }
        k->event_unsaved = false;
        if (k->save_timer)
                (void) sd_event_source_set_enabled(k->save_timer, SD_EVENT_OFF);
}

/* Also the stop hook: on shutdown and on a reload that restarts the sources, the cursor is
 * brought up to date here (a half-built object has read nothing and writes nothing). */
static AuditSource *audit_kmsg_free(AuditSource *s)
{
        AuditKmsg *k = (AuditKmsg *) s;

        if (!k)
                return NULL;
        kmsg_save_seq(k);
        sd_event_source_disable_unref(k->save_timer);
        sd_event_source_disable_unref(k->source);
        safe_close(k->fd);
        free(k->seq_dir);
        free(k->seq_path);
        free(k);
        return NULL;
}

static int kmsg_on_save_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        kmsg_save_seq(userdata);
        return 0;
}

/*
 * After each wake-up: when to bring the cursor file up to date.
 *
 * Records that became an event: now. A restart (or a crash, SIGKILL) then never reads them as
 * new, so a DeprecatedSysctl signal is not sent twice; only a crash in the microseconds between
 * publishing and this write could repeat one. Such records are rare (the kernel rate-limits the
 * warning), so this costs nothing on a busy host. (Calls the coalescer still holds back, to
 * publish folded a second later, are lost rather than repeated by a crash — as before.)
 *
 * Any other record: lazily, from a one-shot timer KMSG_SAVE_DELAY_USEC after the cursor first
 * falls behind, so a busy kernel log costs one write per few seconds, not one per record. A
 * crash loses at most those seconds of position; re-reading those records is harmless, as none
 * of them made an event. The timer is off whenever the file is current: idle means idle.
 * A clean stop writes the cursor in audit_kmsg_free().
 */
static void kmsg_after_read(AuditKmsg *k)
{
        uint64_t seq;
        int r;

        if (k->event_unsaved) {
                kmsg_save_seq(k);
                return;
        }
        /* Armed already: the burst is written when it fires. */
        if (!kmsg_seq_behind(k, &seq) || event_source_armed(k->save_timer))
                return;
        r = event_arm_timer_in(k->src.ctx->event, &k->save_timer, KMSG_SAVE_DELAY_USEC, KMSG_SAVE_ACCURACY_USEC,
                               kmsg_on_save_timer, k);
        if (r < 0) {
                log_warning_errno(r, "Failed to arm the kernel log position timer, saving it now: %m");
                kmsg_save_seq(k);
        }
}

static void kmsg_handle_message(AuditKmsg *k, const KmsgMessage *msg)
{
        AuditEvent e = { .source = AUDIT_EVENT_SOURCE_KMSG };
        SysctlWarning w;
        uint64_t now_rt, now_mono;
        int r;

        r = kmsg_parse_sysctl_warning(msg->text, msg->len, &w);
        if (r == -ENOMSG)
                return;
        if (r < 0) {
                log_debug_errno(r, "Ignoring a malformed deprecated-sysctl warning (kernel log record %" PRIu64 "): %m",
                                msg->seq);
                return;
        }

        /* The record carries µs since boot on the kernel's local clock; map it to wall-clock time. */
        (void) sd_event_now(k->src.ctx->event, CLOCK_REALTIME, &now_rt);
        (void) sd_event_now(k->src.ctx->event, CLOCK_MONOTONIC, &now_mono);
        e.realtime_usec = msg->ts_usec <= now_mono ? now_rt - (now_mono - msg->ts_usec) : now_rt;
        audit_source_submit(&k->src, &e, w.comm, w.comm_len, NULL, 0, w.name, w.n_name);
        k->event_unsaved = true;
}

static void kmsg_handle_record(AuditKmsg *k, const char *buf, size_t len)
{
        KmsgRecord rec;
        KmsgMessage msg;
        uint64_t lost;

        if (kmsg_record_parse(buf, len, &rec) < 0) {
                log_debug("Ignoring an unparsable kernel log record.");
                return;
        }
        lost = kmsg_seq_lost(k->last_seq, rec.seq);
        if (lost > 0) {
                k->n_lost += lost;
                log_notice("%" PRIu64 " kernel log record%s lost before igmpd could read %s (%" PRIu64
                           " in total); a deprecated sysctl(2) warning among them is missed.",
                           lost, lost == 1 ? " was" : "s were", lost == 1 ? "it" : "them", k->n_lost);
        }
        k->last_seq = rec.seq;

        if (k->written && rec.seq <= k->written_seq)
                return;

        if (kmsg_assembler_push(&k->assembler, &rec, &msg) > 0)
                kmsg_handle_message(k, &msg);
}

/* Nothing more to read for now: what the assembler holds back is complete. */
static void kmsg_drained(AuditKmsg *k)
{
        KmsgMessage msg;

        if (kmsg_assembler_flush(&k->assembler, &msg) > 0)
                kmsg_handle_message(k, &msg);
}

/* Splits stream input into lines; each line not starting with a space is one record. */
static void kmsg_stream_feed(AuditKmsg *k, const char *data, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                char c = data[i];

                if (c != '\n') {
                        if (k->line_len < sizeof k->line)
                                k->line[k->line_len++] = c;
                        else
                                k->line_overlong = true;
                        continue;
                }
                if (k->line_overlong)
                        log_debug("Ignoring an overlong line in the kernel log stream.");
                else if (k->line_len > 0 && k->line[0] != ' ')
                        kmsg_handle_record(k, k->line, k->line_len);
                k->line_len = 0;
                k->line_overlong = false;
        }
}

static void kmsg_read_batch(AuditKmsg *k)
{
        char buf[KMSG_READ_SIZE];

        for (unsigned i = 0; i < KMSG_BATCH; i++) {
                ssize_t n = read(k->fd, buf, sizeof buf);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN) {
                                kmsg_drained(k);
                                return;
                        }
                        if (errno == EPIPE && !k->stream) {
                                /* Records were overwritten: the next read returns the oldest left,
                                 * and its seq tells how many were lost. */
                                log_debug("Kernel log buffer overran (EPIPE), continuing with the oldest record.");
                                continue;
                        }
                        n = -errno;
                        log_error_errno(n, "Failed to read the kernel log, the kmsg audit source stops: %m");
                        (void) audit_source_reason(k->src.ctx, k->src.type, n, "reading failed: %s", strerror(-n));
                        audit_source_stop(&k->src);
                } else if (n == 0) {
                        /* End of a regular test file (a FIFO opened read-write never ends). */
                        if (k->stream && k->line_len > 0)
                                kmsg_stream_feed(k, "\n", 1);
                        kmsg_drained(k);
                        if (!k->regular)
                                return;
                        log_debug("Kernel log test file read to its end.");
                }
                if (n <= 0) {
                        k->source = sd_event_source_disable_unref(k->source);
                        k->fd = safe_close(k->fd);
                        return;
                }
                if (k->stream)
                        kmsg_stream_feed(k, buf, (size_t) n);
                else
                        kmsg_handle_record(k, buf, (size_t) n);
        }
}

static int kmsg_on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        kmsg_read_batch(userdata);
        kmsg_after_read(userdata);
        return 0;
}

static int kmsg_on_defer(sd_event_source *s, void *userdata)
{
        AuditKmsg *k = userdata;

        /* A regular file: read it all, in batches, then the source goes away. */
        while (k->fd >= 0)
                kmsg_read_batch(k);
        kmsg_after_read(k);
        return 0;
}

int audit_kmsg_new(const AuditSourceContext *ctx, const char *path, AuditSource **ret)
{
        _cleanup_(audit_source_freep) AuditKmsg *k = NULL;
        const char *root = ctx->root, *what = path ?: "/dev/kmsg";
        struct utsname u;
        KmsgContStyle style;
        struct stat st;
        sd_id128_t boot;
        int r;

        assert(ctx);
        assert(ret);

        k = calloc(1, sizeof *k);
        if (!k)
                return audit_source_reason(ctx, AUDIT_EVENT_SOURCE_KMSG, -ENOMEM, "out of memory");
        k->src = (AuditSource) { .ctx = ctx, .type = AUDIT_EVENT_SOURCE_KMSG, .free = audit_kmsg_free };
        k->fd = -EBADF;
        k->last_seq = UINT64_MAX;
        k->stream = path != NULL;

        style = uname(&u) >= 0 ? kmsg_cont_style_from_release(u.release) : _KMSG_CONT_STYLE_INVALID;
        kmsg_assembler_init(&k->assembler, style >= 0 ? style : KMSG_CONT_MODERN);

        k->regular = path && stat(path, &st) >= 0 && S_ISREG(st.st_mode);
        /* A FIFO read-write: never sees EOF when a writer closes, and opening never blocks. */
        k->fd = open(what, (k->stream && !k->regular ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
        r = k->fd < 0 ? -errno : 0;
        if (r < 0 && !path && r == -ENOENT)
                return audit_source_reason(ctx, k->src.type, r, "no /dev/kmsg (kernel before 3.5, or no devtmpfs)");
        if (r < 0 && !path && (r == -EPERM || r == -EACCES))
                return audit_source_reason(ctx, k->src.type, r, "cannot open /dev/kmsg: %s (needs CAP_SYSLOG when "
                                           "kernel.dmesg_restrict=1)", strerror(-r));
        if (r < 0)
                return audit_source_reason(ctx, k->src.type, r, "cannot open %s: %s", what, strerror(-r));

        /* As /proc/sys/kernel/random/boot_id shows it (the cursor file's format); "" if unknown,
         * which no file matches. */
        if (sd_id128_get_boot(&boot) >= 0)
                sd_id128_to_uuid_string(boot, k->boot_id);
        if (asprintf(&k->seq_dir, "%s/run/igmpd", root) < 0 ||
            asprintf(&k->seq_path, "%s/" KMSG_SEQ_NAME, k->seq_dir) < 0)
                return audit_source_reason(ctx, k->src.type, -ENOMEM, "out of memory");
        kmsg_load_seq(k);

        if (k->regular)
                r = sd_event_add_defer(ctx->event, &k->source, kmsg_on_defer, k);
        else
                r = sd_event_add_io(ctx->event, &k->source, k->fd, EPOLLIN, kmsg_on_io, k);
        if (r < 0)
                return audit_source_reason(ctx, k->src.type, r, "cannot watch %s: %s", what, strerror(-r));
        audit_source_started(&k->src, k->source, "audit-kmsg");
        log_debug("Reading deprecated sysctl(2) warnings from %s%s.", what,
                  k->regular ? " (a regular file, read once)" : path ? " (a stream, one record per line)" : "");
        *ret = &TAKE_PTR(k)->src;
        return 0;
}
