/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Translation of binary sysctl(2) names (the int vectors of struct __sysctl_args) to paths under
 * /proc/sys, from the kernel's former binary tables (include/uapi/linux/sysctl.h and
 * kernel/sysctl_binary.c, Linux ≤ 5.4). Pure: the only outside knowledge, ifindex → interface
 * name, comes from a caller-provided callback.
 *
 * The per-link IGMP/MLD report-interval knobs never had binary ids; force_igmp_version and
 * force_mld_version did (net.ipv4.conf.X.17, net.ipv6.conf.X.17).
 */

#include <stdbool.h>
#include <stddef.h>

/* CTL_MAXNAME: the kernel rejected longer names with ENOTDIR. */
#define SYSCTL_BINARY_NAME_MAX 10

/* What igmpd's D-Bus API (the path of DeprecatedSysctl and ListEvents) appends to a path that
 * was translated only in part ("/proc/sys/kernel/osrelease/3 (partly translated)"): such a path
 * names no file, and a reader must be able to tell, with the signature unchanged. A translated
 * path never contains a space (its components are the tables' names, numbers and interface
 * names), so the mark cannot be part of a real path. */
#define SYSCTL_PATH_PARTIAL_MARK " (partly translated)"

/* Device ids in the conf and neigh directories besides positive ifindexes (NET_PROTO_CONF_*). */
#define SYSCTL_BINARY_CONF_ALL -2
#define SYSCTL_BINARY_CONF_DEFAULT -3

/*
 * Resolves an ifindex to the interface name, written NUL-terminated into buf (len bytes).
 * Returns ≥ 0 on success, a negative errno when the ifindex is unknown.
 */
typedef int (*SysctlIfindexResolver)(int ifindex, char *buf, size_t len, void *userdata);

/*
 * Translates name[0..n_name) to the path relative to /proc/sys, e.g. {3,5,16,-2,17} →
 * "net/ipv4/conf/all/force_igmp_version". Every component is translated; a component the tables
 * do not know, an ifindex the resolver cannot name (resolve may be NULL), and any component after a
 * leaf stay numeric ("net/ipv4/999") and make *ret_complete false. A vector that ends on a
 * directory ("net/ipv4") is complete: every component was known.
 *
 * Returns 0, -EINVAL for an empty vector, -E2BIG for more than SYSCTL_BINARY_NAME_MAX components,
 * -ENOMEM. *ret_path is a newly allocated string; ret_complete may be NULL. Both are untouched
 * on failure.
 */
int sysctl_binary_to_path(const int *name, size_t n_name, SysctlIfindexResolver resolve, void *userdata,
                          char **ret_path, bool *ret_complete);

/*
 * Formats a name the way the kernel's deprecation warning printed it: "3.5.16.-2.17." (every
 * component followed by a dot; "" for an empty vector). Returns 0, -E2BIG, -ENOMEM.
 */
int sysctl_binary_format_name(const int *name, size_t n_name, char **ret);
