/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One-shot CLOCK_MONOTONIC timers on sd-event that are made on first use and re-armed after, so
 * that an owner keeps one source per purpose, armed only while there is something to wait for;
 * and a rate limit for reports on the loop's clock.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* Arms *s to fire once at usec (absolute), making it if it does not exist. 0 or -errno. */
static inline int event_arm_timer(sd_event *e, sd_event_source **s, uint64_t usec, uint64_t accuracy,
                                  sd_event_time_handler_t cb, void *userdata)
{
        int r;

        if (!*s)
                return sd_event_add_time(e, s, CLOCK_MONOTONIC, usec, accuracy, cb, userdata);
        r = sd_event_source_set_time(*s, usec);
        return r < 0 ? r : sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
}

/* The same, usec from the loop's now. */
static inline int event_arm_timer_in(sd_event *e, sd_event_source **s, uint64_t usec, uint64_t accuracy,
                                     sd_event_time_handler_t cb, void *userdata)
{
        uint64_t now;
        int r = sd_event_now(e, CLOCK_MONOTONIC, &now);

        return r < 0 ? r : event_arm_timer(e, s, now + usec, accuracy, cb, userdata);
}

/* Whether s exists and is armed (a one-shot source that fired is off again). */
static inline bool event_source_armed(sd_event_source *s)
{
        int enabled;

        return s && sd_event_source_get_enabled(s, &enabled) >= 0 && enabled != SD_EVENT_OFF;
}

/* Whether to report now: not within interval_usec of the last report (*last_usec); those are
 * counted in *suppressed and their number handed out with the next report (*ret_suppressed).
 * Without a clock (e NULL): always. */
static inline bool event_report_due(sd_event *e, uint64_t interval_usec, uint64_t *last_usec, unsigned *suppressed,
                                    unsigned *ret_suppressed)
{
        uint64_t now = 0;

        if (e && sd_event_now(e, CLOCK_MONOTONIC, &now) >= 0 && *last_usec != 0 && now < *last_usec + interval_usec) {
                (*suppressed)++;
                return false;
        }
        *ret_suppressed = *suppressed;
        *last_usec = now;
        *suppressed = 0;
        return true;
}
