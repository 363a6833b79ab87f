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

void json_writer_init(JsonWriter *w, FILE *f, bool pretty);

void json_begin_object(JsonWriter *w);
void json_end_object(JsonWriter *w);
void json_begin_array(JsonWriter *w);
void json_end_array(JsonWriter *w);

/* Inside an object: the key of the next value. */
void json_key(JsonWriter *w, const char *key);

/* NULL writes null. */
void json_string(JsonWriter *w, const char *s);
void json_int(JsonWriter *w, int64_t v);
void json_uint(JsonWriter *w, uint64_t v);
void json_bool(JsonWriter *w, bool b);
void json_null(JsonWriter *w);

/* Inside an object: json_key(), then the value. */
void json_field_string(JsonWriter *w, const char *key, const char *s);
void json_field_int(JsonWriter *w, const char *key, int64_t v);
void json_field_uint(JsonWriter *w, const char *key, uint64_t v);
void json_field_bool(JsonWriter *w, const char *key, bool b);
/* The value: an array of the strings of l (NULL: an empty one). */
void json_field_strv(JsonWriter *w, const char *key, const char *const *l);

/* Checks the document is complete (no trailing newline is written). 0, -EINVAL (unbalanced or misused),
 * -E2BIG (too deep) or the write error. */
int json_writer_finish(JsonWriter *w);

/* Writes s as a JSON string literal (with quotes) to f; bytes as in JsonWriter. */
void json_write_escaped(FILE *f, const char *s, bool bytes);
