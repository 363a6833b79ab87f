/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <string.h>

#include "refstr.h"

Test(refstr, copy_and_count)
{
        char buf[] = "/etc/igmpd/conf.d/10-site.conf";
        RefStr *r = refstr_new(buf), *r2;

        cr_assert_not_null(r);
        buf[0] = 'X'; /* a copy, not the caller's buffer */
        cr_expect_str_eq(refstr_str(r), "/etc/igmpd/conf.d/10-site.conf");
        cr_expect_eq(r->n_ref, 1u);
        r2 = refstr_ref(r);
        cr_expect_eq(r2, r);
        cr_expect_eq(r->n_ref, 2u);
        cr_expect_null(refstr_unref(r));
        cr_expect_str_eq(refstr_str(r2), "/etc/igmpd/conf.d/10-site.conf");
        refstr_unref(r2);
}

Test(refstr, formatted_and_empty)
{
        _cleanup_(refstr_unrefp) RefStr *f = refstr_newf("NetworkManager:%s", "iptv wired");
        _cleanup_(refstr_unrefp) RefStr *e = refstr_new("");

        cr_expect_str_eq(refstr_str(f), "NetworkManager:iptv wired");
        cr_expect_str_eq(refstr_str(e), "");
}

Test(refstr, static_and_null)
{
        static RefStr s = REFSTR_STATIC("runtime");

        cr_expect_eq(refstr_ref(&s), &s);
        cr_expect_null(refstr_unref(&s));
        cr_expect_null(refstr_unref(&s));
        cr_expect_eq(s.n_ref, 0u);
        cr_expect_str_eq(refstr_str(&s), "runtime");
        cr_expect_null(refstr_ref(NULL));
        cr_expect_null(refstr_unref(NULL));
        cr_expect_null(refstr_str(NULL));
}
