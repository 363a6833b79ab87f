/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dbus-rtt: round-trip times of igmpd's D-Bus methods, on the system bus (DBUS_SYSTEM_BUS_ADDRESS
 * is honoured, so a private bus works).
 *
 *   dbus-rtt IFNAME COUNT
 *
 * Measures, each COUNT times (one call in flight at a time):
 *   ping    org.freedesktop.DBus.Peer.Ping to org.igmpd1 — the floor of any method call
 *   set     SetLinkKnobs(ifindex of IFNAME, {igmpv3_unsolicited_report_interval: 200 or 201}, 0),
 *           alternating the value so every call changes the kernel value and the runtime file
 *   objects GetManagedObjects on /org/igmpd1 (COUNT/20 times, at least 3), reply fully read
 *           ("objects": call + walking every item, "objects_received": until the reply is in)
 *   state   ListLinksState, igmpctl's bulk read, the same way ("state", "state_received"); not
 *           printed if igmpd lacks the method (an older igmpd)
 * and prints one line per kind: "KIND n=… p50_us=… p99_us=… max_us=…". Finally the runtime
 * change is reverted (RevertLink).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#include "bench-util.h"

#define DEST "org.igmpd1"
#define PATH "/org/igmpd1"
#define IFACE "org.igmpd1.Manager"

static void report(const char *kind, uint64_t *v, size_t n, const char *extra)
{
        size_t r99 = (n * 99 + 99) / 100;

        qsort(v, n, sizeof *v, cmp_u64);
        printf("%s n=%zu p50_us=%llu p99_us=%llu max_us=%llu%s\n", kind, n,
               (unsigned long long) v[(n + 1) / 2 - 1], (unsigned long long) v[r99 ? r99 - 1 : 0],
               (unsigned long long) v[n - 1], extra);
}

static int fail(const char *what, int r, const sd_bus_error *e)
{
        fprintf(stderr, "dbus-rtt: %s: %s\n", what, e && e->message ? e->message : strerror(-r));
        return 1;
}

int main(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        uint64_t *t, *t_recv;
        unsigned count, n_obj;
        int32_t ifindex;
        const char *path;
        int r;

        if (argc != 3 || (count = (unsigned) strtoul(argv[2], NULL, 10)) == 0) {
                fprintf(stderr, "usage: dbus-rtt IFNAME COUNT\n");
                return 2;
        }
        t = calloc(count, sizeof *t);
        t_recv = calloc(count, sizeof *t_recv);
        if (!t || !t_recv)
                return 1;
        r = sd_bus_open_system(&bus);
        if (r < 0)
                return fail("connect", r, NULL);

        r = sd_bus_call_method(bus, DEST, PATH, IFACE, "GetLinkByName", &e, &reply, "s", argv[1]);
        if (r < 0)
                return fail("GetLinkByName", r, &e);
        r = sd_bus_message_read(reply, "io", &ifindex, &path);
        if (r < 0)
                return fail("GetLinkByName reply", r, NULL);
        reply = sd_bus_message_unref(reply);

        for (unsigned i = 0; i < count; i++) {
                uint64_t t0 = now_us();
                r = sd_bus_call_method(bus, DEST, PATH, "org.freedesktop.DBus.Peer", "Ping", &e, NULL, "");
                if (r < 0)
                        return fail("Ping", r, &e);
                t[i] = now_us() - t0;
        }
        report("ping", t, count, "");

        for (unsigned i = 0; i < count; i++) {
                uint64_t t0 = now_us();
                r = sd_bus_call_method(bus, DEST, PATH, IFACE, "SetLinkKnobs", &e, NULL, "ia{sv}u", ifindex, 1,
                                       "igmpv3_unsolicited_report_interval", "i", (int32_t) (200 + (i & 1)), 0u);
                if (r < 0)
                        return fail("SetLinkKnobs", r, &e);
                t[i] = now_us() - t0;
        }
        report("set", t, count, "");

        n_obj = count / 20 < 3 ? 3 : count / 20;
        for (unsigned i = 0; i < n_obj; i++) {
                uint64_t t0 = now_us();
                r = sd_bus_call_method(bus, DEST, PATH, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                       &e, &reply, "");
                if (r < 0)
                        return fail("GetManagedObjects", r, &e);
                t_recv[i] = now_us() - t0;
                /* Walk the whole reply, as a client would. */
                r = sd_bus_message_skip(reply, "a{oa{sa{sv}}}");
                if (r < 0)
                        return fail("GetManagedObjects reply", r, NULL);
                t[i] = now_us() - t0;
                reply = sd_bus_message_unref(reply);
        }
        report("objects", t, n_obj, "");
        report("objects_received", t_recv, n_obj, "");

        for (unsigned i = 0; i < n_obj; i++) {
                uint64_t t0 = now_us();
                r = sd_bus_call_method(bus, DEST, PATH, IFACE, "ListLinksState", &e, &reply, "");
                if (r < 0 && sd_bus_error_has_name(&e, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                        sd_bus_error_free(&e);
                        n_obj = 0; /* an igmpd without it */
                        break;
                }
                if (r < 0)
                        return fail("ListLinksState", r, &e);
                t_recv[i] = now_us() - t0;
                /* Walk whatever the reply holds: its signature grows with the API. */
                r = sd_bus_message_skip(reply, sd_bus_message_get_signature(reply, true));
                if (r < 0)
                        return fail("ListLinksState reply", r, NULL);
                t[i] = now_us() - t0;
                reply = sd_bus_message_unref(reply);
        }
        if (n_obj > 0) {
                report("state", t, n_obj, "");
                report("state_received", t_recv, n_obj, "");
        }

        r = sd_bus_call_method(bus, DEST, PATH, IFACE, "RevertLink", &e, NULL, "iu", ifindex, 0u);
        if (r < 0)
                return fail("RevertLink", r, &e);
        sd_bus_flush_close_unref(bus);
        free(t);
        free(t_recv);
        return 0;
}
