/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * [Daemon] settings: one table row per key, one parser signature.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-parser.h"
#include "daemon-config.h"
#include "parse-util.h"

typedef struct DaemonKey DaemonKey;
typedef int (*DaemonParser)(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data);

struct DaemonKey {
        const char *key;
        DaemonParser parse;
        size_t offset;
        size_t size;
        const char *const *choices; /* parse_choice(): the names of an enum's values */
};

#define DAEMON_KEY(name, parser, field, ...) \
        { .key = name, .parse = parser, .offset = offsetof(DaemonConfig, field), \
          .size = sizeof(((DaemonConfig *) 0)->field), __VA_ARGS__ }

static const char *const drift_action_table[_DRIFT_ACTION_MAX + 1] = {
        [DRIFT_ACTION_REVERT] = "revert",
        [DRIFT_ACTION_WARN] = "warn",
};

static const char *const netns_mode_table[_NETNS_MODE_MAX + 1] = {
        [NETNS_MODE_SELF] = "self",
        [NETNS_MODE_NAMED] = "named",
};

/* The index of s in the NULL-terminated table, or -EINVAL. */
static int string_table_lookup(const char *const *table, const char *s)
{
        for (int i = 0; s && table[i]; i++)
                if (streq(table[i], s))
                        return i;
        return -EINVAL;
}

const char *drift_action_to_string(DriftAction a)
{
        return a >= 0 && a < _DRIFT_ACTION_MAX ? drift_action_table[a] : NULL;
}

static int parse_rcvbuf(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        unsigned long long v;
        int r = parse_size(value, &v);

        if (r < 0 || v < NETLINK_RCVBUF_MIN || v > NETLINK_RCVBUF_MAX) {
                config_diag(ctx, "Invalid %s=%.64s (expected a size between 4K and 1G), ignoring.", k->key, value);
                return -EINVAL;
        }
        *(size_t *) data = (size_t) v;
        return 0;
}

static int parse_audit_sources(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        static const char *const names[] = { "kmsg", "audit", "libc", "syscall", "none", NULL };
        static const unsigned masks[] = { AUDIT_SOURCE_KMSG, AUDIT_SOURCE_AUDIT, AUDIT_SOURCE_LIBC, AUDIT_SOURCE_SYSCALL, 0 };
        unsigned mask = 0;
        _cleanup_free_ char *copy = strdup(value);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                int i = string_table_lookup(names, w);

                if (i < 0) {
                        config_diag(ctx, "Unknown audit source '%.32s' in %s= (expected kmsg, audit, libc, syscall or none), ignoring.",
                                    w, k->key);
                        return -EINVAL;
                }
                mask |= masks[i];
        }
        *(unsigned *) data = mask;
        return 0;
}

static int parse_bool_key(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        int r = parse_boolean(value);

        if (r < 0) {
                config_diag(ctx, "Invalid %s=%.64s (expected yes or no), ignoring.", k->key, value);
                return r;
        }
        *(bool *) data = r;
        return 0;
}

static int parse_history(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        uint64_t v;

        if (parse_unsigned_range(value, value + strlen(value), 10, AUDIT_HISTORY_MAX, &v) < 0 || v < 1) {
                config_diag(ctx, "Invalid %s=%.64s (expected 1…%d), ignoring.", k->key, value, AUDIT_HISTORY_MAX);
                return -EINVAL;
        }
        *(unsigned *) data = (unsigned) v;
        return 0;
}

/* "yes" means what "auto" does: igmpd can only use NetworkManager while it is on the bus. */
static int parse_nm_mode(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        int b = parse_boolean(value);

        if (streq(value, "auto") || b > 0)
                *(NMMode *) data = NM_MODE_AUTO;
        else if (b == 0)
                *(NMMode *) data = NM_MODE_NO;
        else {
                config_diag(ctx, "Invalid %s=%.64s (expected auto, yes or no), ignoring.", k->key, value);
                return -EINVAL;
        }
        return 0;
}

/* One of k->choices, stored as the enum's value. */
static int parse_choice(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        int i = string_table_lookup(k->choices, value);
        char expected[128] = "";
        size_t off = 0;

        if (i >= 0) {
                *(int *) data = i;
                return 0;
        }
        for (size_t j = 0; k->choices[j] && off < sizeof expected; j++) /* "a, b or c" */
                off += (size_t) snprintf(expected + off, sizeof expected - off, "%s%s",
                                         j == 0 ? "" : k->choices[j + 1] ? ", " : " or ", k->choices[j]);
        config_diag(ctx, "Invalid %s=%.64s (expected %s), ignoring.", k->key, value, expected);
        return -EINVAL;
}

static const DaemonKey daemon_keys[] = {
        DAEMON_KEY("NetlinkReceiveBufferSize", parse_rcvbuf,        netlink_rcvbuf),
        DAEMON_KEY("AuditSources",             parse_audit_sources, audit_sources),
        DAEMON_KEY("AuditRule",                parse_bool_key,      audit_rule),
        DAEMON_KEY("AuditHistory",             parse_history,       audit_history),
        DAEMON_KEY("NetworkManager",           parse_nm_mode,       network_manager),
        DAEMON_KEY("DriftAction",              parse_choice,        drift_action, .choices = drift_action_table),
        DAEMON_KEY("DriftWatch",               parse_bool_key,      drift_watch),
        DAEMON_KEY("Namespaces",               parse_choice,        namespaces, .choices = netns_mode_table),
};
_Static_assert(sizeof(DriftAction) == sizeof(int) && sizeof(NetnsMode) == sizeof(int), "parse_choice() stores an int");

void daemon_config_defaults(DaemonConfig *c)
{
        *c = (DaemonConfig) {
                .netlink_rcvbuf = 8 * 1024 * 1024,
                .audit_sources = AUDIT_SOURCE_KMSG_AUTO | AUDIT_SOURCE_AUDIT | AUDIT_SOURCE_LIBC,
                .audit_rule = false,
                .audit_history = 256,
                .network_manager = NM_MODE_AUTO,
                .drift_action = DRIFT_ACTION_REVERT,
                .drift_watch = true,
                .namespaces = NETNS_MODE_SELF,
        };
}

static int daemon_item(ConfigContext *ctx, const char *section, const char *key, const char *value)
{
        DaemonConfig *c = ctx->item_userdata;

        for (const DaemonKey *k = daemon_keys; k < daemon_keys + ELEMENTSOF(daemon_keys); k++)
                if (streq(k->key, key)) {
                        DaemonConfig d;

                        /* A parser writes nothing when it fails: the value before stays. */
                        if (!isempty(value))
                                return k->parse(ctx, k, value, (char *) c + k->offset);
                        /* Empty: back to the built-in default. */
                        daemon_config_defaults(&d);
                        memcpy((char *) c + k->offset, (char *) &d + k->offset, k->size);
                        return 0;
                }

        config_diag(ctx, "Unknown key '%.64s' in section [Daemon], ignoring.", key);
        return -EINVAL;
}

int daemon_config_parse(DaemonConfig *c, const char *path, const char *buf, size_t len, ConfigDiagFn diag,
                        void *userdata)
{
        static const char *const sections[] = { "Daemon", NULL };
        ConfigContext ctx = {
                .filename = path,
                .item = daemon_item,
                .diag = diag,
                .userdata = userdata,
                .item_userdata = c,
                .sections = sections,
        };

        return config_parse_buffer(&ctx, buf, len);
}

static int load_one(DaemonConfig *c, const char *path, ConfigDiagFn diag, ConfigFileFn file, void *userdata)
{
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r;

        r = config_read_file(path, &buf, &len);
        if (r == -ENOENT)
                return 0;
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                config_read_failed(diag, file, userdata, path, r);
                return 1;
        }
        r = daemon_config_parse(c, path, buf, len, diag, userdata);
        if (r >= 0 && file)
                file(userdata, path, CONFIG_FILE_USED);
        return r;
}

int daemon_config_load(DaemonConfig *c, const char *root, ConfigDiagFn diag, ConfigFileFn file, void *userdata)
{
        static const char *const dropin_dirs[] = {
                "/etc/igmpd/igmpd.conf.d",
                "/run/igmpd/igmpd.conf.d",
                "/usr/local/lib/igmpd/igmpd.conf.d",
                "/usr/lib/igmpd/igmpd.conf.d",
                NULL,
        };
        _cleanup_(conf_file_list_done) ConfFileList list = {};
        _cleanup_free_ char *main_path = NULL;
        int r, problems = 0;

        daemon_config_defaults(c);

        main_path = path_join_root(root, "/etc/igmpd/igmpd.conf");
        if (!main_path)
                return -ENOMEM;
        r = conf_files_list(root, dropin_dirs, ".conf", &list);
        if (r < 0)
                return r;
        /* The main file first, then the drop-ins. */
        for (size_t i = 0; i <= list.n; i++) {
                r = load_one(c, i == 0 ? main_path : list.files[i - 1].path, diag, file, userdata);
                if (r < 0)
                        return r;
                problems += r;
        }
        return problems;
}
