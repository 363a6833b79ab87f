/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Process capabilities as 64-bit masks (bit N = capability N), through capget(2)/capset(2) and
 * prctl(2): no libcap needed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAP_MASK(c) (UINT64_C(1) << (c))

typedef struct CapabilitySets {
        uint64_t effective, permitted, inheritable, ambient;
} CapabilitySets;

/* The calling thread's sets (ambient from prctl; 0 where the kernel lacks it). 0 or -errno. */
int capability_get(CapabilitySets *ret);

bool capability_is_effective(int cap);

/*
 * Removes every capability not in keep from the effective, permitted, inheritable and ambient
 * sets. 0 or -errno (-EPERM: capset(2) refused, e.g. by a system call filter; the sets are then
 * unchanged except the ambient one).
 */
int capability_drop_except(uint64_t keep);

/* "CAP_NET_ADMIN" (or "cap_N" for unnamed ones); NULL if cap is out of range. */
const char *capability_to_name(int cap, char buf[16]);

/* Space-separated names of the bits in mask, "" for 0. Truncated to fit size. */
void capability_format(uint64_t mask, char *buf, size_t size);
