/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Cleanup macros and small helpers used everywhere. Nothing here logs or allocates on its own.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define STRLEN(x) (sizeof("" x "") - 1)
/* An enum value's name from its string table; NULL for a value out of range (or unnamed). */
#define TABLE_NAME(table, v) ((v) >= 0 && (size_t) (v) < ELEMENTSOF(table) ? (table)[v] : NULL)

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Take ownership of a pointer or fd: returns it and sets the variable to NULL or -EBADF, so
 * cleanup skips it. */
#define TAKE_GENERIC(var, null_value)                \
        ({                                           \
                __typeof__(var) _var_ = (var);       \
                (var) = (null_value);                \
                _var_;                               \
        })
#define TAKE_PTR(p) TAKE_GENERIC(p, NULL)
#define TAKE_FD(fd) TAKE_GENERIC(fd, -EBADF)

/* Defines name##p(type *p) that calls func(*p) when *p is non-NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)      \
        static inline void func##p(type *p)          \
        {                                            \
                if (*p)                              \
                        func(*p);                    \
        }

static inline void freep(void *p)
{
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd)
{
        if (fd >= 0) {
                int saved = errno;
                close(fd);
                errno = saved;
        }
        return -EBADF;
}

static inline void close_many(const int *fds, size_t n_fds)
{
        for (size_t i = 0; i < n_fds; i++)
                safe_close(fds[i]);
}

static inline void closep(int *fd)
{
        safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose);
#define _cleanup_fclose_ _cleanup_(fclosep)

char **strv_free(char **l); /* strv.h */
static inline void strv_freep(char ***l)
{
        *l = strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

static inline bool streq(const char *a, const char *b)
{
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b)
{
        if (!a || !b)
                return a == b;
        return streq(a, b);
}

static inline bool isempty(const char *s)
{
        return !s || !*s;
}

static inline const char *strempty(const char *s)
{
        return s ?: "";
}

static inline const char *strna(const char *s)
{
        return s ?: "n/a";
}

/* Returns the part of s after prefix, or NULL if s does not start with it. */
static inline const char *startswith(const char *s, const char *prefix)
{
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

static inline bool endswith(const char *s, const char *suffix)
{
        size_t ls = strlen(s), lx = strlen(suffix);
        return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

/* The clock's time in µs (CLOCK_MONOTONIC, CLOCK_REALTIME); 0 if it cannot be read. */
static inline uint64_t now_usec(clockid_t clock)
{
        struct timespec ts = {};

        (void) clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static inline void *mfree(void *p)
{
        free(p);
        return NULL;
}

/* Value of a hex digit, or -EINVAL. */
static inline int unhexchar(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -EINVAL;
}

/* Replaces *p with a copy of s (or NULL). Returns 0 or -ENOMEM. */
static inline int free_and_strdup(char **p, const char *s)
{
        char *t = NULL;

        if (s) {
                t = strdup(s);
                if (!t)
                        return -ENOMEM;
        }
        free(*p);
        *p = t;
        return 0;
}

/* errno as a negative value, never 0 (for libc calls that failed without setting errno). */
static inline int negative_errno(void)
{
        return errno > 0 ? -errno : -EIO;
}
