/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpctl audit scan [PATH…]: the programs that would call the deprecated sysctl(2), whether or
 * not they run while igmpd watches. Reads ELF files under the given paths (default: the usual
 * binary and library directories) as the calling user, without the daemon, and reports what
 * src/shared/elf-sysctl.h finds: imports of sysctl, a static sysctl, system call 156 made
 * directly or through syscall(), and the libcs that define sysctl.
 */

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array-util.h"
#include "elf-sysctl.h"
#include "igmpctl.h"
#include "macro.h"
#include "namemap.h"
#include "output.h"
#include "terminal.h"

#define SCAN_DEPTH_MAX 16
#define SCAN_SEEN_MAX (1U << 22) /* files and directories remembered (hard links, bind mounts) */

static const char *const default_paths[] = {
        "/usr/bin", "/usr/sbin", "/usr/libexec", "/usr/lib", "/usr/lib64", "/usr/local/bin",
        "/usr/local/sbin", "/usr/local/lib", "/usr/local/libexec", "/bin", "/sbin", "/lib", "/lib64",
        "/opt", NULL,
};

typedef struct Finding {
        char *path;
        const char *kind;   /* import, static, syscall, syscall(), libc-compat, libc */
        char detail[160];
} Finding;

typedef struct Scan {
        Finding *findings;
        size_t n_findings, allocated;
        NameMap seen; /* files and directories already looked at, by "dev:ino" */
        size_t n_elf, n_unreadable;
} Scan;

static void scan_done(Scan *s)
{
        for (size_t i = 0; i < s->n_findings; i++)
                free(s->findings[i].path);
        free(s->findings);
        namemap_done(&s->seen);
}

/* Whether (dev, ino) was seen before (1); remembers it (0). -ENOMEM past the bound. */
static int scan_seen(Scan *s, const struct stat *st)
{
        char key[48];

        snprintf(key, sizeof key, "%jx:%jx", (uintmax_t) st->st_dev, (uintmax_t) st->st_ino);
        if (namemap_get(&s->seen, key))
                return 1;
        return s->seen.n < SCAN_SEEN_MAX && namemap_put(&s->seen, key, s) >= 0 ? 0 : -ENOMEM;
}

static _printf_(4, 5) int scan_add(Scan *s, const char *path, const char *kind, const char *fmt, ...)
{
        Finding *f;
        va_list ap;

        if (ARRAY_GROW(s->findings, s->allocated, s->n_findings, 16) < 0)
                return -ENOMEM;
        f = &s->findings[s->n_findings];
        *f = (Finding) { .path = strdup(path), .kind = kind };
        if (!f->path)
                return -ENOMEM;
        va_start(ap, fmt);
        vsnprintf(f->detail, sizeof f->detail, fmt, ap);
        va_end(ap);
        s->n_findings++;
        return 0;
}

static int scan_elf(Scan *s, const char *path, const uint8_t *data, size_t size)
{
        ElfSysctlInfo info;
        ElfView v;
        int r;

        if (elf_view_init(&v, data, size) < 0)
                return 0;
        if (v.type != 2 /* ET_EXEC */ && v.type != 3 /* ET_DYN */)
                return 0;
        s->n_elf++;
        if (elf_sysctl_inspect(&v, &info) < 0)
                return 0; /* damaged: not ours to judge */

        r = 0;
        if (info.defines_compat)
                r = scan_add(s, path, "libc-compat",
                             "defines sysctl@%s: answers ENOSYS without a system call (the libc source probes it)",
                             info.defined_version);
        else if (info.defines_default)
                r = scan_add(s, path, "libc", "defines sysctl%s%s: makes the system call",
                             info.defined_version[0] ? "@@" : "", info.defined_version);
        if (r >= 0 && info.imports)
                r = scan_add(s, path, "import", "calls libc's %s%s%s", info.import_symbol,
                             info.import_version[0] ? "@" : "", info.import_version);
        if (r >= 0 && info.static_symbol)
                r = scan_add(s, path, "static", "linked statically with a libc that has sysctl");
        if (r >= 0 && info.raw_syscall && !info.defines_default)
                r = scan_add(s, path, "syscall", "system call %d at file offset 0x%" PRIx64 " (heuristic)",
                             v.machine == 3 /* EM_386 */ ? ELF_SYSCTL_NR_I386 : ELF_SYSCTL_NR_X86_64,
                             info.raw_offset);
        if (r >= 0 && info.via_syscall_function)
                r = scan_add(s, path, "syscall()", "syscall(156, %s) at file offset 0x%" PRIx64 " (heuristic)",
                             glyph(GLYPH_ELLIPSIS), info.via_offset);
        return r;
}

static int scan_file(Scan *s, const char *path)
{
        _cleanup_close_ int fd = -EBADF;
        unsigned char magic[4];
        struct stat st;
        void *p;
        int r;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                s->n_unreadable++;
                return 0;
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 52)
                return 0;
        r = scan_seen(s, &st);
        if (r != 0)
                return r < 0 ? r : 0;
        if (pread(fd, magic, sizeof magic, 0) != sizeof magic || memcmp(magic, "\177ELF", 4) != 0)
                return 0;
        p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
                s->n_unreadable++;
                return 0;
        }
        r = scan_elf(s, path, p, (size_t) st.st_size);
        munmap(p, (size_t) st.st_size);
        return r;
}

/* The tree under the directory path. Symbolic links are not followed inside it: their targets are
 * in the tree or not ours to read. A directory seen before (bind mounts) is skipped; one that
 * cannot be read counts as unreadable, or, the one given explicitly, is reported. */
static int scan_tree(Scan *s, const char *path, bool explicit)
{
        FTS *fts = fts_open((char *[]) { (char *) path, NULL }, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR, NULL);
        FTSENT *e;
        int r = 0;

        if (!fts)
                return -errno;
        while (r >= 0 && (e = fts_read(fts))) {
                if (e->fts_info == FTS_D) {
                        r = e->fts_level > SCAN_DEPTH_MAX ? 1 : scan_seen(s, e->fts_statp);
                        if (r > 0)
                                r = fts_set(fts, e, FTS_SKIP);
                } else if (e->fts_info == FTS_F)
                        r = scan_file(s, e->fts_path);
                else if (e->fts_info == FTS_DNR && e->fts_level == 0 && explicit) {
                        fprintf(stderr, "Cannot read the directory %s: %s\n", path, strerror(e->fts_errno));
                        r = -e->fts_errno;
                } else if (e->fts_info == FTS_DNR)
                        s->n_unreadable++;
        }
        fts_close(fts);
        return r;
}

/* A PATH argument: a file or a directory; symbolic links given here are followed. */
static int scan_path(Scan *s, const char *path, bool explicit)
{
        struct stat st;

        if (stat(path, &st) < 0) {
                int r = -errno;

                if (explicit)
                        fprintf(stderr, "Cannot scan %s: %s\n", path, strerror(-r));
                return explicit ? r : 0;
        }
        if (S_ISDIR(st.st_mode))
                return scan_tree(s, path, explicit);
        if (!S_ISREG(st.st_mode)) {
                if (explicit)
                        fprintf(stderr, "Skipping %s: not a regular file or directory.\n", path);
                return 0;
        }
        return scan_file(s, path);
}

static int finding_compare(const void *a, const void *b)
{
        const Finding *x = a, *y = b;
        int c = strcmp(x->path, y->path);
        return c != 0 ? c : strcmp(x->kind, y->kind);
}

int verb_audit_scan(int argc, char **argv)
{
        _cleanup_(scan_done) Scan s = {};
        _cleanup_(table_freep) Table *t = NULL;
        size_t n_callers = 0;
        int r = 0;

        if (arg_follow)
                return usage_error("--follow goes with audit, not with audit scan.");

        const char *const *paths = argc > 1 ? (const char *const *) argv + 1 : default_paths;

        for (const char *const *p = paths; *p && r >= 0; p++)
                r = scan_path(&s, *p, argc > 1);
        if (r == -ENOMEM)
                fprintf(stderr, "Out of memory while scanning.\n");
        if (r < 0)
                return r;
        qsort(s.findings, s.n_findings, sizeof *s.findings, finding_compare);
        /* Files that call it (a libc merely defining it does not count). */
        for (size_t i = 0, last = SIZE_MAX; i < s.n_findings; i++) {
                if (startswith(s.findings[i].kind, "libc"))
                        continue;
                if (last == SIZE_MAX || !streq(s.findings[i].path, s.findings[last].path))
                        n_callers++;
                last = i;
        }

        if (arg_json != JSON_OFF) {
                JsonWriter w;

                json_start(&w);
                json_begin_object(&w);
                json_key(&w, "files");
                json_begin_array(&w);
                for (size_t i = 0; i < s.n_findings; i++) {
                        json_begin_object(&w);
                        json_fields(&w, "path", s.findings[i].path, "finding", s.findings[i].kind, "detail",
                                    s.findings[i].detail, NULL);
                        json_end_object(&w);
                }
                json_end_array(&w);
                json_field_uint(&w, "elf_files_scanned", s.n_elf);
                json_field_uint(&w, "unreadable", s.n_unreadable);
                json_end_object(&w);
                return json_done(&w);
        }

        if (s.n_findings > 0) {
                t = table_new((const char *const[]) { "PATH", "FINDING", "DETAIL", NULL });
                table_set_ellipsize(t, 0, ELLIPSIZE_PATH);
                for (size_t i = 0; i < s.n_findings; i++) {
                        table_add_cell(t, s.findings[i].path);
                        table_add_cell(t, s.findings[i].kind);
                        table_add_cell(t, s.findings[i].detail);
                }
                r = table_print(t, stdout, arg_legend);
                if (r < 0)
                        return r;
        }
        if (arg_legend)
                printf("%s%zu program%s or librar%s import or call sysctl(2); %zu ELF files scanned%s%zu unreadable.\n",
                       s.n_findings > 0 ? "\n" : "", n_callers, n_callers == 1 ? "" : "s",
                       n_callers == 1 ? "y" : "ies", s.n_elf, ", ", s.n_unreadable);
        return 0;
}
