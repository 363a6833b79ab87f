/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-parser.h"
#include "policy.h"

static char diags[4096];

static void diag(void *userdata, const char *file, unsigned line, const char *msg)
{
        size_t l = strlen(diags);
        snprintf(diags + l, sizeof diags - l, "%s:%u: %s\n", file ?: "-", line, msg);
}

/* The problems reported since diags was emptied: one line each. */
static unsigned n_diags(void)
{
        unsigned n = 0;

        for (const char *p = diags; (p = strchr(p, '\n')); p++)
                n++;
        return n;
}

static PolicyFile *parse(const char *text)
{
        PolicyFile *f = NULL;
        diags[0] = '\0';
        cr_assert_eq(policy_file_parse("/etc/igmpd/conf.d/t.conf", text, strlen(text), diag, NULL, &f), 0);
        return f;
}

Test(policy, every_key_and_unit)
{
        _cleanup_(policy_file_freep) PolicyFile *f = parse(
                "[IGMP]\n"
                "V2UnsolicitedReportInterval=2s\n"
                "V3UnsolicitedReportInterval=200ms\n"
                "Version=3\n"
                "[MLD]\n"
                "V1UnsolicitedReportInterval=1.5s\n"
                "V2UnsolicitedReportInterval=250\n"
                "Version=auto\n");
        cr_expect_str_eq(diags, "");
        cr_expect_eq(f->knobs[KNOB_IGMPV2_INTERVAL].value, 2000);
        cr_expect_eq(f->knobs[KNOB_IGMPV2_INTERVAL].line, 2);
        cr_expect_eq(f->knobs[KNOB_IGMPV3_INTERVAL].value, 200);
        cr_expect_eq(f->knobs[KNOB_IGMP_VERSION].value, 3);
        cr_expect_eq(f->knobs[KNOB_MLDV1_INTERVAL].value, 1500);
        cr_expect_eq(f->knobs[KNOB_MLDV2_INTERVAL].value, 250);
        cr_expect_eq(f->knobs[KNOB_MLD_VERSION].value, 0);
        cr_expect_eq(f->knobs[KNOB_MLD_VERSION].line, 8);
        cr_expect_str_eq(f->path, "/etc/igmpd/conf.d/t.conf");
        cr_expect_str_eq(refstr_str(f->source), "/etc/igmpd/conf.d/t.conf");
}

static const struct {
        const char *text;
        const char *diag;
} error_cases[] = {
        { "[IGMP]\nV3UnsolicitedReportInterval=0\n",
          "t.conf:2: V3UnsolicitedReportInterval=0 is out of range (1ms…2147483647ms), ignoring.\n" },
        { "[IGMP]\nV3UnsolicitedReportInterval=2147483648\n",
          "t.conf:2: V3UnsolicitedReportInterval=2147483648 is out of range (1ms…2147483647ms), ignoring.\n" },
        { "[IGMP]\nV2UnsolicitedReportInterval=soon\n",
          "t.conf:2: Invalid V2UnsolicitedReportInterval= value 'soon' (expected a duration such as 200, 200ms or 1.5s), ignoring.\n" },
        { "[IGMP]\nVersion=4\n", "t.conf:2: Version=4 is out of range (auto, 1, 2 or 3), ignoring.\n" },
        { "[MLD]\nVersion=3\n", "t.conf:2: Version=3 is out of range (auto, 1 or 2), ignoring.\n" },
        { "[MLD]\nVersion=two\n", "t.conf:2: Invalid Version= value 'two' (expected auto, 1 or 2), ignoring.\n" },
        { "[IGMP]\nFoo=1\n", "t.conf:2: Unknown key 'Foo' in section [IGMP], ignoring.\n" },
        { "[MLD]\nV3UnsolicitedReportInterval=1\n",
          "t.conf:2: Unknown key 'V3UnsolicitedReportInterval' in section [MLD], ignoring.\n" },
};

Test(policy, error_messages)
{
        for (size_t i = 0; i < ELEMENTSOF(error_cases); i++) {
                _cleanup_(policy_file_freep) PolicyFile *f = parse(error_cases[i].text);
                const char *d = strstr(diags, "t.conf:");
                cr_expect(d && streq(d, error_cases[i].diag), "case %zu: got '%s'", i, diags);
                for (Knob k = 0; k < _KNOB_MAX; k++)
                        cr_expect_eq(f->knobs[k].line, 0, "case %zu: a bad value was kept", i);
        }
}

/* Mistakes that could make a file apply more widely than written skip the whole file: the
 * file matches no link at all (it used to lose its [Match] and apply to every link). */
static const struct {
        const char *text;
        const char *diag;
} skip_cases[] = {
        { "[Match]\nColor=red\n[IGMP]\nVersion=2\n",
          "t.conf:2: Unknown key 'Color' in section [Match] (expected Name=, Kind=, Type=, MACAddress= or Namespace=), file skipped.\n" },
        { "[Match]\nNmae=stb1\n[IGMP]\nVersion=2\n",
          "t.conf:2: Unknown key 'Nmae' in section [Match] (expected Name=, Kind=, Type=, MACAddress= or Namespace=), file skipped.\n" },
        { "[Match]\nMACAddress=00:11:22:33:44:5g\n[IGMP]\nVersion=2\n",
          "t.conf:2: Invalid MAC address '00:11:22:33:44:5g' in MACAddress=, file skipped.\n" },
        { "[Match]\nMACAddress=02:00:00:00:00:01 zz:00:00:00:00:00\n[IGMP]\nVersion=2\n",
          "t.conf:2: Invalid MAC address 'zz:00:00:00:00:00' in MACAddress=, file skipped.\n" },
        { "[Match]\nName=\n[IGMP]\nVersion=2\n", "t.conf:2: Name= in [Match] has no value, file skipped.\n" },
        { "[Match]\nName=!\n[IGMP]\nVersion=2\n", "t.conf:2: Name= in [Match] has no value, file skipped.\n" },
        { "[Match]\nName=eth0\nName=   \n", "t.conf:3: Name= in [Match] has no value, file skipped.\n" },
        { "[Match]\nKind=\n", "t.conf:2: Kind= in [Match] has no value, file skipped.\n" },
        { "[Match]\nType=\n", "t.conf:2: Type= in [Match] has no value, file skipped.\n" },
        { "[Match]\nMACAddress=\n", "t.conf:2: MACAddress= in [Match] has no value, file skipped.\n" },
        { "[Match]\nName=eth[\n", "t.conf:2: Invalid pattern 'eth[' in Name= ('[' without ']'), file skipped.\n" },
        { "[Match]\nName=eth0 iptv[0-9\n", "t.conf:2: Invalid pattern 'iptv[0-9' in Name= ('[' without ']'), file skipped.\n" },
        { "[Match]\nName=eth\\\n", "t.conf:2: Invalid pattern 'eth\\' in Name= (trailing '\\'), file skipped.\n" },
        { "[Mtach]\nName=stb1\n[IGMP]\nVersion=2\n", "t.conf:1: Unknown section [Mtach], file skipped.\n" },
        { "[Network]\nX=1\n", "t.conf:1: Unknown section [Network], file skipped.\n" },
        { "[Match\nName=stb1\n[IGMP]\nVersion=2\n", "t.conf:1: Invalid section header '[Match', file skipped.\n" },
        { "Name=stb1\n[IGMP]\nVersion=2\n", "t.conf:1: Assignment outside of a section, file skipped.\n" },
        { "[Match]\nName stb1\n[IGMP]\nVersion=2\n",
          "t.conf:2: Missing '=' in 'Name stb1' in section [Match], file skipped.\n" },
};

Test(policy, widening_mistakes_skip_the_file)
{
        char *alt[] = { "enp3s0", NULL };
        struct ether_addr mac = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } };
        const LinkInfo links[] = {
                { .name = "eth0", .type = "ether", .altnames = alt, .mac = &mac, .kind = "veth" },
                { .name = "stb1", .type = "ether" },
                { .name = "eth[", .type = "none" },
                { .name = "lo", .type = "loopback", .loopback = true },
        };

        for (size_t i = 0; i < ELEMENTSOF(skip_cases); i++) {
                _cleanup_(policy_file_freep) PolicyFile *f = parse(skip_cases[i].text);
                const char *d = strstr(diags, "t.conf:");
                cr_expect(d && streq(d, skip_cases[i].diag), "case %zu: got '%s'", i, diags);
                cr_expect(f->match.invalid, "case %zu: file not marked invalid", i);
                for (size_t j = 0; j < ELEMENTSOF(links); j++)
                        cr_expect(!policy_match(&f->match, &links[j]), "case %zu matches %s", i, links[j].name);
        }
}

/* Mistakes in [IGMP]/[MLD] do not widen anything: only the line is ignored. */
Test(policy, knob_mistakes_keep_the_file)
{
        _cleanup_(policy_file_freep) PolicyFile *f = parse(
                "[Match]\nName=stb1\n[IGMP]\nV3UnsolicitedReportIntervall=200\nVersion 2\nVersion=3\n");
        LinkInfo stb1 = { .name = "stb1", .type = "ether" };

        cr_expect(!f->match.invalid);
        cr_expect(strstr(diags, "t.conf:4: Unknown key 'V3UnsolicitedReportIntervall' in section [IGMP], ignoring.") != NULL);
        cr_expect(strstr(diags, "t.conf:5: Missing '=' in 'Version 2', ignoring.") != NULL);
        cr_expect(policy_match(&f->match, &stb1));
        cr_expect_eq(f->knobs[KNOB_IGMP_VERSION].value, 3);
}

static bool matches(const char *match_text, const LinkInfo *info);

Test(policy, empty_match_section_is_everything_but_loopback)
{
        LinkInfo eth0 = { .name = "eth0", .type = "ether" };
        LinkInfo lo = { .name = "lo", .type = "loopback", .loopback = true };

        cr_expect(matches("[Match]\n# Name=stb1\n[IGMP]\nVersion=2\n", &eth0));
        cr_expect(!matches("[Match]\n[IGMP]\nVersion=2\n", &lo));
}

Test(policy, bad_value_keeps_rest_of_file)
{
        _cleanup_(policy_file_freep) PolicyFile *f = parse(
                "[IGMP]\nV3UnsolicitedReportInterval=-5\nV2UnsolicitedReportInterval=3s\n");
        cr_expect(strstr(diags, "t.conf:2:") != NULL);
        cr_expect_eq(f->knobs[KNOB_IGMPV3_INTERVAL].line, 0);
        cr_expect_eq(f->knobs[KNOB_IGMPV2_INTERVAL].value, 3000);
}

Test(policy, later_assignment_wins_empty_resets)
{
        _cleanup_(policy_file_freep) PolicyFile *f = parse(
                "[IGMP]\nV3UnsolicitedReportInterval=100\nV3UnsolicitedReportInterval=300\n"
                "V2UnsolicitedReportInterval=1s\nV2UnsolicitedReportInterval=\n");
        cr_expect_eq(f->knobs[KNOB_IGMPV3_INTERVAL].value, 300);
        cr_expect_eq(f->knobs[KNOB_IGMPV2_INTERVAL].line, 0);
}

static bool matches(const char *match_text, const LinkInfo *info)
{
        _cleanup_(policy_file_freep) PolicyFile *f = parse(match_text);
        return policy_match(&f->match, info);
}

Test(policy, match_name_globs_and_invert)
{
        char *alt[] = { "enp3s0", NULL };
        LinkInfo eth0 = { .name = "eth0", .type = "ether" };
        LinkInfo eth0_alt = { .name = "eth0", .altnames = alt, .type = "ether" };
        LinkInfo lo = { .name = "lo", .type = "loopback", .loopback = true };

        cr_expect(matches("[Match]\nName=eth0\n", &eth0));
        cr_expect(matches("[Match]\nName=eth*\n", &eth0));
        cr_expect(matches("[Match]\nName=wlan0 eth?\n", &eth0));
        cr_expect(!matches("[Match]\nName=eth1\n", &eth0));
        cr_expect(matches("[Match]\nName=eth[0-3]\n", &eth0));
        cr_expect(!matches("[Match]\nName=!eth*\n", &eth0));
        cr_expect(matches("[Match]\nName=!wlan* iptv*\n", &eth0));
        cr_expect(matches("[Match]\nName=enp*\n", &eth0_alt));  /* alternative names count */
        cr_expect(!matches("[Match]\nName=!enp*\n", &eth0_alt));
        cr_expect(matches("[Match]\nName=eth1\nName=eth0\n", &eth0)); /* lists accumulate */
        cr_expect(matches("[Match]\nName=eth[!1-3]\n", &eth0));
        cr_expect(matches("[Match]\nName=eth[]0]\n", &eth0));
        cr_expect(matches("[Match]\nName=eth\\0\n", &eth0));
        /* Name=* is an explicit condition: it matches loopback too. */
        cr_expect(matches("[Match]\nName=*\n", &lo));
}

Test(policy, match_namespace)
{
        LinkInfo host = { .name = "eth0", .type = "ether" };
        LinkInfo pod = { .name = "eth0", .type = "ether", .netns = "cni-1234" };
        LinkInfo other = { .name = "eth0", .type = "ether", .netns = "blue" };
        LinkInfo podlo = { .name = "lo", .type = "loopback", .loopback = true, .netns = "cni-1234" };

        /* Without Namespace=, a file stays in igmpd's own namespace, whatever else it says. */
        cr_expect(matches("[IGMP]\nVersion=2\n", &host));
        cr_expect(!matches("[IGMP]\nVersion=2\n", &pod));
        cr_expect(!matches("[Match]\nName=*\n", &pod));
        cr_expect(!matches("[Match]\nName=eth0\n", &other));
        cr_expect(matches("[Match]\nNamespace=cni-*\n", &pod));
        cr_expect(!matches("[Match]\nNamespace=cni-*\n", &other));
        cr_expect(!matches("[Match]\nNamespace=cni-*\n", &host));
        cr_expect(!matches("[Match]\nNamespace=cni-*\n", &podlo)); /* still not loopback */
        cr_expect(matches("[Match]\nNamespace=.host\n", &host));
        cr_expect(!matches("[Match]\nNamespace=.host\n", &pod));
        cr_expect(matches("[Match]\nNamespace=.host blue\n", &other));
        cr_expect(matches("[Match]\nNamespace=*\n", &host));
        cr_expect(matches("[Match]\nNamespace=cni-*\nName=eth0\n", &pod));
        cr_expect(!matches("[Match]\nNamespace=cni-*\nName=eth1\n", &pod));
}

Test(policy, bad_namespace_skips_file)
{
        static const struct {
                const char *text, *diag;
        } cases[] = {
                { "[Match]\nNamespace=\n", "t.conf:2: Namespace= in [Match] has no value, file skipped.\n" },
                { "[Match]\nNamespace=cni-[\n", "t.conf:2: Invalid pattern 'cni-[' in Namespace= ('[' without ']'), file skipped.\n" },
                { "[Match]\nNamespace=a/b\n", "t.conf:2: Invalid pattern 'a/b' in Namespace= (a namespace name has no '/'), file skipped.\n" },
                { "[Match]\nNamspace=cni-*\n", "t.conf:2: Unknown key 'Namspace' in section [Match] (expected Name=, Kind=, Type=, MACAddress= or Namespace=), file skipped.\n" },
        };
        LinkInfo pod = { .name = "eth0", .type = "ether", .netns = "cni-1234" };

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                _cleanup_(policy_file_freep) PolicyFile *f = parse(cases[i].text);
                cr_expect(f->match.invalid, "%s", cases[i].text);
                cr_expect(strstr(diags, cases[i].diag) != NULL, "%s", diags);
                cr_expect(!policy_match(&f->match, &pod));
        }
}

Test(policy, absent_match_is_everything_but_loopback)
{
        LinkInfo eth0 = { .name = "eth0", .type = "ether" };
        LinkInfo lo = { .name = "lo", .type = "loopback", .loopback = true };

        cr_expect(matches("[IGMP]\nVersion=2\n", &eth0));
        cr_expect(!matches("[IGMP]\nVersion=2\n", &lo));
        cr_expect(!matches("[Match]\n[IGMP]\nVersion=2\n", &lo));
}

Test(policy, match_kind_type_mac_all_must_match)
{
        struct ether_addr mac = { { 0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc } };
        LinkInfo v = { .name = "v0", .kind = "veth", .type = "ether", .mac = &mac };
        LinkInfo nokind = { .name = "eth0", .type = "ether" };

        cr_expect(matches("[Match]\nKind=veth\n", &v));
        cr_expect(matches("[Match]\nKind=bridge veth\n", &v));
        cr_expect(!matches("[Match]\nKind=bridge\n", &v));
        cr_expect(!matches("[Match]\nKind=veth\n", &nokind));
        cr_expect(matches("[Match]\nType=ether\n", &v));
        cr_expect(!matches("[Match]\nType=none\n", &v));
        cr_expect(matches("[Match]\nMACAddress=02:00:00:AA:BB:CC\n", &v));
        cr_expect(matches("[Match]\nMACAddress=02-00-00-aa-bb-cc 00:11:22:33:44:55\n", &v));
        cr_expect(!matches("[Match]\nMACAddress=00:11:22:33:44:55\n", &v));
        cr_expect(matches("[Match]\nName=v*\nKind=veth\nType=ether\n", &v));
        cr_expect(!matches("[Match]\nName=v*\nKind=vlan\n", &v));
        cr_expect(!matches("[Match]\nName=x*\nKind=veth\n", &v));
}

static Policy *policy_of(const char *const *texts, size_t n)
{
        Policy *p = calloc(1, sizeof *p);
        p->files = calloc(n, sizeof *p->files);
        for (size_t i = 0; i < n; i++) {
                char path[64];
                snprintf(path, sizeof path, "/etc/igmpd/conf.d/%02zu.conf", i * 10);
                cr_assert_eq(policy_file_parse(path, texts[i], strlen(texts[i]), diag, NULL, &p->files[i]), 0);
                p->n_files++;
        }
        return p;
}

Test(policy, merge_later_file_wins_per_key)
{
        const char *texts[] = {
                "[Match]\nName=*\n[IGMP]\nV3UnsolicitedReportInterval=1s\nV2UnsolicitedReportInterval=5s\n",
                "[Match]\nName=iptv0\n[IGMP]\nV3UnsolicitedReportInterval=200ms\n",
                "[Match]\nName=other\n[IGMP]\nV2UnsolicitedReportInterval=1\n",
        };
        _cleanup_(policy_freep) Policy *p = policy_of(texts, ELEMENTSOF(texts));
        LinkInfo iptv = { .name = "iptv0", .type = "ether" };
        LinkInfo eth = { .name = "eth0", .type = "ether" };
        KnobValue out[_KNOB_MAX] = {};
        const PolicyFile *matched[4];
        size_t n;

        policy_merge(p, &iptv, out, matched, 4, &n);
        cr_expect_eq(n, 2);
        cr_expect_eq(matched[0], p->files[0]);
        cr_expect_eq(matched[1], p->files[1]);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 200);
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV3_INTERVAL]), "/etc/igmpd/conf.d/10.conf");
        cr_expect_eq(out[KNOB_IGMPV2_INTERVAL].value, 5000);
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV2_INTERVAL]), "/etc/igmpd/conf.d/00.conf");
        cr_expect(!out[KNOB_MLDV2_INTERVAL].set);

        policy_merge(p, &eth, out, NULL, 0, &n);
        cr_expect_eq(n, 1);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 1000);
        cr_expect(!out[KNOB_MLDV2_INTERVAL].set);
        knob_values_clear(out);
}

/* A merged value holds its own reference to the file's path: it outlives the policy set. */
Test(policy, merged_source_outlives_the_policy)
{
        const char *texts[] = { "[IGMP]\nV3UnsolicitedReportInterval=300\n" };
        Policy *p = policy_of(texts, ELEMENTSOF(texts));
        LinkInfo l = { .name = "eth0", .type = "ether" };
        KnobValue out[_KNOB_MAX] = {};

        policy_merge(p, &l, out, NULL, 0, NULL);
        policy_free(p);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 300);
        cr_expect_str_eq(knob_value_source(&out[KNOB_IGMPV3_INTERVAL]), "/etc/igmpd/conf.d/00.conf");
        knob_values_clear(out);
        cr_expect(!out[KNOB_IGMPV3_INTERVAL].set);
        cr_expect_null(out[KNOB_IGMPV3_INTERVAL].source);
}

/* Directory precedence and masking, on a real tree below a temp root. */
static char root[64];

static void put(const char *dir, const char *name, const char *text)
{
        char path[256], cmd[300];
        snprintf(cmd, sizeof cmd, "mkdir -p %s%s", root, dir);
        cr_assert_eq(system(cmd), 0);
        snprintf(path, sizeof path, "%s%s/%s", root, dir, name);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs(text, f);
        fclose(f);
}

static void setup_root(void)
{
        snprintf(root, sizeof root, "/tmp/igmpd-unit-policy.XXXXXX");
        cr_assert_not_null(mkdtemp(root));
}

static void teardown_root(void)
{
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", root);
        (void) system(cmd);
}

Test(policy, directories_override_mask_and_order, .init = setup_root, .fini = teardown_root)
{
        char link[256];
        _cleanup_(policy_freep) Policy *p = NULL;

        put("/usr/lib/igmpd/conf.d", "10-site.conf", "[IGMP]\nV3UnsolicitedReportInterval=900\n");
        put("/etc/igmpd/conf.d", "10-site.conf", "[IGMP]\nV3UnsolicitedReportInterval=800\n"); /* wins */
        put("/usr/lib/igmpd/conf.d", "05-early.conf", "[IGMP]\nV2UnsolicitedReportInterval=7s\n");
        put("/run/igmpd/conf.d", "50-iptv.conf", "[IGMP]\nV3UnsolicitedReportInterval=200\n");
        put("/usr/local/lib/igmpd/conf.d", "30-masked.conf", "[IGMP]\nVersion=2\n");
        put("/etc/igmpd/conf.d", "30-masked.conf", "");                 /* empty file masks */
        put("/usr/lib/igmpd/conf.d", "40-null.conf", "[IGMP]\nVersion=1\n");
        snprintf(link, sizeof link, "%s/run/igmpd/conf.d/40-null.conf", root);
        cr_assert_eq(symlink("/dev/null", link), 0);                    /* /dev/null symlink masks */
        put("/etc/igmpd/conf.d", "notes.txt", "[IGMP]\nVersion=3\n");   /* not *.conf */

        cr_assert_eq(policy_load(root, diag, NULL, NULL, &p), 0);
        cr_assert_eq(p->n_files, 3);
        cr_expect(strstr(p->files[0]->path, "/usr/lib/igmpd/conf.d/05-early.conf") != NULL);
        cr_expect(strstr(p->files[1]->path, "/etc/igmpd/conf.d/10-site.conf") != NULL);
        cr_expect(strstr(p->files[2]->path, "/run/igmpd/conf.d/50-iptv.conf") != NULL);
        cr_expect_eq(p->n_masked, 2);

        LinkInfo l = { .name = "x", .type = "ether" };
        KnobValue out[_KNOB_MAX] = {};
        policy_merge(p, &l, out, NULL, 0, NULL);
        cr_expect_eq(out[KNOB_IGMPV3_INTERVAL].value, 200);
        cr_expect_eq(out[KNOB_IGMPV2_INTERVAL].value, 7000);
        cr_expect(!out[KNOB_IGMP_VERSION].set);
        knob_values_clear(out);
}

Test(policy, unreadable_and_oversized_files_are_skipped, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        char path[256];

        put("/etc/igmpd/conf.d", "10-good.conf", "[IGMP]\nVersion=2\n");
        put("/etc/igmpd/conf.d", "20-dir.conf", "x");
        snprintf(path, sizeof path, "%s/etc/igmpd/conf.d/20-dir.conf", root);
        unlink(path);
        cr_assert_eq(mkdir(path, 0755), 0); /* a directory named *.conf is not a file */
        snprintf(path, sizeof path, "%s/etc/igmpd/conf.d/30-loop.conf", root);
        cr_assert_eq(symlink("30-loop.conf", path), 0); /* symlink loop */
        snprintf(path, sizeof path, "%s/etc/igmpd/conf.d/40-big.conf", root);
        FILE *f = fopen(path, "w");
        for (int i = 0; i < 200000; i++)
                fputs("# padding\n", f); /* 2 MB */
        fclose(f);

        diags[0] = '\0';
        cr_assert_eq(policy_load(root, diag, NULL, NULL, &p), 0);
        cr_expect_eq(p->n_files, 1);
        cr_expect(strstr(diags, "30-loop.conf:0: Failed to read file") != NULL, "%s", diags);
        cr_expect(strstr(diags, "40-big.conf:0: Failed to read file: larger than 1 MiB, ignoring.") != NULL, "%s", diags);
        cr_expect_eq(n_diags(), 2, "%s", diags);
}

static char files_seen[4096];

static void file_seen(void *userdata, const char *path, ConfigFileUse use)
{
        static const char *const words[] = { "used", "skipped", "masked" };
        const char *name = strrchr(path, '/');
        size_t off = strlen(files_seen);

        snprintf(files_seen + off, sizeof files_seen - off, "%s %s\n", name ? name + 1 : path, words[use]);
}

/* Every file found is told, in the order read, with what became of it (igmpd --check lists
 * them); masked names are told first, by the path that masks them. */
Test(policy, every_file_found_is_told, .init = setup_root, .fini = teardown_root)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        char path[256];

        put("/etc/igmpd/conf.d", "10-good.conf", "[IGMP]\nVersion=2\n");
        put("/etc/igmpd/conf.d", "20-typo.conf", "[IGMP]\nVersion=7\n");       /* a bad line: still used */
        put("/etc/igmpd/conf.d", "30-widen.conf", "[Mtach]\nName=x\n");          /* skipped whole */
        put("/usr/lib/igmpd/conf.d", "40-masked.conf", "[IGMP]\nVersion=1\n");
        put("/etc/igmpd/conf.d", "40-masked.conf", "");
        snprintf(path, sizeof path, "%s/etc/igmpd/conf.d/50-loop.conf", root);
        cr_assert_eq(symlink("50-loop.conf", path), 0);                         /* unreadable */

        files_seen[0] = '\0';
        cr_assert_eq(policy_load(root, diag, file_seen, NULL, &p), 0);
        cr_expect_str_eq(files_seen, "40-masked.conf masked\n"
                                     "10-good.conf used\n"
                                     "20-typo.conf used\n"
                                     "30-widen.conf skipped\n"
                                     "50-loop.conf skipped\n");
        cr_expect_eq(p->n_files, 2);
        cr_expect_eq(p->n_skipped, 1);
}

Test(policy, ether_addr)
{
        struct ether_addr a;
        cr_expect_eq(parse_ether_addr("00:11:22:33:44:55", &a), 0);
        cr_expect_eq(a.ether_addr_octet[5], 0x55);
        cr_expect_eq(parse_ether_addr("00-11-22-33-44-5F", &a), 0);
        cr_expect_eq(a.ether_addr_octet[5], 0x5f);
        cr_expect_eq(parse_ether_addr("00:11-22:33:44:55", &a), -EINVAL);
        cr_expect_eq(parse_ether_addr("00:11:22:33:44", &a), -EINVAL);
        cr_expect_eq(parse_ether_addr("0011.2233.4455", &a), -EINVAL);
}

Test(policy, robustness_in_a_namespace_file)
{
        _cleanup_(policy_file_freep) PolicyFile *f = parse("[IGMP]\nRobustness=3\nV3UnsolicitedReportInterval=200\n"
                                                           "[MLD]\nRobustness=7\n");
        _cleanup_(policy_file_freep) PolicyFile *g = parse("[Match]\n[IGMP]\nRobustness=1\n");

        cr_expect_str_eq(diags, "");
        cr_expect_eq(f->ns_knobs[NS_KNOB_IGMP_QRV].value, 3);
        cr_expect_eq(f->ns_knobs[NS_KNOB_IGMP_QRV].line, 2);
        cr_expect_eq(f->ns_knobs[NS_KNOB_MLD_QRV].value, 7);
        cr_expect_eq(f->ns_knobs[NS_KNOB_MLD_QRV].line, 5);
        cr_expect_eq(f->knobs[KNOB_IGMPV3_INTERVAL].value, 200);
        /* Robustness is no link knob. */
        for (Knob k = 0; k < _KNOB_MAX; k++)
                cr_expect(k == KNOB_IGMPV3_INTERVAL || f->knobs[k].line == 0);
        cr_expect_eq(g->ns_knobs[NS_KNOB_IGMP_QRV].value, 1);
}

static const struct {
        const char *text;
        const char *diag;
} robustness_errors[] = {
        { "[IGMP]\nRobustness=0\n", "t.conf:2: Invalid Robustness= value '0' (expected a number from 1 to 7), ignoring.\n" },
        { "[IGMP]\nRobustness=8\n", "t.conf:2: Invalid Robustness= value '8' (expected a number from 1 to 7), ignoring.\n" },
        { "[MLD]\nRobustness=two\n", "t.conf:2: Invalid Robustness= value 'two' (expected a number from 1 to 7), ignoring.\n" },
        { "[MLD]\nRobustness=-2\n", "t.conf:2: Invalid Robustness= value '-2' (expected a number from 1 to 7), ignoring.\n" },
        /* In a file that matches links, wherever [Match] is. */
        { "[Match]\nName=eth0\n[IGMP]\nRobustness=3\n",
          "t.conf:4: Robustness= in [IGMP] sets net.ipv4.igmp_qrv, one value per network namespace: not allowed in "
          "a file whose [Match] names links (Name=, Kind=, Type=, MACAddress=), ignoring.\n" },
        { "[MLD]\nRobustness=3\n[Match]\nKind=veth\n",
          "t.conf:2: Robustness= in [MLD] sets net.ipv6.mld_qrv, one value per network namespace: not allowed in "
          "a file whose [Match] names links (Name=, Kind=, Type=, MACAddress=), ignoring.\n" },
        { "[Match]\nType=ether\n[IGMP]\nRobustness=3\n", "t.conf:4: Robustness= in [IGMP] sets net.ipv4.igmp_qrv" },
        { "[Match]\nMACAddress=02:00:00:00:00:01\n[IGMP]\nRobustness=3\n", "t.conf:4: Robustness= in [IGMP] sets net.ipv4.igmp_qrv" },
        { "[Match]\nName=!lo\n[IGMP]\nRobustness=3\n", "t.conf:4: Robustness= in [IGMP] sets net.ipv4.igmp_qrv" },
};

Test(policy, robustness_problems_keep_the_rest_of_the_file)
{
        for (size_t i = 0; i < ELEMENTSOF(robustness_errors); i++) {
                char text[256];
                PolicyFile *f = NULL;

                snprintf(text, sizeof text, "%s[IGMP]\nV3UnsolicitedReportInterval=200\n", robustness_errors[i].text);
                diags[0] = '\0';
                cr_assert_eq(policy_file_parse("/etc/igmpd/conf.d/t.conf", text, strlen(text), diag, NULL, &f), 0);
                const char *d = strstr(diags, "t.conf:");
                cr_expect(d && strncmp(d, robustness_errors[i].diag, strlen(robustness_errors[i].diag)) == 0,
                          "case %zu: got '%s'", i, diags);
                cr_expect_eq(n_diags(), 1, "case %zu: got '%s'", i, diags);
                cr_expect(!f->match.invalid, "case %zu: the file was skipped", i);
                for (NsKnob k = 0; k < _NS_KNOB_MAX; k++)
                        cr_expect_eq(f->ns_knobs[k].line, 0, "case %zu: the line was kept", i);
                cr_expect_eq(f->knobs[KNOB_IGMPV3_INTERVAL].value, 200, "case %zu: the rest did not apply", i);
                policy_file_free(f);
        }
}

Test(policy, robustness_not_in_runtime_files)
{
        KnobSetting knobs[_KNOB_MAX];
        const char *text = "[IGMP]\nRobustness=3\nV3UnsolicitedReportInterval=100\n";

        diags[0] = '\0';
        cr_assert_eq(knob_settings_parse("/run/igmpd/runtime.d/eth0.conf", text, strlen(text), diag, NULL, knobs), 0);
        cr_expect_eq(n_diags(), 1, "got '%s'", diags);
        cr_expect(strstr(diags, "eth0.conf:2: Robustness= sets net.ipv4.igmp_qrv, one value per network namespace: "
                                "not in a file for one link, ignoring."), "got '%s'", diags);
        cr_expect_eq(knobs[KNOB_IGMPV3_INTERVAL].value, 100);
}

Test(policy, merge_namespace_later_file_wins)
{
        const char *texts[] = {
                "[IGMP]\nRobustness=3\n[MLD]\nRobustness=4\n",
                "[Match]\nName=eth0\n[IGMP]\nRobustness=6\n",   /* a problem: never merged */
                "[Match]\n[IGMP]\nRobustness=5\n",
                "[IGMP]\nV3UnsolicitedReportInterval=100\n",
        };
        _cleanup_(policy_freep) Policy *p = policy_of(texts, ELEMENTSOF(texts));
        KnobValue out[_NS_KNOB_MAX] = {};

        policy_merge_namespace(p, NULL, out);
        cr_expect_eq(out[NS_KNOB_IGMP_QRV].value, 5);
        cr_expect_str_eq(knob_value_source(&out[NS_KNOB_IGMP_QRV]), "/etc/igmpd/conf.d/20.conf");
        cr_expect_eq(out[NS_KNOB_MLD_QRV].value, 4);
        cr_expect_str_eq(knob_value_source(&out[NS_KNOB_MLD_QRV]), "/etc/igmpd/conf.d/00.conf");

        /* mld_qrv where the namespace has none: each line is a problem, and nothing is wanted. */
        diags[0] = '\0';
        policy_refuse_namespace_knob(p, NS_KNOB_MLD_QRV, false, "is not here", diag, NULL);
        cr_expect_str_eq(diags, "/etc/igmpd/conf.d/00.conf:4: Robustness= in [MLD] is not here, ignoring.\n");
        cr_expect_eq(n_diags(), 1, "%s", diags);
        policy_merge_namespace(p, NULL, out);
        cr_expect(!out[NS_KNOB_MLD_QRV].set);
        cr_expect_null(out[NS_KNOB_MLD_QRV].source);
        cr_expect_eq(out[NS_KNOB_IGMP_QRV].value, 5);

        policy_merge_namespace(NULL, NULL, out);
        cr_expect(!out[NS_KNOB_IGMP_QRV].set);
}

/* Robustness= follows Namespace= like every key: a file without it is igmpd's own namespace's
 * only, a file for pods never sets the host's igmp_qrv, and mld_qrv (the host's alone) in a file
 * for other namespaces is a problem. */
Test(policy, merge_namespace_by_namespace)
{
        const char *texts[] = {
                "[IGMP]\nRobustness=2\n",
                "[Match]\nNamespace=cni-*\n[IGMP]\nRobustness=4\n[MLD]\nRobustness=4\n",
                "[Match]\nNamespace=.host cni-b\n[IGMP]\nRobustness=6\n",
        };
        _cleanup_(policy_freep) Policy *p = policy_of(texts, ELEMENTSOF(texts));
        KnobValue out[_NS_KNOB_MAX] = {};

        policy_merge_namespace(p, NULL, out);
        cr_expect_eq(out[NS_KNOB_IGMP_QRV].value, 6);
        cr_expect(!out[NS_KNOB_MLD_QRV].set);
        policy_merge_namespace(p, "cni-a", out);
        cr_expect_eq(out[NS_KNOB_IGMP_QRV].value, 4);
        policy_merge_namespace(p, "cni-b", out);
        cr_expect_eq(out[NS_KNOB_IGMP_QRV].value, 6);
        policy_merge_namespace(p, "pod", out);
        cr_expect(!out[NS_KNOB_IGMP_QRV].set);

        diags[0] = '\0';
        policy_refuse_namespace_knob(p, NS_KNOB_MLD_QRV, true, "is for other namespaces", diag, NULL);
        cr_expect_str_eq(diags, "/etc/igmpd/conf.d/10.conf:6: Robustness= in [MLD] is for other namespaces, ignoring.\n");
        policy_merge_namespace(p, "cni-a", out);
        cr_expect(!out[NS_KNOB_MLD_QRV].set);
        cr_expect_eq(out[NS_KNOB_IGMP_QRV].value, 4);
        for (NsKnob k = 0; k < _NS_KNOB_MAX; k++)
                refstr_unref(out[k].source);
}
