/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NetworkManager's D-Bus API as igmpctl uses it (see nm-client.h).
 *
 * The settings dictionary (a{sa{sv}}) is never rebuilt from what igmpctl understands: it is
 * copied entry by entry from NetworkManager's own reply with sd_bus_message_copy(), and only
 * user.data is replaced. So settings and types igmpctl does not know survive an edit
 * unchanged, whatever NetworkManager version sent them.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array-util.h"
#include "bus-read.h"
#include "igmpctl.h"
#include "macro.h"
#include "nm-client.h"
#include "nm-settings.h"
#include "strv.h"

/* NMSettingsUpdate2Flags */
#define NM_UPDATE2_TO_DISK 0x1u
#define NM_UPDATE2_IN_MEMORY 0x2u
/* NMDeviceReapplyFlags (NetworkManager ≥ 1.42): keep addresses and routes NetworkManager did
 * not configure, as only user data changes. */
#define NM_REAPPLY_PRESERVE_EXTERNAL_IP 0x1u

/* Attempts when NetworkManager reports that the profile or device changed under us. */
#define NM_STALE_RETRIES 5

/* ---- calls and errors ---- */

/* Failures nm_call() leaves to its caller, unreported. */
#define NM_QUIET_GONE 1u     /* the object is gone or inactive: -ENXIO */
#define NM_QUIET_DENIED 2u   /* not the caller's to see: -EACCES */
#define NM_QUIET_NO_FLAGS 4u /* Reapply without flags support (NetworkManager < 1.42): -EOPNOTSUPP */

/* The object is gone (deleted meanwhile) or never was: GDBus answers UnknownMethod for a path
 * it has no object at. */
static bool nm_error_is_gone(const sd_bus_error *e)
{
        return sd_bus_error_has_names(e, SD_BUS_ERROR_UNKNOWN_OBJECT, SD_BUS_ERROR_UNKNOWN_METHOD,
                                      SD_BUS_ERROR_UNKNOWN_INTERFACE, "org.freedesktop.NetworkManager.Device.NotActive");
}

static bool nm_error_is_denied(const sd_bus_error *e)
{
        return sd_bus_error_has_names(e, SD_BUS_ERROR_ACCESS_DENIED, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED) ||
               (e->name && endswith(e->name, ".PermissionDenied"));
}

/* Reports a failed call. what: "update profile 'iptv'"; permission: the polkit action
 * NetworkManager checks for it (NULL for reads). Returns a negative errno. */
static int nm_call_error(const sd_bus_error *e, int r, const char *what, const char *permission)
{
        if (!sd_bus_error_is_set(e))
                return failed_errno(r, "%s", what);
        if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                                   SD_BUS_ERROR_DISCONNECTED)) {
                client_exit_status = EXIT_NM_NOT_RUNNING;
                fprintf(stderr,
                        "Failed to %s: NetworkManager is not running (nothing owns " NM_BUS_NAME " on the system "
                        "bus). Start it with 'systemctl start NetworkManager'.\n",
                        what);
                return -EHOSTDOWN;
        }
        if (sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY)) {
                fprintf(stderr, "Failed to %s: NetworkManager did not answer in time (%s).\n", what,
                        e->message ?: "timeout");
                return -ETIMEDOUT;
        }
        if (nm_error_is_denied(e)) {
                client_exit_status = EXIT_ACCESS_DENIED;
                fprintf(stderr, "Failed to %s: NetworkManager refused: %s", what, e->message ?: e->name);
                if (permission)
                        fprintf(stderr, "\nRun as root, or as a user polkit grants %s.", permission);
                fputc('\n', stderr);
                return -EACCES;
        }
        fprintf(stderr, "Failed to %s: NetworkManager says: %s (%s)\n", what, e->message ?: "no message", e->name);
        return r;
}

/* Sends m (built by nm_bus_new_call()); a failure is reported (what, permission) and returned, but
 * for those of quiet (NM_QUIET_*) and a stale edit (-ESTALE), returned only. */
static int nm_send(sd_bus *bus, sd_bus_message *m, const char *what, const char *permission, unsigned quiet,
                   sd_bus_message **reply)
{
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call(bus, m, 0, &e, reply);
        if (r >= 0)
                return r;
        if ((quiet & NM_QUIET_GONE) && nm_error_is_gone(&e))
                return -ENXIO;
        if ((quiet & NM_QUIET_DENIED) && nm_error_is_denied(&e))
                return -EACCES;
        if ((quiet & NM_QUIET_NO_FLAGS) && sd_bus_error_has_name(&e, "org.freedesktop.NetworkManager.Device.Failed") &&
            e.message && strstr(e.message, "flags"))
                return -EOPNOTSUPP;
        if (e.name && endswith(e.name, ".VersionIdMismatch"))
                return -ESTALE;
        return nm_call_error(&e, r, what, permission);
}

/* One call with its arguments (types, ...), as nm_send(). */
static int nm_call(sd_bus *bus, const char *path, const char *iface, const char *member, const char *what,
                   unsigned quiet, sd_bus_message **reply, const char *types, ...)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = nm_bus_new_call(bus, path, iface, member, &m);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        if (r < 0)
                return nm_call_error(NULL, r, what, NULL);
        return nm_send(bus, m, what, NULL, quiet, reply);
}

static int nm_parse_error(int r, const char *what)
{
        return failed_errno(r, "parse NetworkManager's answer to %s", what);
}

/* ---- settings ---- */

void nm_profile_done(NMProfile *p)
{
        free(p->path);
        free(p->id);
        free(p->uuid);
        free(p->type);
        strv_freep(&p->permissions);
        user_data_done(&p->data);
        free(p->filename);
        sd_bus_message_unref(p->settings);
        strv_freep(&p->devices);
        strv_freep(&p->device_paths);
        *p = (NMProfile) {};
}

void nm_profiles_free(NMProfile *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                nm_profile_done(&p[i]);
        free(p);
}

static int nm_keep_user_data(const char *key, const char *value, void *userdata)
{
        return user_data_set(userdata, key, value);
}

/* Reads what igmpctl needs from the a{sa{sv}} at the start of m. */
static int nm_settings_read_profile(sd_bus_message *m, NMProfile *p)
{
        NMSettings s = { .user_data = nm_keep_user_data, .userdata = &p->data };
        int r;

        user_data_done(&p->data);
        r = sd_bus_message_rewind(m, true);
        if (r >= 0)
                r = nm_settings_read(m, &s);
        strv_free(p->permissions);
        p->permissions = s.permissions;
        if (r >= 0)
                r = free_and_strdup(&p->id, s.id);
        if (r >= 0)
                r = free_and_strdup(&p->uuid, s.uuid);
        if (r >= 0)
                r = free_and_strdup(&p->type, s.type);
        if (r < 0)
                return r;
        return p->id && p->uuid ? 0 : -EBADMSG;
}

/* Appends a value to m in place of src's (skipped; NULL where there was none). */
typedef int (*NMValueFn)(sd_bus_message *m, sd_bus_message *src, const UserData *d);

/* Appends the dictionary entry key to m: its value fn's (with fn), else src's copied. */
static int nm_append_entry(sd_bus_message *m, const char *entry, const char *key, NMValueFn fn, sd_bus_message *src,
                           const UserData *d)
{
        int r = sd_bus_message_open_container(m, 'e', entry);

        if (r >= 0)
                r = sd_bus_message_append_basic(m, 's', key);
        if (r >= 0)
                r = fn ? fn(m, src, d) : sd_bus_message_copy(m, src, false);
        return r < 0 ? r : sd_bus_message_close_container(m);
}

/* Copies the dictionary of entry type entry ("sv", "sa{sv}") at src's read position (none with
 * src NULL) to m, the value of key replaced by fn's, or added by fn where missing (if d has
 * entries). */
static int nm_copy_dict(sd_bus_message *m, sd_bus_message *src, const char *entry, const char *key, NMValueFn fn,
                        const UserData *d)
{
        bool seen = false;
        char array[16];
        const char *k;
        int r;

        snprintf(array, sizeof array, "{%s}", entry);
        r = sd_bus_message_open_container(m, 'a', array);
        if (r >= 0 && src)
                r = sd_bus_message_enter_container(src, 'a', array);
        while (r >= 0 && src && (r = sd_bus_message_enter_container(src, 'e', entry)) > 0) {
                r = sd_bus_message_read_basic(src, 's', &k);
                if (r >= 0) {
                        seen = seen || streq(k, key);
                        r = nm_append_entry(m, entry, k, streq(k, key) ? fn : NULL, src, d);
                }
                if (r >= 0)
                        r = sd_bus_message_exit_container(src);
        }
        if (r >= 0 && src)
                r = sd_bus_message_exit_container(src);
        if (r >= 0 && !seen && d->n > 0)
                r = nm_append_entry(m, entry, key, fn, NULL, d);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

/* user.data: d. */
static int nm_append_user_data(sd_bus_message *m, sd_bus_message *src, const UserData *d)
{
        int r = src ? sd_bus_message_skip(src, "v") : 0;

        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "a{ss}");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{ss}");
        for (size_t i = 0; r >= 0 && i < d->n; i++)
                r = sd_bus_message_append(m, "{ss}", d->entries[i].key, d->entries[i].value);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

/* The "user" section: its other properties copied from src, "data" replaced by d. */
static int nm_copy_user_section(sd_bus_message *m, sd_bus_message *src, const UserData *d)
{
        return nm_copy_dict(m, src, "sv", "data", nm_append_user_data, d);
}

/* Appends to m the a{sa{sv}} at the start of src with user.data replaced by d. */
static int nm_settings_append(sd_bus_message *m, sd_bus_message *src, const UserData *d)
{
        int r = sd_bus_message_rewind(src, true);

        return r < 0 ? r : nm_copy_dict(m, src, "sa{sv}", "user", nm_copy_user_section, d);
}

/* ---- reading profiles ---- */

static int nm_connection_property(sd_bus_message *m, const char *key, void *ud)
{
        NMProfile *p = ud;
        int unsaved = false, r;

        if (streq(key, "Filename")) {
                r = bus_read_variant_string(m, "s", &p->filename);
                if (r > 0 && isempty(p->filename))
                        p->filename = mfree(p->filename);
        } else if (streq(key, "Unsaved")) {
                r = sd_bus_message_read(m, "v", "b", &unsaved);
                p->unsaved = unsaved;
        } else if (streq(key, "VersionId"))
                p->has_version_id = (r = sd_bus_message_read(m, "v", "t", &p->version_id)) >= 0;
        else
                return 0;
        return r < 0 ? r : 1;
}

/* Reads the profile at path into *ret. Failures are reported but those of quiet (nm_send()). */
static int nm_profile_read(sd_bus *bus, const char *path, NMProfile *ret, unsigned quiet)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *props = NULL;
        NMProfile p = {};
        int r;

        p.path = strdup(path);
        if (!p.path)
                return -ENOMEM;
        /* Properties first: a VersionId read before the settings makes a later edit of the
         * profile a refused update, never a lost one. */
        r = nm_call(bus, path, DBUS_PROPERTIES, "GetAll", "read a NetworkManager profile", quiet, &props, "s",
                    NM_IFACE_CONNECTION);
        if (r >= 0 && (r = bus_read_dict(props, nm_connection_property, &p)) < 0)
                r = nm_parse_error(r, path);
        if (r >= 0)
                r = nm_call(bus, path, NM_IFACE_CONNECTION, "GetSettings", "read a NetworkManager profile", quiet,
                            &p.settings, NULL);
        if (r >= 0 && (r = nm_settings_read_profile(p.settings, &p)) < 0)
                r = nm_parse_error(r, path);
        if (r < 0) {
                nm_profile_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

/* Where a profile is active: the device's interface name and object. */
static int nm_profile_add_device(sd_bus *bus, NMProfile *p, const char *device)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *ifname = NULL;
        int r;

        r = nm_call(bus, device, DBUS_PROPERTIES, "Get", "read a device", NM_QUIET_GONE, &reply, "ss",
                    NM_IFACE_DEVICE, "Interface");
        if (r == -ENXIO)
                return 0;
        if (r >= 0 && (r = bus_read_variant_string(reply, "s", &ifname)) < 0)
                return nm_parse_error(r, "a device's Interface");
        if (r < 0 || isempty(ifname))
                return r < 0 ? r : 0;
        /* One word each: neither an interface name nor an object path holds whitespace. */
        r = strv_extend_words(&p->devices, ifname);
        return r < 0 ? r : strv_extend_words(&p->device_paths, device);
}

/* Fills in devices/device_paths of the profiles active now (VPNs are not device profiles). */
static int nm_profiles_find_active(sd_bus *bus, NMProfile *profiles, size_t n)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **actives = NULL;
        int r;

        r = nm_call(bus, NM_PATH, DBUS_PROPERTIES, "Get", "list NetworkManager's active connections", 0, &reply,
                    "ss", NM_IFACE, "ActiveConnections");
        if (r < 0)
                return r;
        r = bus_read_variant_strv(reply, "ao", &actives);
        if (r < 0)
                return nm_parse_error(r, "ActiveConnections");

        for (char **a = actives; a && *a; a++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *ac = NULL;
                _cleanup_(nm_active_props_done) NMActiveProps props = {};
                NMProfile *p = NULL;

                r = nm_call(bus, *a, DBUS_PROPERTIES, "GetAll", "read an active connection", NM_QUIET_GONE, &ac, "s",
                            NM_IFACE_ACTIVE);
                if (r == -ENXIO)
                        continue; /* deactivated meanwhile */
                if (r < 0)
                        return r;
                r = nm_read_active_props(ac, &props);
                if (r < 0)
                        return nm_parse_error(r, "an active connection's properties");
                if (!nm_active_props_usable(&props))
                        continue;
                for (size_t i = 0; i < n && !p; i++)
                        if (streq(profiles[i].path, props.connection))
                                p = &profiles[i];
                for (char **d = props.devices; p && d && *d && r >= 0; d++)
                        r = nm_profile_add_device(bus, p, *d);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int nm_profile_compare(const void *a, const void *b)
{
        const NMProfile *x = a, *y = b;
        int c = strcmp(x->id, y->id);

        return c != 0 ? c : strcmp(x->uuid, y->uuid);
}

/* Reads the profiles at paths, sorted, with where they are active; those deleted meanwhile, or
 * not ours to see (when quiet has NM_QUIET_DENIED), are left out. */
static int nm_profiles_read(sd_bus *bus, char *const *paths, unsigned quiet, NMProfile **ret, size_t *ret_n)
{
        NMProfile *profiles = NULL;
        size_t n = 0, allocated = 0;
        int r = 0;

        for (char *const *p = paths; r >= 0 && p && *p; p++) {
                r = ARRAY_GROW(profiles, allocated, n, 8);
                if (r >= 0)
                        r = nm_profile_read(bus, *p, &profiles[n], quiet);
                if (r >= 0)
                        n++;
                else if (r == -ENXIO || r == -EACCES) /* deleted meanwhile, or not ours to see */
                        r = 0;
        }
        if (r >= 0)
                r = nm_profiles_find_active(bus, profiles, n);
        if (r < 0) {
                nm_profiles_free(profiles, n);
                return r;
        }
        if (n > 1)
                qsort(profiles, n, sizeof *profiles, nm_profile_compare);
        *ret = profiles;
        *ret_n = n;
        return 0;
}

int nm_profiles_list(sd_bus *bus, NMProfile **ret, size_t *ret_n)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **paths = NULL;
        int r;

        r = nm_call(bus, NM_SETTINGS_PATH, NM_IFACE_SETTINGS, "ListConnections", "list NetworkManager's profiles", 0,
                    &reply, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_read_strv(reply, &paths);
        if (r < 0)
                return nm_parse_error(r, "ListConnections");
        return nm_profiles_read(bus, paths, NM_QUIET_GONE | NM_QUIET_DENIED, ret, ret_n);
}

static int nm_no_such_profile(const char *arg)
{
        client_exit_status = EXIT_NM_NO_PROFILE;
        fprintf(stderr,
                "No NetworkManager profile '%s' (looked for a name, UUID or D-Bus path; "
                "see 'nmcli connection show').\n",
                arg);
        return -ENOENT;
}

int nm_profile_resolve(sd_bus *bus, const char *arg, NMProfile *ret)
{
        bool by_path = arg[0] == '/';
        NMProfile *profiles = NULL;
        size_t n = 0, n_names = 0, pick = SIZE_MAX;
        int r;

        if (by_path && !sd_bus_object_path_is_valid(arg))
                return nm_no_such_profile(arg);
        r = by_path ? nm_profiles_read(bus, (char *const[]) { (char *) arg, NULL }, NM_QUIET_GONE, &profiles, &n)
                    : nm_profiles_list(bus, &profiles, &n);
        if (r < 0)
                return r;
        if (by_path && n == 1)
                pick = 0;
        /* A UUID names one profile; only then names, which may repeat. */
        for (size_t i = 0; i < n && pick == SIZE_MAX; i++)
                if (strcasecmp(profiles[i].uuid, arg) == 0)
                        pick = i;
        if (pick == SIZE_MAX)
                for (size_t i = 0; i < n; i++)
                        if (streq(profiles[i].id, arg)) {
                                pick = i;
                                n_names++;
                        }
        if (pick == SIZE_MAX)
                r = nm_no_such_profile(arg);
        else if (n_names > 1) {
                fprintf(stderr, "%zu NetworkManager profiles are named '%s'; name one by its UUID:\n", n_names, arg);
                for (size_t i = 0; i < n; i++)
                        if (streq(profiles[i].id, arg))
                                fprintf(stderr, "  %s  %s%s%s\n", profiles[i].uuid, strempty(profiles[i].type),
                                        profiles[i].devices ? ", active on " : "",
                                        profiles[i].devices ? profiles[i].devices[0] : "");
                r = -ENOTUNIQ;
        } else {
                *ret = profiles[pick];
                profiles[pick] = (NMProfile) {};
                r = 0;
        }
        nm_profiles_free(profiles, n);
        return r;
}

/* ---- writing ---- */

int nm_profile_update(sd_bus *bus, const NMProfile *p, const UserData *data, bool runtime)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        char what[512];
        int r;

        r = nm_bus_new_call(bus, p->path, NM_IFACE_CONNECTION, "Update2", &m);
        if (r >= 0)
                r = nm_settings_append(m, p->settings, data);
        /* "version-id" exists where VersionId does (NetworkManager ≥ 1.44); older versions reject
         * any argument but "plugin": an empty a{sv} then (the entry's arguments are left unread). */
        if (r >= 0)
                r = sd_bus_message_append(m, "ua{sv}", runtime ? NM_UPDATE2_IN_MEMORY : NM_UPDATE2_TO_DISK,
                                          p->has_version_id ? 1 : 0, "version-id", "t", p->version_id);
        if (r < 0)
                return failed_errno(r, "build the update of profile '%s'", p->id);
        snprintf(what, sizeof what, "update NetworkManager profile '%s'", p->id);
        return nm_send(bus, m, what,
                       p->permissions && p->permissions[0] ? "org.freedesktop.NetworkManager.settings.modify.own"
                                                           : "org.freedesktop.NetworkManager.settings.modify.system",
                       0, NULL);
}

static int nm_reapply_once(sd_bus *bus, const NMProfile *p, const char *device_path, const char *ifname,
                           const UserData *data, uint32_t flags)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *applied = NULL, *m = NULL;
        _cleanup_(nm_profile_done) NMProfile a = {};
        uint64_t version_id;
        char what[512];
        int r;

        snprintf(what, sizeof what, "reapply NetworkManager profile '%s' on %s", p->id, ifname);
        r = nm_call(bus, device_path, NM_IFACE_DEVICE, "GetAppliedConnection", what, NM_QUIET_GONE, &applied, "u",
                    UINT32_C(0));
        if (r == -ENXIO) {
                fprintf(stderr, "Failed to %s: the profile is no longer active there.\n", what);
                return -ENOLINK;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_skip(applied, "a{sa{sv}}");
        if (r >= 0)
                r = sd_bus_message_read(applied, "t", &version_id);
        if (r >= 0)
                r = nm_settings_read_profile(applied, &a);
        if (r < 0)
                return nm_parse_error(r, "GetAppliedConnection");
        if (!streq(a.uuid, p->uuid)) {
                fprintf(stderr, "Failed to %s: %s now runs profile '%s'.\n", what, ifname, a.id);
                return -ENOLINK;
        }
        if (user_data_igmpd_equal(&a.data, data))
                return 0;
        r = user_data_take_igmpd(&a.data, data);
        if (r >= 0)
                r = nm_bus_new_call(bus, device_path, NM_IFACE_DEVICE, "Reapply", &m);
        if (r >= 0)
                r = nm_settings_append(m, applied, &a.data);
        if (r >= 0)
                r = sd_bus_message_append(m, "tu", version_id, flags);
        if (r < 0)
                return failed_errno(r, "build the reapply of profile '%s'", p->id);
        r = nm_send(bus, m, what, "org.freedesktop.NetworkManager.network-control", flags != 0 ? NM_QUIET_NO_FLAGS : 0,
                    NULL);
        return r < 0 ? r : 1;
}

int nm_device_reapply_igmpd(sd_bus *bus, const NMProfile *p, const char *device_path, const char *ifname,
                            const UserData *data)
{
        uint32_t flags = NM_REAPPLY_PRESERVE_EXTERNAL_IP;
        int r = -ESTALE;

        for (unsigned i = 0; i < NM_STALE_RETRIES && (r == -ESTALE || r == -EOPNOTSUPP); i++) {
                if (r == -EOPNOTSUPP)
                        flags = 0;
                r = nm_reapply_once(bus, p, device_path, ifname, data, flags);
        }
        if (r == -ESTALE || r == -EOPNOTSUPP)
                fprintf(stderr,
                        "Failed to reapply NetworkManager profile '%s' on %s: the device kept changing "
                        "meanwhile; try again.\n",
                        p->id, ifname);
        return r;
}
