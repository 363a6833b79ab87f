/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Streaming JSON output with correct escaping; see json-writer.h.
 */

#include <errno.h>
#include <inttypes.h>

#include "json-writer.h"
#include "macro.h"

void json_writer_init(JsonWriter *w, FILE *f, bool pretty)
{
        *w = (JsonWriter) { .f = f, .pretty = pretty };
}

static void json_fail(JsonWriter *w, int error)
{
        if (w->error == 0)
                w->error = error;
}

static void json_indent(JsonWriter *w)
{
        fputc('\n', w->f);
        for (unsigned i = 0; i < w->depth; i++)
                fputs("  ", w->f);
}

/* Called before every value: separators, indentation and grammar checks. */
static bool json_before_value(JsonWriter *w)
{
        if (w->error)
                return false;
        if (w->depth == 0) {
                if (w->done) {
                        json_fail(w, -EINVAL); /* a second top-level value */
                        return false;
                }
                return true;
        }
        if (w->in_object[w->depth - 1]) {
                if (!w->want_value) {
                        json_fail(w, -EINVAL); /* value without a key */
                        return false;
                }
                w->want_value = false;
                return true;
        }
        if (w->has_items[w->depth - 1])
                fputc(',', w->f);
        if (w->pretty)
                json_indent(w);
        w->has_items[w->depth - 1] = true;
        return true;
}

static void json_after_value(JsonWriter *w)
{
        if (w->depth == 0)
                w->done = true;
}

static void json_begin(JsonWriter *w, bool object)
{
        if (!json_before_value(w))
                return;
        if (w->depth >= JSON_DEPTH_MAX) {
                json_fail(w, -E2BIG);
                return;
        }
        fputc(object ? '{' : '[', w->f);
        w->in_object[w->depth] = object;
        w->has_items[w->depth] = false;
        w->depth++;
}

static void json_end(JsonWriter *w, bool object)
{
        if (w->error)
                return;
        if (w->depth == 0 || w->in_object[w->depth - 1] != object || w->want_value) {
                json_fail(w, -EINVAL);
                return;
        }
        w->depth--;
        if (w->pretty && w->has_items[w->depth])
                json_indent(w);
        fputc(object ? '}' : ']', w->f);
        json_after_value(w);
}

void json_begin_object(JsonWriter *w)
{
        json_begin(w, true);
}

void json_end_object(JsonWriter *w)
{
        json_end(w, true);
}

void json_begin_array(JsonWriter *w)
{
        json_begin(w, false);
}

void json_end_array(JsonWriter *w)
{
        json_end(w, false);
}

/* Length of the valid UTF-8 sequence at s (1…4), or 0 if it is not one. Rejects overlong
 * forms, surrogates and code points past U+10FFFF. */
static size_t utf8_valid_len(const unsigned char *s)
{
        uint32_t cp;
        size_t n;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf) {
                n = 2;
                cp = s[0] & 0x1f;
        } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
                n = 3;
                cp = s[0] & 0x0f;
        } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
                n = 4;
                cp = s[0] & 0x07;
        } else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

void json_write_escaped(FILE *f, const char *s)
{
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                size_t n;

                switch (*p) {
                case '"':
                        fputs("\\\"", f);
                        break;
                case '\\':
                        fputs("\\\\", f);
                        break;
                case '\b':
                        fputs("\\b", f);
                        break;
                case '\f':
                        fputs("\\f", f);
                        break;
                case '\n':
                        fputs("\\n", f);
                        break;
                case '\r':
                        fputs("\\r", f);
                        break;
                case '\t':
                        fputs("\\t", f);
                        break;
                default:
                        if (*p >= 0x20 && *p < 0x7f) {
                                /* A run of plain ASCII goes out in one write (Describe() of 4000
                                 * links is ~3 MB of it). */
                                const unsigned char *q = p;

                                while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
                                        q++;
                                fwrite(p, 1, (size_t) (q - p), f);
                                p = q;
                                continue;
                        }
                        if (*p < 0x20 || *p == 0x7f) {
                                fprintf(f, "\\u%04x", *p);
                                break;
                        }
                        n = utf8_valid_len(p);
                        if (n == 0) {
                                fputs("\\ufffd", f);
                                break;
                        }
                        fwrite(p, 1, n, f);
                        p += n;
                        continue;
                }
                p++;
        }
        fputc('"', f);
}

void json_key(JsonWriter *w, const char *key)
{
        if (w->error)
                return;
        if (w->depth == 0 || !w->in_object[w->depth - 1] || w->want_value || !key) {
                json_fail(w, -EINVAL);
                return;
        }
        if (w->has_items[w->depth - 1])
                fputc(',', w->f);
        if (w->pretty)
                json_indent(w);
        json_write_escaped(w->f, key);
        fputs(w->pretty ? ": " : ":", w->f);
        w->has_items[w->depth - 1] = true;
        w->want_value = true;
}

void json_string(JsonWriter *w, const char *s)
{
        if (!s) {
                json_null(w);
                return;
        }
        if (!json_before_value(w))
                return;
        json_write_escaped(w->f, s);
        json_after_value(w);
}

void json_int(JsonWriter *w, int64_t v)
{
        if (!json_before_value(w))
                return;
        fprintf(w->f, "%" PRIi64, v);
        json_after_value(w);
}

void json_uint(JsonWriter *w, uint64_t v)
{
        if (!json_before_value(w))
                return;
        fprintf(w->f, "%" PRIu64, v);
        json_after_value(w);
}

void json_bool(JsonWriter *w, bool b)
{
        if (!json_before_value(w))
                return;
        fputs(b ? "true" : "false", w->f);
        json_after_value(w);
}

void json_null(JsonWriter *w)
{
        if (!json_before_value(w))
                return;
        fputs("null", w->f);
        json_after_value(w);
}

int json_writer_finish(JsonWriter *w)
{
        if (w->error)
                return w->error;
        if (w->depth != 0 || !w->done)
                return -EINVAL;
        if (ferror(w->f))
                return -EIO;
        return 0;
}
