/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the ELF reader (elf-util.c) and the sysctl(2) findings on top of it
 * (elf-sysctl.c), as igmpctl audit scan and the BPF helper use them on any file. Invariants:
 * no read outside the input (ASan), every offset found lies inside it, strings terminated.
 */

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "elf-sysctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_symbol(const ElfSymbol *s, void *userdata)
{
        assert(s->name && s->version);
        assert(strlen(s->name) < 1u << 24);
        (*(size_t *) userdata)++;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        ElfSysctlInfo info;
        uint64_t offset;
        size_t n = 0;
        ElfView v;

        if (elf_view_init(&v, data, size) < 0)
                return 0;
        (void) elf_view_foreach_symbol(&v, true, count_symbol, &n);
        (void) elf_view_foreach_symbol(&v, false, count_symbol, &n);
        if (elf_sysctl_inspect(&v, &info) == 0) {
                assert(memchr(info.import_version, '\0', sizeof info.import_version));
                assert(memchr(info.defined_version, '\0', sizeof info.defined_version));
                assert(!info.raw_syscall || info.raw_offset < size);
                assert(!info.via_syscall_function || info.via_offset < size);
        }
        if (elf_sysctl_compat_offset(&v, &offset) > 0)
                assert(offset < size);
        return 0;
}
