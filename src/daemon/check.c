/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd --check: a dry run for operators, to run before a reload.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "check.h"
#include "link.h"
#include "log.h"
#include "nm.h"

/* How long --check waits for NetworkManager's profiles. */
#define CHECK_NM_TIMEOUT_USEC (10 * 1000000ULL)

static void check_on_nm_changed(int ifindex, void *userdata)
{
        /* Nothing to configure: --check reads the table once it is complete. */
}

/* With [Daemon] NetworkManager=auto the daemon applies the profile active on each device over
 * the policy files: read NetworkManager once, as the daemon would now, so the values and sources
 * shown are the ones that would apply. Says what it could do in note. The bus connection is
 * returned in *ret_bus (m->nm holds on to it too). */
static void check_network_manager(Manager *m, sd_bus **ret_bus, char *note, size_t size)
{
        sd_bus *bus = NULL;
        uint64_t deadline, now;
        bool present = false;
        int r;

        if (m->config.network_manager != NM_MODE_AUTO) {
                snprintf(note, size, "not used ([Daemon] NetworkManager=no)");
                return;
        }
        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_attach_event(bus, m->event, 0);
        if (r < 0) {
                snprintf(note, size, "NOT included: cannot reach the system bus (%s); the values below leave "
                         "out the profiles NetworkManager would add", strerror(-r));
                sd_bus_unref(bus);
                return;
        }
        *ret_bus = bus;
        r = nm_new(check_on_nm_changed, manager_config_diag, m, &m->nm);
        if (r < 0) {
                snprintf(note, size, "NOT included: %s", strerror(-r));
                return;
        }
        nm_set_bus(m->nm, bus);

        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        deadline = now + CHECK_NM_TIMEOUT_USEC;
        while (nm_first_read_done(m->nm, &present) == 0 && now < deadline) {
                r = sd_event_run(m->event, deadline - now);
                if (r < 0)
                        break;
                (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        }
        if (nm_first_read_done(m->nm, &present) == 0) {
                snprintf(note, size, "NOT included: NetworkManager did not answer within %llu s",
                         CHECK_NM_TIMEOUT_USEC / 1000000ULL);
                m->nm = nm_free(m->nm);
        } else if (!present)
                snprintf(note, size, "included: NetworkManager is not on the bus (or could not be read), "
                         "so no profile applies now");
        else
                snprintf(note, size, "included: the profiles active now (source NetworkManager:<profile>)");
}

int check_run(Manager *m)
{
        _cleanup_free_ Link **links = NULL;
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        char nm_note[256] = "";
        size_t n = 0;
        int r;

        m->check_only = true;

        r = manager_load_config(m);
        if (r < 0)
                return r;
        check_network_manager(m, &bus, nm_note, sizeof nm_note);

        r = manager_open_netlink(m);
        if (r < 0)
                return r;
        r = manager_enumerate(m);
        if (r < 0)
                return r;

        r = manager_sorted_links(m, &links, &n);
        if (r < 0)
                return log_oom();

        printf("NetworkManager profiles: %s.\n", nm_note);

        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                KnobValue eff[_KNOB_MAX] = {};
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
                                printf("    %-36s %8s -> %-8d %s\n", ki->name, now, eff[k].value,
                                       knob_value_source(&eff[k]));
                        else
                                printf("    %-36s %8s    %-8s %s\n", ki->name, now, "", "(no policy: left as is)");
                }
                knob_values_clear(eff);
        }

        if (m->n_config_errors > 0) {
                fprintf(stderr, "%u problem%s in the configuration (see above); fix before reloading.\n",
                        m->n_config_errors, m->n_config_errors == 1 ? "" : "s");
                return 1;
        }
        return 0;
}
