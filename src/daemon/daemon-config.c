/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * [Daemon] settings: one table row per key, one parser signature.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-files.h"
#include "daemon-config.h"

typedef int (*DaemonParser)(ConfigContext *ctx, const char *key, const char *value, void *data);

typedef struct DaemonKey {
        const char *key;
        DaemonParser parse;
        size_t offset;
        size_t size;
} DaemonKey;

#define DAEMON_KEY(name, parser, field) \
        { .key = name, .parse = parser, .offset = offsetof(DaemonConfig, field), \
          .size = sizeof(((DaemonConfig *) 0)->field) }

static int parse_rcvbuf(ConfigContext *ctx, const char *key, const char *value, void *data)
{
        unsigned long long v;
        int r = parse_size(value, &v);

        if (r < 0 || v < NETLINK_RCVBUF_MIN || v > NETLINK_RCVBUF_MAX) {
                config_diag(ctx, "Invalid %s=%.64s (expected a size between 4K and 1G), ignoring.", key, value);
                return -EINVAL;
        }
        *(size_t *) data = (size_t) v;
        return 0;
}

static int parse_audit_sources(ConfigContext *ctx, const char *key, const char *value, void *data)
{
        unsigned mask = 0;
        _cleanup_free_ char *copy = strdup(value);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                if (streq(w, "kmsg"))
                        mask |= AUDIT_SOURCE_KMSG;
                else if (streq(w, "audit"))
                        mask |= AUDIT_SOURCE_AUDIT;
                else if (streq(w, "libc"))
                        mask |= AUDIT_SOURCE_LIBC;
                else if (streq(w, "syscall"))
                        mask |= AUDIT_SOURCE_SYSCALL;
                else if (streq(w, "none"))
                        ;
                else {
                        config_diag(ctx, "Unknown audit source '%.32s' in %s= (expected kmsg, audit, libc, syscall or none), ignoring.",
                                    w, key);
                        return -EINVAL;
                }
        }
        *(unsigned *) data = mask;
        return 0;
}

static int parse_bool_key(ConfigContext *ctx, const char *key, const char *value, void *data)
{
        int r = parse_boolean(value);

        if (r < 0) {
                config_diag(ctx, "Invalid %s=%.64s (expected yes or no), ignoring.", key, value);
                return r;
        }
        *(bool *) data = r;
        return 0;
}

static int parse_history(ConfigContext *ctx, const char *key, const char *value, void *data)
{
        unsigned long long v;
        char *end;

        errno = 0;
        v = strtoull(value, &end, 10);
        if (errno != 0 || end == value || *end || v < 1 || v > AUDIT_HISTORY_MAX || *value == '-') {
                config_diag(ctx, "Invalid %s=%.64s (expected 1…%d), ignoring.", key, value, AUDIT_HISTORY_MAX);
                return -EINVAL;
        }
        *(unsigned *) data = (unsigned) v;
        return 0;
}

/* "yes" means what "auto" does: igmpd can only use NetworkManager while it is on the bus. */
static int parse_nm_mode(ConfigContext *ctx, const char *key, const char *value, void *data)
{
        int b = parse_boolean(value);

        if (streq(value, "auto") || b > 0)
                *(NMMode *) data = NM_MODE_AUTO;
        else if (b == 0)
                *(NMMode *) data = NM_MODE_NO;
        else {
                config_diag(ctx, "Invalid %s=%.64s (expected auto, yes or no), ignoring.", key, value);
                return -EINVAL;
        }
        return 0;
}

static const char *const drift_action_table[_DRIFT_ACTION_MAX] = {
        [DRIFT_ACTION_REVERT] = "revert",
        [DRIFT_ACTION_WARN] = "warn",
};

const char *drift_action_to_string(DriftAction a)
{
        if (a < 0 || a >= _DRIFT_ACTION_MAX)
                return NULL;
        return drift_action_table[a];
}

DriftAction drift_action_from_string(const char *s)
{
        for (DriftAction a = 0; s && a < _DRIFT_ACTION_MAX; a++)
                if (streq(drift_action_table[a], s))
                        return a;
        return _DRIFT_ACTION_INVALID;
}

static int parse_drift_action(ConfigContext *ctx, const char *key, const char *value, void *data)
{
        DriftAction a = drift_action_from_string(value);

        if (a < 0) {
                config_diag(ctx, "Invalid %s=%.64s (expected revert or warn), ignoring.", key, value);
                return -EINVAL;
        }
        *(DriftAction *) data = a;
        return 0;
}

static const char *const netns_mode_table[_NETNS_MODE_MAX] = {
        [NETNS_MODE_SELF] = "self",
        [NETNS_MODE_NAMED] = "named",
};

const char *netns_mode_to_string(NetnsMode m)
{
        if (m < 0 || m >= _NETNS_MODE_MAX)
                return NULL;
        return netns_mode_table[m];
}

NetnsMode netns_mode_from_string(const char *s)
{
        for (NetnsMode m = 0; s && m < _NETNS_MODE_MAX; m++)
                if (streq(netns_mode_table[m], s))
                        return m;
        return _NETNS_MODE_INVALID;
}

static int parse_netns_mode(ConfigContext *ctx, const char *key, const char *value, void *data)
{
        NetnsMode m = netns_mode_from_string(value);

        if (m < 0) {
                config_diag(ctx, "Invalid %s=%.64s (expected self or named), ignoring.", key, value);
                return -EINVAL;
        }
        *(NetnsMode *) data = m;
        return 0;
}

static const DaemonKey daemon_keys[] = {
        DAEMON_KEY("NetlinkReceiveBufferSize", parse_rcvbuf,        netlink_rcvbuf),
        DAEMON_KEY("AuditSources",             parse_audit_sources, audit_sources),
        DAEMON_KEY("AuditRule",                parse_bool_key,      audit_rule),
        DAEMON_KEY("AuditHistory",             parse_history,       audit_history),
        DAEMON_KEY("NetworkManager",           parse_nm_mode,       network_manager),
        DAEMON_KEY("DriftAction",              parse_drift_action,  drift_action),
        DAEMON_KEY("DriftWatch",               parse_bool_key,      drift_watch),
        DAEMON_KEY("Namespaces",               parse_netns_mode,    namespaces),
};

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

        for (size_t i = 0; i < ELEMENTSOF(daemon_keys); i++)
                if (streq(daemon_keys[i].key, key)) {
                        DaemonConfig tmp = *c;
                        if (isempty(value)) {
                                /* Empty: back to the built-in default. */
                                DaemonConfig d;
                                daemon_config_defaults(&d);
                                memcpy((char *) c + daemon_keys[i].offset, (char *) &d + daemon_keys[i].offset,
                                       daemon_keys[i].size);
                                return 0;
                        }
                        int r = daemon_keys[i].parse(ctx, key, value, (char *) &tmp + daemon_keys[i].offset);
                        if (r < 0)
                                return r;
                        *c = tmp;
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
                char msg[256];
                snprintf(msg, sizeof msg, "Failed to read file: %s, ignoring.", strerror(-r));
                if (diag)
                        diag(userdata, path, 0, msg);
                if (file)
                        file(userdata, path, CONFIG_FILE_SKIPPED);
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
        r = load_one(c, main_path, diag, file, userdata);
        if (r < 0)
                return r;
        problems += r;

        r = conf_files_list(root, dropin_dirs, ".conf", &list);
        if (r < 0)
                return r;
        for (size_t i = 0; i < list.n; i++) {
                r = load_one(c, list.files[i].path, diag, file, userdata);
                if (r < 0)
                        return r;
                problems += r;
        }
        return problems;
}
