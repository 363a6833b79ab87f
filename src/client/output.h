/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Aligned text tables for igmpctl. Columns are as wide as their widest cell; when the output
 * is wider than the terminal, one chosen column is shortened with an ellipsis (in the middle
 * of a path, keeping the file name and the start of its directory; else at its end). The
 * width is $COLUMNS if set, else the terminal's if stdout is one, else unlimited (pipes get
 * everything). Cells may have a colour (terminal.h); headers are underlined when colours are on.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "macro.h"
#include "terminal.h"

typedef struct Table Table;

typedef enum Ellipsize {
        ELLIPSIZE_END,  /* "NetworkManager:my-prof…" */
        ELLIPSIZE_PATH, /* "/etc/igmpd/…/50-iptv.conf"; strings without '/' as ELLIPSIZE_END */
} Ellipsize;

/* s shortened to at most width columns (a copy of s if it fits). NULL on ENOMEM. */
char *ellipsize(const char *s, size_t width, Ellipsize mode);

/* headers: NULL-terminated column titles. NULL on ENOMEM, which the functions below take
 * (table_print() returns -ENOMEM): a caller need not check. */
Table *table_new(const char *const *headers);
Table *table_free(Table *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Table *, table_free);

/* Right-align a column (numbers). */
void table_set_align_right(Table *t, size_t column);
/* The column shortened when the table is too wide, and how. */
void table_set_ellipsize(Table *t, size_t column, Ellipsize mode);

/* Adds one cell; rows fill left to right. NULL prints as "-". 0 or -ENOMEM, which the table
 * keeps: table_print() returns it, so a row's cells need no check each. */
int table_add_cell_color(Table *t, const char *s, Color color);
#define table_add_cell(t, s) table_add_cell_color(t, s, COLOR_NORMAL)
int table_add_cellf(Table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

size_t table_rows(const Table *t);

/* Prints the header (if header) and rows. 0, -EIO, or an earlier cell's -ENOMEM. */
int table_print(Table *t, FILE *f, bool header);

/* Prints "      Label: value" with the label right-aligned in label_width columns; a value too
 * long for the output width is shortened as a path ("/etc/igmpd/…/50-iptv.conf"). An empty
 * label prints a continuation line. */
void output_field_color(FILE *f, size_t label_width, const char *label, const char *value, Color color);
#define output_field(f, width, label, value) output_field_color(f, width, label, value, COLOR_NORMAL)

/* Display width of a UTF-8 string (code points; no wide characters in igmpctl's output). */
size_t utf8_width(const char *s);

/* Prints text word-wrapped to the output width, each line indented by indent spaces. */
void output_wrapped(FILE *f, size_t indent, const char *text);

/* Prints one line formatted like printf, every control character escaped (utf8_escape():
 * names come from the kernel), then a newline. For lines that quote names. */
void output_line(FILE *f, const char *format, ...) __attribute__((format(printf, 2, 3)));
