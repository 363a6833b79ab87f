/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Enumerates drop-in files across an ordered list of directories, systemd style: for files with
 * the same name the first directory wins; an empty file or a symlink to /dev/null masks the
 * name; the rest come back in lexical order of their file name, whatever their directory.
 */

#include <dirent.h>
#include <stddef.h>

#include "macro.h"

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
