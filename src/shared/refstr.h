/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * An immutable string shared by reference count. Whoever keeps a pointer to it holds a
 * reference of its own, so a string handed on (the source of a knob value: a policy file path,
 * "runtime", "NetworkManager:<profile id>") never dangles when the table it came from is
 * replaced. A static instance (REFSTR_STATIC) is never freed; ref and unref leave it alone.
 * Never logs.
 */

#include "macro.h"

typedef struct RefStr {
        unsigned n_ref; /* 0: static */
        const char *str;
} RefStr;

#define REFSTR_STATIC(s) { .n_ref = 0, .str = (s) }

/* A copy of s with one reference, or NULL on ENOMEM. */
RefStr *refstr_new(const char *s);
/* The same, formatted. */
RefStr *refstr_newf(const char *fmt, ...) _printf_(1, 2);
/* NULL-safe. */
RefStr *refstr_ref(RefStr *r);
/* NULL-safe; always returns NULL. */
RefStr *refstr_unref(RefStr *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(RefStr *, refstr_unref);

static inline const char *refstr_str(const RefStr *r)
{
        return r ? r->str : NULL;
}
