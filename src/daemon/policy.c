/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Policy files: parse, load in order, match, merge.
 */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "conf-parser.h"
#include "parse-util.h"
#include "policy.h"
#include "strv.h"

const char *const policy_dirs[] = {
        "/etc/igmpd/conf.d",
        "/run/igmpd/conf.d",
        "/usr/local/lib/igmpd/conf.d",
        "/usr/lib/igmpd/conf.d",
        NULL,
};

static const char *const policy_sections[] = { "Match", "IGMP", "MLD", NULL };
static const char *const knob_sections[] = { "IGMP", "MLD", NULL };
/* Policy files are parsed strictly: a structural mistake anywhere, or a malformed line in
 * [Match], skips the file (see ConfigContext.strict_sections). */
static const char *const policy_strict_sections[] = { "Match", NULL };

int parse_ether_addr(const char *s, struct ether_addr *ret)
{
        struct ether_addr a;
        char sep = 0;

        if (!s || strlen(s) != 17)
                return -EINVAL;
        for (int i = 0; i < 6; i++) {
                const char *p = s + i * 3;
                uint64_t v;

                if (parse_unsigned_range(p, p + 2, 16, UINT8_MAX, &v) < 0)
                        return -EINVAL;
                if (i < 5) {
                        if (p[2] != ':' && p[2] != '-')
                                return -EINVAL;
                        if (sep && p[2] != sep)
                                return -EINVAL;
                        sep = p[2];
                }
                a.ether_addr_octet[i] = (uint8_t) v;
        }
        *ret = a;
        return 0;
}

PolicyFile *policy_file_free(PolicyFile *f)
{
        if (!f)
                return NULL;
        strv_free(f->match.names);
        strv_free(f->match.kinds);
        strv_free(f->match.types);
        strv_free(f->match.namespaces);
        free(f->match.macs);
        refstr_unref(f->source);
        free(f);
        return NULL;
}

/* Whether [Match] has a condition on links (Name=, Kind=, Type=, MACAddress=): such a file
 * cannot set a namespace knob. */
static bool policy_match_names_links(const PolicyMatch *m)
{
        return m->names || m->kinds || m->types || m->n_macs > 0;
}

typedef struct ParseState {
        PolicyMatch *match;       /* NULL for runtime files */
        KnobSetting *knobs;
        KnobSetting *ns_knobs;    /* NULL for runtime files (one link each) */
} ParseState;

/* A link knob, or a namespace knob (NsKnob) in a file that may set one. */
static int parse_knob(ConfigContext *ctx, ParseState *s, const char *section, const char *key, const char *value)
{
        Knob k = knob_from_config_key(section, key);
        NsKnob nk = ns_knob_from_config_key(section, key);
        KnobSetting *setting;
        int32_t v;
        int r;

        if (nk >= 0 && !s->ns_knobs) {
                config_diag(ctx, "%s= sets %s, one value per network namespace: not in a file for one link, ignoring.",
                            key, ns_knob_sysctl_name(nk));
                return -EINVAL;
        }
        if (nk < 0 && k < 0) {
                config_diag(ctx, "Unknown key '%.64s' in section [%s], ignoring.", key, section);
                return -EINVAL;
        }
        setting = nk >= 0 ? &s->ns_knobs[nk] : &s->knobs[k];
        if (isempty(value)) {
                /* An empty assignment resets the key, as in systemd. */
                *setting = (KnobSetting) {};
                return 0;
        }
        r = nk >= 0 ? ns_knob_parse_value(nk, value, &v) : knob_parse_value(k, value, &v);
        if (r < 0 && nk >= 0)
                config_diag(ctx, "Invalid %s= value '%.64s' (expected a number from %d to %d), ignoring.", key, value,
                            NS_KNOB_QRV_MIN, NS_KNOB_QRV_MAX);
        else if (r == -ERANGE)
                config_diag(ctx, "%s=%.64s is out of range (%s), ignoring.", key, value, knob_range_string(k));
        else if (r < 0)
                config_diag(ctx, "Invalid %s= value '%.64s' (expected %s), ignoring.", key, value,
                            knob_info(k)->kind == KNOB_KIND_INTERVAL ? "a duration such as 200, 200ms or 1.5s"
                                                                     : knob_range_string(k));
        if (r < 0)
                return r;
        *setting = (KnobSetting) { .value = v, .line = ctx->line };
        return 0;
}

/* fnmatch() takes an unterminated '[' literally, so "eth[" would silently match nothing (or,
 * after '!', everything): refuse it instead. Returns why the pattern is invalid, or NULL. */
static const char *glob_invalid_reason(const char *p)
{
        for (; *p; p++) {
                if (*p == '\\') {
                        if (!*++p)
                                return "trailing '\\'";
                        continue;
                }
                if (*p != '[')
                        continue;
                p++;
                if (*p == '!' || *p == '^')
                        p++;
                if (*p == ']')
                        p++;
                while (*p && *p != ']')
                        p++;
                if (!*p)
                        return "'[' without ']'";
        }
        return NULL;
}

/* Every problem in [Match] skips the whole file: ignoring a bad condition would make the file
 * apply to more links than written. */
static int parse_match(ConfigContext *ctx, PolicyMatch *m, const char *key, const char *value)
{
        _cleanup_strv_free_ char **words = NULL;
        bool name = streq(key, "Name"), netns = streq(key, "Namespace"), invert = name && *value == '!';
        char ***list = NULL; /* where the words go; NULL for MACAddress= */
        int r;

        if (name || netns)
                list = name ? &m->names : &m->namespaces;
        else if (streq(key, "Kind"))
                list = &m->kinds;
        else if (streq(key, "Type"))
                list = &m->types;
        else if (!streq(key, "MACAddress")) {
                config_diag_invalid(ctx, "Unknown key '%.64s' in section [Match] (expected Name=, Kind=, Type=, "
                                    "MACAddress= or Namespace=), file skipped.", key);
                return -EINVAL;
        }
        value += invert;
        r = strv_extend_words(&words, value);
        if (r < 0)
                return r;
        if (!words) {
                config_diag_invalid(ctx, "%s= in [Match] has no value, file skipped.", key);
                return -EINVAL;
        }

        for (char **w = words; (name || netns) && *w; w++) {
                const char *why = glob_invalid_reason(*w);
                if (!why && netns && (strchr(*w, '/') || strlen(*w) > NAME_MAX))
                        why = strchr(*w, '/') ? "a namespace name has no '/'" : "too long";
                if (why) {
                        config_diag_invalid(ctx, "Invalid pattern '%.64s' in %s= (%s), file skipped.", *w, key, why);
                        return -EINVAL;
                }
        }
        m->names_invert = m->names_invert || invert;
        if (list)
                return strv_extend_words(list, value);

        struct ether_addr *macs = reallocarray(m->macs, m->n_macs + strv_length(words), sizeof *macs);
        if (!macs)
                return -ENOMEM;
        m->macs = macs;
        for (char **w = words; *w; w++)
                if (parse_ether_addr(*w, &m->macs[m->n_macs++]) < 0) {
                        config_diag_invalid(ctx, "Invalid MAC address '%.64s' in MACAddress=, file skipped.", *w);
                        return -EINVAL;
                }
        return 0;
}

static int policy_item(ConfigContext *ctx, const char *section, const char *key, const char *value)
{
        ParseState *s = ctx->item_userdata;

        if (streq(section, "Match")) {
                if (!s->match) {
                        config_diag(ctx, "[Match] is not allowed in this file, ignoring.");
                        return -EINVAL;
                }
                return parse_match(ctx, s->match, key, value);
        }
        return parse_knob(ctx, s, section, key, value);
}

/* A policy file (with [Match]) or a runtime file. */
static int parse_common(const char *path, const char *buf, size_t len, ConfigDiagFn diag, void *userdata,
                        ParseState *state)
{
        ConfigContext ctx = {
                .filename = path,
                .item = policy_item,
                .diag = diag,
                .userdata = userdata,
                .item_userdata = state,
                .sections = state->match ? policy_sections : knob_sections,
                .strict_sections = state->match ? policy_strict_sections : NULL,
        };
        int r;

        r = config_parse_buffer(&ctx, buf, len);
        if (state->match)
                state->match->invalid = ctx.invalid;
        return r;
}

int policy_file_parse(const char *path, const char *buf, size_t len, ConfigDiagFn diag, void *userdata,
                      PolicyFile **ret)
{
        _cleanup_(policy_file_freep) PolicyFile *f = NULL;
        int r;

        f = calloc(1, sizeof *f);
        if (!f)
                return -ENOMEM;
        f->source = refstr_new(path);
        if (!f->source)
                return -ENOMEM;
        f->path = refstr_str(f->source);

        ParseState state = { .match = &f->match, .knobs = f->knobs, .ns_knobs = f->ns_knobs };
        r = parse_common(path, buf, len, diag, userdata, &state);
        if (r < 0)
                return r;

        /* Known only once the whole file is read: [Match] may come after the line. */
        for (NsKnob k = 0; k < _NS_KNOB_MAX && !f->match.invalid && policy_match_names_links(&f->match); k++) {
                if (f->ns_knobs[k].line == 0)
                        continue;
                config_diagf(diag, userdata, path, f->ns_knobs[k].line,
                             "%s= in [%s] sets %s, one value per network namespace: not allowed in a file whose "
                             "[Match] names links (Name=, Kind=, Type=, MACAddress=), ignoring.",
                             ns_knob_info(k)->key, ns_knob_info(k)->section, ns_knob_sysctl_name(k));
                f->ns_knobs[k] = (KnobSetting) {};
        }

        *ret = TAKE_PTR(f);
        return 0;
}

int knob_settings_parse(const char *path, const char *buf, size_t len, ConfigDiagFn diag, void *userdata,
                        KnobSetting ret[_KNOB_MAX])
{
        KnobSetting knobs[_KNOB_MAX] = {};
        ParseState state = { .knobs = knobs };
        int r;

        r = parse_common(path, buf, len, diag, userdata, &state);
        if (r < 0)
                return r;
        memcpy(ret, knobs, sizeof knobs);
        return 0;
}

static bool policy_match_netns(const PolicyMatch *m, const char *netns)
{
        return m->namespaces ? strv_fnmatch(m->namespaces, netns ?: POLICY_HOST_NETNS) : netns == NULL;
}

void policy_merge_namespace(const Policy *p, const char *netns, KnobValue out[static _NS_KNOB_MAX])
{
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++) {
                refstr_unref(out[k].source);
                out[k] = (KnobValue) {};
        }
        for (size_t i = 0; p && i < p->n_files; i++) {
                const PolicyFile *f = p->files[i];

                if (f->match.invalid || policy_match_names_links(&f->match) || !policy_match_netns(&f->match, netns))
                        continue;
                knob_settings_overlay(f->ns_knobs, _NS_KNOB_MAX, f->source, out);
        }
}

void policy_refuse_namespace_knob(Policy *p, NsKnob k, bool host_ok, const char *why, ConfigDiagFn diag,
                                  void *userdata)
{
        for (size_t i = 0; p && i < p->n_files; i++) {
                PolicyFile *f = p->files[i];

                if (f->ns_knobs[k].line == 0 || (host_ok && policy_match_netns(&f->match, NULL)))
                        continue;
                config_diagf(diag, userdata, f->path, f->ns_knobs[k].line, "%s= in [%s] %s, ignoring.",
                             ns_knob_info(k)->key, ns_knob_info(k)->section, why);
                f->ns_knobs[k] = (KnobSetting) {};
        }
}

bool policy_match(const PolicyMatch *m, const LinkInfo *link)
{
        if (m->invalid)
                return false;

        if (!policy_match_netns(m, link->netns))
                return false;

        /* No condition at all: every link but loopback. */
        if (!policy_match_names_links(m))
                return !link->loopback;

        if (m->names) {
                bool hit = strv_fnmatch(m->names, link->name);
                for (char *const *a = link->altnames; !hit && a && *a; a++)
                        hit = strv_fnmatch(m->names, *a);
                if (hit == m->names_invert)
                        return false;
        }
        if (m->kinds && !strv_contains(m->kinds, link->kind))
                return false;
        if (m->types && !strv_contains(m->types, link->type))
                return false;
        if (m->n_macs > 0) {
                bool hit = false;
                for (size_t i = 0; link->mac && i < m->n_macs; i++)
                        if (memcmp(&m->macs[i], link->mac, sizeof(struct ether_addr)) == 0)
                                hit = true;
                if (!hit)
                        return false;
        }
        return true;
}

void knob_value_set(KnobValue *v, int32_t value, RefStr *source)
{
        RefStr *old = v->source;

        *v = (KnobValue) { .value = value, .set = true, .source = refstr_ref(source) };
        refstr_unref(old);
}

void knob_settings_overlay(const KnobSetting *knobs, size_t n, RefStr *source, KnobValue *out)
{
        for (size_t k = 0; k < n; k++)
                if (knobs[k].line > 0)
                        knob_value_set(&out[k], knobs[k].value, source);
}

void knob_values_clear(KnobValue v[_KNOB_MAX])
{
        for (Knob k = 0; k < _KNOB_MAX; k++) {
                refstr_unref(v[k].source);
                v[k] = (KnobValue) {};
        }
}

void policy_merge(const Policy *p, const LinkInfo *link, KnobValue out[_KNOB_MAX],
                  const PolicyFile **ret_matched, size_t max_matched, size_t *ret_n_matched)
{
        size_t n_matched = 0;

        knob_values_clear(out);

        for (size_t i = 0; p && i < p->n_files; i++) {
                const PolicyFile *f = p->files[i];

                if (!policy_match(&f->match, link))
                        continue;
                if (ret_matched && n_matched < max_matched)
                        ret_matched[n_matched] = f;
                n_matched++;
                knob_settings_overlay(f->knobs, _KNOB_MAX, f->source, out);
        }
        if (ret_n_matched)
                *ret_n_matched = n_matched;
}

Policy *policy_free(Policy *p)
{
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_files; i++)
                policy_file_free(p->files[i]);
        free(p->files);
        free(p);
        return NULL;
}

int policy_load(const char *root, ConfigDiagFn diag, ConfigFileFn file, void *userdata, Policy **ret)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_(conf_file_list_done) ConfFileList list = {};
        int r;

        p = calloc(1, sizeof *p);
        if (!p)
                return -ENOMEM;

        r = conf_files_list(root, policy_dirs, ".conf", &list);
        if (r < 0)
                return r;
        p->n_masked = list.n_masked;
        for (size_t i = 0; file && i < list.n_masked; i++)
                file(userdata, list.masked[i].path, CONFIG_FILE_MASKED);
        if (list.n_dropped > 0)
                config_diagf(diag, userdata, NULL, 0, "Too many policy files, ignoring %zu beyond the first %d.",
                             list.n_dropped, CONF_FILES_MAX);

        p->files = calloc(list.n ?: 1, sizeof *p->files);
        if (!p->files)
                return -ENOMEM;

        for (size_t i = 0; i < list.n; i++) {
                _cleanup_free_ char *buf = NULL;
                size_t len;
                PolicyFile *f;

                r = config_read_file(list.files[i].path, &buf, &len);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        config_read_failed(diag, file, userdata, list.files[i].path, r);
                        continue;
                }

                r = policy_file_parse(list.files[i].path, buf, len, diag, userdata, &f);
                if (r < 0)
                        return r;
                if (file)
                        file(userdata, list.files[i].path, f->match.invalid ? CONFIG_FILE_SKIPPED : CONFIG_FILE_USED);
                if (f->match.invalid) {
                        /* Already reported line by line ("…, file skipped."). */
                        p->n_skipped++;
                        policy_file_free(f);
                        continue;
                }
                p->files[p->n_files++] = f;
        }

        *ret = TAKE_PTR(p);
        return 0;
}
