/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stddef.h>

/* A file written in pieces and put in place whole: a temp file in dir (created with its
 * parents), then fsync, rename over name, fsync of dir. A reader sees the old content or the
 * new, never a part. */
typedef struct AtomicFile {
        int dfd, fd; /* fd: the temp file, to write to */
        char tmp[64];
        const char *name; /* borrowed */
} AtomicFile;
#define ATOMIC_FILE_NULL ((AtomicFile) { .dfd = -EBADF, .fd = -EBADF })

/* 0 or -errno (then nothing is left behind). */
int atomic_file_open(AtomicFile *f, const char *dir, const char *name);
/* Puts the temp file in place of name. 0 or -errno; either way the file is closed. */
int atomic_file_commit(AtomicFile *f);
/* Removes the temp file unless committed, closes. For any AtomicFile, open or not. */
void atomic_file_abort(AtomicFile *f);

/* All of len bytes, or -errno (-EIO if the file takes none). */
int write_all(int fd, const void *p, size_t len);
/* Writes dir/name atomically (AtomicFile). 0 or -errno. */
int write_file_atomic(const char *dir, const char *name, const char *content);
/* Removes dir/name, then fsyncs dir (a removal that a crash cannot undo). 1 if removed, 0 if
 * there was none (or no dir), -errno. */
int remove_file_sync(const char *dir, const char *name);
