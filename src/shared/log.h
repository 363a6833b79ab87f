/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * igmpd's and igmpd-bpf's logging: to stderr, or to the journal with structured fields (INTERFACE=, IFINDEX=,
 * MESSAGE_ID=) when running under systemd. Only event handlers, bus methods and main log
 * (STYLE.md: log once, at the boundary). log_*_errno() return -abs(error) for tail calls.
 */

#include <stdarg.h>
#include <syslog.h>

#include "macro.h"

typedef enum LogTarget {
        LOG_TARGET_CONSOLE,
        LOG_TARGET_JOURNAL,
} LogTarget;

/* Picks the target from SYSTEMD_LOG_TARGET (console|journal) or JOURNAL_STREAM, and the level
 * from SYSTEMD_LOG_LEVEL (debug|info|notice|warning|err or a number). */
void log_setup(void);
/* Read by the macros below: a message above it costs a compare, not a call (a start with 4000
 * links passes 36 000 debug messages by). */
extern int log_max_level;
static inline int log_abs(int error)
{
        return error < 0 ? -error : error;
}

/* fields (may be NULL): also sent to the journal ("KEY=value", NULL-terminated, at most 16);
 * the console gets the message alone. netns (NULL: igmpd's own namespace) for a link of a
 * followed namespace: "NETNS/IFNAME: …" and a NETNS= field. */
int log_internal_link(int level, int error, const char *netns, const char *ifname, int ifindex,
                      const char *message_id, const char *const *fields, const char *fmt, ...) _printf_(8, 9);
#define log_internal_fields(level, error, ifname, ifindex, message_id, fields, ...)                           \
        log_internal_link(level, error, NULL, ifname, ifindex, message_id, fields, __VA_ARGS__)
#define log_internal(level, error, ifname, ifindex, message_id, ...)                                          \
        ((level) <= log_max_level ? log_internal_fields(level, error, ifname, ifindex, message_id, NULL, __VA_ARGS__) \
                                  : -log_abs(error))

#define log_full_errno(level, error, ...) log_internal(level, error, NULL, 0, NULL, __VA_ARGS__)
#define log_full(level, ...) (void) log_internal(level, 0, NULL, 0, NULL, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, e, __VA_ARGS__)

/* Per-link messages: "eth0: …" on the console, INTERFACE=eth0 in the journal ("pod/eth0: …" and
 * NETNS=pod too for a link of a followed namespace). */
#define log_link_full_errno(link, level, error, ...) \
        log_internal_link(level, error, (link) ? (link)->ctx->netns_name : NULL, (link) ? (link)->ifname : NULL, \
                          (link) ? (link)->ifindex : 0, NULL, NULL, __VA_ARGS__)
#define log_link_full(link, level, ...) \
        ((level) <= log_max_level ? (void) log_link_full_errno(link, level, 0, __VA_ARGS__) : (void) 0)

#define log_link_debug(link, ...) log_link_full(link, LOG_DEBUG, __VA_ARGS__)
#define log_link_info(link, ...) log_link_full(link, LOG_INFO, __VA_ARGS__)
#define log_link_warning(link, ...) log_link_full(link, LOG_WARNING, __VA_ARGS__)
#define log_link_warning_errno(link, e, ...) log_link_full_errno(link, LOG_WARNING, e, __VA_ARGS__)
#define log_link_debug_errno(link, e, ...) log_link_full_errno(link, LOG_DEBUG, e, __VA_ARGS__)

#define log_oom() log_error_errno(ENOMEM, "Out of memory.")
