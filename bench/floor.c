/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * floor: the least work that sets the benchmark policy — open/write/close of each knob, nothing
 * else (no enumeration, no reading back, no matching).
 *
 *   floor [-v VALUE] NAMEFILE
 *
 * NAMEFILE holds interface names, one per line; they are read into memory before the clock
 * starts. For each name, VALUE (default 200) is written to
 *   /proc/sys/net/ipv4/conf/IF/igmpv2_unsolicited_report_interval
 *   /proc/sys/net/ipv4/conf/IF/igmpv3_unsolicited_report_interval
 *   /proc/sys/net/ipv6/conf/IF/mldv1_unsolicited_report_interval
 *   /proc/sys/net/ipv6/conf/IF/mldv2_unsolicited_report_interval
 * with open(O_WRONLY)/write/close — the same four knobs the benchmark's igmpd policy sets. Prints
 *   floor LINKS WRITES FAILED USEC
 * where USEC covers only the writes (the caller times exec → exit around it too).
 */

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

static const struct {
        const char *family, *name;
} knobs[] = {
        { "ipv4", "igmpv2_unsolicited_report_interval" },
        { "ipv4", "igmpv3_unsolicited_report_interval" },
        { "ipv6", "mldv1_unsolicited_report_interval" },
        { "ipv6", "mldv2_unsolicited_report_interval" },
};

int main(int argc, char *argv[])
{
        const char *value = "200";
        char **names = NULL, line[64], path[256], val[32];
        size_t n = 0, cap = 0, writes = 0, failed = 0;
        uint64_t t0, t1;
        size_t vlen;
        FILE *f;
        int c;

        while ((c = getopt(argc, argv, "v:")) >= 0)
                switch (c) {
                case 'v':
                        value = optarg;
                        break;
                default:
                        return 2;
                }
        if (optind + 1 != argc) {
                fprintf(stderr, "usage: floor [-v VALUE] NAMEFILE\n");
                return 2;
        }
        f = fopen(argv[optind], "re");
        if (!f) {
                perror(argv[optind]);
                return 1;
        }
        while (fgets(line, sizeof line, f)) {
                line[strcspn(line, "\n")] = 0;
                if (!line[0])
                        continue;
                if (n == cap) {
                        cap = cap ? cap * 2 : 1024;
                        names = realloc(names, cap * sizeof *names);
                        if (!names)
                                return 1;
                }
                names[n] = strdup(line);
                if (!names[n++])
                        return 1;
        }
        fclose(f);
        vlen = (size_t) snprintf(val, sizeof val, "%s\n", value);

        t0 = now_us();
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
                        int fd;

                        snprintf(path, sizeof path, "/proc/sys/net/%s/conf/%s/%s", knobs[k].family,
                                 names[i], knobs[k].name);
                        fd = open(path, O_WRONLY | O_CLOEXEC);
                        if (fd < 0) {
                                failed++;
                                continue;
                        }
                        if (write(fd, val, vlen) != (ssize_t) vlen)
                                failed++;
                        close(fd);
                        writes++;
                }
        t1 = now_us();
        printf("floor %zu %zu %zu %llu\n", n, writes, failed, (unsigned long long) (t1 - t0));
        return failed ? 1 : 0;
}
