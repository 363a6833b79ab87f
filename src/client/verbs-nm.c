/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The nm verb: igmpd's keys in NetworkManager profiles. Lists the profiles that carry them,
 * shows one, sets and clears them (Update2, see nm-client.c), and reapplies them on the
 * device where the profile is active. igmpd follows NetworkManager on its own, except for a
 * reapply, which NetworkManager 1.42 does not announce: after one, igmpd is asked to read what
 * NetworkManager applied (ReconfigureLink).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igmpctl.h"
#include "macro.h"
#include "nm-client.h"
#include "output.h"

/* Edits refused because the profile changed meanwhile are redone on a fresh read this often. */
#define NM_UPDATE_ATTEMPTS 5

/* What the daemon makes of one igmpd key, for display: NULL if it uses it. */
static const char *key_problem(const UserDataEntry *e)
{
        int32_t v;
        Knob k;
        int r = nm_user_data_parse(e->key, e->value, &k, &v);

        return r == -ENOENT ? "unknown knob, ignored" : r < 0 ? "invalid value, ignored" : NULL;
}

static char *devices_string(char **devices)
{
        return devices && devices[0] ? client_strv_join(devices, ",") : NULL;
}

/* PROFILE as the user would type it again in a shell. */
static const char *shell_word(const char *s, char *buf, size_t size)
{
        size_t j = 0;

        if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:/@+=,") == strlen(s))
                return s;
        buf[j++] = '\'';
        for (; *s && j + 6 < size; s++) {
                if (*s == '\'') {
                        memcpy(buf + j, "'\\''", 4);
                        j += 4;
                } else
                        buf[j++] = *s;
        }
        buf[j++] = '\'';
        buf[j] = '\0';
        return buf;
}

static void json_write_profile(JsonWriter *w, NMProfile *p)
{
        json_begin_object(w);
        json_fields(w, "name", p->id, "uuid", p->uuid, "type", p->type, "path", p->path, NULL);
        json_field_strv(w, "devices", (const char *const *) p->devices);
        json_fields(w, "filename", p->filename, NULL);
        json_field_bool(w, "unsaved", p->unsaved);
        json_field_strv(w, "permissions", (const char *const *) p->permissions);
        user_data_sort(&p->data);

        /* What igmpd applies from it... */
        json_key(w, "knobs");
        json_begin_object(w);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                char key[64], value[32];
                const char *s;
                int32_t v;
                Knob kk;

                user_data_knob_entry(k, 0, key, value);
                s = user_data_get(&p->data, key);
                if (!s || nm_user_data_parse(key, s, &kk, &v) <= 0)
                        continue;
                json_field_int(w, knob_to_string(k), v);
        }
        json_end_object(w);

        /* ...and igmpd's keys as stored, valid or not. */
        json_key(w, "user_data");
        json_begin_object(w);
        for (size_t i = 0; i < p->data.n; i++)
                if (user_data_key_is_igmpd(p->data.entries[i].key))
                        json_field_string(w, p->data.entries[i].key, p->data.entries[i].value);
        json_end_object(w);
        json_end_object(w);
}

/* The JSON array of profiles[] (with igmpd keys only, with keyed). */
static int json_print_profiles(NMProfile *profiles, size_t n, bool keyed)
{
        JsonWriter w;

        json_start(&w);
        json_begin_array(&w);
        for (size_t i = 0; i < n; i++)
                if (!keyed || user_data_count_igmpd(&profiles[i].data) > 0)
                        json_write_profile(&w, &profiles[i]);
        json_end_array(&w);
        return json_done(&w);
}

/* Adds KNOB and VALUE cells for every igmpd key of p; the first row's leading cells come from
 * lead[] (n_lead of them), the next rows' are empty. */
static void table_add_keys(Table *t, NMProfile *p, const char *const *lead, size_t n_lead)
{
        bool first = true;

        user_data_sort(&p->data);
        for (size_t i = 0; i < p->data.n; i++) {
                const UserDataEntry *e = &p->data.entries[i];
                const char *problem = key_problem(e);

                if (!user_data_key_is_igmpd(e->key))
                        continue;
                for (size_t c = 0; c < n_lead; c++)
                        table_add_cell(t, first ? lead[c] : "");
                first = false;
                table_add_cell(t, e->key + STRLEN(NM_USER_DATA_PREFIX));
                table_add_cellf(t, "%s%s%s%s", e->value, problem ? " (" : "", strempty(problem), problem ? ")" : "");
        }
}

static int nm_list(sd_bus *bus)
{
        _cleanup_(table_freep) Table *t = NULL;
        NMProfile *profiles = NULL;
        size_t n = 0, shown = 0;
        int r;

        r = nm_profiles_list(bus, &profiles, &n);
        if (r < 0)
                return r;

        if (arg_json != JSON_OFF) {
                r = json_print_profiles(profiles, n, true);
                goto finish;
        }

        t = table_new((const char *const[]) { "PROFILE", "UUID", "DEVICE", "KNOB", "VALUE", NULL });
        table_set_ellipsize(t, 1, false);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *devices = NULL;

                if (user_data_count_igmpd(&profiles[i].data) == 0)
                        continue;
                devices = devices_string(profiles[i].devices);
                table_add_keys(t, &profiles[i],
                               (const char *const[]) { profiles[i].id, profiles[i].uuid, devices ?: "-" }, 3);
                shown++;
        }
        if (shown == 0) {
                if (arg_legend)
                        printf("No NetworkManager profile has igmpd values (%zu profile%s looked at). Set them with "
                               "igmpctl nm PROFILE --v3-interval 200ms.\n",
                               n, n == 1 ? "" : "s");
                goto finish;
        }
        r = table_print(t, stdout, arg_legend);
        if (r >= 0 && arg_legend)
                printf("\n%zu profile%s listed.\n", shown, shown == 1 ? "" : "s");
finish:
        nm_profiles_free(profiles, n);
        return r;
}

static void print_field(const char *label, const char *value)
{
        output_field(stdout, 13, label, value);
}

static int nm_show(NMProfile *p, const char *arg)
{
        _cleanup_free_ char *devices = NULL, *file = NULL, *perms = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        char quoted[512];

        if (arg_json != JSON_OFF)
                return json_print_profiles(p, 1, false);

        devices = devices_string(p->devices);
        if (p->filename && asprintf(&file, "%s%s", p->filename, p->unsaved ? " (changed in memory, not saved)" : "") < 0)
                return -ENOMEM;
        perms = devices_string(p->permissions);

        printf("● %s\n", p->id);
        print_field("UUID", p->uuid);
        print_field("Type", strempty(p->type));
        print_field("Device", devices ?: "- (not active)");
        print_field("File", file ?: "none (in memory only)");
        print_field("Permissions", perms ?: "none (a system profile)");
        print_field("D-Bus path", p->path);
        putchar('\n');

        if (user_data_count_igmpd(&p->data) == 0) {
                if (arg_legend)
                        printf("No igmpd values. Set them with igmpctl nm %s --v3-interval 200ms.\n",
                               shell_word(arg, quoted, sizeof quoted));
                return 0;
        }
        t = table_new((const char *const[]) { "KNOB", "VALUE", NULL });
        table_add_keys(t, p, NULL, 0);
        return table_print(t, stdout, arg_legend);
}

/* Edits p's user data and writes it; p->data is what NetworkManager then has. */
static int nm_edit(sd_bus *bus, NMProfile *p)
{
        int r = -ESTALE;

        for (unsigned i = 0; i < NM_UPDATE_ATTEMPTS && r == -ESTALE; i++) {
                if (i > 0) { /* a fresh read of the profile that changed */
                        NMProfile fresh;

                        r = nm_profile_resolve(bus, p->path, &fresh);
                        if (r < 0)
                                return r;
                        nm_profile_done(p);
                        *p = fresh;
                }
                r = user_data_edit(&p->data, arg_clear, arg_knob_set, arg_knob);
                if (r >= 0)
                        r = nm_profile_update(bus, p, &p->data, arg_runtime);
        }
        if (r == -ESTALE)
                fprintf(stderr, "Failed to update NetworkManager profile '%s': it kept changing meanwhile; try again.\n",
                        p->id);
        return r;
}

/* Tells igmpd, if it runs, to read what NetworkManager now applies on ifname: NetworkManager
 * announces no reapply. Never starts igmpd and never fails the command (the reapply happened);
 * says what to run when igmpd could not be told. */
static void nm_tell_igmpd(sd_bus *bus, const char *ifname)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *path;
        int32_t ifindex = 0;
        int r = 0;

        /* GetLinkByName, then ReconfigureLink of its ifindex. */
        for (unsigned reconfigure = 0; r >= 0 && reconfigure <= 1; reconfigure++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;

                r = sd_bus_message_new_method_call(bus, &m, IGMPD_BUS_NAME, IGMPD_MANAGER_PATH, IGMPD_MANAGER_INTERFACE,
                                                   reconfigure ? "ReconfigureLink" : "GetLinkByName");
                if (r >= 0)
                        r = sd_bus_message_set_auto_start(m, false);
                if (r >= 0)
                        r = reconfigure ? sd_bus_message_append(m, "i", ifindex) : sd_bus_message_append(m, "s", ifname);
                if (r >= 0)
                        r = sd_bus_call(bus, m, 0, &error, &reply);
                if (r >= 0 && !reconfigure)
                        r = sd_bus_message_read(reply, "io", &ifindex, &path);
        }
        if (r < 0 && !sd_bus_error_has_names(&error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                                             "org.igmpd1.Error.NoSuchLink"))
                /* igmpd not running or not managing that link: it reads NetworkManager when it starts. */
                fprintf(stderr,
                        "NetworkManager applied the values on %s, but igmpd could not be told to read them (%s); "
                        "run: igmpctl reconfigure %s\n",
                        ifname, error.message ?: strerror(-r), ifname);
}

int verb_nm(int argc, char **argv, sd_bus *bus)
{
        bool edit = arg_knobs_given || arg_clear;
        _cleanup_(nm_profile_done) NMProfile p = {};
        char quoted[512];
        int r;

        if (argc > 2)
                return usage_error("nm takes at most one PROFILE (got %d); quote a name with spaces: "
                                   "igmpctl nm 'My profile'.",
                                   argc - 1);
        if (argc < 2) {
                if (edit || arg_reapply || arg_runtime)
                        return usage_error("Knob options, --clear, --reapply and --runtime need a PROFILE: "
                                           "igmpctl nm PROFILE --v3-interval 200ms.");
                return nm_list(bus);
        }
        if (arg_runtime && !edit)
                return usage_error("--runtime goes with knob options or --clear: it keeps that change in "
                                   "memory only.");

        r = nm_profile_resolve(bus, argv[1], &p);
        if (r < 0)
                return r;

        if (!edit && !arg_reapply)
                return nm_show(&p, argv[1]);

        /* Checked before anything is written: a --reapply that cannot happen changes nothing. */
        if (arg_reapply && !p.devices) {
                fprintf(stderr,
                        "NetworkManager profile '%s' is not active on any device, so there is nothing to reapply%s. "
                        "Its values apply when it is activated (nmcli connection up %s).\n",
                        p.id, edit ? "; nothing was changed" : "", p.uuid);
                return -ENOLINK;
        }

        if (edit) {
                r = nm_edit(bus, &p);
                if (r < 0)
                        return r;
        }

        for (size_t i = 0; arg_reapply && p.devices[i] && p.device_paths[i]; i++) {
                r = nm_device_reapply_igmpd(bus, &p, p.device_paths[i], p.devices[i], &p.data);
                if (r < 0)
                        return r;
                nm_tell_igmpd(bus, p.devices[i]);
        }
        if (!arg_reapply && p.devices)
                fprintf(stderr,
                        "Profile '%s' changed. NetworkManager applies it on %s at the next activation, or now "
                        "with: igmpctl nm %s --reapply\n",
                        p.id, p.devices[0], shell_word(argv[1], quoted, sizeof quoted));
        return 0;
}
