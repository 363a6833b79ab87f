/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ELF reading over a byte buffer. Every structure is copied out with memcpy (no alignment
 * assumed) after its bounds were checked; 32- and 64-bit layouts are read into one form.
 */

#include <elf.h>
#include <errno.h>
#include <string.h>

#include "elf-util.h"
#include "macro.h"

/* Upper bounds on walks a damaged file could make long. */
#define ELF_VERSION_CHAIN_MAX 65536

typedef struct Shdr {
        uint32_t type, link;
        uint64_t offset, size;
} Shdr;

typedef struct Section {
        const uint8_t *data;
        size_t size;
        uint32_t link;
        bool present;
} Section;

static bool in_bounds(const ElfView *v, uint64_t offset, uint64_t len)
{
        return offset <= v->size && len <= v->size - offset;
}

/* The little-endian unsigned integer of n (1, 2, 4 or 8) bytes at p. */
static uint64_t get(const uint8_t *p, size_t n)
{
        uint64_t x = 0;

        for (size_t i = n; i > 0; i--)
                x = x << 8 | p[i - 1];
        return x;
}

/* Member f of the ELF structure T (Ehdr, Shdr, Sym, …) at p: of the 64-bit layout, of the 32-bit
 * one, or of the view's class. The version structures (Verdef, …) have one layout for both. */
#define F64(p, T, f) get((p) + offsetof(Elf64_##T, f), sizeof(((Elf64_##T *) 0)->f))
#define F32(p, T, f) get((p) + offsetof(Elf32_##T, f), sizeof(((Elf32_##T *) 0)->f))
#define FIELD(v, p, T, f) ((v)->is64 ? F64(p, T, f) : F32(p, T, f))
#define SIZEOF(v, T) ((v)->is64 ? sizeof(Elf64_##T) : sizeof(Elf32_##T))

int elf_view_init(ElfView *v, const void *data, size_t size)
{
        const uint8_t *d = data;
        ElfView e = { .data = d, .size = size };

        if (!d || size < EI_NIDENT || memcmp(d, ELFMAG, SELFMAG) != 0)
                return -ENOEXEC;
        if (d[EI_DATA] != ELFDATA2LSB || (d[EI_CLASS] != ELFCLASS64 && d[EI_CLASS] != ELFCLASS32))
                return -EPROTONOSUPPORT;
        e.is64 = d[EI_CLASS] == ELFCLASS64;
        if (size < SIZEOF(&e, Ehdr))
                return -EBADMSG;
        e.type = FIELD(&e, d, Ehdr, e_type);
        e.machine = FIELD(&e, d, Ehdr, e_machine);
        e.phoff = FIELD(&e, d, Ehdr, e_phoff);
        e.shoff = FIELD(&e, d, Ehdr, e_shoff);
        e.phentsize = FIELD(&e, d, Ehdr, e_phentsize);
        e.phnum = FIELD(&e, d, Ehdr, e_phnum);
        e.shentsize = FIELD(&e, d, Ehdr, e_shentsize);
        e.shnum = FIELD(&e, d, Ehdr, e_shnum);
        if ((e.phnum > 0 && e.phentsize < SIZEOF(&e, Phdr)) || (e.shnum > 0 && e.shentsize < SIZEOF(&e, Shdr)))
                return -EBADMSG;
        if (!in_bounds(&e, e.phoff, (uint64_t) e.phnum * e.phentsize) ||
            !in_bounds(&e, e.shoff, (uint64_t) e.shnum * e.shentsize))
                return -EBADMSG;
        *v = e;
        return 0;
}

static void read_shdr(const ElfView *v, size_t i, Shdr *s)
{
        const uint8_t *p = v->data + v->shoff + i * v->shentsize;

        *s = (Shdr) {
                .type = FIELD(v, p, Shdr, sh_type),
                .link = FIELD(v, p, Shdr, sh_link),
                .offset = FIELD(v, p, Shdr, sh_offset),
                .size = FIELD(v, p, Shdr, sh_size),
        };
}

/* Section number i, checked to lie inside the file (SHT_NOBITS has no bytes). */
static int section_at(const ElfView *v, size_t i, Section *ret)
{
        Shdr s;

        if (i == 0 || i >= v->shnum)
                return -EBADMSG;
        read_shdr(v, i, &s);
        if (s.type == SHT_NOBITS || !in_bounds(v, s.offset, s.size))
                return -EBADMSG;
        *ret = (Section) {
                .data = v->data + s.offset,
                .size = (size_t) s.size,
                .link = s.link,
                .present = true,
        };
        return 0;
}

/* The first section of the given type, or present = false. */
static int section_by_type(const ElfView *v, uint32_t type, Section *ret)
{
        *ret = (Section) {};
        for (size_t i = 1; i < v->shnum; i++) {
                Shdr s;

                read_shdr(v, i, &s);
                if (s.type == type)
                        return section_at(v, i, ret);
        }
        return 0;
}

/* The len bytes at offset off of a section, or NULL if they are not all inside it. */
static const uint8_t *section_bytes(const Section *s, uint64_t off, size_t len)
{
        return s->present && off <= s->size && len <= s->size - off ? s->data + off : NULL;
}

/* The NUL-terminated string at offset in a string table, or NULL. */
static const char *string_at(const Section *strtab, uint64_t offset)
{
        const char *s = (const char *) section_bytes(strtab, offset, 1);

        return s && memchr(s, '\0', strtab->size - offset) ? s : NULL;
}

typedef struct Versions {
        Section versym, verdef, verneed, verdef_str, verneed_str;
} Versions;

/* The name of version index idx among the definitions (.gnu.version_d). */
static const char *verdef_name(const Versions *vs, uint16_t idx)
{
        uint64_t off = 0;

        for (size_t n = 0; n < ELF_VERSION_CHAIN_MAX; n++) {
                const uint8_t *d = section_bytes(&vs->verdef, off, sizeof(Elf64_Verdef)), *aux;

                if (!d)
                        return NULL;
                if (F64(d, Verdef, vd_ndx) == idx) {
                        aux = section_bytes(&vs->verdef, off + F64(d, Verdef, vd_aux), sizeof(Elf64_Verdaux));
                        return aux ? string_at(&vs->verdef_str, F64(aux, Verdaux, vda_name)) : NULL;
                }
                if (F64(d, Verdef, vd_next) == 0)
                        return NULL;
                off += F64(d, Verdef, vd_next);
        }
        return NULL;
}

/* The name of version index idx among the references (.gnu.version_r). */
static const char *verneed_name(const Versions *vs, uint16_t idx)
{
        uint64_t off = 0;
        size_t steps = 0;

        while (steps++ < ELF_VERSION_CHAIN_MAX) {
                const uint8_t *d = section_bytes(&vs->verneed, off, sizeof(Elf64_Verneed));
                uint64_t a;

                if (!d)
                        return NULL;
                a = off + F64(d, Verneed, vn_aux);
                for (uint16_t k = 0; k < F64(d, Verneed, vn_cnt) && steps++ < ELF_VERSION_CHAIN_MAX; k++) {
                        const uint8_t *aux = section_bytes(&vs->verneed, a, sizeof(Elf64_Vernaux));

                        if (!aux)
                                return NULL;
                        if (F64(aux, Vernaux, vna_other) == idx)
                                return string_at(&vs->verneed_str, F64(aux, Vernaux, vna_name));
                        if (F64(aux, Vernaux, vna_next) == 0)
                                break;
                        a += F64(aux, Vernaux, vna_next);
                }
                if (F64(d, Verneed, vn_next) == 0)
                        return NULL;
                off += F64(d, Verneed, vn_next);
        }
        return NULL;
}

int elf_view_foreach_symbol(const ElfView *v, bool dynamic, ElfSymbolFn fn, void *userdata)
{
        uint32_t type = dynamic ? SHT_DYNSYM : SHT_SYMTAB;
        size_t entsize = SIZEOF(v, Sym);
        Section symtab, strtab;
        Versions vs = {};
        int r;

        r = section_by_type(v, type, &symtab);
        if (r < 0 || !symtab.present)
                return r;
        r = section_at(v, symtab.link, &strtab);
        if (r < 0)
                return r;
        if (type == SHT_DYNSYM) {
                /* Version information is optional; a broken part of it is ignored, not fatal: a
                 * section that fails is left absent, and a version without its name is "". */
                (void) section_by_type(v, SHT_GNU_versym, &vs.versym);
                (void) section_by_type(v, SHT_GNU_verdef, &vs.verdef);
                if (vs.verdef.present)
                        (void) section_at(v, vs.verdef.link, &vs.verdef_str);
                (void) section_by_type(v, SHT_GNU_verneed, &vs.verneed);
                if (vs.verneed.present)
                        (void) section_at(v, vs.verneed.link, &vs.verneed_str);
        }

        for (size_t i = 1; i < symtab.size / entsize; i++) {
                const uint8_t *p = symtab.data + i * entsize;
                uint8_t info = FIELD(v, p, Sym, st_info);
                ElfSymbol s = {
                        .name = string_at(&strtab, FIELD(v, p, Sym, st_name)),
                        .value = FIELD(v, p, Sym, st_value),
                        .type = ELF64_ST_TYPE(info),
                        .defined = FIELD(v, p, Sym, st_shndx) != SHN_UNDEF,
                        .version = "",
                };

                if (!s.name || !s.name[0])
                        continue;
                if (vs.versym.present && (i + 1) * 2 <= vs.versym.size) {
                        uint16_t ver = get(vs.versym.data + i * 2, 2);
                        uint16_t idx = ver & 0x7fff;
                        const char *name = NULL;

                        s.hidden = ver & 0x8000;
                        if (idx > 1)
                                name = s.defined ? verdef_name(&vs, idx) : verneed_name(&vs, idx);
                        s.version = name ?: "";
                }
                r = fn(&s, userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}

int elf_view_foreach_exec_segment(const ElfView *v, ElfSegmentFn fn, void *userdata)
{
        for (size_t i = 0; i < v->phnum; i++) {
                const uint8_t *p = v->data + v->phoff + i * v->phentsize;
                uint64_t offset = FIELD(v, p, Phdr, p_offset), len;
                int r;

                if (FIELD(v, p, Phdr, p_type) != PT_LOAD || !(FIELD(v, p, Phdr, p_flags) & PF_X) ||
                    offset >= v->size)
                        continue;
                /* Only bytes the file has: a segment may claim more than it holds. */
                len = MIN(FIELD(v, p, Phdr, p_filesz), (uint64_t) v->size - offset);
                r = fn(v->data + offset, (size_t) len, offset, FIELD(v, p, Phdr, p_vaddr), userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}

/* userdata: the virtual address looked for, replaced by its file offset when found (1). */
static int find_vaddr(const uint8_t *bytes, size_t len, uint64_t offset, uint64_t vaddr, void *userdata)
{
        uint64_t *x = userdata;

        if (*x < vaddr || *x - vaddr >= len)
                return 0;
        *x = *x - vaddr + offset;
        return 1;
}

int elf_view_vaddr_to_offset(const ElfView *v, uint64_t vaddr, uint64_t *ret)
{
        if (elf_view_foreach_exec_segment(v, find_vaddr, &vaddr) <= 0)
                return -ENOENT;
        *ret = vaddr;
        return 0;
}

int elf_view_foreach_dynamic_reloc(const ElfView *v, ElfRelocFn fn, void *userdata)
{
        size_t symsize = SIZEOF(v, Sym);

        for (size_t i = 1; i < v->shnum; i++) {
                Section rel, syms, strtab;
                size_t entsize;
                bool rela;
                Shdr s;
                int r;

                read_shdr(v, i, &s);
                if (s.type != SHT_RELA && s.type != SHT_REL)
                        continue;
                rela = s.type == SHT_RELA;
                entsize = rela ? SIZEOF(v, Rela) : SIZEOF(v, Rel);
                /* Only those against the dynamic symbols (sh_link); others belong to objects. */
                if (section_at(v, i, &rel) < 0 || section_at(v, s.link, &syms) < 0)
                        return -EBADMSG;
                read_shdr(v, s.link, &s);
                if (s.type != SHT_DYNSYM)
                        continue;
                if (section_at(v, syms.link, &strtab) < 0)
                        return -EBADMSG;
                for (size_t k = 0; k < rel.size / entsize; k++) {
                        const uint8_t *p = rel.data + k * entsize;
                        ElfReloc e = { .symbol = "" };
                        uint64_t info, sym;

                        e.offset = FIELD(v, p, Rel, r_offset);
                        info = FIELD(v, p, Rel, r_info);
                        e.type = v->is64 ? ELF64_R_TYPE(info) : ELF32_R_TYPE(info);
                        sym = v->is64 ? ELF64_R_SYM(info) : ELF32_R_SYM(info);
                        if (sym > 0 && sym < syms.size / symsize)
                                e.symbol = string_at(&strtab, FIELD(v, syms.data + sym * symsize, Sym, st_name)) ?: "";
                        r = fn(&e, userdata);
                        if (r != 0)
                                return r;
                }
        }
        return 0;
}
