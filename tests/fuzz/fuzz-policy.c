/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: policy_file_parse() and knob_settings_parse() on arbitrary bytes (binary
 * garbage, NULs, huge lines, …), then policy_match()/policy_merge() of the result against a few
 * links. Invariants: every knob set holds a value its own range check accepts, and the line it
 * came from is within the input.
 */

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void diag(void *userdata, const char *file, unsigned line, const char *message)
{
        unsigned *n = userdata;

        assert(file);
        assert(message);
        (void) line;
        (*n)++;
}

static unsigned count_lines(const uint8_t *data, size_t size)
{
        unsigned n = 1;

        for (size_t i = 0; i < size; i++)
                if (data[i] == '\n')
                        n++;
        return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_(policy_file_freep) PolicyFile *f = NULL;
        KnobSetting ks[_KNOB_MAX];
        unsigned n_diag = 0, lines;
        int r;

        if (size > 256 * 1024)
                return 0;
        lines = count_lines(data, size);

        r = policy_file_parse("/fuzz/50-fuzz.conf", (const char *) data, size, diag, &n_diag, &f);
        assert(r == 0 || r == -ENOMEM);
        if (r == 0) {
                assert(f);
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        if (f->knobs[k].line > 0) {
                                assert(f->knobs[k].line <= lines);
                                assert(knob_check_value(k, f->knobs[k].value) >= 0);
                        }

                static const struct ether_addr mac = { { 0x02, 0, 0, 0, 0, 1 } };
                static char *const alts[] = { (char *) "enp3s0", (char *) "altname-iptv", NULL };
                const LinkInfo links[] = {
                        { .name = "iptv0", .kind = "veth", .type = "ether", .mac = &mac },
                        { .name = "lo", .type = "loopback", .loopback = true },
                        { .name = "eth0", .altnames = alts, .type = "ether" },
                        { .name = "x", .kind = NULL, .type = "none" },
                };
                PolicyFile *files[1] = { f };
                Policy p = { .files = files, .n_files = 1 };

                for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
                        KnobValue out[_KNOB_MAX] = {};
                        const PolicyFile *matched[4];
                        size_t n_matched = 0;
                        bool m = policy_match(&f->match, &links[i]);

                        policy_merge(&p, &links[i], out, matched, 4, &n_matched);
                        assert(n_matched == (m ? 1u : 0u));
                        for (Knob k = 0; k < _KNOB_MAX; k++)
                                if (out[k].set)
                                        assert(knob_check_value(k, out[k].value) >= 0);
                        knob_values_clear(out);
                }
        }

        r = knob_settings_parse("/fuzz/runtime.conf", (const char *) data, size, diag, &n_diag, ks);
        assert(r == 0 || r == -ENOMEM);
        if (r == 0)
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        if (ks[k].line > 0)
                                assert(knob_check_value(k, ks[k].value) >= 0);
        return 0;
}
