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
        const char *rest, *slash;
        KnobFamily family;
        DriftWrite w = {};
        size_t n;

        if (!data || size < sizeof r)
                return -EBADMSG;
        memcpy(&r, data, sizeof r);
        if (r.type != DRIFT_RECORD_WRITE)
                return -EBADMSG;
        if (r.name_len < 0 || (size_t) r.name_len >= sizeof r.name || !memchr(r.name, '\0', sizeof r.name))
                return -ENOENT; /* truncated (-E2BIG): longer than any of ours */

        if ((rest = startswith(r.name, "net/ipv4/")))
                family = KNOB_FAMILY_IPV4;
        else if ((rest = startswith(r.name, "net/ipv6/")))
                family = KNOB_FAMILY_IPV6;
        else
                return -ENOENT;
        w.ns_knob = ns_knob_from_string(rest);
        if (w.ns_knob >= 0) {
                if (ns_knob_info(w.ns_knob)->family != family)
                        return -ENOENT;
                w.knob = _KNOB_INVALID;
                w.scope = DRIFT_SCOPE_NAMESPACE;
                goto writer;
        }
        rest = startswith(rest, "conf/");
        slash = rest ? strchr(rest, '/') : NULL;
        if (!slash)
                return -ENOENT;
        n = (size_t) (slash - rest);
        if (n == 0 || n >= sizeof w.ifname)
                return -ENOENT;
        memcpy(w.ifname, rest, n);
        w.ifname[n] = '\0';
        if (!ifname_valid(w.ifname))
                return -ENOENT;
        w.scope = streq(w.ifname, "all") ? DRIFT_SCOPE_ALL :
                  streq(w.ifname, "default") ? DRIFT_SCOPE_DEFAULT : DRIFT_SCOPE_LINK;
        w.knob = knob_from_string(slash + 1);
        if (w.knob < 0 || knob_info(w.knob)->family != family)
                return -ENOENT;

writer:
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
