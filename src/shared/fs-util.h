/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Writes dir/name atomically: a temp file in dir (created with its parents), fsync, rename over
 * name, fsync of dir. A reader sees the old content or the new, never a part. 0 or -errno. */
int write_file_atomic(const char *dir, const char *name, const char *content);
