/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for sysctl-binary.c: name vectors of the old binary sysctl(2) interface translated
 * to /proc/sys paths, with a fake ifindex resolver.
 */

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "macro.h"
#include "sysctl-binary.h"

static int fake_resolve(int ifindex, char *buf, size_t len, void *userdata)
{
        int *calls = userdata;
        const char *name;

        if (calls)
                (*calls)++;

        switch (ifindex) {
        case 2:
                name = "eth0";
                break;
        case 7:
                name = "iptv0";
                break;
        case 8:
                name = "enp3s0.100";
                break;
        default:
                return -ENODEV;
        }
        if (strlen(name) >= len)
                return -ENOBUFS;
        strcpy(buf, name);
        return 0;
}

/* Hands back names no kernel would have: they must never become path components. */
static int bad_resolve(int ifindex, char *buf, size_t len, _unused_ void *userdata)
{
        static const char *const names[] = {
                [1] = "",
                [2] = "a/b",
                [3] = "..",
                [4] = ".",
                [5] = "sixteen-chars-xx",
                [6] = "has space",
                [7] = "col:on",
        };

        if (ifindex == 9) {
                memset(buf, 'x', len); /* no NUL at all */
                return 0;
        }
        if (ifindex < 1 || ifindex >= (int) ELEMENTSOF(names))
                return -ENODEV;
        strcpy(buf, names[ifindex]);
        return 0;
}

#define NAME(...) ((const int[]) { __VA_ARGS__ }), ELEMENTSOF(((const int[]) { __VA_ARGS__ }))

static const struct {
        const int *name;
        size_t n;
        const char *path;
        bool complete;
} cases[] = {
        /* The examples the audit feature must get right. */
        { NAME(3, 5, 16, -2, 17), "net/ipv4/conf/all/force_igmp_version", true },
        { NAME(3, 5, 16, -3, 17), "net/ipv4/conf/default/force_igmp_version", true },
        { NAME(3, 5, 16, 2, 17), "net/ipv4/conf/eth0/force_igmp_version", true },
        { NAME(3, 5, 16, 8, 17), "net/ipv4/conf/enp3s0.100/force_igmp_version", true },
        { NAME(3, 12, 16, -2, 17), "net/ipv6/conf/all/force_mld_version", true },
        { NAME(3, 12, 16, 7, 17), "net/ipv6/conf/iptv0/force_mld_version", true },
        { NAME(3, 12, 16, -3, 4), "net/ipv6/conf/default/accept_ra", true },
        { NAME(3, 12, 16, -2, 26), "net/ipv6/conf/all/accept_ra_from_local", true },
        { NAME(1, 4), "kernel/version", true },
        { NAME(1, 1), "kernel/ostype", true },
        { NAME(1, 2), "kernel/osrelease", true },
        { NAME(1, 7), "kernel/hostname", true },
        { NAME(1, 40, 6), "kernel/random/uuid", true },
        { NAME(1, 40, 5), "kernel/random/boot_id", true },
        { NAME(1, 62, 1), "kernel/pty/max", true },
        { NAME(1, 55), "kernel/pid_max", true },
        { NAME(1, 77), "kernel/panic_on_warn", true },

        /* vm */
        { NAME(2, 5), "vm/overcommit_memory", true },
        { NAME(2, 19), "vm/swappiness", true },
        { NAME(2, 29), "vm/drop_caches", true },
        { NAME(2, 35), "vm/min_slab_ratio", true },

        /* fs */
        { NAME(5, 7), "fs/file-max", true },
        { NAME(5, 20, 2), "fs/inotify/max_user_watches", true },
        { NAME(5, 16, 1), "fs/quota/lookups", true },
        { NAME(5, 69), "fs/suid_dumpable", true },
        { NAME(5, 19), "fs/aio-max-nr", true },
        { NAME(5, 988, 1, 1), "fs/ocfs2/nm/hb_ctl_path", true },
        { NAME(5, 17, 1), "fs/xfs/1", false },

        /* net */
        { NAME(3, 1, 18), "net/core/somaxconn", true },
        { NAME(3, 1, 6), "net/core/netdev_max_backlog", true },
        { NAME(3, 4, 3), "net/unix/max_dgram_qlen", true },
        { NAME(3, 5, 8), "net/ipv4/ip_forward", true },
        { NAME(3, 5, 56), "net/ipv4/ip_local_port_range", true },
        { NAME(3, 5, 65), "net/ipv4/igmp_max_memberships", true },
        { NAME(3, 5, 96), "net/ipv4/igmp_max_msf", true },
        { NAME(3, 5, 110), "net/ipv4/tcp_congestion_control", true },
        { NAME(3, 5, 2088), "net/ipv4/ip_queue_maxlen", true },
        { NAME(3, 5, 18, 1), "net/ipv4/route/flush", true },
        { NAME(3, 5, 20, 1), "net/ipv4/netfilter/ip_conntrack_max", true },
        { NAME(3, 5, 17, -3, 13), "net/ipv4/neigh/default/gc_interval", true },
        { NAME(3, 5, 17, 2, 17), "net/ipv4/neigh/eth0/retrans_time_ms", true },
        { NAME(3, 12, 17, -3, 5), "net/ipv6/neigh/default/base_reachable_time", true },
        { NAME(3, 12, 18, 10), "net/ipv6/route/gc_min_interval_ms", true },
        { NAME(3, 12, 19, 1), "net/ipv6/icmp/ratelimit", true },
        { NAME(3, 12, 20), "net/ipv6/bindv6only", true },
        { NAME(3, 12, 25), "net/ipv6/mld_max_msf", true },
        { NAME(3, 19, 1), "net/netfilter/nf_conntrack_max", true },
        { NAME(3, 2089), "net/nf_conntrack_max", true },

        /* dev */
        { NAME(7, 4, 1), "dev/raid/speed_limit_min", true },
        { NAME(7, 6, 1), "dev/scsi/logging_level", true },

        /* A directory: every component known, but nothing to read. */
        { NAME(3, 5), "net/ipv4", true },
        { NAME(3), "net", true },

        /* Unknown components stay numeric. */
        { NAME(3, 5, 999), "net/ipv4/999", false },
        { NAME(42), "42", false },
        { NAME(42, 1, 2), "42/1/2", false },
        { NAME(0), "0", false },
        { NAME(-1), "-1", false },
        { NAME(INT_MIN), "-2147483648", false },
        { NAME(INT_MAX, 1), "2147483647/1", false },
        { NAME(3, 5, 16, 9, 17), "net/ipv4/conf/9/force_igmp_version", false },   /* unresolved ifindex */
        { NAME(3, 5, 16, -7, 17), "net/ipv4/conf/-7/17", false },                 /* not a device id */
        { NAME(3, 5, 16, 0, 17), "net/ipv4/conf/0/17", false },
        { NAME(3, 5, 16, -2, 99), "net/ipv4/conf/all/99", false },
        { NAME(3, 5, 17, -2, 13), "net/ipv4/neigh/-2/13", false },                /* neigh has no "all" */
        /* The IGMP/MLD interval knobs never had binary ids: nothing past 22 in conf. */
        { NAME(3, 5, 16, -2, 23), "net/ipv4/conf/all/23", false },
        { NAME(3, 12, 16, -2, 24), "net/ipv6/conf/all/24", false },
        /* Past a leaf. */
        { NAME(1, 4, 99), "kernel/version/99", false },
        { NAME(3, 5, 16, -2, 17, 1, 2, 3, 4, 5), "net/ipv4/conf/all/force_igmp_version/1/2/3/4/5", false },
};

Test(sysctl_binary, table)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *path = NULL;
                bool complete = !cases[i].complete;
                int r;

                r = sysctl_binary_to_path(cases[i].name, cases[i].n, fake_resolve, NULL, &path, &complete);
                cr_assert_eq(r, 0, "case %zu (%s): r=%d", i, cases[i].path, r);
                cr_expect_str_eq(path, cases[i].path, "case %zu", i);
                cr_expect_eq(complete, cases[i].complete,
                             "case %zu (%s): complete=%d", i, cases[i].path, complete);
                free(path);
        }
}

Test(sysctl_binary, no_resolver)
{
        char *path = NULL;
        bool complete = true;

        cr_assert_eq(sysctl_binary_to_path(NAME(3, 5, 16, 2, 17), NULL, NULL, &path, &complete), 0);
        cr_expect_str_eq(path, "net/ipv4/conf/2/force_igmp_version");
        cr_expect_not(complete);
        free(path);

        /* all/default need no resolver. */
        cr_assert_eq(sysctl_binary_to_path(NAME(3, 5, 16, -2, 17), NULL, NULL, &path, &complete), 0);
        cr_expect_str_eq(path, "net/ipv4/conf/all/force_igmp_version");
        cr_expect(complete);
        free(path);
}

Test(sysctl_binary, resolver_only_for_positive_ifindex)
{
        char *path = NULL;
        int calls = 0;

        cr_assert_eq(sysctl_binary_to_path(NAME(3, 5, 16, -2, 17), fake_resolve, &calls, &path, NULL), 0);
        free(path);
        cr_assert_eq(sysctl_binary_to_path(NAME(3, 5, 16, -5, 17), fake_resolve, &calls, &path, NULL), 0);
        free(path);
        cr_assert_eq(sysctl_binary_to_path(NAME(3, 5, 16, 0, 17), fake_resolve, &calls, &path, NULL), 0);
        free(path);
        cr_expect_eq(calls, 0);

        cr_assert_eq(sysctl_binary_to_path(NAME(3, 5, 16, 7, 17), fake_resolve, &calls, &path, NULL), 0);
        cr_expect_str_eq(path, "net/ipv4/conf/iptv0/force_igmp_version");
        free(path);
        cr_expect_eq(calls, 1);

        /* Ids elsewhere are never ifindexes. */
        cr_assert_eq(sysctl_binary_to_path(NAME(3, 5, 8, 2), fake_resolve, &calls, &path, NULL), 0);
        cr_expect_str_eq(path, "net/ipv4/ip_forward/2");
        free(path);
        cr_expect_eq(calls, 1);
}

Test(sysctl_binary, bad_resolver_names_stay_numeric)
{
        for (int ifindex = 1; ifindex <= 9; ifindex++) {
                char *path = NULL, want[64];
                bool complete = true;

                cr_assert_eq(sysctl_binary_to_path(NAME(3, 12, 16, ifindex, 17), bad_resolve, NULL,
                                                   &path, &complete), 0);
                snprintf(want, sizeof(want), "net/ipv6/conf/%d/force_mld_version", ifindex);
                cr_expect_str_eq(path, want, "ifindex %d", ifindex);
                cr_expect_not(complete, "ifindex %d", ifindex);
                free(path);
        }
}

Test(sysctl_binary, errors_leave_outputs_alone)
{
        static const int eleven[] = { 3, 5, 16, -2, 17, 1, 2, 3, 4, 5, 6 };
        char *sentinel = (char *) "untouched", *path = sentinel;
        bool complete = true;

        cr_expect_eq(sysctl_binary_to_path(eleven, 0, fake_resolve, NULL, &path, &complete), -EINVAL);
        cr_expect_eq(sysctl_binary_to_path(NULL, 3, fake_resolve, NULL, &path, &complete), -EINVAL);
        cr_expect_eq(sysctl_binary_to_path(eleven, ELEMENTSOF(eleven), fake_resolve, NULL, &path, &complete),
                     -E2BIG);
        cr_expect_eq(sysctl_binary_to_path(eleven, SIZE_MAX, fake_resolve, NULL, &path, &complete), -E2BIG);
        cr_expect_eq(path, sentinel);
        cr_expect(complete);

        /* SYSCTL_BINARY_NAME_MAX itself is fine. */
        cr_expect_eq(sysctl_binary_to_path(eleven, SYSCTL_BINARY_NAME_MAX, fake_resolve, NULL,
                                           &path, &complete), 0);
        cr_expect_str_eq(path, "net/ipv4/conf/all/force_igmp_version/1/2/3/4/5");
        free(path);
}

Test(sysctl_binary, longest_unknown_vector_fits)
{
        int name[SYSCTL_BINARY_NAME_MAX];
        char *path = NULL;
        bool complete = true;

        for (size_t i = 0; i < ELEMENTSOF(name); i++)
                name[i] = INT_MIN;
        cr_assert_eq(sysctl_binary_to_path(name, ELEMENTSOF(name), fake_resolve, NULL, &path, &complete), 0);
        cr_expect_eq(strlen(path), 10 * STRLEN("-2147483648") + 9);
        cr_expect_not(complete);
        free(path);
}

Test(sysctl_binary, format_name)
{
        const struct {
                const int *name;
                size_t n;
                const char *want;
        } fmt[] = {
                { NAME(3, 5, 16, -2, 17), "3.5.16.-2.17." },
                { NAME(1, 4), "1.4." },
                { NAME(INT_MIN, INT_MAX), "-2147483648.2147483647." },
                { NAME(INT_MIN, INT_MIN, INT_MIN, INT_MIN, INT_MIN,
                       INT_MIN, INT_MIN, INT_MIN, INT_MIN, INT_MIN),
                  "-2147483648.-2147483648.-2147483648.-2147483648.-2147483648."
                  "-2147483648.-2147483648.-2147483648.-2147483648.-2147483648." },
        };

        for (size_t i = 0; i < ELEMENTSOF(fmt); i++) {
                char *s = NULL;

                cr_assert_eq(sysctl_binary_format_name(fmt[i].name, fmt[i].n, &s), 0, "case %zu", i);
                cr_expect_str_eq(s, fmt[i].want, "case %zu", i);
                free(s);
        }

        char *s = NULL;
        cr_assert_eq(sysctl_binary_format_name(NULL, 0, &s), 0);
        cr_expect_str_eq(s, "");
        free(s);

        static const int eleven[11] = {};
        s = (char *) "untouched";
        cr_expect_eq(sysctl_binary_format_name(eleven, 11, &s), -E2BIG);
        cr_expect_str_eq(s, "untouched");
}
