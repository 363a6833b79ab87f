/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The namespace knobs of one network namespace (see ns-knobs.h).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf-parser.h"
#include "event-util.h"
#include "fs-util.h"
#include "log.h"
#include "ns-knobs.h"
#include "parse-util.h"
#include "sysctl-util.h"

#define NS_KNOBS_RECORD_HEADER "igmpd-namespace-originals 1 "

/* A followed namespace's messages start with its name: "NAME: ", the "%s%s" of a format. */
#define NS_KNOBS_PREFIX(n) strempty((n)->name), (n)->name ? ": " : ""

/* At most one drift report per knob in this time, as for a link's knobs. */
#define NS_KNOBS_REPORT_USEC (1000ULL * 1000ULL)

int ns_knobs_init(NsKnobs *n, sd_event *event)
{
        *n = (NsKnobs) { .event = event };
        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++) {
                char path[256];

                snprintf(path, sizeof path, "/proc/sys/net/%s", knob_family_dir(f));
                n->dir_fd[f] = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (n->dir_fd[f] < 0)
                        n->dir_fd[f] = -errno;
        }
        if (n->dir_fd[KNOB_FAMILY_IPV4] < 0)
                return n->dir_fd[KNOB_FAMILY_IPV4];

        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) {
                NsKnobState *s = &n->knobs[k];
                int fd = n->dir_fd[ns_knob_info(k)->family];

                s->available = fd >= 0 && faccessat(fd, ns_knob_info(k)->name, F_OK, 0) == 0;
                s->kernel_known = s->available && sysctl_read_int_at(fd, ns_knob_info(k)->name, &s->kernel) >= 0;
        }
        return 0;
}

void ns_knobs_done(NsKnobs *n)
{
        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++)
                safe_close(n->dir_fd[f]);
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++)
                refstr_unref(n->knobs[k].want.source);
        free(n->record_dir);
        *n = (NsKnobs) { .dir_fd = { -EBADF, -EBADF } };
}

bool ns_knobs_available(const NsKnobs *n, NsKnob k)
{
        return n->knobs[k].available;
}

static void ns_knobs_notify(NsKnobs *n, NsKnob k)
{
        if (n->changed)
                n->changed(n, k, n->changed_userdata);
}

int ns_knobs_read_kernel(NsKnobs *n, NsKnob k, int32_t *ret)
{
        if (k < 0 || k >= _NS_KNOB_MAX || !n->knobs[k].available)
                return -ENOENT;
        return sysctl_read_int_at(n->dir_fd[ns_knob_info(k)->family], ns_knob_info(k)->name, ret);
}

static int ns_knobs_write(NsKnobs *n, NsKnob k, int32_t v)
{
        NsKnobState *s = &n->knobs[k];
        int r;

        r = sysctl_write_int_at(n->dir_fd[ns_knob_info(k)->family], ns_knob_info(k)->name, v);
        if (r >= 0) {
                s->kernel = v;
                s->kernel_known = true;
        }
        return r;
}

int ns_knobs_parse_record(const char *text, const char *netns, bool set[static _NS_KNOB_MAX],
                          int32_t original[static _NS_KNOB_MAX], int32_t written[static _NS_KNOB_MAX])
{
        const char *p = startswith(text, NS_KNOBS_RECORD_HEADER), *eol;
        size_t len;

        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++)
                set[k] = false;
        if (!p || isempty(netns))
                return 0;
        eol = strchrnul(p, '\n');
        len = strlen(netns);
        if ((size_t) (eol - p) != len || strncmp(p, netns, len) != 0 || *eol != '\n')
                return 0;

        for (p = eol + 1; *p; p = *eol ? eol + 1 : eol) {
                char line[64], *eq, *slash;
                int o, w;
                NsKnob k;

                eol = strchrnul(p, '\n');
                if (*eol != '\n' || (size_t) (eol - p) >= sizeof line)
                        continue; /* torn by a crash, or not one of ours */
                memcpy(line, p, (size_t) (eol - p));
                line[eol - p] = '\0';
                eq = strchr(line, '=');
                slash = eq ? strchr(eq, '/') : NULL;
                if (!slash)
                        continue;
                *eq = *slash = '\0';
                k = ns_knob_from_string(line);
                if (k < 0 || parse_int_range(eq + 1, slash, &o) < 0 || parse_int_range(slash + 1, slash + 1 + strlen(slash + 1), &w) < 0)
                        continue;
                set[k] = true;
                original[k] = o;
                written[k] = w;
        }
        return 1;
}

/* Writes the record of what igmpd changed (before the write that needs it), or removes it when
 * nothing is left to undo. A failure is said once; the writes go ahead (as for the links'). */
static void ns_knobs_save(NsKnobs *n)
{
        char buf[256];
        size_t off;
        bool any = false;
        int r;

        if (!n->record_dir)
                return;
        off = (size_t) snprintf(buf, sizeof buf, NS_KNOBS_RECORD_HEADER "%s\n", n->netns);
        for (NsKnob k = 0; k < _NS_KNOB_MAX && off < sizeof buf; k++)
                if (n->knobs[k].changed) {
                        off += (size_t) snprintf(buf + off, sizeof buf - off, "%s=%" PRIi32 "/%" PRIi32 "\n",
                                                 ns_knob_info(k)->name, n->knobs[k].original, n->knobs[k].written);
                        any = true;
                }
        r = any ? write_file_atomic(n->record_dir, NS_KNOBS_RECORD_NAME, buf)
                : remove_file_sync(n->record_dir, NS_KNOBS_RECORD_NAME);
        if (r < 0 && !n->record_failed)
                log_warning_errno(r, "Failed to record the namespace knobs' values found in %s/" NS_KNOBS_RECORD_NAME
                                  ", a crash would forget them: %m", n->record_dir);
        n->record_failed = r < 0;
}

/* Writes value, recording first (ns_knobs_save()) what it writes and, at igmpd's first change of
 * the knob, the value found (now). */
static int ns_knobs_write_recorded(NsKnobs *n, NsKnob k, int32_t now, int32_t value)
{
        NsKnobState *s = &n->knobs[k];

        if (!s->changed || s->written != value) {
                if (!s->changed) {
                        s->original = now;
                        s->changed = true;
                }
                s->written = value;
                ns_knobs_save(n);
        }
        return ns_knobs_write(n, k, value);
}

int ns_knobs_take_record(NsKnobs *n, const char *dir, const char *netns)
{
        _cleanup_free_ char *path = NULL, *text = NULL;
        bool set[_NS_KNOB_MAX];
        int32_t original[_NS_KNOB_MAX], written[_NS_KNOB_MAX];
        size_t len;
        int r;

        if (free_and_strdup(&n->record_dir, dir) < 0)
                return -ENOMEM;
        snprintf(n->netns, sizeof n->netns, "%s", netns);
        if (asprintf(&path, "%s/" NS_KNOBS_RECORD_NAME, dir) < 0)
                return -ENOMEM;
        r = config_read_file(path, &text, &len);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                log_warning_errno(r, "Failed to read %s, ignoring: %m", path);
                return r == -ENOMEM ? r : 0;
        }
        if (ns_knobs_parse_record(text, n->netns, set, original, written) <= 0) {
                log_debug("%s is of another network namespace, ignoring it.", path);
                return 0;
        }
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) {
                NsKnobState *s = &n->knobs[k];

                if (!set[k] || ns_knobs_read_kernel(n, k, &s->kernel) < 0)
                        continue;
                s->kernel_known = true;
                if (s->kernel != written[k]) {
                        log_info("%s%s%s is %" PRIi32 ", not the %" PRIi32 " igmpd's last run wrote: changed by "
                                 "someone else, leaving the value it found (%" PRIi32 ") unrecorded.",
                                 NS_KNOBS_PREFIX(n), ns_knob_sysctl_name(k), s->kernel, written[k], original[k]);
                        continue;
                }
                s->changed = true;
                s->original = original[k];
                s->written = written[k];
                log_info("%s%s%s: %" PRIi32 " was written by igmpd's last run, which found %" PRIi32 ".",
                         NS_KNOBS_PREFIX(n), ns_knob_sysctl_name(k), written[k], original[k]);
        }
        return 0;
}

/* Writes back the value found, unless another process changed the knob since igmpd wrote it (now
 * is what the kernel holds): either way igmpd has no change of it left, unless the write failed
 * (it stays recorded). policy_gone: no policy sets it any more (else: the stop). 1 if written
 * back, 0 if left, or -errno. */
static int ns_knobs_put_back(NsKnobs *n, NsKnob k, int32_t now, bool policy_gone)
{
        NsKnobState *s = &n->knobs[k];
        const char *name = ns_knob_sysctl_name(k);
        int r;

        if (now != s->written) {
                log_info("%s%s%s is %" PRIi32 ", set by another process since igmpd wrote %" PRIi32 "%s: leaving it.",
                         NS_KNOBS_PREFIX(n), name, now, s->written, policy_gone ? "; no policy sets it any more" : "");
                s->changed = false;
                return 0;
        }
        r = ns_knobs_write(n, k, s->original);
        if (r < 0)
                return log_warning_errno(r, "%s%sFailed to set %s back to %" PRIi32 ", the value found%s: %m",
                                         NS_KNOBS_PREFIX(n), name, s->original, policy_gone ? ", ignoring" : "");
        log_info("%s%sSet %s back to %" PRIi32 ", the value found%s.", NS_KNOBS_PREFIX(n), name, s->original,
                 policy_gone ? ": no policy sets it any more" : "");
        s->changed = false;
        return 1;
}

static void ns_knobs_configure_one(NsKnobs *n, NsKnob k, const KnobValue *want, bool write)
{
        NsKnobState *s = &n->knobs[k];
        const char *name = ns_knob_sysctl_name(k);
        bool before_known = s->kernel_known;
        int32_t before = s->kernel, now;
        bool same_want = s->want.set == want->set && (!want->set || (s->want.value == want->value &&
                         streq_ptr(knob_value_source(&s->want), knob_value_source(want))));
        int r;

        if (want->set)
                knob_value_set(&s->want, want->value, want->source);
        else {
                refstr_unref(s->want.source);
                s->want = (KnobValue) {};
        }
        if (!s->available)
                goto finish;
        r = ns_knobs_read_kernel(n, k, &now);
        if (r < 0) {
                log_warning_errno(r, "%s%sCannot read %s, leaving it alone: %m", NS_KNOBS_PREFIX(n), name);
                goto finish;
        }
        s->kernel = now;
        s->kernel_known = true;
        if (!write)
                goto finish;

        if (want->set && now != want->value) {
                r = ns_knobs_write_recorded(n, k, now, want->value);
                if (r < 0)
                        log_warning_errno(r, "%s%sFailed to set %s to %" PRIi32 " (from %s), ignoring: %m",
                                          NS_KNOBS_PREFIX(n), name, want->value, refstr_str(want->source));
                else
                        log_info("%s%sSet %s to %" PRIi32 " (from %s), was %" PRIi32 ".", NS_KNOBS_PREFIX(n), name,
                                 want->value, refstr_str(want->source), now);
        } else if (!want->set && s->changed) {
                /* The record goes only once the value found is back: a crash in between leaves
                 * the next start what it needs. A failed write stays recorded (the stop tries
                 * again). */
                if (ns_knobs_put_back(n, k, now, true) >= 0)
                        ns_knobs_save(n);
        }

finish:
        if (!same_want || s->kernel_known != before_known || s->kernel != before)
                ns_knobs_notify(n, k);
}

void ns_knobs_configure(NsKnobs *n, const KnobValue want[static _NS_KNOB_MAX], bool write)
{
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++)
                ns_knobs_configure_one(n, k, &want[k], write);
}

void ns_knobs_check(NsKnobs *n, NsKnob k, DriftAction action, const LinkWriter *w)
{
        NsKnobState *s = &n->knobs[k];
        unsigned suppressed = 0;
        bool writer_old;
        LinkOverride o;
        int32_t now;
        int r = 0;

        if (ns_knobs_read_kernel(n, k, &now) < 0)
                return;
        if (s->kernel_known && s->kernel == now)
                return; /* rejected by the kernel, or igmpd's own value back */
        writer_old = w && w->old_known && w->old_value != now;
        o = (LinkOverride) {
                .old_known = writer_old || s->kernel_known,
                .old_value = writer_old ? w->old_value : s->kernel,
                .new_value = now,
                .value = s->want.value,
                .pid = w ? w->pid : 0,
                .uid = w ? w->uid : 0,
                .comm = w ? strempty(w->comm) : "",
                .action = LINK_OVERRIDE_KEPT,
        };
        s->kernel = now;
        s->kernel_known = true;

        if (!s->want.set || s->want.value == now) {
                log_debug("%s changed to %" PRIi32 " by %s.", ns_knob_sysctl_name(k), now,
                          w ? strempty(w->comm) : "another process");
                ns_knobs_notify(n, k);
                return;
        }

        if (action != DRIFT_ACTION_WARN) {
                r = ns_knobs_write_recorded(n, k, now, s->want.value);
                o.action = r < 0 ? LINK_OVERRIDE_FAILED : LINK_OVERRIDE_REVERTED;
        }
        ns_knobs_notify(n, k);
        if (event_report_due(n->event, NS_KNOBS_REPORT_USEC, &s->reported_usec, &s->suppressed, &suppressed))
                log_drift_override(NULL, NULL, 0, ns_knob_info(k)->name, ns_knob_sysctl_name(k),
                                   refstr_str(s->want.source), &o, w, "another process (unseen by the drift watch)",
                                   suppressed, r);
}

unsigned ns_knobs_restore(NsKnobs *n, unsigned *n_restored)
{
        unsigned n_failed = 0;

        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) {
                NsKnobState *s = &n->knobs[k];
                int32_t now;
                int r;

                if (!s->available || !s->changed)
                        continue;
                if (ns_knobs_read_kernel(n, k, &now) < 0) {
                        s->changed = false;
                        continue;
                }
                r = ns_knobs_put_back(n, k, now, false);
                if (r < 0)
                        n_failed++; /* still recorded */
                else if (r > 0 && n_restored)
                        (*n_restored)++;
        }
        ns_knobs_save(n);
        return n_failed;
}
