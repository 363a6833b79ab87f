/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * igmpd: reads argv, builds the manager, loads config, brings up the D-Bus face, runs the first
 * pass over the links from the event loop (READY=1 at its end), runs.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "log.h"
#include "manager-bus.h"
#include "manager.h"
#include "privileges.h"
#include "restore.h"

static const char *arg_config_root = "";
static bool arg_check = false;
static bool arg_restore = false;
static const char *arg_kmsg_path = NULL;

static void help(void)
{
        printf("Usage: igmpd [OPTIONS…]\n"
               "\n"
               "Applies per-link IGMP/MLD report-interval policy from /etc/igmpd/conf.d/*.conf\n"
               "(and /run, /usr/local/lib, /usr/lib) to every network interface, as it appears.\n"
               "\n"
               "  -h --help               Show this help and exit\n"
               "     --version            Show the version and exit\n"
               "     --config-root=DIR    Read and write all configuration below DIR instead of /\n"
               "                          (for tests and demos)\n"
               "     --check              Parse all configuration as the daemon would, print each\n"
               "                          problem as FILE:LINE and the effective value and source\n"
               "                          of every knob for the links present now (NetworkManager's\n"
               "                          profiles included, or it says why not); change nothing.\n"
               "                          Exits 1 if any file had a problem\n"
               "     --restore            With igmpd stopped for good (package removal): write back\n"
               "                          the values found before igmpd changed the knobs, as it\n"
               "                          recorded them (also after a crash); knobs changed since\n"
               "                          by someone else are left alone\n"
               "     --kmsg-path=PATH     Read kernel log records from PATH (a FIFO, followed, or a\n"
               "                          file, read once; one /dev/kmsg record per line) instead\n"
               "                          of /dev/kmsg (for tests)\n"
               "\n"
               "Signals: SIGHUP reloads the configuration; SIGTERM and SIGINT stop the daemon.\n"
               "See igmpd(8), igmpd.conf(5) and igmpctl(1).\n");
}

static int parse_argv(int argc, char *argv[])
{
        enum { ARG_VERSION = 0x100, ARG_CONFIG_ROOT, ARG_CHECK, ARG_RESTORE, ARG_KMSG_PATH };
        static const struct option options[] = {
                { "help",        no_argument,       NULL, 'h' },
                { "version",     no_argument,       NULL, ARG_VERSION },
                { "config-root", required_argument, NULL, ARG_CONFIG_ROOT },
                { "check",       no_argument,       NULL, ARG_CHECK },
                { "restore",     no_argument,       NULL, ARG_RESTORE },
                { "kmsg-path",   required_argument, NULL, ARG_KMSG_PATH },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("igmpd %s\n", PACKAGE_VERSION);
                        return 0;
                case ARG_CONFIG_ROOT:
                        arg_config_root = optarg;
                        break;
                case ARG_CHECK:
                        arg_check = true;
                        break;
                case ARG_RESTORE:
                        arg_restore = true;
                        break;
                case ARG_KMSG_PATH:
                        arg_kmsg_path = optarg;
                        break;
                default:
                        return -EINVAL;
                }

        if (arg_check && arg_restore) {
                fprintf(stderr, "igmpd: --check and --restore do not go together. See igmpd --help.\n");
                return -EINVAL;
        }
        if (optind < argc) {
                fprintf(stderr, "igmpd takes no positional arguments (got '%s'). See igmpd --help.\n", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

static int run(int argc, char *argv[])
{
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(manager_bus_freep) ManagerBus *bus = NULL; /* declared after m: freed before it */
        struct rlimit rl;
        int r;

        log_setup();

        r = parse_argv(argc, argv);
        if (r <= 0)
                return r;

        /* The daemon only, before anything is set up: it may re-execute igmpd. */
        if (!arg_check && !arg_restore)
                privileges_drop_unneeded(arg_config_root, arg_kmsg_path, argv);
        /* igmpd uses no select(): a soft limit below the hard one (systemd's 1024) only gets in the
         * way. The BPF side leaves the last descriptors to link configuration (bpf-helper-client.c). */
        if (getrlimit(RLIMIT_NOFILE, &rl) >= 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                (void) setrlimit(RLIMIT_NOFILE, &rl);
        }

        r = manager_new(arg_config_root, &m);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the daemon: %m");

        if (arg_restore)
                return restore_run(m);
        if (arg_check)
                log_max_level = MIN(log_max_level, LOG_WARNING);
        manager_probe_kernel(m);
        if (arg_check)
                return check_run(m);

        m->kmsg_path = arg_kmsg_path;
        if (!isempty(arg_config_root) && access(arg_config_root, F_OK) < 0)
                log_warning_errno(errno, "--config-root %s: %m; starting without any configuration below it.",
                                  arg_config_root);

        r = manager_load_config(m);
        if (r >= 0)
                r = manager_start(m);
        if (r < 0)
                return r;

        /* The D-Bus face comes before the first pass, which it serves as it goes (the links
         * seen so far); it never stops the kernel-facing job. */
        r = manager_bus_new(m, &bus);
        if (r < 0)
                log_error_errno(r, "Failed to set up the D-Bus face, continuing without: %m");

        r = manager_first_pass(m);
        if (r < 0)
                return r;

        r = sd_event_loop(m->event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        return 0;
}

int main(int argc, char *argv[])
{
        int r = run(argc, argv);
        return r == -EINVAL ? 2 : r != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
