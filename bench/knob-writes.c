/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * knob-writes: the cost of writing one sysctl the way sysctl -w and shell scripts do (open,
 * write, close), N times in a row, for the drift section: with and without igmpd's drift watch
 * attached.
 *
 *   knob-writes [-n N] [-r ROUNDS] FILE VALUE
 *
 * Writes VALUE to FILE N times per round (default 20000) and prints one line per round,
 *   round I NS_PER_WRITE
 * then
 *   median NS_PER_WRITE
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;

        return (x > y) - (x < y);
}

int main(int argc, char *argv[])
{
        long n = 20000, rounds = 5;
        double *per;
        size_t len;
        int opt;

        while ((opt = getopt(argc, argv, "n:r:")) != -1)
                switch (opt) {
                case 'n':
                        n = strtol(optarg, NULL, 10);
                        break;
                case 'r':
                        rounds = strtol(optarg, NULL, 10);
                        break;
                default:
                        fprintf(stderr, "usage: %s [-n N] [-r ROUNDS] FILE VALUE\n", argv[0]);
                        return 2;
                }
        if (argc - optind != 2 || n < 1 || rounds < 1) {
                fprintf(stderr, "usage: %s [-n N] [-r ROUNDS] FILE VALUE\n", argv[0]);
                return 2;
        }
        len = strlen(argv[optind + 1]);
        per = calloc((size_t) rounds, sizeof *per);
        if (!per)
                return 1;
        for (long r = 0; r < rounds; r++) {
                double t0 = now_ns();

                for (long i = 0; i < n; i++) {
                        int fd = open(argv[optind], O_WRONLY | O_CLOEXEC);

                        if (fd < 0 || write(fd, argv[optind + 1], len) != (ssize_t) len) {
                                perror(argv[optind]);
                                return 1;
                        }
                        close(fd);
                }
                per[r] = (now_ns() - t0) / (double) n;
                printf("round %ld %.0f\n", r + 1, per[r]);
        }
        qsort(per, (size_t) rounds, sizeof *per, cmp_double);
        printf("median %.0f\n", per[rounds / 2]);
        free(per);
        return 0;
}
