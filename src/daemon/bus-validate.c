/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pure argument checks for the D-Bus methods (see bus-validate.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bus-validate.h"
#include "ifname.h"
#include "macro.h"

#define SANITIZE_MAX 64

static _printf_(4, 5) int fail(int error, char *msg, size_t size, const char *fmt, ...)
{
        va_list ap;

        if (msg && size > 0) {
                va_start(ap, fmt);
                vsnprintf(msg, size, fmt, ap);
                va_end(ap);
        }
        return error;
}

const char *bus_sanitize(const char *s, char *buf, size_t size)
{
        size_t i = 0, n = 0;

        if (size == 0)
                return buf;
        if (!s)
                s = "";
        for (; s[i] && n + 1 < size && i < SANITIZE_MAX; i++) {
                unsigned char c = (unsigned char) s[i];
                /* Keep UTF-8 bytes (the bus guarantees valid UTF-8), replace ASCII controls. */
                buf[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char) c;
        }
        /* Do not cut a UTF-8 sequence in half. */
        while (n > 0 && s[i] && ((unsigned char) buf[n - 1] & 0xc0) == 0x80)
                n--;
        if (n > 0 && s[i] && ((unsigned char) buf[n - 1] & 0xc0) == 0xc0)
                n--;
        if (s[i] && n + 4 <= size) {
                memcpy(buf + n, "…", 3);
                n += 3;
        }
        buf[n] = '\0';
        return buf;
}

const char *knob_settings_describe(const KnobSetting *set, char *buf, size_t size)
{
        size_t off = 0;

        buf[0] = '\0';
        for (Knob k = 0; k < _KNOB_MAX && off < size; k++) {
                char v[32];
                int n;

                if (set && set[k].line == 0)
                        continue;
                n = snprintf(buf + off, size - off, "%s%s%s%s", off > 0 ? ", " : "", knob_to_string(k),
                             set ? "=" : "", set ? knob_format(k, set[k].value, v) : "");
                if (n < 0)
                        break;
                off += (size_t) n;
        }
        return buf;
}

int knob_args_check(const KnobArg *args, size_t n, const bool supported[_KNOB_MAX],
                    KnobSetting ret[_KNOB_MAX], char *msg, size_t msg_size)
{
        KnobSetting set[_KNOB_MAX] = {};
        char name[SANITIZE_MAX * 4], known[256];

        if (n == 0)
                return fail(-EINVAL, msg, msg_size, "knobs: empty, give at least one knob");
        if (n > KNOB_ARGS_MAX)
                return fail(-E2BIG, msg, msg_size, "knobs: more than %d entries", KNOB_ARGS_MAX);

        for (size_t i = 0; i < n; i++) {
                const KnobArg *a = &args[i];
                Knob k = knob_from_string(a->name);

                if (k < 0)
                        return fail(-EINVAL, msg, msg_size, "knobs: unknown knob '%s' (known: %s)",
                                    bus_sanitize(a->name, name, sizeof name),
                                    knob_settings_describe(NULL, known, sizeof known));
                if (set[k].line > 0)
                        return fail(-ENOTUNIQ, msg, msg_size, "knobs[%s]: given more than once", a->name);
                if (a->type != 'u' && a->type != 'i')
                        return fail(-EINVAL, msg, msg_size,
                                    "knobs[%s]: expected a variant of type 'u' (or 'i'), got '%c'",
                                    a->name, a->type ? a->type : '?');
                if (a->type == 'i' && a->value < 0)
                        return fail(-ERANGE, msg, msg_size,
                                    "knobs[%s]: negative value %" PRIi64 " (valid: %s)", a->name, a->value,
                                    knob_range_string(k));
                if (knob_check_value(k, a->value) < 0)
                        return fail(-ERANGE, msg, msg_size,
                                    "knobs[%s]: value %" PRIi64 " out of range (valid: %s)", a->name,
                                    a->value, knob_range_string(k));
                if (supported && !supported[k])
                        return fail(-EOPNOTSUPP, msg, msg_size,
                                    "knobs[%s]: not supported by this kernel (added by %s)", a->name,
                                    knob_info(k)->patch);
                set[k] = (KnobSetting) { .value = (int32_t) a->value, .line = 1 };
        }

        memcpy(ret, set, sizeof set);
        return 0;
}

int bus_flags_check(const char *field, uint32_t flags, uint32_t allowed, char *msg, size_t msg_size)
{
        if (flags & ~allowed) {
                if (allowed == 0)
                        return fail(-EINVAL, msg, msg_size, "%s: unknown bits 0x%" PRIx32 " (must be 0)",
                                    field, flags);
                return fail(-EINVAL, msg, msg_size, "%s: unknown bits 0x%" PRIx32 " (valid: 0x%" PRIx32 ")",
                            field, flags & ~allowed, allowed);
        }
        return 0;
}

int bus_ifname_check(const char *field, const char *name, char *msg, size_t msg_size)
{
        char buf[SANITIZE_MAX * 4];

        if (isempty(name))
                return fail(-EINVAL, msg, msg_size, "%s: empty interface name", field);
        if (!ifname_valid_alt(name))
                return fail(-EINVAL, msg, msg_size,
                            "%s: '%s' is not a valid interface name (at most 127 characters, "
                            "no '/', ':' or whitespace, not '.' or '..')",
                            field, bus_sanitize(name, buf, sizeof buf));
        return 0;
}

int bus_ifindex_check(const char *field, int32_t ifindex, char *msg, size_t msg_size)
{
        if (ifindex <= 0)
                return fail(-EINVAL, msg, msg_size,
                            "%s: %" PRIi32 " is not a valid interface index (must be > 0)", field, ifindex);
        return 0;
}
