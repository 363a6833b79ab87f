/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The name → object map (see namemap.h).
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "fnv.h"
#include "namemap.h"

typedef struct NameMapEntry NameMapEntry;
struct NameMapEntry {
        NameMapEntry *next; /* same hash */
        void *value;
        char name[];
};

static uint64_t hash_basis(void)
{
        static uint64_t basis;
        uint64_t seed = 0;

        if (basis != 0)
                return basis;
        if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t) sizeof seed) {
                /* No entropy yet this early in boot: unpredictable enough for bucket choice. */
                struct timespec ts = {};
                (void) clock_gettime(CLOCK_MONOTONIC, &ts);
                seed = (uint64_t) ts.tv_nsec ^ ((uint64_t) ts.tv_sec << 32) ^ (uint64_t) getpid();
        }
        basis = FNV1A64_INIT ^ seed;
        if (basis == 0)
                basis = FNV1A64_INIT;
        return basis;
}

int namemap_key_of(const char *name)
{
        uint64_t h = fnv1a64_str(hash_basis(), name);

        return (int) (uint32_t) (h ^ (h >> 32));
}

void *namemap_get(const NameMap *m, const char *name)
{
        if (!name || m->n == 0)
                return NULL;
        for (NameMapEntry *e = intmap_get(&m->buckets, namemap_key_of(name)); e; e = e->next)
                if (strcmp(e->name, name) == 0)
                        return e->value;
        return NULL;
}

int namemap_put(NameMap *m, const char *name, void *value)
{
        NameMapEntry *head, *e;
        size_t len;
        int key, r;

        if (!name || !value)
                return -EINVAL;
        key = namemap_key_of(name);
        head = intmap_get(&m->buckets, key);
        for (e = head; e; e = e->next)
                if (strcmp(e->name, name) == 0) {
                        e->value = value;
                        return 0;
                }

        len = strlen(name);
        e = malloc(sizeof *e + len + 1);
        if (!e)
                return -ENOMEM;
        memcpy(e->name, name, len + 1);
        e->value = value;
        e->next = head;
        r = intmap_put(&m->buckets, key, e);
        if (r < 0) {
                free(e);
                return r;
        }
        m->n++;
        return 0;
}

bool namemap_remove_value(NameMap *m, const char *name, const void *value)
{
        NameMapEntry *head, *prev = NULL;
        int key;

        if (!name || !value || m->n == 0)
                return false;
        key = namemap_key_of(name);
        head = intmap_get(&m->buckets, key);
        for (NameMapEntry *e = head; e; prev = e, e = e->next) {
                if (strcmp(e->name, name) != 0)
                        continue;
                if (e->value != value)
                        return false;
                if (prev)
                        prev->next = e->next;
                else if (e->next)
                        (void) intmap_put(&m->buckets, key, e->next); /* a replacement: never fails */
                else
                        (void) intmap_remove(&m->buckets, key);
                free(e);
                m->n--;
                return true;
        }
        return false;
}

void namemap_done(NameMap *m)
{
        size_t i = 0;
        void *v;

        while (intmap_iterate(&m->buckets, &i, &v))
                for (NameMapEntry *e = v, *next; e; e = next) {
                        next = e->next;
                        free(e);
                }
        intmap_done(&m->buckets);
        m->n = 0;
}
