/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bounded list of configuration problems (see config-problems.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config-problems.h"

int config_problems_add(ConfigProblems *p, const char *file, unsigned line, const char *message)
{
        ConfigProblem *x;

        p->n_total++;
        if (p->n >= CONFIG_PROBLEMS_MAX)
                return 0;
        if (!p->items) {
                p->items = calloc(CONFIG_PROBLEMS_MAX, sizeof *p->items);
                if (!p->items)
                        return -ENOMEM;
        }
        x = &p->items[p->n];
        *x = (ConfigProblem) { .file = file ? strdup(file) : NULL, .line = line,
                               .message = strdup(strempty(message)) };
        if (!x->message || (file && !x->file)) {
                free(x->file); /* the slot stays outside the n kept */
                free(x->message);
                return -ENOMEM;
        }
        p->n++;
        return 0;
}

void config_problems_done(ConfigProblems *p)
{
        for (size_t i = 0; i < p->n; i++) {
                free(p->items[i].file);
                free(p->items[i].message);
        }
        free(p->items);
        *p = (ConfigProblems) {};
}
