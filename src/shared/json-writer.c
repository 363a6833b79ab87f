/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Streaming JSON output with correct escaping; see json-writer.h.
 */

#include <errno.h>
#include <stdarg.h>

#include "json-writer.h"
#include "macro.h"
#include "utf8.h"

static bool json_fail(JsonWriter *w, int error)
{
        if (w->error == 0)
                w->error = error;
        return false;
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
        if (w->depth == 0)
                return !w->done || json_fail(w, -EINVAL); /* a second top-level value */
        if (w->in_object[w->depth - 1]) {
                if (!w->want_value)
                        return json_fail(w, -EINVAL); /* value without a key */
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

void json_begin(JsonWriter *w, bool object)
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

void json_end(JsonWriter *w, bool object)
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
        w->done |= w->depth == 0;
}

static void json_write_escaped(FILE *f, const char *s, bool bytes)
{
        /* The control characters JSON has a short escape for. */
        static const char short_escape[0x20] = { ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't' };

        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                const unsigned char *q = p;
                size_t n;

                /* A run of plain ASCII goes out in one write (Describe() of 4000 links is ~3 MB
                 * of it). */
                while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
                        q++;
                if (q > p) {
                        fwrite(p, 1, (size_t) (q - p), f);
                        p = q;
                        continue;
                }
                if (*p == '"')
                        fputs("\\\"", f);
                else if (*p == '\\')
                        fputs(bytes ? "\\\\x5c" : "\\\\", f);
                else if (*p < 0x20 && short_escape[*p])
                        fprintf(f, "\\%c", short_escape[*p]);
                else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\u%04x", *p);
                else if ((n = utf8_valid_len((const char *) p, SIZE_MAX)) > 0) {
                        fwrite(p, 1, n, f);
                        p += n;
                        continue;
                } else if (bytes)
                        fprintf(f, "\\\\x%02x", *p);
                else
                        fputs("\\ufffd", f);
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
        w->done |= w->depth == 0;
}

void json_value(JsonWriter *w, const char *format, ...)
{
        va_list ap;

        if (!json_before_value(w))
                return;
        va_start(ap, format);
        vfprintf(w->f, format, ap);
        va_end(ap);
        w->done |= w->depth == 0;
}

void json_field_strv(JsonWriter *w, const char *key, const char *const *l)
{
        json_key(w, key);
        json_begin_array(w);
        for (const char *const *i = l; i && *i; i++)
                json_string(w, *i);
        json_end_array(w);
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
