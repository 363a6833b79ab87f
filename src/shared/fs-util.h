/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/* mkdir -p: creates path and every missing parent with mode. 0 or -errno. */
int mkdir_p(const char *path, mode_t mode);

/* Writes dir/name atomically: a temp file in dir (created with mkdir_p), fsync, rename over
 * name, fsync of dir. A reader sees the old content or the new, never a part. 0 or -errno. */
int write_file_atomic(const char *dir, const char *name, const char *content);
