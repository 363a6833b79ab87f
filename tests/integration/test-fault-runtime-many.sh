#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# More runtime files than the bound (CONF_FILES_MAX links, 16384): igmpd reads the files of the
# first 16384 links, says in one line that it ignores the rest, starts, applies the policy and
# reloads. It used to fail the whole configuration load (ENOMEM: "Failed to load configuration")
# and so refused to start at all, and to reload. A runtime change of one more link is refused
# with the reason (it was "Cannot allocate memory"), and nothing is written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
[ -x "$IGMPCTL" ] || skip "igmpctl not built"
dbus_start

MAX=16384 EXTRA=100
NS=$(ns_new rtmany)
export IGMPD_LOG_LEVEL=${IGMPD_LOG_LEVEL:-info}
veth_add "$NS" rm0 rm1

conf_put 50-rm.conf <<'CONF'
[Match]
Name=rm*

[IGMP]
V3UnsolicitedReportInterval=606
CONF
RUN_D=$T_ROOT/run/igmpd/runtime.d
mkdir -p "$RUN_D"
python3 - "$RUN_D" $((MAX + EXTRA)) <<'PY' || fail "could not write the runtime files"
import sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open("%s/zz%05d.conf" % (d, i), "w") as f:
        f.write("[IGMP]\nV3UnsolicitedReportInterval=%d\n" % (1000 + i))
PY
info "$((MAX + EXTRA)) runtime files written"

WAIT_SECS=90 igmpd_start "$NS"
igmpd_wait_bus
expect_knob "$NS" ipv4 rm0 igmpv3_unsolicited_report_interval 606
expect_knob "$NS" ipv4 rm1 igmpv3_unsolicited_report_interval 606
msg="More than $MAX links have runtime files \(runtime.d\), ignoring $EXTRA of those files"
[ "$(log_count "$msg")" = 1 ] || fail "expected one line '$msg': $(grep -E 'runtime|Failed' "$T_LOG" | head -n 3)"

info "a reload with the files still there takes a changed policy"
sed -i 's/=606/=607/' "$T_CONF/50-rm.conf"
igmpd_reload
# The reload reads the 16 384 files again: as long as the start may take (ASan, a busy machine).
WAIT_SECS=90 expect_knob "$NS" ipv4 rm0 igmpv3_unsolicited_report_interval 607
kill -0 "$T_IGMPD_PID" || fail "igmpd exited on the reload"
[ "$(log_count "$msg")" = 2 ] || fail "the reload did not say once that it ignores $EXTRA files"
! grep -q 'Failed to load configuration' "$T_LOG" || fail "$(grep 'Failed to load configuration' "$T_LOG")"

info "igmpctl link on a link without a runtime file: refused, runtime.d is full"
expect_fail "runtime.d already holds the files of $MAX links" "$IGMPCTL" link rm0 --v3-interval 300
[ ! -e "$RUN_D/rm0.conf" ] || fail "a runtime file was written for rm0 although the change was refused"
expect_knob "$NS" ipv4 rm0 igmpv3_unsolicited_report_interval 607
echo "PASS: $T_NAME (igmpd starts and reloads with runtime files for $((MAX + EXTRA)) links)"
