#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpctl link LINK --revert says what it removed, as systemctl revert does, and can take out one
# knob (--revert=v3-interval) and one layer (--runtime: /run only; --persistent: /etc only):
# the layer below then shows again, and what no layer sets goes back to policy, then to the
# value found. D-Bus: RevertLinkKnobs(i, as, u) and Link.RevertKnobs(as, u) answer with
# (file, whether it is gone, what was taken out); RevertLink and Link.Revert take the layer flags
# too (1 /etc, 2 /run, 0 both, as before); bad knobs and flags are refused before anything.
# A runtime override belongs to the link name, not to the device (the behaviour igmpctl(1)
# argues for, against nmcli device modify): renamed, the device loses it; a new link taking the
# name gets it.
# The binary of main 37a5c0a takes no value for --revert and always removes both files.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
dbus_start

NS=$(ns_new rev)
veth_add "$NS" v0 v1
conf_put 10-site.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V3UnsolicitedReportInterval=300
CONF
igmpd_start "$NS"
igmpd_wait_bus
V3=igmpv3_unsolicited_report_interval
V2=igmpv2_unsolicited_report_interval
IDX=$(ifindex_of "$NS" v0)
M=(org.igmpd1 /org/igmpd1 org.igmpd1.Manager)
RUN=$T_ROOT/run/igmpd/runtime.d/v0.conf
ETC=$T_ROOT/etc/igmpd/runtime.d/v0.conf
expect_knob "$NS" ipv4 v0 $V3 300

# ctl ARGS…: igmpctl, its output in $T_TMP/out, failing the test unless it exits 0.
ctl() {
        "$IGMPCTL" "$@" > "$T_TMP/out" 2>&1 || fail "igmpctl $* failed: $(cat "$T_TMP/out")"
}
expect_said() { # expect_said LINE: the output of the last ctl is exactly LINE
        [ "$(cat "$T_TMP/out")" = "$1" ] || fail "expected '$1', got '$(cat "$T_TMP/out")'"
}

ctl link v0 --v3-interval 200 --v2-interval 2000 --persistent
ctl link v0 --v3-interval 250
expect_knob "$NS" ipv4 v0 $V3 250

info "--revert=v3-interval --runtime: the /run layer's value goes, the persistent one shows"
ctl link v0 --revert=v3-interval --runtime
expect_said "Removed $RUN ($V3=250ms)."
expect_knob "$NS" ipv4 v0 $V3 200
[ ! -e "$RUN" ] && [ -e "$ETC" ] || fail "the wrong files are gone: run $(ls "$RUN" 2>&1), etc $(ls "$ETC" 2>&1)"

info "--revert=v3-interval: taken out of the /etc file, which keeps the other knob"
ctl link v0 --revert=$V3 # the kernel name works too
expect_said "Removed $V3=200ms from $ETC."
expect_knob "$NS" ipv4 v0 $V3 300
expect_knob "$NS" ipv4 v0 $V2 2000
grep -qx 'V2UnsolicitedReportInterval=2000ms' "$ETC" && ! grep -q V3 "$ETC" || fail "$ETC: $(cat "$ETC")"

info "nothing of that left: it says so, and succeeds"
ctl link v0 --revert --runtime
expect_said "v0 has no runtime change to revert in /run/igmpd/runtime.d."
ctl link v0 --revert=v3-interval,mld-version
expect_said "v0 has no runtime change of the knobs given to revert (igmpctl status shows where each value comes from)."

info "--revert: every knob, both layers; the value found before igmpd comes back"
ctl link v0 --v3-interval 222
ctl link v0 --revert
grep -qx "Removed $RUN ($V3=222ms)." "$T_TMP/out" && grep -qx "Removed $ETC ($V2=2000ms)." "$T_TMP/out" &&
        [ "$(wc -l < "$T_TMP/out")" = 2 ] || fail "link v0 --revert said: $(cat "$T_TMP/out")"
expect_knob "$NS" ipv4 v0 $V2 10000
expect_knob "$NS" ipv4 v0 $V3 300
[ ! -e "$RUN" ] && [ ! -e "$ETC" ] || fail "--revert left runtime files"
grep -q "v0: Runtime changes reverted by uid 0, pid [0-9]* ([^)]*): /run: $V3=222ms /etc: $V2=2000ms\\." "$T_LOG" ||
        fail "the revert is not logged with what it removed: $(grep 'reverted' "$T_LOG")"

info "usage errors: exit 2, nothing changed"
for args in "--revert=v4-interval" "--revert= " "--revert --v3-interval 200" "--revert --runtime --persistent" "--runtime --v3-interval 200"; do
        # shellcheck disable=SC2086
        rc=0; "$IGMPCTL" link v0 $args > "$T_TMP/out" 2>&1 || rc=$?
        [ "$rc" = 2 ] || fail "igmpctl link v0 $args exited $rc: $(cat "$T_TMP/out")"
done
out=$("$IGMPCTL" link v0 --revert=v4-interval 2>&1) || true
grep -q "'v4-interval' is no knob (knobs: v2-interval, v3-interval," <<< "$out" || fail "--revert=v4-interval: $out"

info "D-Bus: the layer flags, RevertLinkKnobs and Link.RevertKnobs"
ctl link v0 --v3-interval 201 --persistent
ctl link v0 --v3-interval 202
bctl call "${M[@]}" RevertLink iu "$IDX" 2 || fail "RevertLink with flag 2 (/run only) failed"
expect_knob "$NS" ipv4 v0 $V3 201
expect_out "^a\\(sbs\\) 1 \"$ETC\" true \"$V3=201ms\"$" bctl call "${M[@]}" RevertLinkKnobs iasu "$IDX" 1 $V3 1
expect_knob "$NS" ipv4 v0 $V3 300
ctl link v0 --v3-interval 203
expect_out '^a\(sbs\) 0$' bctl call org.igmpd1 "$(link_path "$IDX")" org.igmpd1.Link RevertKnobs asu 1 $V2 0
expect_knob "$NS" ipv4 v0 $V3 203
bctl call org.igmpd1 "$(link_path "$IDX")" org.igmpd1.Link Revert u 2 || fail "Link.Revert with flag 2 failed"
expect_knob "$NS" ipv4 v0 $V3 300
expect_dbus_error org.igmpd1.Error.InvalidArgument /org/igmpd1 org.igmpd1.Manager.RevertLink int32:"$IDX" uint32:4
expect_fail "unknown knob 'igmpv4'" bctl call "${M[@]}" RevertLinkKnobs iasu "$IDX" 1 igmpv4 0
expect_fail "more than 6 names" bctl call "${M[@]}" RevertLinkKnobs iasu "$IDX" 7 $V3 $V3 $V3 $V3 $V3 $V3 $V3 0
expect_fail "flags: unknown bits 0x8" bctl call "${M[@]}" RevertLinkKnobs iasu "$IDX" 0 8

info "a runtime override belongs to the name: a rename leaves it behind, the next link of that name gets it"
ctl link v0 --v3-interval 250
expect_knob "$NS" ipv4 v0 $V3 250
ip -n "$NS" link set dev v0 name w0
expect_knob "$NS" ipv4 w0 $V3 1000 # no policy matches w0: the value found before igmpd
"$IGMPCTL" status w0 | grep -qE "^$V3 +1000ms +- +none$" || fail "w0 after the rename: $("$IGMPCTL" status w0)"
veth_add "$NS" v0 x0
expect_knob "$NS" ipv4 v0 $V3 250
"$IGMPCTL" status v0 | grep -qE "^$V3 +250ms +250ms +runtime$" || fail "the new v0: $("$IGMPCTL" status v0)"
ctl link v0 --revert
expect_said "Removed $RUN ($V3=250ms)."
expect_knob "$NS" ipv4 v0 $V3 300
igmpd_alive
echo "PASS: $T_NAME"
