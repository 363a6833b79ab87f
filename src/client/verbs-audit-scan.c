/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpctl audit scan [PATH…]: the programs that would call the deprecated sysctl(2), whether or
 * not they run while igmpd watches. Reads ELF files under the given paths (default: the usual
 * binary and library directories) as the calling user, without the daemon, and reports what
 * src/shared/elf-sysctl.h finds: imports of sysctl, a static sysctl, system call 156 made
 * directly or through syscall(), and the libcs that define sysctl.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-sysctl.h"
#include "igmpctl.h"
#include "macro.h"
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
        void *seen; /* files and directories already looked at (FileId, a tsearch() tree) */
        size_t n_seen;
        size_t n_elf, n_unreadable, n_files;
} Scan;

static void scan_done(Scan *s)
{
        for (size_t i = 0; i < s->n_findings; i++)
                free(s->findings[i].path);
        free(s->findings);
        tdestroy(s->seen, free);
}

typedef struct FileId {
        dev_t dev;
        ino_t ino;
} FileId;

static int file_id_compare(const void *a, const void *b)
{
        const FileId *x = a, *y = b;

        return x->dev != y->dev ? (x->dev > y->dev) - (x->dev < y->dev) : (x->ino > y->ino) - (x->ino < y->ino);
}

/* Whether (dev, ino) was seen before (1); remembers it (0). -ENOMEM past the bound. */
static int scan_seen(Scan *s, const struct stat *st)
{
        FileId *id, **found;

        if (s->n_seen >= SCAN_SEEN_MAX || !(id = malloc(sizeof *id)))
                return -ENOMEM;
        *id = (FileId) { st->st_dev, st->st_ino };
        found = tsearch(id, &s->seen, file_id_compare);
        if (!found || *found != id) {
                free(id);
                return found ? 1 : -ENOMEM;
        }
        s->n_seen++;
        return 0;
}

static int scan_add(Scan *s, const char *path, const char *kind, const char *fmt, ...) _printf_(4, 5);
static int scan_add(Scan *s, const char *path, const char *kind, const char *fmt, ...)
{
        Finding *f;
        va_list ap;

        if (s->n_findings == s->allocated) {
                size_t n = MAX(s->allocated * 2, (size_t) 16);
                void *p = realloc(s->findings, n * sizeof *s->findings);
                if (!p)
                        return -ENOMEM;
                s->findings = p;
                s->allocated = n;
        }
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

static int scan_file(Scan *s, int dir_fd, const char *name, const char *path)
{
        _cleanup_close_ int fd = -EBADF;
        unsigned char magic[4];
        struct stat st;
        void *p;
        int r;

        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                s->n_unreadable++;
                return 0;
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 52)
                return 0;
        r = scan_seen(s, &st);
        if (r != 0)
                return r < 0 ? r : 0;
        s->n_files++;
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

static int scan_dir(Scan *s, int dir_fd, const char *path, unsigned depth);

/* Scans the directory name below dir_fd (path in messages and findings) unless it was seen
 * before: a PATH argument's at depth 0 (a symbolic link given is followed), or one inside a tree.
 * One that cannot be opened counts as unreadable, or with explicit is reported. */
static int scan_subdir(Scan *s, int dir_fd, const char *name, const char *path, const struct stat *st,
                       unsigned depth, bool explicit)
{
        int fd, r;

        r = scan_seen(s, st);
        if (r != 0)
                return r < 0 ? r : 0;
        fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (depth > 0 ? O_NOFOLLOW : 0));
        if (fd >= 0)
                return scan_dir(s, fd, path, depth);
        r = -errno;
        if (!explicit) {
                s->n_unreadable++;
                return 0;
        }
        fprintf(stderr, "Cannot read the directory %s: %s\n", path, strerror(-r));
        return r;
}

static int scan_dir(Scan *s, int dir_fd, const char *path, unsigned depth)
{
        DIR *d;
        struct dirent *de;
        int r = 0;

        d = fdopendir(dir_fd);
        if (!d) {
                safe_close(dir_fd);
                s->n_unreadable++;
                return 0;
        }
        while (r >= 0 && (de = readdir(d))) {
                _cleanup_free_ char *child = NULL;
                struct stat st;

                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (asprintf(&child, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", de->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                /* Symbolic links are not followed inside a tree: their targets are in the tree
                 * or not ours to read. */
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        if (depth < SCAN_DEPTH_MAX)
                                r = scan_subdir(s, dirfd(d), de->d_name, child, &st, depth + 1, false);
                } else if (S_ISREG(st.st_mode))
                        r = scan_file(s, dirfd(d), de->d_name, child);
        }
        closedir(d);
        return r;
}

/* A PATH argument: a file or a directory; symbolic links given here are followed. */
static int scan_path(Scan *s, const char *path, bool explicit)
{
        struct stat st;

        if (stat(path, &st) < 0) {
                if (!explicit)
                        return 0;
                fprintf(stderr, "Cannot scan %s: %s\n", path, strerror(errno));
                return -errno;
        }
        if (S_ISDIR(st.st_mode))
                return scan_subdir(s, AT_FDCWD, path, path, &st, 0, explicit);
        if (!S_ISREG(st.st_mode)) {
                if (explicit)
                        fprintf(stderr, "Skipping %s: not a regular file or directory.\n", path);
                return 0;
        }
        return scan_file(s, AT_FDCWD, path, path);
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
        Table *t = NULL;
        size_t n_callers = 0;
        int r = 0;

        if (arg_follow)
                return usage_error("--follow goes with audit, not with audit scan.");

        if (argc > 1)
                for (int i = 1; i < argc && r >= 0; i++)
                        r = scan_path(&s, argv[i], true);
        else
                for (size_t i = 0; default_paths[i] && r >= 0; i++)
                        r = scan_path(&s, default_paths[i], false);
        if (r == -ENOMEM) {
                fprintf(stderr, "Out of memory while scanning.\n");
                return r;
        }
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
                if (!t)
                        return -ENOMEM;
                table_set_ellipsize(t, 0, true);
                for (size_t i = 0; i < s.n_findings; i++) {
                        table_add_cell(t, s.findings[i].path);
                        table_add_cell(t, s.findings[i].kind);
                        table_add_cell(t, s.findings[i].detail);
                }
                r = table_print(t, stdout, arg_legend);
                table_free(t);
                if (r < 0)
                        return r;
        }
        if (arg_legend)
                printf("%s%zu program%s or librar%s import or call sysctl(2); %zu ELF files scanned%s%zu unreadable.\n",
                       s.n_findings > 0 ? "\n" : "", n_callers, n_callers == 1 ? "" : "s",
                       n_callers == 1 ? "y" : "ies", s.n_elf, ", ", s.n_unreadable);
        return 0;
}
