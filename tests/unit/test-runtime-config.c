/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime-config.h"

static char root[64];

static void setup_root(void)
{
        snprintf(root, sizeof root, "/tmp/igmpd-unit-runtime.XXXXXX");
        cr_assert_not_null(mkdtemp(root));
}

static void teardown_root(void)
{
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", root);
        (void) system(cmd);
}

static char *slurp(const char *rel)
{
        char path[256], *buf = calloc(1, 4096);
        snprintf(path, sizeof path, "%s%s", root, rel);
        FILE *f = fopen(path, "r");
        if (!f) {
                free(buf);
                return NULL;
        }
        size_t n = fread(buf, 1, 4095, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}

Test(runtime_config, set_merge_reload_revert, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(runtime_config_freep) RuntimeConfig *c = calloc(1, sizeof *c);
        _cleanup_(runtime_config_freep) RuntimeConfig *again = NULL;
        KnobSetting set[_KNOB_MAX] = {}, removed[_RUNTIME_SCOPE_MAX][_KNOB_MAX];
        KnobValue out[_KNOB_MAX] = {};

        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 200, .line = 1 };
        cr_assert_eq(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_PERSIST, set, NULL), 0);
        memset(set, 0, sizeof set);
        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 300, .line = 1 };
        set[KNOB_IGMP_VERSION] = (KnobSetting) { .value = 0, .line = 1 };
        cr_assert_eq(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_RUN, set, NULL), 0);

        _cleanup_free_ char *etc = slurp("/etc/igmpd/runtime.d/eth0.conf");
        _cleanup_free_ char *run = slurp("/run/igmpd/runtime.d/eth0.conf");
        cr_assert_not_null(etc);
        cr_assert_not_null(run);
        cr_expect(strstr(etc, "[IGMP]\nV3UnsolicitedReportInterval=200ms\n") != NULL, "%s", etc);
        cr_expect(strstr(run, "V3UnsolicitedReportInterval=300ms\nVersion=auto\n") != NULL, "%s", run);
        /* The header says how to remove this very file. */
        cr_expect(strstr(run, "Remove with: igmpctl link eth0 --revert\n") != NULL, "%s", run);

        /* /run beats /etc, and both beat whatever was there. */
        _cleanup_(refstr_unrefp) RefStr *file = refstr_new("/x.conf");
        knob_value_set(&out[KNOB_IGMPV3_INTERVAL], 1000, file);
        runtime_config_merge(c, "eth0", out);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 300);
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV3_INTERVAL]), "runtime");
        cr_expect_eq(file->n_ref, 1u, "the value replaced gave its reference back");

        /* What was written reads back the same. */
        cr_assert_eq(runtime_config_load(root, NULL, NULL, NULL, NULL, &again), 0);
        cr_assert_not_null(runtime_config_find(again, "eth0"));
        knob_values_clear(out);
        runtime_config_merge(again, "eth0", out);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 300);
        cr_expect(out[KNOB_IGMP_VERSION].set);

        /* No temp files left behind. */
        char cmd[256];
        snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s/run/igmpd/runtime.d | grep -v '^eth0.conf$')\"", root);
        cr_expect_eq(system(cmd), 0);

        cr_assert_eq(runtime_config_revert(c, root, "eth0", RUNTIME_SCOPES_ALL, RUNTIME_KNOBS_ALL, removed), 1); /* there was something */
        knob_values_clear(out);
        runtime_config_merge(c, "eth0", out);
        cr_expect(!out[KNOB_IGMPV3_INTERVAL].set);
        char *gone = slurp("/etc/igmpd/runtime.d/eth0.conf");
        cr_expect_null(gone);
        free(gone);
        cr_expect_eq(runtime_config_revert(c, root, "eth0", RUNTIME_SCOPES_ALL, RUNTIME_KNOBS_ALL, removed), 0); /* idempotent: nothing left to revert */
        cr_expect_eq(runtime_config_revert(c, root, "eth1", RUNTIME_SCOPES_ALL, RUNTIME_KNOBS_ALL, removed), 0); /* never had any */
}

/* One knob, one layer: igmpctl link L --revert=v3-interval [--runtime|--persistent]. */
Test(runtime_config, revert_one_knob_one_layer, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(runtime_config_freep) RuntimeConfig *c = calloc(1, sizeof *c);
        KnobSetting set[_KNOB_MAX] = {}, removed[_RUNTIME_SCOPE_MAX][_KNOB_MAX];
        KnobValue out[_KNOB_MAX] = {};

        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 200, .line = 1 };
        set[KNOB_IGMPV2_INTERVAL] = (KnobSetting) { .value = 2000, .line = 1 };
        cr_assert_eq(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_PERSIST, set, NULL), 0);
        memset(set, 0, sizeof set);
        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 300, .line = 1 };
        cr_assert_eq(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_RUN, set, NULL), 0);

        /* The /run layer only: its file goes, the persistent value shows again. */
        cr_expect_eq(runtime_config_revert(c, root, "eth0", 1U << RUNTIME_SCOPE_RUN, RUNTIME_KNOBS_ALL, removed), 1);
        cr_expect_eq(removed[RUNTIME_SCOPE_RUN][KNOB_IGMPV3_INTERVAL].value, 300);
        cr_expect_eq(removed[RUNTIME_SCOPE_PERSIST][KNOB_IGMPV3_INTERVAL].line, 0u);
        char *gone = slurp("/run/igmpd/runtime.d/eth0.conf");
        cr_expect_null(gone);
        free(gone);
        runtime_config_merge(c, "eth0", out);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 200);

        /* One knob of the /etc layer: the file keeps the other one. */
        cr_expect_eq(runtime_config_revert(c, root, "eth0", RUNTIME_SCOPES_ALL, 1U << KNOB_IGMPV3_INTERVAL, removed), 1);
        cr_expect_eq(removed[RUNTIME_SCOPE_PERSIST][KNOB_IGMPV3_INTERVAL].value, 200);
        cr_expect_eq(removed[RUNTIME_SCOPE_PERSIST][KNOB_IGMPV2_INTERVAL].line, 0u);
        _cleanup_free_ char *etc = slurp("/etc/igmpd/runtime.d/eth0.conf");
        cr_assert_not_null(etc);
        cr_expect(strstr(etc, "V3UnsolicitedReportInterval") == NULL && strstr(etc, "V2UnsolicitedReportInterval=2000ms"),
                  "%s", etc);
        knob_values_clear(out);
        runtime_config_merge(c, "eth0", out);
        cr_expect(!out[KNOB_IGMPV3_INTERVAL].set);
        cr_expect_eq(out[KNOB_IGMPV2_INTERVAL].value, 2000);
        knob_values_clear(out);

        /* Nothing of that knob left: nothing to do, nothing rewritten. */
        cr_expect_eq(runtime_config_revert(c, root, "eth0", RUNTIME_SCOPES_ALL, 1U << KNOB_IGMPV3_INTERVAL, removed), 0);
}

Test(runtime_config, persistent_change_replaces_temporary_one, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(runtime_config_freep) RuntimeConfig *c = calloc(1, sizeof *c);
        KnobSetting set[_KNOB_MAX] = {};
        KnobValue out[_KNOB_MAX] = {};

        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 300, .line = 1 };
        set[KNOB_IGMPV2_INTERVAL] = (KnobSetting) { .value = 3000, .line = 1 };
        cr_assert_eq(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_RUN, set, NULL), 0);
        memset(set, 0, sizeof set);
        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 200, .line = 1 };
        cr_assert_eq(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_PERSIST, set, NULL), 0);

        runtime_config_merge(c, "eth0", out);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 200); /* the persistent value is visible */
        cr_expect_str_eq(refstr_str(out[KNOB_IGMPV3_INTERVAL].source), "runtime:persistent");
        cr_expect_eq(out[KNOB_IGMPV2_INTERVAL].value, 3000); /* other temporary keys stay */
        cr_expect_str_eq(refstr_str(out[KNOB_IGMPV2_INTERVAL].source), "runtime");
        _cleanup_free_ char *run = slurp("/run/igmpd/runtime.d/eth0.conf");
        cr_assert_not_null(run);
        cr_expect(strstr(run, "V3UnsolicitedReportInterval") == NULL, "%s", run);

        /* Replacing the last temporary key removes the /run file. */
        memset(set, 0, sizeof set);
        set[KNOB_IGMPV2_INTERVAL] = (KnobSetting) { .value = 2000, .line = 1 };
        cr_assert_eq(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_PERSIST, set, NULL), 0);
        char *gone = slurp("/run/igmpd/runtime.d/eth0.conf");
        cr_expect_null(gone);
        free(gone);
}

Test(runtime_config, rejects_bad_names_and_readonly_dir, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(runtime_config_freep) RuntimeConfig *c = calloc(1, sizeof *c);
        KnobSetting set[_KNOB_MAX] = {}, removed[_RUNTIME_SCOPE_MAX][_KNOB_MAX];
        char dir[128];

        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 200, .line = 1 };
        cr_expect_eq(runtime_config_set(c, root, "../../etc/x", RUNTIME_SCOPE_RUN, set, NULL), -EINVAL);
        cr_expect_eq(runtime_config_revert(c, root, "a/b", RUNTIME_SCOPES_ALL, RUNTIME_KNOBS_ALL, removed), -EINVAL);

        /* A directory we cannot write: a file where the directory should be. */
        snprintf(dir, sizeof dir, "%s/run", root);
        FILE *f = fopen(dir, "w");
        fclose(f);
        cr_expect_lt(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_RUN, set, NULL), 0);
        cr_expect_null(runtime_config_find(c, "eth0") ? (void *) (runtime_config_find(c, "eth0")->knobs[RUNTIME_SCOPE_RUN][KNOB_IGMPV3_INTERVAL].line ? "set" : NULL) : NULL);
}

/* --persistent writes /etc, then takes the knob out of /run: when only the second step fails,
 * the caller learns that /etc did change (and /run still wins). */
Test(runtime_config, persistent_stored_but_run_not_updated, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(runtime_config_freep) RuntimeConfig *c = calloc(1, sizeof *c);
        KnobSetting set[_KNOB_MAX] = {};
        KnobValue out[_KNOB_MAX] = {};
        bool persisted = true;
        char path[128], cmd[320];
        _cleanup_free_ char *etc = NULL;

        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 150, .line = 1 };
        cr_assert_eq(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_RUN, set, &persisted), 0);
        cr_assert_not(persisted);

        /* /run's directory replaced by a file: the /run file can no longer be rewritten. */
        snprintf(path, sizeof path, "%s/run/igmpd/runtime.d", root);
        snprintf(cmd, sizeof cmd, "rm -rf %s && touch %s", path, path);
        cr_assert_eq(system(cmd), 0);

        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 250, .line = 1 };
        cr_assert_lt(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_PERSIST, set, &persisted), 0);
        cr_assert(persisted);
        etc = slurp("/etc/igmpd/runtime.d/eth0.conf");
        cr_assert_not_null(etc);
        cr_assert_not_null(strstr(etc, "V3UnsolicitedReportInterval=250ms"));
        /* In memory as on disk: /etc holds 250, /run still 150, and /run wins. */
        runtime_config_merge(c, "eth0", out);
        cr_assert(out[KNOB_IGMPV3_INTERVAL].set);
        cr_assert_eq(out[KNOB_IGMPV3_INTERVAL].value, 150);

        /* A failure of the /etc file itself changes nothing and says so. */
        snprintf(path, sizeof path, "%s/etc/igmpd/runtime.d", root);
        snprintf(cmd, sizeof cmd, "rm -rf %s && touch %s", path, path);
        cr_assert_eq(system(cmd), 0);
        cr_assert_lt(runtime_config_set(c, root, "eth0", RUNTIME_SCOPE_PERSIST, set, &persisted), 0);
        cr_assert_not(persisted);
}

/* A followed namespace's overrides: runtime.d/netns/NAME/IF.conf, apart from igmpd's own
 * namespace's file of the same link name, and read back by that namespace only. */
Test(runtime_config, per_namespace, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(runtime_config_freep) RuntimeConfig *own = NULL, *pod = NULL, *again = NULL, *other = NULL;
        KnobSetting set[_KNOB_MAX] = {};
        KnobValue out[_KNOB_MAX] = {};

        cr_assert_eq(runtime_config_load(root, NULL, NULL, NULL, NULL, &own), 0);
        cr_assert_eq(runtime_config_load(root, "cni-1", NULL, NULL, NULL, &pod), 0);
        set[KNOB_IGMPV3_INTERVAL] = (KnobSetting) { .value = 90, .line = 1 };
        cr_assert_eq(runtime_config_set(pod, root, "eth0", RUNTIME_SCOPE_RUN, set, NULL), 0);

        _cleanup_free_ char *run = slurp("/run/igmpd/runtime.d/netns/cni-1/eth0.conf");
        cr_assert_not_null(run);
        cr_expect(strstr(run, "V3UnsolicitedReportInterval=90ms\n") != NULL, "%s", run);
        cr_expect(strstr(run, "Remove with: igmpctl link cni-1/eth0 --revert\n") != NULL, "%s", run);
        _cleanup_free_ char *own_file = slurp("/run/igmpd/runtime.d/eth0.conf");
        cr_expect_null(own_file);

        cr_assert_eq(runtime_config_load(root, "cni-1", NULL, NULL, NULL, &again), 0);
        runtime_config_merge(again, "eth0", out);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 90);
        knob_values_clear(out);
        cr_assert_eq(runtime_config_load(root, "cni-2", NULL, NULL, NULL, &other), 0);
        cr_expect_null(runtime_config_find(other, "eth0"));
        runtime_config_free(own);
        own = NULL;
        cr_assert_eq(runtime_config_load(root, NULL, NULL, NULL, NULL, &own), 0);
        cr_expect_null(runtime_config_find(own, "eth0")); /* the netns/ directory is no link's file */

        KnobSetting removed[_RUNTIME_SCOPE_MAX][_KNOB_MAX];
        cr_expect_eq(runtime_config_revert(again, root, "eth0", RUNTIME_SCOPES_ALL, RUNTIME_KNOBS_ALL, removed), 1);
        _cleanup_free_ char *gone = slurp("/run/igmpd/runtime.d/netns/cni-1/eth0.conf");
        cr_expect_null(gone);
}

static char big_diag[512];

static void collect_diag(void *userdata, const char *file, unsigned line, const char *message)
{
        snprintf(big_diag, sizeof big_diag, "%s:%u: %s", strrchr(file, '/') + 1, line, message);
}

/* The same words as for a policy drop-in past CONFIG_FILE_MAX (conf-parser's config_read_failed()). */
Test(runtime_config, oversized_file_is_skipped, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(runtime_config_freep) RuntimeConfig *c = NULL;
        char path[256];

        char cmd[256];

        snprintf(cmd, sizeof cmd, "mkdir -p %s/run/igmpd/runtime.d", root);
        cr_assert_eq(system(cmd), 0);
        snprintf(path, sizeof path, "%s/run/igmpd/runtime.d/eth0.conf", root);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        for (int i = 0; i < 200000; i++)
                fputs("# padding\n", f); /* 2 MB */
        fclose(f);

        big_diag[0] = '\0';
        cr_assert_eq(runtime_config_load(root, NULL, collect_diag, NULL, NULL, &c), 0);
        cr_expect_str_eq(big_diag, "eth0.conf:0: Failed to read file: larger than 1 MiB, ignoring.");
        cr_expect_eq(c->n, 0);
}
