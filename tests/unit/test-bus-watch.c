/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bus_address_unix_path(): which D-Bus addresses name a socket file igmpd can wait for. */

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-watch.h"

static void expect_path(const char *address, const char *want)
{
        char *path = NULL;
        int r = bus_address_unix_path(address, &path);

        cr_assert_eq(r, 0, "%s: %d (%s)", address, r, strerror(-r));
        cr_assert_str_eq(path, want, "%s", address);
        free(path);
}

static void expect_error(const char *address, int error)
{
        char *path = NULL;
        int r = bus_address_unix_path(address, &path);

        cr_assert_eq(r, error, "%s: got %d, want %d", address, r, error);
        cr_assert_null(path, "%s", address);
}

Test(bus_watch, unix_paths)
{
        expect_path("unix:path=/run/dbus/system_bus_socket", "/run/dbus/system_bus_socket");
        expect_path(BUS_WATCH_DEFAULT_SYSTEM_ADDRESS, "/run/dbus/system_bus_socket");
        /* other keys ignored, in any order; only the first address of a list counts */
        expect_path("unix:guid=0123456789abcdef,path=/tmp/b/s", "/tmp/b/s");
        expect_path("unix:path=/tmp/b/s,guid=0123456789abcdef;tcp:host=x,port=1", "/tmp/b/s");
        /* %-escapes decoded */
        expect_path("unix:path=/tmp/with%20space/s", "/tmp/with space/s");
}

Test(bus_watch, nothing_to_watch)
{
        expect_error("unix:abstract=/tmp/dbus-x", -EPROTONOSUPPORT);
        expect_error("unix:tmpdir=/tmp", -EPROTONOSUPPORT);
        expect_error("tcp:host=localhost,port=1234", -EPROTONOSUPPORT);
        expect_error("unix:path=relative/s", -EPROTONOSUPPORT);
        expect_error("tcp:host=x;unix:path=/run/dbus/system_bus_socket", -EPROTONOSUPPORT);
}

Test(bus_watch, malformed)
{
        char longpath[200];

        expect_error("", -EINVAL);
        expect_error(";unix:path=/a", -EINVAL);
        expect_error("unix:path", -EINVAL);
        expect_error("unix:=x", -EINVAL);
        expect_error("unix:path=/a,path=/b", -EINVAL);
        memset(longpath, 'a', sizeof longpath);
        memcpy(longpath, "unix:path=/", 11);
        longpath[sizeof longpath - 1] = '\0';
        expect_error(longpath, -EINVAL); /* longer than sun_path */
}
