/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <stdio.h>

#include "config-problems.h"

Test(config_problems, kept_in_order_and_bounded)
{
        ConfigProblems p = {};
        char msg[64];

        cr_assert_eq(config_problems_add(&p, "/etc/igmpd/conf.d/a.conf", 3, "Version=7 is out of range, ignoring."), 0);
        cr_assert_eq(config_problems_add(&p, NULL, 0, "Too many policy files."), 0);
        cr_expect_eq(p.n, 2);
        cr_expect_eq(p.n_total, 2);
        cr_expect_str_eq(p.items[0].file, "/etc/igmpd/conf.d/a.conf");
        cr_expect_eq(p.items[0].line, 3);
        cr_expect_str_eq(p.items[0].message, "Version=7 is out of range, ignoring.");
        cr_expect_null(p.items[1].file);

        /* A directory full of broken files: all counted, the first CONFIG_PROBLEMS_MAX kept. */
        for (int i = 0; i < 1000; i++) {
                snprintf(msg, sizeof msg, "problem %d", i);
                cr_assert_eq(config_problems_add(&p, "/x.conf", (unsigned) i + 1, msg), 0);
        }
        cr_expect_eq(p.n, CONFIG_PROBLEMS_MAX);
        cr_expect_eq(p.n_total, 1002);
        cr_expect_str_eq(p.items[CONFIG_PROBLEMS_MAX - 1].message, "problem 61");

        config_problems_done(&p);
        cr_expect_eq(p.n, 0);
        cr_expect_eq(p.n_total, 0);
        config_problems_done(&p); /* twice is fine */
}
