/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Table output for igmpctl (see output.h).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "array-util.h"
#include "macro.h"
#include "output.h"
#include "utf8.h"

#define TABLE_GAP 2
#define TABLE_ELLIPSIZE_MIN 8

typedef struct Cell {
        char *text;
        Color color;
} Cell;

struct Table {
        size_t n_columns;
        Cell *cells; /* headers first, then rows */
        size_t n_cells, n_allocated;
        uint64_t right; /* a bit per right-aligned column (of the first 64) */
        size_t ellipsize_column;
        Ellipsize ellipsize_mode;
        int error; /* the first failure to add a cell: table_print() returns it */
};

Table *table_new(const char *const *headers)
{
        Table *t;
        size_t n = 0;

        while (headers[n])
                n++;
        t = calloc(1, sizeof *t);
        if (!t)
                return NULL;
        t->n_columns = n;
        t->ellipsize_column = n > 0 ? n - 1 : 0;
        for (size_t i = 0; i < n; i++)
                if (table_add_cell(t, headers[i]) < 0)
                        return table_free(t);
        return t;
}

Table *table_free(Table *t)
{
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_cells; i++)
                free(t->cells[i].text);
        free(t->cells);
        free(t);
        return NULL;
}

void table_set_align_right(Table *t, size_t column)
{
        if (t && column < MIN(t->n_columns, (size_t) 64))
                t->right |= UINT64_C(1) << column;
}

void table_set_ellipsize(Table *t, size_t column, Ellipsize mode)
{
        if (!t)
                return;
        t->ellipsize_column = column;
        t->ellipsize_mode = mode;
}

/* Adds the cell c, already escaped (NULL: out of memory). */
static int table_take_cell(Table *t, char *c, Color color)
{
        if (!t || !c || ARRAY_GROW(t->cells, t->n_allocated, t->n_cells, 16) < 0) {
                free(c);
                return t ? (t->error = -ENOMEM) : -ENOMEM;
        }
        t->cells[t->n_cells++] = (Cell) { c, color };
        return 0;
}

int table_add_cell_color(Table *t, const char *s, Color color)
{
        /* Names come from the kernel: never a control character raw to the terminal. */
        return table_take_cell(t, utf8_escape_dup(s ?: "-", UTF8_ESCAPE_SHOWN), color);
}

int table_add_cellf(Table *t, const char *fmt, ...)
{
        va_list ap;
        char *c;

        va_start(ap, fmt);
        c = utf8_escape_vasprintf(UTF8_ESCAPE_SHOWN, fmt, ap);
        va_end(ap);
        return table_take_cell(t, c, COLOR_NORMAL);
}

size_t table_rows(const Table *t)
{
        return t->n_columns ? t->n_cells / t->n_columns - 1 : 0;
}

size_t utf8_width(const char *s)
{
        size_t w = 0;

        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if ((*p & 0xc0) != 0x80)
                        w++;
        return w;
}

/* The output width (output.h), SIZE_MAX when unlimited. Asked once per run, as systemd's
 * columns() does: status of 4000 links asks for every table. */
static size_t output_columns(void)
{
        static size_t cached;
        const char *e = getenv("COLUMNS");
        struct winsize ws = {};

        if (cached)
                return cached;
        cached = SIZE_MAX;
        if (e) {
                char *end;
                unsigned long v = strtoul(e, &end, 10);
                if (*e && *end == '\0' && v > 0 && v < 100000)
                        return cached = v;
        }
        if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) >= 0 && ws.ws_col > 0)
                cached = ws.ws_col;
        return cached;
}

/* Byte offset of the n-th code point of s. */
static size_t utf8_offset(const char *s, size_t n)
{
        size_t i = 0;

        for (; s[i]; i++)
                if (((unsigned char) s[i] & 0xc0) != 0x80) {
                        if (n == 0)
                                return i;
                        n--;
                }
        return i;
}

/* Copies the code points [from, to) of s to out. */
static char *append_range(char *out, const char *s, size_t from, size_t to)
{
        size_t a = utf8_offset(s, from), b = utf8_offset(s, to);

        memcpy(out, s + a, b - a);
        return out + (b - a);
}

char *ellipsize(const char *s, size_t width, Ellipsize mode)
{
        const char *ell = glyph(GLYPH_ELLIPSIS), *slash = strrchr(s, '/');
        size_t w = utf8_width(s), e = utf8_width(ell);
        char *out, *p;

        if (w <= width)
                return strdup(s);
        out = malloc(strlen(s) + strlen(ell) + 1);
        if (!out)
                return NULL;
        p = out;
        if (width <= e)
                /* No room even for the ellipsis: the start, cut. */
                p = append_range(p, s, 0, width);
        else if (mode == ELLIPSIZE_PATH && slash && slash != s) {
                /* Keep the file name ("/50-iptv.conf") and as much of the start as fits. */
                size_t base = utf8_width(slash);

                if (base + e < width) {
                        size_t keep = width - e - base;

                        /* End the start at a '/' when that loses little: "/etc/igmpd/…/x.conf"
                         * reads better than "/etc/igmpd/co…/x.conf". */
                        for (size_t i = keep; i > 1 && keep - i < 8; i--)
                                if (s[utf8_offset(s, i - 1)] == '/') {
                                        keep = i;
                                        break;
                                }
                        p = append_range(p, s, 0, keep);
                        p = stpcpy(p, ell);
                        p = append_range(p, s, w - base, w);
                } else {
                        /* Even the file name is too long: its end, which tells files apart. */
                        p = stpcpy(p, ell);
                        p = append_range(p, s, w - (width - e), w);
                }
        } else {
                p = append_range(p, s, 0, width - e);
                p = stpcpy(p, ell);
        }
        *p = '\0';
        return out;
}

/* Prints a cell; padding is deferred through *pending so that no line ends in spaces. */
static void print_cell(FILE *f, const char *s, Color color, size_t width, bool right, Ellipsize mode,
                       size_t *pending)
{
        char *shortened = NULL;
        size_t w = utf8_width(s);

        if (w > width) {
                shortened = ellipsize(s, width, mode);
                if (!shortened)
                        return;
                s = shortened;
                w = utf8_width(s);
        }
        if (right)
                *pending += width - w;
        if (w > 0) {
                fprintf(f, "%*s", (int) *pending, "");
                *pending = 0;
                fprintf(f, "%s%s%s", color ? ansi(color) : "", s, color ? ansi(COLOR_NORMAL) : "");
        }
        if (!right)
                *pending += width - w;
        free(shortened);
}

void output_field_color(FILE *f, size_t label_width, const char *label, const char *value, Color color)
{
        size_t columns = output_columns(), used = label_width + 2;
        char *shortened = NULL, *escaped;

        /* As table cells: no control character raw to the terminal. */
        escaped = utf8_escape_dup(value, UTF8_ESCAPE_SHOWN);
        value = escaped ?: "(out of memory)";
        fprintf(f, "%*s%s ", (int) label_width, label, *label ? ":" : " ");
        if (columns != SIZE_MAX && used + utf8_width(value) > columns && columns > used + TABLE_ELLIPSIZE_MIN) {
                shortened = ellipsize(value, columns - used, ELLIPSIZE_PATH);
                if (shortened)
                        value = shortened;
        }
        fprintf(f, "%s%s%s\n", color ? ansi(color) : "", value, color ? ansi(COLOR_NORMAL) : "");
        free(shortened);
        free(escaped);
}

int table_print(Table *t, FILE *f, bool header)
{
        size_t *widths, total = 0, columns = output_columns(), n_rows;

        if (!t || t->error < 0 || t->n_columns == 0)
                return t ? t->error : -ENOMEM;
        n_rows = t->n_cells / t->n_columns;
        widths = calloc(t->n_columns, sizeof *widths);
        if (!widths)
                return -ENOMEM;
        for (size_t r = header ? 0 : 1; r < n_rows; r++)
                for (size_t c = 0; c < t->n_columns; c++)
                        widths[c] = MAX(widths[c], utf8_width(t->cells[r * t->n_columns + c].text));
        for (size_t c = 0; c < t->n_columns; c++)
                total += widths[c] + (c > 0 ? TABLE_GAP : 0);

        if (total > columns && t->ellipsize_column < t->n_columns) {
                size_t excess = total - columns, *w = &widths[t->ellipsize_column];
                *w = *w > excess + TABLE_ELLIPSIZE_MIN ? *w - excess : MIN(*w, (size_t) TABLE_ELLIPSIZE_MIN);
        }

        for (size_t r = header ? 0 : 1; r < n_rows; r++) {
                size_t pending = 0;

                for (size_t c = 0; c < t->n_columns; c++) {
                        const Cell *cell = &t->cells[r * t->n_columns + c];

                        if (c > 0)
                                pending += TABLE_GAP;
                        print_cell(f, cell->text, r == 0 ? COLOR_UNDERLINE : cell->color, widths[c],
                                   c < 64 && (t->right & (UINT64_C(1) << c)), c == t->ellipsize_column ? t->ellipsize_mode : ELLIPSIZE_END,
                                   &pending);
                }
                fputc('\n', f);
        }
        free(widths);
        return ferror(f) ? -EIO : 0;
}

void output_wrapped(FILE *f, size_t indent, const char *text)
{
        size_t columns = output_columns();
        size_t width = columns == SIZE_MAX ? SIZE_MAX : MAX(columns, indent + 20) - indent;

        for (const char *p = text + strspn(text, " "); *p; p += strspn(p, " ")) {
                size_t n = utf8_offset(p, width);

                if (p[n] && p[n] != ' ') {
                        /* Break at the last space that fits; a word longer than the line stays whole. */
                        const char *space = memrchr(p, ' ', n);

                        n = space ? (size_t) (space - p) : strcspn(p, " ");
                }
                fprintf(f, "%*s%.*s\n", (int) indent, "", (int) n, p);
                p += n;
        }
}

void output_line(FILE *f, const char *format, ...)
{
        _cleanup_free_ char *e = NULL;
        va_list ap;

        va_start(ap, format);
        e = utf8_escape_vasprintf(UTF8_ESCAPE_SHOWN, format, ap);
        va_end(ap);
        fprintf(f, "%s\n", e ?: "(out of memory)");
}
