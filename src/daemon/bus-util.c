/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * D-Bus helpers: authorization through polkit, knob dictionary decoding, error mapping.
 *
 * Authorization follows systemd's bus_verify_polkit_async(), simplified: uid 0 passes at once.
 * Anyone else is checked with polkit's CheckAuthorization, sent asynchronously; the pending
 * query is kept in a list keyed by the method call. When polkit answers, the call is put
 * back into the bus's read queue (sd_bus_enqueue_for_read), its handler runs again from the
 * start, finds the answer in the list and proceeds or fails. sd-bus's own capability check
 * is never used as a gate: through dbus-daemon it cannot see the caller's capabilities.
 */

#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-read.h"
#include "bus-util.h"
#include "log.h"
#include "macro.h"
#include "utf8.h"

/* A finished query whose call never came back (its handler failed before authorizing on the
 * second dispatch: the link went away) is dropped after this long; the second dispatch happens
 * within milliseconds. */
#define POLKIT_DONE_STALE_USEC (30ULL * 1000000ULL)

struct BusPolkitQuery {
        BusPolkitQuery **list; /* the list it is in, or NULL */
        BusPolkitQuery *next;
        sd_bus_message *request;
        sd_bus_slot *slot;
        char *action;
        char *sender;  /* the caller's unique name */
        uid_t uid;     /* and its uid, for the per-caller caps */
        int ifindex;   /* the link the call is about, or 0 */
        bool done;
        bool authorized;
        uint64_t done_usec;
};

/* The event loop's idea of now, for the connection call came in on. */
static uint64_t loop_now_usec(sd_bus_message *call)
{
        uint64_t now = 0;

        (void) sd_event_now(sd_bus_get_event(sd_bus_message_get_bus(call)), CLOCK_MONOTONIC, &now);
        return now;
}

static void polkit_query_free(BusPolkitQuery *q)
{
        if (!q)
                return;
        for (BusPolkitQuery **p = q->list; p && *p; p = &(*p)->next)
                if (*p == q) {
                        *p = q->next;
                        break;
                }
        sd_bus_slot_unref(q->slot);
        sd_bus_message_unref(q->request);
        free(q->action);
        free(q->sender);
        free(q);
}

void bus_polkit_queries_done(BusPolkitQuery **queries)
{
        while (*queries)
                polkit_query_free(*queries);
}

static int deny(sd_bus_error *error, const char *action)
{
        return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                 "Permission denied: run as root or authorize via polkit (action %s)",
                                 action);
}

static int on_polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        BusPolkitQuery *q = userdata;
        int r;

        q->slot = sd_bus_slot_unref(q->slot);
        q->done = true;
        q->done_usec = loop_now_usec(q->request);

        if (sd_bus_message_is_method_error(reply, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(reply);
                log_debug("polkit check for %s failed, denying: %s: %s", q->action, e ? e->name : "?",
                          e ? strna(e->message) : "?");
        } else {
                int authorized = 0, challenge = 0;

                r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
                if (r >= 0)
                        r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
                if (r < 0)
                        log_debug_errno(r, "Malformed polkit reply for %s, denying: %m", q->action);
                else
                        q->authorized = authorized;
        }

        /* Run the original call again; its handler will find this answer. */
        r = sd_bus_enqueue_for_read(sd_bus_message_get_bus(q->request), q->request);
        if (r < 0) {
                log_warning_errno(r, "Failed to resume a method call after polkit answered, failing it: %m");
                (void) sd_bus_reply_method_errorf(q->request, SD_BUS_ERROR_FAILED,
                                                  "Failed to resume the call after authorization: %s",
                                                  strerror(-r));
                polkit_query_free(q);
        }
        return 1;
}

/* 0 if a new query of sender (uid) stays within the caps, else -errno with error set. Only
 * queries still waiting for polkit count: answered ones are gone within the next dispatch, or
 * dropped here once stale. */
static int polkit_check_caps(BusPolkitQuery **queries, const char *sender, uid_t uid, uint64_t now,
                             sd_bus_error *error)
{
        size_t n = 0, n_sender = 0, n_uid = 0;

        for (BusPolkitQuery *q = *queries, *next; q; q = next) {
                next = q->next;
                if (q->done && now - q->done_usec > POLKIT_DONE_STALE_USEC) {
                        polkit_query_free(q);
                        continue;
                }
                n++;
                n_sender += !q->done && streq(q->sender, sender);
                n_uid += !q->done && q->uid == uid;
        }
        if (n >= BUS_POLKIT_PENDING_MAX)
                return sd_bus_error_set(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                        "Too many authorization requests pending, try again later.");
        if (n_sender >= BUS_POLKIT_PENDING_PER_SENDER || n_uid >= BUS_POLKIT_PENDING_PER_UID)
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "Too many authorization requests of yours are pending (%zu of this "
                                         "connection, %zu of uid %u); answer or cancel those first.",
                                         n_sender, n_uid, (unsigned) uid);
        return 0;
}

void bus_polkit_release_link(BusPolkitQuery **queries, int ifindex)
{
        for (BusPolkitQuery *q = *queries, *next; q; q = next) {
                next = q->next;
                /* An answered query's call is on its way back: its handler finds no link. */
                if (ifindex <= 0 || q->ifindex != ifindex || q->done)
                        continue;
                log_debug("Link %d went away while %s waited for polkit (%s), failing the call.", ifindex,
                          strna(q->sender), q->action);
                (void) sd_bus_reply_method_errorf(q->request, BUS_ERROR_NO_SUCH_LINK,
                                                  "Link %d went away while waiting for authorization.", ifindex);
                polkit_query_free(q); /* and with its slot, the call to polkit: its answer is dropped */
        }
}

const char *bus_describe_sender(sd_bus_message *call, char *buf, size_t size)
{
        const char *sender = strna(sd_bus_message_get_sender(call));
        sd_bus_creds *creds = NULL;
        uid_t uid;
        pid_t pid;
        int n = 0;

        /* Only what the bus itself vouches for: no /proc look-ups behind its back. */
        if (sd_bus_query_sender_creds(call, SD_BUS_CREDS_EUID | SD_BUS_CREDS_PID, &creds) >= 0) {
                if (sd_bus_creds_get_euid(creds, &uid) >= 0)
                        n = snprintf(buf, size, "uid %u", (unsigned) uid);
                if (n >= 0 && (size_t) n < size && sd_bus_creds_get_pid(creds, &pid) >= 0)
                        n += snprintf(buf + n, size - (size_t) n, "%spid %d", n > 0 ? ", " : "", (int) pid);
                sd_bus_creds_unref(creds);
        }
        if (n > 0 && (size_t) n < size)
                snprintf(buf + n, size - (size_t) n, " (%s)", sender);
        else
                snprintf(buf, size, "%s", sender);
        return buf;
}

int bus_method_authorize(sd_bus_message *call, BusContext *c, uint32_t *ret_flags, uint32_t allowed,
                         const char *action, int ifindex, sd_bus_error *error)
{
        BusPolkitQuery **queries = &c->polkit_queries;
        sd_bus_message *pk = NULL;
        sd_bus_creds *creds = NULL;
        BusPolkitQuery *q;
        const char *sender;
        char msg[256];
        uint32_t flags;
        uid_t uid;
        int r;

        if (ret_flags) {
                r = sd_bus_message_read(call, "u", ret_flags);
                if (r < 0)
                        return r;
                r = bus_flags_check("flags", *ret_flags, allowed, msg, sizeof msg);
                if (r < 0)
                        return bus_validate_error(error, r, msg);
        }

        /* Second dispatch: the answer is in. */
        for (q = *queries; q && q->request != call; q = q->next)
                ;
        if (q) {
                bool authorized;

                if (!q->done)
                        return 1; /* still waiting */
                authorized = q->authorized && streq(q->action, action);
                polkit_query_free(q);
                return authorized ? 0 : deny(error, action);
        }

        r = sd_bus_query_sender_creds(call, SD_BUS_CREDS_EUID, &creds);
        if (r >= 0)
                r = sd_bus_creds_get_euid(creds, &uid);
        sd_bus_creds_unref(creds);
        if (r < 0) {
                log_debug_errno(r, "Cannot determine the caller's uid, denying: %m");
                return deny(error, action);
        }
        if (uid == 0)
                return 0;

        sender = sd_bus_message_get_sender(call);
        if (!sender)
                return deny(error, action);

        r = polkit_check_caps(queries, sender, uid, loop_now_usec(call), error);
        if (r < 0)
                return r;

        q = malloc(sizeof *q);
        if (!q)
                return -ENOMEM;
        *q = (BusPolkitQuery) { .uid = uid, .ifindex = ifindex,
                                .action = strdup(action), .sender = strdup(sender) };
        if (!q->action || !q->sender) {
                polkit_query_free(q); /* not in the list yet */
                return -ENOMEM;
        }

        /* Ask for a password only if the caller said it can take one (igmpctl on a terminal,
         * without --no-ask-password): otherwise polkit answers from its rules alone. */
        flags = sd_bus_message_get_allow_interactive_authorization(call) > 0 ? UINT32_C(1) /* AllowUserInteraction */
                                                                             : 0;

        r = sd_bus_message_new_method_call(sd_bus_message_get_bus(call), &pk, "org.freedesktop.PolicyKit1",
                                           "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
        if (r >= 0)
                r = sd_bus_message_append(pk, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", sender,
                                          action, 0, flags, "");
        if (r >= 0)
                r = sd_bus_call_async(sd_bus_message_get_bus(call), &q->slot, pk, on_polkit_reply, q, 0);
        sd_bus_message_unref(pk);
        if (r < 0) {
                log_debug_errno(r, "Cannot ask polkit, denying: %m");
                polkit_query_free(q); /* not in the list yet */
                return deny(error, action);
        }

        q->request = sd_bus_message_ref(call);
        q->list = queries;
        q->next = *queries;
        *queries = q;
        return 1;
}

typedef struct KnobArgsReader {
        KnobArg *args;
        size_t n;
        sd_bus_error *error;
} KnobArgsReader;

static int read_knob_arg(sd_bus_message *m, const char *name, void *userdata)
{
        KnobArgsReader *k = userdata;
        KnobArg *a = &k->args[k->n];
        const char *contents;
        uint32_t v = 0;
        char type;
        int r;

        if (k->n >= KNOB_ARGS_MAX)
                return sd_bus_error_setf(k->error, BUS_ERROR_INVALID_ARGUMENT, "knobs: more than %d entries",
                                         KNOB_ARGS_MAX);
        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        k->n++;
        *a = (KnobArg) { .name = name, .type = contents ? contents[0] : 0 };
        if (!streq_ptr(contents, "u") && !streq_ptr(contents, "i"))
                return 0; /* skipped; knob_args_check() refuses the type */
        r = sd_bus_message_read(m, "v", contents, &v); /* 'u' or 'i': four bytes either way */
        a->value = a->type == 'u' ? (int64_t) v : (int64_t) (int32_t) v;
        return r < 0 ? r : 1;
}

int bus_message_read_knob_args(sd_bus_message *message, KnobArg args[KNOB_ARGS_MAX], size_t *ret_n,
                               sd_bus_error *error)
{
        KnobArgsReader k = { .args = args, .error = error };
        int r = bus_read_dict(message, read_knob_arg, &k);

        if (r < 0)
                return r;
        *ret_n = k.n;
        return 0;
}

int bus_validate_error(sd_bus_error *error, int r, const char *msg)
{
        /* msg may quote an argument and be cut in a UTF-8 sequence. */
        return bus_error_setf_escaped(error, r == -EOPNOTSUPP ? BUS_ERROR_UNSUPPORTED : BUS_ERROR_INVALID_ARGUMENT, 0,
                                      "%s", msg);
}

const char *bus_escape(const char *s, char **buf)
{
        s = strempty(s);
        if (utf8_is_plain(s))
                return s;
        return *buf = utf8_escape_dup(s, UTF8_ESCAPE_INVALID);
}

int bus_message_append_escaped(sd_bus_message *m, const char *s)
{
        _cleanup_free_ char *e = NULL;

        s = bus_escape(s, &e);
        return s ? sd_bus_message_append_basic(m, 's', s) : -ENOMEM;
}

int bus_message_append_escaped_strv(sd_bus_message *m, char *const *l)
{
        int r;

        r = sd_bus_message_open_container(m, 'a', "s");
        for (char *const *s = l; r >= 0 && s && *s; s++)
                r = bus_message_append_escaped(m, *s);
        return bus_message_close_containers(m, 1, r);
}

int bus_error_setf_escaped(sd_bus_error *error, const char *name, int r, const char *format, ...)
{
        _cleanup_free_ char *e = NULL;
        va_list ap;

        va_start(ap, format);
        e = utf8_escape_vasprintf(UTF8_ESCAPE_INVALID, format, ap);
        va_end(ap);
        if (!e)
                return -ENOMEM;
        if (name)
                return sd_bus_error_set(error, name, e);
        return sd_bus_error_set_errnof(error, r, "%s", e);
}

int bus_reply_open(sd_bus_message *call, char type, const char *contents, sd_bus_message **ret)
{
        int r;

        r = sd_bus_message_new_method_return(call, ret);
        if (r >= 0)
                r = sd_bus_message_open_container(*ret, type, contents);
        return r;
}

int bus_message_close_containers(sd_bus_message *m, unsigned n, int r)
{
        for (; r >= 0 && n > 0; n--)
                r = sd_bus_message_close_container(m);
        return r;
}

int bus_reply_close_and_send(sd_bus_message *reply, int r)
{
        r = bus_message_close_containers(reply, 1, r);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}
