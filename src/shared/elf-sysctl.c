/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysctl(2) in an ELF file: the symbols (definitions with their versions, imports) and the
 * instruction patterns of elf-sysctl.h.
 */

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "elf-sysctl.h"
#include "macro.h"

#define RAW_WINDOW 16   /* bytes between "mov $NR,%eax" and the system call instruction */
#define CALL_WINDOW 128 /* bytes between "mov $156,%edi" and the call of syscall(): compilers
                           * schedule the setup of the other arguments in between */
#define SYSCALL_TARGETS_MAX 16

static bool is_sysctl_name(const char *name)
{
        return streq(name, "sysctl") || streq(name, "__sysctl");
}

static int on_dynsym(const ElfSymbol *s, void *userdata)
{
        ElfSysctlInfo *info = userdata;

        if (!is_sysctl_name(s->name))
                return 0;
        if (!s->defined) {
                if (!info->imports) {
                        info->imports = true;
                        snprintf(info->import_symbol, sizeof info->import_symbol, "%s", s->name);
                        snprintf(info->import_version, sizeof info->import_version, "%s", s->version);
                }
                return 0;
        }
        if (s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
                return 0;
        if (s->hidden && s->version[0]) {
                info->defines_compat = true;
                /* Both names are one function; the offset of "sysctl" is the one probed. */
                if (streq(s->name, "sysctl") || info->defined_version[0] == '\0')
                        snprintf(info->defined_version, sizeof info->defined_version, "%s", s->version);
        } else {
                info->defines_default = true;
                snprintf(info->defined_version, sizeof info->defined_version, "%s", s->version);
        }
        return 0;
}

typedef struct SyscallTargets {
        uint64_t got[SYSCALL_TARGETS_MAX];   /* GOT slots of syscall() */
        size_t n_got;
        uint64_t stub[SYSCALL_TARGETS_MAX];  /* PLT stubs jumping through them, or its address */
        size_t n_stub;
} SyscallTargets;

typedef struct PatternScan {
        const ElfView *v;
        SyscallTargets targets;
        bool has_targets; /* x86_64 and syscall() found: look for its calls */
        ElfSysctlInfo info;
} PatternScan;

static int on_symtab(const ElfSymbol *s, void *userdata)
{
        PatternScan *c = userdata;

        if (!s->defined || (s->type != STT_FUNC && s->type != STT_GNU_IFUNC))
                return 0;
        if (is_sysctl_name(s->name))
                c->info.static_symbol = true;
        if (s->type == STT_FUNC && streq(s->name, "syscall") && c->targets.n_stub < SYSCALL_TARGETS_MAX)
                c->targets.stub[c->targets.n_stub++] = s->value;
        return 0;
}

static int on_reloc(const ElfReloc *r, void *userdata)
{
        SyscallTargets *t = userdata;

        if ((r->type == R_X86_64_JUMP_SLOT || r->type == R_X86_64_GLOB_DAT) && streq(r->symbol, "syscall") &&
            t->n_got < SYSCALL_TARGETS_MAX)
                t->got[t->n_got++] = r->offset;
        return 0;
}

static bool in_list(const uint64_t *l, size_t n, uint64_t x)
{
        for (size_t i = 0; i < n; i++)
                if (l[i] == x)
                        return true;
        return false;
}

/* Where the instruction of n bytes at b[i] (b at vaddr) goes: its last four bytes are a rel32. */
static uint64_t rel32_target(const uint8_t *b, size_t i, size_t n, uint64_t vaddr)
{
        const uint8_t *p = b + i + n - 4;
        uint32_t rel = (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;

        return vaddr + i + n + (uint64_t) (int64_t) (int32_t) rel;
}

/* PLT stubs: "jmp *disp32(%rip)" (ff 25, maybe after a bnd prefix f2) through a GOT slot of
 * syscall(). The stub's address is where the calls go; an IBT stub in .plt.sec starts with
 * endbr64 four bytes earlier. */
static int find_plt_stubs(const uint8_t *b, size_t len, uint64_t offset, uint64_t vaddr, void *userdata)
{
        SyscallTargets *t = userdata;

        for (size_t i = 0; i + 6 <= len && t->n_stub < SYSCALL_TARGETS_MAX; i++) {
                size_t start = i;

                if (b[i] != 0xff || b[i + 1] != 0x25 || !in_list(t->got, t->n_got, rel32_target(b, i, 6, vaddr)))
                        continue;
                if (start > 0 && b[start - 1] == 0xf2)
                        start--; /* bnd jmp */
                if (start >= 4 && memcmp(b + start - 4, "\xf3\x0f\x1e\xfa", 4) == 0)
                        start -= 4; /* endbr64 */
                t->stub[t->n_stub++] = vaddr + start;
        }
        return 0;
}

static bool has_syscall_insn(const ElfView *v, const uint8_t *b, size_t len)
{
        for (size_t i = 0; i + 2 <= len; i++) {
                if (v->machine == EM_X86_64 && b[i] == 0x0f && b[i + 1] == 0x05)
                        return true;
                if (v->machine == EM_386 && b[i] == 0xcd && b[i + 1] == 0x80)
                        return true;
                if (v->machine == EM_386 && i + 7 <= len && memcmp(b + i, "\x65\xff\x15\x10\x00\x00\x00", 7) == 0)
                        return true;
        }
        return false;
}

/* A call (e8 rel32, or ff 15 through a GOT slot) of syscall() in b[0..len). */
static bool calls_syscall_function(const SyscallTargets *t, const uint8_t *b, size_t len, uint64_t vaddr)
{
        for (size_t i = 0; i + 5 <= len; i++) {
                if (b[i] == 0xe8 && in_list(t->stub, t->n_stub, rel32_target(b, i, 5, vaddr)))
                        return true;
                if (i + 6 <= len && b[i] == 0xff && b[i + 1] == 0x15 &&
                    in_list(t->got, t->n_got, rel32_target(b, i, 6, vaddr)))
                        return true;
        }
        return false;
}

static int scan_patterns(const uint8_t *b, size_t len, uint64_t offset, uint64_t vaddr, void *userdata)
{
        PatternScan *s = userdata;
        bool x86_64 = s->v->machine == EM_X86_64;
        uint8_t nr = x86_64 ? ELF_SYSCTL_NR_X86_64 : ELF_SYSCTL_NR_I386;

        for (size_t i = 0; i + 5 <= len; i++) {
                const uint8_t *p;
                size_t mov_len;

                p = memchr(b + i, nr, len - i);
                if (!p)
                        break;
                i = (size_t) (p - b);
                if (i < 1 || i + 4 > len || p[1] != 0 || p[2] != 0 || p[3] != 0)
                        continue;
                mov_len = 0;
                if (p[-1] == 0xb8) /* mov $imm32,%eax */
                        mov_len = 5;
                else if (x86_64 && i >= 3 && p[-3] == 0x48 && p[-2] == 0xc7 && p[-1] == 0xc0) /* mov $imm32,%rax */
                        mov_len = 7;
                if (mov_len > 0 && !s->info.raw_syscall &&
                    has_syscall_insn(s->v, p + 4, MIN((size_t) RAW_WINDOW + 2, len - i - 4))) {
                        s->info.raw_syscall = true;
                        s->info.raw_offset = offset + i + 4 - mov_len;
                }
                if (x86_64 && p[-1] == 0xbf && !s->info.via_syscall_function && s->has_targets &&
                    calls_syscall_function(&s->targets, p + 4, MIN((size_t) CALL_WINDOW + 6, len - i - 4),
                                           vaddr + i + 4)) {
                        s->info.via_syscall_function = true;
                        s->info.via_offset = offset + i - 1;
                }
                if (s->info.raw_syscall && (s->info.via_syscall_function || !s->has_targets))
                        return 1;
        }
        return 0;
}

bool elf_libc_name(const char *path)
{
        const char *base = strrchr(path, '/');

        base = base ? base + 1 : path;
        return startswith(base, "libc.so") || startswith(base, "libc-2.");
}

int elf_sysctl_inspect(const ElfView *v, ElfSysctlInfo *ret)
{
        PatternScan scan = { .v = v };
        int r;

        r = elf_view_foreach_symbol(v, true, on_dynsym, &scan.info);
        if (r < 0)
                return r;
        r = elf_view_foreach_symbol(v, false, on_symtab, &scan);
        if (r < 0)
                return r;
        if (scan.info.defines_compat || scan.info.defines_default)
                scan.info.static_symbol = false; /* the libc itself, not a static caller */

        if (v->machine == EM_X86_64) {
                r = elf_view_foreach_dynamic_reloc(v, on_reloc, &scan.targets);
                if (r < 0)
                        return r;
                if (scan.targets.n_got > 0)
                        (void) elf_view_foreach_exec_segment(v, find_plt_stubs, &scan.targets);
                scan.has_targets = scan.targets.n_got > 0 || scan.targets.n_stub > 0;
        }
        if (v->machine == EM_X86_64 || v->machine == EM_386) {
                r = elf_view_foreach_exec_segment(v, scan_patterns, &scan);
                if (r < 0)
                        return r;
        }
        *ret = scan.info;
        return 0;
}

static int on_compat(const ElfSymbol *s, void *userdata)
{
        if (s->defined && s->type == STT_FUNC && s->hidden && streq(s->name, "sysctl") &&
            streq(s->version, "GLIBC_2.2.5")) {
                *(uint64_t *) userdata = s->value;
                return 1;
        }
        return 0;
}

int elf_sysctl_compat_offset(const ElfView *v, uint64_t *ret_offset)
{
        uint64_t value;
        int r;

        if (v->machine != EM_X86_64 || !v->is64)
                return 0;
        r = elf_view_foreach_symbol(v, true, on_compat, &value);
        if (r <= 0)
                return r;
        if (elf_view_vaddr_to_offset(v, value, ret_offset) < 0)
                return -EBADMSG;
        return 1;
}
