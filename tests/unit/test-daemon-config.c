/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "daemon-config.h"

static char diags[2048];

static void diag(void *userdata, const char *file, unsigned line, const char *msg)
{
        size_t l = strlen(diags);
        snprintf(diags + l, sizeof diags - l, "%s:%u: %s\n", file, line, msg);
}

static int parse(DaemonConfig *c, const char *text)
{
        diags[0] = '\0';
        daemon_config_defaults(c);
        return daemon_config_parse(c, "igmpd.conf", text, strlen(text), diag, NULL);
}

Test(daemon_config, defaults)
{
        DaemonConfig c;
        daemon_config_defaults(&c);
        cr_expect_eq(c.netlink_rcvbuf, 8 * 1024 * 1024);
        cr_expect_eq(c.audit_history, 256);
        cr_expect_eq(c.audit_sources, AUDIT_SOURCE_KMSG_AUTO | AUDIT_SOURCE_AUDIT | AUDIT_SOURCE_LIBC);
        cr_expect(!c.audit_rule);
        cr_expect_eq(c.network_manager, NM_MODE_AUTO);
        cr_expect_eq(c.drift_action, DRIFT_ACTION_REVERT);
        cr_expect(c.drift_watch);
        cr_expect_eq(c.namespaces, NETNS_MODE_SELF);
}

Test(daemon_config, namespaces)
{
        DaemonConfig c;
        cr_assert_eq(parse(&c, "[Daemon]\nNamespaces=named\n"), 0);
        cr_expect_eq(c.namespaces, NETNS_MODE_NAMED);
        cr_assert_eq(parse(&c, "[Daemon]\nNamespaces=named\nNamespaces=all\n"), 1);
        cr_expect(strstr(diags, "igmpd.conf:3: Invalid Namespaces=all (expected self or named), ignoring.") != NULL,
                  "%s", diags);
        cr_expect_eq(c.namespaces, NETNS_MODE_NAMED);
        cr_assert_eq(parse(&c, "[Daemon]\nNamespaces=named\nNamespaces=\n"), 0);
        cr_expect_eq(c.namespaces, NETNS_MODE_SELF);
}

Test(daemon_config, every_key)
{
        DaemonConfig c;
        cr_assert_eq(parse(&c, "[Daemon]\nNetlinkReceiveBufferSize=64K\nAuditSources=kmsg\nAuditRule=yes\n"
                               "AuditHistory=1000\nNetworkManager=no\nDriftAction=warn\nDriftWatch=no\n"), 0);
        cr_expect_str_eq(diags, "");
        cr_expect_eq(c.netlink_rcvbuf, 65536);
        cr_expect_eq(c.audit_sources, AUDIT_SOURCE_KMSG);
        cr_expect(c.audit_rule);
        cr_expect_eq(c.audit_history, 1000);
        cr_expect_eq(c.network_manager, NM_MODE_NO);
        cr_expect_eq(c.drift_action, DRIFT_ACTION_WARN);
        cr_expect(!c.drift_watch);
}

Test(daemon_config, drift_action)
{
        DaemonConfig c;
        cr_assert_eq(parse(&c, "[Daemon]\nDriftAction=warn\nDriftAction=revert\n"), 0);
        cr_expect_eq(c.drift_action, DRIFT_ACTION_REVERT);
        cr_assert_eq(parse(&c, "[Daemon]\nDriftAction=warn\nDriftAction=ignore\nDriftWatch=maybe\n"), 2);
        cr_expect(strstr(diags, "igmpd.conf:3: Invalid DriftAction=ignore (expected revert or warn), ignoring.") != NULL,
                  "%s", diags);
        cr_expect(strstr(diags, "igmpd.conf:4: Invalid DriftWatch=maybe (expected yes or no), ignoring.") != NULL,
                  "%s", diags);
        cr_expect_eq(c.drift_action, DRIFT_ACTION_WARN);
        cr_expect(c.drift_watch);
        cr_assert_eq(parse(&c, "[Daemon]\nDriftAction=warn\nDriftAction=\n"), 0);
        cr_expect_eq(c.drift_action, DRIFT_ACTION_REVERT);
        cr_expect_str_eq(drift_action_to_string(DRIFT_ACTION_WARN), "warn");
        cr_expect_null(drift_action_to_string(_DRIFT_ACTION_MAX));
}

Test(daemon_config, audit_source_names)
{
        DaemonConfig c;
        cr_assert_eq(parse(&c, "[Daemon]\nAuditSources=audit syscall\n"), 0);
        cr_expect_eq(c.audit_sources, AUDIT_SOURCE_AUDIT | AUDIT_SOURCE_SYSCALL);
        cr_assert_eq(parse(&c, "[Daemon]\nAuditSources=libc kmsg\n"), 0);
        cr_expect_eq(c.audit_sources, AUDIT_SOURCE_LIBC | AUDIT_SOURCE_KMSG);
        cr_assert_eq(parse(&c, "[Daemon]\nAuditSources=none\n"), 0);
        cr_expect_eq(c.audit_sources, 0);
}

Test(daemon_config, bad_values_keep_defaults)
{
        DaemonConfig c;
        cr_assert_eq(parse(&c, "[Daemon]\nNetlinkReceiveBufferSize=1\nAuditSources=kmsg bogus\nAuditRule=perhaps\n"
                               "AuditHistory=0\nAuditHistory=70000\nNetworkManager=sometimes\nColor=blue\n"), 7);
        cr_expect(strstr(diags, "igmpd.conf:2: Invalid NetlinkReceiveBufferSize=1 (expected a size between 4K and 1G), ignoring.") != NULL, "%s", diags);
        cr_expect(strstr(diags, "igmpd.conf:3: Unknown audit source 'bogus'") != NULL);
        cr_expect(strstr(diags, "igmpd.conf:7: Invalid NetworkManager=sometimes (expected auto, yes or no), ignoring.") != NULL,
                  "%s", diags);
        cr_expect(strstr(diags, "igmpd.conf:8: Unknown key 'Color' in section [Daemon], ignoring.") != NULL);
        DaemonConfig d;
        daemon_config_defaults(&d);
        cr_expect_eq(c.netlink_rcvbuf, d.netlink_rcvbuf);
        cr_expect_eq(c.audit_sources, d.audit_sources);
        cr_expect_eq(c.audit_rule, d.audit_rule);
        cr_expect_eq(c.audit_history, d.audit_history);
        cr_expect_eq(c.network_manager, d.network_manager);
}

Test(daemon_config, network_manager_values)
{
        static const struct {
                const char *value;
                NMMode mode;
        } cases[] = {
                { "auto", NM_MODE_AUTO }, { "yes", NM_MODE_AUTO }, { "true", NM_MODE_AUTO }, { "1", NM_MODE_AUTO },
                { "no", NM_MODE_NO },     { "false", NM_MODE_NO }, { "off", NM_MODE_NO },   { "0", NM_MODE_NO },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char text[64];
                DaemonConfig c;

                snprintf(text, sizeof text, "[Daemon]\nNetworkManager=%s\n", cases[i].value);
                cr_expect_eq(parse(&c, text), 0, "NetworkManager=%s: %s", cases[i].value, diags);
                cr_expect_eq(c.network_manager, cases[i].mode, "NetworkManager=%s", cases[i].value);
        }
}

Test(daemon_config, empty_resets_to_default)
{
        DaemonConfig c;
        cr_assert_eq(parse(&c, "[Daemon]\nAuditHistory=5\nAuditHistory=\n"), 0);
        cr_expect_eq(c.audit_history, 256);
}

Test(daemon_config, audit_history_bounds)
{
        DaemonConfig c;
        cr_assert_eq(parse(&c, "[Daemon]\nAuditHistory=65536\n"), 0);
        cr_expect_eq(c.audit_history, 65536);
        cr_assert_eq(parse(&c, "[Daemon]\nAuditHistory=65537\nAuditHistory=-1\nAuditHistory=12x\n"), 3);
        cr_expect(strstr(diags, "igmpd.conf:3: Invalid AuditHistory=-1 (expected 1…65536), ignoring.") != NULL, "%s", diags);
        cr_expect_eq(c.audit_history, 256);
}
