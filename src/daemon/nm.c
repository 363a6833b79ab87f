/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NetworkManager follower (see nm.h).
 *
 * State is rebuilt as a whole ("resync") whenever something relevant happens: the name
 * org.freedesktop.NetworkManager gets an owner, the manager's ActiveConnections change, a
 * device or an active connection changes state, or a profile is Updated. A resync reads
 * ActiveConnections, then per active connection its Id, Connection, Devices, State and Vpn,
 * per device its Interface and Ifindex, and per profile GetSettings() — all asynchronous. When
 * the last reply is in, the new table replaces the old one and every link whose values changed
 * is reconfigured. Signals arriving during a resync mark it dirty; one more resync follows.
 *
 * Only signals whose sender is the current owner of the name count. When the name loses its
 * owner the table is emptied (links fall back to the next source). When igmpd's own bus
 * connection drops, the table is kept until the bus is back and NetworkManager is read again.
 */

#include <assert.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "fnv.h"
#include "log.h"
#include "nm-parse.h"
#include "nm.h"
#include "strv.h"

#define NM_BUS_NAME "org.freedesktop.NetworkManager"
#define NM_PATH "/org/freedesktop/NetworkManager"
#define NM_IFACE "org.freedesktop.NetworkManager"
#define NM_IFACE_ACTIVE "org.freedesktop.NetworkManager.Connection.Active"
#define NM_IFACE_DEVICE "org.freedesktop.NetworkManager.Device"
#define NM_IFACE_SETTINGS_CONNECTION "org.freedesktop.NetworkManager.Settings.Connection"

/* NMActiveConnectionState: only these two apply the profile. */
#define NM_ACTIVE_CONNECTION_STATE_ACTIVATING 1
#define NM_ACTIVE_CONNECTION_STATE_ACTIVATED 2

#define NM_REPORTED_MAX 64

typedef struct NMEntry {
        char ifname[IF_NAMESIZE];
        int ifindex;
        char *source; /* "NetworkManager:<id>" */
        KnobSetting knobs[_KNOB_MAX];
} NMEntry;

typedef struct NMSyncDevice {
        char *path;
        char *ifname;
        int ifindex;
} NMSyncDevice;

typedef struct NMSyncActive {
        char *path;
        char *id;
        char *connection;
        bool usable;       /* state activating/activated, not a VPN, has a profile */
        bool have_settings;
        KnobSetting knobs[_KNOB_MAX];
        NMSyncDevice *devices;
        size_t n_devices;
} NMSyncActive;

typedef struct NMSync NMSync;

typedef struct NMCall {
        NMSync *sync;
        sd_bus_slot *slot;
        size_t active; /* index into sync->actives */
        size_t device; /* index into that active's devices */
} NMCall;

struct NMSync {
        NMState *nm;
        NMSyncActive *actives;
        size_t n_actives;
        NMCall **calls;
        size_t n_calls, n_pending;
        bool failed; /* the top-level read failed: NetworkManager gone mid-way */
};

struct NMState {
        NMChangedFn changed;   /* a device's values changed: its link needs configuring */
        ConfigDiagFn diag;     /* problems in a profile */
        void *userdata;

        sd_bus *bus; /* a reference to the bus given by nm_set_bus() while attached */
        sd_bus_slot *match_owner, *match_props, *match_device, *match_active, *match_updated;
        sd_bus_slot *owner_call;
        char *owner; /* unique name of NetworkManager, NULL while absent */

        NMEntry *entries;
        size_t n_entries;

        NMSync *sync;
        bool resync_again;

        uint64_t reported[NM_REPORTED_MAX]; /* hashes of profiles whose problems were logged */
        size_t n_reported;
        bool overflow_logged;
};

static void nm_resync(NMState *nm);

/* ---- small helpers ---- */

static void *nm_mfree(void *p)
{
        free(p);
        return NULL;
}

static bool nm_reported_before(NMState *nm, uint64_t h)
{
        for (size_t i = 0; i < MIN(nm->n_reported, (size_t) NM_REPORTED_MAX); i++)
                if (nm->reported[i] == h)
                        return true;
        nm->reported[nm->n_reported++ % NM_REPORTED_MAX] = h;
        return false;
}

static void nm_entries_free(NMEntry *e, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(e[i].source);
        free(e);
}

static const NMEntry *nm_find(const NMEntry *e, size_t n, int ifindex)
{
        for (size_t i = 0; i < n; i++)
                if (e[i].ifindex == ifindex)
                        return &e[i];
        return NULL;
}

static bool nm_entry_equal(const NMEntry *a, const NMEntry *b)
{
        if (!a || !b)
                return a == b;
        if (!streq(a->source, b->source))
                return false;
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                if ((a->knobs[k].line > 0) != (b->knobs[k].line > 0))
                        return false;
                if (a->knobs[k].line > 0 && a->knobs[k].value != b->knobs[k].value)
                        return false;
        }
        return true;
}

static unsigned nm_count_knobs(const KnobSetting knobs[_KNOB_MAX])
{
        unsigned n = 0;

        for (Knob k = 0; k < _KNOB_MAX; k++)
                n += knobs[k].line > 0;
        return n;
}

/* Swaps in a new table and tells the owner about every ifindex whose values changed. The old
 * table stays alive until then: links point at its source strings until they are configured
 * again. */
static void nm_table_replace(NMState *nm, NMEntry *entries, size_t n)
{
        NMEntry *old = nm->entries;
        size_t n_old = nm->n_entries;

        nm->entries = entries;
        nm->n_entries = n;

        for (size_t pass = 0; pass < 2; pass++) {
                const NMEntry *list = pass == 0 ? old : entries;
                size_t len = pass == 0 ? n_old : n;

                for (size_t i = 0; i < len; i++) {
                        const NMEntry *was = nm_find(old, n_old, list[i].ifindex);
                        const NMEntry *now = nm_find(entries, n, list[i].ifindex);

                        if (pass == 1 && was)
                                continue; /* handled in the first pass */
                        if (nm_entry_equal(was, now)) {
                                /* Unchanged: the link is not reconfigured and keeps pointing at
                                 * the old source string, so that string moves to the new table. */
                                if (was && was->source != now->source) {
                                        char *t = ((NMEntry *) was)->source;
                                        ((NMEntry *) was)->source = ((NMEntry *) now)->source;
                                        ((NMEntry *) now)->source = t;
                                }
                                continue;
                        }

                        if (now)
                                log_info("%s: NetworkManager profile '%s' %s, %u igmpd value%s.", now->ifname,
                                         now->source + strlen(NM_SOURCE_PREFIX),
                                         was && streq(was->source, now->source) ? "changed" : "is active",
                                         nm_count_knobs(now->knobs), nm_count_knobs(now->knobs) == 1 ? "" : "s");
                        else
                                log_info("%s: no NetworkManager profile values any more, falling back.",
                                         was->ifname);

                        nm->changed(list[i].ifindex, nm->userdata);
                }
        }
        nm_entries_free(old, n_old);
}

/* ---- resync ---- */

static NMSync *nm_sync_free(NMSync *s)
{
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_calls; i++) {
                sd_bus_slot_unref(s->calls[i]->slot);
                free(s->calls[i]);
        }
        free(s->calls);
        for (size_t i = 0; i < s->n_actives; i++) {
                NMSyncActive *a = &s->actives[i];
                for (size_t j = 0; j < a->n_devices; j++) {
                        free(a->devices[j].path);
                        free(a->devices[j].ifname);
                }
                free(a->devices);
                free(a->path);
                free(a->id);
                free(a->connection);
        }
        free(s->actives);
        free(s);
        return NULL;
}

static int nm_sync_call(NMSync *s, const char *path, const char *interface, const char *member,
                        sd_bus_message_handler_t handler, size_t active, size_t device, const char *types, ...)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
        NMCall *c, **calls;
        va_list ap;
        int r;

        calls = realloc(s->calls, (s->n_calls + 1) * sizeof *calls);
        if (!calls)
                return -ENOMEM;
        s->calls = calls;
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        *c = (NMCall) { .sync = s, .active = active, .device = device };

        r = sd_bus_message_new_method_call(s->nm->bus, &msg, NM_BUS_NAME, path, interface, member);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(msg, types, ap);
                va_end(ap);
        }
        if (r >= 0)
                r = sd_bus_call_async(s->nm->bus, &c->slot, msg, handler, c, 0);
        if (r < 0) {
                free(c);
                return r;
        }
        s->calls[s->n_calls++] = c;
        s->n_pending++;
        return 0;
}

static void nm_sync_finish(NMSync *s)
{
        NMState *nm = s->nm;
        NMEntry *entries = NULL;
        size_t n = 0;

        size_t want = 0;

        if (s->failed)
                goto keep; /* out of memory or no way to ask: the previous table stays */

        for (size_t i = 0; i < s->n_actives; i++)
                want += s->actives[i].n_devices;
        entries = calloc(MAX(want, (size_t) 1), sizeof *entries);
        if (!entries) {
                log_oom();
                goto keep;
        }
        for (size_t i = 0; i < s->n_actives; i++) {
                NMSyncActive *a = &s->actives[i];

                /* A profile without igmpd keys is no source: leave it out. */
                if (!a->usable || !a->have_settings || nm_count_knobs(a->knobs) == 0)
                        continue;
                for (size_t j = 0; j < a->n_devices; j++) {
                        NMSyncDevice *d = &a->devices[j];

                        /* Keyed by ifindex: a device NetworkManager has no kernel link for (0)
                                 * has nothing to configure. */
                        if (!d->ifname || strlen(d->ifname) >= IF_NAMESIZE || d->ifindex <= 0 ||
                            nm_find(entries, n, d->ifindex))
                                continue;
                        if (n >= NM_ENTRIES_MAX) {
                                if (!nm->overflow_logged)
                                        log_warning("More than %u NetworkManager devices with igmpd values, "
                                                    "ignoring the rest.", NM_ENTRIES_MAX);
                                nm->overflow_logged = true;
                                break;
                        }
                        entries[n].source = nm_source_name(a->id);
                        if (!entries[n].source) {
                                nm_entries_free(entries, n);
                                log_oom();
                                goto keep;
                        }
                        strcpy(entries[n].ifname, d->ifname);
                        entries[n].ifindex = d->ifindex;
                        memcpy(entries[n].knobs, a->knobs, sizeof a->knobs);
                        n++;
                }
        }

        nm->sync = NULL; /* before reconfiguring: nothing below may see a half-done sync */
        nm_sync_free(s);
        nm_table_replace(nm, entries, n);
        goto again;

keep:
        nm->sync = NULL;
        nm_sync_free(s);
again:
        if (nm->resync_again) {
                nm->resync_again = false;
                nm_resync(nm);
        }
}

/* Called at the end of every reply handler. */
static void nm_sync_done_one(NMSync *s)
{
        if (--s->n_pending == 0)
                nm_sync_finish(s);
}

static bool nm_reply_failed(sd_bus_message *reply, const char *what, const char *path)
{
        const sd_bus_error *e;

        if (!sd_bus_message_is_method_error(reply, NULL))
                return false;
        e = sd_bus_message_get_error(reply);
        log_debug("NetworkManager: reading %s of %s failed, skipping: %s", what, path,
                  e && e->message ? e->message : "unknown error");
        return true;
}

/* Walks an a{sv}; fn consumes the variant and returns 1, or returns 0 to have it skipped. */
static int nm_read_properties(sd_bus_message *m, int (*fn)(sd_bus_message *m, const char *key, void *ud), void *ud)
{
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key;

                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                r = fn(m, key, ud);
                if (r == 0)
                        r = sd_bus_message_skip(m, "v");
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int nm_read_variant_strv(sd_bus_message *m, const char *type, char ***ret)
{
        int r;

        r = sd_bus_message_enter_container(m, 'v', type);
        if (r < 0)
                return r;
        r = sd_bus_message_read_strv(m, ret);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

/* Device properties. */
static int nm_device_property(sd_bus_message *m, const char *key, void *ud)
{
        NMSyncDevice *d = ud;
        const char *s;
        int r;

        if (streq(key, "Interface")) {
                r = sd_bus_message_read(m, "v", "s", &s);
                if (r < 0)
                        return r;
                free(d->ifname);
                d->ifname = strdup(s);
                return d->ifname ? 1 : -ENOMEM;
        }
        return 0;
}

static int nm_on_device(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        NMCall *c = userdata;
        NMSync *s = c->sync;
        NMSyncDevice *d = &s->actives[c->active].devices[c->device];
        int r;

        if (!nm_reply_failed(reply, "the device", d->path)) {
                r = nm_read_properties(reply, nm_device_property, d);
                if (r < 0) {
                        log_debug_errno(r, "NetworkManager: bad reply for device %s, skipping: %m", d->path);
                        d->ifname = nm_mfree(d->ifname);
                }
                /* NetworkManager's devices carry no ifindex: the link of that name in igmpd's
                 * namespace, which is NetworkManager's. */
                d->ifindex = d->ifname ? (int) if_nametoindex(d->ifname) : 0;
        }
        nm_sync_done_one(s);
        return 0;
}

static int nm_parse_user_data(NMSync *s, NMSyncActive *a, sd_bus_message *m)
{
        typedef struct { const char *key, *value; } Pair;
        Pair pairs[256];
        size_t n = 0;
        uint64_t h = fnv1a64_str(FNV1A64_INIT, a->id);
        const char *k, *v;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a{ss}");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "{ss}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "{ss}", &k, &v)) > 0) {
                if (strncmp(k, NM_USER_DATA_PREFIX, strlen(NM_USER_DATA_PREFIX)) != 0)
                        continue;
                if (n >= ELEMENTSOF(pairs))
                        continue; /* NetworkManager itself allows at most 256 keys */
                pairs[n++] = (Pair) { k, v };
                /* Order-independent: NetworkManager may send the dictionary in any order. */
                h ^= fnv1a64_str(fnv1a64_str(FNV1A64_INIT, k), v);
        }
        if (r < 0)
                return r;

        /* A bad value is reported once per profile content, not on every resync. */
        bool report = n > 0 && !nm_reported_before(s->nm, h);
        for (size_t i = 0; i < n; i++)
                (void) nm_user_data_apply(a->id, pairs[i].key, pairs[i].value, a->knobs,
                                          report ? s->nm->diag : NULL, s->nm->userdata);

        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

typedef struct UserSection {
        NMSync *sync;
        NMSyncActive *active;
} UserSection;

/* The profile's "user" section: only its "data" dictionary matters. */
static int nm_user_property(sd_bus_message *m, const char *key, void *ud)
{
        UserSection *u = ud;

        return streq(key, "data") ? nm_parse_user_data(u->sync, u->active, m) : 0;
}

static int nm_on_settings(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        NMCall *c = userdata;
        NMSync *s = c->sync;
        NMSyncActive *a = &s->actives[c->active];
        int r;

        if (nm_reply_failed(reply, "the settings", a->connection))
                goto done;

        r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
        if (r < 0)
                goto fail;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
                const char *section;

                r = sd_bus_message_read(reply, "s", &section);
                if (r < 0)
                        goto fail;
                if (!streq(section, "user")) {
                        r = sd_bus_message_skip(reply, "a{sv}");
                        if (r < 0)
                                goto fail;
                } else {
                        r = nm_read_properties(reply, nm_user_property, &(UserSection) { s, a });
                        if (r < 0)
                                goto fail;
                }
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        goto fail;
        }
        if (r < 0)
                goto fail;
        a->have_settings = true;
        goto done;

fail:
        log_debug_errno(r, "NetworkManager: bad settings reply for %s, skipping: %m", a->connection);
        memset(a->knobs, 0, sizeof a->knobs);
done:
        nm_sync_done_one(s);
        return 0;
}

typedef struct ActiveProps {
        NMSyncActive *a;
        char **devices;
        uint32_t state;
        int vpn;
} ActiveProps;

static int nm_active_property(sd_bus_message *m, const char *key, void *ud)
{
        ActiveProps *p = ud;
        const char *s;
        int r;

        if (streq(key, "Id")) {
                r = sd_bus_message_read(m, "v", "s", &s);
                if (r < 0)
                        return r;
                free(p->a->id);
                p->a->id = strdup(s);
                return p->a->id ? 1 : -ENOMEM;
        }
        if (streq(key, "Connection")) {
                r = sd_bus_message_read(m, "v", "o", &s);
                if (r < 0)
                        return r;
                free(p->a->connection);
                p->a->connection = strdup(s);
                return p->a->connection ? 1 : -ENOMEM;
        }
        if (streq(key, "Devices")) {
                p->devices = strv_free(p->devices);
                return nm_read_variant_strv(m, "ao", &p->devices);
        }
        if (streq(key, "State"))
                return sd_bus_message_read(m, "v", "u", &p->state) < 0 ? -EBADMSG : 1;
        if (streq(key, "Vpn"))
                return sd_bus_message_read(m, "v", "b", &p->vpn) < 0 ? -EBADMSG : 1;
        return 0;
}

static int nm_on_active(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        NMCall *c = userdata;
        NMSync *s = c->sync;
        NMSyncActive *a = &s->actives[c->active];
        ActiveProps p = { .a = a };
        size_t n = 0;
        int r;

        if (nm_reply_failed(reply, "the active connection", a->path))
                goto done;
        r = nm_read_properties(reply, nm_active_property, &p);
        if (r < 0) {
                log_debug_errno(r, "NetworkManager: bad reply for %s, skipping: %m", a->path);
                goto done;
        }
        if (!a->id || !a->connection || streq(a->connection, "/") || p.vpn ||
            (p.state != NM_ACTIVE_CONNECTION_STATE_ACTIVATING && p.state != NM_ACTIVE_CONNECTION_STATE_ACTIVATED))
                goto done;

        for (char **d = p.devices; d && *d; d++)
                n++;
        if (n == 0)
                goto done;
        a->devices = calloc(n, sizeof *a->devices);
        if (!a->devices) {
                log_oom();
                goto done;
        }
        for (size_t i = 0; i < n; i++) {
                a->devices[i].path = strdup(p.devices[i]);
                if (!a->devices[i].path) {
                        log_oom();
                        goto done;
                }
                a->n_devices++;
        }
        a->usable = true;

        r = nm_sync_call(s, a->connection, NM_IFACE_SETTINGS_CONNECTION, "GetSettings", nm_on_settings, c->active, 0,
                         NULL);
        for (size_t i = 0; r >= 0 && i < a->n_devices; i++)
                r = nm_sync_call(s, a->devices[i].path, "org.freedesktop.DBus.Properties", "GetAll", nm_on_device,
                                 c->active, i, "s", NM_IFACE_DEVICE);
        if (r < 0) {
                log_warning_errno(r, "Failed to query NetworkManager for %s, skipping it: %m", a->id);
                a->usable = false;
        }

done:
        strv_free(p.devices);
        nm_sync_done_one(s);
        return 0;
}

static int nm_on_active_connections(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        NMCall *c = userdata;
        NMSync *s = c->sync;
        _cleanup_strv_free_ char **paths = NULL;
        size_t n = 0;
        int r;

        if (nm_reply_failed(reply, "ActiveConnections", NM_PATH))
                goto done; /* NetworkManager gone or broken: no profile applies */
        r = nm_read_variant_strv(reply, "ao", &paths);
        if (r < 0) {
                log_debug_errno(r, "NetworkManager: bad ActiveConnections reply: %m");
                goto done;
        }
        for (char **p = paths; p && *p; p++)
                n++;
        if (n > NM_ACTIVE_MAX) {
                log_warning("NetworkManager lists %zu active connections, looking at the first %u only.", n,
                            NM_ACTIVE_MAX);
                n = NM_ACTIVE_MAX;
        }
        s->actives = calloc(MAX(n, (size_t) 1), sizeof *s->actives);
        if (!s->actives) {
                s->failed = true;
                log_oom();
                goto done;
        }
        for (size_t i = 0; i < n; i++) {
                s->actives[i].path = strdup(paths[i]);
                if (!s->actives[i].path) {
                        s->failed = true;
                        log_oom();
                        goto done;
                }
                s->n_actives++;
                r = nm_sync_call(s, paths[i], "org.freedesktop.DBus.Properties", "GetAll", nm_on_active, i, 0, "s",
                                 NM_IFACE_ACTIVE);
                if (r < 0) {
                        s->failed = true;
                        log_warning_errno(r, "Failed to query NetworkManager, keeping its previous values: %m");
                        goto done;
                }
        }

done:
        nm_sync_done_one(s);
        return 0;
}

static void nm_resync(NMState *nm)
{
        NMSync *s;
        int r;

        if (!nm->bus || !nm->owner)
                return;
        if (nm->sync) {
                nm->resync_again = true;
                return;
        }
        s = calloc(1, sizeof *s);
        if (!s) {
                log_oom();
                return;
        }
        s->nm = nm;
        r = nm_sync_call(s, NM_PATH, "org.freedesktop.DBus.Properties", "Get", nm_on_active_connections, 0, 0, "ss",
                         NM_IFACE, "ActiveConnections");
        if (r < 0) {
                log_warning_errno(r, "Failed to query NetworkManager, keeping its previous values: %m");
                nm_sync_free(s);
                return;
        }
        nm->sync = s;
}

/* ---- name owner and signals ---- */

static void nm_set_owner(NMState *nm, const char *owner)
{
        if (owner && !*owner)
                owner = NULL;
        if (streq_ptr(nm->owner, owner))
                return;

        nm->sync = nm_sync_free(nm->sync);
        nm->resync_again = false;
        free(nm->owner);
        nm->owner = NULL;

        if (owner) {
                nm->owner = strdup(owner);
                if (!nm->owner) {
                        log_oom();
                        return;
                }
                log_info("NetworkManager is on the bus (%s), following its active profiles.", owner);
                nm_resync(nm);
        } else {
                log_info("NetworkManager is not on the bus, its profile values no longer apply.");
                nm_table_replace(nm, NULL, 0);
        }
}

static bool nm_from_owner(NMState *nm, sd_bus_message *m)
{
        return nm->owner && streq_ptr(sd_bus_message_get_sender(m), nm->owner);
}

static int nm_on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NMState *nm = userdata;
        const char *name, *old, *new;

        if (sd_bus_message_read(m, "sss", &name, &old, &new) < 0 || !streq(name, NM_BUS_NAME))
                return 0;
        if (!streq_ptr(sd_bus_message_get_sender(m), "org.freedesktop.DBus"))
                return 0;
        nm_set_owner(nm, new);
        return 0;
}

static int nm_on_get_name_owner(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        NMState *nm = userdata;
        const char *owner = NULL;

        nm->owner_call = sd_bus_slot_unref(nm->owner_call);
        if (sd_bus_message_is_method_error(reply, NULL)) {
                log_info("NetworkManager is not on the bus; igmpd will follow it when it appears.");
                nm_table_replace(nm, NULL, 0); /* values kept from an earlier connection */
                return 0;
        }
        if (sd_bus_message_read(reply, "s", &owner) < 0)
                return 0;
        nm_set_owner(nm, owner);
        return 0;
}

static int nm_on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NMState *nm = userdata;
        const char *iface, *key;
        bool relevant = false;
        int r;

        if (!nm_from_owner(nm, m))
                return 0;
        if (sd_bus_message_read(m, "s", &iface) < 0 || !streq(iface, NM_IFACE))
                return 0;
        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                if (sd_bus_message_read(m, "s", &key) < 0)
                        break;
                if (streq(key, "ActiveConnections") || streq(key, "Devices"))
                        relevant = true;
                if (sd_bus_message_skip(m, "v") < 0 || sd_bus_message_exit_container(m) < 0)
                        break;
        }
        if (relevant)
                nm_resync(nm);
        return 0;
}

static int nm_on_change_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NMState *nm = userdata;

        if (nm_from_owner(nm, m)) {
                log_debug("NetworkManager: %s.%s on %s, re-reading profiles.", strempty(sd_bus_message_get_interface(m)),
                          strempty(sd_bus_message_get_member(m)), strempty(sd_bus_message_get_path(m)));
                nm_resync(nm);
        }
        return 0;
}

/* ---- attaching to the bus ---- */

static void nm_detach(NMState *nm)
{
        nm->sync = nm_sync_free(nm->sync);
        nm->resync_again = false;
        nm->owner_call = sd_bus_slot_unref(nm->owner_call);
        nm->match_owner = sd_bus_slot_unref(nm->match_owner);
        nm->match_props = sd_bus_slot_unref(nm->match_props);
        nm->match_device = sd_bus_slot_unref(nm->match_device);
        nm->match_active = sd_bus_slot_unref(nm->match_active);
        nm->match_updated = sd_bus_slot_unref(nm->match_updated);
        nm->bus = sd_bus_unref(nm->bus);
        /* The table stays: without a bus nothing tells us NetworkManager changed anything. The
         * owner is forgotten, so the next connection reads everything again. */
        nm->owner = nm_mfree(nm->owner);
}

static int nm_attach(NMState *nm, sd_bus *bus)
{
        int r;

        nm->bus = sd_bus_ref(bus);

        r = sd_bus_add_match_async(bus, &nm->match_owner,
                                   "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                   "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                                   "arg0='" NM_BUS_NAME "'",
                                   nm_on_name_owner_changed, NULL, nm);
        if (r >= 0)
                r = sd_bus_add_match_async(bus, &nm->match_props,
                                           "type='signal',path='" NM_PATH "',"
                                           "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                                           "arg0='" NM_IFACE "'",
                                           nm_on_properties_changed, NULL, nm);
        if (r >= 0)
                r = sd_bus_add_match_async(bus, &nm->match_device,
                                           "type='signal',interface='" NM_IFACE_DEVICE "',member='StateChanged'",
                                           nm_on_change_signal, NULL, nm);
        if (r >= 0)
                r = sd_bus_add_match_async(bus, &nm->match_active,
                                           "type='signal',interface='" NM_IFACE_ACTIVE "',member='StateChanged'",
                                           nm_on_change_signal, NULL, nm);
        if (r >= 0)
                r = sd_bus_add_match_async(bus, &nm->match_updated,
                                           "type='signal',interface='" NM_IFACE_SETTINGS_CONNECTION "',member='Updated'",
                                           nm_on_change_signal, NULL, nm);
        /* After the matches: the bus answers in order, so no change between the two is missed. */
        if (r >= 0)
                r = sd_bus_call_method_async(bus, &nm->owner_call, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                             "org.freedesktop.DBus", "GetNameOwner", nm_on_get_name_owner, nm, "s",
                                             NM_BUS_NAME);
        if (r < 0) {
                nm_detach(nm);
                return log_warning_errno(r, "Failed to follow NetworkManager on the bus, ignoring it: %m");
        }
        return 0;
}

void nm_set_bus(NMState *nm, sd_bus *bus)
{
        if (!nm || bus == nm->bus)
                return;
        if (nm->bus)
                nm_detach(nm);
        if (bus)
                (void) nm_attach(nm, bus);
}

/* ---- public ---- */

int nm_new(NMChangedFn changed, ConfigDiagFn diag, void *userdata, NMState **ret)
{
        NMState *nm;

        assert(changed);

        nm = calloc(1, sizeof *nm);
        if (!nm)
                return -ENOMEM;
        nm->changed = changed;
        nm->diag = diag;
        nm->userdata = userdata;
        *ret = nm;
        return 0;
}

NMState *nm_free(NMState *nm)
{
        if (!nm)
                return NULL;
        nm_detach(nm);
        nm_entries_free(nm->entries, nm->n_entries);
        free(nm);
        return NULL;
}

void nm_merge(const NMState *nm, int ifindex, KnobValue out[_KNOB_MAX])
{
        const NMEntry *e;

        if (!nm || ifindex <= 0)
                return;
        e = nm_find(nm->entries, nm->n_entries, ifindex);
        if (e)
                nm_knobs_overlay(e->knobs, e->source, out);
}

size_t nm_n_entries(const NMState *nm)
{
        return nm ? nm->n_entries : 0;
}
