/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A small streaming JSON writer: objects, arrays, strings, integers, booleans, null. Strings are
 * bytes: with "bytes" set (igmpd's own names, paths and messages) those that are not UTF-8 and
 * '\' are written as "\xNN" (utf8_escape(), as igmpd shows them on the bus); without it (text
 * that igmpd already escaped, as igmpctl prints it) bytes that are not UTF-8 become U+FFFD.
 * Output goes to a FILE (a memstream for D-Bus replies, stdout for igmpctl). "pretty" indents
 * by two spaces; otherwise nothing but the values.
 * Errors (nesting too deep, a value where a key belongs, unbalanced ends, write failures) are
 * sticky and reported by json_writer_finish(). Never logs.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 32

typedef struct JsonWriter {
        FILE *f;
        bool pretty;
        bool bytes;                      /* strings in utf8_escape()'s form */
        unsigned depth;
        bool in_object[JSON_DEPTH_MAX]; /* per level: object (true) or array (false) */
        bool has_items[JSON_DEPTH_MAX];
        bool want_value;                 /* a key was written, its value comes next */
        bool done;                       /* a complete top-level value was written */
        int error;                       /* first error, -errno */
} JsonWriter;

#define json_writer_init(w, file, pretty_) (*(w) = (JsonWriter) { .f = (file), .pretty = (pretty_) })

void json_begin(JsonWriter *w, bool object);
void json_end(JsonWriter *w, bool object);
#define json_begin_object(w) json_begin(w, true)
#define json_end_object(w) json_end(w, true)
#define json_begin_array(w) json_begin(w, false)
#define json_end_array(w) json_end(w, false)

/* Inside an object: the key of the next value. */
void json_key(JsonWriter *w, const char *key);

/* NULL writes null. */
void json_string(JsonWriter *w, const char *s);
/* A value written as the text of format (a number, true, false, null). */
void json_value(JsonWriter *w, const char *format, ...) __attribute__((format(printf, 2, 3)));
#define json_int(w, v) json_value(w, "%" PRIi64, (int64_t) (v))
#define json_uint(w, v) json_value(w, "%" PRIu64, (uint64_t) (v))
#define json_bool(w, b) json_value(w, "%s", (b) ? "true" : "false")
#define json_null(w) json_value(w, "null")

/* Inside an object: json_key(), then the value. */
#define json_field_string(w, key, s) (json_key(w, key), json_string(w, s))
#define json_field_int(w, key, v) (json_key(w, key), json_int(w, v))
#define json_field_uint(w, key, v) (json_key(w, key), json_uint(w, v))
#define json_field_bool(w, key, b) (json_key(w, key), json_bool(w, b))
/* The value: an array of the strings of l (NULL: an empty one). */
void json_field_strv(JsonWriter *w, const char *key, const char *const *l);

/* Checks the document is complete (no trailing newline is written). 0, -EINVAL (unbalanced or misused),
 * -E2BIG (too deep) or the write error. */
int json_writer_finish(JsonWriter *w);
