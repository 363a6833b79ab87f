/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runtime drop-ins: loading, lookup, atomic writing and removal.
 */

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array-util.h"
#include "conf-parser.h"
#include "fs-util.h"
#include "ifname.h"
#include "runtime-config.h"

const char *const runtime_dirs[_RUNTIME_SCOPE_MAX] = {
        [RUNTIME_SCOPE_RUN] = "/run/igmpd/runtime.d",
        [RUNTIME_SCOPE_PERSIST] = "/etc/igmpd/runtime.d",
};

RuntimeConfig *runtime_config_free(RuntimeConfig *c)
{
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n; i++)
                free(c->entries[i].ifname);
        free(c->entries);
        namemap_done(&c->index);
        free(c->netns);
        free(c);
        return NULL;
}

char *runtime_config_dir(const RuntimeConfig *c, const char *root, RuntimeScope scope)
{
        _cleanup_free_ char *dir = path_join_root(root, runtime_dirs[scope]);
        char *p;

        if (!dir || !c || !c->netns)
                return TAKE_PTR(dir);
        if (asprintf(&p, "%s/netns/%s", dir, c->netns) < 0)
                return NULL;
        return p;
}

RuntimeEntry *runtime_config_find(const RuntimeConfig *c, const char *ifname)
{
        uintptr_t i = c && c->n > 0 ? (uintptr_t) namemap_get(&c->index, ifname) : 0;

        return i > 0 ? &c->entries[i - 1] : NULL;
}

/* NULL on ENOMEM. */
static RuntimeEntry *entry_add(RuntimeConfig *c, const char *ifname)
{
        RuntimeEntry *e;

        if (ARRAY_GROW(c->entries, c->allocated, c->n, 8) < 0)
                return NULL;
        e = &c->entries[c->n];
        *e = (RuntimeEntry) { .ifname = strdup(ifname) };
        if (!e->ifname || namemap_put(&c->index, ifname, (void *) (uintptr_t) (c->n + 1)) < 0) {
                free(e->ifname);
                return NULL;
        }
        c->n++;
        return e;
}

int runtime_config_load(const char *root, const char *netns, ConfigDiagFn diag, ConfigFileFn file, void *userdata,
                        RuntimeConfig **ret)
{
        _cleanup_(runtime_config_freep) RuntimeConfig *c = NULL;
        size_t n_dropped = 0;
        int r;

        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        if (netns && !(c->netns = strdup(netns)))
                return -ENOMEM;

        for (RuntimeScope s = 0; s < _RUNTIME_SCOPE_MAX; s++) {
                _cleanup_free_ char *dir = runtime_config_dir(c, root, s);
                _cleanup_(closedirp) DIR *dp = NULL;
                struct dirent *de;

                if (!dir)
                        return -ENOMEM;
                dp = opendir(dir);
                if (!dp)
                        continue;
                while ((de = readdir(dp))) {
                        _cleanup_free_ char *path = NULL, *buf = NULL, *name = NULL;
                        size_t len;

                        if (startswith(de->d_name, ".#") || streq(de->d_name, ".conf") || !endswith(de->d_name, ".conf"))
                                continue;
                        name = strndup(de->d_name, strlen(de->d_name) - STRLEN(".conf"));
                        if (!name || asprintf(&path, "%s/%s", dir, de->d_name) < 0)
                                return -ENOMEM;
                        if (!ifname_valid(name)) {
                                config_diagf(diag, userdata, path, 0, "File name is not a valid interface name, ignoring.");
                                if (file)
                                        file(userdata, path, CONFIG_FILE_SKIPPED);
                                continue;
                        }
                        RuntimeEntry *e = runtime_config_find(c, name);
                        if (!e && c->n >= CONF_FILES_MAX) {
                                n_dropped++; /* links beyond the bound: not read, one message below */
                                continue;
                        }
                        r = config_read_file(path, &buf, &len);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0) {
                                config_read_failed(diag, file, userdata, path, r);
                                continue;
                        }
                        if (!e && !(e = entry_add(c, name)))
                                return -ENOMEM;
                        r = knob_settings_parse(path, buf, len, diag, userdata, e->knobs[s]);
                        if (r < 0)
                                return r;
                        if (file)
                                file(userdata, path, CONFIG_FILE_USED);
                }
        }
        if (n_dropped > 0)
                config_diagf(diag, userdata, NULL, 0, "More than %d links have runtime files (runtime.d), ignoring %zu of "
                             "those files.", CONF_FILES_MAX, n_dropped);

        *ret = TAKE_PTR(c);
        return 0;
}

void runtime_config_merge(const RuntimeConfig *c, const char *ifname, KnobValue out[_KNOB_MAX])
{
        static RefStr runtime_source = REFSTR_STATIC(RUNTIME_SOURCE);
        static RefStr persistent_source = REFSTR_STATIC(RUNTIME_SOURCE_PERSISTENT);
        const RuntimeEntry *e = runtime_config_find(c, ifname);

        if (!e)
                return;
        /* /etc (persistent) first, then /run on top: a temporary change beats a persistent one. */
        knob_settings_overlay(e->knobs[RUNTIME_SCOPE_PERSIST], _KNOB_MAX, &persistent_source, out);
        knob_settings_overlay(e->knobs[RUNTIME_SCOPE_RUN], _KNOB_MAX, &runtime_source, out);
}

/* The text of the runtime file of ifname (of the followed namespace netns, or NULL for igmpd's
 * own). NULL on ENOMEM. */
static char *runtime_config_format(const char *netns, const char *ifname, const KnobSetting knobs[_KNOB_MAX])
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        /* A followed namespace's link is NETNS/IFNAME to igmpctl. */
        fprintf(f, "# Written by igmpd (igmpctl link / SetLinkKnobs). Remove with: igmpctl link %s%s%s --revert\n",
                strempty(netns), netns ? "/" : "", ifname);
        /* knob_table[] lists each section's knobs together. */
        const char *section = NULL;
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                const KnobInfo *i = knob_info(k);
                char v[32];

                if (knobs[k].line == 0)
                        continue;
                if (!streq_ptr(section, i->section))
                        fprintf(f, "\n[%s]\n", section = i->section);
                fprintf(f, "%s=%s\n", i->key, knob_format(k, knobs[k].value, v));
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* Writes (or removes, when nothing is left) the file of one scope. 0, or 1 when a file was
 * removed; -errno. */
static int scope_store(const RuntimeConfig *c, const char *root, const char *ifname, RuntimeScope scope, const KnobSetting knobs[_KNOB_MAX])
{
        _cleanup_free_ char *dir = NULL, *name = NULL, *content = NULL;
        bool any = false;

        for (Knob k = 0; k < _KNOB_MAX; k++)
                any = any || knobs[k].line > 0;

        dir = runtime_config_dir(c, root, scope);
        if (!dir || asprintf(&name, "%s.conf", ifname) < 0)
                return -ENOMEM;
        if (!any)
                return remove_file_sync(dir, name);
        content = runtime_config_format(c ? c->netns : NULL, ifname, knobs);
        if (!content)
                return -ENOMEM;
        return write_file_atomic(dir, name, content);
}

int runtime_config_set(RuntimeConfig *c, const char *root, const char *ifname, RuntimeScope scope,
                       const KnobSetting set[_KNOB_MAX], bool *ret_persisted)
{
        KnobSetting merged[_KNOB_MAX] = {}, run[_KNOB_MAX] = {};
        bool run_changed = false;
        RuntimeEntry *e;
        int r;

        assert(scope >= 0 && scope < _RUNTIME_SCOPE_MAX);
        if (ret_persisted)
                *ret_persisted = false;
        if (!ifname_valid(ifname))
                return -EINVAL;

        e = runtime_config_find(c, ifname);
        if (e) {
                memcpy(merged, e->knobs[scope], sizeof merged);
                memcpy(run, e->knobs[RUNTIME_SCOPE_RUN], sizeof run);
        }
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (set[k].line > 0) {
                        merged[k] = set[k];
                        /* A persistent change replaces a temporary one of the same knob: /run
                         * beats /etc, so leaving it there would hide the new value. */
                        if (scope == RUNTIME_SCOPE_PERSIST && run[k].line > 0) {
                                run[k] = (KnobSetting) {};
                                run_changed = true;
                        }
                }

        /* Reserve the in-memory slot first, so that after a successful write nothing can fail. The
         * files of CONF_FILES_MAX links are all a load reads. */
        RuntimeEntry *slot = e;
        if (!slot && c->n >= CONF_FILES_MAX)
                return -E2BIG;
        if (!slot && !(slot = entry_add(c, ifname)))
                return -ENOMEM;

        r = scope_store(c, root, ifname, scope, merged);
        if (r < 0)
                return r;
        memcpy(slot->knobs[scope], merged, sizeof merged);

        if (run_changed) {
                r = scope_store(c, root, ifname, RUNTIME_SCOPE_RUN, run);
                if (r < 0) {
                        /* The /etc file is written: that part did change. */
                        if (ret_persisted)
                                *ret_persisted = true;
                        return r;
                }
                memcpy(slot->knobs[RUNTIME_SCOPE_RUN], run, sizeof run);
        }
        return 0;
}

int runtime_config_revert(RuntimeConfig *c, const char *root, const char *ifname, unsigned scopes, unsigned knobs,
                          KnobSetting removed[_RUNTIME_SCOPE_MAX][_KNOB_MAX])
{
        RuntimeEntry *e = runtime_config_find(c, ifname);
        bool any = false, all = (knobs & RUNTIME_KNOBS_ALL) == RUNTIME_KNOBS_ALL;

        if (!ifname_valid(ifname))
                return -EINVAL;
        memset(removed, 0, sizeof(KnobSetting[_RUNTIME_SCOPE_MAX][_KNOB_MAX]));
        for (RuntimeScope s = 0; s < _RUNTIME_SCOPE_MAX; s++) {
                KnobSetting keep[_KNOB_MAX] = {};
                bool changed = false;
                int r;

                if (!(scopes & (1U << s)))
                        continue;
                for (Knob k = 0; e && k < _KNOB_MAX; k++)
                        if (e->knobs[s][k].line > 0 && (knobs & (1U << k))) {
                                removed[s][k] = e->knobs[s][k];
                                changed = true;
                        } else
                                keep[k] = e->knobs[s][k];
                /* Storing nothing removes the file: with every knob, also one igmpd had not read. */
                if (!changed && !all)
                        continue;
                r = scope_store(c, root, ifname, s, keep);
                if (r < 0)
                        return r;
                any = any || changed || r > 0;
                if (e)
                        memcpy(e->knobs[s], keep, sizeof keep);
        }
        return any;
}
