#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpd and polkit (the fake one, tests/integration/fake-polkit.c, on the private bus):
#  - polkit may ask for a password only if the caller allowed it: the message's
#    ALLOW_INTERACTIVE_AUTHORIZATION flag reaches CheckAuthorization's flags as the caller set it
#    (busctl --allow-interactive-authorization=yes/no, igmpctl --no-ask-password);
#  - pending queries are capped per caller: one user with calls waiting for an authentication
#    dialog nobody answers does not shut out another user;
#  - a link removed while calls about it wait for polkit: those calls fail at once (not when
#    polkit answers, which may be never) and their queries are released (they no longer count
#    against the caller's cap).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"

[ -x "${FAKE_POLKIT:-}" ] || FAKE_POLKIT=$(dirname "$IGMPD")/../../tests/integration/fake-polkit
[ -x "$FAKE_POLKIT" ] || fail "fake-polkit helper not found (FAKE_POLKIT)"
[ -x "$IGMPCTL" ] || fail "igmpctl not built"
command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed"
OTHER_UID=1 # "daemon" on Debian: a second unprivileged user besides nobody
as_other() { setpriv --reuid "$OTHER_UID" --regid "$OTHER_UID" --clear-groups -- "$@"; }
PER_UID=16  # BUS_POLKIT_PENDING_PER_UID (src/daemon/bus-util.h)
CALLS=64    # more than the cap in all before per-caller caps existed

dbus_start
NS=$(ns_new pk)
veth_add "$NS" v0 v1
veth_add "$NS" w0 w1
conf_put 10-all.conf <<'CONF'
[Match]
Name=v* w*

[IGMP]
V3UnsolicitedReportInterval=300
CONF
igmpd_start "$NS"
igmpd_wait_bus
V3=igmpv3_unsolicited_report_interval
M=(org.igmpd1 /org/igmpd1 org.igmpd1.Manager)
VIDX=$(ifindex_of "$NS" v0)
WIDX=$(ifindex_of "$NS" w0)
expect_knob "$NS" ipv4 v0 $V3 300

polkit_start() { # polkit_start LOG ARGS…
        local log=$1
        shift
        "$FAKE_POLKIT" "$@" > "$log" 2>&1 &
        POLKIT_PID=$!
        _T_PIDS+=("$POLKIT_PID")
        wait_until "grep -q ready '$log'" || fail "fake polkit did not start: $(cat "$log")"
}
polkit_stop() {
        kill "$POLKIT_PID" 2>/dev/null || true
        wait "$POLKIT_PID" 2>/dev/null || true
        WAIT_SECS=10 wait_until "! bus_has_owner org.freedesktop.PolicyKit1" || fail "fake polkit did not go away"
}
last_flags() { sed -n 's/^CheckAuthorization .* flags=\([0-9]*\) .*/\1/p' "$1" | tail -n 1; }

info "the caller's ALLOW_INTERACTIVE_AUTHORIZATION flag decides polkit's AllowUserInteraction"
polkit_start "$T_TMP/polkit1.log" org.igmpd1.set-link
as_nobody busctl --system --allow-interactive-authorization=no call "${M[@]}" SetLinkKnobs 'ia{sv}u' \
        "$VIDX" 1 $V3 u 201 0 || fail "SetLinkKnobs refused although polkit said yes"
expect_knob "$NS" ipv4 v0 $V3 201
[ "$(last_flags "$T_TMP/polkit1.log")" = 0 ] || fail "caller said no interaction, polkit got: $(tail -n 1 "$T_TMP/polkit1.log")"
as_nobody busctl --system --allow-interactive-authorization=yes call "${M[@]}" SetLinkKnobs 'ia{sv}u' \
        "$VIDX" 1 $V3 u 202 0 || fail "SetLinkKnobs refused although polkit said yes"
expect_knob "$NS" ipv4 v0 $V3 202
[ "$(last_flags "$T_TMP/polkit1.log")" = 1 ] || fail "caller allowed interaction, polkit got: $(tail -n 1 "$T_TMP/polkit1.log")"
as_nobody "$IGMPCTL" --no-ask-password link v0 --v3-interval 203 || fail "igmpctl --no-ask-password link failed"
expect_knob "$NS" ipv4 v0 $V3 203
[ "$(last_flags "$T_TMP/polkit1.log")" = 0 ] || fail "igmpctl --no-ask-password, polkit got: $(tail -n 1 "$T_TMP/polkit1.log")"
[ "$(grep -c CheckAuthorization "$T_TMP/polkit1.log")" = 3 ] || fail "expected 3 polkit queries: $(cat "$T_TMP/polkit1.log")"
"$IGMPCTL" link v0 --revert
polkit_stop

info "$CALLS calls of nobody wait for polkit: the cap stops them, another user still gets through"
polkit_start "$T_TMP/polkit2.log" --hold-uid="$NOBODY_UID" org.igmpd1.set-link
mkdir "$T_TMP/c"
for i in $(seq 1 $CALLS); do
        (
                rc=0
                as_nobody busctl --system --timeout=600 call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$VIDX" 1 $V3 u 555 0 \
                        > "$T_TMP/c/$i.out" 2>&1 || rc=$?
                echo "$rc" > "$T_TMP/c/$i.rc"
        ) &
        _T_PIDS+=("$!")
done
held() { grep -c -- '-> held$' "$T_TMP/polkit2.log" || true; }
limited() { grep -l 'Too many authorization requests' "$T_TMP"/c/*.out 2>/dev/null | wc -l; }
WAIT_SECS=60 wait_until "[ \$((\$(held) + \$(limited))) -ge $CALLS ]" ||
        fail "$CALLS calls neither waiting nor refused: $(held) held, $(limited) refused"
info "$(held) waiting for polkit, $(limited) refused"
[ "$(held)" -le $PER_UID ] || fail "$(held) queries of one uid wait for polkit, more than the cap of $PER_UID"
grep -qh 'of yours are pending' "$T_TMP"/c/*.out || fail "the refusal does not say it is the caller's cap: $(cat "$T_TMP"/c/*.out | sort | uniq -c)"
as_other busctl --system --timeout=60 call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$WIDX" 1 $V3 u 222 0 > "$T_TMP/other.out" 2>&1 ||
        fail "another user was shut out by nobody's pending queries: $(cat "$T_TMP/other.out")"
expect_knob "$NS" ipv4 w0 $V3 222
grep -q "subject=system-bus-name:.* -> yes$" "$T_TMP/polkit2.log" || fail "the other user's query did not reach polkit"

info "v0 goes away: the calls about it fail at once and their queries are released"
waiting=$(held)
ip -n "$NS" link del v0
answered() { find "$T_TMP/c" -name '*.rc' | wc -l; }
WAIT_SECS=30 wait_until "[ \$(answered) -ge $CALLS ]" ||
        fail "calls about the removed link still wait ($(answered) of $CALLS answered)"
gone=$(grep -l 'went away while waiting for authorization' "$T_TMP"/c/*.out | wc -l)
[ "$gone" = "$waiting" ] || fail "$gone of the $waiting waiting calls were told the link went away: $(cat "$T_TMP"/c/*.out | sort | uniq -c)"
[ "$(knob_get "$NS" ipv4 w0 $V3)" = 222 ] || fail "w0 changed"
# Released: nobody may ask again, up to the cap.
before=$(held)
for i in $(seq 1 $PER_UID); do
        (as_nobody busctl --system --timeout=600 call "${M[@]}" SetLinkKnobs 'ia{sv}u' "$WIDX" 1 $V3 u 556 0 \
                > "$T_TMP/again.$i" 2>&1 || true) &
        _T_PIDS+=("$!")
done
WAIT_SECS=30 wait_until "[ \$(held) -ge \$((before + PER_UID)) ]" ||
        fail "after the release nobody's new queries were not sent to polkit: $(held) held, before $before; $(cat "$T_TMP"/again.* | sort | uniq -c)"
! grep -q 'Too many' "$T_TMP"/again.* || fail "the released queries still count against the cap: $(cat "$T_TMP"/again.*)"
igmpd_alive
echo "PASS: $T_NAME"
