/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fake-polkit: a stand-in for polkitd on a private test bus. Owns org.freedesktop.PolicyKit1
 * and answers CheckAuthorization: authorized if the action is one of the arguments, denied
 * otherwise. Each query is printed as one line:
 *
 *   CheckAuthorization action=org.igmpd1.set-link subject=system-bus-name:1.7 flags=1
 *
 * Usage: fake-polkit [ACTION…]   (runs until SIGTERM/SIGINT)
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

static char **arg_allowed;

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
        sd_bus_flush_close_unref(bus);
        sd_event_unref(event);
        return r < 0 ? 1 : 0;
}
