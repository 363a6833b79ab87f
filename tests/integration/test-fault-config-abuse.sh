#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Config abuse: 10,000 policy files, a 10 MiB file, 256 KiB of binary garbage, a symlink loop,
# a dangling symlink, a directory named *.conf and a FIFO named *.conf (which must not block
# the daemon: nobody ever writes to it), unreadable (mode 000) files (checked with
# `igmpd --check` run as nobody, since root reads them anyway). igmpd starts, reports each
# bad file by name, applies the good file, keeps RSS bounded (< 64 MiB), and does the same on a
# reload where the FIFO and the other bad files are still there.
. "$(dirname "$0")/lib.sh"

NFILES=${NFILES:-10000}
NS=$(ns_new cabuse)
export IGMPD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-info}
veth_add "$NS" ca0 ca1

mkdir -p "$T_CONF"
start=$SECONDS
for i in $(seq -w 1 "$NFILES"); do
        printf '[Match]\nName=zz%s\n\n[IGMP]\nV3UnsolicitedReportInterval=%d\n' "$i" $((1000 + 10#$i)) > "$T_CONF/20-many-$i.conf"
done
info "$NFILES files written in $((SECONDS - start)) s"
# 10 MiB of valid-looking lines: refused as a whole (larger than the 1 MiB limit).
{ yes '[IGMP]
V3UnsolicitedReportInterval=1' || true; } | head -c $((10 * 1024 * 1024)) > "$T_CONF/30-huge.conf"
head -c $((256 * 1024)) /dev/urandom > "$T_CONF/31-garbage.conf"
ln -s 32-loop-b.conf "$T_CONF/32-loop-a.conf"
ln -s 32-loop-a.conf "$T_CONF/32-loop-b.conf"
ln -s /nonexistent/igmpd.conf "$T_CONF/33-dangling.conf"
mkdir "$T_CONF/34-dir.conf"
mkfifo "$T_CONF/35-fifo.conf"
printf '[Match]\nName=ca*\n[IGMP]\nV3UnsolicitedReportInterval=1\n' > "$T_CONF/36-unreadable.conf"
chmod 000 "$T_CONF/36-unreadable.conf"   # root reads it anyway; an unprivileged daemon would not
# The good one, last in order; also under /run, where a FIFO sits too.
conf_put 99-good.conf <<'CONF'
[Match]
Name=ca*

[IGMP]
V3UnsolicitedReportInterval=606
CONF
mkdir -p "$T_ROOT/run/igmpd/conf.d"
mkfifo "$T_ROOT/run/igmpd/conf.d/37-runfifo.conf"

WAIT_SECS=90 igmpd_start "$NS"
info "igmpd ready $((SECONDS - start)) s after the files were written"
expect_knob "$NS" ipv4 ca0 igmpv3_unsolicited_report_interval 606
expect_knob "$NS" ipv4 ca1 igmpv3_unsolicited_report_interval 606

for f in 30-huge.conf 31-garbage.conf 32-loop-a.conf 32-loop-b.conf 33-dangling.conf 35-fifo.conf 37-runfifo.conf; do
        grep -q "$f" "$T_LOG" || fail "nothing logged about $f"
done
garbage_lines=$(log_count '31-garbage.conf')
garbage_nl=$(tr -cd '\n' < "$T_CONF/31-garbage.conf" | wc -c)
info "log lines about the garbage file: $garbage_lines (it has $garbage_nl newlines)"
# At most one message per line of the file (plus a summary): never more than the input.
[ "$garbage_lines" -le $((garbage_nl + 3)) ] || fail "$garbage_lines log lines for a file of $garbage_nl lines"

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$T_IGMPD_PID/status"; }
# The bound holds for the real build; under AddressSanitizer (shadow memory, quarantine) RSS
# says nothing about igmpd (as in test-soak.sh).
RSS_MAX=$((64 * 1024))
igmpd_linked_with libasan && RSS_MAX=$((1024 * 1024 * 1024)) && info "ASan build: RSS not bounded"
rss1=$(rss)
info "RSS after loading $NFILES files: $rss1 KiB"
[ "$rss1" -lt "$RSS_MAX" ] || fail "RSS $rss1 KiB after start"

info "reload with everything still there (and a changed good file)"
sed -i 's/=606/=607/' "$T_CONF/99-good.conf"
before=$(log_count '35-fifo.conf')
igmpd_reload
WAIT_SECS=90 expect_knob "$NS" ipv4 ca0 igmpv3_unsolicited_report_interval 607
WAIT_SECS=30 wait_until "[ \$(log_count '35-fifo.conf') -gt $before ]" || fail "the FIFO was not reported on reload"
rss2=$(rss)
info "RSS after the reload: $rss2 KiB"
[ "$rss2" -lt "$RSS_MAX" ] || fail "RSS $rss2 KiB after reload"
kill -0 "$T_IGMPD_PID" 2>/dev/null || fail "igmpd died"
# --check sees the same problems and says so with a non-zero exit, without blocking either.
if timeout 120 ip netns exec "$NS" "$IGMPD" --config-root "$T_ROOT" --check > "$T_TMP/check.out" 2>&1; then
        fail "igmpd --check exited 0 despite broken files"
fi
[ "$?" -ne 124 ] || fail "igmpd --check hung"
grep -q 35-fifo.conf "$T_TMP/check.out" || fail "--check did not report the FIFO"
# As an unprivileged user (the shipped unit runs as "igmpd"), the mode-000 file is unreadable:
# it must be reported by name, and the rest still parsed.
if command -v setpriv >/dev/null; then
        chmod 711 "$T_TMP"
        rc=0
        timeout 120 ip netns exec "$NS" setpriv --reuid "$(id -u nobody)" --regid "$(id -g nobody)" --clear-groups \
                "$IGMPD" --config-root "$T_ROOT" --check > "$T_TMP/check-nobody.out" 2>&1 || rc=$?
        [ "$rc" -ne 124 ] || fail "igmpd --check as nobody hung"
        grep -E '36-unreadable.conf.*(ermission|denied)' "$T_TMP/check-nobody.out" ||
                fail "the unreadable file was not reported: $(grep 36-unreadable "$T_TMP/check-nobody.out")"
        grep -q '99-good.conf' "$T_TMP/check-nobody.out" || grep -q 607 "$T_TMP/check-nobody.out" ||
                info "note: --check output does not name 99-good.conf"
fi
echo "PASS: $T_NAME ($NFILES files + abuse; RSS $rss1/$rss2 KiB; daemon alive)"
