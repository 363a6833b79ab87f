/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The problems found by one load of the configuration, as (file, line, message), for the D-Bus
 * property ConfigProblems, Reload's answer and igmpd --check. Every problem is counted; the
 * first CONFIG_PROBLEMS_MAX are kept (a peer with write access to a drop-in directory cannot
 * make igmpd's memory grow with them). Pure.
 */

#include <stddef.h>

#include "macro.h"

#define CONFIG_PROBLEMS_MAX 64

typedef struct ConfigProblem {
        char *file;    /* NULL when the problem is not about one file */
        unsigned line; /* 0 when it is about the whole file */
        char *message;
} ConfigProblem;

typedef struct ConfigProblems {
        ConfigProblem *items; /* the first n_total, at most CONFIG_PROBLEMS_MAX */
        size_t n;
        unsigned n_total;
} ConfigProblems;

/* Counts the problem and keeps it while there is room. 0, or -ENOMEM (it is still counted). */
int config_problems_add(ConfigProblems *p, const char *file, unsigned line, const char *message);
void config_problems_done(ConfigProblems *p);
