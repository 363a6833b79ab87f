/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A small INI parser in the style of systemd's unit files: "[Section]" headers, "Key=Value"
 * lines, '#' and ';' comments, surrounding whitespace trimmed. It never logs: problems go to the
 * caller's diagnostic callback as (file, line, message), so the daemon, --check and the tests
 * all see the same text.
 *
 * And the drop-in files it reads, across an ordered list of directories, systemd style: for
 * files with the same name the first directory wins; an empty file or a symlink to /dev/null
 * masks the name; the rest come back in lexical order of their file name, whatever their
 * directory.
 */

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

#define CONFIG_FILE_MAX (1024 * 1024) /* larger files are refused as a whole */
#define CONFIG_LINE_MAX 4096

typedef struct ConfigContext ConfigContext;

/* Called for every assignment. Returns 0, or <0 after reporting the problem with config_diag(). */
typedef int (*ConfigItemFn)(ConfigContext *ctx, const char *section, const char *key, const char *value);

/* Receives every problem, already formatted ("Unknown key 'Foo' in section [IGMP], ignoring."). */
typedef void (*ConfigDiagFn)(void *userdata, const char *file, unsigned line, const char *message);

/* What a loader did with a file it found (for igmpd --check's list of files). */
typedef enum ConfigFileUse {
        CONFIG_FILE_USED,    /* read; it applies (lines with problems are ignored) */
        CONFIG_FILE_SKIPPED, /* not used at all: unreadable, or a mistake that could widen it
                              * (the reason went to the diagnostic callback first) */
        CONFIG_FILE_MASKED,  /* empty or a symlink to /dev/null: masks the name */
} ConfigFileUse;

/* Receives every file a loader looked at, in the order it did. */
typedef void (*ConfigFileFn)(void *userdata, const char *path, ConfigFileUse use);

struct ConfigContext {
        const char *filename;
        unsigned line;
        ConfigItemFn item;
        ConfigDiagFn diag;
        void *userdata;      /* for diag */
        void *item_userdata; /* for item */
        unsigned n_errors;
        const char *const *sections; /* NULL-terminated list of known sections, or NULL for any */
        /* Strict files (policy files): a mistake in the file's structure — an unknown or
         * malformed section header, an assignment outside any section, a line without '=' in
         * one of these sections (NULL-terminated; may be empty) — makes the whole file invalid
         * (ctx->invalid), since ignoring just the line could make the file apply more widely
         * than written. NULL: such a problem only ignores the line. */
        const char *const *strict_sections;
        bool invalid; /* set by config_diag_invalid(): the caller must not use the file */
};

/* Formats a message for diag (which may be NULL), outside of config_parse_buffer(). */
void config_diagf(ConfigDiagFn diag, void *userdata, const char *file, unsigned line, const char *fmt, ...)
        _printf_(5, 6);
/* A problem of the file ctx parses, counted in n_errors. */
#define config_diag(ctx, ...) \
        ((ctx)->n_errors++,   \
         config_diagf((ctx)->diag, (ctx)->userdata, (ctx)->filename, (ctx)->line, __VA_ARGS__))
/* Like config_diag(), and marks the file invalid; the message should end in "file skipped.". */
#define config_diag_invalid(ctx, ...) ((ctx)->invalid = true, config_diag(ctx, __VA_ARGS__))

/* Parses a buffer (need not be NUL-terminated). Returns the number of problems found (≥ 0). */
int config_parse_buffer(ConfigContext *ctx, const char *buf, size_t len);

/* Reads a whole file, refusing more than CONFIG_FILE_MAX bytes. Returns 0 or -errno (-EFBIG). */
int config_read_file(const char *path, char **ret_buf, size_t *ret_len);

/* Says that path could not be read (r from config_read_file()) and is skipped: to diag
 * ("Failed to read file: …, ignoring.") and to file (CONFIG_FILE_SKIPPED); both may be NULL. */
void config_read_failed(ConfigDiagFn diag, ConfigFileFn file, void *userdata, const char *path, int r);

/* Parses yes/no/true/false/on/off/1/0. Returns 1, 0 or -EINVAL. */
int parse_boolean(const char *s);

/* Parses a size with optional K, M, G suffix (1024-based). 0 or -EINVAL/-ERANGE. */
int parse_size(const char *s, unsigned long long *ret);

#define CONF_FILES_MAX 16384 /* beyond this, further files are not read (counted in n_dropped) */

typedef struct ConfFile {
        char *name; /* file name, e.g. "50-iptv.conf" */
        char *path; /* full path it was found at */
} ConfFile;

typedef struct ConfFileList {
        ConfFile *files;
        size_t n;
        ConfFile *masked; /* the names masked, each with the path that masks it */
        size_t n_masked;
        size_t n_dropped; /* files left out past CONF_FILES_MAX */
} ConfFileList;

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

/* root may be NULL or "" for "/". dirs is NULL-terminated; each is joined to root. */
int conf_files_list(const char *root, const char *const *dirs, const char *suffix, ConfFileList *ret);
void conf_file_list_done(ConfFileList *l);

/* Joins root and an absolute path ("/etc/igmpd"), allocating. NULL on ENOMEM. */
char *path_join_root(const char *root, const char *path);
