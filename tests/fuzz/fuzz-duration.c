/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: parse_duration_ms() and knob_parse_value() on arbitrary text. Invariants: a
 * successful parse yields a non-negative value, and the value printed back as a bare number of
 * milliseconds parses to the same value.
 */

#include <assert.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knob.h"
#include "parse-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *s;
        int64_t v, w;
        char buf[32];

        if (size > 4096)
                return 0;
        s = strndup((const char *) data, size); /* stops at the first NUL, as a C string would */
        if (!s)
                return 0;

        if (parse_duration_ms(s, &v) == 0) {
                assert(v >= 0);
                snprintf(buf, sizeof buf, "%" PRIi64, v);
                assert(parse_duration_ms(buf, &w) == 0);
                assert(w == v);
        }

        for (Knob k = 0; k < _KNOB_MAX; k++) {
                int32_t x;

                if (knob_parse_value(k, s, &x) == 0)
                        assert(knob_check_value(k, x) >= 0);
        }

        free(s);
        return 0;
}
