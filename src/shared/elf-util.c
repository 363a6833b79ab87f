/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ELF reading over a byte buffer. Every structure is copied out with memcpy (no alignment
 * assumed) after its bounds were checked; 32- and 64-bit layouts are read into one form.
 */

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "elf-util.h"
#include "macro.h"

/* Upper bounds on walks a damaged file could make long. */
#define ELF_VERSION_CHAIN_MAX 65536

typedef struct Shdr {
        uint32_t type, link;
        uint64_t offset, size, entsize;
} Shdr;

typedef struct Phdr {
        uint32_t type, flags;
        uint64_t offset, vaddr, filesz, memsz;
} Phdr;

typedef struct Section {
        const uint8_t *data;
        size_t size;
        uint32_t link;
        uint64_t entsize;
        bool present;
} Section;

static bool in_bounds(const ElfView *v, uint64_t offset, uint64_t len)
{
        return offset <= v->size && len <= v->size - offset;
}

static uint16_t get16(const uint8_t *p)
{
        uint16_t x;
        memcpy(&x, p, sizeof x);
        return le16toh(x);
}

static uint32_t get32(const uint8_t *p)
{
        uint32_t x;
        memcpy(&x, p, sizeof x);
        return le32toh(x);
}

static uint64_t get64(const uint8_t *p)
{
        uint64_t x;
        memcpy(&x, p, sizeof x);
        return le64toh(x);
}

int elf_view_init(ElfView *v, const void *data, size_t size)
{
        const uint8_t *d = data;
        ElfView e = { .data = d, .size = size };

        if (!d || size < EI_NIDENT || memcmp(d, ELFMAG, SELFMAG) != 0)
                return -ENOEXEC;
        if (d[EI_DATA] != ELFDATA2LSB)
                return -EPROTONOSUPPORT;
        if (d[EI_CLASS] == ELFCLASS64) {
                if (size < sizeof(Elf64_Ehdr))
                        return -EBADMSG;
                e.is64 = true;
                e.type = get16(d + offsetof(Elf64_Ehdr, e_type));
                e.machine = get16(d + offsetof(Elf64_Ehdr, e_machine));
                e.phoff = get64(d + offsetof(Elf64_Ehdr, e_phoff));
                e.shoff = get64(d + offsetof(Elf64_Ehdr, e_shoff));
                e.phentsize = get16(d + offsetof(Elf64_Ehdr, e_phentsize));
                e.phnum = get16(d + offsetof(Elf64_Ehdr, e_phnum));
                e.shentsize = get16(d + offsetof(Elf64_Ehdr, e_shentsize));
                e.shnum = get16(d + offsetof(Elf64_Ehdr, e_shnum));
                e.shstrndx = get16(d + offsetof(Elf64_Ehdr, e_shstrndx));
                if ((e.phnum > 0 && e.phentsize < sizeof(Elf64_Phdr)) ||
                    (e.shnum > 0 && e.shentsize < sizeof(Elf64_Shdr)))
                        return -EBADMSG;
        } else if (d[EI_CLASS] == ELFCLASS32) {
                if (size < sizeof(Elf32_Ehdr))
                        return -EBADMSG;
                e.type = get16(d + offsetof(Elf32_Ehdr, e_type));
                e.machine = get16(d + offsetof(Elf32_Ehdr, e_machine));
                e.phoff = get32(d + offsetof(Elf32_Ehdr, e_phoff));
                e.shoff = get32(d + offsetof(Elf32_Ehdr, e_shoff));
                e.phentsize = get16(d + offsetof(Elf32_Ehdr, e_phentsize));
                e.phnum = get16(d + offsetof(Elf32_Ehdr, e_phnum));
                e.shentsize = get16(d + offsetof(Elf32_Ehdr, e_shentsize));
                e.shnum = get16(d + offsetof(Elf32_Ehdr, e_shnum));
                e.shstrndx = get16(d + offsetof(Elf32_Ehdr, e_shstrndx));
                if ((e.phnum > 0 && e.phentsize < sizeof(Elf32_Phdr)) ||
                    (e.shnum > 0 && e.shentsize < sizeof(Elf32_Shdr)))
                        return -EBADMSG;
        } else
                return -EPROTONOSUPPORT;

        if (!in_bounds(&e, e.phoff, (uint64_t) e.phnum * e.phentsize) ||
            !in_bounds(&e, e.shoff, (uint64_t) e.shnum * e.shentsize))
                return -EBADMSG;
        for (size_t i = 0; i < e.phnum; i++) {
                const uint8_t *p = d + e.phoff + i * e.phentsize;
                if (get32(p) == PT_INTERP)
                        e.has_interp = true;
        }
        *v = e;
        return 0;
}

static void read_shdr(const ElfView *v, size_t i, Shdr *s)
{
        const uint8_t *p = v->data + v->shoff + i * v->shentsize;

        if (v->is64)
                *s = (Shdr) {
                        .type = get32(p + offsetof(Elf64_Shdr, sh_type)),
                        .link = get32(p + offsetof(Elf64_Shdr, sh_link)),
                        .offset = get64(p + offsetof(Elf64_Shdr, sh_offset)),
                        .size = get64(p + offsetof(Elf64_Shdr, sh_size)),
                        .entsize = get64(p + offsetof(Elf64_Shdr, sh_entsize)),
                };
        else
                *s = (Shdr) {
                        .type = get32(p + offsetof(Elf32_Shdr, sh_type)),
                        .link = get32(p + offsetof(Elf32_Shdr, sh_link)),
                        .offset = get32(p + offsetof(Elf32_Shdr, sh_offset)),
                        .size = get32(p + offsetof(Elf32_Shdr, sh_size)),
                        .entsize = get32(p + offsetof(Elf32_Shdr, sh_entsize)),
                };
}

static void read_phdr(const ElfView *v, size_t i, Phdr *h)
{
        const uint8_t *p = v->data + v->phoff + i * v->phentsize;

        if (v->is64)
                *h = (Phdr) {
                        .type = get32(p + offsetof(Elf64_Phdr, p_type)),
                        .flags = get32(p + offsetof(Elf64_Phdr, p_flags)),
                        .offset = get64(p + offsetof(Elf64_Phdr, p_offset)),
                        .vaddr = get64(p + offsetof(Elf64_Phdr, p_vaddr)),
                        .filesz = get64(p + offsetof(Elf64_Phdr, p_filesz)),
                        .memsz = get64(p + offsetof(Elf64_Phdr, p_memsz)),
                };
        else
                *h = (Phdr) {
                        .type = get32(p + offsetof(Elf32_Phdr, p_type)),
                        .flags = get32(p + offsetof(Elf32_Phdr, p_flags)),
                        .offset = get32(p + offsetof(Elf32_Phdr, p_offset)),
                        .vaddr = get32(p + offsetof(Elf32_Phdr, p_vaddr)),
                        .filesz = get32(p + offsetof(Elf32_Phdr, p_filesz)),
                        .memsz = get32(p + offsetof(Elf32_Phdr, p_memsz)),
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
                .entsize = s.entsize,
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

/* The NUL-terminated string at offset in a string table, or NULL. */
static const char *string_at(const Section *strtab, uint64_t offset)
{
        const char *s;

        if (!strtab->present || offset >= strtab->size)
                return NULL;
        s = (const char *) strtab->data + offset;
        if (!memchr(s, '\0', strtab->size - offset))
                return NULL;
        return s;
}

typedef struct Versions {
        Section versym, verdef, verneed, verdef_str, verneed_str;
} Versions;

/* The name of version index idx among the definitions (.gnu.version_d). */
static const char *verdef_name(const Versions *vs, uint16_t idx)
{
        size_t off = 0;

        for (size_t n = 0; vs->verdef.present && n < ELF_VERSION_CHAIN_MAX; n++) {
                uint32_t aux, next;

                if (off > vs->verdef.size || vs->verdef.size - off < sizeof(Elf64_Verdef))
                        return NULL;
                aux = get32(vs->verdef.data + off + offsetof(Elf64_Verdef, vd_aux));
                next = get32(vs->verdef.data + off + offsetof(Elf64_Verdef, vd_next));
                if (get16(vs->verdef.data + off + offsetof(Elf64_Verdef, vd_ndx)) == idx) {
                        uint64_t a = (uint64_t) off + aux;
                        if (a > vs->verdef.size || vs->verdef.size - a < sizeof(Elf64_Verdaux))
                                return NULL;
                        return string_at(&vs->verdef_str,
                                         get32(vs->verdef.data + a + offsetof(Elf64_Verdaux, vda_name)));
                }
                if (next == 0)
                        return NULL;
                off += next;
        }
        return NULL;
}

/* The name of version index idx among the references (.gnu.version_r). */
static const char *verneed_name(const Versions *vs, uint16_t idx)
{
        size_t off = 0, steps = 0;

        while (vs->verneed.present && steps++ < ELF_VERSION_CHAIN_MAX) {
                uint32_t next;
                uint64_t a;
                uint16_t cnt;

                if (off > vs->verneed.size || vs->verneed.size - off < sizeof(Elf64_Verneed))
                        return NULL;
                cnt = get16(vs->verneed.data + off + offsetof(Elf64_Verneed, vn_cnt));
                a = (uint64_t) off + get32(vs->verneed.data + off + offsetof(Elf64_Verneed, vn_aux));
                next = get32(vs->verneed.data + off + offsetof(Elf64_Verneed, vn_next));
                for (uint16_t k = 0; k < cnt && steps++ < ELF_VERSION_CHAIN_MAX; k++) {
                        uint32_t anext;

                        if (a > vs->verneed.size || vs->verneed.size - a < sizeof(Elf64_Vernaux))
                                return NULL;
                        anext = get32(vs->verneed.data + a + offsetof(Elf64_Vernaux, vna_next));
                        if (get16(vs->verneed.data + a + offsetof(Elf64_Vernaux, vna_other)) == idx)
                                return string_at(&vs->verneed_str,
                                                 get32(vs->verneed.data + a + offsetof(Elf64_Vernaux, vna_name)));
                        if (anext == 0)
                                break;
                        a += anext;
                }
                if (next == 0)
                        return NULL;
                off += next;
        }
        return NULL;
}

static int linked_strtab(const ElfView *v, const Section *s, Section *ret)
{
        *ret = (Section) {};
        if (!s->present)
                return 0;
        return section_at(v, s->link, ret);
}

static int foreach_symbol(const ElfView *v, uint32_t type, ElfSymbolFn fn, void *userdata)
{
        size_t entsize = v->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
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
                /* Version information is optional; a broken part of it is ignored, not fatal. */
                if (section_by_type(v, SHT_GNU_versym, &vs.versym) < 0)
                        vs.versym = (Section) {};
                if (section_by_type(v, SHT_GNU_verdef, &vs.verdef) < 0 ||
                    linked_strtab(v, &vs.verdef, &vs.verdef_str) < 0)
                        vs.verdef = (Section) {};
                if (section_by_type(v, SHT_GNU_verneed, &vs.verneed) < 0 ||
                    linked_strtab(v, &vs.verneed, &vs.verneed_str) < 0)
                        vs.verneed = (Section) {};
        }

        for (size_t i = 1; i < symtab.size / entsize; i++) {
                const uint8_t *p = symtab.data + i * entsize;
                ElfSymbol s = { .version = "" };
                uint16_t shndx;
                uint8_t info;

                if (v->is64) {
                        s.name = string_at(&strtab, get32(p + offsetof(Elf64_Sym, st_name)));
                        info = p[offsetof(Elf64_Sym, st_info)];
                        shndx = get16(p + offsetof(Elf64_Sym, st_shndx));
                        s.value = get64(p + offsetof(Elf64_Sym, st_value));
                        s.size = get64(p + offsetof(Elf64_Sym, st_size));
                } else {
                        s.name = string_at(&strtab, get32(p + offsetof(Elf32_Sym, st_name)));
                        info = p[offsetof(Elf32_Sym, st_info)];
                        shndx = get16(p + offsetof(Elf32_Sym, st_shndx));
                        s.value = get32(p + offsetof(Elf32_Sym, st_value));
                        s.size = get32(p + offsetof(Elf32_Sym, st_size));
                }
                if (!s.name || !s.name[0])
                        continue;
                s.type = ELF64_ST_TYPE(info);
                s.bind = ELF64_ST_BIND(info);
                s.defined = shndx != SHN_UNDEF;
                if (vs.versym.present && (i + 1) * 2 <= vs.versym.size) {
                        uint16_t ver = get16(vs.versym.data + i * 2);
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

int elf_view_foreach_dynsym(const ElfView *v, ElfSymbolFn fn, void *userdata)
{
        return foreach_symbol(v, SHT_DYNSYM, fn, userdata);
}

int elf_view_foreach_symtab(const ElfView *v, ElfSymbolFn fn, void *userdata)
{
        return foreach_symbol(v, SHT_SYMTAB, fn, userdata);
}

int elf_view_vaddr_to_offset(const ElfView *v, uint64_t vaddr, uint64_t *ret)
{
        for (size_t i = 0; i < v->phnum; i++) {
                Phdr h;

                read_phdr(v, i, &h);
                if (h.type != PT_LOAD || !(h.flags & PF_X))
                        continue;
                /* Only bytes the file has: a segment may claim more than it holds. */
                if (vaddr >= h.vaddr && h.offset <= v->size && vaddr - h.vaddr < MIN(h.filesz, v->size - h.offset)) {
                        *ret = vaddr - h.vaddr + h.offset;
                        return 0;
                }
        }
        return -ENOENT;
}

int elf_view_foreach_exec_segment(const ElfView *v, ElfSegmentFn fn, void *userdata)
{
        for (size_t i = 0; i < v->phnum; i++) {
                uint64_t len;
                Phdr h;
                int r;

                read_phdr(v, i, &h);
                if (h.type != PT_LOAD || !(h.flags & PF_X) || h.offset >= v->size)
                        continue;
                len = MIN(h.filesz, (uint64_t) v->size - h.offset);
                r = fn(v->data + h.offset, (size_t) len, h.offset, h.vaddr, userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}

int elf_view_foreach_dynamic_reloc(const ElfView *v, ElfRelocFn fn, void *userdata)
{
        size_t symsize = v->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);

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
                entsize = v->is64 ? (rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel))
                                  : (rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel));
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
                        uint64_t sym;

                        if (v->is64) {
                                uint64_t info = get64(p + offsetof(Elf64_Rel, r_info));
                                e.offset = get64(p + offsetof(Elf64_Rel, r_offset));
                                e.type = (uint32_t) ELF64_R_TYPE(info);
                                sym = ELF64_R_SYM(info);
                        } else {
                                uint32_t info = get32(p + offsetof(Elf32_Rel, r_info));
                                e.offset = get32(p + offsetof(Elf32_Rel, r_offset));
                                e.type = ELF32_R_TYPE(info);
                                sym = ELF32_R_SYM(info);
                        }
                        if (sym > 0 && sym < syms.size / symsize) {
                                const char *name = string_at(&strtab, get32(syms.data + sym * symsize));
                                e.symbol = name ?: "";
                        }
                        r = fn(&e, userdata);
                        if (r != 0)
                                return r;
                }
        }
        return 0;
}
