/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpctl's view of igmpd's links (ClientLink): decoding org.igmpd1.Link properties, every link
 * in one call (ListLinksState), one link's properties.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array-util.h"
#include "bus-read.h"
#include "igmpctl.h"
#include "macro.h"
#include "strv.h"

void client_link_init(ClientLink *l)
{
        *l = (ClientLink) {};
        for (Knob k = 0; k < _KNOB_MAX; k++)
                l->kernel[k] = l->policy[k] = KNOB_STATUS_UNKNOWN;
}

static int link_set_knob(ClientLink *l, Knob k, int32_t kernel, int32_t policy, const char *source)
{
        l->kernel[k] = kernel;
        l->policy[k] = policy;
        l->has[k] = true;
        return free_and_strdup(&l->source[k], source);
}

static int read_knobs_variant(sd_bus_message *m, ClientLink *l)
{
        const char *name, *source;
        int32_t kernel, policy;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a{s(iis)}");
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "{s(iis)}");
        while (r >= 0 && (r = sd_bus_message_read(m, "{s(iis)}", &name, &kernel, &policy, &source)) > 0) {
                Knob k = knob_from_string(name);

                if (k >= 0) /* else a newer daemon's knob */
                        r = link_set_knob(l, k, kernel, policy, source);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

const ClientLinkField client_link_fields[CLIENT_LINK_FIELDS] = {
        { "Name", "name", offsetof(ClientLink, name), false },
        { "AlternativeNames", "alternative_names", offsetof(ClientLink, alternative_names), true },
        { "Kind", "kind", offsetof(ClientLink, kind), false },
        { "Type", "type", offsetof(ClientLink, type), false },
        { "MACAddress", "mac_address", offsetof(ClientLink, mac_address), false },
        { "State", "state", offsetof(ClientLink, state), false },
        { "MatchedFiles", "matched_files", offsetof(ClientLink, matched_files), true },
        { "LastError", "last_error", offsetof(ClientLink, last_error), false },
        { "IgnoredSources", "ignored_sources", offsetof(ClientLink, ignored_sources), true },
};

void client_link_done(ClientLink *l)
{
        for (const ClientLinkField *f = client_link_fields; f < client_link_fields + CLIENT_LINK_FIELDS; f++) {
                void **p = (void **) ((uint8_t *) l + f->offset);

                if (f->list)
                        strv_free(*p);
                else
                        free(*p);
        }
        free(l->netns);
        free(l->path);
        for (Knob k = 0; k < _KNOB_MAX; k++)
                free(l->source[k]);
        client_link_init(l);
}

char *client_strv_join(char *const *l, const char *sep)
{
        size_t n = 1;
        char *s, *e;

        for (char *const *i = l; i && *i; i++)
                n += strlen(*i) + strlen(sep);
        s = e = malloc(n);
        for (char *const *i = l; s && i && *i; i++)
                e = stpcpy(stpcpy(e, i == l ? "" : sep), *i);
        if (s)
                *e = '\0';
        return s;
}

typedef struct LinkRead {
        ClientLink *link;
        unsigned changed;
        bool found; /* the org.igmpd1.Link interface was among those read */
} LinkRead;

static int link_property(sd_bus_message *m, const char *name, void *userdata)
{
        LinkRead *lr = userdata;
        uint8_t *base = (uint8_t *) lr->link;

        if (streq(name, "Index"))
                return sd_bus_message_read(m, "v", "i", &lr->link->ifindex) < 0 ? -EBADMSG : 1;
        if (streq(name, "Knobs")) {
                lr->changed |= CLIENT_PROP_KNOBS;
                return read_knobs_variant(m, lr->link);
        }
        if (streq(name, "Namespace"))
                return bus_read_variant_string(m, "s", &lr->link->netns);
        for (const ClientLinkField *f = client_link_fields; f < client_link_fields + CLIENT_LINK_FIELDS; f++) {
                if (!streq(name, f->name))
                        continue;
                lr->changed |= 1u << (f - client_link_fields);
                return f->list ? bus_read_variant_strv(m, "as", (char ***) (base + f->offset))
                               : bus_read_variant_string(m, "s", (char **) (base + f->offset));
        }
        return 0;
}

int client_link_read_properties(sd_bus_message *m, ClientLink *l, unsigned *ret_changed)
{
        LinkRead lr = { .link = l };
        int r = bus_read_dict(m, link_property, &lr);

        if (r >= 0 && ret_changed)
                *ret_changed = lr.changed;
        return r;
}

void client_links_free(ClientLink *links, size_t n)
{
        for (size_t i = 0; i < n; i++)
                client_link_done(&links[i]);
        free(links);
}

static int client_link_compare(const void *a, const void *b)
{
        int x = ((const ClientLink *) a)->ifindex, y = ((const ClientLink *) b)->ifindex;

        return (x > y) - (x < y);
}

/* strv of the strings tab[idx[0…n)]. */
static int strv_from_indexes(const char *const *tab, size_t n_tab, const uint32_t *idx, size_t n, char ***ret)
{
        char **l = calloc(n + 1, sizeof *l);

        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (idx[i] >= n_tab || !(l[i] = strdup(tab[idx[i]]))) {
                        strv_freep(&l);
                        return idx[i] >= n_tab ? -EBADMSG : -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

/* One (iuuuuuuauauaiaiauau) of ListLinksState. */
static int read_link_state(sd_bus_message *m, const char *const *tab, size_t n_tab, const Knob *knob_at,
                           size_t n_knobs, ClientLink *l)
{
        enum { ALT, MATCHED, KERNEL, POLICY, SOURCE, IGNORED, _ARRAYS };
        uint32_t s[6];
        const void *a[_ARRAYS];
        size_t n[_ARRAYS] = {};
        char **strings[] = { &l->name, &l->type, &l->kind, &l->mac_address, &l->state, &l->last_error };
        char ***lists[_ARRAYS] = { [ALT] = &l->alternative_names, [MATCHED] = &l->matched_files,
                                   [IGNORED] = &l->ignored_sources };
        _cleanup_free_ char **str = NULL;
        int r;

        r = sd_bus_message_enter_container(m, 'r', "iuuuuuuauauaiaiauau");
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "iuuuuuu", &l->ifindex, &s[0], &s[1], &s[2], &s[3], &s[4], &s[5]);
        for (size_t i = 0; r >= 0 && i < _ARRAYS; i++) {
                r = sd_bus_message_read_array(m, "uuiiuu"[i], &a[i], &n[i]);
                n[i] /= sizeof(uint32_t); /* 'i' and 'u' alike */
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;

        r = strv_from_indexes(tab, n_tab, s, ELEMENTSOF(strings), &str); /* each taken by l */
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(strings); i++)
                *strings[i] = str[i];
        for (size_t i = 0; r >= 0 && i < _ARRAYS; i++)
                if (lists[i])
                        r = strv_from_indexes(tab, n_tab, a[i], n[i], lists[i]);
        if (r < 0)
                return r;
        const int32_t *kernel = a[KERNEL], *policy = a[POLICY];
        const uint32_t *source = a[SOURCE];
        for (size_t i = 0; i < n_knobs; i++) {
                Knob k = knob_at[i];

                if (k < 0)
                        continue; /* a newer daemon's knob */
                if (i >= n[KERNEL] || i >= n[POLICY] || i >= n[SOURCE] || source[i] >= n_tab)
                        return -EBADMSG;
                r = link_set_knob(l, k, kernel[i], policy[i], tab[source[i]]);
                if (r < 0)
                        return r;
        }
        return 1;
}

/* The links of a ListLinksState reply into *links, *n of them; both start empty (NULL, 0). */
static int links_from_state(sd_bus_message *reply, ClientLink **links, size_t *n)
{
        _cleanup_free_ const char **tab = NULL;
        _cleanup_strv_free_ char **knobs = NULL;
        _cleanup_free_ Knob *knob_at = NULL;
        size_t n_tab = 0, n_tab_alloc = 0, n_knobs, allocated = 0;
        const char *s;
        int r;

        r = sd_bus_message_read_strv(reply, &knobs);
        if (r < 0)
                return r;
        n_knobs = strv_length(knobs);
        knob_at = calloc(MAX(n_knobs, (size_t) 1), sizeof *knob_at);
        if (!knob_at)
                return -ENOMEM;
        for (size_t i = 0; i < n_knobs; i++)
                knob_at[i] = knob_from_string(knobs[i]);

        /* The string table, borrowed from the reply. */
        r = sd_bus_message_enter_container(reply, 'a', "s");
        while (r >= 0 && (r = sd_bus_message_read_basic(reply, 's', &s)) > 0 &&
               (r = ARRAY_GROW(tab, n_tab_alloc, n_tab, 64)) >= 0)
                tab[n_tab++] = s;
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0 && n_tab == 0)
                r = -EBADMSG;

        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(iuuuuuuauauaiaiauau)");
        while (r >= 0) {
                if (ARRAY_GROW(*links, allocated, *n, 64) < 0)
                        return -ENOMEM;
                client_link_init(&(*links)[*n]);
                r = read_link_state(reply, tab, n_tab, knob_at, n_knobs, &(*links)[*n]);
                if (r <= 0) {
                        client_link_done(&(*links)[*n]);
                        break;
                }
                (*n)++;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        return r;
}

static int link_interface(sd_bus_message *m, const char *iface, void *userdata)
{
        LinkRead *lr = userdata;

        if (!streq(iface, IGMPD_LINK_INTERFACE))
                return 0;
        lr->found = true;
        return bus_read_dict(m, link_property, lr) < 0 ? -EBADMSG : 1;
}

int client_link_read_interfaces(sd_bus_message *m, ClientLink *l)
{
        LinkRead lr = { .link = l };
        int r = bus_read_sections(m, link_interface, &lr);

        return r < 0 ? r : lr.found;
}

int client_links_get_all(sd_bus *bus, ClientLink **ret, size_t *ret_n)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        ClientLink *links = NULL;
        size_t n = 0;
        int r;

        r = client_call(bus, NULL, IGMPD_MANAGER_INTERFACE, "ListLinksState", 0, "list links", NULL, &reply, NULL);
        if (r < 0)
                return r;
        r = links_from_state(reply, &links, &n);
        if (r < 0) {
                client_links_free(links, n);
                return failed_errno(r, "read the links igmpd sent");
        }
        if (n > 1)
                qsort(links, n, sizeof *links, client_link_compare);
        *ret = links;
        *ret_n = n;
        return 0;
}

int client_link_fetch(sd_bus *bus, const char *path, ClientLink *ret)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = client_call(bus, path, "org.freedesktop.DBus.Properties", "GetAll", 0, "read the link's properties", path,
                        &reply, "s", IGMPD_LINK_INTERFACE);
        if (r < 0)
                return r;
        client_link_init(ret);
        r = client_link_read_properties(reply, ret, NULL);
        if (r < 0) {
                client_link_done(ret);
                failed_errno(r, "parse the link's properties");
        }
        return r;
}

void client_link_status(const ClientLink *l, LinkStatus *ret)
{
        *ret = (LinkStatus) {
                .ifindex = l->ifindex,
                .name = l->name,
                .alternative_names = (const char *const *) l->alternative_names,
                .kind = l->kind,
                .type = l->type,
                .state = l->state,
                .last_error = l->last_error,
                .matched_files = (const char *const *) l->matched_files,
                .ignored_source = l->ignored_sources ? l->ignored_sources[0] : NULL,
        };
        snprintf(ret->mac_address, sizeof ret->mac_address, "%s", strempty(l->mac_address));
        for (Knob k = 0; k < _KNOB_MAX; k++)
                ret->knobs[k] = (KnobStatus) {
                        .kernel = l->kernel[k],
                        .policy = l->policy[k],
                        .source = l->source[k],
                };
}
