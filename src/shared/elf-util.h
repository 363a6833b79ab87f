/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A small, bounds-checked reader of ELF files in memory (32 and 64 bit, little endian): the
 * dynamic symbol table with GNU symbol versions (.gnu.version, .gnu.version_d for definitions,
 * .gnu.version_r for references), the static symbol table, and virtual address → file offset
 * through the program headers. Pure: it reads bytes and never trusts an offset or a count it
 * has not checked against them, so a damaged or hostile file yields -EBADMSG, never a crash.
 *
 * Used by the libc audit source (where is libc's compat sysctl@GLIBC_2.2.5?) and by
 * igmpctl audit scan (which programs import or call sysctl?), see elf-sysctl.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ElfView {
        const uint8_t *data;
        size_t size;
        bool is64;
        uint16_t type;     /* ET_EXEC, ET_DYN, … */
        uint16_t machine;  /* EM_X86_64, EM_386, … */
        uint64_t phoff, shoff;
        uint16_t phnum, phentsize, shnum, shentsize;
} ElfView;

/* 0; -ENOEXEC: not an ELF file; -EPROTONOSUPPORT: big endian or unknown class; -EBADMSG:
 * the headers do not fit in the data. */
int elf_view_init(ElfView *v, const void *data, size_t size);

typedef struct ElfSymbol {
        const char *name;     /* NUL-terminated inside the data */
        uint64_t value;
        uint8_t type;         /* STT_* */
        bool defined;         /* st_shndx != SHN_UNDEF */
        const char *version;  /* "GLIBC_2.2.5", or "" without version information */
        bool hidden;          /* a non-default version: "name@version", not "name@@version" */
} ElfSymbol;

/* Called for each symbol; a return value > 0 stops the walk (and is returned), < 0 too. */
typedef int (*ElfSymbolFn)(const ElfSymbol *s, void *userdata);

/* Walks .dynsym (dynamic: with versions) or .symtab (without). 0 when done (also when the table
 * is absent), the callback's stop value, or -EBADMSG. */
int elf_view_foreach_symbol(const ElfView *v, bool dynamic, ElfSymbolFn fn, void *userdata);

/* File offset of a virtual address inside an executable PT_LOAD segment (what uprobes want).
 * 0 or -ENOENT. */
int elf_view_vaddr_to_offset(const ElfView *v, uint64_t vaddr, uint64_t *ret);

/* Calls fn for each executable PT_LOAD segment's bytes (clipped to the file), with their file
 * offset and virtual address; a return value != 0 stops the walk and is returned. */
typedef int (*ElfSegmentFn)(const uint8_t *bytes, size_t len, uint64_t offset, uint64_t vaddr, void *userdata);
int elf_view_foreach_exec_segment(const ElfView *v, ElfSegmentFn fn, void *userdata);

typedef struct ElfReloc {
        uint64_t offset;     /* r_offset: the address patched (a GOT slot for JUMP_SLOT/GLOB_DAT) */
        uint32_t type;       /* R_X86_64_*, R_386_* */
        const char *symbol;  /* the dynamic symbol's name, "" if none */
} ElfReloc;

typedef int (*ElfRelocFn)(const ElfReloc *r, void *userdata);

/* Walks every relocation against the dynamic symbol table (.rela.dyn, .rela.plt, .rel.*).
 * 0, the callback's stop value, or -EBADMSG. */
int elf_view_foreach_dynamic_reloc(const ElfView *v, ElfRelocFn fn, void *userdata);
