/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "intmap.h"

#define P(i) ((void *) (uintptr_t) ((i) * 2 + 1))

Test(intmap, put_get_remove_churn)
{
        IntMap m = {};
        /* Model: a plain array indexed by key. Churn through many insert/remove rounds. */
        static void *model[20000];
        unsigned seed = 42;

        for (int round = 0; round < 200000; round++) {
                int key = (int) (rand_r(&seed) % 20000) + 1;
                if (rand_r(&seed) % 3 == 0) {
                        cr_assert_eq(intmap_remove(&m, key), model[key - 1]);
                        model[key - 1] = NULL;
                } else {
                        cr_assert_eq(intmap_put(&m, key, P(key)), 0);
                        model[key - 1] = P(key);
                }
        }
        size_t n = 0;
        for (int k = 1; k <= 20000; k++) {
                cr_assert_eq(intmap_get(&m, k), model[k - 1], "key %d", k);
                if (model[k - 1])
                        n++;
        }
        cr_expect_eq(intmap_size(&m), n);

        void **vals;
        size_t nv;
        cr_assert_eq(intmap_values(&m, &vals, &nv), 0);
        cr_expect_eq(nv, n);
        free(vals);

        for (int k = 1; k <= 20000; k++)
                intmap_remove(&m, k);
        cr_expect_eq(intmap_size(&m), 0);
        cr_expect_leq(m.n_slots, 16); /* shrank back */
        intmap_done(&m);
}

Test(intmap, reserve)
{
        IntMap m = {};

        cr_assert_eq(intmap_reserve(&m, 0), 0);
        cr_expect_eq(m.n_slots, 0); /* nothing asked, nothing made */
        cr_assert_eq(intmap_put(&m, 7, P(7)), 0);
        cr_assert_eq(intmap_reserve(&m, 4000), 0);
        cr_expect_geq(m.n_slots, 2 * 4001);
        cr_expect_eq(intmap_get(&m, 7), P(7)); /* kept across the resize */
        size_t slots = m.n_slots;
        for (int k = 1; k <= 4000; k++)
                cr_assert_eq(intmap_put(&m, k + 100, P(k + 100)), 0);
        cr_expect_eq(m.n_slots, slots); /* no doubling on the way */
        cr_assert_eq(intmap_reserve(&m, 10), 0);
        cr_expect_eq(m.n_slots, slots); /* room enough already */
        intmap_done(&m);
}
