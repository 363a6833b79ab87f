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

#include "bpf-protocol.h"
#include "macro.h"

/* What an attach reply of the BPF helper hands igmpd to read (the audit's BPF sources, the drift
 * watch): the ring buffer, and the programs' counters (their .bss, mapped read-only), of which
 * one counts the records lost when the ring buffer was full. */
typedef struct BpfReader BpfReader;

/* One record: its bytes are valid until the handler returns. */
typedef void (*BpfRingBufHandler)(const void *data, size_t size, void *userdata);

/* Called after a batched drain (bpf_reader_set_batching()) has handed out its records. */
typedef void (*BpfRingBufDrained)(void *userdata);

/* Takes the fd of reply's last entry of role out of fds[] (one per entry with a role, in entry
 * order; left -EBADF), closing those of its earlier entries of that role; *ret_entry is its entry.
 * -EBADF if there is none. */
int bpf_reply_take_fd(const BpfReply *reply, int *fds, BpfFdRole role, const BpfReplyEntry **ret_entry);

/*
 * Takes the ring buffer and counters fds of reply out of fds[] (in entry order; left -EBADF),
 * maps the counters (at least counters_min bytes, the lost counter at lost_offset) and the ring
 * buffer (its data area a power of two, a multiple of the page size), and watches the ring at
 * the given sd-event priority: each wake-up hands at most batch records to the handler, so a
 * flood cannot starve other event sources. The reply's other fds stay in fds[]. 0, or -errno
 * with reason set (nothing made).
 */
int bpf_reader_open(sd_event *e, const BpfReply *reply, int *fds, size_t counters_min, size_t lost_offset,
                    int64_t priority, size_t batch, BpfRingBufHandler handler, void *userdata, BpfReader **ret,
                    char *reason, size_t reason_size);
BpfReader *bpf_reader_free(BpfReader *rd);

/* The counters, mapped read-only; NULL for a NULL reader. */
const void *bpf_reader_counters(const BpfReader *rd);

/*
 * Batched reading, for producers that submit without flags: the ring buffer then wakes the
 * reader only for the first record after it caught up. Instead of draining at once, the reader
 * waits delay_usec for more, then hands out everything at once and calls drained — one wake-up
 * and one pass per burst, however many records it holds. While it waits only a forced wake-up
 * (BPF_RB_FORCE_WAKEUP, the producer's fill threshold) with at least a quarter of the ring
 * unread drains early. The timer exists only while records wait: idle means idle.
 */
void bpf_reader_set_batching(BpfReader *rd, uint64_t delay_usec, BpfRingBufDrained drained);

/* Batched reading: hands out every waiting record now (and calls drained), as if the delay
 * had run out; a no-op when nothing waits (or rd is NULL). */
void bpf_reader_flush(BpfReader *rd);

/* Lost records are reported at most this often. */
#define BPF_READER_LOST_LOG_USEC (10ULL * 1000000ULL)
/* Whether records were lost since the last look; *ret_report is how many to report now (since
 * the last report; 0 within BPF_READER_LOST_LOG_USEC of it, so a flood is said once then). */
bool bpf_reader_check_lost(BpfReader *rd, uint64_t *ret_report);
