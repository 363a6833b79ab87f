/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit-state: the host's audit configuration as a test needs to see and restore it, over
 * NETLINK_AUDIT, without auditctl.
 *
 *   audit-state show             "enabled N" then one line per loaded rule (hex of its
 *                                struct audit_rule_data, in kernel order), so two snapshots
 *                                compare with cmp(1)
 *   audit-state enabled          just the enabled flag (0, 1, or 2 = locked)
 *   audit-state count-key KEY    how many loaded rules carry the filter key KEY
 *   audit-state del-key KEY      deletes every rule carrying the filter key KEY
 *   audit-state set-enabled N    sets the enabled flag to N (0 or 1)
 *
 * Exit 0 on success, 1 on failure, 77 when audit is not available here (no NETLINK_AUDIT,
 * not permitted).
 */

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define BUF_SIZE 65536
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static int fd = -1;
static unsigned seq_counter = 1;

static int send_msg(int type, const void *data, size_t len, bool ack)
{
        char buf[NLMSG_SPACE(sizeof(struct audit_rule_data) + 4096)];
        struct nlmsghdr *h = (struct nlmsghdr *) buf;
        struct sockaddr_nl addr = { .nl_family = AF_NETLINK };

        if (NLMSG_SPACE(len) > sizeof buf)
                return -E2BIG;
        memset(buf, 0, sizeof buf);
        h->nlmsg_len = NLMSG_LENGTH(len);
        h->nlmsg_type = type;
        h->nlmsg_flags = NLM_F_REQUEST | (ack ? NLM_F_ACK : 0);
        h->nlmsg_seq = seq_counter++;
        if (len > 0)
                memcpy(NLMSG_DATA(h), data, len);
        if (sendto(fd, buf, h->nlmsg_len, 0, (struct sockaddr *) &addr, sizeof addr) < 0)
                return -errno;
        return (int) h->nlmsg_seq;
}

/* Waits for the ack of seq: 0 or -error. */
static int wait_ack(int seq)
{
        static char buf[BUF_SIZE];

        for (;;) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);
                if (n < 0)
                        return -errno;
                for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK(h, (size_t) n); h = NLMSG_NEXT(h, n))
                        if (h->nlmsg_type == NLMSG_ERROR && (int) h->nlmsg_seq == seq)
                                return ((struct nlmsgerr *) NLMSG_DATA(h))->error;
        }
}

static int get_status(struct audit_status *ret)
{
        static char buf[BUF_SIZE];
        int seq = send_msg(AUDIT_GET, NULL, 0, false);

        if (seq < 0)
                return seq;
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);
                if (n < 0)
                        return -errno;
                for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK(h, (size_t) n); h = NLMSG_NEXT(h, n)) {
                        if ((int) h->nlmsg_seq != seq)
                                continue;
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                int e = ((struct nlmsgerr *) NLMSG_DATA(h))->error;
                                if (e)
                                        return e;
                                continue;
                        }
                        if (h->nlmsg_type == AUDIT_GET) {
                                memset(ret, 0, sizeof *ret);
                                memcpy(ret, NLMSG_DATA(h), MIN(sizeof *ret, (size_t) NLMSG_PAYLOAD(h, 0)));
                                return 0;
                        }
                }
        }
}

typedef void (*RuleFn)(const struct audit_rule_data *r, size_t len, void *userdata);

static int list_rules(RuleFn fn, void *userdata)
{
        static char buf[BUF_SIZE];
        int seq = send_msg(AUDIT_LIST_RULES, NULL, 0, false);

        if (seq < 0)
                return seq;
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);
                if (n < 0)
                        return -errno;
                for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK(h, (size_t) n); h = NLMSG_NEXT(h, n)) {
                        if ((int) h->nlmsg_seq != seq)
                                continue;
                        if (h->nlmsg_type == NLMSG_DONE)
                                return 0;
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                int e = ((struct nlmsgerr *) NLMSG_DATA(h))->error;
                                if (e)
                                        return e;
                                continue;
                        }
                        if (h->nlmsg_type == AUDIT_LIST_RULES)
                                fn(NLMSG_DATA(h), NLMSG_PAYLOAD(h, 0), userdata);
                }
        }
}

static void print_rule(const struct audit_rule_data *r, size_t len, void *userdata)
{
        const unsigned char *p = (const unsigned char *) r;

        (void) userdata;
        printf("rule ");
        for (size_t i = 0; i < len; i++)
                printf("%02x", p[i]);
        putchar('\n');
}

static bool rule_has_key(const struct audit_rule_data *r, const char *key)
{
        size_t off = 0;

        for (unsigned i = 0; i < r->field_count && i < AUDIT_MAX_FIELDS; i++) {
                bool str = r->fields[i] == AUDIT_FILTERKEY || r->fields[i] == AUDIT_WATCH ||
                           r->fields[i] == AUDIT_DIR || r->fields[i] == AUDIT_EXE ||
                           (r->fields[i] >= AUDIT_SUBJ_USER && r->fields[i] <= AUDIT_OBJ_LEV_HIGH);
                if (r->fields[i] == AUDIT_FILTERKEY && r->values[i] == strlen(key) && off + r->values[i] <= r->buflen &&
                    memcmp(r->buf + off, key, r->values[i]) == 0)
                        return true;
                if (str)
                        off += r->values[i];
        }
        return false;
}

typedef struct KeyCtx {
        const char *key;
        unsigned n;
        struct audit_rule_data *rules[64];
        size_t lens[64];
} KeyCtx;

static void collect_key(const struct audit_rule_data *r, size_t len, void *userdata)
{
        KeyCtx *k = userdata;

        if (!rule_has_key(r, k->key) || k->n >= 64)
                return;
        k->rules[k->n] = malloc(len);
        if (!k->rules[k->n])
                return;
        memcpy(k->rules[k->n], r, len);
        k->lens[k->n++] = len;
}

int main(int argc, char *argv[])
{
        struct audit_status s;
        struct timeval tv = { .tv_sec = 2 };
        int r;

        if (argc < 2) {
                fprintf(stderr, "Usage: %s show|enabled|count-key KEY|del-key KEY|set-enabled N\n", argv[0]);
                return 1;
        }
        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
        if (fd < 0) {
                fprintf(stderr, "No NETLINK_AUDIT: %m\n");
                return 77;
        }
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);

        r = get_status(&s);
        if (r < 0) {
                fprintf(stderr, "AUDIT_GET failed: %s\n", strerror(-r));
                return r == -EPERM || r == -ECONNREFUSED ? 77 : 1;
        }

        if (strcmp(argv[1], "show") == 0) {
                printf("enabled %u\n", s.enabled);
                r = list_rules(print_rule, NULL);
        } else if (strcmp(argv[1], "enabled") == 0) {
                printf("%u\n", s.enabled);
        } else if (argc == 3 && (strcmp(argv[1], "count-key") == 0 || strcmp(argv[1], "del-key") == 0)) {
                KeyCtx k = { .key = argv[2] };

                r = list_rules(collect_key, &k);
                if (r >= 0 && strcmp(argv[1], "count-key") == 0)
                        printf("%u\n", k.n);
                for (unsigned i = 0; r >= 0 && i < k.n && strcmp(argv[1], "del-key") == 0; i++) {
                        int seq = send_msg(AUDIT_DEL_RULE, k.rules[i], k.lens[i], true);
                        r = seq < 0 ? seq : wait_ack(seq);
                }
                for (unsigned i = 0; i < k.n; i++)
                        free(k.rules[i]);
        } else if (argc == 3 && strcmp(argv[1], "set-enabled") == 0) {
                struct audit_status n = { .mask = AUDIT_STATUS_ENABLED, .enabled = (unsigned) atoi(argv[2]) };
                int seq = send_msg(AUDIT_SET, &n, sizeof n, true);
                r = seq < 0 ? seq : wait_ack(seq);
        } else {
                fprintf(stderr, "Unknown command.\n");
                return 1;
        }
        if (r < 0) {
                fprintf(stderr, "%s failed: %s\n", argv[1], strerror(-r));
                return 1;
        }
        return 0;
}
