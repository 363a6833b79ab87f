/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * [Daemon] settings: one table row per key, one parser signature.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf-parser.h"
#include "daemon-config.h"
#include "parse-util.h"

typedef struct DaemonKey DaemonKey;
/* -EINVAL for a bad value: said by daemon_item() with k->expected, or by the parser where that is
 * NULL. */
typedef int (*DaemonParser)(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data);

struct DaemonKey {
        const char *key;
        DaemonParser parse;
        size_t offset;
        size_t size;
        const char *expected;       /* "Invalid KEY=VALUE (expected …), ignoring." */
        const char *const *choices; /* parse_choice(): the names of an enum's values */
};

#define DAEMON_KEY(name, parser, field, what, ...) \
        { .key = name, .parse = parser, .offset = offsetof(DaemonConfig, field), \
          .size = sizeof(((DaemonConfig *) 0)->field), .expected = what, __VA_ARGS__ }

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
        return TABLE_NAME(drift_action_table, a);
}

static int parse_rcvbuf(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        unsigned long long v;

        if (parse_size(value, &v) < 0 || v < NETLINK_RCVBUF_MIN || v > NETLINK_RCVBUF_MAX)
                return -EINVAL;
        *(size_t *) data = (size_t) v;
        return 0;
}

static int parse_audit_sources(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        static const char *const names[] = { "kmsg", "audit", "libc", "syscall", "none", NULL };
        static const unsigned masks[] = { AUDIT_SOURCE_KMSG, AUDIT_SOURCE_AUDIT, AUDIT_SOURCE_LIBC,
                                          AUDIT_SOURCE_SYSCALL, 0 };
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

        if (r < 0)
                return -EINVAL;
        *(bool *) data = r;
        return 0;
}

static int parse_history(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        uint64_t v;

        if (parse_unsigned_range(value, value + strlen(value), 10, AUDIT_HISTORY_MAX, &v) < 0 || v < 1)
                return -EINVAL;
        *(unsigned *) data = (unsigned) v;
        return 0;
}

/* "yes" means what "auto" does: igmpd can only use NetworkManager while it is on the bus. */
static int parse_nm_mode(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        int b = streq(value, "auto") ? 1 : parse_boolean(value);

        if (b < 0)
                return -EINVAL;
        *(NMMode *) data = b ? NM_MODE_AUTO : NM_MODE_NO;
        return 0;
}

/* One of k->choices, stored as the enum's value. */
static int parse_choice(ConfigContext *ctx, const DaemonKey *k, const char *value, void *data)
{
        int i = string_table_lookup(k->choices, value);

        if (i < 0)
                return -EINVAL;
        *(int *) data = i;
        return 0;
}

static const DaemonKey daemon_keys[] = {
        DAEMON_KEY("NetlinkReceiveBufferSize", parse_rcvbuf,        netlink_rcvbuf,  "a size between 4K and 1G"),
        DAEMON_KEY("AuditSources",             parse_audit_sources, audit_sources,   NULL),
        DAEMON_KEY("AuditRule",                parse_bool_key,      audit_rule,      "yes or no"),
        DAEMON_KEY("AuditHistory",             parse_history,       audit_history,   "1…65536"),
        DAEMON_KEY("NetworkManager",           parse_nm_mode,       network_manager, "auto, yes or no"),
        DAEMON_KEY("DriftAction",              parse_choice,        drift_action,    "revert or warn",
                   .choices = drift_action_table),
        DAEMON_KEY("DriftWatch",               parse_bool_key,      drift_watch,     "yes or no"),
        DAEMON_KEY("Namespaces",               parse_choice,        namespaces,      "self or named",
                   .choices = netns_mode_table),
};
_Static_assert(sizeof(DriftAction) == sizeof(int) && sizeof(NetnsMode) == sizeof(int), "parse_choice() stores an int");
_Static_assert(AUDIT_HISTORY_MAX == 65536, "AuditHistory='s expected range");

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
                        if (!isempty(value)) {
                                int r = k->parse(ctx, k, value, (char *) c + k->offset);

                                if (r == -EINVAL && k->expected)
                                        config_diag(ctx, "Invalid %s=%.64s (expected %s), ignoring.", k->key, value,
                                                    k->expected);
                                return r;
                        }
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
        int r;

        daemon_config_defaults(c);

        main_path = path_join_root(root, "/etc/igmpd/igmpd.conf");
        if (!main_path)
                return -ENOMEM;
        r = conf_files_list(root, dropin_dirs, ".conf", &list);
        if (r < 0)
                return r;
        /* The main file first, then the drop-ins. */
        for (size_t i = 0; i <= list.n; i++) {
                const char *path = i == 0 ? main_path : list.files[i - 1].path;
                _cleanup_free_ char *buf = NULL;
                size_t len;

                r = config_read_file(path, &buf, &len);
                if (r == -ENOENT)
                        continue;
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        config_read_failed(diag, file, userdata, path, r);
                        continue;
                }
                r = daemon_config_parse(c, path, buf, len, diag, userdata);
                if (r < 0)
                        return r;
                if (file)
                        file(userdata, path, CONFIG_FILE_USED);
        }
        return 0;
}
