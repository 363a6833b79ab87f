/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * src/shared/nm-settings.c and bus-read.c: NetworkManager settings as igmpd and igmpctl read
 * them, from messages built here as NetworkManager sends them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "macro.h"
#include "nm-settings.h"
#include "strv.h"

/* A message to fill, on a bus that is started (not authenticated): enough to build messages. */
static sd_bus_message *new_message(sd_bus **ret_bus)
{
        sd_bus_message *m = NULL;
        sd_bus *bus = NULL;
        int fds[2];

        cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        cr_assert_geq(sd_bus_new(&bus), 0);
        cr_assert_geq(sd_bus_set_fd(bus, fds[0], fds[0]), 0);
        cr_assert_geq(sd_bus_start(bus), 0);
        close(fds[1]);
        cr_assert_geq(sd_bus_message_new_method_call(bus, &m, "a.b", "/a", "a.b", "c"), 0);
        *ret_bus = bus;
        return m;
}

static void seal(sd_bus_message *m)
{
        cr_assert_geq(sd_bus_message_seal(m, 1, 0), 0);
        cr_assert_geq(sd_bus_message_rewind(m, true), 0);
}

/* A sealed message holding the a{sa{sv}} of a profile: connection, an ipv4 section nobody
 * reads (nested types to skip), user.data with an igmpd key and another program's. */
static sd_bus_message *settings_message(sd_bus **ret_bus)
{
        sd_bus_message *m = new_message(ret_bus);

        cr_assert_geq(sd_bus_message_append(m, "a{sa{sv}}", 3,
                                            "connection", 4, "id", "s", "iptv", "uuid", "s", "0a1b",
                                            "permissions", "as", 2, "user:alice:", "user:bob:",
                                            "autoconnect", "b", 1,
                                            "ipv4", 2, "addresses", "aau", 1, 2, 1, 2, "method", "s", "auto",
                                            "user", 1, "data", "a{ss}", 2, "igmpd.force_igmp_version", "2",
                                            "org.example.x", "y"), 0);
        seal(m);
        return m;
}

typedef struct Pairs {
        char keys[4][64], values[4][64];
        size_t n;
} Pairs;

static int keep_pair(const char *key, const char *value, void *userdata)
{
        Pairs *p = userdata;

        cr_assert_lt(p->n, 4);
        snprintf(p->keys[p->n], sizeof p->keys[0], "%s", key);
        snprintf(p->values[p->n++], sizeof p->values[0], "%s", value);
        return 0;
}

Test(nm_settings, read)
{
        Pairs pairs = {};
        NMSettings s = { .user_data = keep_pair, .userdata = &pairs };
        sd_bus *bus;
        sd_bus_message *m = settings_message(&bus);

        cr_assert_eq(nm_settings_read(m, &s), 0);
        cr_assert_str_eq(s.id, "iptv");
        cr_assert_str_eq(s.uuid, "0a1b");
        cr_assert_null(s.type);
        cr_assert_eq(strv_length(s.permissions), 2);
        cr_assert_str_eq(s.permissions[0], "user:alice:");
        cr_assert_eq(pairs.n, 2);
        cr_assert_str_eq(pairs.keys[0], "igmpd.force_igmp_version");
        cr_assert_str_eq(pairs.values[0], "2");
        cr_assert_str_eq(pairs.keys[1], "org.example.x");
        strv_free(s.permissions);
        sd_bus_message_unref(m);
        sd_bus_flush_close_unref(bus);
}

static int stop(const char *key, const char *value, void *userdata)
{
        return -ENOMEM;
}

/* A callback's error stops the read and comes back. */
Test(nm_settings, callback_error)
{
        NMSettings s = { .user_data = stop };
        sd_bus *bus;
        sd_bus_message *m = settings_message(&bus);

        cr_assert_eq(nm_settings_read(m, &s), -ENOMEM);
        strv_free(s.permissions);
        sd_bus_message_unref(m);
        sd_bus_flush_close_unref(bus);
}

Test(nm_settings, user_data_parse)
{
        int32_t v = -1;
        Knob k;

        cr_assert_eq(nm_user_data_parse("igmpd.igmpv3_unsolicited_report_interval", "1.5s", &k, &v), 1);
        cr_assert_eq(k, KNOB_IGMPV3_INTERVAL);
        cr_assert_eq(v, 1500);
        cr_assert_eq(nm_user_data_parse("org.example.x", "1", &k, &v), 0);
        cr_assert_eq(nm_user_data_parse(NULL, "1", &k, &v), 0);
        cr_assert_eq(nm_user_data_parse("igmpd.no_such_knob", "1", &k, &v), -ENOENT);
        cr_assert_eq(nm_user_data_parse("igmpd.force_igmp_version", "bogus", &k, &v), -EINVAL);
        cr_assert_eq(k, KNOB_IGMP_VERSION);
        cr_assert_eq(nm_user_data_parse("igmpd.force_igmp_version", NULL, &k, &v), -EINVAL);
}

/* Device.Ifindex as "u", as "i" (a negative one is no link), or missing (NetworkManager 1.42). */
Test(nm_settings, device_ifindex)
{
        static const struct {
                const char *type;
                int32_t value;
                uint32_t expected;
        } cases[] = { { "u", 7, 7 }, { "i", 9, 9 }, { "i", -1, 0 }, { NULL, 0, 0 } };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                NMDeviceProps p = {};
                sd_bus *bus;
                sd_bus_message *m = new_message(&bus);

                if (cases[i].type)
                        cr_assert_geq(sd_bus_message_append(m, "a{sv}", 2, "Interface", "s", "eth0", "Ifindex",
                                                            cases[i].type, cases[i].value), 0);
                else
                        cr_assert_geq(sd_bus_message_append(m, "a{sv}", 1, "Interface", "s", "eth0"), 0);
                seal(m);
                cr_assert_eq(nm_read_device_props(m, &p), 0);
                cr_assert_str_eq(p.ifname, "eth0");
                cr_assert_eq(p.ifindex, cases[i].expected, "case %zu", i);
                nm_device_props_done(&p);
                sd_bus_message_unref(m);
                sd_bus_flush_close_unref(bus);
        }
}
