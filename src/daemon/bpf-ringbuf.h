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
DEFINE_TRIVIAL_CLEANUP_FUNC(BpfRingBuf *, bpf_ringbuf_free);

/* Hands up to max records to the handler now. Returns how many. */
size_t bpf_ringbuf_consume(BpfRingBuf *rb, size_t max);

/* Maps a small BPF array map (a .bss, read-only) of size bytes; the fd is taken over. 0 or -errno. */
int bpf_map_mmap_ro(int fd, size_t size, const void **ret, size_t *ret_mapped);
