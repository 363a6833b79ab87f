/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd --restore: undo igmpd's changes after its last stop; see restore.h.
 *
 * A stop does not undo anything itself: a restart (or a package upgrade) would otherwise flip
 * every knob back to the kernel value and forth again. Only a removal wants the values back, so
 * the package's prerm runs this after stopping the service.
 */

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fs-util.h"
#include "log.h"
#include "originals.h"
#include "restore.h"
#include "sysctl-util.h"

/* One link's entry. Returns the number of failed writes. */
static unsigned restore_entry(Manager *m, const OriginalEntry *e, unsigned *n_restored)
{
        const char *ns = m->netns_name ?: "", *sep = m->netns_name ? "/" : "";
        unsigned n_failed = 0;

        for (KnobFamily f = 0; f < _KNOB_FAMILY_MAX; f++) {
                _cleanup_close_ int fd = -EBADF;
                bool any = false;

                for (Knob k = 0; k < _KNOB_MAX; k++)
                        any = any || (e->set[k] && knob_info(k)->family == f);
                if (!any || m->link_ctx.conf_fd[f] < 0)
                        continue;
                fd = sysctl_open_link_dir(m->link_ctx.conf_fd[f], e->ifname);
                /* Checked after opening: the directory stays the link's even if it is renamed now. */
                if (if_nametoindex(e->ifname) != (unsigned) e->ifindex) {
                        printf("%s%s%s: gone or renamed since igmpd stopped, left as is\n", ns, sep, e->ifname);
                        return n_failed;
                }
                if (fd == -ENOENT) { /* no IPv6 device now (IPv6 off, an MTU below 1280) */
                        printf("%s%s%s: no %s directory now, its %s knobs left as is\n", ns, sep, e->ifname,
                               knob_family_dir(f), knob_family_dir(f));
                        continue;
                }
                if (fd < 0) {
                        printf("%s%s%s: cannot open its %s directory (%s), its %s knobs left as is\n", ns, sep,
                               e->ifname, knob_family_dir(f), strerror(-fd), knob_family_dir(f));
                        continue;
                }
                for (Knob k = 0; k < _KNOB_MAX; k++) {
                        const char *name = knob_to_string(k);
                        int32_t now;
                        int r;

                        if (!e->set[k] || knob_info(k)->family != f)
                                continue;
                        r = sysctl_read_int_at(fd, name, &now);
                        if (r < 0) {
                                printf("%s%s%s: %s unreadable (%s), left as is\n", ns, sep, e->ifname, name, strerror(-r));
                                continue;
                        }
                        if (!originals_entry_holds(e, k, now)) {
                                printf("%s%s%s: %s is %d, not the %d igmpd had set: changed by someone else, left as is\n",
                                       ns, sep, e->ifname, name, now, e->written[k]);
                                continue;
                        }
                        r = sysctl_write_int_at(fd, name, e->original[k]);
                        if (r < 0) {
                                log_error_errno(r, "%s%s%s: failed to set %s back to %d: %m", ns, sep, e->ifname,
                                                name, e->original[k]);
                                n_failed++;
                                continue;
                        }
                        printf("%s%s%s: %s %d -> %d\n", ns, sep, e->ifname, name, now, e->original[k]);
                        (*n_restored)++;
                }
        }
        return n_failed;
}

/* One namespace's record (igmpd's own, or a followed one's, switched into it): restores it,
 * removes it when every write went through. Counts the failed writes in counts[0], the values
 * written back in counts[1]. */
static int restore_record(Manager *m, void *userdata)
{
        _cleanup_(originals_done) Originals o = {};
        unsigned *counts = userdata, *n_restored = &counts[1], n_failed = 0;
        int r;

        r = manager_read_originals(m, &o);
        if (r < 0) {
                log_error_errno(r, "%s%sFailed to read the saved original knob values: %m", strempty(m->netns_name),
                                m->netns_name ? ": " : "");
                counts[0]++;
                return 0;
        }
        for (size_t i = 0; i < o.n; i++)
                n_failed += restore_entry(m, &o.entries[i], n_restored);
        /* The namespace knobs (igmpd's own namespace's, or the followed one's): a stop gives them
         * back itself, so only a crash leaves a record. Its record goes unless a write failed. */
        if (manager_take_namespace_record(m) < 0) {
                counts[0] += n_failed + 1;
                return log_oom();
        }
        n_failed += ns_knobs_restore(&m->ns_knobs, n_restored);
        /* Used once: what is left in it is someone else's now. Kept if a write failed, so
         * that the same command can be run again. */
        if (n_failed == 0) {
                _cleanup_free_ char *dir = manager_originals_path(m);

                if (r > 0) {
                        r = dir ? remove_file_sync(dir, ORIGINALS_NAME) : -ENOMEM;
                        if (r < 0)
                                log_warning_errno(r, "Failed to remove %s/" ORIGINALS_NAME ", ignoring: %m",
                                                  strna(dir));
                }
                /* A followed namespace's directory, empty now (also with a namespace record alone). */
                if (dir && m->parent)
                        (void) rmdir(dir);
        }
        counts[0] += n_failed;
        return 0;
}

int restore_run(Manager *m)
{
        unsigned counts[2] = {}; /* failed, restored */

        m->check_only = true; /* the Manager must not save anything when freed */

        (void) restore_record(m, counts);
        /* Namespaces=named: each followed namespace's record, in its namespace. */
        counts[0] += manager_netns_foreach_record(m, restore_record, counts);
        printf("Restored %u knob value%s.\n", counts[1], counts[1] == 1 ? "" : "s");
        return counts[0] > 0;
}
