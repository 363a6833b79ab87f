/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The runtime layer: one file per link name, /etc/igmpd/runtime.d/IF.conf (persistent) and
 * /run/igmpd/runtime.d/IF.conf (until reboot; overrides the /etc one key by key). Written by
 * SetLinkKnobs/igmpctl link, read at start and reload, strongest of all sources.
 */

#include <stdbool.h>

#include "namemap.h"
#include "policy.h"

/* The source of a value from /run/igmpd/runtime.d, and from /etc/igmpd/runtime.d (persistent):
 * what Knobs, Describe() and igmpctl show. "runtime:persistent" starts with "runtime" so that a
 * reader who only asks "was it a runtime change?" keeps working. */
#define RUNTIME_SOURCE "runtime"
#define RUNTIME_SOURCE_PERSISTENT "runtime:persistent"

typedef enum RuntimeScope {
        RUNTIME_SCOPE_RUN,     /* /run/igmpd/runtime.d */
        RUNTIME_SCOPE_PERSIST, /* /etc/igmpd/runtime.d */
        _RUNTIME_SCOPE_MAX,
} RuntimeScope;

extern const char *const runtime_dirs[_RUNTIME_SCOPE_MAX];

typedef struct RuntimeEntry {
        char *ifname;
        KnobSetting knobs[_RUNTIME_SCOPE_MAX][_KNOB_MAX];
} RuntimeEntry;

typedef struct RuntimeConfig {
        RuntimeEntry *entries;
        size_t n, allocated;
        NameMap index; /* ifname → its entry's number + 1 */
        char *netns; /* a followed namespace's (runtime.d/netns/NAME/), NULL for igmpd's own */
} RuntimeConfig;

/* file (may be NULL) hears of every runtime file read. For the links of a followed network
 * namespace netns (NULL: igmpd's own), runtime.d/netns/NETNS/IF.conf in both scopes (set and
 * revert of the result write there). 0 or -ENOMEM. */
int runtime_config_load(const char *root, const char *netns, ConfigDiagFn diag, ConfigFileFn file, void *userdata,
                        RuntimeConfig **ret);
RuntimeConfig *runtime_config_free(RuntimeConfig *c);
/* The directory of scope's files for c (root joined). NULL on ENOMEM. */
char *runtime_config_dir(const RuntimeConfig *c, const char *root, RuntimeScope scope);
DEFINE_TRIVIAL_CLEANUP_FUNC(RuntimeConfig *, runtime_config_free);

RuntimeEntry *runtime_config_find(const RuntimeConfig *c, const char *ifname);

/* Overlays the runtime values for ifname (the /etc layer, then /run) onto out[] (valid values,
 * see KnobValue), with source RUNTIME_SOURCE. */
void runtime_config_merge(const RuntimeConfig *c, const char *ifname, KnobValue out[_KNOB_MAX]);

/* Stores values for ifname in scope: merges set[] knobs into what the file already holds and
 * writes it atomically (temp file, fsync, rename, fsync of the directory), creating the
 * directory if needed. A persistent change also takes the same knobs out of the /run file,
 * whose values would hide it. 0 or -errno (-E2BIG: a new link, and c holds CONF_FILES_MAX
 * already); on failure nothing changed on disk or in c, except when the /etc file was written
 * and only the /run one could not be updated: then *ret_persisted (may be NULL) is true, the
 * /etc file and c's /etc layer hold the change, and the /run values still win. */
int runtime_config_set(RuntimeConfig *c, const char *root, const char *ifname, RuntimeScope scope,
                       const KnobSetting set[_KNOB_MAX], bool *ret_persisted);

/* Takes the knobs in knobs (bits 1 << Knob) out of ifname's files of the scopes in scopes (bits
 * 1 << RuntimeScope), rewriting each atomically; a file left with nothing is removed (with every
 * knob, even one igmpd had not read). removed[scope][knob] gets what was taken out (line > 0).
 * 1 if there was a change to remove (a file, or values in c), 0 if there was none, or -errno
 * (scopes before the failing one stay changed). */
#define RUNTIME_KNOBS_ALL ((1U << _KNOB_MAX) - 1)
#define RUNTIME_SCOPES_ALL ((1U << _RUNTIME_SCOPE_MAX) - 1)
int runtime_config_revert(RuntimeConfig *c, const char *root, const char *ifname, unsigned scopes, unsigned knobs,
                          KnobSetting removed[_RUNTIME_SCOPE_MAX][_KNOB_MAX]);
