/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What an ELF file has to do with the binary sysctl(2) (pure, over elf-util.h):
 *
 * - as a libc: does it define sysctl, and is that the compat stub (glibc ≥ 2.32:
 *   sysctl@GLIBC_2.2.5 is a non-default version that answers ENOSYS without entering the
 *   kernel; the libc audit source probes it) or a default version that makes the system call
 *   (older glibc: the syscall source sees those calls)?
 * - as a caller:
 *   import   an undefined dynamic symbol sysctl or __sysctl, any version: the program calls
 *            libc's sysctl() (certain);
 *   static   a defined sysctl or __sysctl in the static symbol table of a program that is not
 *            a libc: linked statically against a libc that has it (certain, unless stripped);
 *   syscall  x86_64: "mov $156,%eax" (or %rax) followed within 16 bytes by "syscall"; i386:
 *            "mov $149,%eax" followed by "int $0x80" or "call *%gs:0x10" (the raw system call,
 *            as old static glibc and hand-written callers make it);
 *   syscall() x86_64: "mov $156,%edi" followed within 128 bytes by a call of libc's syscall()
 *            — through its PLT stub or GOT slot (found from the relocations), or its address
 *            in the static symbol table.
 *   The byte patterns are a heuristic: a number computed at run time, another register, or a
 *   stripped static binary calling syscall() is missed; bytes that only look like these
 *   instructions (inside other instructions or data in a code segment) are a false positive.
 */

#include <stdbool.h>
#include <stdint.h>

#include "elf-util.h"

#define ELF_SYSCTL_NR_X86_64 156
#define ELF_SYSCTL_NR_I386 149

typedef struct ElfSysctlInfo {
        /* A libc */
        bool defines_compat;       /* a non-default sysctl@VERSION (ENOSYS stub, glibc ≥ 2.32) */
        bool defines_default;      /* sysctl@@VERSION or unversioned: enters the kernel */
        char defined_version[32];

        /* A caller */
        bool imports;
        char import_symbol[16];    /* "sysctl" or "__sysctl" */
        char import_version[32];   /* "" without version */
        bool static_symbol;
        bool raw_syscall;
        uint64_t raw_offset;       /* file offset of the "mov" */
        bool via_syscall_function;
        uint64_t via_offset;
} ElfSysctlInfo;

/* Whether the last component of path names a libc: libc.so* or libc-2.* (glibc). */
bool elf_libc_name(const char *path);

/* 0 (info filled; all false: nothing to do with sysctl) or -EBADMSG. */
int elf_sysctl_inspect(const ElfView *v, ElfSysctlInfo *ret);

/* Whether the file is a libc whose sysctl is the x86_64 compat stub the libc source probes
 * (sysctl@GLIBC_2.2.5, non-default, in an x86_64 ELF): 1 with *ret_offset set, 0 if not,
 * -EBADMSG. */
int elf_sysctl_compat_offset(const ElfView *v, uint64_t *ret_offset);
