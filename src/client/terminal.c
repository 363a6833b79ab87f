/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Colours, glyphs and the pager for igmpctl (see terminal.h). The rules are systemd's, so that
 * igmpctl behaves like networkctl and systemctl in the same terminal.
 */

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "conf-parser.h"
#include "macro.h"
#include "terminal.h"

#define PAGER_ARGS_MAX 16

static bool initialized, utf8, colors, stdout_tty;
static pid_t pager_pid;

static bool locale_is_utf8(void)
{
        const char *set = setlocale(LC_CTYPE, NULL);

        if (streq(nl_langinfo(CODESET), "UTF-8"))
                return true;
        /* Nobody chose a locale: everything speaks UTF-8 nowadays (as systemd assumes). A C
         * locale chosen on purpose (LANG=C) gets ASCII. */
        return !set || ((streq(set, "C") || streq(set, "POSIX")) && !getenv("LC_ALL") &&
                        !getenv("LC_CTYPE") && !getenv("LANG"));
}

static bool colors_wanted(void)
{
        const char *e = getenv("SYSTEMD_COLORS"), *term = getenv("TERM");

        if (e) {
                int b = parse_boolean(e);
                if (b >= 0)
                        return b;
                if (streq(e, "16") || streq(e, "256") || streq(e, "24bit"))
                        return true;
                /* Anything else: as if unset. */
        }
        return isempty(getenv("NO_COLOR")) && !streq_ptr(term, "dumb") && stdout_tty;
}

void terminal_init(void)
{
        if (initialized)
                return;
        initialized = true;
        (void) setlocale(LC_CTYPE, "");
        utf8 = locale_is_utf8();
        stdout_tty = isatty(STDOUT_FILENO) > 0;
        colors = colors_wanted();
}

bool terminal_is_utf8(void)
{
        terminal_init();
        return utf8;
}

const char *glyph(Glyph g)
{
        static const char *const table[_GLYPH_MAX][2] = {
                [GLYPH_BULLET] = { "*", "●" },
                [GLYPH_ELLIPSIS] = { "...", "…" },
                [GLYPH_ARROW] = { "->", "→" },
        };

        if (g < 0 || g >= _GLYPH_MAX)
                return "";
        return table[g][terminal_is_utf8()];
}

bool terminal_colors(void)
{
        terminal_init();
        return colors;
}

const char *ansi(Color c)
{
        /* The sequences systemd uses (ANSI_HIGHLIGHT_GREEN, …). */
        static const char *const table[_COLOR_MAX] = {
                [COLOR_NORMAL] = "\x1B[0m",
                [COLOR_GREEN] = "\x1B[0;1;32m",
                [COLOR_RED] = "\x1B[0;1;31m",
                [COLOR_YELLOW] = "\x1B[0;1;38;5;185m",
                [COLOR_GREY] = "\x1B[0;38;5;245m",
                [COLOR_UNDERLINE] = "\x1B[0;4m",
                [COLOR_HIGHLIGHT] = "\x1B[0;1;39m",
        };

        if (!terminal_colors() || c < 0 || c >= _COLOR_MAX)
                return "";
        return table[c];
}

Color state_color(const char *state)
{
        if (streq_ptr(state, "configured"))
                return COLOR_GREEN;
        if (streq_ptr(state, "failed"))
                return COLOR_RED;
        if (streq_ptr(state, "pending") || streq_ptr(state, "drifted"))
                return COLOR_YELLOW;
        if (streq_ptr(state, "unmanaged"))
                return COLOR_GREY;
        return COLOR_NORMAL;
}

/* The pager's own process: never returns. */
_Noreturn static void pager_child(int fd_read, const char *pager)
{
        char *copy = NULL, *args[PAGER_ARGS_MAX + 1] = {};
        static const char *const fallbacks[] = { "pager", "less", "more" };
        const char *less = getenv("SYSTEMD_LESS");
        char buf[4096];
        ssize_t n;

        if (dup2(fd_read, STDIN_FILENO) < 0)
                _exit(EXIT_FAILURE);
        if (fd_read != STDIN_FILENO)
                close(fd_read);
        /* Quit with the program that feeds us. */
        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);

        /* F: quit if one screen, R: colours, S: chop long lines, X: keep the screen, M: verbose
         * prompt, K: quit on Ctrl-C. */
        (void) setenv("LESS", less ?: "FRSXMK", 1);
        if (terminal_is_utf8() && !getenv("LESSCHARSET"))
                (void) setenv("LESSCHARSET", "utf-8", 1);

        if (pager) {
                size_t n_args = 0;
                char *save = NULL;

                copy = strdup(pager);
                for (char *w = copy ? strtok_r(copy, " \t", &save) : NULL; w && n_args < PAGER_ARGS_MAX;
                     w = strtok_r(NULL, " \t", &save))
                        args[n_args++] = w;
                if (n_args > 0) {
                        execvp(args[0], args);
                        fprintf(stderr, "Failed to run the pager '%s' (%s); trying others.\n", args[0],
                                strerror(errno));
                }
        }
        for (size_t i = 0; i < ELEMENTSOF(fallbacks); i++)
                execlp(fallbacks[i], fallbacks[i], (char *) NULL);

        /* No pager at all: copy through, so nothing is lost. */
        while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0)
                if (write(STDOUT_FILENO, buf, (size_t) n) != n)
                        break;
        _exit(EXIT_SUCCESS);
}

void pager_open(bool no_pager)
{
        const char *pager;
        int fd[2];
        pid_t pid;

        terminal_init();
        if (no_pager || pager_pid > 0 || !stdout_tty)
                return;
        pager = getenv("SYSTEMD_PAGER") ?: getenv("PAGER");
        if (pager && (pager[strspn(pager, " \t")] == '\0' || streq(pager, "cat")))
                return;

        fflush(stdout);
        if (pipe2(fd, O_CLOEXEC) < 0)
                return; /* no pager then; the output still reaches the terminal */
        pid = fork();
        if (pid < 0) {
                close(fd[0]);
                close(fd[1]);
                return;
        }
        if (pid == 0) {
                close(fd[1]);
                pager_child(fd[0], pager);
        }
        close(fd[0]);
        if (dup2(fd[1], STDOUT_FILENO) < 0) {
                close(fd[1]);
                kill(pid, SIGTERM);
                (void) waitpid(pid, NULL, 0);
                return;
        }
        close(fd[1]);
        pager_pid = pid;
}

void pager_close(void)
{
        int fd;

        if (pager_pid <= 0)
                return;
        fflush(stdout);
        /* The pager sees the end of its input when our end of the pipe goes. */
        fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
                (void) dup2(fd, STDOUT_FILENO);
                close(fd);
        } else
                close(STDOUT_FILENO);
        (void) kill(pager_pid, SIGCONT);
        while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
                ;
        pager_pid = 0;
}
