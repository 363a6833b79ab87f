/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>

#include "nm-wait.h"

struct NMWait {
        NMWaits *list;
        NMWait *next;
        unsigned read; /* the read that answers it */
        NMWaitFn done;
        void *userdata;
};

int nm_waits_add(NMWaits *waits, unsigned read, NMWaitFn done, void *userdata, NMWait **ret)
{
        NMWait *w = calloc(1, sizeof *w);

        if (!w)
                return -ENOMEM;
        *w = (NMWait) {
                .list = waits,
                .next = waits->head,
                .read = read,
                .done = done,
                .userdata = userdata,
        };
        waits->head = w;
        *ret = w;
        return 0;
}

void nm_waits_done(NMWaits *waits, unsigned upto, bool freeing)
{
        for (NMWait **p = &waits->head; *p;) {
                NMWait *w = *p;

                if (w->read > upto) {
                        p = &w->next;
                        continue;
                }
                *p = w->next;
                w->done(freeing, w->userdata); /* may cancel other waits: start over */
                free(w);
                p = &waits->head;
        }
}

void nm_wait_cancel(NMWait *w)
{
        if (!w)
                return;
        for (NMWait **p = &w->list->head; *p; p = &(*p)->next)
                if (*p == w) {
                        *p = w->next;
                        break;
                }
        free(w);
}
