/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd --check: a dry run for operators, to run before a reload.
 */

#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "link.h"
#include "log.h"

int check_run(Manager *m)
{
        _cleanup_free_ Link **links = NULL;
        size_t n = 0;
        int r;

        m->check_only = true;

        r = manager_load_config(m);
        if (r < 0)
                return r;

        r = manager_open_netlink(m);
        if (r < 0)
                return r;
        r = manager_enumerate(m);
        if (r < 0)
                return r;

        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return log_oom();

        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                KnobValue eff[_KNOB_MAX];
                LinkInfo info;

                link_to_info(l, &info);
                manager_effective(m, &info, eff, NULL, 0, NULL);
                /* kernel[]: the values the dump just carried. */

                printf("%d: %s%s%s\n", l->ifindex, l->ifname, l->kind ? " kind " : "", strempty(l->kind));
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        const KnobInfo *ki = knob_info(k);
                        char now[16] = "-";

                        if (l->kernel_known[k])
                                snprintf(now, sizeof now, "%d", l->kernel[k]);
                        if (eff[k].set)
                                printf("    %-36s %8s -> %-8d %s\n", ki->name, now, eff[k].value, eff[k].source);
                        else
                                printf("    %-36s %8s    %-8s %s\n", ki->name, now, "", "(no policy: left as is)");
                }
        }

        if (m->n_config_errors > 0) {
                fprintf(stderr, "%u problem%s in the configuration (see above); fix before reloading.\n",
                        m->n_config_errors, m->n_config_errors == 1 ? "" : "s");
                return 1;
        }
        return 0;
}
