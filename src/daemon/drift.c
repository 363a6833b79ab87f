/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DriftWatch: asking the helper to attach the drift watch, keeping what it sends, reading the
 * ring buffer in batches, and handing the writes on.
 */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array-util.h"
#include "bpf-drift-record.h"
#include "bpf-helper-client.h"
#include "bpf-ringbuf.h"
#include "drift.h"
#include "log.h"
#include "utf8.h"

struct DriftWatch {
        sd_event *event;
        DriftWriteFn on_write;
        DriftLostFn on_lost;
        DriftObserver on_state;
        void *userdata;
        DriftObserver observer;
        void *observer_userdata;

        DriftWatchState state;
        char reason[384];         /* why it is inactive */
        char where[BPF_PROTOCOL_PATH_MAX]; /* where it is attached, as the helper said */

        BpfHelper *helper;        /* only while attaching: released afterwards */
        BpfHelperCall *call;
        sd_event_source *release_source;

        int link_fd;              /* the bpf_link: closing it detaches the program */
        BpfReader *reader;        /* the ring buffer and struct drift_counters */

        DriftEvent *batch;        /* the burst being read: one entry per knob */
        size_t n_batch, allocated;
        bool overflow;            /* records lost or past DRIFT_BATCH_MAX: look at everything */
        bool dispatching;
};

int drift_watch_new(sd_event *event, DriftWriteFn on_write, DriftLostFn on_lost, DriftObserver on_state,
                    void *userdata, DriftWatch **ret)
{
        DriftWatch *d;

        assert(event);
        assert(ret);

        d = calloc(1, sizeof *d);
        if (!d)
                return -ENOMEM;
        d->event = sd_event_ref(event);
        d->on_write = on_write;
        d->on_lost = on_lost;
        d->on_state = on_state;
        d->userdata = userdata;
        d->link_fd = -EBADF;
        d->state = RUN_STATE_OFF;
        *ret = d;
        return 0;
}

/* Detaches (closes the link) and drops what was read. */
static void drift_watch_detach(DriftWatch *d)
{
        d->reader = bpf_reader_free(d->reader);
        d->link_fd = safe_close(d->link_fd);
        d->n_batch = 0;
        d->overflow = false;
}

/* Detaches, and drops a pending request and the helper too. Not from the helper's callback. */
static void drift_watch_stop(DriftWatch *d)
{
        bpf_helper_call_cancel(d->helper, d->call);
        d->call = NULL;
        d->release_source = sd_event_source_disable_unref(d->release_source);
        d->helper = bpf_helper_free(d->helper);
        drift_watch_detach(d);
}

DriftWatch *drift_watch_free(DriftWatch *d)
{
        if (!d)
                return NULL;
        drift_watch_stop(d);
        free(d->batch);
        sd_event_unref(d->event);
        free(d);
        return NULL;
}

void drift_watch_set_observer(DriftWatch *d, DriftObserver observer, void *userdata)
{
        d->observer = observer;
        d->observer_userdata = userdata;
}

static void drift_watch_set_state(DriftWatch *d, DriftWatchState state)
{
        if (d->state == state)
                return;
        d->state = state;
        if (d->on_state)
                d->on_state(d->userdata);
        if (d->observer)
                d->observer(d->observer_userdata);
}

DriftWatchState drift_watch_state(const DriftWatch *d, char *note, size_t size)
{
        switch (d->state) {
        case RUN_STATE_OFF:
                snprintf(note, size, "DriftWatch=no: foreign writes are seen only in link messages");
                break;
        case RUN_STATE_STARTING:
                snprintf(note, size, "waiting for the BPF helper");
                break;
        case RUN_STATE_ACTIVE:
                snprintf(note, size, "cgroup/sysctl at %s", d->where);
                break;
        default:
                snprintf(note, size, "%s; foreign writes are seen only in link messages", d->reason);
        }
        return d->state;
}

bool drift_watch_active(const DriftWatch *d)
{
        return d && d->state == RUN_STATE_ACTIVE;
}

static void drift_watch_fail(DriftWatch *d, const char *reason)
{
        drift_watch_detach(d);
        snprintf(d->reason, sizeof d->reason, "%s", reason);
        log_info("Drift watch is not active: %s. Changes made by other processes are seen only when a link "
                 "message carries the values.", reason);
        drift_watch_set_state(d, RUN_STATE_INACTIVE);
}

/* ---- reading ---- */

static bool same_knob(const DriftWrite *a, const DriftWrite *b)
{
        return a->knob == b->knob && a->ns_knob == b->ns_knob && a->scope == b->scope && streq(a->ifname, b->ifname);
}

/* One record: the last write per knob of a burst wins, keeping the value from before the first. */
static void drift_on_record(const void *data, size_t size, void *userdata)
{
        DriftWatch *d = userdata;
        DriftEvent e = {};
        int r;

        r = drift_record_parse(data, size, &e.write);
        if (r == -ENOENT)
                return;
        if (r < 0) {
                log_debug("Ignoring a malformed drift watch record (%zu bytes).", size);
                return;
        }
        (void) utf8_escape(e.write.comm, UTF8_ESCAPE_CONTROL, e.comm);

        for (size_t i = 0; i < d->n_batch; i++)
                if (same_knob(&d->batch[i].write, &e.write)) {
                        DriftEvent *b = &d->batch[i];

                        e.write.old_known = b->write.old_known;
                        e.write.old_value = b->write.old_value;
                        *b = e;
                        return;
                }
        if (d->n_batch >= DRIFT_BATCH_MAX || ARRAY_GROW(d->batch, d->allocated, d->n_batch, 16) < 0) {
                d->overflow = true;
                return;
        }
        d->batch[d->n_batch++] = e;
}

/* After a batch was read: hand it on. */
static void drift_on_drained(void *userdata)
{
        DriftWatch *d = userdata;
        uint64_t lost;
        bool overflow;

        if (bpf_reader_check_lost(d->reader, &lost)) {
                d->overflow = true;
                if (lost > 0)
                        log_warning("Drift watch lost %" PRIu64 " write record%s (its ring buffer was full); reading "
                                    "every link's knobs back instead.", lost, lost == 1 ? "" : "s");
        }
        overflow = d->overflow;
        d->overflow = false;
        d->dispatching = true;
        for (size_t i = 0; i < d->n_batch; i++)
                if (d->on_write)
                        d->on_write(&d->batch[i], d->userdata);
        d->n_batch = 0;
        if (overflow && d->on_lost)
                d->on_lost(d->userdata);
        d->dispatching = false;
        /* A flood's batch does not stay allocated. */
        if (d->allocated > 64) {
                d->batch = mfree(d->batch);
                d->allocated = 0;
        }
}

void drift_watch_flush(DriftWatch *d)
{
        if (d && !d->dispatching)
                bpf_reader_flush(d->reader);
}

/* ---- attaching ---- */

static int on_release(sd_event_source *s, void *userdata)
{
        DriftWatch *d = userdata;

        /* Not from the helper's own callback, which still uses it. */
        d->release_source = sd_event_source_disable_unref(d->release_source);
        d->helper = bpf_helper_free(d->helper);
        return 0;
}

static void drift_on_attached(int error, const char *reason, const BpfReply *reply, int *fds, size_t n_fds,
                              void *userdata)
{
        DriftWatch *d = userdata;
        char what[BPF_PROTOCOL_REASON_MAX] = "the BPF helper sent no link";
        const BpfReplyEntry *link = NULL;
        int r;

        d->call = NULL;
        /* The helper has done its part (a child helper exits once released). */
        if (sd_event_add_defer(d->event, &d->release_source, on_release, d) < 0)
                log_debug("Cannot schedule the release of the BPF helper; it stays until the watch stops.");
        if (error < 0) {
                drift_watch_fail(d, reason);
                return;
        }
        r = bpf_reader_open(d->event, reply, fds, sizeof(struct drift_counters),
                            offsetof(struct drift_counters, lost), SD_EVENT_PRIORITY_NORMAL, SIZE_MAX,
                            drift_on_record, d, &d->reader, what, sizeof what);
        d->link_fd = bpf_reply_take_fd(reply, fds, BPF_FD_LINK, &link);
        if (link)
                snprintf(d->where, sizeof d->where, "%s", link->path);
        close_many(fds, n_fds);
        if (r < 0 || d->link_fd < 0) {
                drift_watch_fail(d, what);
                return;
        }
        bpf_reader_set_batching(d->reader, DRIFT_BATCH_USEC, drift_on_drained);
        d->reason[0] = '\0';
        log_info("Drift watch is active: cgroup/sysctl at %s (BPF helper: %s).", d->where,
                 bpf_helper_describe(d->helper));
        drift_watch_set_state(d, RUN_STATE_ACTIVE);
        /* Writes made while it was starting went unseen: look at everything once. */
        if (d->on_lost)
                d->on_lost(d->userdata);
}

static int drift_watch_attach(DriftWatch *d, bool all_netns, char *reason, size_t size)
{
        BpfRequest req = {
                .op = BPF_OP_DRIFT_ATTACH,
                .flags = all_netns ? BPF_REQUEST_ALL_NETNS : 0,
                .n_pids = 1,
                .pids = { (uint32_t) getpid() },
        };
        int r;

        r = bpf_helper_new(d->event, NULL, NULL, &d->helper, reason, size);
        if (r < 0) {
                if (!reason[0])
                        snprintf(reason, size, "cannot set up the BPF helper: %s", strerror(-r));
                return r;
        }
        /* The helper watches igmpd's network namespace and leaves igmpd's own writes out. */
        _cleanup_close_ int net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        _cleanup_close_ int pid = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);

        r = net < 0 || pid < 0 ? -errno : bpf_helper_call(d->helper, &req, (int[]) { net, pid }, 2,
                                                          drift_on_attached, d, &d->call);
        if (r < 0) {
                snprintf(reason, size, "cannot ask the BPF helper: %s", strerror(-r));
                d->helper = bpf_helper_free(d->helper);
        }
        return r;
}

void drift_watch_start(DriftWatch *d, bool wanted, bool all_netns)
{
        char reason[sizeof d->reason] = "";

        assert(d);

        if (!wanted) {
                if (d->state != RUN_STATE_OFF)
                        log_info("Drift watch stopped (DriftWatch=no).");
                drift_watch_stop(d);
                drift_watch_set_state(d, RUN_STATE_OFF);
                return;
        }
        if (d->state == RUN_STATE_STARTING || d->state == RUN_STATE_ACTIVE)
                return;

        if (!HAVE_BPF)
                snprintf(reason, sizeof reason, "%s", BPF_NOT_BUILT_REASON);
        else
                (void) drift_watch_attach(d, all_netns, reason, sizeof reason);
        if (reason[0]) {
                drift_watch_fail(d, reason);
                return;
        }
        drift_watch_set_state(d, RUN_STATE_STARTING);
}
