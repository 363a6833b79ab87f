/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What igmpctl does because a person may be looking: colours (SYSTEMD_COLORS, NO_COLOR,
 * TERM=dumb, a terminal on stdout), ASCII stand-ins for ● → … outside a UTF-8 locale, and
 * the pager (SYSTEMD_PAGER, PAGER, SYSTEMD_LESS; less -FRSXMK as systemd runs it).
 * terminal_init() decides once, before the pager takes stdout over.
 */

#include <stdbool.h>

typedef enum Glyph {
        GLYPH_BULLET,   /* ● or * */
        GLYPH_ELLIPSIS, /* … or ... */
        GLYPH_ARROW,    /* → or -> */
        _GLYPH_MAX,
} Glyph;

typedef enum Color {
        COLOR_NORMAL,
        COLOR_GREEN,
        COLOR_RED,
        COLOR_YELLOW,
        COLOR_GREY,
        COLOR_UNDERLINE,
        COLOR_HIGHLIGHT,
        _COLOR_MAX,
} Color;

/* Reads the environment and the terminal state; call first thing in main(). */
void terminal_init(void);

/* Whether the locale's character set is UTF-8. Like systemd: a C/POSIX locale nobody asked
 * for (no LC_ALL, LC_CTYPE or LANG set) counts as UTF-8. */
bool terminal_is_utf8(void);
const char *glyph(Glyph g);

/* The escape sequence for c, or "" when colours are off. ansi(COLOR_NORMAL) resets. */
bool terminal_colors(void);
const char *ansi(Color c);

/* The colour a link state is shown in. */
Color state_color(const char *state);

/* Starts the pager if stdout is a terminal and no_pager is false and the pager is not
 * "" or "cat"; from then on stdout goes to it. pager_close() flushes, closes and waits. */
void pager_open(bool no_pager);
void pager_close(void);
