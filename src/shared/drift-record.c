/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Drift watch records → DriftWrite.
 */

#include <errno.h>
#include <string.h>

#include "drift-record.h"
#include "ifname.h"
#include "macro.h"
#include "sysctl-util.h"

/* A value field: len is the helper's result, the bytes it copied or -errno. */
static bool parse_field(const char *buf, size_t size, int32_t len, int32_t *ret)
{
        if (len < 0 || (size_t) len >= size)
                return false;
        return sysctl_parse_int(buf, (size_t) len, ret) >= 0;
}

int drift_record_parse(const void *data, size_t size, DriftWrite *ret)
{
        struct drift_record r;
        const char *rest, *slash, *ifname;
        DriftWrite w = {};
        size_t n;

        if (!data || size < sizeof r)
                return -EBADMSG;
        memcpy(&r, data, sizeof r);
        if (r.type != DRIFT_RECORD_WRITE)
                return -EBADMSG;
        if (r.name_len < 0 || (size_t) r.name_len >= sizeof r.name || !memchr(r.name, '\0', sizeof r.name))
                return -ENOENT; /* truncated (-E2BIG): longer than any of ours */

        w.knob = knob_from_sysctl_path(r.name, &ifname, &n);
        if (w.knob >= 0) {
                if (n >= sizeof w.ifname)
                        return -ENOENT;
                memcpy(w.ifname, ifname, n);
                w.ifname[n] = '\0';
                if (!ifname_valid(w.ifname))
                        return -ENOENT;
                w.ns_knob = _NS_KNOB_INVALID;
                w.scope = streq(w.ifname, "all") ? DRIFT_SCOPE_ALL :
                          streq(w.ifname, "default") ? DRIFT_SCOPE_DEFAULT : DRIFT_SCOPE_LINK;
        } else {
                /* A namespace knob: "net/ipv4/igmp_qrv". */
                rest = startswith(r.name, "net/");
                slash = rest ? strchr(rest, '/') : NULL;
                w.ns_knob = slash ? ns_knob_from_string(slash + 1) : _NS_KNOB_INVALID;
                if (w.ns_knob < 0 || (size_t) (slash - rest) != STRLEN("ipv4") ||
                    !startswith(rest, knob_family_dir(ns_knob_info(w.ns_knob)->family)))
                        return -ENOENT;
                w.scope = DRIFT_SCOPE_NAMESPACE;
        }
        w.pid = r.tgid;
        w.uid = r.uid;
        w.netns = r.netns;
        n = strnlen(r.comm, sizeof r.comm);
        memcpy(w.comm, r.comm, n);
        w.comm[n] = '\0';
        w.old_known = parse_field(r.old_value, sizeof r.old_value, r.old_len, &w.old_value);
        w.new_known = parse_field(r.new_value, sizeof r.new_value, r.new_len, &w.new_value);

        *ret = w;
        return 0;
}
