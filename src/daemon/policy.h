/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Policy files: parsing one .conf into a PolicyFile, loading the whole ordered set from the four
 * directories, matching a link against [Match], and merging every matching file into the
 * effective value of each knob. Pure except for policy_load(), which reads the files.
 */

#include <net/ethernet.h>
#include <stdbool.h>
#include <stdint.h>

#include "conf-parser.h"
#include "knob.h"
#include "refstr.h"

/* The directories, strongest first (joined to the config root). */
extern const char *const policy_dirs[];

typedef struct PolicyMatch {
        char **names;      /* shell globs, NULL-terminated, or NULL */
        bool names_invert; /* list started with '!' */
        char **kinds;
        char **types;
        struct ether_addr *macs;
        size_t n_macs;
        /* Namespace=: shell globs over the name of the link's network namespace (POLICY_HOST_NETNS
         * for igmpd's own). NULL: igmpd's own namespace only, so that [Daemon] Namespaces=named
         * never widens a file written before it existed. */
        char **namespaces;
        /* The file had a mistake that could widen it (unknown section or [Match] key, empty or
         * invalid [Match] value…): it matches nothing, and policy_load() drops it. */
        bool invalid;
} PolicyMatch;

typedef struct KnobSetting {
        int32_t value;
        unsigned line; /* 0 = not set */
} KnobSetting;

typedef struct PolicyFile {
        RefStr *source;   /* the path, for the knob values it sets (KnobValue.source) */
        const char *path; /* source's string */
        PolicyMatch match;
        KnobSetting knobs[_KNOB_MAX];
        /* [IGMP]/[MLD] Robustness=: only in a file whose [Match] names no link (else a problem,
         * reported and cleared by policy_file_parse()). */
        KnobSetting ns_knobs[_NS_KNOB_MAX];
} PolicyFile;

typedef struct Policy {
        PolicyFile **files; /* lexical order of file name */
        size_t n_files;
        size_t n_masked;
        size_t n_skipped;  /* files dropped as invalid (PolicyMatch.invalid) */
} Policy;

/* What matching needs to know of a link: plain data, no kernel I/O. */
typedef struct LinkInfo {
        int ifindex;           /* not matched on; for the sources keyed by it (NetworkManager) */
        const char *name;
        char *const *altnames; /* NULL-terminated or NULL */
        const char *kind;      /* IFLA_INFO_KIND or NULL */
        const char *type;      /* "ether", "loopback", "none", … */
        const struct ether_addr *mac; /* NULL if the link has no 6-byte address */
        bool loopback;
        const char *netns;     /* name of the link's network namespace; NULL: igmpd's own */
} LinkInfo;

/* The name [Match] Namespace= gives igmpd's own network namespace. */
#define POLICY_HOST_NETNS ".host"

/* The effective value of one knob and where it came from. Each value holds a reference of its
 * own to its source, so it stays valid whatever happens to the policy set or NetworkManager
 * table it came from: arrays of them start zeroed and end with knob_values_clear(). */
typedef struct KnobValue {
        int32_t value;
        bool set;
        RefStr *source; /* file path, RUNTIME_SOURCE*, "NetworkManager:<id>"; NULL if unset */
} KnobValue;

/* Sets v to value from source (taking a reference to it), dropping what v held. */
void knob_value_set(KnobValue *v, int32_t value, RefStr *source);
/* Overlays every set knob of knobs[n] (Knob or NsKnob) onto out[n] (valid values), each taking a
 * reference to source. */
void knob_settings_overlay(const KnobSetting *knobs, size_t n, RefStr *source, KnobValue *out);
/* Unsets every value of v[], dropping the references. */
void knob_values_clear(KnobValue v[_KNOB_MAX]);
/* Where v came from, or NULL if it is unset. */
static inline const char *knob_value_source(const KnobValue *v)
{
        return v->set ? refstr_str(v->source) : NULL;
}

PolicyFile *policy_file_free(PolicyFile *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(PolicyFile *, policy_file_free);

/* Parses a policy file's text. Problems go to diag as "FILE:LINE: …, ignoring."; the rest of
 * the file still applies — except for mistakes that could make the file apply more widely than
 * written (an unknown section, anything wrong in [Match], a line outside any section): those
 * are reported as "…, file skipped." and mark the file invalid (ret->match.invalid), so that it
 * matches no link. Returns 0 or -ENOMEM. */
int policy_file_parse(const char *path, const char *buf, size_t len, ConfigDiagFn diag, void *userdata,
                      PolicyFile **ret);

/* Parses the [IGMP]/[MLD] sections only (runtime files have no [Match]). */
int knob_settings_parse(const char *path, const char *buf, size_t len, ConfigDiagFn diag, void *userdata,
                        KnobSetting ret[_KNOB_MAX]);

bool policy_match(const PolicyMatch *m, const LinkInfo *link);

/* The namespace knobs of namespace netns (NULL: igmpd's own): fills out[] (_NS_KNOB_MAX values)
 * from every file whose Namespace= matches it (a file without Namespace=: igmpd's own only) and
 * that sets them, in order, later files overriding earlier ones; what out[] held before is
 * dropped. */
void policy_merge_namespace(const Policy *p, const char *netns, KnobValue out[static _NS_KNOB_MAX]);
/* A namespace knob that cannot be set here (mld_qrv outside the initial namespace): every line
 * that sets it is reported as "FILE:LINE: Robustness= in [MLD] <why>, ignoring." and dropped;
 * with host_ok, only the lines of files whose Namespace= does not
 * match igmpd's own namespace. */
void policy_refuse_namespace_knob(Policy *p, NsKnob k, bool host_ok, const char *why, ConfigDiagFn diag,
                                  void *userdata);

/* Fills out[] from every matching file, in order, later files overriding earlier ones; what
 * out[] held before (zeroed or valid values) is dropped. Sets ret_matched (may be NULL) to the
 * matching files, up to max_matched. */
void policy_merge(const Policy *p, const LinkInfo *link, KnobValue out[_KNOB_MAX],
                  const PolicyFile **ret_matched, size_t max_matched, size_t *ret_n_matched);

/* Loads the ordered set from the four directories under root. An unreadable file is reported
 * and skipped. file (may be NULL) hears of every file found, masked ones too. Returns 0, or
 * -ENOMEM (the caller then keeps its previous set). */
int policy_load(const char *root, ConfigDiagFn diag, ConfigFileFn file, void *userdata, Policy **ret);
Policy *policy_free(Policy *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Policy *, policy_free);

int parse_ether_addr(const char *s, struct ether_addr *ret);
