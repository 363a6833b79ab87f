/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>

#include "ifname.h"
#include "macro.h"

static const struct {
        const char *name;
        bool valid;
} cases[] = {
        { "eth0", true },
        { "enp3s0", true },
        { "iptv0", true },
        { "a", true },
        { "x-y_z.1", true },
        { "123456789012345", true },   /* 15 characters: the maximum */
        { "1234567890123456", false }, /* 16 */
        { "", false },
        { ".", false },
        { "..", false },
        { "...", true },
        { "a/b", false },
        { "../../etc/x", false },
        { "a:b", false },
        { "a b", false },
        { "a\tb", false },
        { "a\nb", false },
        { "\x01", true },          /* the kernel accepts control characters */
        { "v\xc3\xa9" "0", true }, /* vé0: UTF-8 names are valid */
        { "a\xa0" "b", false },     /* 0xa0 is whitespace to the kernel */
        { "a\vb", false },
        { "a\rb", false },
};

Test(ifname, table)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_expect_eq(ifname_valid(cases[i].name), cases[i].valid, "'%s'", cases[i].name);
        cr_expect(!ifname_valid(NULL));
}

Test(ifname, altnames)
{
        char longname[130];
        memset(longname, 'a', sizeof longname - 1);
        longname[128] = '\0';
        cr_expect(!ifname_valid_alt(longname)); /* 128 chars: no room for the NUL in ALTIFNAMSIZ */
        longname[127] = '\0';
        cr_expect(ifname_valid_alt(longname));  /* 127 chars: the maximum */
        cr_expect(!ifname_valid(longname));
        cr_expect(!ifname_valid_alt("a/b"));
}
