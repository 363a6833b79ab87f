/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BPF ring buffer consumer over mmap (the kernel's layout, kernel/bpf/ringbuf.c): page 0 holds
 * the consumer position (ours to write), page 1 the producer position, then the data area mapped
 * twice in a row so a record that wraps reads as contiguous. Each record starts with an 8-byte
 * header: the length with a BUSY bit (still being written) and a DISCARD bit, then the page
 * offset; records are 8-byte aligned.
 */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf-ringbuf.h"
#include "event-util.h"

#define RINGBUF_BUSY_BIT (1U << 31)
#define RINGBUF_DISCARD_BIT (1U << 30)
#define RINGBUF_HEADER_SIZE 8U

struct BpfReader {
        int fd;                       /* the ring buffer map */
        size_t size, page_size;
        unsigned long *consumer;      /* page 0, read-write */
        const void *producer_area;    /* page 1 + 2 × size, read-only */
        sd_event_source *source;
        size_t batch;
        BpfRingBufHandler handler;
        void *userdata;

        /* Batched reading (bpf_reader_set_batching()); delay_usec 0: drain on every wake-up. */
        sd_event *event;
        uint64_t delay_usec;
        BpfRingBufDrained drained;
        sd_event_source *delay_source; /* armed only while records wait */

        const void *counters;         /* the programs' .bss, mapped read-only */
        size_t counters_mapped;
        size_t lost_offset;           /* of the lost counter in the counters */
        uint64_t lost_seen;           /* the lost counter at the last look */
        uint64_t lost_reported;       /* … at the last report */
        uint64_t lost_logged_usec;
        unsigned lost_unsaid;         /* looks at a loss since, within BPF_READER_LOST_LOG_USEC of it */
};

static unsigned long ringbuf_unread(const BpfReader *rb)
{
        return __atomic_load_n((const unsigned long *) rb->producer_area, __ATOMIC_ACQUIRE) -
               __atomic_load_n(rb->consumer, __ATOMIC_ACQUIRE);
}

/* Hands up to max records to the handler now. Returns how many. */
static size_t ringbuf_consume(BpfReader *rb, size_t max)
{
        const unsigned long *producer = rb->producer_area;
        const uint8_t *data = (const uint8_t *) rb->producer_area + rb->page_size;
        unsigned long cons = __atomic_load_n(rb->consumer, __ATOMIC_ACQUIRE);
        unsigned long prod = __atomic_load_n(producer, __ATOMIC_ACQUIRE);
        size_t n = 0;

        while (cons < prod && n < max) {
                const uint32_t *hdr = (const uint32_t *) (data + (cons & (rb->size - 1)));
                uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

                if (len & RINGBUF_BUSY_BIT)
                        break; /* the producer is still writing it; it wakes us when done */
                cons += (((len & ~RINGBUF_DISCARD_BIT) + RINGBUF_HEADER_SIZE) + 7) & ~7UL;
                if (!(len & RINGBUF_DISCARD_BIT) && len <= rb->size) {
                        rb->handler((const uint8_t *) hdr + RINGBUF_HEADER_SIZE, len, rb->userdata);
                        n++;
                }
                /* Release each record at once: the producer can reuse its space. */
                __atomic_store_n(rb->consumer, cons, __ATOMIC_RELEASE);
                if (cons >= prod)
                        prod = __atomic_load_n(producer, __ATOMIC_ACQUIRE);
        }
        return n;
}

/* Batched: everything now, then back to level-triggered wake-ups, which looks at the ring
 * again at once (records written while we drained wake nobody: the ring buffer only wakes a
 * reader that has caught up with them). */
static void ringbuf_drain_all(BpfReader *rb)
{
        rb->delay_source = sd_event_source_disable_unref(rb->delay_source);
        while (ringbuf_consume(rb, SIZE_MAX) > 0)
                ;
        if (rb->drained)
                rb->drained(rb->userdata);
        (void) sd_event_source_set_io_events(rb->source, EPOLLIN);
}

static int on_ringbuf_delay(sd_event_source *s, uint64_t usec, void *userdata)
{
        ringbuf_drain_all(userdata);
        return 0;
}

static int on_ringbuf_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        BpfReader *rb = userdata;
        int r;

        if (rb->delay_usec == 0) {
                (void) ringbuf_consume(rb, rb->batch);
                return 0;
        }
        if (rb->delay_source) {
                /* Waiting already: only a forced wake-up with a full enough ring gets here. */
                if (ringbuf_unread(rb) >= rb->size / 4)
                        ringbuf_drain_all(rb);
                return 0;
        }
        /* The first record of a burst: wait for the rest. Edge-triggered meanwhile, so the
         * records left in the ring do not wake us again and again. */
        r = sd_event_add_time_relative(rb->event, &rb->delay_source, CLOCK_MONOTONIC, rb->delay_usec, 1000,
                                       on_ringbuf_delay, rb);
        if (r >= 0)
                r = sd_event_source_set_io_events(rb->source, EPOLLIN | EPOLLET);
        if (r < 0)
                ringbuf_drain_all(rb); /* cannot wait: read now rather than never */
        return 0;
}

BpfReader *bpf_reader_free(BpfReader *rb)
{
        if (!rb)
                return NULL;
        sd_event_source_disable_unref(rb->source);
        sd_event_source_disable_unref(rb->delay_source);
        if (rb->consumer)
                munmap(rb->consumer, rb->page_size);
        if (rb->producer_area)
                munmap((void *) rb->producer_area, rb->page_size + 2 * rb->size);
        if (rb->counters)
                munmap((void *) rb->counters, rb->counters_mapped);
        safe_close(rb->fd);
        free(rb);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(BpfReader *, bpf_reader_free);

/* Maps the ring buffer, its data area size bytes (a power of two, a multiple of the page size). */
static int ringbuf_map(BpfReader *rb, size_t size)
{
        void *p;

        if (size == 0 || (size & (size - 1)) != 0 || size % rb->page_size != 0 || size > (1UL << 30))
                return -EINVAL;
        p = mmap(NULL, rb->page_size, PROT_READ | PROT_WRITE, MAP_SHARED, rb->fd, 0);
        if (p == MAP_FAILED)
                return -errno;
        rb->consumer = p;
        p = mmap(NULL, rb->page_size + 2 * size, PROT_READ, MAP_SHARED, rb->fd, (off_t) rb->page_size);
        if (p == MAP_FAILED)
                return -errno;
        rb->producer_area = p;
        rb->size = size;
        return 0;
}

void bpf_reader_set_batching(BpfReader *rb, uint64_t delay_usec, BpfRingBufDrained drained)
{
        assert(rb);

        rb->delay_usec = delay_usec;
        rb->drained = drained;
}

void bpf_reader_flush(BpfReader *rb)
{
        if (!rb || rb->delay_usec == 0 || ringbuf_unread(rb) == 0)
                return;
        ringbuf_drain_all(rb);
}

const void *bpf_reader_counters(const BpfReader *rb)
{
        return rb ? rb->counters : NULL;
}

int bpf_reply_take_fd(const BpfReply *reply, int *fds, BpfFdRole role, const BpfReplyEntry **ret_entry)
{
        int fd = -EBADF;

        for (size_t i = 0, k = 0; i < reply->n_entries; i++) {
                if (reply->entries[i].role == BPF_FD_NONE)
                        continue;
                if (reply->entries[i].role == role) {
                        safe_close(fd);
                        fd = TAKE_FD(fds[k]);
                        *ret_entry = &reply->entries[i];
                }
                k++;
        }
        return fd;
}

int bpf_reader_open(sd_event *e, const BpfReply *reply, int *fds, size_t counters_min, size_t lost_offset,
                    int64_t priority, size_t batch, BpfRingBufHandler handler, void *userdata, BpfReader **ret,
                    char *reason, size_t reason_size)
{
        _cleanup_(bpf_reader_freep) BpfReader *rb = NULL;
        const BpfReplyEntry *ring = NULL, *counters = NULL;
        _cleanup_close_ int ring_fd = bpf_reply_take_fd(reply, fds, BPF_FD_RINGBUF, &ring);
        _cleanup_close_ int counters_fd = bpf_reply_take_fd(reply, fds, BPF_FD_COUNTERS, &counters);
        int r;

        assert(e);
        assert(handler);
        assert(ret);
        assert(lost_offset + sizeof(uint64_t) <= counters_min);

        if (ring_fd < 0 || counters_fd < 0) {
                snprintf(reason, reason_size, "the BPF helper sent no ring buffer or counters");
                return -EBADMSG;
        }
        rb = calloc(1, sizeof *rb);
        if (!rb) {
                snprintf(reason, reason_size, "out of memory");
                return -ENOMEM;
        }
        *rb = (BpfReader) {
                .fd = TAKE_FD(ring_fd),
                .page_size = (size_t) sysconf(_SC_PAGESIZE),
                .batch = MAX(batch, (size_t) 1),
                .handler = handler,
                .userdata = userdata,
                .event = e,
                .lost_offset = lost_offset,
        };
        /* A small array map (the .bss), mapped read-only: the mapping keeps the map alive. */
        r = counters->size < counters_min || counters->size > (1U << 20) ? -EBADMSG : 0;
        if (r >= 0) {
                void *p;

                rb->counters_mapped = (counters->size + rb->page_size - 1) / rb->page_size * rb->page_size;
                p = mmap(NULL, rb->counters_mapped, PROT_READ, MAP_SHARED, counters_fd, 0);
                r = p == MAP_FAILED ? -errno : 0;
                rb->counters = r < 0 ? NULL : p;
        }
        if (r < 0) {
                snprintf(reason, reason_size, "cannot map the BPF counters: %s", strerror(-r));
                return r;
        }
        r = ringbuf_map(rb, ring->size);
        if (r >= 0)
                r = sd_event_add_io(e, &rb->source, rb->fd, EPOLLIN, on_ringbuf_io, rb);
        if (r >= 0)
                r = sd_event_source_set_priority(rb->source, priority);
        if (r < 0) {
                snprintf(reason, reason_size, "cannot map the BPF ring buffer: %s", strerror(-r));
                return r;
        }
        (void) sd_event_source_set_description(rb->source, "bpf-ringbuf");
        rb->lost_seen = rb->lost_reported = *(const uint64_t *) ((const uint8_t *) rb->counters + lost_offset);
        *ret = TAKE_PTR(rb);
        return 0;
}

bool bpf_reader_check_lost(BpfReader *rd, uint64_t *ret_report)
{
        const uint64_t *counter = (const void *) ((const uint8_t *) rd->counters + rd->lost_offset);
        uint64_t lost = __atomic_load_n(counter, __ATOMIC_RELAXED);
        unsigned unsaid;

        *ret_report = 0;
        if (lost == rd->lost_seen)
                return false;
        rd->lost_seen = lost;
        if (event_report_due(rd->event, BPF_READER_LOST_LOG_USEC, &rd->lost_logged_usec, &rd->lost_unsaid,
                             &unsaid)) {
                *ret_report = lost - rd->lost_reported;
                rd->lost_reported = lost;
        }
        return true;
}
