/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* Mirrors the kernel's dev_valid_name(): non-empty, shorter than IFNAMSIZ, not "." or "..",
 * no '/', ':' or whitespace. Only names that pass are ever used as a path component. Other
 * bytes (UTF-8, control characters) are valid: whoever prints a name must escape it. */
bool ifname_valid(const char *s);

/* Alternative names may be longer (ALTIFNAMSIZ, 128) but follow the same character rules. */
bool ifname_valid_alt(const char *s);
