/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

/* Mirrors the kernel's dev_valid_name(): non-empty, shorter than max, not "." or "..", no '/',
 * ':' or whitespace. Only names that pass are ever used as a path component. Other bytes (UTF-8,
 * control characters) are valid: whoever prints a name must escape it. */
bool ifname_valid_len(const char *s, size_t max);
#define ifname_valid(s) ifname_valid_len(s, IFNAMSIZ)
/* Alternative names may be longer (ALTIFNAMSIZ, 128) but follow the same character rules. */
#define ifname_valid_alt(s) ifname_valid_len(s, 128)
