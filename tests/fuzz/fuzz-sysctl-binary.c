/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: sysctl_binary_to_path() and sysctl_binary_format_name() on arbitrary int
 * vectors (including lengths beyond SYSCTL_BINARY_NAME_MAX), with a resolver that answers for
 * some ifindexes with long or odd names. Invariants: the path is relative, has no "//", no
 * ".." component, and a component for every int.
 */

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysctl-binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int resolve(int ifindex, char *buf, size_t len, void *userdata)
{
        (void) userdata;
        if (ifindex <= 0 || ifindex % 3 == 0)
                return -ENODEV;
        /* a name as long as the kernel allows (15) */
        snprintf(buf, len, "%s%d", ifindex % 2 ? "eth" : "very-long-nam", ifindex);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        int name[SYSCTL_BINARY_NAME_MAX + 2];
        size_t n = size / sizeof(int);
        char *path = NULL, *fmt = NULL;
        bool complete = false;
        int r;

        if (n > SYSCTL_BINARY_NAME_MAX + 2)
                n = SYSCTL_BINARY_NAME_MAX + 2;
        memcpy(name, data, n * sizeof(int));

        r = sysctl_binary_to_path(name, n, (size & 1) ? resolve : NULL, NULL, &path, &complete);
        if (n == 0)
                assert(r == -EINVAL);
        else if (n > SYSCTL_BINARY_NAME_MAX)
                assert(r == -E2BIG);
        else {
                assert(r == 0);
                assert(path);
                assert(path[0] != '/');
                assert(!strstr(path, "//"));
                assert(strcmp(path, "..") != 0 && strncmp(path, "../", 3) != 0 && !strstr(path, "/../"));
                size_t slashes = 0;
                for (const char *p = path; *p; p++)
                        slashes += *p == '/';
                assert(slashes + 1 >= n); /* at least one component per int */
        }
        free(path);

        r = sysctl_binary_format_name(name, n, &fmt);
        if (n > SYSCTL_BINARY_NAME_MAX)
                assert(r == -E2BIG);
        else {
                assert(r == 0);
                size_t dots = 0;
                for (const char *p = fmt; *p; p++)
                        dots += *p == '.';
                assert(dots == n);
        }
        free(fmt);
        return 0;
}
