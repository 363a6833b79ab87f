/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-loop: calls igmpd over the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured) in a loop for
 * a while, one call in flight, for tests of what reads cost igmpd (test-dbus-reads.sh).
 *
 *   bus-loop objects SECONDS     GetManagedObjects back to back; prints the number of calls
 *   bus-loop state SECONDS       ListLinksState back to back; prints the number of calls
 *   bus-loop ping SECONDS GAP_MS Peer.Ping every GAP_MS; prints "CALLS P50_MS MAX_MS"
 *   bus-loop links SECONDS       ListLinks back to back, also before igmpd is on the bus (a
 *                                failed call is tried again 1 ms later); prints the number of
 *                                links of each reply, a line each, as it comes
 *                                (test-dbus-first-pass.sh)
 *
 * Exits 1 (with a message) if any call fails, but for links.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

static uint64_t now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000U + (uint64_t) ts.tv_nsec / 1000U;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return (x > y) - (x < y);
}

int main(int argc, char *argv[])
{
        const char *iface, *method;
        sd_bus *bus = NULL;
        uint64_t end, *lat = NULL;
        size_t n = 0, n_alloc = 0;
        long gap_ms = 0;
        bool ping, links;
        int r;

        if (argc < 3 || (strcmp(argv[1], "ping") == 0 && argc != 4)) {
                fprintf(stderr, "usage: bus-loop objects|state|links SECONDS | bus-loop ping SECONDS GAP_MS\n");
                return 2;
        }
        ping = strcmp(argv[1], "ping") == 0;
        links = strcmp(argv[1], "links") == 0;
        if (ping) {
                iface = "org.freedesktop.DBus.Peer", method = "Ping";
                gap_ms = strtol(argv[3], NULL, 10);
        } else if (strcmp(argv[1], "objects") == 0)
                iface = "org.freedesktop.DBus.ObjectManager", method = "GetManagedObjects";
        else if (strcmp(argv[1], "state") == 0)
                iface = "org.igmpd1.Manager", method = "ListLinksState";
        else if (links)
                iface = "org.igmpd1.Manager", method = "ListLinks";
        else {
                fprintf(stderr, "bus-loop: unknown kind '%s'\n", argv[1]);
                return 2;
        }
        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "bus-loop: cannot connect to the system bus: %s\n", strerror(-r));
                return 1;
        }
        end = now_us() + (uint64_t) (strtod(argv[2], NULL) * 1e6);
        while (now_us() < end) {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = NULL;
                uint64_t t0 = now_us();

                r = sd_bus_call_method(bus, "org.igmpd1", "/org/igmpd1", iface, method, &e, &reply, "");
                if (r < 0 && links) {
                        sd_bus_error_free(&e);
                        nanosleep(&(struct timespec) { .tv_nsec = 1000000L }, NULL);
                        continue;
                }
                if (links) {
                        unsigned k = 0;

                        r = sd_bus_message_enter_container(reply, 'a', "(iso)");
                        while (r >= 0 && (r = sd_bus_message_skip(reply, "(iso)")) > 0)
                                k++;
                        printf("%u\n", k);
                        fflush(stdout);
                }
                if (r < 0) {
                        fprintf(stderr, "bus-loop: %s failed: %s\n", method, e.message ?: strerror(-r));
                        return 1;
                }
                sd_bus_message_unref(reply);
                if (n == n_alloc) {
                        uint64_t *a = realloc(lat, (n_alloc = n_alloc * 2 + 1024) * sizeof *a);
                        if (!a)
                                return 1;
                        lat = a;
                }
                lat[n++] = now_us() - t0;
                if (gap_ms > 0) {
                        struct timespec ts = { .tv_sec = gap_ms / 1000, .tv_nsec = (gap_ms % 1000) * 1000000L };
                        nanosleep(&ts, NULL);
                }
        }
        if (ping) {
                if (n == 0)
                        return 1;
                qsort(lat, n, sizeof *lat, cmp_u64);
                printf("%zu %.2f %.2f\n", n, (double) lat[n / 2] / 1000.0, (double) lat[n - 1] / 1000.0);
        } else if (!links)
                printf("%zu\n", n);
        free(lat);
        sd_bus_flush_close_unref(bus);
        return 0;
}
