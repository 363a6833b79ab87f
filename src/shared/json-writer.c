/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Streaming JSON output with correct escaping; see json-writer.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "json-writer.h"
#include "macro.h"
#include "utf8.h"

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

void json_write_escaped(FILE *f, const char *s, bool bytes)
{
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                size_t n;

                switch (*p) {
                case '"':
                        fputs("\\\"", f);
                        break;
                case '\\':
                        fputs(bytes ? "\\\\x5c" : "\\\\", f);
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
                        n = utf8_valid_len((const char *) p, SIZE_MAX);
                        if (n == 0) {
                                if (bytes)
                                        fprintf(f, "\\\\x%02x", *p);
                                else
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
        json_write_escaped(w->f, key, w->bytes);
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
        json_write_escaped(w->f, s, w->bytes);
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
