/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One read of NetworkManager's state: the calls and their fan-out (see nm-sync.h). Every call
 * is counted while its reply is pending; the handler of the last reply ends the read.
 */

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-read.h"
#include "log.h"
#include "nm-sync.h"
#include "strv.h"

typedef struct SyncDevice {
        char *path;
        char *ifname;
        int ifindex;
        bool read;     /* its properties arrived */
        bool applied;  /* its applied connection arrived, or NetworkManager withheld it (ignored) */
        NMApplied conn;
        char *ignored; /* why the applied connection is no source, NULL if it is one */
} SyncDevice;

typedef struct SyncActive {
        char *path;
        char *id;
        bool usable;       /* state activating/activated, not a VPN, has a profile */
        SyncDevice *devices;
        size_t n_devices;
} SyncActive;

typedef struct SyncCall SyncCall;
struct SyncCall {
        NMSync *sync;
        SyncCall *next;
        sd_bus_slot *slot;
        size_t active; /* index into sync->actives */
        size_t device; /* index into that active's devices */
};

struct NMSync {
        NMSyncParams p;
        bool device_read;  /* one device: actives[0].devices[0], actives[0] its active connection */
        SyncActive *actives;
        size_t n_actives;
        SyncCall *calls;
        size_t n_pending;
        bool failed;       /* a call could not be made: nothing is known */
};

NMSync *nm_sync_free(NMSync *s)
{
        if (!s)
                return NULL;
        for (SyncCall *c = s->calls, *next; c; c = next) {
                next = c->next;
                sd_bus_slot_unref(c->slot);
                free(c);
        }
        for (size_t i = 0; i < s->n_actives; i++) {
                SyncActive *a = &s->actives[i];
                for (size_t j = 0; j < a->n_devices; j++) {
                        free(a->devices[j].path);
                        free(a->devices[j].ifname);
                        nm_applied_done(&a->devices[j].conn);
                        free(a->devices[j].ignored);
                }
                free(a->devices);
                free(a->path);
                free(a->id);
        }
        free(s->actives);
        free(s);
        return NULL;
}

const char *nm_sync_device(const NMSync *s)
{
        return s && s->device_read ? s->actives[0].devices[0].path : NULL;
}

static int sync_call(NMSync *s, const char *path, const char *interface, const char *member,
                     sd_bus_message_handler_t handler, size_t active, size_t device, const char *types, ...)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
        _cleanup_free_ SyncCall *c = calloc(1, sizeof *c);
        va_list ap;
        int r;

        if (!c)
                return -ENOMEM;
        *c = (SyncCall) { .sync = s, .next = s->calls, .active = active, .device = device };

        r = nm_bus_new_call(s->p.bus, path, interface, member, &msg);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(msg, types, ap);
                va_end(ap);
        }
        if (r >= 0)
                r = sd_bus_call_async(s->p.bus, &c->slot, msg, handler, c, 0);
        if (r < 0)
                return r;
        s->calls = TAKE_PTR(c);
        s->n_pending++;
        return 0;
}

static int sync_get_all(NMSync *s, const char *path, const char *interface, sd_bus_message_handler_t handler,
                        size_t active, size_t device)
{
        return sync_call(s, path, DBUS_PROPERTIES, "GetAll", handler, active, device, "s",
                         interface);
}

/* Whether reply is an error, or reading it failed (r < 0); if so says so at debug level. */
static bool nm_reply_failed(sd_bus_message *reply, int r, const char *what, const char *path)
{
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        if (e)
                log_debug("NetworkManager: reading %s of %s failed, skipping: %s", what, path,
                          e->message ?: "unknown error");
        else if (r < 0)
                log_debug_errno(r, "NetworkManager: bad reply for %s of %s, skipping: %m", what, path);
        return e || r < 0;
}

static void sync_finish(NMSync *s)
{
        _cleanup_free_ NMDeviceResult *results = NULL;
        size_t n = 0, max = 0;

        for (size_t i = 0; i < s->n_actives; i++)
                max += s->actives[i].n_devices;
        results = s->failed ? NULL : calloc(MAX(max, (size_t) 1), sizeof *results);
        if (!s->failed && !results)
                log_oom();
        for (size_t i = 0; results && i < s->n_actives; i++) {
                const SyncActive *a = &s->actives[i];

                for (size_t j = 0; j < a->n_devices; j++) {
                        const SyncDevice *d = &a->devices[j];
                        /* A connection without igmpd keys is no source; one that is ignored is
                         * reported as such. */
                        bool applies = a->usable && d->read && d->applied &&
                                       (d->ignored || nm_count_knobs(d->conn.knobs) > 0);

                        if (!d->read || (!applies && !s->device_read))
                                continue; /* gone, the reply was bad, or (full read) no source */
                        results[n++] = (NMDeviceResult) {
                                .path = d->path,
                                .ifname = d->ifname,
                                .ifindex = d->ifindex,
                                .profile = applies ? d->conn.id : NULL,
                                .ignored = applies ? d->ignored : NULL,
                                .knobs = d->conn.knobs,
                        };
                }
        }
        s->p.done(s, results != NULL, results, n, s->p.userdata);
}

/* At the end of every reply handler: the last one ends the read (s may be freed by done()). */
static void sync_done_one(NMSync *s)
{
        assert(s->n_pending > 0);
        if (--s->n_pending == 0)
                sync_finish(s);
}

/* NetworkManager's error when a connection's permissions leave the caller out (nm-auth-utils). */
#define NM_ERROR_PERMISSION_DENIED "org.freedesktop.NetworkManager.PermissionDenied"
#define NM_IGNORED_WHY "only system profiles (no connection.permissions) may set igmpd values"

/* "user:alice:" → "user:alice (connection.permissions)" (NetworkManager's permission entries end
 * in a reserved field). */
static const char *permission_display(const char *p, char *buf, size_t size)
{
        size_t len = strlen(p);

        while (len > 0 && p[len - 1] == ':')
                len--;
        snprintf(buf, size, "%.*s (connection.permissions)", (int) MIN(len, (size_t) INT_MAX), p);
        return buf;
}

/* The connection applied on a device: what it sets, or why it is ignored. */
static int on_applied(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        SyncCall *c = userdata;
        NMSync *s = c->sync;
        SyncActive *a = &s->actives[c->active];
        SyncDevice *d = &a->devices[c->device];
        const char *whose = NULL; /* set for a user's connection */
        char owner[320];
        bool ok;
        int r;

        if (sd_bus_message_is_method_error(reply, NM_ERROR_PERMISSION_DENIED)) {
                /* NetworkManager shows a user's connection to that user (and root) only: igmpd,
                 * running as its own user, is left out, which says whose it is. */
                whose = "a user, and NetworkManager shows it to that user only";
                d->conn.id = strdup(strempty(a->id));
                ok = d->conn.id;
                if (!ok)
                        log_oom();
        } else {
                r = nm_profile_read_settings(reply, a->id, &d->conn, s->p.reports, s->p.diag, s->p.diag_userdata);
                ok = !nm_reply_failed(reply, r, "the applied connection", d->path);
                if (ok && d->conn.owner && d->conn.n_keys > 0)
                        whose = permission_display(d->conn.owner, owner, sizeof owner);
        }
        if (ok && whose && asprintf(&d->ignored, "it belongs to %s; " NM_IGNORED_WHY, whose) < 0) {
                d->ignored = NULL;
                ok = false;
                log_oom();
        }
        d->applied = ok;
        sync_done_one(s);
        return 0;
}

/* Gives a the n devices of paths. 0 or -ENOMEM (those copied so far are a's). */
static int active_add_devices(SyncActive *a, char *const *paths, size_t n)
{
        a->devices = calloc(n, sizeof *a->devices);
        if (!a->devices)
                return -ENOMEM;
        for (; a->n_devices < n; a->n_devices++) {
                a->devices[a->n_devices].path = strdup(paths[a->n_devices]);
                if (!a->devices[a->n_devices].path)
                        return -ENOMEM;
        }
        return 0;
}

static int on_device(sd_bus_message *reply, void *userdata, sd_bus_error *error);

/* An active connection: usable ones get their profile read, and in a full read their devices. */
static int on_active(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        SyncCall *c = userdata;
        NMSync *s = c->sync;
        SyncActive *a = &s->actives[c->active];
        NMActiveProps p = {};
        size_t n;
        int r;

        r = nm_read_active_props(reply, &p);
        if (nm_reply_failed(reply, r, "the active connection", a->path) || !nm_active_props_usable(&p))
                goto done;
        a->id = TAKE_PTR(p.id);

        n = s->device_read ? 0 : strv_length(p.devices);
        if (n == 0 && !s->device_read)
                goto done;
        r = n > 0 ? active_add_devices(a, p.devices, n) : 0;
        for (size_t i = 0; r >= 0 && i < a->n_devices; i++) {
                if (!s->device_read)
                        r = sync_get_all(s, a->devices[i].path, NM_IFACE_DEVICE, on_device, c->active, i);
                if (r >= 0)
                        r = sync_call(s, a->devices[i].path, NM_IFACE_DEVICE, "GetAppliedConnection", on_applied,
                                      c->active, i, "u", (uint32_t) 0);
        }
        a->usable = r >= 0;
        if (r < 0)
                log_warning_errno(r, "Failed to query NetworkManager for %s, skipping it: %m", a->id);

done:
        nm_active_props_done(&p);
        sync_done_one(s);
        return 0;
}

/* A device of an active connection (full read), or a device read: the device, then the
 * connection active on it. */
static int on_device(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        SyncCall *c = userdata;
        NMSync *s = c->sync;
        SyncActive *a = &s->actives[c->active];
        SyncDevice *d = &a->devices[c->device];
        NMDeviceProps p = {};
        int r;

        r = nm_read_device_props(reply, &p);
        if (nm_reply_failed(reply, r, "the device", d->path))
                goto done;
        /* By ifindex, not by name: a link renamed meanwhile, or another of the same name, must
         * not take this device's profile. NetworkManager 1.42 (Debian 12) has no Device.Ifindex:
         * the link of that name now, then. */
        d->ifname = TAKE_PTR(p.ifname);
        d->ifindex = p.ifindex <= INT_MAX ? (int) p.ifindex : 0;
        if (d->ifindex == 0 && d->ifname)
                d->ifindex = (int) if_nametoindex(d->ifname);
        d->read = d->ifname != NULL;
        if (s->device_read && !isempty(p.active) && !streq(p.active, "/")) {
                a->path = TAKE_PTR(p.active);
                r = sync_get_all(s, a->path, NM_IFACE_ACTIVE, on_active, 0, 0);
                if (r < 0) {
                        log_warning_errno(r, "Failed to query NetworkManager, keeping its previous values: %m");
                        s->failed = true;
                }
        }

done:
        nm_device_props_done(&p);
        sync_done_one(s);
        return 0;
}

static int on_active_connections(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        SyncCall *c = userdata;
        NMSync *s = c->sync;
        _cleanup_strv_free_ char **paths = NULL;
        size_t n;
        int r;

        r = bus_read_variant_strv(reply, "ao", &paths);
        if (nm_reply_failed(reply, r, "ActiveConnections", NM_PATH))
                goto done; /* NetworkManager gone or broken: no profile applies */
        n = strv_length(paths);
        if (n > NM_ACTIVE_MAX) {
                log_warning("NetworkManager lists %zu active connections, looking at the first %u only.", n,
                            NM_ACTIVE_MAX);
                n = NM_ACTIVE_MAX;
        }
        s->actives = calloc(MAX(n, (size_t) 1), sizeof *s->actives);
        r = s->actives ? 0 : -ENOMEM;
        s->n_actives = s->actives ? n : 0; /* zeroed: freed as they are if a call fails */
        for (size_t i = 0; r >= 0 && i < n; i++) {
                s->actives[i].path = strdup(paths[i]);
                r = s->actives[i].path ? sync_get_all(s, paths[i], NM_IFACE_ACTIVE, on_active, i, 0) : -ENOMEM;
        }
        if (r < 0) {
                s->failed = true;
                log_warning_errno(r, "Failed to query NetworkManager, keeping its previous values: %m");
        }

done:
        sync_done_one(s);
        return 0;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(NMSync *, nm_sync_free);

int nm_sync_start(const NMSyncParams *params, const char *device, NMSync **ret)
{
        _cleanup_(nm_sync_freep) NMSync *s = NULL;
        int r;

        assert(params && params->bus && params->done);

        s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->p = *params;
        if (device) {
                s->device_read = true;
                s->actives = calloc(1, sizeof *s->actives);
                r = s->actives ? 0 : -ENOMEM;
                if (r >= 0) {
                        s->n_actives = 1;
                        r = active_add_devices(&s->actives[0], (char *const[]) { (char *) device }, 1);
                }
                if (r >= 0)
                        r = sync_get_all(s, device, NM_IFACE_DEVICE, on_device, 0, 0);
        } else
                r = sync_call(s, NM_PATH, DBUS_PROPERTIES, "Get", on_active_connections, 0, 0,
                              "ss", NM_IFACE, "ActiveConnections");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}
