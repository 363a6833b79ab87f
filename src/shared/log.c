/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one logging sink of igmpd and igmpd-bpf. In src/shared so that the privileged helper
 * builds no daemon file; the other shared helpers still never log (they return -errno).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "log.h"

static LogTarget log_target = LOG_TARGET_CONSOLE;
int log_max_level = LOG_INFO;

static int level_from_string(const char *s)
{
        static const char *const names[] = { "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug" };

        for (int i = 0; i < (int) ELEMENTSOF(names); i++)
                if (streq(s, names[i]))
                        return i;
        if (streq(s, "error"))
                return LOG_ERR;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}

/* stderr is connected to the journal if JOURNAL_STREAM names its device and inode. */
static bool stderr_is_journal(void)
{
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return st.st_dev == dev && st.st_ino == ino;
}

void log_setup(void)
{
        const char *t = getenv("SYSTEMD_LOG_TARGET"), *l = getenv("SYSTEMD_LOG_LEVEL");
        bool journal = streq_ptr(t, "journal") || (!streq_ptr(t, "console") && stderr_is_journal());

        log_target = journal ? LOG_TARGET_JOURNAL : LOG_TARGET_CONSOLE;

        if (l) {
                int v = level_from_string(l);
                if (v >= 0)
                        log_max_level = v;
        }
}

#define LOG_FIELDS_MAX 16

int log_internal_link(int level, int error, const char *netns, const char *ifname, int ifindex,
                      const char *message_id, const char *const *fields, const char *fmt, ...)
{
        char buf[1024], shown[320];
        int saved = errno;
        va_list ap;

        error = log_abs(error);
        if (level > log_max_level)
                return -error;

        /* Make %m print the error we were given. */
        errno = error;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        /* A link of a followed namespace: NETNS/IFNAME in the text, NETNS= in the journal. */
        const char *prefix = ifname;
        if (ifname && netns) {
                snprintf(shown, sizeof shown, "%s/%s", netns, ifname);
                prefix = shown;
        }

        if (log_target == LOG_TARGET_JOURNAL) {
                char msg[1400], f[6][280];
                struct iovec iov[7 + LOG_FIELDS_MAX];
                int n = 0;

/* Adds a formatted field: f[k - 1] holds the text of iov[k]. */
#define ADD_FIELD(...)                                   \
        (snprintf(f[n - 1], sizeof f[0], __VA_ARGS__), \
         iov[n] = (struct iovec) { f[n - 1], strlen(f[n - 1]) }, n++)
                snprintf(msg, sizeof msg, "MESSAGE=%s%s%s", strempty(prefix), prefix ? ": " : "", buf);
                iov[n++] = (struct iovec) { msg, strlen(msg) };
                ADD_FIELD("PRIORITY=%d", level);
                if (ifname && netns)
                        ADD_FIELD("NETNS=%s", netns);
                if (ifname) {
                        ADD_FIELD("INTERFACE=%s", ifname);
                        ADD_FIELD("IFINDEX=%d", ifindex);
                }
                if (error)
                        ADD_FIELD("ERRNO=%d", error);
                if (message_id)
                        ADD_FIELD("MESSAGE_ID=%s", message_id);
#undef ADD_FIELD
                for (size_t i = 0; fields && fields[i] && i < LOG_FIELDS_MAX; i++)
                        iov[n++] = (struct iovec) { (char *) fields[i], strlen(fields[i]) };
                (void) sd_journal_sendv(iov, n);
        } else
                fprintf(stderr, "%s%s%s\n", strempty(prefix), prefix ? ": " : "", buf);

        errno = saved;
        return -error;
}
