/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The kernel structures igmpd's BPF programs read, declared with only the members used and
 * marked preserve_access_index: clang records each access as a CO-RE relocation and libbpf
 * resolves it against the running kernel's BTF (/sys/kernel/btf/vmlinux) at load time, so no
 * vmlinux.h of the build machine's kernel is needed and the objects work across kernel
 * versions. A type named foo___suffix matches the kernel's foo (libbpf's "flavour" rule); it
 * keeps these apart from the UAPI types of the same name.
 *
 * And what every object has: its license and the ring buffer it reports through. BPF side only,
 * included once by each object.
 */

#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* The loader sets the size (a power of two, in bytes) before loading. */
struct {
        __uint(type, BPF_MAP_TYPE_RINGBUF);
        __uint(max_entries, 1 << 20);
} events SEC(".maps");

#define CORE __attribute__((preserve_access_index))

struct ns_common___igmpd {
        unsigned int inum; /* reused as soon as the namespace is gone */
        __u64 ns_id;       /* never reused (Linux ≥ 6.18; older kernels: mnt_namespace.seq) */
} CORE;

struct user_namespace___igmpd {
        int level; /* 0: the initial user namespace */
} CORE;

struct cred___igmpd {
        struct user_namespace___igmpd *user_ns;
} CORE;

struct mnt_namespace___igmpd {
        struct ns_common___igmpd ns;
        __u64 seq; /* never reused; became ns.ns_id */
        struct user_namespace___igmpd *user_ns; /* the owner */
} CORE;

struct net___igmpd {
        struct ns_common___igmpd ns;
} CORE;

struct nsproxy___igmpd {
        struct mnt_namespace___igmpd *mnt_ns;
        struct net___igmpd *net_ns;
} CORE;

struct super_block___igmpd {
        __u32 s_dev; /* dev_t, kernel encoding: major << 20 | minor */
} CORE;

struct inode___igmpd {
        unsigned long i_ino;
        struct super_block___igmpd *i_sb;
} CORE;

struct qstr___igmpd {
        const unsigned char *name;
} CORE;

struct dentry___igmpd {
        struct dentry___igmpd *d_parent;
        struct qstr___igmpd d_name;
        struct inode___igmpd *d_inode;
} CORE;

struct vfsmount___igmpd {
        struct dentry___igmpd *mnt_root;
} CORE;

/* fs/mount.h: struct vfsmount is embedded in struct mount. */
struct mount___igmpd {
        struct mount___igmpd *mnt_parent;
        struct dentry___igmpd *mnt_mountpoint;
        struct vfsmount___igmpd mnt;
} CORE;

struct path___igmpd {
        struct vfsmount___igmpd *mnt;
        struct dentry___igmpd *dentry;
} CORE;

struct fs_struct___igmpd {
        struct path___igmpd root;
} CORE;

struct file___igmpd {
        struct path___igmpd f_path;
} CORE;

struct mm_struct___igmpd {
        struct file___igmpd *exe_file;
} CORE;

/* x86: thread_info is the first member of task_struct; status holds TS_COMPAT. */
struct thread_info___igmpd {
        __u32 status;
} CORE;

struct task_struct___igmpd {
        struct thread_info___igmpd thread_info;
        struct mm_struct___igmpd *mm;
        struct nsproxy___igmpd *nsproxy;
        struct fs_struct___igmpd *fs;
        const struct cred___igmpd *cred;
} CORE;

/* The kernel's struct pt_regs (x86_64 names), as handed to the sys_enter tracepoint. */
struct pt_regs___igmpd {
        unsigned long bx;
        unsigned long di;
} CORE;

#define TS_COMPAT 0x0002 /* arch/x86/include/asm/thread_info.h: 32-bit system call active */

#undef CORE
