/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What observers see of a link: a snapshot of what it shows (as hashes), the difference since
 * one, and the added / changed / removed events told to the observer hook (LinkContext).
 */

#include <stdint.h>

#include "fnv.h"
#include "link.h"

#define HASH(ret, change) (ret)->hash[__builtin_ctz(change)]
_Static_assert(LINK_CHANGE_IGNORED == 1 << (LINK_CHANGE_BITS - 1), "a LinkChange bit without its hash");

static void link_snapshot(const Link *l, LinkSnapshot *ret)
{
        uint64_t h = FNV1A64_INIT;

        HASH(ret, LINK_CHANGE_NAME) = fnv1a64_str(FNV1A64_INIT, l->ifname);
        HASH(ret, LINK_CHANGE_KIND) = fnv1a64_str(FNV1A64_INIT, l->kind);
        HASH(ret, LINK_CHANGE_TYPE) = fnv1a64_str(FNV1A64_INIT, l->type);
        HASH(ret, LINK_CHANGE_MAC) = l->has_mac ? fnv1a64(FNV1A64_INIT, &l->mac, sizeof l->mac) : 0;
        HASH(ret, LINK_CHANGE_STATE) = fnv1a64_str(FNV1A64_INIT, link_state_to_string(link_get_state(l)));
        HASH(ret, LINK_CHANGE_LAST_ERROR) = fnv1a64_str(FNV1A64_INIT, l->last_error);
        HASH(ret, LINK_CHANGE_IGNORED) = fnv1a64_str(FNV1A64_INIT, l->ignored_source);
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                int32_t kernel = l->kernel_known[k] ? l->kernel[k] : -1;
                int32_t policy = l->effective[k].set ? l->effective[k].value : -1;

                h = fnv1a64(h, &kernel, sizeof kernel);
                h = fnv1a64(h, &policy, sizeof policy);
                h = fnv1a64_str(h, strempty(knob_value_source(&l->effective[k])));
        }
        HASH(ret, LINK_CHANGE_KNOBS) = h;

        h = FNV1A64_INIT;
        for (size_t i = 0; i < l->n_matched; i++)
                h = fnv1a64_str(h, l->matched[i]->path);
        HASH(ret, LINK_CHANGE_MATCHED_FILES) = h;

        h = FNV1A64_INIT;
        for (char **a = l->altnames; a && *a; a++)
                h = fnv1a64_str(h, *a);
        HASH(ret, LINK_CHANGE_ALTNAMES) = h;
}

unsigned link_snapshot_diff(const Link *l, const LinkSnapshot *before)
{
        LinkSnapshot now;
        unsigned changes = 0;

        link_snapshot(l, &now);
        for (unsigned b = 0; b < LINK_CHANGE_BITS; b++)
                if (now.hash[b] != before->hash[b])
                        changes |= 1U << b;
        return changes;
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
