#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpctl against the daemon on a private bus: the text output and --json of every verb, the
# runtime change end to end (igmpctl link v0 --v3-interval 200 → /proc/sys), --persistent and
# --revert, output width, exit codes (0 ok, 1 failure, 2 bad usage) and error messages that
# name cause and fix.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
[ -x "$IGMPCTL" ] || fail "igmpctl not found at $IGMPCTL"
dbus_start

NS=$(ns_new ctl)
veth_add "$NS" v0 v1
conf_put 10-site.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V3UnsolicitedReportInterval=300
CONF
igmpd_start "$NS"
igmpd_wait_bus
IDX=$(ifindex_of "$NS" v0)
V3=igmpv3_unsolicited_report_interval
ctl() { "$IGMPCTL" "$@"; }

# expect_rc N CMD…: CMD exits with N.
expect_rc() {
        local want=$1 rc=0
        shift
        "$@" > "$T_TMP/out" 2> "$T_TMP/err" || rc=$?
        [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want (stdout: $(cat "$T_TMP/out"), stderr: $(cat "$T_TMP/err"))"
}

info "list (the default verb)"
ctl > "$T_TMP/list"
head -n1 "$T_TMP/list" | grep -qE '^IDX +LINK +KIND +STATE$' || fail "list header: $(cat "$T_TMP/list")"
grep -qE "^ *$IDX +v0 +veth +configured$" "$T_TMP/list" || fail "list lacks v0: $(cat "$T_TMP/list")"
grep -qE '^ *1 +lo +- +unmanaged$' "$T_TMP/list" || fail "list lacks lo: $(cat "$T_TMP/list")"
tail -n1 "$T_TMP/list" | grep -qx '3 links listed.' || fail "list legend: $(cat "$T_TMP/list")"
cmp -s "$T_TMP/list" <(ctl list) || fail "igmpctl and igmpctl list differ"
ctl --no-legend list > "$T_TMP/list2"
[ "$(wc -l < "$T_TMP/list2")" = 3 ] || fail "--no-legend list: $(cat "$T_TMP/list2")"
! grep -qE 'IDX|listed' "$T_TMP/list2" || fail "--no-legend printed a legend"

info "list --json"
ctl --json=short list > "$T_TMP/list.json"
[ "$(wc -l < "$T_TMP/list.json")" = 1 ] || fail "--json=short is not one line"
jq_true "$T_TMP/list.json" "length == 3 and all(.[]; keys == [\"index\", \"kind\", \"name\", \"state\"])"
jq_true "$T_TMP/list.json" ".[] | select(.name == \"v0\") == {\"index\": $IDX, \"name\": \"v0\", \"kind\": \"veth\", \"state\": \"configured\"}"
jq_true "$T_TMP/list.json" '.[] | select(.name == "lo") | .kind == null'
ctl --json=pretty list > "$T_TMP/list-pretty.json"
[ "$(wc -l < "$T_TMP/list-pretty.json")" -gt 3 ] || fail "--json=pretty is not indented"
[ "$(jq -c . "$T_TMP/list-pretty.json")" = "$(jq -c . "$T_TMP/list.json")" ] || fail "pretty and short JSON differ"

info "status LINK: kernel value, policy value, source for every knob"
ctl status v0 > "$T_TMP/status"
grep -qx "● $IDX: v0" "$T_TMP/status" || fail "status header: $(cat "$T_TMP/status")"
grep -qE '^ +State: configured$' "$T_TMP/status" || fail "status state: $(cat "$T_TMP/status")"
grep -qE "^ +Matched files: $T_CONF/10-site.conf$" "$T_TMP/status" || fail "status files: $(cat "$T_TMP/status")"
grep -qE '^KNOB +KERNEL +POLICY +SOURCE$' "$T_TMP/status" || fail "status table header: $(cat "$T_TMP/status")"
grep -qE "^$V3 +300ms +300ms +$T_CONF/10-site.conf$" "$T_TMP/status" || fail "status v3 row: $(cat "$T_TMP/status")"
grep -qE '^igmpv2_unsolicited_report_interval +10000ms +- +kernel default$' "$T_TMP/status" || fail "status v2 row"
grep -qE '^force_igmp_version +auto +- +kernel default$' "$T_TMP/status" || fail "status version row"
[ "$(grep -cE '_interval|_version' "$T_TMP/status")" = 6 ] || fail "status does not show all six knobs"
cmp -s "$T_TMP/status" <(ctl status "$IDX") || fail "status by index differs from status by name"
ctl status > "$T_TMP/status-all"
for l in lo v0 v1; do grep -qE "^● [0-9]+: $l$" "$T_TMP/status-all" || fail "status without LINK lacks $l"; done

info "output fits 80 columns"
for cmd in "list" "status" "status v0" "kernel"; do
        # shellcheck disable=SC2086
        COLUMNS=80 ctl $cmd > "$T_TMP/w"
        # count characters, not bytes (mawk): the multi-byte glyphs become one ASCII character
        sed 's/…/./g; s/●/*/g' "$T_TMP/w" | awk '{ if (length($0) > 80) { print; bad = 1 } } END { exit bad }' ||
                fail "igmpctl $cmd is wider than 80 columns"
done
COLUMNS=80 ctl status v0 | grep -qE "^$V3 +300ms +300ms +….*10-site.conf$" || fail "long source not shortened at its start"

info "status --json: the same shape as Describe()"
ctl --json=short status v0 > "$T_TMP/status.json"
jq_true "$T_TMP/status.json" 'length == 1'
jq_true "$T_TMP/status.json" ".[0].knobs.$V3 == {\"kernel\": 300, \"policy\": 300, \"source\": \"$T_CONF/10-site.conf\"}"
jq_true "$T_TMP/status.json" '.[0] | keys == ["alternative_names", "index", "kind", "knobs", "last_error", "mac_address", "matched_files", "name", "state", "type"]'
jq_true "$T_TMP/status.json" ".[0].type == \"ether\" and .[0].mac_address == \"$(in_ns "$NS" cat /sys/class/net/v0/address)\""
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe | jq -r '.data[0]' > "$T_TMP/describe.json"
[ "$(jq -c '.[0]' "$T_TMP/status.json")" = "$(jq -c '.links[] | select(.name == "v0")' "$T_TMP/describe.json")" ] ||
        fail "status --json and Describe() disagree"
ctl --json=short status > "$T_TMP/status-all.json"
jq_true "$T_TMP/status-all.json" 'length == 3'

info "link: igmpctl link v0 --v3-interval 200 changes the kernel value through the bus"
expect_rc 0 ctl link v0 --v3-interval 200
expect_knob "$NS" ipv4 v0 $V3 200
ctl status v0 | grep -qE "^$V3 +200ms +200ms +runtime$" || fail "status after link: $(ctl status v0)"
expect_rc 0 ctl link v0 --v3-interval 0.25s --igmp-version 3 --mld-version 2
expect_knob "$NS" ipv4 v0 $V3 250
expect_knob "$NS" ipv4 v0 force_igmp_version 3
expect_knob "$NS" ipv6 v0 force_mld_version 2
expect_rc 0 ctl link "$IDX" --igmp-version auto --v2-interval 2s
expect_knob "$NS" ipv4 v0 force_igmp_version 0
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 2000
expect_rc 0 ctl link v0 --mld-v1-interval 5000 --persistent
expect_knob "$NS" ipv6 v0 mldv1_unsolicited_report_interval 5000
[ -f "$T_ROOT/etc/igmpd/runtime.d/v0.conf" ] || fail "--persistent wrote no file under the config root"
grep -qx 'V1UnsolicitedReportInterval=5000ms' "$T_ROOT/etc/igmpd/runtime.d/v0.conf" || fail "persistent file content"
expect_rc 0 ctl link v0 --revert
expect_knob "$NS" ipv4 v0 $V3 300
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 10000
expect_knob "$NS" ipv6 v0 mldv1_unsolicited_report_interval 10000
expect_knob "$NS" ipv6 v0 force_mld_version 0
[ ! -e "$T_ROOT/etc/igmpd/runtime.d/v0.conf" ] && [ ! -e "$T_ROOT/run/igmpd/runtime.d/v0.conf" ] ||
        fail "--revert left runtime files"

info "reconfigure and reload"
in_ns "$NS" sh -c "echo 999 > /proc/sys/net/ipv4/conf/v0/$V3"
expect_rc 0 ctl reconfigure v0 v1
expect_knob "$NS" ipv4 v0 $V3 300
conf_put 20-all.conf <<'CONF'
[Match]
Name=v1

[IGMP]
V3UnsolicitedReportInterval=400
CONF
expect_rc 0 ctl reload
expect_knob "$NS" ipv4 v1 $V3 400

info "kernel"
ctl kernel > "$T_TMP/kernel"
grep -qE '^KNOB +PRESENT' "$T_TMP/kernel" || fail "kernel header: $(cat "$T_TMP/kernel")"
[ "$(grep -cE '_(interval|version) +yes$' "$T_TMP/kernel")" = 6 ] || fail "kernel: $(cat "$T_TMP/kernel")"
SOURCES=$(bctl --json=short get-property org.igmpd1 /org/igmpd1 org.igmpd1.Audit Sources | jq -c .data)
if [ "$SOURCES" = "[]" ]; then
        grep -qx 'Audit sources: none active' "$T_TMP/kernel" || fail "kernel audit line: $(cat "$T_TMP/kernel")"
else
        grep -qx "Audit sources: $(jq -r 'join(", ")' <<< "$SOURCES")" "$T_TMP/kernel" ||
                fail "kernel audit line: $(cat "$T_TMP/kernel") (Sources: $SOURCES)"
fi
# Every audit source has a state line (active, starting, inactive or off, with the reason).
for src in kmsg audit libc syscall; do
        grep -qE "^$src +(active|starting|inactive|off)( |$)" "$T_TMP/kernel" || fail "kernel: no state for $src: $(cat "$T_TMP/kernel")"
done
ctl --json=short kernel > "$T_TMP/kernel.json"
jq_true "$T_TMP/kernel.json" '(.audit_source_states | length) == 4 and all(.audit_source_states[]; (.state | type == "string") and (.note | type == "string"))'
jq_true "$T_TMP/kernel.json" '(.knobs | length) == 6 and all(.knobs[]; .present == true and (.patch | type == "string"))'
jq_true "$T_TMP/kernel.json" ".audit_sources == $SOURCES"

info "audit"
N_EVENTS=$(bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Audit ListEvents | jq '.data[0] | length')
expect_rc 0 ctl audit
if [ "$N_EVENTS" = 0 ]; then
        grep -qx 'No events.' "$T_TMP/out" || fail "audit: $(cat "$T_TMP/out")"
else
        grep -qE '^TIME +SOURCE +PID +COMM +SYSCTL +CALLS$' "$T_TMP/out" || fail "audit header: $(cat "$T_TMP/out")"
        grep -qE "^$N_EVENTS events? listed\.$" "$T_TMP/out" ||
                fail "audit legend: $(cat "$T_TMP/out")"
fi
ctl --json=short audit > "$T_TMP/audit.json"
jq_true "$T_TMP/audit.json" "length == $N_EVENTS"
jq_true "$T_TMP/audit.json" 'all(.[]; keys == ["comm", "exe", "name", "path", "pid", "realtime_usec", "repeats", "source"])'
"$IGMPCTL" audit --follow > "$T_TMP/follow.out" 2> "$T_TMP/follow.err" &
FOLLOW=$!
wait_until "grep -q 'Following' '$T_TMP/follow.err'" || fail "audit --follow did not start: $(cat "$T_TMP/follow.err")"
kill -INT $FOLLOW
rc=0
wait $FOLLOW || rc=$?
[ $rc = 0 ] || fail "audit --follow exited $rc on Ctrl-C"

info "bash completion: verbs, options, values and link names"
(
        set +eu
        # shellcheck source=/dev/null
        . "$SRCDIR/data/bash-completion/igmpctl"
        igmpctl() { "$IGMPCTL" "$@"; }
        comp() {
                COMP_WORDS=("$@")
                COMP_CWORD=$(($# - 1))
                COMPREPLY=()
                _igmpctl
                printf '%s\n' "${COMPREPLY[@]}"
        }
        [ "$(comp igmpctl "" | sort | tr '\n' ' ')" = "audit kernel link list monitor nm reconfigure reload status " ] || exit 1
        comp igmpctl st | grep -qx status || exit 2
        comp igmpctl status "" | grep -qx v0 || exit 3
        comp igmpctl link v || exit 4
        [ "$(comp igmpctl link v | sort | tr '\n' ' ')" = "v0 v1 " ] || exit 5
        comp igmpctl link v0 --v3 | grep -qx -- --v3-interval || exit 6
        comp igmpctl link v0 --per | grep -qx -- --persistent || exit 7
        [ -z "$(comp igmpctl link v0 "")" ] || exit 8           # one LINK only
        comp igmpctl link v0 --igmp-version "" | grep -qx auto || exit 9
        comp igmpctl audit --f | grep -qx -- --follow || exit 10
        ! comp igmpctl list --f | grep -q -- --follow || exit 11
        comp igmpctl --json= | grep -qx pretty || exit 12
) || fail "bash completion check $? failed"

info "bad usage exits 2"
expect_rc 2 ctl frobnicate
expect_rc 2 ctl link v0
grep -q 'nothing to do' "$T_TMP/err" || fail "link without options: $(cat "$T_TMP/err")"
expect_rc 2 ctl link v0 --v3-interval fast
grep -q "Invalid value for --v3-interval: 'fast'" "$T_TMP/err" || fail "bad value message: $(cat "$T_TMP/err")"
expect_rc 2 ctl link v0 --v3-interval 0
expect_rc 2 ctl link v0 --igmp-version 4
expect_rc 2 ctl link v0 --revert --v3-interval 200
expect_rc 2 ctl link
expect_rc 2 ctl list extra
expect_rc 2 ctl --json=xml list
expect_rc 2 ctl --follow list
expect_rc 2 ctl --no-such-option
expect_rc 0 ctl --help
expect_rc 0 ctl --version
grep -qE '^igmpctl [0-9]' "$T_TMP/out" || fail "--version: $(cat "$T_TMP/out")"

info "failures exit 1 and say what to do"
expect_rc 1 ctl link nosuch0 --v3-interval 200
grep -qx 'No such link: nosuch0 (see igmpctl list)' "$T_TMP/err" || fail "no such link: $(cat "$T_TMP/err")"
expect_rc 1 ctl status 4242
grep -qx 'No such link: 4242 (see igmpctl list)' "$T_TMP/err" || fail "no such ifindex: $(cat "$T_TMP/err")"
expect_rc 1 as_nobody "$IGMPCTL" link v0 --v3-interval 100
grep -q 'Permission denied: run as root or authorize via polkit' "$T_TMP/err" || fail "denied: $(cat "$T_TMP/err")"
expect_rc 1 as_nobody "$IGMPCTL" reload
expect_rc 0 as_nobody "$IGMPCTL" status v0
expect_knob "$NS" ipv4 v0 $V3 300

igmpd_stop
expect_rc 1 ctl list
grep -q 'igmpd is not running: start it with systemctl start igmpd' "$T_TMP/err" || fail "not running: $(cat "$T_TMP/err")"
expect_rc 1 env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T_TMP/no-such-socket" "$IGMPCTL" status
grep -q 'igmpd is not running: start it with systemctl start igmpd' "$T_TMP/err" || fail "no bus: $(cat "$T_TMP/err")"

echo "PASS: $T_NAME"
