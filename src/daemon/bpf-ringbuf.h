/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A BPF ring buffer read by igmpd without any bpf() system call: the map fd (received from the
 * helper) is mmap()ed — the consumer page writable, the producer page and the data read-only —
 * and polled through sd-event. (libbpf's ring_buffer__new() asks the kernel for the map's size
 * with bpf(), which the unit's system call filter denies and which kernels before 6.5 refuse
 * to unprivileged processes when kernel.unprivileged_bpf_disabled is set; the helper sends the
 * size instead.)
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "macro.h"

typedef struct BpfRingBuf BpfRingBuf;

/* One record: its bytes are valid until the handler returns. */
typedef void (*BpfRingBufHandler)(const void *data, size_t size, void *userdata);

/*
 * Maps the ring buffer map fd (taken over, also on failure) whose data area is size bytes (a
 * power of two, a multiple of the page size) and watches it at the given sd-event priority.
 * Each wake-up hands at most batch records to the handler, so a flood cannot starve other
 * event sources. 0 or -errno.
 */
int bpf_ringbuf_new(sd_event *e, int fd, size_t size, int64_t priority, size_t batch, BpfRingBufHandler handler,
                    void *userdata, BpfRingBuf **ret);
BpfRingBuf *bpf_ringbuf_free(BpfRingBuf *rb);

/* Called after a batched drain (bpf_ringbuf_set_batching()) has handed out its records. */
typedef void (*BpfRingBufDrained)(void *userdata);

/*
 * Batched reading, for producers that submit without flags: the ring buffer then wakes the
 * reader only for the first record after it caught up. Instead of draining at once, the reader
 * waits delay_usec for more, then hands out everything at once and calls drained — one wake-up
 * and one pass per burst, however many records it holds. While it waits only a forced wake-up
 * (BPF_RB_FORCE_WAKEUP, the producer's fill threshold) with at least early_bytes unread drains
 * early. The timer exists only while records wait: idle means idle. 0 or -errno.
 */
int bpf_ringbuf_set_batching(BpfRingBuf *rb, uint64_t delay_usec, size_t early_bytes, BpfRingBufDrained drained);

/* Whether records wait to be read (or are being written). */
bool bpf_ringbuf_pending(const BpfRingBuf *rb);

/* Batched reading: hands out every waiting record now (and calls drained), as if the delay
 * had run out; a no-op when nothing waits. */
void bpf_ringbuf_flush(BpfRingBuf *rb);
DEFINE_TRIVIAL_CLEANUP_FUNC(BpfRingBuf *, bpf_ringbuf_free);

/* Hands up to max records to the handler now. Returns how many. */
size_t bpf_ringbuf_consume(BpfRingBuf *rb, size_t max);

/* Maps a small BPF array map (a .bss, read-only) of size bytes; the fd is taken over. 0 or -errno. */
int bpf_map_mmap_ro(int fd, size_t size, const void **ret, size_t *ret_mapped);
