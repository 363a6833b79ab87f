/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The changes the audit source makes to the host's audit configuration (audit-rules.h): the
 * sysctl(2) rule and the enabled flag, set and put back with requests on a unicast
 * NETLINK_AUDIT socket, and the record of them in ROOT/run/igmpd/audit-changes that outlives a
 * crash. The multicast listener that uses the rule is audit-netlink.c.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "audit-record.h"
#include "audit-rules.h"
#include "conf-parser.h"
#include "fs-util.h"
#include "log.h"

typedef struct AuditRuleSpec {
        uint32_t arch;
        int nr;
        const char *arch_name;
} AuditRuleSpec;

static const AuditRuleSpec rule_specs[AUDIT_RULES_MAX] = {
        { AUDIT_ARCH_X86_64, AUDIT_RECORD_SYSCTL_NR_X86_64, "b64" },
        { AUDIT_ARCH_I386, AUDIT_RECORD_SYSCTL_NR_I386, "b32" },
};

/* ---- control requests on a unicast socket ---- */

/* A unicast NETLINK_AUDIT socket for control requests (1 s receive timeout), or -errno. */
static int audit_control_open(void)
{
        struct timeval tv = { .tv_sec = 1 };
        int fd;

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
        if (fd < 0)
                return -errno;
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        return fd;
}

/* Sends a request; with want_type > 0 copies that reply's payload into reply (size bytes). Waits
 * for the ack. 0 or -errno (the kernel's error). */
static int audit_control(int fd, uint16_t type, const void *data, size_t len, uint16_t want_type, void *reply,
                         size_t reply_size)
{
        static uint32_t seq_counter;
        union {
                struct nlmsghdr h;
                char buf[NLMSG_SPACE(sizeof(struct audit_rule_data) + sizeof AUDIT_NETLINK_RULE_KEY)];
        } req = {};
        char buf[8192];
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        struct nlmsghdr *h = &req.h;
        uint32_t seq = ++seq_counter;

        if (NLMSG_SPACE(len) > sizeof req)
                return -EINVAL;
        h->nlmsg_len = NLMSG_LENGTH(len);
        h->nlmsg_type = type;
        h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        h->nlmsg_seq = seq;
        if (len > 0)
                memcpy(NLMSG_DATA(h), data, len);
        if (sendto(fd, &req, h->nlmsg_len, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0)
                return -errno;

        for (;;) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return errno == EAGAIN ? -ETIMEDOUT : -errno;
                }
                for (struct nlmsghdr *m = (struct nlmsghdr *) buf; NLMSG_OK(m, (size_t) n); m = NLMSG_NEXT(m, n)) {
                        if (m->nlmsg_seq != seq)
                                continue;
                        if (m->nlmsg_type == NLMSG_ERROR) {
                                int e = ((struct nlmsgerr *) NLMSG_DATA(m))->error;
                                if (e < 0)
                                        return e;
                                /* The ack may come before the reply (AUDIT_GET). */
                                if (want_type == 0)
                                        return 0;
                                continue;
                        }
                        if (want_type > 0 && m->nlmsg_type == want_type) {
                                memset(reply, 0, reply_size);
                                memcpy(reply, NLMSG_DATA(m), MIN(reply_size, (size_t) NLMSG_PAYLOAD(m, 0)));
                                return 0;
                        }
                }
        }
}

/* Adds or deletes (type) "-a always,exit -F arch=ARCH -S NR -k igmpd-sysctl". 0 or -errno. */
static int rule_request(int fd, uint16_t type, const AuditRuleSpec *s)
{
        size_t keylen = strlen(AUDIT_NETLINK_RULE_KEY);
        union {
                struct audit_rule_data rule;
                char buf[sizeof(struct audit_rule_data) + sizeof AUDIT_NETLINK_RULE_KEY];
        } u = {};
        struct audit_rule_data *r = &u.rule;

        r->flags = AUDIT_FILTER_EXIT;
        r->action = AUDIT_ALWAYS;
        r->mask[s->nr / 32] |= 1U << (s->nr % 32);
        r->field_count = 2;
        r->fields[0] = AUDIT_ARCH;
        r->fieldflags[0] = AUDIT_EQUAL;
        r->values[0] = s->arch;
        r->fields[1] = AUDIT_FILTERKEY;
        r->fieldflags[1] = AUDIT_EQUAL;
        r->values[1] = (uint32_t) keylen;
        r->buflen = (uint32_t) keylen;
        memcpy(r->buf, AUDIT_NETLINK_RULE_KEY, keylen);
        return audit_control(fd, type, r, sizeof *r + keylen, 0, NULL, 0);
}

/* ---- what igmpd changed, recorded against a crash ---- */

bool audit_changes_any(const AuditChanges *c)
{
        return c->rule[0] || c->rule[1] || c->enabled_changed;
}

int audit_changes_parse(const char *text, AuditChanges *ret)
{
        AuditChanges c = {};
        const char *p = startswith(text, AUDIT_CHANGES_HEADER "\n");

        if (!p)
                return -EINVAL;
        /* Only the lines audit_changes_format() writes: igmpd never locks (enabled=2). */
        for (const char *nl; *p; p = nl + 1) {
                char line[32];
                size_t i = 0;

                nl = strchr(p, '\n');
                if (!nl || (size_t) (nl - p) >= sizeof line)
                        return -EINVAL; /* torn, or not ours */
                snprintf(line, sizeof line, "%.*s", (int) (nl - p), p);
                while (i < AUDIT_RULES_MAX && !streq_ptr(startswith(line, "rule "), rule_specs[i].arch_name))
                        i++;
                if (i < AUDIT_RULES_MAX)
                        c.rule[i] = true;
                else if (streq(line, "enabled-before 0") || streq(line, "enabled-before 1")) {
                        c.enabled_changed = true;
                        c.enabled_before = (uint32_t) (line[STRLEN("enabled-before ")] - '0');
                } else
                        return -EINVAL;
        }
        *ret = c;
        return 0;
}

void audit_changes_format(const AuditChanges *c, char buf[static AUDIT_CHANGES_TEXT_MAX])
{
        size_t n = (size_t) snprintf(buf, AUDIT_CHANGES_TEXT_MAX, "%s\n", AUDIT_CHANGES_HEADER);

        for (size_t i = 0; i < AUDIT_RULES_MAX; i++)
                if (c->rule[i])
                        n += (size_t) snprintf(buf + n, AUDIT_CHANGES_TEXT_MAX - n, "rule %s\n", rule_specs[i].arch_name);
        if (c->enabled_changed)
                snprintf(buf + n, AUDIT_CHANGES_TEXT_MAX - n, "enabled-before %" PRIu32 "\n", c->enabled_before);
}

bool audit_changes_load(const char *root, AuditChanges *ret)
{
        _cleanup_free_ char *path = path_join_root(root, AUDIT_CHANGES_DIR "/" AUDIT_CHANGES_NAME);
        _cleanup_close_ int fd = -EBADF;
        char buf[512];
        ssize_t n;

        *ret = (AuditChanges) {};
        if (!path) {
                log_oom();
                return false;
        }
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (n < 0) {
                if (errno != ENOENT)
                        log_warning_errno(errno, "Failed to read the record of igmpd's audit changes, ignoring: %m");
                return false;
        }
        buf[n] = '\0';
        if (audit_changes_parse(buf, ret) < 0) {
                log_warning("%s is not a valid record of igmpd's audit changes, ignoring it.", path);
                return false;
        }
        return audit_changes_any(ret);
}

/* Writes c to the record below root (atomically), or removes the record when nothing is left to
 * undo. A failure only logs. */
static void audit_changes_save(const char *root, const AuditChanges *c)
{
        _cleanup_free_ char *dir = path_join_root(root, AUDIT_CHANGES_DIR);
        char content[AUDIT_CHANGES_TEXT_MAX];
        int r;

        if (!dir) {
                log_oom();
                return;
        }
        audit_changes_format(c, content);
        r = audit_changes_any(c) ? write_file_atomic(dir, AUDIT_CHANGES_NAME, content)
                                 : remove_file_sync(dir, AUDIT_CHANGES_NAME);
        if (r < 0)
                log_warning_errno(r, "Failed to record igmpd's changes to the audit configuration in %s/"
                                  AUDIT_CHANGES_NAME ", ignoring: should igmpd crash, they would stay: %m", dir);
}

/* Undoes c over fd as far as it can: deletes its rules, and puts the enabled flag back if it still
 * is what igmpd set (1). What could not be undone stays in c. */
static void audit_changes_undo(int fd, AuditChanges *c)
{
        int r;

        for (size_t i = 0; i < AUDIT_RULES_MAX; i++) {
                if (!c->rule[i])
                        continue;
                r = rule_request(fd, AUDIT_DEL_RULE, &rule_specs[i]);
                if (r < 0 && r != -ENOENT) {
                        log_error_errno(r, "Failed to remove the audit rule for sysctl(2) on arch=%s: %m",
                                        rule_specs[i].arch_name);
                        continue;
                }
                log_debug("Removed audit rule for sysctl(2) on arch=%s.", rule_specs[i].arch_name);
                c->rule[i] = false;
        }
        if (c->enabled_changed) {
                struct audit_status st, set = { .mask = AUDIT_STATUS_ENABLED, .enabled = c->enabled_before };

                r = audit_control(fd, AUDIT_GET, NULL, 0, AUDIT_GET, &st, sizeof st);
                if (r >= 0 && st.enabled != 1) {
                        /* Someone else switched it since (or locked it): theirs now. */
                        log_info("Kernel auditing is enabled=%u now, not the 1 igmpd had set: left as it is.",
                                 st.enabled);
                        c->enabled_changed = false;
                        return;
                }
                r = audit_control(fd, AUDIT_SET, &set, sizeof set, 0, NULL, 0);
                if (r < 0) {
                        log_error_errno(r, "Failed to switch kernel auditing back off: %m");
                        return;
                }
                log_debug("Kernel auditing switched back to enabled=%u.", c->enabled_before);
                c->enabled_changed = false;
        }
}

void audit_rules_add(const char *root, AuditChanges *changes, bool rule_found[static AUDIT_RULES_MAX],
                     AuditChanges *left)
{
        _cleanup_close_ int fd = -EBADF;
        struct audit_status st;
        int r;

        fd = audit_control_open();
        if (fd < 0) {
                log_warning_errno(fd, "Cannot talk to the kernel's audit subsystem, not adding the sysctl(2) audit rule: %m");
                return;
        }
        r = audit_control(fd, AUDIT_GET, NULL, 0, AUDIT_GET, &st, sizeof st);
        if (r < 0) {
                log_warning_errno(r, "Failed to read the audit status, not adding the sysctl(2) audit rule: %m");
                return;
        }
        if (st.enabled == 2) {
                log_warning("Audit configuration is locked (enabled=2), cannot add the sysctl(2) audit rule; "
                            "load " AUDIT_RULES_PATH " with auditd instead.");
                return;
        }

        for (size_t i = 0; i < AUDIT_RULES_MAX; i++) {
                r = rule_request(fd, AUDIT_ADD_RULE, &rule_specs[i]);
                if (r == -EEXIST && left->rule[i]) {
                        changes->rule[i] = true;
                        log_info("Audit rule for sysctl(2) on arch=%s was added by an igmpd that did not stop "
                                 "cleanly: taken over (removed on exit).", rule_specs[i].arch_name);
                } else if (r == -EEXIST) {
                        rule_found[i] = true;
                        log_info("Audit rule for sysctl(2) on arch=%s is already loaded (not ours, left alone on exit).",
                                 rule_specs[i].arch_name);
                } else if (r < 0)
                        log_warning_errno(r, "Failed to add the audit rule -a always,exit -F arch=%s -S %d -k %s%s: %m",
                                          rule_specs[i].arch_name, rule_specs[i].nr, AUDIT_NETLINK_RULE_KEY,
                                          r == -EPERM ? " (needs CAP_AUDIT_CONTROL)" : "");
                else {
                        changes->rule[i] = true;
                        /* Recorded right after: had it been before, a crash between the two
                         * would have made someone else's identical rule ours. */
                        audit_changes_save(root, changes);
                        log_info("Added audit rule -a always,exit -F arch=%s -S %d -k %s (removed on exit).",
                                 rule_specs[i].arch_name, rule_specs[i].nr, AUDIT_NETLINK_RULE_KEY);
                }
                left->rule[i] = false; /* settled either way */
        }

        if (!changes->rule[0] && !changes->rule[1])
                return; /* whatever else was left: audit_netlink_new() undoes it */
        if (left->enabled_changed && st.enabled == 1) {
                changes->enabled_changed = true;
                changes->enabled_before = left->enabled_before;
                log_info("Kernel auditing was enabled by an igmpd that did not stop cleanly: taken over "
                         "(switched back to enabled=%u on exit).", changes->enabled_before);
        } else if (st.enabled == 0) {
                struct audit_status set = { .mask = AUDIT_STATUS_ENABLED, .enabled = 1 };

                /* Recorded first: if the crash comes before the switch, putting back 0 is a no-op. */
                changes->enabled_changed = true;
                changes->enabled_before = st.enabled;
                audit_changes_save(root, changes);
                r = audit_control(fd, AUDIT_SET, &set, sizeof set, 0, NULL, 0);
                if (r < 0) {
                        log_warning_errno(r, "Failed to enable auditing, the sysctl(2) audit rule has no effect: %m");
                        changes->enabled_changed = false;
                } else
                        log_info("Enabled kernel auditing (was off; switched off again on exit).");
        }
        left->enabled_changed = false; /* taken over, or settled by the state found */
        audit_changes_save(root, changes);
}

void audit_changes_undo_left(const char *root, AuditChanges *left, AuditChanges *changes)
{
        _cleanup_close_ int fd = -EBADF;

        if (!audit_changes_any(left))
                return;
        log_notice("An igmpd that did not stop cleanly left changes in the audit configuration; undoing them.");
        fd = audit_control_open();
        if (fd < 0)
                log_warning_errno(fd, "Cannot talk to the kernel's audit subsystem to undo them, keeping the record: %m");
        else
                audit_changes_undo(fd, left);
        if (changes) {
                /* What could not be undone joins changes, to be tried again on exit. */
                for (size_t i = 0; i < AUDIT_RULES_MAX; i++)
                        changes->rule[i] = changes->rule[i] || left->rule[i];
                if (left->enabled_changed && !changes->enabled_changed) {
                        changes->enabled_changed = true;
                        changes->enabled_before = left->enabled_before;
                }
        }
        audit_changes_save(root, changes ?: left);
}

void audit_rules_remove(const char *root, AuditChanges *changes)
{
        _cleanup_close_ int fd = -EBADF;

        if (!audit_changes_any(changes))
                return;
        fd = audit_control_open();
        if (fd < 0) {
                log_error_errno(fd, "Cannot talk to the audit subsystem to remove igmpd's audit rule: %m");
                return;
        }
        audit_changes_undo(fd, changes);
        audit_changes_save(root, changes); /* removed once nothing is left */
}
