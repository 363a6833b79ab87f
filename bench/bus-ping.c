/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bus-ping: how long igmpd's event loop takes to answer while something else keeps it busy
 * (section 6, the audit flood). Calls org.freedesktop.DBus.Peer.Ping on org.igmpd1 over the
 * system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured, so a private bus works), one call in flight,
 * GAP_MS apart, until SIGTERM or SIGINT (or MAX calls), then prints
 * "ping n=… p50_us=… p99_us=… max_us=…". Read-only: Ping touches nothing in igmpd.
 *
 *   bus-ping GAP_MS [MAX]
 */

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#include "bench-util.h"

#define N_MAX 200000

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
        (void) sig;
        stop = 1;
}

int main(int argc, char *argv[])
{
        struct sigaction sa = { .sa_handler = on_signal };
        sd_bus *bus = NULL;
        uint64_t *v;
        size_t n = 0, max = N_MAX, r99;
        long gap_ms;
        int r;

        if (argc < 2 || argc > 3) {
                fprintf(stderr, "Usage: %s GAP_MS [MAX]\n", argv[0]);
                return 1;
        }
        gap_ms = strtol(argv[1], NULL, 10);
        if (argc == 3 && strtoul(argv[2], NULL, 10) > 0 && strtoul(argv[2], NULL, 10) < N_MAX)
                max = strtoul(argv[2], NULL, 10);
        v = calloc(max, sizeof *v);
        if (!v)
                return 1;
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "bus-ping: cannot connect to the system bus: %s\n", strerror(-r));
                return 1;
        }
        while (!stop && n < max) {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                uint64_t t0 = now_us();

                r = sd_bus_call_method(bus, "org.igmpd1", "/org/igmpd1", "org.freedesktop.DBus.Peer", "Ping", &e,
                                       NULL, "");
                if (r < 0) {
                        if (!stop) /* else: the call was interrupted by the signal to stop */
                                fprintf(stderr, "bus-ping: Ping: %s\n", e.message ?: strerror(-r));
                        sd_bus_error_free(&e);
                        break;
                }
                v[n++] = now_us() - t0;
                if (gap_ms > 0)
                        nanosleep(&(struct timespec) { .tv_sec = gap_ms / 1000, .tv_nsec = (gap_ms % 1000) * 1000000 },
                                  NULL);
        }
        sd_bus_flush_close_unref(bus);
        if (n == 0) {
                fprintf(stderr, "bus-ping: no successful call\n");
                return 1;
        }
        qsort(v, n, sizeof *v, cmp_u64);
        r99 = (n * 99 + 99) / 100;
        printf("ping n=%zu p50_us=%llu p99_us=%llu max_us=%llu\n", n, (unsigned long long) v[(n + 1) / 2 - 1],
               (unsigned long long) v[r99 - 1], (unsigned long long) v[n - 1]);
        free(v);
        return 0;
}
