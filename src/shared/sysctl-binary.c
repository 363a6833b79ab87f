/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The former binary sysctl tables and the walk that turns a name vector into a /proc/sys path.
 *
 * The ids come from include/uapi/linux/sysctl.h, the id → procname pairs from
 * kernel/sysctl_binary.c (2.6.33 … 5.4; older kernels had the same pairs in kernel/sysctl.c).
 * Binary ids were never reused, so the tables are the union over releases: entries that later
 * kernels dropped from the binary interface ("no longer used") are kept when their name is known,
 * since the point here is to tell what a program asked for. Subsystems nobody audits for (ax25,
 * decnet, irda, …) are left out; their components stay numeric.
 */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ifname.h"
#include "macro.h"
#include "sysctl-binary.h"

typedef struct BinEntry {
        int id;
        const char *name;
        const struct BinEntry *child; /* non-NULL: a directory of n_child entries */
        size_t n_child;
        bool per_device;              /* matches any positive ifindex, named by the resolver */
} BinEntry;

#define LEAF(i, n) { .id = (i), .name = (n) }
#define DIR(i, n, c) { .id = (i), .name = (n), .child = (c), .n_child = ELEMENTSOF(c) }
#define DEVICES(c) { .per_device = true, .child = (c), .n_child = ELEMENTSOF(c) }

/* kernel/ (CTL_KERN = 1) */
static const BinEntry bin_kern_random[] = {
        LEAF(1, "poolsize"),
        LEAF(2, "entropy_avail"),
        LEAF(3, "read_wakeup_threshold"),
        LEAF(4, "write_wakeup_threshold"),
        LEAF(5, "boot_id"),
        LEAF(6, "uuid"),
};

static const BinEntry bin_kern_pty[] = {
        LEAF(1, "max"),
        LEAF(2, "nr"),
};

static const BinEntry bin_kern[] = {
        LEAF(1, "ostype"),
        LEAF(2, "osrelease"),
        LEAF(4, "version"),
        LEAF(7, "hostname"),
        LEAF(8, "domainname"),
        LEAF(15, "panic"),
        LEAF(16, "real-root-dev"),
        LEAF(21, "reboot-cmd"),
        LEAF(22, "ctrl-alt-del"),
        LEAF(23, "printk"),
        LEAF(27, "powersave-nap"),
        LEAF(28, "modprobe"),
        LEAF(29, "sg-big-buff"),
        LEAF(30, "acct"),
        LEAF(31, "l2cr"),
        LEAF(34, "shmmax"),
        LEAF(35, "msgmax"),
        LEAF(36, "msgmnb"),
        LEAF(38, "sysrq"),
        LEAF(39, "threads-max"),
        DIR(40, "random", bin_kern_random),
        LEAF(41, "shmall"),
        LEAF(42, "msgmni"),
        LEAF(43, "sem"),
        LEAF(44, "stop-a"),
        LEAF(45, "shmmni"),
        LEAF(46, "overflowuid"),
        LEAF(47, "overflowgid"),
        LEAF(49, "hotplug"),
        LEAF(50, "ieee_emulation_warnings"),
        LEAF(51, "userprocess_debug"),
        LEAF(52, "core_uses_pid"),
        LEAF(53, "tainted"),
        LEAF(54, "cad_pid"),
        LEAF(55, "pid_max"),
        LEAF(56, "core_pattern"),
        LEAF(57, "panic_on_oops"),
        LEAF(58, "soft-power"),
        LEAF(59, "unaligned-trap"),
        LEAF(60, "printk_ratelimit"),
        LEAF(61, "printk_ratelimit_burst"),
        DIR(62, "pty", bin_kern_pty),
        LEAF(63, "ngroups_max"),
        LEAF(64, "scons-poweroff"),
        LEAF(65, "hz_timer"),
        LEAF(66, "unknown_nmi_panic"),
        LEAF(67, "bootloader_type"),
        LEAF(68, "randomize_va_space"),
        LEAF(70, "spin_retry"),
        LEAF(71, "acpi_video_flags"),
        LEAF(72, "ignore-unaligned-usertrap"),
        LEAF(73, "compat-log"),
        LEAF(74, "max_lock_depth"),
        LEAF(76, "panic_on_unrecovered_nmi"),
        LEAF(77, "panic_on_warn"),
};

/* vm/ (CTL_VM = 2) */
static const BinEntry bin_vm[] = {
        LEAF(5, "overcommit_memory"),
        LEAF(10, "page-cluster"),
        LEAF(11, "dirty_background_ratio"),
        LEAF(12, "dirty_ratio"),
        LEAF(13, "dirty_writeback_centisecs"),
        LEAF(14, "dirty_expire_centisecs"),
        LEAF(15, "nr_pdflush_threads"),
        LEAF(16, "overcommit_ratio"),
        LEAF(18, "nr_hugepages"),
        LEAF(19, "swappiness"),
        LEAF(20, "lowmem_reserve_ratio"),
        LEAF(21, "min_free_kbytes"),
        LEAF(22, "max_map_count"),
        LEAF(23, "laptop_mode"),
        LEAF(24, "block_dump"),
        LEAF(25, "hugetlb_shm_group"),
        LEAF(26, "vfs_cache_pressure"),
        LEAF(27, "legacy_va_layout"),
        LEAF(29, "drop_caches"),
        LEAF(30, "percpu_pagelist_fraction"),
        LEAF(31, "zone_reclaim_mode"),
        LEAF(32, "min_unmapped_ratio"),
        LEAF(33, "panic_on_oom"),
        LEAF(34, "vdso_enabled"),
        LEAF(35, "min_slab_ratio"),
};

/* net/core/ (NET_CORE = 1) */
static const BinEntry bin_net_core[] = {
        LEAF(1, "wmem_max"),
        LEAF(2, "rmem_max"),
        LEAF(3, "wmem_default"),
        LEAF(4, "rmem_default"),
        LEAF(6, "netdev_max_backlog"),
        LEAF(8, "message_cost"),
        LEAF(9, "message_burst"),
        LEAF(10, "optmem_max"),
        LEAF(17, "dev_weight"),
        LEAF(18, "somaxconn"),
        LEAF(19, "netdev_budget"),
        LEAF(20, "xfrm_aevent_etime"),
        LEAF(21, "xfrm_aevent_rseqth"),
        LEAF(22, "warnings"),
};

/* net/unix/ (NET_UNIX = 4) */
static const BinEntry bin_net_unix[] = {
        LEAF(3, "max_dgram_qlen"),
};

/* net/{ipv4,ipv6}/neigh/<dev>/ */
static const BinEntry bin_net_neigh_vars[] = {
        LEAF(1, "mcast_solicit"),
        LEAF(2, "ucast_solicit"),
        LEAF(3, "app_solicit"),
        LEAF(4, "retrans_time"),
        LEAF(5, "base_reachable_time"),
        LEAF(6, "delay_first_probe_time"),
        LEAF(7, "gc_stale_time"),
        LEAF(8, "unres_qlen"),
        LEAF(9, "proxy_qlen"),
        LEAF(10, "anycast_delay"),
        LEAF(11, "proxy_delay"),
        LEAF(12, "locktime"),
        LEAF(13, "gc_interval"),
        LEAF(14, "gc_thresh1"),
        LEAF(15, "gc_thresh2"),
        LEAF(16, "gc_thresh3"),
        LEAF(17, "retrans_time_ms"),
        LEAF(18, "base_reachable_time_ms"),
};

/* The neigh directory never had an "all" entry in the binary table. */
static const BinEntry bin_net_neigh[] = {
        DIR(SYSCTL_BINARY_CONF_DEFAULT, "default", bin_net_neigh_vars),
        DEVICES(bin_net_neigh_vars),
};

/* net/ipv4/conf/<dev>/ */
static const BinEntry bin_net_ipv4_conf_vars[] = {
        LEAF(1, "forwarding"),
        LEAF(2, "mc_forwarding"),
        LEAF(3, "proxy_arp"),
        LEAF(4, "accept_redirects"),
        LEAF(5, "secure_redirects"),
        LEAF(6, "send_redirects"),
        LEAF(7, "shared_media"),
        LEAF(8, "rp_filter"),
        LEAF(9, "accept_source_route"),
        LEAF(10, "bootp_relay"),
        LEAF(11, "log_martians"),
        LEAF(12, "tag"),
        LEAF(13, "arp_filter"),
        LEAF(14, "medium_id"),
        LEAF(15, "disable_xfrm"),
        LEAF(16, "disable_policy"),
        LEAF(17, "force_igmp_version"),
        LEAF(18, "arp_announce"),
        LEAF(19, "arp_ignore"),
        LEAF(20, "promote_secondaries"),
        LEAF(21, "arp_accept"),
        LEAF(22, "arp_notify"),
};

static const BinEntry bin_net_ipv4_conf[] = {
        DIR(SYSCTL_BINARY_CONF_ALL, "all", bin_net_ipv4_conf_vars),
        DIR(SYSCTL_BINARY_CONF_DEFAULT, "default", bin_net_ipv4_conf_vars),
        DEVICES(bin_net_ipv4_conf_vars),
};

static const BinEntry bin_net_ipv4_route[] = {
        LEAF(1, "flush"),
        LEAF(2, "min_delay"),
        LEAF(3, "max_delay"),
        LEAF(4, "gc_thresh"),
        LEAF(5, "max_size"),
        LEAF(6, "gc_min_interval"),
        LEAF(7, "gc_timeout"),
        LEAF(8, "gc_interval"),
        LEAF(9, "redirect_load"),
        LEAF(10, "redirect_number"),
        LEAF(11, "redirect_silence"),
        LEAF(12, "error_cost"),
        LEAF(13, "error_burst"),
        LEAF(14, "gc_elasticity"),
        LEAF(15, "mtu_expires"),
        LEAF(16, "min_pmtu"),
        LEAF(17, "min_adv_mss"),
        LEAF(19, "gc_min_interval_ms"),
};

static const BinEntry bin_net_ipv4_netfilter[] = {
        LEAF(1, "ip_conntrack_max"),
        LEAF(14, "ip_conntrack_buckets"),
        LEAF(15, "ip_conntrack_log_invalid"),
        LEAF(17, "ip_conntrack_tcp_loose"),
        LEAF(18, "ip_conntrack_tcp_be_liberal"),
        LEAF(19, "ip_conntrack_tcp_max_retrans"),
        LEAF(27, "ip_conntrack_count"),
        LEAF(28, "ip_conntrack_checksum"),
};

/* net/ipv4/ (NET_IPV4 = 5) */
static const BinEntry bin_net_ipv4[] = {
        LEAF(8, "ip_forward"),
        LEAF(9, "ip_dynaddr"),
        DIR(16, "conf", bin_net_ipv4_conf),
        DIR(17, "neigh", bin_net_neigh),
        DIR(18, "route", bin_net_ipv4_route),
        DIR(20, "netfilter", bin_net_ipv4_netfilter),
        LEAF(33, "tcp_timestamps"),
        LEAF(34, "tcp_window_scaling"),
        LEAF(35, "tcp_sack"),
        LEAF(36, "tcp_retrans_collapse"),
        LEAF(37, "ip_default_ttl"),
        LEAF(39, "ip_no_pmtu_disc"),
        LEAF(40, "tcp_syn_retries"),
        LEAF(41, "ipfrag_high_thresh"),
        LEAF(42, "ipfrag_low_thresh"),
        LEAF(43, "ipfrag_time"),
        LEAF(45, "tcp_keepalive_time"),
        LEAF(46, "tcp_keepalive_probes"),
        LEAF(47, "tcp_retries1"),
        LEAF(48, "tcp_retries2"),
        LEAF(49, "tcp_fin_timeout"),
        LEAF(51, "tcp_syncookies"),
        LEAF(52, "tcp_stdurg"),
        LEAF(53, "tcp_rfc1337"),
        LEAF(55, "tcp_max_syn_backlog"),
        LEAF(56, "ip_local_port_range"),
        LEAF(57, "icmp_echo_ignore_all"),
        LEAF(58, "icmp_echo_ignore_broadcasts"),
        LEAF(64, "icmp_ignore_bogus_error_responses"),
        LEAF(65, "igmp_max_memberships"),
        LEAF(66, "tcp_tw_recycle"),
        LEAF(68, "tcp_keepalive_intvl"),
        LEAF(69, "inet_peer_threshold"),
        LEAF(70, "inet_peer_minttl"),
        LEAF(71, "inet_peer_maxttl"),
        LEAF(72, "inet_peer_gc_mintime"),
        LEAF(73, "inet_peer_gc_maxtime"),
        LEAF(74, "tcp_orphan_retries"),
        LEAF(75, "tcp_abort_on_overflow"),
        LEAF(76, "tcp_synack_retries"),
        LEAF(77, "tcp_max_orphans"),
        LEAF(78, "tcp_max_tw_buckets"),
        LEAF(79, "tcp_fack"),
        LEAF(80, "tcp_reordering"),
        LEAF(81, "tcp_ecn"),
        LEAF(82, "tcp_dsack"),
        LEAF(83, "tcp_mem"),
        LEAF(84, "tcp_wmem"),
        LEAF(85, "tcp_rmem"),
        LEAF(86, "tcp_app_win"),
        LEAF(87, "tcp_adv_win_scale"),
        LEAF(88, "ip_nonlocal_bind"),
        LEAF(89, "icmp_ratelimit"),
        LEAF(90, "icmp_ratemask"),
        LEAF(91, "tcp_tw_reuse"),
        LEAF(92, "tcp_frto"),
        LEAF(93, "tcp_low_latency"),
        LEAF(94, "ipfrag_secret_interval"),
        LEAF(96, "igmp_max_msf"),
        LEAF(97, "tcp_no_metrics_save"),
        LEAF(106, "tcp_moderate_rcvbuf"),
        LEAF(107, "tcp_tso_win_divisor"),
        LEAF(109, "icmp_errors_use_inbound_ifaddr"),
        LEAF(110, "tcp_congestion_control"),
        LEAF(111, "tcp_abc"),
        LEAF(113, "tcp_mtu_probing"),
        LEAF(114, "tcp_base_mss"),
        LEAF(115, "tcp_workaround_signed_windows"),
        LEAF(116, "tcp_dma_copybreak"),
        LEAF(117, "tcp_slow_start_after_idle"),
        LEAF(118, "cipso_cache_enable"),
        LEAF(119, "cipso_cache_bucket_size"),
        LEAF(120, "cipso_rbm_optfmt"),
        LEAF(121, "cipso_rbm_strictvalid"),
        LEAF(123, "tcp_allowed_congestion_control"),
        LEAF(124, "tcp_max_ssthresh"),
        LEAF(125, "tcp_frto_response"),
        LEAF(2088, "ip_queue_maxlen"), /* NET_IPQ_QMAX */
};

/* net/ipv6/conf/<dev>/ */
static const BinEntry bin_net_ipv6_conf_vars[] = {
        LEAF(1, "forwarding"),
        LEAF(2, "hop_limit"),
        LEAF(3, "mtu"),
        LEAF(4, "accept_ra"),
        LEAF(5, "accept_redirects"),
        LEAF(6, "autoconf"),
        LEAF(7, "dad_transmits"),
        LEAF(8, "router_solicitations"),
        LEAF(9, "router_solicitation_interval"),
        LEAF(10, "router_solicitation_delay"),
        LEAF(11, "use_tempaddr"),
        LEAF(12, "temp_valid_lft"),
        LEAF(13, "temp_prefered_lft"),
        LEAF(14, "regen_max_retry"),
        LEAF(15, "max_desync_factor"),
        LEAF(16, "max_addresses"),
        LEAF(17, "force_mld_version"),
        LEAF(18, "accept_ra_defrtr"),
        LEAF(19, "accept_ra_pinfo"),
        LEAF(20, "accept_ra_rtr_pref"),
        LEAF(21, "router_probe_interval"),
        LEAF(22, "accept_ra_rt_info_max_plen"),
        LEAF(23, "proxy_ndp"),
        LEAF(25, "accept_source_route"),
        LEAF(26, "accept_ra_from_local"),
};

static const BinEntry bin_net_ipv6_conf[] = {
        DIR(SYSCTL_BINARY_CONF_ALL, "all", bin_net_ipv6_conf_vars),
        DIR(SYSCTL_BINARY_CONF_DEFAULT, "default", bin_net_ipv6_conf_vars),
        DEVICES(bin_net_ipv6_conf_vars),
};

static const BinEntry bin_net_ipv6_route[] = {
        LEAF(1, "flush"),
        LEAF(2, "gc_thresh"),
        LEAF(3, "max_size"),
        LEAF(4, "gc_min_interval"),
        LEAF(5, "gc_timeout"),
        LEAF(6, "gc_interval"),
        LEAF(7, "gc_elasticity"),
        LEAF(8, "mtu_expires"),
        LEAF(9, "min_adv_mss"),
        LEAF(10, "gc_min_interval_ms"),
};

static const BinEntry bin_net_ipv6_icmp[] = {
        LEAF(1, "ratelimit"),
};

/* net/ipv6/ (NET_IPV6 = 12) */
static const BinEntry bin_net_ipv6[] = {
        DIR(16, "conf", bin_net_ipv6_conf),
        DIR(17, "neigh", bin_net_neigh),
        DIR(18, "route", bin_net_ipv6_route),
        DIR(19, "icmp", bin_net_ipv6_icmp),
        LEAF(20, "bindv6only"),
        LEAF(21, "ip6frag_high_thresh"),
        LEAF(22, "ip6frag_low_thresh"),
        LEAF(23, "ip6frag_time"),
        LEAF(24, "ip6frag_secret_interval"),
        LEAF(25, "mld_max_msf"),
        LEAF(2088, "ip6_queue_maxlen"), /* IPQ_QMAX */
};

/* net/netfilter/ (NET_NETFILTER = 19) */
static const BinEntry bin_net_netfilter[] = {
        LEAF(1, "nf_conntrack_max"),
        LEAF(14, "nf_conntrack_buckets"),
        LEAF(15, "nf_conntrack_log_invalid"),
        LEAF(17, "nf_conntrack_tcp_loose"),
        LEAF(18, "nf_conntrack_tcp_be_liberal"),
        LEAF(19, "nf_conntrack_tcp_max_retrans"),
        LEAF(27, "nf_conntrack_count"),
        LEAF(30, "nf_conntrack_frag6_low_thresh"),
        LEAF(31, "nf_conntrack_frag6_high_thresh"),
        LEAF(32, "nf_conntrack_checksum"),
};

/* net/ (CTL_NET = 3) */
static const BinEntry bin_net[] = {
        DIR(1, "core", bin_net_core),
        DIR(4, "unix", bin_net_unix),
        DIR(5, "ipv4", bin_net_ipv4),
        DIR(12, "ipv6", bin_net_ipv6),
        DIR(19, "netfilter", bin_net_netfilter),
        LEAF(2089, "nf_conntrack_max"),
};

/* fs/ (CTL_FS = 5) */
static const BinEntry bin_fs_quota[] = {
        LEAF(1, "lookups"),
        LEAF(2, "drops"),
        LEAF(3, "reads"),
        LEAF(4, "writes"),
        LEAF(5, "cache_hits"),
        LEAF(6, "allocated_dquots"),
        LEAF(7, "free_dquots"),
        LEAF(8, "syncs"),
        LEAF(9, "warnings"),
};

static const BinEntry bin_fs_inotify[] = {
        LEAF(1, "max_user_instances"),
        LEAF(2, "max_user_watches"),
        LEAF(3, "max_queued_events"),
};

static const BinEntry bin_fs_ocfs2_nm[] = {
        LEAF(1, "hb_ctl_path"),
};

static const BinEntry bin_fs_ocfs2[] = {
        DIR(1, "nm", bin_fs_ocfs2_nm),
};

static const BinEntry bin_fs[] = {
        LEAF(1, "inode-nr"),
        LEAF(2, "inode-state"),
        LEAF(6, "file-nr"),
        LEAF(7, "file-max"),
        LEAF(8, "dentry-state"),
        LEAF(11, "overflowuid"),
        LEAF(12, "overflowgid"),
        LEAF(13, "leases-enable"),
        LEAF(14, "dir-notify-enable"),
        LEAF(15, "lease-break-time"),
        DIR(16, "quota", bin_fs_quota),
        LEAF(17, "xfs"), /* a directory, its entries not tabulated here: they stay numeric */
        LEAF(18, "aio-nr"),
        LEAF(19, "aio-max-nr"),
        DIR(20, "inotify", bin_fs_inotify),
        LEAF(69, "suid_dumpable"), /* KERN_SETUID_DUMPABLE, filed under fs/ */
        DIR(988, "ocfs2", bin_fs_ocfs2),
};

/* dev/ (CTL_DEV = 7) */
static const BinEntry bin_dev_raid[] = {
        LEAF(1, "speed_limit_min"),
        LEAF(2, "speed_limit_max"),
};

static const BinEntry bin_dev_mac_hid[] = {
        LEAF(3, "mouse_button_emulation"),
        LEAF(4, "mouse_button2_keycode"),
        LEAF(5, "mouse_button3_keycode"),
};

static const BinEntry bin_dev_scsi[] = {
        LEAF(1, "logging_level"),
};

static const BinEntry bin_dev_ipmi[] = {
        LEAF(1, "poweroff_powercycle"),
};

static const BinEntry bin_dev[] = {
        DIR(4, "raid", bin_dev_raid),
        DIR(5, "mac_hid", bin_dev_mac_hid),
        DIR(6, "scsi", bin_dev_scsi),
        DIR(7, "ipmi", bin_dev_ipmi),
};

static const BinEntry bin_root[] = {
        DIR(1, "kernel", bin_kern),
        DIR(2, "vm", bin_vm),
        DIR(3, "net", bin_net),
        DIR(5, "fs", bin_fs),
        DIR(7, "dev", bin_dev),
};

/* Longest possible result: SYSCTL_BINARY_NAME_MAX components of at most ~40 characters. */
#define PATH_BUF_SIZE 512

/* What a resolver hands back becomes a path component: it must look like a kernel ifname. */
static bool resolved_ifname_ok(const char *buf, size_t size)
{
        if (!memchr(buf, 0, size) || !ifname_valid(buf))
                return false;
        /* Nor any other control character: the path is shown as it is. */
        for (const char *p = buf; *p; p++)
                if ((unsigned char) *p < ' ' || *p == 0x7f)
                        return false;
        return true;
}

int sysctl_binary_to_path(const int *name, size_t n_name, SysctlIfindexResolver resolve, void *userdata,
                          char **ret_path, bool *ret_complete)
{
        const BinEntry *table = bin_root;
        size_t n_table = ELEMENTSOF(bin_root);
        char buf[PATH_BUF_SIZE] = "";
        size_t len = 0;
        bool complete = true;
        char *p;

        assert(ret_path);

        if (!name || n_name == 0)
                return -EINVAL;
        if (n_name > SYSCTL_BINARY_NAME_MAX)
                return -E2BIG;

        for (size_t i = 0; i < n_name; i++) {
                const BinEntry *match = NULL, *wildcard = NULL;
                char ifname[64] = "", num[STRLEN("-2147483648") + 1];
                const char *component = NULL;
                int id = name[i];

                /* Past a leaf or an unknown component (table NULL): nothing left to look up. */
                for (const BinEntry *e = table; e && e < table + n_table && !match; e++)
                        if (e->per_device)
                                wildcard = e;
                        else if (e->id == id)
                                match = e;

                if (match) {
                        component = match->name;
                        table = match->child;
                        n_table = match->n_child;
                } else if (wildcard && id > 0) {
                        /* The kernel looked the ifindex up in the caller's netns at call time; the
                         * best we can do is ask about it now. */
                        if (resolve && resolve(id, ifname, sizeof(ifname), userdata) >= 0 &&
                            resolved_ifname_ok(ifname, sizeof(ifname)))
                                component = ifname;
                        table = wildcard->child;
                        n_table = wildcard->n_child;
                } else
                        table = NULL;
                if (!component) {
                        complete = false;
                        snprintf(num, sizeof(num), "%d", id);
                        component = num;
                }
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%s%s", len > 0 ? "/" : "", component);
                if (len >= sizeof(buf))
                        return -ENAMETOOLONG;
        }

        p = strdup(buf);
        if (!p)
                return -ENOMEM;

        *ret_path = p;
        if (ret_complete)
                *ret_complete = complete;
        return 0;
}

int sysctl_binary_format_name(const int *name, size_t n_name, char **ret)
{
        char buf[SYSCTL_BINARY_NAME_MAX * (STRLEN("-2147483648") + 1) + 1] = "";
        size_t len = 0;
        char *p;

        assert(ret);

        if (!name && n_name > 0)
                return -EINVAL;
        if (n_name > SYSCTL_BINARY_NAME_MAX)
                return -E2BIG;

        for (size_t i = 0; i < n_name; i++)
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%d.", name[i]);

        p = strdup(buf);
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}
