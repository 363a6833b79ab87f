/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "namemap.h"

#define P(i) ((void *) (uintptr_t) ((i) * 2 + 1))
#define N_NAMES 5000

static void name_of(int i, char buf[32])
{
        /* Short names that differ in one byte, as interface names do (eth0, eth1, …), and some
         * bytes that are not UTF-8. */
        if (i % 7 == 0)
                snprintf(buf, 32, "bad\xff%d", i);
        else
                snprintf(buf, 32, "veth%d", i);
}

Test(namemap, put_get_remove_churn)
{
        static void *model[N_NAMES];
        NameMap m = {};
        unsigned seed = 7;
        char name[32];
        size_t n = 0;

        for (int round = 0; round < 100000; round++) {
                int i = (int) (rand_r(&seed) % N_NAMES);

                name_of(i, name);
                switch (rand_r(&seed) % 4) {
                case 0:
                        cr_assert_eq(namemap_get(&m, name), model[i]);
                        cr_assert_eq(namemap_remove_value(&m, name, P(i)), model[i] != NULL);
                        model[i] = NULL;
                        break;
                case 1:
                        /* Removal of what the name does not map to leaves it. */
                        cr_assert_eq(namemap_remove_value(&m, name, P(i + 1)), false);
                        cr_assert_eq(namemap_remove_value(&m, name, P(i)), model[i] != NULL);
                        model[i] = NULL;
                        break;
                default:
                        cr_assert_eq(namemap_put(&m, name, P(i)), 0);
                        model[i] = P(i);
                }
        }
        for (int i = 0; i < N_NAMES; i++) {
                name_of(i, name);
                cr_assert_eq(namemap_get(&m, name), model[i], "name %s", name);
                n += model[i] != NULL;
        }
        cr_expect_eq(m.n, n);
        namemap_done(&m);
        cr_expect_eq(m.n, 0);
        cr_expect_null(namemap_get(&m, "veth1"));
}

Test(namemap, replace_and_prefixes)
{
        NameMap m = {};

        cr_assert_eq(namemap_put(&m, "eth0", P(1)), 0);
        cr_assert_eq(namemap_put(&m, "eth0", P(2)), 0); /* the latest wins */
        cr_expect_eq(m.n, 1);
        cr_expect_eq(namemap_get(&m, "eth0"), P(2));
        cr_expect_null(namemap_get(&m, "eth"));
        cr_expect_null(namemap_get(&m, "eth00"));
        cr_expect_null(namemap_get(&m, ""));
        cr_expect_null(namemap_get(&m, NULL));
        cr_expect_eq(namemap_put(&m, "x", NULL), -EINVAL);
        cr_expect_eq(namemap_put(&m, NULL, P(1)), -EINVAL);
        cr_expect_eq(namemap_remove_value(&m, "eth0", P(1)), false);
        cr_expect_eq(namemap_get(&m, "eth0"), P(2));
        cr_expect_eq(namemap_remove_value(&m, "eth0", P(2)), true);
        cr_expect_null(namemap_get(&m, "eth0"));
        cr_expect_eq(m.n, 0);
        namemap_done(&m);
}

/* Names with the same 32-bit hash share a bucket chain. Which names do depends on the random
 * hash basis: find a few pairs among 400000 names (about 18 are expected), then check that
 * removing the first or the second of a chain keeps the other. */
static int compare_keyed(const void *a, const void *b)
{
        const uint64_t *x = a, *y = b;

        return (*x > *y) - (*x < *y);
}

Test(namemap, chains)
{
        enum { N = 400000 };
        uint64_t *keyed = malloc(N * sizeof *keyed); /* key << 32 | index */
        int pairs = 0;

        cr_assert_not_null(keyed);
        for (uint32_t i = 0; i < N; i++) {
                char name[32];
                snprintf(name, sizeof name, "n%u", i);
                keyed[i] = (uint64_t) (uint32_t) namemap_key_of(name) << 32 | i;
        }
        qsort(keyed, N, sizeof *keyed, compare_keyed);
        for (size_t i = 1; i < N; i++) {
                char a[32], b[32];
                NameMap m = {};

                if (keyed[i] >> 32 != keyed[i - 1] >> 32)
                        continue;
                snprintf(a, sizeof a, "n%u", (uint32_t) keyed[i - 1]);
                snprintf(b, sizeof b, "n%u", (uint32_t) keyed[i]);
                pairs++;
                for (int first = 0; first < 2; first++) {
                        cr_assert_eq(namemap_put(&m, a, P(1)), 0);
                        cr_assert_eq(namemap_put(&m, b, P(2)), 0);
                        cr_assert_eq(namemap_put(&m, "other", P(3)), 0);
                        cr_expect_eq(m.n, 3);
                        cr_expect_eq(namemap_get(&m, a), P(1));
                        cr_expect_eq(namemap_get(&m, b), P(2));
                        cr_expect_eq(namemap_remove_value(&m, first ? b : a, P(3)), false);
                        cr_expect(namemap_remove_value(&m, first ? b : a, first ? P(2) : P(1)));
                        cr_expect_eq(namemap_get(&m, first ? a : b), first ? P(1) : P(2));
                        cr_expect_null(namemap_get(&m, first ? b : a));
                        cr_expect_eq(namemap_put(&m, first ? a : b, P(4)), 0);
                        cr_expect_eq(namemap_get(&m, first ? a : b), P(4));
                        cr_expect_eq(m.n, 2);
                        namemap_done(&m);
                }
        }
        free(keyed);
        cr_expect_gt(pairs, 0, "no two of %d names share a hash: the chains were not exercised", N);
}
