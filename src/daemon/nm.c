/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NetworkManager follower (see nm.h): tracking NetworkManager and its devices, and the
 * table of values per device, diffed on every change.
 *
 * The whole state is read again ("full read", nm-sync.c) when the name
 * org.freedesktop.NetworkManager gets an owner, the manager's ActiveConnections or Devices
 * change, an active connection changes state, or igmpd is asked to (nm_resync(): ReconfigureLink,
 * Reload). A device that changes state is read alone ("device read"): only its entry can change.
 *
 * What counts is the connection NetworkManager applied on each device, not the saved profile:
 * a saved edit (Settings.Connection.Updated) changes nothing until it is reapplied or the
 * profile is activated again. NetworkManager 1.42 announces a Device.Reapply with no signal or
 * property change igmpd could follow, so whoever reapplies tells igmpd: `igmpctl nm --reapply`
 * calls ReconfigureLink for each device it reapplied on, and after `nmcli device reapply` an
 * admin runs `igmpctl reconfigure LINK`; the caller can wait for the read it asked for (NMWait:
 * ReconfigureLink replies then): each waits for read number N, and is told when a read numbered
 * N or later is done, or when reads stop. One read runs at a time;
 * whatever is asked for meanwhile becomes one full read after it. The new table replaces the
 * old one, and every ifindex whose values changed is reported through changed().
 *
 * Only signals whose sender is the current owner of the name count. When the name loses its
 * owner the table is emptied (links fall back to the next source). When igmpd's own bus
 * connection drops, the table is kept until the bus is back and NetworkManager is read again.
 */

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-read.h"
#include "log.h"
#include "nm-profile.h"
#include "nm-sync.h"
#include "nm-table.h"
#include "nm.h"

struct NMState {
        NMChangedFn changed;
        ConfigDiagFn diag;
        void *userdata;

        sd_bus *bus; /* a reference to the bus given by nm_set_bus() while attached */
        sd_bus_slot *matches[4]; /* nm_attach()'s */
        sd_bus_slot *owner_call;
        char *owner; /* unique name of NetworkManager, NULL while absent */

        NMTable table;

        NMSync *sync;     /* the read in flight */
        bool read_again;  /* a full read is due after it */
        unsigned full_reads; /* full reads started; the one in flight is number sync_full */
        unsigned sync_full;  /* 0 for a device read */
        NMWait *waits;       /* nm_resync() callers waiting for a full read */

        bool first_done;    /* the first answer is in: profiles read, or NetworkManager absent */
        bool first_present; /* … and it was on the bus and read */

        NMProfileReports reports;
};

struct NMWait {
        NMWait **list; /* the NMState's waits */
        NMWait *next;
        unsigned read; /* the read that answers it */
        NMWaitFn done;
        void *userdata;
};

/* Calls done, and forgets, every wait for a read numbered upto or lower (all for UINT_MAX). */
static void nm_waits_done(NMWait **waits, unsigned upto, bool freeing)
{
        for (NMWait **p = waits; *p;) {
                NMWait *w = *p;

                if (w->read > upto) {
                        p = &w->next;
                        continue;
                }
                *p = w->next;
                w->done(freeing, w->userdata); /* may cancel other waits: start over */
                free(w);
                p = waits;
        }
}

void nm_wait_cancel(NMWait *w)
{
        if (!w)
                return;
        for (NMWait **p = w->list; *p; p = &(*p)->next)
                if (*p == w) {
                        *p = w->next;
                        break;
                }
        free(w);
}

static void nm_read(NMState *nm, const char *device);

static void nm_on_read(NMSync *s, bool ok, const NMDeviceResult *results, size_t n, void *userdata)
{
        NMState *nm = userdata;
        int r = 0;

        assert(nm->sync == s);

        /* Not ok (out of memory, no way to ask): the previous table stays. */
        log_debug("NetworkManager: %s read %s, %zu device%s with igmpd values or ignored.",
                  nm_sync_device(s) ? "device" : "full", ok ? "done" : "failed", n, n == 1 ? "" : "s");
        if (ok)
                r = nm_table_update(&nm->table, nm_sync_device(s), results, n, nm->changed, nm->userdata);
        if (r < 0)
                log_oom();
        if (!nm->first_done) {
                nm->first_done = true;
                nm->first_present = ok && r >= 0;
        }
        nm->sync = nm_sync_free(s);
        if (nm->sync_full > 0)
                nm_waits_done(&nm->waits, nm->sync_full, false);
        if (nm->read_again)
                nm_read(nm, NULL);
}

/* ---- reading ---- */

/* Starts a full read (device NULL) or a device read, or, while a read runs, one full read after
 * it. */
static void nm_read(NMState *nm, const char *device)
{
        NMSyncParams p = {
                .bus = nm->bus,
                .reports = &nm->reports,
                .diag = nm->diag,
                .diag_userdata = nm->userdata,
                .done = nm_on_read,
                .userdata = nm,
        };
        int r;

        if (!nm->bus || !nm->owner)
                return;
        if (nm->sync) {
                nm->read_again = true;
                return;
        }
        nm->read_again = false;
        r = nm_sync_start(&p, device, &nm->sync);
        if (r < 0) {
                log_warning_errno(r, "Failed to query NetworkManager, keeping its previous values: %m");
                nm_waits_done(&nm->waits, UINT_MAX, false);
                return;
        }
        nm->sync_full = device ? 0 : ++nm->full_reads;
}

/* No read runs any more: whoever waited for one has its answer, the values as they are. */
static void nm_reads_cancel(NMState *nm)
{
        nm->sync = nm_sync_free(nm->sync);
        nm->read_again = false;
        nm_waits_done(&nm->waits, UINT_MAX, false);
}

/* ---- name owner and signals ---- */

static void nm_set_owner(NMState *nm, const char *owner)
{
        if (owner && !*owner)
                owner = NULL;
        if (streq_ptr(nm->owner, owner))
                return;

        nm_reads_cancel(nm);
        nm->owner = mfree(nm->owner);

        if (owner) {
                nm->owner = strdup(owner);
                if (!nm->owner) {
                        log_oom();
                        return;
                }
                log_info("NetworkManager is on the bus (%s), following its active profiles.", owner);
                nm_read(nm, NULL);
        } else {
                log_info("NetworkManager is not on the bus, its profile values no longer apply.");
                nm_table_clear(&nm->table, nm->changed, nm->userdata);
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

        if (sd_bus_message_read(m, "sss", &name, &old, &new) >= 0 && streq(name, NM_BUS_NAME) &&
            streq_ptr(sd_bus_message_get_sender(m), "org.freedesktop.DBus"))
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
                nm_table_clear(&nm->table, nm->changed, nm->userdata); /* values kept from an earlier connection */
                nm->first_done = true;
                return 0;
        }
        if (sd_bus_message_read(reply, "s", &owner) >= 0)
                nm_set_owner(nm, owner);
        return 0;
}

static int nm_relevant_property(sd_bus_message *m, const char *key, void *userdata)
{
        bool *relevant = userdata;

        *relevant = *relevant || streq(key, "ActiveConnections") || streq(key, "Devices");
        return 0;
}

static int nm_on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NMState *nm = userdata;
        const char *iface;
        bool relevant = false;

        if (!nm_from_owner(nm, m) || sd_bus_message_read(m, "s", &iface) < 0 || !streq(iface, NM_IFACE))
                return 0;
        (void) bus_read_dict(m, nm_relevant_property, &relevant);
        if (relevant)
                nm_read(nm, NULL);
        return 0;
}

/* A device changed state: only that device's values can change. An active connection changed
 * state: read everything again. */
static int nm_on_state_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        NMState *nm = userdata;
        const char *path = sd_bus_message_get_path(m);
        bool device = sd_bus_message_is_signal(m, NM_IFACE_DEVICE, NULL);

        if (!nm_from_owner(nm, m) || !path)
                return 0;
        log_debug("NetworkManager: %s %s changed state, re-reading %s.", device ? "device" : "active connection", path,
                  device ? "it" : "profiles");
        nm_read(nm, device ? path : NULL);
        return 0;
}

/* ---- attaching to the bus ---- */

static void nm_detach(NMState *nm)
{
        nm_reads_cancel(nm);
        nm->owner_call = sd_bus_slot_unref(nm->owner_call);
        for (size_t i = 0; i < ELEMENTSOF(nm->matches); i++)
                nm->matches[i] = sd_bus_slot_unref(nm->matches[i]);
        nm->bus = sd_bus_unref(nm->bus);
        /* The table stays: without a bus nothing tells us NetworkManager changed anything. The
         * owner is forgotten, so the next connection reads everything again. */
        nm->owner = mfree(nm->owner);
}

static int nm_attach(NMState *nm, sd_bus *bus)
{
        static const struct {
                const char *match;
                sd_bus_message_handler_t handler;
        } matches[ELEMENTSOF(((NMState *) NULL)->matches)] = {
                { "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                  "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" NM_BUS_NAME "'",
                  nm_on_name_owner_changed },
                { "type='signal',path='" NM_PATH "',interface='" DBUS_PROPERTIES "',"
                  "member='PropertiesChanged',arg0='" NM_IFACE "'",
                  nm_on_properties_changed },
                { "type='signal',interface='" NM_IFACE_DEVICE "',member='StateChanged'", nm_on_state_changed },
                { "type='signal',interface='" NM_IFACE_ACTIVE "',member='StateChanged'", nm_on_state_changed },
        };
        int r = 0;

        nm->bus = sd_bus_ref(bus);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(matches); i++)
                r = sd_bus_add_match_async(bus, &nm->matches[i], matches[i].match, matches[i].handler, NULL, nm);
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
        nm_waits_done(&nm->waits, UINT_MAX, true);
        nm_detach(nm);
        nm_table_done(&nm->table);
        free(nm);
        return NULL;
}

int nm_first_read_done(const NMState *nm, bool *ret_present)
{
        if (!nm || !nm->first_done)
                return 0;
        *ret_present = nm->first_present;
        return 1;
}

void nm_merge(const NMState *nm, int ifindex, KnobValue out[_KNOB_MAX])
{
        const NMEntry *e;

        if (!nm || ifindex <= 0)
                return;
        e = nm_table_find(&nm->table, ifindex);
        if (e && !e->ignored)
                knob_settings_overlay(e->knobs, _KNOB_MAX, e->source, out);
}

int nm_ignored_source(const NMState *nm, int ifindex, char **ret)
{
        const NMEntry *e = nm && ifindex > 0 ? nm_table_find(&nm->table, ifindex) : NULL;

        *ret = NULL;
        if (!e || !e->ignored)
                return 0;
        return asprintf(ret, "%s: %s", refstr_str(e->source), e->ignored) < 0 ? -ENOMEM : 0;
}

int nm_resync(NMState *nm, NMWaitFn done, void *userdata, NMWait **ret)
{
        NMWait *w;

        if (!nm)
                return 1;
        nm_read(nm, NULL);
        if (!done || !nm->sync)
                return 1; /* none asked for, or nothing to wait for: NetworkManager absent or not asked */

        w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        /* A read already in flight may have started before what the caller waits for. */
        *w = (NMWait) {
                .list = &nm->waits,
                .next = nm->waits,
                .read = nm->read_again ? nm->full_reads + 1 : nm->full_reads,
                .done = done,
                .userdata = userdata,
        };
        nm->waits = *ret = w;
        return 0;
}
