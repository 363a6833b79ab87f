/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The drop-in directories and the INI tokenizer shared by policy files, runtime files and
 * igmpd.conf.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "array-util.h"
#include "conf-parser.h"
#include "strv.h"

void config_diagf(ConfigDiagFn diag, void *userdata, const char *file, unsigned line, const char *fmt, ...)
{
        char msg[512];
        va_list ap;

        if (!diag)
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        diag(userdata, file, line, msg);
}

void config_read_failed(ConfigDiagFn diag, ConfigFileFn file, void *userdata, const char *path, int r)
{
        config_diagf(diag, userdata, path, 0, "Failed to read file: %s, ignoring.",
                     r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
        if (file)
                file(userdata, path, CONFIG_FILE_SKIPPED);
}

/* A mistake in the structure of the file: with strict, it skips the file (see strict_sections);
 * else it ignores the line, or what ignoring names. fmt is a literal. */
#define config_diag_strict(ctx, strict, ignoring, fmt, ...)                           \
        ((strict) ? config_diag_invalid(ctx, fmt ", file skipped.", ##__VA_ARGS__) \
                  : config_diag(ctx, fmt ", ignoring%s.", ##__VA_ARGS__, ignoring))

static char *strip(char *s)
{
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                *--e = '\0';
        return s;
}

/* Prints at most 40 bytes of untrusted text, with anything unprintable shown as '?'. */
static const char *sanitize(const char *s, char *buf, size_t size)
{
        size_t i;

        for (i = 0; s[i] && i + 4 < size && i < 40; i++)
                buf[i] = isprint((unsigned char) s[i]) ? s[i] : '?';
        if (s[i])
                buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
        buf[i] = '\0';
        return buf;
}

int config_parse_buffer(ConfigContext *ctx, const char *buf, size_t len)
{
        _cleanup_free_ char *section = NULL;
        bool section_ignored = false;
        char line[CONFIG_LINE_MAX + 1], tmp[64];
        size_t pos = 0;

        ctx->n_errors = 0;
        ctx->line = 0;
        ctx->invalid = false;

        while (pos < len) {
                const char *nl = memchr(buf + pos, '\n', len - pos);
                size_t n = nl ? (size_t) (nl - (buf + pos)) : len - pos;
                const char *raw = buf + pos;
                char *l, *eq;

                pos += n + (nl ? 1 : 0);
                ctx->line++;

                /* An unreadable line in a strict section (or before any section) may have been a
                 * match condition: skip the file rather than the line. */
                bool strict = ctx->strict_sections && (!section || section_ignored ||
                                                       strv_contains((char *const *) ctx->strict_sections, section));
                if (memchr(raw, '\0', n)) {
                        config_diag_strict(ctx, strict, "", "Line contains a NUL byte (binary file?)");
                        continue;
                }
                if (n > CONFIG_LINE_MAX) {
                        config_diag_strict(ctx, strict, "", "Line longer than %d bytes", CONFIG_LINE_MAX);
                        continue;
                }
                memcpy(line, raw, n);
                line[n] = '\0';
                l = strip(line);

                if (*l == '\0' || *l == '#' || *l == ';')
                        continue;

                if (*l == '[') {
                        size_t k = strlen(l);
                        if (k < 3 || l[k - 1] != ']') {
                                config_diag_strict(ctx, ctx->strict_sections, " the section",
                                                   "Invalid section header '%s'", sanitize(l, tmp, sizeof tmp));
                                section = mfree(section);
                                section_ignored = true;
                                continue;
                        }
                        l[k - 1] = '\0';
                        free(section);
                        section = strdup(l + 1);
                        if (!section)
                                return -ENOMEM;
                        section_ignored = ctx->sections && !strv_contains((char *const *) ctx->sections, section);
                        if (section_ignored)
                                config_diag_strict(ctx, ctx->strict_sections, "", "Unknown section [%s]",
                                                   sanitize(section, tmp, sizeof tmp));
                        continue;
                }

                eq = strchr(l, '=');
                if (!eq) {
                        strict = strict && !section_ignored;
                        config_diag_strict(ctx, strict, "", "Missing '=' in '%s'%s%s%s", sanitize(l, tmp, sizeof tmp),
                                           strict && section ? " in section [" : "", strict && section ? section : "",
                                           strict && section ? "]" : "");
                        continue;
                }
                if (section_ignored)
                        continue;
                if (!section) {
                        config_diag_strict(ctx, ctx->strict_sections, "", "Assignment outside of a section");
                        continue;
                }
                *eq = '\0';
                char *key = strip(l), *value = strip(eq + 1);
                if (*key == '\0') {
                        config_diag(ctx, "Missing key name before '=', ignoring.");
                        continue;
                }
                if (ctx->item) {
                        int r = ctx->item(ctx, section, key, value);
                        if (r == -ENOMEM)
                                return r;
                }
        }

        return (int) ctx->n_errors;
}

int config_read_file(const char *path, char **ret_buf, size_t *ret_len)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t len = 0;

        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
                return -EBADFD;
        if (st.st_size > CONFIG_FILE_MAX)
                return -EFBIG;

        /* Sized by fstat() (plus room to notice a file that grew), not by the 1 MiB limit: a
         * reload reads up to CONF_FILES_MAX files. */
        size_t size = 0, first = MAX(MIN((size_t) st.st_size + 1, (size_t) CONFIG_FILE_MAX + 1), (size_t) 64);
        for (;;) {
                if (len == size) { /* the first time, grew since fstat(), or a character device */
                        size = size == 0 ? first : MIN(size * 2, (size_t) CONFIG_FILE_MAX + 1);
                        char *nb = realloc(buf, size + 1);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                }
                ssize_t n = read(fd, buf + len, size - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > CONFIG_FILE_MAX)
                        return -EFBIG;
        }
        buf[len] = '\0';

        *ret_buf = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

int parse_boolean(const char *s)
{
        /* The first half says no, the second yes. */
        static const char *const words[] = { "0", "no", "n", "false", "f", "off", "1", "yes", "y", "true", "t", "on" };

        for (size_t i = 0; s && i < ELEMENTSOF(words); i++)
                if (strcasecmp(s, words[i]) == 0)
                        return i >= ELEMENTSOF(words) / 2;
        return -EINVAL;
}

int parse_size(const char *s, unsigned long long *ret)
{
        unsigned long long v, mult = 1;
        char *end;

        if (!s || !isdigit((unsigned char) *s))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        while (isspace((unsigned char) *end))
                end++;
        if (*end) {
                switch (*end) {
                case 'K': case 'k': mult = 1024ULL; break;
                case 'M': case 'm': mult = 1024ULL * 1024; break;
                case 'G': case 'g': mult = 1024ULL * 1024 * 1024; break;
                default: return -EINVAL;
                }
                end++;
                if (*end == 'i' || *end == 'B')
                        end++;
                if (*end == 'B' && end[-1] == 'i')
                        end++;
                if (*end)
                        return -EINVAL;
        }
        if (v > ULLONG_MAX / mult)
                return -ERANGE;
        *ret = v * mult;
        return 0;
}

char *path_join_root(const char *root, const char *path)
{
        char *p;

        if (isempty(root) || streq(root, "/"))
                return strdup(path);
        while (*path == '/')
                path++;
        size_t lr = strlen(root);
        while (lr > 1 && root[lr - 1] == '/')
                lr--;
        if (asprintf(&p, "%.*s/%s", (int) lr, root, path) < 0)
                return NULL;
        return p;
}

typedef struct Entry {
        ConfFile file;
        unsigned priority; /* index of the directory: lower wins */
        bool masked;
} Entry;

static int entry_cmp(const void *a, const void *b)
{
        const Entry *x = a, *y = b;
        int c = strcmp(x->file.name, y->file.name);

        if (c != 0)
                return c;
        return (x->priority > y->priority) - (x->priority < y->priority);
}

/* Masked: an empty regular file or a symlink to /dev/null. */
static int entry_state(int dfd, const char *name, bool *ret_masked)
{
        struct stat st;
        char target[64];
        ssize_t n;

        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return negative_errno();
        if (S_ISLNK(st.st_mode)) {
                n = readlinkat(dfd, name, target, sizeof target - 1);
                if (n > 0) {
                        target[n] = '\0';
                        if (streq(target, "/dev/null")) {
                                *ret_masked = true;
                                return 0;
                        }
                }
                /* Other symlinks: decide by what they point to (a dangling one or a loop is
                 * still listed: reading it reports the problem). */
                if (fstatat(dfd, name, &st, 0) < 0) {
                        *ret_masked = false;
                        return 0;
                }
        }
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        *ret_masked = (S_ISREG(st.st_mode) && st.st_size == 0) || S_ISCHR(st.st_mode);
        return 0;
}

static void conf_file_done(ConfFile *f)
{
        free(f->name);
        free(f->path);
}

int conf_files_list(const char *root, const char *const *dirs, const char *suffix, ConfFileList *ret)
{
        Entry *entries = NULL;
        size_t n = 0, allocated = 0, n_dropped = 0;
        ConfFileList l = {};
        int r = 0;

        /* Collect every candidate with the rank of its directory … */
        for (unsigned prio = 0; dirs[prio]; prio++) {
                _cleanup_free_ char *dir = path_join_root(root, dirs[prio]);
                _cleanup_(closedirp) DIR *dp = NULL;
                struct dirent *de;

                if (!dir) {
                        r = -ENOMEM;
                        goto finish;
                }
                dp = opendir(dir);
                if (!dp)
                        continue; /* absent or unreadable directory: nothing from it */

                while ((de = readdir(dp))) {
                        bool masked = false;

                        if (de->d_name[0] == '.' || !endswith(de->d_name, suffix))
                                continue;
                        if (entry_state(dirfd(dp), de->d_name, &masked) == -EISDIR)
                                continue;
                        if (n >= CONF_FILES_MAX) {
                                n_dropped++;
                                continue;
                        }
                        r = ARRAY_GROW(entries, allocated, n, 32);
                        if (r < 0)
                                goto finish;
                        Entry *e = &entries[n++];
                        *e = (Entry) { .file.name = strdup(de->d_name), .priority = prio, .masked = masked };
                        if (asprintf(&e->file.path, "%s/%s", dir, de->d_name) < 0)
                                e->file.path = NULL;
                        if (!e->file.name || !e->file.path) {
                                r = -ENOMEM;
                                goto finish;
                        }
                }
        }

        /* … then sort by name and directory rank: the first of each name wins, and a masked
         * winner hides the name altogether. */
        if (n > 0)
                qsort(entries, n, sizeof *entries, entry_cmp);

        l.files = calloc(n ?: 1, sizeof *l.files);
        l.masked = calloc(n ?: 1, sizeof *l.masked);
        if (!l.files || !l.masked) {
                r = -ENOMEM;
                goto finish;
        }
        const char *prev = NULL; /* name of the previous winner (still owned by entries or l) */
        for (size_t i = 0; i < n; i++) {
                if (prev && streq(entries[i].file.name, prev))
                        continue;
                prev = entries[i].file.name;
                if (entries[i].masked)
                        l.masked[l.n_masked++] = entries[i].file;
                else
                        l.files[l.n++] = entries[i].file;
                entries[i].file = (ConfFile) {};
        }
        l.n_dropped = n_dropped;
        *ret = l;
        l = (ConfFileList) {};

finish:
        for (size_t i = 0; i < n; i++)
                conf_file_done(&entries[i].file);
        free(entries);
        conf_file_list_done(&l);
        return r;
}

void conf_file_list_done(ConfFileList *l)
{
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                conf_file_done(&l->files[i]);
        for (size_t i = 0; i < l->n_masked; i++)
                conf_file_done(&l->masked[i]);
        free(l->files);
        free(l->masked);
        *l = (ConfFileList) {};
}
