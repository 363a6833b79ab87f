/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON writer (escaping, nesting, pretty and short forms, misuse) and the link shape
 * shared by Describe() and igmpctl --json.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json-link.h"
#include "json-writer.h"
#include "macro.h"

typedef struct Out {
        char *buf;
        size_t size;
        FILE *f;
        JsonWriter w;
} Out;

static void out_open(Out *o, bool pretty)
{
        *o = (Out) {};
        o->f = open_memstream(&o->buf, &o->size);
        cr_assert_not_null(o->f);
        json_writer_init(&o->w, o->f, pretty);
}

/* Finishes and returns the text (owned by o). */
static const char *out_close(Out *o, int *ret)
{
        *ret = json_writer_finish(&o->w);
        fclose(o->f);
        return o->buf;
}

static const struct {
        const char *in, *out;
} escape_cases[] = {
        { "", "\"\"" },
        { "plain", "\"plain\"" },
        { "quote\"back\\slash", "\"quote\\\"back\\\\slash\"" },
        { "nl\ntab\tcr\r", "\"nl\\ntab\\tcr\\r\"" },
        { "\b\f", "\"\\b\\f\"" },
        { "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
        { "/etc/igmpd/conf.d/10-site.conf", "\"/etc/igmpd/conf.d/10-site.conf\"" },
        { "grüß €", "\"grüß €\"" },
        { "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },           /* U+1F600, 4 bytes */
        { "bad\xff", "\"bad\\ufffd\"" },                           /* invalid byte */
        { "cut\xc3", "\"cut\\ufffd\"" },                           /* truncated sequence */
        { "\xc0\xaf", "\"\\ufffd\\ufffd\"" },                      /* overlong '/' */
        { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },           /* surrogate */
        { "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
};

/* With bytes set (igmpd's own strings): utf8_escape()'s form, as on the bus. */
static const struct {
        const char *in, *out;
} bytes_cases[] = {
        { "plain", "\"plain\"" },
        { "back\\slash", "\"back\\\\x5cslash\"" },                  /* '\' is "\x5c" */
        { "a\\xff", "\"a\\\\x5cxff\"" },                             /* the five characters … */
        { "a\xff", "\"a\\\\xff\"" },                                  /* … and a with 0xff differ */
        { "cut\xc3", "\"cut\\\\xc3\"" },
        { "grüß\t\x01", "\"grüß\\t\\u0001\"" },                      /* controls as JSON has them */
};

Test(json, escaping_bytes)
{
        for (size_t i = 0; i < ELEMENTSOF(bytes_cases); i++) {
                Out o;
                int r;

                out_open(&o, false);
                o.w.bytes = true;
                json_string(&o.w, bytes_cases[i].in);
                const char *s = out_close(&o, &r);
                cr_expect_eq(r, 0);
                cr_expect_str_eq(s, bytes_cases[i].out, "case %zu", i);
                free(o.buf);
        }
}

Test(json, escaping)
{
        for (size_t i = 0; i < ELEMENTSOF(escape_cases); i++) {
                Out o;
                int r;

                out_open(&o, false);
                json_string(&o.w, escape_cases[i].in);
                const char *s = out_close(&o, &r);
                cr_expect_eq(r, 0);
                cr_expect_str_eq(s, escape_cases[i].out, "case %zu", i);
                free(o.buf);
        }
}

static void write_sample(JsonWriter *w)
{
        json_begin_object(w);
        json_key(w, "a");
        json_int(w, -1);
        json_key(w, "b");
        json_begin_array(w);
        json_uint(w, 18446744073709551615ULL);
        json_bool(w, true);
        json_null(w);
        json_string(w, NULL);
        json_end_array(w);
        json_key(w, "empty");
        json_begin_object(w);
        json_end_object(w);
        json_key(w, "none");
        json_begin_array(w);
        json_end_array(w);
        json_end_object(w);
}

Test(json, short_form)
{
        Out o;
        int r;

        out_open(&o, false);
        write_sample(&o.w);
        cr_expect_str_eq(out_close(&o, &r),
                         "{\"a\":-1,\"b\":[18446744073709551615,true,null,null],\"empty\":{},\"none\":[]}");
        cr_expect_eq(r, 0);
        free(o.buf);
}

Test(json, pretty_form)
{
        Out o;
        int r;

        out_open(&o, true);
        write_sample(&o.w);
        cr_expect_str_eq(out_close(&o, &r), "{\n"
                                            "  \"a\": -1,\n"
                                            "  \"b\": [\n"
                                            "    18446744073709551615,\n"
                                            "    true,\n"
                                            "    null,\n"
                                            "    null\n"
                                            "  ],\n"
                                            "  \"empty\": {},\n"
                                            "  \"none\": []\n"
                                            "}");
        cr_expect_eq(r, 0);
        free(o.buf);
}

Test(json, misuse_is_reported)
{
        Out o;
        int r;

        /* value without key */
        out_open(&o, false);
        json_begin_object(&o.w);
        json_int(&o.w, 1);
        json_end_object(&o.w);
        out_close(&o, &r);
        cr_expect_eq(r, -EINVAL);
        free(o.buf);

        /* key in an array */
        out_open(&o, false);
        json_begin_array(&o.w);
        json_key(&o.w, "x");
        out_close(&o, &r);
        cr_expect_eq(r, -EINVAL);
        free(o.buf);

        /* unbalanced */
        out_open(&o, false);
        json_begin_array(&o.w);
        out_close(&o, &r);
        cr_expect_eq(r, -EINVAL);
        free(o.buf);

        /* mismatched end */
        out_open(&o, false);
        json_begin_array(&o.w);
        json_end_object(&o.w);
        out_close(&o, &r);
        cr_expect_eq(r, -EINVAL);
        free(o.buf);

        /* key without value */
        out_open(&o, false);
        json_begin_object(&o.w);
        json_key(&o.w, "k");
        json_end_object(&o.w);
        out_close(&o, &r);
        cr_expect_eq(r, -EINVAL);
        free(o.buf);

        /* two top-level values */
        out_open(&o, false);
        json_int(&o.w, 1);
        json_int(&o.w, 2);
        out_close(&o, &r);
        cr_expect_eq(r, -EINVAL);
        free(o.buf);

        /* nothing at all */
        out_open(&o, false);
        out_close(&o, &r);
        cr_expect_eq(r, -EINVAL);
        free(o.buf);

        /* too deep */
        out_open(&o, false);
        for (int i = 0; i < JSON_DEPTH_MAX + 1; i++)
                json_begin_array(&o.w);
        out_close(&o, &r);
        cr_expect_eq(r, -E2BIG);
        free(o.buf);
}

Test(json, link_shape)
{
        const char *files[] = { "/etc/igmpd/conf.d/10-site.conf", NULL };
        const char *altnames[] = { "uplink", NULL };
        LinkStatus s = {
                .ifindex = 3,
                .name = "v0",
                .alternative_names = altnames,
                .kind = "",
                .type = "ether",
                .mac_address = "02:00:00:00:00:01",
                .state = "configured",
                .last_error = NULL,
                .matched_files = files,
        };
        Out o;
        int r;

        for (Knob k = 0; k < _KNOB_MAX; k++)
                s.knobs[k] = (KnobStatus) { .kernel = KNOB_STATUS_UNKNOWN, .policy = KNOB_STATUS_UNKNOWN };
        s.knobs[KNOB_IGMPV3_INTERVAL] = (KnobStatus) { .kernel = 200, .policy = 200, .source = "runtime" };
        s.knobs[KNOB_IGMPV2_INTERVAL] =
                (KnobStatus) { .kernel = 10000, .policy = KNOB_STATUS_UNKNOWN, .source = "" };
        /* Drifted: someone else's value. Not drifted: an MLD interval read back at the tick. */
        s.knobs[KNOB_IGMP_VERSION] = (KnobStatus) { .kernel = 2, .policy = 3, .source = "runtime" };
        s.knobs[KNOB_MLDV2_INTERVAL] = (KnobStatus) { .kernel = 252, .policy = 250, .source = "runtime" };

        out_open(&o, false);
        json_write_link(&o.w, &s);
        cr_expect_str_eq(
                out_close(&o, &r),
                "{\"index\":3,\"name\":\"v0\",\"alternative_names\":[\"uplink\"],\"kind\":null,"
                "\"type\":\"ether\",\"mac_address\":\"02:00:00:00:00:01\",\"state\":\"configured\",\"knobs\":{"
                "\"igmpv2_unsolicited_report_interval\":{\"kernel\":10000,\"policy\":null,\"source\":null,"
                "\"drifted\":false},"
                "\"igmpv3_unsolicited_report_interval\":{\"kernel\":200,\"policy\":200,\"source\":"
                "\"runtime\",\"drifted\":false},"
                "\"force_igmp_version\":{\"kernel\":2,\"policy\":3,\"source\":\"runtime\",\"drifted\":true},"
                "\"mldv1_unsolicited_report_interval\":{\"kernel\":null,\"policy\":null,\"source\":null,"
                "\"drifted\":false},"
                "\"mldv2_unsolicited_report_interval\":{\"kernel\":252,\"policy\":250,\"source\":\"runtime\","
                "\"drifted\":false},"
                "\"force_mld_version\":{\"kernel\":null,\"policy\":null,\"source\":null,\"drifted\":false}},"
                "\"matched_files\":[\"/etc/igmpd/conf.d/10-site.conf\"],\"last_error\":null,"
                "\"ignored_sources\":[]}");
        cr_expect_eq(r, 0);
        free(o.buf);

        /* A NetworkManager profile ignored on the link (a user's): its source and why. */
        s.ignored_source = "NetworkManager:home: it belongs to user:alice (connection.permissions)";
        out_open(&o, false);
        json_write_link(&o.w, &s);
        cr_expect(strstr(out_close(&o, &r), "\"last_error\":null,\"ignored_sources\":[\"NetworkManager:home: it "
                                            "belongs to user:alice (connection.permissions)\"]}") != NULL);
        free(o.buf);
        s.ignored_source = NULL;

        /* A link without alternative names, type or MAC address: [], null, null. */
        s.alternative_names = NULL;
        s.type = NULL;
        s.mac_address[0] = '\0';
        out_open(&o, false);
        json_write_link(&o.w, &s);
        cr_expect(strstr(out_close(&o, &r),
                         "\"alternative_names\":[],\"kind\":null,\"type\":null,\"mac_address\":null,") != NULL);
        free(o.buf);
}
