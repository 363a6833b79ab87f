/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Waiting for the bus socket to appear (see bus-watch.h). Owns the parsed socket path, the
 * inotify descriptor and its event source, which exist only while armed, and the one watch
 * descriptor: on the socket's directory (IN_CREATE, IN_MOVED_TO, IN_ATTRIB, IN_DELETE,
 * IN_MOVED_FROM, acted on for the socket's name only) or, while a directory on the way is
 * missing, on the deepest existing ancestor (IN_CREATE, IN_MOVED_TO, acted on for the missing
 * component only, so a busy /run costs a read and a compare). The watched directory going away
 * (IN_DELETE_SELF, IN_MOVE_SELF, IN_IGNORED) or a queue overflow re-aims the watch from scratch.
 *
 * Aiming is race-free: after adding a watch the path is examined again, so a directory created
 * between the check and inotify_add_watch() is followed at once rather than missed.
 */

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "bus-watch.h"

#define BUS_WATCH_MASK_SOCKET_DIR                                                                  \
        (IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF |        \
         IN_MOVE_SELF | IN_ONLYDIR)
#define BUS_WATCH_MASK_ANCESTOR (IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
#define BUS_WATCH_SELF_EVENTS (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)

/* Aiming gives up after this many rounds; each round but the last goes one level deeper. */
#define BUS_WATCH_AIM_MAX 64

struct BusWatch {
        sd_event *event;
        BusWatchHandler handler;
        void *userdata;

        char *path;        /* the socket: absolute, no empty or "." components */
        char *socket_dir;  /* its directory ("/" for a socket in /) */

        int fd;            /* inotify, -EBADF while disarmed */
        sd_event_source *source;
        int wd;            /* -1: no watch */
        char *watched;     /* the directory the watch is on */
        char *wanted;      /* the name waited for in it: the socket or the next missing directory */
        bool at_socket_dir;
};

/* ---- addresses ---- */

/* Decodes n bytes of a D-Bus address value (%XX escapes) into a new string. */
static int address_unescape(const char *s, size_t n, char **ret)
{
        _cleanup_free_ char *out = malloc(n + 1);
        size_t j = 0;

        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int hi, lo;

                if (s[i] != '%') {
                        out[j++] = s[i];
                        continue;
                }
                if (n - i < 3)
                        return -EINVAL;
                hi = unhexchar(s[i + 1]);
                lo = unhexchar(s[i + 2]);
                if (hi < 0 || lo < 0 || (hi | lo) == 0) /* no NUL inside a path */
                        return -EINVAL;
                out[j++] = (char) (hi << 4 | lo);
                i += 2;
        }
        out[j] = 0;
        *ret = TAKE_PTR(out);
        return 0;
}

int bus_address_unix_path(const char *address, char **ret_path)
{
        _cleanup_free_ char *path = NULL;
        const char *p, *end;
        int r;

        assert(address);
        assert(ret_path);

        end = address + strcspn(address, ";");
        if (end == address)
                return -EINVAL;
        if ((size_t) (end - address) < STRLEN("unix:") || memcmp(address, "unix:", STRLEN("unix:")) != 0)
                return -EPROTONOSUPPORT;

        for (p = address + STRLEN("unix:"); p < end;) {
                const char *comma = memchr(p, ',', end - p), *eq;

                if (!comma)
                        comma = end;
                eq = memchr(p, '=', comma - p);
                if (!eq || eq == p)
                        return -EINVAL;
                if (eq - p == STRLEN("path") && memcmp(p, "path", STRLEN("path")) == 0) {
                        if (path)
                                return -EINVAL;
                        r = address_unescape(eq + 1, comma - eq - 1, &path);
                        if (r < 0)
                                return r;
                }
                p = comma == end ? end : comma + 1;
        }

        /* unix:abstract=, unix:tmpdir=, unix:runtime=…: nothing in the file system to watch. */
        if (!path || path[0] != '/')
                return -EPROTONOSUPPORT;
        if (strlen(path) >= sizeof(((struct sockaddr_un *) NULL)->sun_path))
                return -EINVAL;

        *ret_path = TAKE_PTR(path);
        return 0;
}

/* "/a//b/./c" → "/a/b/c"; the result has no trailing slash and at least one component. */
static int path_simplify(const char *path, char **ret)
{
        _cleanup_free_ char *out = malloc(strlen(path) + 1);
        size_t j = 0;

        if (!out)
                return -ENOMEM;
        for (const char *p = path; *p;) {
                size_t n;

                p += strspn(p, "/");
                n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.')) {
                        p += n;
                        continue;
                }
                out[j++] = '/';
                memcpy(out + j, p, n);
                j += n;
                p += n;
        }
        if (j == 0)
                return -EINVAL;
        out[j] = 0;
        *ret = TAKE_PTR(out);
        return 0;
}

/* ---- the watch ---- */

int bus_watch_new(sd_event *event, const char *address, BusWatchHandler handler, void *userdata,
                  BusWatch **ret)
{
        _cleanup_(bus_watch_freep) BusWatch *w = NULL;
        _cleanup_free_ char *raw = NULL;
        char *slash;
        int r;

        assert(event);
        assert(handler);
        assert(ret);

        if (!address) {
                address = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");
                if (isempty(address))
                        address = BUS_WATCH_DEFAULT_SYSTEM_ADDRESS;
        }
        r = bus_address_unix_path(address, &raw);
        if (r < 0)
                return r;

        w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        w->fd = -EBADF;
        w->wd = -1;
        w->event = sd_event_ref(event);
        w->handler = handler;
        w->userdata = userdata;

        r = path_simplify(raw, &w->path);
        if (r < 0)
                return r;
        slash = strrchr(w->path, '/');
        w->socket_dir = slash == w->path ? strdup("/") : strndup(w->path, slash - w->path);
        if (!w->socket_dir)
                return -ENOMEM;

        *ret = TAKE_PTR(w);
        return 0;
}

BusWatch *bus_watch_free(BusWatch *w)
{
        if (!w)
                return NULL;
        bus_watch_disarm(w);
        sd_event_unref(w->event);
        free(w->path);
        free(w->socket_dir);
        free(w);
        return NULL;
}

const char *bus_watch_path(const BusWatch *w)
{
        return w ? w->path : NULL;
}

bool bus_watch_socket_exists(const BusWatch *w)
{
        struct stat st;

        return w && stat(w->path, &st) >= 0 && S_ISSOCK(st.st_mode);
}

bool bus_watch_is_armed(const BusWatch *w)
{
        return w && w->fd >= 0;
}

static bool is_dir(const char *path)
{
        struct stat st;

        return stat(path, &st) >= 0 && S_ISDIR(st.st_mode);
}

static void bus_watch_forget(BusWatch *w)
{
        if (w->wd >= 0 && w->fd >= 0)
                (void) inotify_rm_watch(w->fd, w->wd); /* fails harmlessly if the kernel dropped it */
        w->wd = -1;
        free(w->watched);
        w->watched = NULL;
        free(w->wanted);
        w->wanted = NULL;
        w->at_socket_dir = false;
}

/* The deepest existing directory on the way to the socket and the name to wait for in it. */
static int bus_watch_target(BusWatch *w, char **ret_dir, char **ret_name, bool *ret_at_socket_dir)
{
        _cleanup_free_ char *dir = NULL, *name = NULL;
        bool at_socket_dir = is_dir(w->socket_dir);
        size_t len;

        if (at_socket_dir) {
                dir = strdup(w->socket_dir);
                name = strdup(strrchr(w->path, '/') + 1);
        } else {
                /* Shorten socket_dir one component at a time; "/" always exists. */
                len = strlen(w->socket_dir);
                for (;;) {
                        size_t cut = len;

                        while (cut > 0 && w->socket_dir[cut - 1] != '/')
                                cut--;
                        /* Component socket_dir[cut, len) is missing; its parent is [0, cut - 1). */
                        free(dir);
                        dir = cut <= 1 ? strdup("/") : strndup(w->socket_dir, cut - 1);
                        if (!dir)
                                return -ENOMEM;
                        if (cut <= 1 || is_dir(dir)) {
                                name = strndup(w->socket_dir + cut, len - cut);
                                break;
                        }
                        len = cut - 1;
                }
        }
        if (!dir || !name)
                return -ENOMEM;

        *ret_dir = TAKE_PTR(dir);
        *ret_name = TAKE_PTR(name);
        *ret_at_socket_dir = at_socket_dir;
        return 0;
}

static int bus_watch_aim(BusWatch *w)
{
        int r;

        for (unsigned i = 0; i < BUS_WATCH_AIM_MAX; i++) {
                _cleanup_free_ char *dir = NULL, *name = NULL;
                bool at_socket_dir;
                int wd;

                r = bus_watch_target(w, &dir, &name, &at_socket_dir);
                if (r < 0)
                        return r;
                if (w->wd >= 0 && streq(dir, w->watched) && streq(name, w->wanted))
                        return 0; /* nothing appeared since the watch was added */

                wd = inotify_add_watch(w->fd, dir, at_socket_dir ? BUS_WATCH_MASK_SOCKET_DIR : BUS_WATCH_MASK_ANCESTOR);
                if (wd < 0) {
                        if (errno == ENOENT || errno == ENOTDIR)
                                continue; /* removed meanwhile: look again */
                        return -errno;
                }
                if (w->wd >= 0 && w->wd != wd)
                        (void) inotify_rm_watch(w->fd, w->wd);
                free(w->watched);
                free(w->wanted);
                w->wd = wd;
                w->watched = TAKE_PTR(dir);
                w->wanted = TAKE_PTR(name);
                w->at_socket_dir = at_socket_dir;
        }
        return -ELOOP;
}

static int bus_watch_on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        /* Room for many events at once; each is a header plus at most NAME_MAX + 1 bytes. */
        union {
                struct inotify_event ev;
                char raw[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)];
        } buf;
        BusWatch *w = userdata;
        bool relevant = false, self = false;
        int r;

        for (;;) {
                ssize_t n = read(fd, &buf, sizeof buf);

                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                break;
                        /* Cannot happen on a healthy inotify fd; let the owner decide anew. */
                        self = relevant = true;
                        break;
                }
                for (char *p = buf.raw; p < buf.raw + n;) {
                        const struct inotify_event *e = (const struct inotify_event *) p;

                        p += sizeof *e + e->len;
                        if (e->mask & IN_Q_OVERFLOW) {
                                self = relevant = true;
                                continue;
                        }
                        if (e->wd != w->wd)
                                continue; /* a watch given up on before */
                        if (e->mask & BUS_WATCH_SELF_EVENTS)
                                self = relevant = true;
                        else if (e->len > 0 && streq(e->name, w->wanted))
                                relevant = true;
                }
        }
        if (!relevant)
                return 0;

        if (self)
                bus_watch_forget(w);
        r = bus_watch_aim(w);
        if (r < 0) {
                bus_watch_disarm(w);
                w->handler(w, w->userdata);
                return 0;
        }
        /* On the way down nothing can have happened to the socket yet. */
        if (w->at_socket_dir)
                w->handler(w, w->userdata);
        return 0;
}

int bus_watch_arm(BusWatch *w)
{
        int r;

        assert(w);

        if (w->fd < 0) {
                w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
                if (w->fd < 0)
                        return -errno;
                r = sd_event_add_io(w->event, &w->source, w->fd, EPOLLIN, bus_watch_on_inotify, w);
                if (r < 0)
                        goto fail;
                (void) sd_event_source_set_description(w->source, "bus-watch");
        }
        r = bus_watch_aim(w);
        if (r < 0)
                goto fail;
        return bus_watch_socket_exists(w);

fail:
        bus_watch_disarm(w);
        return r;
}

void bus_watch_disarm(BusWatch *w)
{
        if (!w)
                return;
        w->source = sd_event_source_disable_unref(w->source);
        w->fd = safe_close(w->fd); /* drops the watch with it */
        w->wd = -1;
        bus_watch_forget(w);
}
