/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What observers see of a link: a snapshot of what it shows (as hashes), the difference since
 * one, and the added / changed / removed events told to the observer hook (LinkContext).
 */

#include <stdint.h>

#include "fnv.h"
#include "link.h"

void link_snapshot(const Link *l, LinkSnapshot *ret)
{
        uint64_t h;

        *ret = (LinkSnapshot) {
                .name = fnv1a64_str(FNV1A64_INIT, l->ifname),
                .kind = fnv1a64_str(FNV1A64_INIT, l->kind),
                .type = fnv1a64_str(FNV1A64_INIT, l->type),
                .mac = l->has_mac ? fnv1a64(FNV1A64_INIT, &l->mac, sizeof l->mac) : 0,
                .state = fnv1a64_str(FNV1A64_INIT, link_state_to_string(link_get_state(l))),
                .last_error = fnv1a64_str(FNV1A64_INIT, l->last_error),
                .ignored = fnv1a64_str(FNV1A64_INIT, l->ignored_source),
        };

        h = FNV1A64_INIT;
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                int32_t kernel = l->kernel_known[k] ? l->kernel[k] : -1;
                int32_t policy = l->effective[k].set ? l->effective[k].value : -1;

                h = fnv1a64(h, &kernel, sizeof kernel);
                h = fnv1a64(h, &policy, sizeof policy);
                h = fnv1a64_str(h, strempty(knob_value_source(&l->effective[k])));
        }
        ret->knobs = h;

        h = FNV1A64_INIT;
        for (size_t i = 0; i < l->n_matched; i++)
                h = fnv1a64_str(h, l->matched[i]->path);
        ret->matched_files = h;

        h = FNV1A64_INIT;
        for (char **a = l->altnames; a && *a; a++)
                h = fnv1a64_str(h, *a);
        ret->altnames = h;
}

unsigned link_snapshot_diff(const Link *l, const LinkSnapshot *before)
{
        LinkSnapshot now;

        link_snapshot(l, &now);
        return (now.name != before->name ? LINK_CHANGE_NAME : 0) |
               (now.kind != before->kind ? LINK_CHANGE_KIND : 0) |
               (now.state != before->state ? LINK_CHANGE_STATE : 0) |
               (now.knobs != before->knobs ? LINK_CHANGE_KNOBS : 0) |
               (now.matched_files != before->matched_files ? LINK_CHANGE_MATCHED_FILES : 0) |
               (now.last_error != before->last_error ? LINK_CHANGE_LAST_ERROR : 0) |
               (now.altnames != before->altnames ? LINK_CHANGE_ALTNAMES : 0) |
               (now.type != before->type ? LINK_CHANGE_TYPE : 0) |
               (now.mac != before->mac ? LINK_CHANGE_MAC : 0) |
               (now.ignored != before->ignored ? LINK_CHANGE_IGNORED : 0);
}

void link_begin_change(const Link *l, LinkSnapshot *ret)
{
        if (l->ctx->observer)
                link_snapshot(l, ret);
}

void link_end_change(Link *l, const LinkSnapshot *before)
{
        if (l->ctx->observer && !l->gone && l->announced)
                l->ctx->observer(l, LINK_EVENT_CHANGED, before, l->ctx->observer_userdata);
}

void link_notify(Link *l, LinkEvent event)
{
        /* A link waiting for its first write is announced once configured; before that the
         * observer hears of no change, and at LINK_EVENT_REMOVED it can tell (l->announced).
         * A link the owner has let go (link_detach()) tells nobody anything. */
        if (l->gone)
                return;
        if (event == LINK_EVENT_ADDED)
                l->announced = true;
        if (l->ctx->observer)
                l->ctx->observer(l, event, NULL, l->ctx->observer_userdata);
}
