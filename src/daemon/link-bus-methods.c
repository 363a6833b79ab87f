/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The methods of org.igmpd1.Link: SetKnobs and Revert (runtime changes, then a configuration
 * pass) and Reconfigure, which first has NetworkManager read again (ReconfigureCall). The
 * Manager's *Link methods hand off to these with the link as userdata.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-util.h"
#include "link-bus.h"
#include "log.h"
#include "manager.h"
#include "nm.h"
#include "strv.h"

static int link_runtime_path(Manager *m, Link *l, RuntimeScope scope, char **ret)
{
        _cleanup_free_ char *dir = runtime_config_dir(m->runtime, m->root, scope);

        if (!dir || asprintf(ret, "%s/%s.conf", dir, l->ifname) < 0)
                return -ENOMEM;
        return 0;
}

/* The error of a configuration pass that failed after what (followed by path, if any) was done;
 * -ENODEV: the kernel had no such link any more (it is gone from igmpd's table too). */
static int link_bus_configure_error(Link *l, sd_bus_error *error, int r, const char *what, const char *path)
{
        if (r == -ENODEV)
                return bus_error_setf_escaped(error, BUS_ERROR_NO_SUCH_LINK, 0, "%s%s, but link %d vanished meanwhile.",
                                              what, strempty(path), l->ifindex);
        return bus_error_setf_escaped(error, SD_BUS_ERROR_FAILED, 0, "%s%s, but applying it failed: %s", what,
                                      strempty(path), l->last_error ?: strerror(-r));
}

int bus_link_method_set_knobs(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_(link_unrefp) Link *l = link_ref(userdata); /* applying may find it gone */
        BusContext *c = l->ctx->observer_userdata; /* manager-bus.c plugs it in */
        Manager *m = manager_of_link(l); /* its namespace's */
        _cleanup_free_ char *path = NULL;
        KnobArg args[KNOB_ARGS_MAX];
        KnobSetting set[_KNOB_MAX];
        RuntimeScope scope;
        bool persisted = false;
        char msg[512], who[128], values[384];
        uint32_t flags;
        size_t n = 0;
        int r;

        r = bus_message_read_knob_args(message, args, &n, error);
        if (r < 0)
                return r;
        r = knob_args_check(args, n, m->link_ctx.knob_supported, set, msg, sizeof msg);
        if (r < 0)
                return bus_validate_error(error, r, msg);
        r = bus_method_authorize(message, c, &flags, BUS_KNOBS_FLAGS_ALL, POLKIT_ACTION_SET_LINK, l->ifindex, error);
        if (r != 0)
                return r;

        scope = (flags & BUS_KNOBS_FLAG_PERSISTENT) ? RUNTIME_SCOPE_PERSIST : RUNTIME_SCOPE_RUN;
        r = link_runtime_path(m, l, scope, &path);
        if (r < 0)
                return r;

        r = runtime_config_set(m->runtime, m->root, l->ifname, scope, set, &persisted);
        if (r < 0 && persisted) {
                _cleanup_free_ char *run_path = NULL;

                (void) link_runtime_path(m, l, RUNTIME_SCOPE_RUN, &run_path);
                log_link_warning_errno(l, r, "Stored runtime change in %s, but failed to take the same knobs out "
                                       "of %s, whose values stay in force: %m", path, strna(run_path));
                (void) link_reconfigure(l);
                return bus_error_setf_escaped(error, NULL, r,
                                              "Stored in %s, but %s, whose temporary values override it, "
                                              "could not be updated: %s. The temporary values stay in force "
                                              "until that file can be changed (a reboot clears /run).",
                                              path, strna(run_path), strerror(-r));
        }
        if (r == -E2BIG)
                return bus_error_setf_escaped(error, NULL, r, "Not stored: runtime.d already holds the files of %d "
                                              "links, igmpd's limit. Remove those of links that are gone, then "
                                              "reload. Nothing was changed.", CONF_FILES_MAX);
        if (r < 0) {
                log_link_warning_errno(l, r, "Failed to store runtime change in %s, nothing changed: %m",
                                       path);
                return bus_error_setf_escaped(error, NULL, r, "Failed to write %s: %s; nothing was changed.",
                                              path, strerror(-r));
        }
        log_link_info(l, "Runtime change by %s: %s; stored in %s.",
                      bus_describe_sender(message, who, sizeof who), knob_settings_describe(set, values, sizeof values),
                      path);

        r = link_reconfigure(l);
        if (r < 0)
                return link_bus_configure_error(l, error, r, "Stored in ", path);

        return sd_bus_reply_method_return(message, NULL);
}

/* The reply of RevertKnobs: (file, whether it is gone, "knob=value, …" taken out of it) for each
 * file a knob was taken out of. */
static int link_bus_reply_reverted(Manager *m, Link *l, sd_bus_message *message,
                                   const KnobSetting removed[_RUNTIME_SCOPE_MAX][_KNOB_MAX])
{
        const RuntimeEntry *e = runtime_config_find(m->runtime, l->ifname);
        sd_bus_message *reply = NULL;
        int r;

        r = bus_reply_open(message, 'a', "(sbs)", &reply);
        for (RuntimeScope s = 0; r >= 0 && s < _RUNTIME_SCOPE_MAX; s++) {
                _cleanup_free_ char *path = NULL, *escaped = NULL;
                const char *shown;
                char values[384];
                int gone = 1;

                for (Knob k = 0; k < _KNOB_MAX; k++)
                        gone = gone && !(e && e->knobs[s][k].line > 0);
                if (isempty(knob_settings_describe(removed[s], values, sizeof values)))
                        continue;
                r = link_runtime_path(m, l, s, &path);
                shown = r >= 0 ? bus_escape(path, &escaped) : NULL; /* the path has the link's name: bytes */
                if (r >= 0)
                        r = shown ? sd_bus_message_append(reply, "(sbs)", shown, gone, values) : -ENOMEM;
        }
        return bus_reply_close_and_send(reply, r);
}

/* Revert(u flags) and RevertKnobs(as knobs, u flags): flags choose the layers (0: both); knobs
 * (none: all) what to take out of them. */
int bus_link_method_revert(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_(link_unrefp) Link *l = link_ref(userdata);
        BusContext *c = l->ctx->observer_userdata;
        Manager *m = manager_of_link(l); /* its namespace's */
        bool ex = endswith(strempty(sd_bus_message_get_member(message)), "Knobs");
        KnobSetting removed[_RUNTIME_SCOPE_MAX][_KNOB_MAX];
        _cleanup_strv_free_ char **names = NULL;
        unsigned knobs = 0, scopes = 0;
        char msg[256], who[128], run[384], etc[384];
        uint32_t flags;
        int r;

        r = ex ? sd_bus_message_read_strv(message, &names) : 0;
        if (r < 0)
                return r;
        if (strv_length(names) > KNOB_ARGS_MAX)
                return sd_bus_error_setf(error, BUS_ERROR_INVALID_ARGUMENT, "knobs: more than %d names", KNOB_ARGS_MAX);
        for (char **n = names; n && *n; n++) {
                Knob k = knob_from_string(*n);

                if (k < 0)
                        return sd_bus_error_setf(error, BUS_ERROR_INVALID_ARGUMENT, "knobs: unknown knob '%s'",
                                                 bus_sanitize(*n, msg, sizeof msg));
                knobs |= 1U << k;
        }
        r = bus_method_authorize(message, c, &flags, BUS_REVERT_FLAGS_ALL, POLKIT_ACTION_SET_LINK, l->ifindex, error);
        if (r != 0)
                return r;

        if (flags == 0 || (flags & BUS_REVERT_FLAG_RUNTIME))
                scopes |= 1U << RUNTIME_SCOPE_RUN;
        if (flags == 0 || (flags & BUS_REVERT_FLAG_PERSISTENT))
                scopes |= 1U << RUNTIME_SCOPE_PERSIST;
        r = runtime_config_revert(m->runtime, m->root, l->ifname, scopes, knobs ?: RUNTIME_KNOBS_ALL, removed);
        if (r < 0) {
                log_link_warning_errno(l, r, "Failed to remove runtime changes: %m");
                return bus_error_setf_escaped(error, NULL, r, "Failed to remove the runtime files of %s: %s",
                                              l->ifname, strerror(-r));
        }
        knob_settings_describe(removed[RUNTIME_SCOPE_RUN], run, sizeof run);
        knob_settings_describe(removed[RUNTIME_SCOPE_PERSIST], etc, sizeof etc);
        if (r > 0)
                log_link_info(l, "Runtime changes reverted by %s:%s%s%s%s.", bus_describe_sender(message, who, sizeof who),
                              run[0] ? " /run: " : "", run, etc[0] ? " /etc: " : "", etc[0] ? etc : run[0] ? "" : " files");
        else
                log_link_debug(l, "Revert asked by %s: no runtime changes to revert.",
                               bus_describe_sender(message, who, sizeof who));

        r = link_reconfigure(l);
        if (r < 0)
                return link_bus_configure_error(l, error, r, "Reverted", NULL);
        return ex ? link_bus_reply_reverted(m, l, message, removed) : sd_bus_reply_method_return(message, NULL);
}

/* How long Reconfigure waits for NetworkManager's answer before replying with the values it
 * knows (NetworkManager's follow when its answer comes). */
#define RECONFIGURE_NM_WAIT_USEC (5 * 1000 * 1000ULL)

/* A Reconfigure call waiting for NetworkManager to be read again. */
typedef struct ReconfigureCall {
        sd_bus_message *message;
        Link *link;
        NMWait *wait;
        sd_event_source *timer;
} ReconfigureCall;

static ReconfigureCall *reconfigure_call_free(ReconfigureCall *c)
{
        if (!c)
                return NULL;
        nm_wait_cancel(c->wait);
        sd_event_source_disable_unref(c->timer);
        sd_bus_message_unref(c->message);
        link_unref(c->link);
        free(c);
        return NULL;
}

static int reconfigure_and_reply(sd_bus_message *message, Link *l)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = link_reconfigure(l);

        if (r == -ENODEV)
                return sd_bus_reply_method_errorf(message, BUS_ERROR_NO_SUCH_LINK, "Link %d vanished.", l->ifindex);
        if (r >= 0)
                return sd_bus_reply_method_return(message, NULL);
        (void) bus_error_setf_escaped(&error, SD_BUS_ERROR_FAILED, 0, "Reconfiguring %s failed: %s", l->ifname,
                                      l->last_error ?: strerror(-r));
        return sd_bus_reply_method_error(message, &error);
}

static void reconfigure_on_nm_read(bool freeing, void *userdata)
{
        ReconfigureCall *c = userdata;

        c->wait = NULL; /* the NetworkManager layer frees it */
        if (!freeing)
                (void) reconfigure_and_reply(c->message, c->link);
        reconfigure_call_free(c);
}

static int reconfigure_on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
        ReconfigureCall *c = userdata;

        log_link_info(c->link, "NetworkManager did not answer within %llu s; reconfigured with the values known, "
                      "its own apply when it answers.", RECONFIGURE_NM_WAIT_USEC / 1000000ULL);
        (void) reconfigure_and_reply(c->message, c->link);
        reconfigure_call_free(c);
        return 0;
}

int bus_link_method_reconfigure(sd_bus_message *message, void *userdata, sd_bus_error *error)
{
        _cleanup_(link_unrefp) Link *l = link_ref(userdata);
        BusContext *c = l->ctx->observer_userdata;
        ReconfigureCall *call;
        int r;

        r = bus_method_authorize(message, c, NULL, 0, POLKIT_ACTION_SET_LINK, l->ifindex, error);
        if (r != 0)
                return r;

        log_link_debug(l, "Reconfiguring on request of %s.", strna(sd_bus_message_get_sender(message)));
        /* NetworkManager does not announce a reapply: read what it applied now, and reply once
         * that is in, so that `igmpctl nm --reapply` returns with the values in force. */
        call = calloc(1, sizeof *call);
        if (!call)
                return -ENOMEM;
        r = nm_resync(c->manager->nm, reconfigure_on_nm_read, call, &call->wait);
        if (r != 0) {
                free(call);
                return r < 0 ? r : reconfigure_and_reply(message, l);
        }
        call->message = sd_bus_message_ref(message);
        call->link = link_ref(l);
        r = sd_event_add_time_relative(c->manager->event, &call->timer, CLOCK_MONOTONIC, RECONFIGURE_NM_WAIT_USEC,
                                       0, reconfigure_on_timeout, call);
        if (r < 0) {
                reconfigure_call_free(call);
                return r;
        }
        return 1;
}
