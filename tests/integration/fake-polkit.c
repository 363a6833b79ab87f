/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fake-polkit: a stand-in for polkitd on a private test bus. Owns org.freedesktop.PolicyKit1
 * and answers CheckAuthorization: authorized if the action is one of the arguments, denied
 * otherwise. Each query is printed as one line:
 *
 *   CheckAuthorization action=org.igmpd1.set-link subject=system-bus-name:1.7 flags=1
 *
 *   CheckAuthorization action=… subject=… flags=0 -> held
 *
 * Usage: fake-polkit [--hold-uid=UID] [ACTION…]   (runs until SIGTERM/SIGINT)
 *
 * --hold-uid=UID  never answers queries whose subject belongs to UID, as polkit with an
 *                 authentication dialog nobody answers (printed "-> held")
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

static char **arg_allowed;
static long arg_hold_uid = -1;
static sd_bus_message *held[4096];
static size_t n_held;

/* The uid of the bus name, or -1. */
static long name_uid(sd_bus *bus, const char *name)
{
        sd_bus_creds *creds = NULL;
        uid_t uid;
        long r = -1;

        if (sd_bus_get_name_creds(bus, name, SD_BUS_CREDS_EUID, &creds) >= 0 &&
            sd_bus_creds_get_euid(creds, &uid) >= 0)
                r = (long) uid;
        sd_bus_creds_unref(creds);
        return r;
}

static int method_check_authorization(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const char *kind, *key, *name = "?", *action, *cancel;
        uint32_t flags;
        int allowed = 0, r;

        r = sd_bus_message_enter_container(m, 'r', "sa{sv}");
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "s", &kind);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                if (strcmp(key, "name") == 0)
                        r = sd_bus_message_read(m, "v", "s", &name);
                else
                        r = sd_bus_message_skip(m, "v");
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "s", &action);
        if (r < 0)
                return r;
        r = sd_bus_message_skip(m, "a{ss}");
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "us", &flags, &cancel);
        if (r < 0)
                return r;

        if (arg_hold_uid >= 0 && n_held < sizeof held / sizeof held[0] &&
            name_uid(sd_bus_message_get_bus(m), name) == arg_hold_uid) {
                printf("CheckAuthorization action=%s subject=%s:%s flags=%u -> held\n", action, kind, name, flags);
                fflush(stdout);
                held[n_held++] = sd_bus_message_ref(m);
                return 1;
        }

        for (char **a = arg_allowed; *a; a++)
                if (strcmp(*a, action) == 0)
                        allowed = 1;

        printf("CheckAuthorization action=%s subject=%s:%s flags=%u -> %s\n", action, kind, name, flags,
               allowed ? "yes" : "no");
        fflush(stdout);

        return sd_bus_reply_method_return(m, "(bba{ss})", allowed, 0, 0);
}

static const sd_bus_vtable authority_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", method_check_authorization,
                      SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int main(int argc, char *argv[])
{
        sd_event *event = NULL;
        sd_bus *bus = NULL;
        sigset_t mask;
        int r;

        arg_allowed = argv + 1;
        if (argv[1] && strncmp(argv[1], "--hold-uid=", 11) == 0) {
                arg_hold_uid = strtol(argv[1] + 11, NULL, 10);
                arg_allowed = argv + 2;
        }

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        if (r >= 0)
                r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/PolicyKit1/Authority",
                                             "org.freedesktop.PolicyKit1.Authority", authority_vtable, NULL);
        if (r >= 0)
                r = sd_bus_request_name(bus, "org.freedesktop.PolicyKit1", 0);
        if (r >= 0)
                r = sd_bus_attach_event(bus, event, 0);
        if (r < 0) {
                fprintf(stderr, "fake-polkit: %s\n", strerror(-r));
                return 1;
        }
        printf("ready\n");
        fflush(stdout);

        r = sd_event_loop(event);
        for (size_t i = 0; i < n_held; i++)
                sd_bus_message_unref(held[i]);
        sd_bus_flush_close_unref(bus);
        sd_event_unref(event);
        return r < 0 ? 1 : 0;
}
