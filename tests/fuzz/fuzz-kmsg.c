/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the /dev/kmsg record parser, the continuation assembler and the
 * deprecated-sysctl warning recogniser. The input is split at '\0' bytes into records, as
 * successive read()s of /dev/kmsg; the first byte picks the continuation style. Invariants:
 * lengths within bounds and NUL-terminated, at most one message per push, a recognised
 * warning's name vector formats and re-parses to itself.
 */

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg-record.h"
#include "sysctl-binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const KmsgMessage *m)
{
        char *name = NULL, *path = NULL, text[512];
        SysctlWarning w, w2;
        bool complete;
        int r;

        assert(m->len <= KMSG_MESSAGE_MAX);
        assert(m->text[m->len] == '\0');
        assert(m->n_records >= 1);

        r = kmsg_parse_sysctl_warning(m->text, m->len, &w);
        assert(r == 0 || r == -ENOMSG || r == -EBADMSG || r == -E2BIG);
        if (r < 0)
                return;
        assert(w.comm_len < KMSG_COMM_MAX);
        assert(w.comm[w.comm_len] == '\0');
        assert(w.n_name <= SYSCTL_BINARY_NAME_MAX);

        assert(sysctl_binary_format_name(w.name, w.n_name, &name) == 0);
        snprintf(text, sizeof text, "warning: process `%s' used the deprecated sysctl system call with %s",
                 w.comm, name);
        /* comm may hold bytes that end the match early (a "'"); only check plain ones */
        if (!strpbrk(w.comm, "'`") && strlen(w.comm) == w.comm_len) {
                assert(kmsg_parse_sysctl_warning(text, strlen(text), &w2) == 0);
                assert(w2.n_name == w.n_name);
                assert(memcmp(w2.name, w.name, w.n_name * sizeof(int)) == 0);
        }
        if (w.n_name > 0) {
                assert(sysctl_binary_to_path(w.name, w.n_name, NULL, NULL, &path, &complete) == 0);
                assert(path);
        }
        free(name);
        free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        KmsgAssembler a;
        KmsgMessage m;
        size_t off = 1;

        if (size < 1 || size > 64 * 1024)
                return 0;
        kmsg_assembler_init(&a, (data[0] & 1) ? KMSG_CONT_MODERN : KMSG_CONT_LEGACY);

        while (off <= size) {
                const uint8_t *end = memchr(data + off, '\0', size - off);
                size_t len = end ? (size_t) (end - (data + off)) : size - off;
                KmsgRecord rec;

                if (kmsg_record_parse((const char *) data + off, len, &rec) == 0) {
                        assert(rec.message_len <= KMSG_MESSAGE_MAX);
                        assert(rec.message[rec.message_len] == '\0');
                        if (kmsg_assembler_push(&a, &rec, &m) == 1)
                                check_message(&m);
                        /* the warning may also come as one unjoined record */
                        SysctlWarning w;
                        (void) kmsg_parse_sysctl_warning(rec.message, rec.message_len, &w);
                }
                off += len + 1;
        }
        if (kmsg_assembler_flush(&a, &m) == 1)
                check_message(&m);
        assert(kmsg_assembler_flush(&a, &m) == 0);

        /* the release parser, on the same bytes */
        char *rel = strndup((const char *) data, size < 64 ? size : 64);
        if (rel) {
                KmsgContStyle s = kmsg_cont_style_from_release(rel);
                assert(s == KMSG_CONT_LEGACY || s == KMSG_CONT_MODERN || s == _KMSG_CONT_STYLE_INVALID);
                free(rel);
        }
        return 0;
}
