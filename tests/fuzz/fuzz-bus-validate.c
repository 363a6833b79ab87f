/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the D-Bus argument checks (bus-validate.h) on decoded arguments made from
 * the input: a knob dictionary (name, type code, value) of up to 8 entries, flags, an ifindex,
 * an interface name, and bus_sanitize() into buffers of every small size. Invariants: accepted
 * knobs are in range; an accepted interface name is safe as one path component; messages are
 * NUL-terminated within their buffer.
 */

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus-validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Reader {
        const uint8_t *p;
        size_t left;
} Reader;

static uint8_t take_u8(Reader *r)
{
        if (r->left == 0)
                return 0;
        r->left--;
        return *r->p++;
}

static int64_t take_i64(Reader *r)
{
        uint64_t v = 0;

        for (int i = 0; i < 8; i++)
                v = (v << 8) | take_u8(r);
        return (int64_t) v;
}

/* A NUL-terminated string of length given by the next byte. */
static char *take_str(Reader *r)
{
        size_t n = take_u8(r);
        char *s;

        if (n > r->left)
                n = r->left;
        s = strndup((const char *) r->p, n);
        r->p += n;
        r->left -= n;
        return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char *const known[] = {
                "igmpv2_unsolicited_report_interval", "igmpv3_unsolicited_report_interval",
                "force_igmp_version", "mldv1_unsolicited_report_interval",
                "mldv2_unsolicited_report_interval", "force_mld_version",
        };
        Reader rd = { data, size };
        KnobArg args[8];
        char *names[8] = {};
        KnobSetting ks[_KNOB_MAX];
        bool supported[_KNOB_MAX];
        char msg[256];
        size_t n;
        int r;

        if (size > 4096)
                return 0;

        n = take_u8(&rd) % 9;
        for (size_t i = 0; i < n; i++) {
                uint8_t sel = take_u8(&rd);
                if (sel < 200)
                        names[i] = strdup(known[sel % 6]);
                else
                        names[i] = take_str(&rd);
                args[i] = (KnobArg) { .name = names[i] ? names[i] : "", .type = (char) take_u8(&rd),
                                      .value = take_i64(&rd) };
                if (sel < 100)
                        args[i].type = sel & 1 ? 'u' : 'i';
        }
        uint8_t sup = take_u8(&rd);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                supported[k] = !(sup & (1u << k));

        memset(msg, 'x', sizeof msg);
        r = knob_args_check(args, n, (sup & 0x80) ? NULL : supported, ks, msg, sizeof msg);
        if (r == 0) {
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        if (ks[k].line > 0)
                                assert(knob_check_value(k, ks[k].value) >= 0);
        } else {
                assert(r == -EINVAL || r == -ERANGE || r == -E2BIG || r == -ENOTUNIQ || r == -EOPNOTSUPP);
                assert(memchr(msg, '\0', sizeof msg));
        }
        for (size_t i = 0; i < n; i++)
                free(names[i]);

        uint32_t flags = (uint32_t) take_i64(&rd);
        r = bus_flags_check("flags", flags, BUS_KNOBS_FLAGS_ALL, msg, sizeof msg);
        assert((r == 0) == ((flags & ~BUS_KNOBS_FLAGS_ALL) == 0));

        int32_t ifindex = (int32_t) take_i64(&rd);
        assert((bus_ifindex_check("ifindex", ifindex, msg, sizeof msg) == 0) == (ifindex > 0));

        /* the rest is an interface name */
        char *name = strndup((const char *) rd.p, rd.left);
        if (name) {
                if (bus_ifname_check("name", name, msg, sizeof msg) == 0) {
                        assert(name[0] != '\0');
                        assert(!strchr(name, '/'));
                        assert(strcmp(name, ".") != 0 && strcmp(name, "..") != 0);
                        assert(strlen(name) < 128);
                }
                for (size_t sz = 0; sz < 12; sz++) {
                        char buf[12];
                        memset(buf, 'y', sizeof buf);
                        bus_sanitize(name, buf, sz);
                        if (sz > 0)
                                assert(memchr(buf, '\0', sz));
                }
                char big[256];
                bus_sanitize(name, big, sizeof big);
                for (const char *p = big; *p; p++)
                        assert((unsigned char) *p >= 0x20 && *p != 0x7f);
                free(name);
        }
        return 0;
}
