/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * igmpctl's shared state: parsed options, the bus connection helpers, error reporting that
 * names cause and fix, and the link view read from the daemon.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "json-link.h"
#include "json-writer.h"
#include "knob.h"

#define IGMPD_BUS_NAME "org.igmpd1"
#define IGMPD_MANAGER_PATH "/org/igmpd1"
#define IGMPD_MANAGER_INTERFACE "org.igmpd1.Manager"
#define IGMPD_LINK_INTERFACE "org.igmpd1.Link"
#define IGMPD_AUDIT_INTERFACE "org.igmpd1.Audit"

/* Exit codes, one per kind of failure (igmpctl(1), EXIT STATUS). 1 is any other failure. */
#define EXIT_USAGE 2             /* the command line is wrong (igmpctl's own checks only) */
#define EXIT_NM_NOT_RUNNING 3    /* nm: NetworkManager is not on the bus */
#define EXIT_NM_NO_PROFILE 4     /* nm: no such profile */
#define EXIT_NOT_REACHABLE 5     /* no system bus, igmpd not on it, no answer, connection lost */
#define EXIT_ACCESS_DENIED 6     /* not root, and polkit (or NetworkManager) said no */
#define EXIT_NO_SUCH_LINK 7      /* igmpd has no such link */
#define EXIT_INVALID_ARGUMENT 8  /* igmpd refused a value or name (org.igmpd1.Error.InvalidArgument) */
#define EXIT_UNSUPPORTED 9       /* this kernel lacks the knob (org.igmpd1.Error.Unsupported) */
/* Not a failure: past the failure statuses. */
#define EXIT_RELOAD_PROBLEMS 10  /* reload: done, but the configuration has problems */

typedef enum JsonMode {
        JSON_OFF,
        JSON_PRETTY,
        JSON_SHORT,
} JsonMode;

extern JsonMode arg_json;
extern bool arg_legend;
extern const char *arg_host;
extern const char *arg_machine; /* -M: a local container's system bus (systemd-machined) */
#define NETNS_NAME_MAX 255 /* NAME_MAX: a name under /run/netns */
extern const char *arg_netns;   /* -n: names LINKs in this network namespace (as ip -n) */
extern bool arg_persistent;
extern unsigned arg_revert; /* --revert: the knobs to revert (bits 1 << Knob), 0 without it */
extern bool arg_follow;
extern bool arg_no_pager;
extern bool arg_ask_password;
extern bool arg_knob_set[_KNOB_MAX];
extern bool arg_knobs_given; /* any of arg_knob_set[] */
extern int32_t arg_knob[_KNOB_MAX];
extern bool arg_clear;
extern bool arg_reapply;
extern bool arg_runtime;

/* A failure with its own exit status (EXIT_*) sets this; main() exits with it, or with 1 when
 * a verb failed without setting it. */
extern int client_exit_status;

/* Prints to stderr and makes the exit status EXIT_USAGE. Returns -EINVAL. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "Failed to <fmt>: <strerror(-r)>" to stderr. Returns r. */
int failed_errno(int r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Connects to the system bus (or -H host). Prints the error; returns 0 or -errno. */
int client_connect(sd_bus **ret);

#define CLIENT_CALL_QUIET 1u /* any failure: 0, nothing said */

/* One call to igmpd: member of iface on path (NULL: the manager), the arguments as
 * sd_bus_message_append(types, ...). 1 with *reply (may be NULL); a failure is reported
 * (a message naming cause and fix, with what and link, the user's LINK argument if the call
 * concerned one; client_exit_status) and returned, or 0 as flags say. */
int client_call(sd_bus *bus, const char *path, const char *iface, const char *member, unsigned flags,
                const char *what, const char *link, sd_bus_message **reply, const char *types, ...);
/* As client_call(), for a call m built by the caller; r < 0 is a failure to build it. */
int client_send(sd_bus *bus, sd_bus_message *m, int r, unsigned flags, const char *what, const char *link,
                sd_bus_message **reply);
/* Reads the manager's property iface.name as client_call() does; 1 with *reply inside the
 * variant of type. */
int client_get_property(sd_bus *bus, const char *iface, const char *name, const char *type, unsigned flags,
                        const char *what, sd_bus_message **reply);

/* The same, then the value read as sd_bus_message_read(type, ...): strings are borrowed from
 * *reply (NULL for values without strings). 1, or 0 or a failure as client_call() says. */
int client_read_property(sd_bus *bus, const char *iface, const char *name, unsigned flags, const char *what,
                         sd_bus_message **reply, const char *type, ...);

/* Resolves LINK (name, alternative name or ifindex) through the daemon. */
int client_resolve_link(sd_bus *bus, const char *link, int *ret_ifindex, char **ret_path);

/* What igmpctl knows of a link: the org.igmpd1.Link properties. */
typedef struct ClientLink {
        int ifindex;
        char *name, *kind, *type, *mac_address, *state, *last_error;
        char *netns; /* Namespace (GetAll): NULL or ".host" for igmpd's own */
        char *path;  /* its object path, where the caller keeps it (monitor) */
        char **alternative_names, **matched_files, **ignored_sources;
        int64_t kernel[_KNOB_MAX], policy[_KNOB_MAX];
        char *source[_KNOB_MAX];
        bool has[_KNOB_MAX];
} ClientLink;

/* Its string and list properties, in the order monitor shows their changes: D-Bus name, key of
 * the JSON link object, and where in ClientLink (a char *, or with list a char **). Bit i of a
 * mask of changes (client_link_read_properties()) is field i, CLIENT_PROP_KNOBS the knobs. */
typedef struct ClientLinkField {
        const char *name, *json;
        size_t offset;
        bool list;
} ClientLinkField;
#define CLIENT_LINK_FIELDS 9
#define CLIENT_PROP_KNOBS (1u << CLIENT_LINK_FIELDS)
extern const ClientLinkField client_link_fields[CLIENT_LINK_FIELDS];
/* The strings of l (may be NULL) joined by sep; NULL on ENOMEM. */
char *client_strv_join(char *const *l, const char *sep);

void client_link_init(ClientLink *l);
void client_link_done(ClientLink *l);
/* Reads an a{sv} of org.igmpd1.Link properties into l (unknown ones skipped). Sets *ret_changed
 * (may be NULL) to a bit mask of those seen (ClientLinkField). */
int client_link_read_properties(sd_bus_message *m, ClientLink *l, unsigned *ret_changed);
/* Reads an a{sa{sv}} of interfaces and their properties, those of org.igmpd1.Link into l: 1 if
 * it was there, 0 if not. */
int client_link_read_interfaces(sd_bus_message *m, ClientLink *l);
int client_link_fetch(sd_bus *bus, const char *path, ClientLink *ret);
/* Every link igmpd has, ordered by ifindex, in one call: ListLinksState. Prints what went wrong.
 * Free with client_links_free(). */
int client_links_get_all(sd_bus *bus, ClientLink **ret, size_t *ret_n);
void client_links_free(ClientLink *links, size_t n);
/* LinkStatus view for JSON (borrows from l). */
void client_link_status(const ClientLink *l, LinkStatus *ret);
/* The object path of igmpd's link ifindex (of its own namespace). 0 or -ENOMEM. */
int client_link_path(int ifindex, char **ret);
/* The links that LINK arguments and globs name (client_resolve_patterns()). */
typedef struct LinkSelection {
        ClientLink *all; /* every link, fetched on the first glob; NULL without one */
        size_t n_all;
        struct {
                int ifindex;
                char *path; /* its object: its methods are called there */
        } *links;           /* the links named */
        size_t n, allocated;
} LinkSelection;
void link_selection_done(LinkSelection *s);
/* Resolves LINK arguments and shell globs over names and alternative names ('iptv*') to links,
 * in argument order (a glob's matches in index order), each link once. A glob that matches
 * nothing is an error, as is an unknown LINK. */
int client_resolve_patterns(sd_bus *bus, char **args, size_t n_args, LinkSelection *ret);

/* The problems of the daemon's configuration: NConfigProblems and the first of them,
 * "FILE:LINE: message" each. Both empty when they cannot be read. */
typedef struct ClientProblems {
        uint32_t total;
        char **lines;
        size_t n;
} ClientProblems;
int client_problems_fetch(sd_bus *bus, ClientProblems *ret);
void client_problems_done(ClientProblems *p);
/* The drift watch's state (DriftWatch) and DriftAction=. Prints what went wrong. */
typedef struct DriftInfo {
        const char *state, *note, *action;
        sd_bus_message *replies[2]; /* hold them */
} DriftInfo;
int get_drift_info(sd_bus *bus, DriftInfo *ret);
void drift_info_done(DriftInfo *d);

/* "read 3min ago" when the kernel values bulk reads serve (ListLinksState) are old enough to say
 * so (KernelValuesAgeUSec: no drift watch), else false. */
bool client_kernel_age(sd_bus *bus, char buf[static 64]);

#define json_start(w) json_writer_init(w, stdout, arg_json == JSON_PRETTY)
int json_done(JsonWriter *w);
/* Writes "key": "value" (NULL: null) for each pair of arguments up to a NULL key. */
void json_fields(JsonWriter *w, ...) __attribute__((sentinel));

/* Verbs: argv[0] is the verb, the number of arguments checked by main() (verbs[]). Return 0,
 * -EINVAL for bad usage, other -errno (already reported). */
int verb_list(int argc, char **argv, sd_bus *bus);
int verb_status(int argc, char **argv, sd_bus *bus);
int verb_link(int argc, char **argv, sd_bus *bus);
int verb_reconfigure(int argc, char **argv, sd_bus *bus);
int verb_reload(int argc, char **argv, sd_bus *bus);
int verb_audit(int argc, char **argv, sd_bus *bus);
int verb_kernel(int argc, char **argv, sd_bus *bus);
int verb_monitor(int argc, char **argv, sd_bus *bus);
int verb_nm(int argc, char **argv, sd_bus *bus);
/* audit scan: argv[0] is "scan"; needs no bus (it reads files as the calling user). */
int verb_audit_scan(int argc, char **argv);

/* Runs an sd-event loop over bus until SIGINT/SIGTERM (exit 0) or disconnection (-ECONNRESET). */
int client_run_until_interrupted(sd_bus *bus);
