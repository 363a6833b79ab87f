/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How igmpctl shows a deprecated-sysctl(2) event: an unknown pid is "-", not 0; a path the
 * daemon translated only in part says so in text and JSON; JSON says nothing it was not told.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "audit-format.h"
#include "macro.h"

static const int32_t name[] = { 1, 2, 3 };

static AuditEventView event(void)
{
        return (AuditEventView) {
                .realtime_usec = 0,
                .source = "audit",
                .comm = "mcastd",
                .exe = "/usr/sbin/mcastd",
                .path = "/proc/sys/kernel/osrelease/3",
                .pid = 0,
                .repeats = 1,
                .name = name,
                .n_name = ELEMENTSOF(name),
                .partial = -1,
        };
}

static char *json(const AuditEventView *e)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        JsonWriter w;

        cr_assert_not_null(f);
        json_writer_init(&w, f, false);
        audit_view_json(&w, e);
        cr_assert_eq(json_writer_finish(&w), 0);
        fclose(f);
        return buf;
}

Test(audit_format, unknown_pid_is_a_dash)
{
        AuditEventView e = event();
        char pid[16], line[512];

        cr_expect_str_eq(audit_view_format_pid(&e, pid), "-");
        audit_view_format_line(&e, line, sizeof line);
        cr_expect_str_eq(line, "- audit pid - (mcastd, /usr/sbin/mcastd) called sysctl(2) for "
                               "/proc/sys/kernel/osrelease/3");
        e.pid = 4242;
        cr_expect_str_eq(audit_view_format_pid(&e, pid), "4242");
        e.repeats = 3;
        audit_view_format_line(&e, line, sizeof line);
        cr_expect(strstr(line, " pid 4242 (mcastd, ") && strstr(line, "osrelease/3 (3 times)"), "%s", line);
}

Test(audit_format, partial_path_flagged)
{
        AuditEventView e = event();
        char what[256], line[512];
        char *j;

        audit_view_format_sysctl(&e, what, sizeof what);
        cr_expect_str_eq(what, "/proc/sys/kernel/osrelease/3");
        j = json(&e);
        cr_expect(strstr(j, "path_partial") == NULL, "%s", j);
        free(j);

        e.partial = 1;
        audit_view_format_sysctl(&e, what, sizeof what);
        cr_expect_str_eq(what, "/proc/sys/kernel/osrelease/3 (partly translated)");
        audit_view_format_line(&e, line, sizeof line);
        cr_expect(strstr(line, "for /proc/sys/kernel/osrelease/3 (partly translated)") != NULL, "%s", line);
        j = json(&e);
        cr_expect(strstr(j, "\"path\":\"/proc/sys/kernel/osrelease/3\",\"path_partial\":true,") != NULL, "%s", j);
        free(j);

        e.partial = 0;
        j = json(&e);
        cr_expect(strstr(j, "\"path_partial\":false") != NULL, "%s", j);
        free(j);
}

/* The daemon marks a partial path on the wire (SYSCTL_PATH_PARTIAL_MARK): igmpctl takes the mark
 * off the path and says it its own way, in text and JSON. */
Test(audit_format, partial_mark_from_the_daemon)
{
        AuditEventView e = event();
        char what[256];
        char *j;

        audit_view_set_path(&e, "/proc/sys/kernel/osrelease/3 (partly translated)");
        cr_expect_eq(e.partial, 1);
        cr_expect_str_eq(e.path, "/proc/sys/kernel/osrelease/3");
        audit_view_format_sysctl(&e, what, sizeof what);
        cr_expect_str_eq(what, "/proc/sys/kernel/osrelease/3 (partly translated)"); /* once, not twice */
        j = json(&e);
        cr_expect(strstr(j, "\"path\":\"/proc/sys/kernel/osrelease/3\",\"path_partial\":true,") != NULL, "%s", j);
        free(j);

        audit_view_set_path(&e, "/proc/sys/net/ipv4/conf/all/force_igmp_version");
        cr_expect_eq(e.partial, 0);
        cr_expect_str_eq(e.path, "/proc/sys/net/ipv4/conf/all/force_igmp_version");

        audit_view_set_path(&e, "");
        cr_expect_eq(e.partial, -1); /* no path: nothing to say */
        audit_view_set_path(&e, " (partly translated)");
        cr_expect_eq(e.partial, 0); /* the mark alone is no path of ours: shown as it came */
}

Test(audit_format, vector_when_no_path)
{
        AuditEventView e = event();
        char what[256];

        e.path = "";
        audit_view_format_sysctl(&e, what, sizeof what);
        cr_expect_str_eq(what, "1.2.3");
        e.n_name = 0;
        audit_view_format_sysctl(&e, what, sizeof what);
        cr_expect_str_eq(what, "?");
}

Test(audit_format, json_keeps_pid_number)
{
        AuditEventView e = event();
        char *j = json(&e);

        /* JSON keeps the D-Bus value: 0 is documented as "unknown". */
        cr_expect(strstr(j, "\"pid\":0,") != NULL, "%s", j);
        free(j);
}
