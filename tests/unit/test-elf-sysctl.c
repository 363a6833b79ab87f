/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ELF reader (elf-util.c) and what it finds about sysctl(2) (elf-sysctl.c), on real files
 * — this system's libc, test programs built for the purpose (tests/helpers: a legacy
 * sysctl@GLIBC_2.2.5 caller, syscall(156) callers dynamic and static, a raw system call) — and
 * on damaged copies of them: truncated at every length class, with corrupted headers and
 * random bytes. Nothing may crash or read outside the buffer (run under ASan).
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-sysctl.h"
#include "macro.h"

static const char *helpers_dir(void)
{
        const char *d = getenv("HELPERS");
        cr_assert_not_null(d, "$HELPERS (tests/helpers in the build directory) is not set");
        return d;
}

static uint8_t *read_all(const char *path, size_t *ret_size)
{
        struct stat st;
        uint8_t *buf;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return NULL;
        cr_assert_eq(fstat(fd, &st), 0);
        buf = malloc((size_t) st.st_size);
        cr_assert_not_null(buf);
        cr_assert_eq(pread(fd, buf, (size_t) st.st_size, 0), st.st_size);
        close(fd);
        *ret_size = (size_t) st.st_size;
        return buf;
}

static uint8_t *read_helper(const char *name, size_t *ret_size)
{
        char path[4096];
        uint8_t *b;

        snprintf(path, sizeof path, "%s/%s", helpers_dir(), name);
        b = read_all(path, ret_size);
        cr_assert_not_null(b, "cannot read %s", path);
        return b;
}

/* A helper that calls sysctl(2) the x86_64 way: in a cross build (scripts/cross-build.sh) the
 * helpers are arm programs, which have no such call to find. */
static uint8_t *read_x86_64_helper(const char *name, size_t *ret_size)
{
        uint8_t *b = read_helper(name, ret_size);
        uint16_t machine = 0;

        if (*ret_size > offsetof(Elf64_Ehdr, e_machine) + sizeof machine)
                memcpy(&machine, b + offsetof(Elf64_Ehdr, e_machine), sizeof machine);
        if (machine != EM_X86_64) {
                free(b);
                cr_skip_test("%s is not an x86_64 program (a cross build): the sysctl(2) calls found are x86_64 code", name);
        }
        return b;
}

static void inspect(const uint8_t *b, size_t size, ElfSysctlInfo *info)
{
        ElfView v;

        cr_assert_eq(elf_view_init(&v, b, size), 0);
        cr_assert_eq(elf_sysctl_inspect(&v, info), 0);
}

/* The libc the tests run on: glibc ≥ 2.32 has sysctl only as the compat stub. */
Test(elf_sysctl, system_libc)
{
        static const char *const paths[] = { "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6", NULL };
        ElfSysctlInfo info;
        uint8_t *b = NULL;
        uint64_t off = 0;
        size_t size = 0;
        ElfView v;

        for (size_t i = 0; paths[i] && !b; i++)
                b = read_all(paths[i], &size);
        if (!b)
                cr_skip_test("no x86_64 glibc found");
        inspect(b, size, &info);
        if (!info.defines_compat)
                cr_skip_test("this libc has no compat sysctl (glibc < 2.32 or not glibc)");
        cr_expect(!info.defines_default);
        cr_expect_str_eq(info.defined_version, "GLIBC_2.2.5");
        cr_expect(!info.imports);
        cr_expect(!info.static_symbol);
        cr_assert_eq(elf_view_init(&v, b, size), 0);
        cr_assert_eq(elf_sysctl_compat_offset(&v, &off), 1);
        cr_expect_gt(off, 0);
        cr_expect_lt(off, size);
        free(b);
}

/* An executable segment that claims bytes past the end of the file (fuzz-elf found one,
 * tests/fuzz/regressions/fuzz-elf/crash-302a3354…): the compat symbol's file offset would lie
 * outside the file, where no uprobe can go; the helper then failed its whole scan. Refused. */
Test(elf_sysctl, compat_offset_outside_the_file)
{
        size_t size = 0;
        uint8_t *b = read_all("/lib/x86_64-linux-gnu/libc.so.6", &size);
        uint64_t off = 0;
        Elf64_Ehdr *eh;
        ElfView v;

        if (!b)
                cr_skip_test("no x86_64 glibc found");
        cr_assert_eq(elf_view_init(&v, b, size), 0);
        if (elf_sysctl_compat_offset(&v, &off) != 1) {
                free(b);
                cr_skip_test("this libc has no compat sysctl (glibc < 2.32 or not glibc)");
        }
        eh = (Elf64_Ehdr *) b;
        for (size_t i = 0; i < eh->e_phnum; i++) {
                Elf64_Phdr *ph = (Elf64_Phdr *) (b + eh->e_phoff + i * eh->e_phentsize);

                if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
                        ph->p_offset = size - 16; /* filesz now runs far past the end */
        }
        cr_assert_eq(elf_view_init(&v, b, size), 0);
        cr_expect_eq(elf_sysctl_compat_offset(&v, &off), -EBADMSG, "offset 0x%llx of a %zu-byte file",
                     (unsigned long long) off, size);
        free(b);
}

/* A binary linked like a pre-2.32 one: UND sysctl@GLIBC_2.2.5. */
Test(elf_sysctl, legacy_import)
{
        size_t size;
        uint8_t *b = read_x86_64_helper("call-libc-sysctl", &size);
        ElfSysctlInfo info;
        ElfView v;
        uint64_t off;

        inspect(b, size, &info);
        cr_expect(info.imports);
        cr_expect_str_eq(info.import_symbol, "sysctl");
        cr_expect_str_eq(info.import_version, "GLIBC_2.2.5");
        cr_expect(!info.defines_compat);
        cr_expect(!info.defines_default);
        cr_expect(!info.raw_syscall);
        cr_expect(!info.via_syscall_function);
        cr_assert_eq(elf_view_init(&v, b, size), 0);
        cr_expect_eq(elf_sysctl_compat_offset(&v, &off), 0);
        free(b);
}

/* syscall(156, …) through the PLT (dynamic) and through static glibc's syscall(). */
Test(elf_sysctl, syscall_function)
{
        static const char *const names[] = { "call-sysctl", "call-sysctl-static" };

        for (size_t i = 0; i < 2; i++) {
                size_t size;
                uint8_t *b = read_x86_64_helper(names[i], &size);
                ElfSysctlInfo info;

                inspect(b, size, &info);
                cr_expect(info.via_syscall_function, "%s: syscall(156) not found", names[i]);
                cr_expect_lt(info.via_offset, size);
                cr_expect_eq(b[info.via_offset], 0xbf, "%s: offset does not point at mov $156,%%edi", names[i]);
                cr_expect(!info.imports);
                cr_expect(!info.static_symbol);
                free(b);
        }
}

Test(elf_sysctl, raw_syscall)
{
        size_t size;
        uint8_t *b = read_x86_64_helper("sysctl-raw", &size);
        ElfSysctlInfo info;

        inspect(b, size, &info);
        cr_expect(info.raw_syscall);
        cr_expect_eq(b[info.raw_offset], 0xb8);
        cr_expect_eq(b[info.raw_offset + 1], 156);
        cr_expect(!info.imports);
        free(b);
}

/* A program with nothing to do with sysctl. */
Test(elf_sysctl, clean_program)
{
        size_t size;
        uint8_t *b = read_helper("mcast-join", &size);
        ElfSysctlInfo info;

        inspect(b, size, &info);
        cr_expect(!info.imports && !info.static_symbol && !info.raw_syscall && !info.via_syscall_function &&
                  !info.defines_compat && !info.defines_default);
        free(b);
}

Test(elf_util, not_elf)
{
        static const uint8_t text[] = "#!/bin/sh\necho hello\n";
        uint8_t big[64] = { 0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2MSB };
        ElfView v;

        cr_expect_eq(elf_view_init(&v, text, sizeof text), -ENOEXEC);
        cr_expect_eq(elf_view_init(&v, NULL, 0), -ENOEXEC);
        cr_expect_eq(elf_view_init(&v, big, 8), -ENOEXEC); /* shorter than e_ident */
        cr_expect_eq(elf_view_init(&v, big, EI_NIDENT), -EPROTONOSUPPORT);
        big[EI_DATA] = ELFDATA2LSB;
        big[EI_CLASS] = 7;
        cr_expect_eq(elf_view_init(&v, big, sizeof big), -EPROTONOSUPPORT);
        big[EI_CLASS] = ELFCLASS64;
        cr_expect_eq(elf_view_init(&v, big, 40), -EBADMSG); /* shorter than the header */
}

/* A minimal ELF32 header with no tables: parses, nothing found. */
Test(elf_util, elf32_header_only)
{
        Elf32_Ehdr h = {
                .e_ident = { 0x7f, 'E', 'L', 'F', ELFCLASS32, ELFDATA2LSB, EV_CURRENT },
                .e_type = ET_EXEC, .e_machine = EM_386, .e_ehsize = sizeof h,
        };
        ElfSysctlInfo info;
        ElfView v;

        cr_assert_eq(elf_view_init(&v, &h, sizeof h), 0);
        cr_expect(!v.is64);
        cr_expect_eq(v.machine, EM_386);
        cr_assert_eq(elf_sysctl_inspect(&v, &info), 0);
        cr_expect(!info.imports && !info.raw_syscall);
        h.e_shnum = 10;
        h.e_shentsize = sizeof(Elf32_Shdr);
        h.e_shoff = 1000; /* beyond the data */
        cr_expect_eq(elf_view_init(&v, &h, sizeof h), -EBADMSG);
}

/* Damaged copies of a real file: never a crash, never a read outside the buffer (ASan). */
static void abuse(const uint8_t *orig, size_t size)
{
        unsigned seed = 1234;
        uint8_t *b;

        /* Truncated: every length up to 4 KiB, then every 1009th. */
        for (size_t len = 0; len < size; len += len < 4096 ? 1 : 1009) {
                ElfSysctlInfo info;
                ElfView v;

                b = malloc(len ?: 1);
                cr_assert_not_null(b);
                memcpy(b, orig, len);
                if (elf_view_init(&v, b, len) == 0)
                        (void) elf_sysctl_inspect(&v, &info);
                free(b);
        }
        /* Random bytes sprayed over the headers and tables. */
        b = malloc(size);
        cr_assert_not_null(b);
        for (int round = 0; round < 600; round++) {
                ElfSysctlInfo info;
                ElfView v, good;
                size_t from = 0, len = size;

                cr_assert_eq(elf_view_init(&good, orig, size), 0);
                if (round % 3 == 1)
                        len = MIN(size, (size_t) 512); /* the ELF and program headers */
                else if (round % 3 == 2) {
                        from = good.shoff; /* the section headers */
                        len = (size_t) good.shnum * good.shentsize;
                }
                memcpy(b, orig, size);
                for (int k = 0; k < 16 && len > 0; k++) {
                        size_t at = from + (size_t) rand_r(&seed) % len;
                        b[at] = (uint8_t) rand_r(&seed);
                }
                if (elf_view_init(&v, b, size) == 0)
                        (void) elf_sysctl_inspect(&v, &info);
        }
        free(b);
}

Test(elf_util, damaged_files, .timeout = 300)
{
        static const char *const names[] = { "call-libc-sysctl", "call-sysctl" };

        for (size_t i = 0; i < 2; i++) {
                size_t size;
                uint8_t *b = read_helper(names[i], &size);
                abuse(b, size);
                free(b);
        }
}
