/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <sys/uio.h>

/* Writes dir/name atomically: a temp file in dir (created with its parents), fsync, rename over
 * name, fsync of dir. A reader sees the old content or the new, never a part. 0 or -errno. */
int write_file_atomic(const char *dir, const char *name, const char *content);
/* The same, the content in n pieces (written as they are, no copy made of them first). */
int write_file_atomic_iov(const char *dir, const char *name, const struct iovec *iov, size_t n);
/* Removes dir/name, then fsyncs dir (a removal that a crash cannot undo). 1 if removed, 0 if
 * there was none (or no dir), -errno. */
int remove_file_sync(const char *dir, const char *name);
