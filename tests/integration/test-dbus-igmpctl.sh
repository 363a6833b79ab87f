#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# igmpctl against the daemon on a private bus: the text output and --json of every verb, the
# runtime change end to end (igmpctl link v0 --v3-interval 200 → /proc/sys), --persistent and
# --revert, globs over names and alternative names, output width (paths cut in the middle),
# ASCII outside UTF-8, colours and the pager as networkctl has them (SYSTEMD_COLORS, NO_COLOR,
# SYSTEMD_PAGER, PAGER; a terminal through script(1)), bash completion, exit codes (0 ok,
# 1 failure, 2 bad usage) and error messages that name cause and fix — "bus unreachable"
# apart from "igmpd not on the bus".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
[ -x "$IGMPCTL" ] || fail "igmpctl not found at $IGMPCTL"
dbus_start
# The glyphs (●, …) are checked below; outside UTF-8 igmpctl prints ASCII (checked too).
export LC_ALL=C.UTF-8
unset SYSTEMD_COLORS NO_COLOR SYSTEMD_PAGER PAGER COLUMNS

NS=$(ns_new ctl)
veth_add "$NS" v0 v1
ip -n "$NS" link set v1 mtu 1200            # no IPv6 device: its MLD knobs are unavailable
ip -n "$NS" link set v0 address 02:00:00:00:00:01
ALTNAME=""
ip -n "$NS" link property add dev v0 altname uplink-0 2>/dev/null && ALTNAME=uplink-0
# Kernel log records, as a kernel before 5.9 writes them: audit events with no pid; the second
# names a component past a leaf (kernel.osrelease has no child 3), so it translates only in part.
printf '%s\n' "4,1,1000,-;warning: process \`mcastd' used the deprecated sysctl system call with 3.5.16.-2.17." \
        "4,2,1001,-;warning: process \`oldtool' used the deprecated sysctl system call with 1.2.3." > "$T_TMP/kmsg"
conf_put 10-site.conf <<'CONF'
[Match]
Name=v0

[IGMP]
V3UnsolicitedReportInterval=300
CONF
igmpd_start "$NS" --kmsg-path "$T_TMP/kmsg"
igmpd_wait_bus
IDX=$(ifindex_of "$NS" v0)
V3=igmpv3_unsolicited_report_interval
ctl() { "$IGMPCTL" "$@"; }

# expect_rc N CMD…: CMD exits with N.
expect_rc() {
        local want=$1 rc=0
        shift
        "$@" > "$T_TMP/out" 2> "$T_TMP/err" || rc=$?
        cat "$T_TMP/err" >> "$T_TMP/all-err"
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
# Everything [Match] can match on.
grep -qE '^ +Type: ether$' "$T_TMP/status" || fail "status type: $(cat "$T_TMP/status")"
grep -qE '^ +Kind: veth$' "$T_TMP/status" || fail "status kind: $(cat "$T_TMP/status")"
grep -qE '^ +MAC address: 02:00:00:00:00:01$' "$T_TMP/status" || fail "status MAC: $(cat "$T_TMP/status")"
if [ -n "$ALTNAME" ]; then
        grep -qE '^ *Alternative names: uplink-0$' "$T_TMP/status" || fail "status altnames: $(cat "$T_TMP/status")"
fi
grep -qE "^ +Matched files: $T_CONF/10-site.conf$" "$T_TMP/status" || fail "status files: $(cat "$T_TMP/status")"
grep -qE '^KNOB +KERNEL +WANTED +SOURCE$' "$T_TMP/status" || fail "status table header: $(cat "$T_TMP/status")"
grep -qE "^$V3 +300ms +300ms +$T_CONF/10-site.conf$" "$T_TMP/status" || fail "status v3 row: $(cat "$T_TMP/status")"
# A knob no source sets has source 'none' (a link no source touches is 'unmanaged'): its kernel
# value is whatever it is, not necessarily a default.
grep -qE '^igmpv2_unsolicited_report_interval +10000ms +- +none$' "$T_TMP/status" || fail "status v2 row: $(cat "$T_TMP/status")"
grep -qE '^force_igmp_version +auto +- +none$' "$T_TMP/status" || fail "status version row"
[ "$(grep -cE '_interval|_version' "$T_TMP/status")" = 6 ] || fail "status does not show all six knobs"
cmp -s "$T_TMP/status" <(ctl status "$IDX") || fail "status by index differs from status by name"
# Without LINK, a summary (as networkctl status), not every link in full.
ctl status > "$T_TMP/status-all"
grep -qx '● igmpd: 3 links' "$T_TMP/status-all" && grep -qE '^ +State: 1 configured, 2 unmanaged$' "$T_TMP/status-all" &&
        grep -qE "^ +Policy files: $T_CONF/10-site.conf$" "$T_TMP/status-all" || fail "status summary: $(cat "$T_TMP/status-all")"
! grep -qE '^KNOB|^● [0-9]+:' "$T_TMP/status-all" || fail "status without LINK shows links in full: $(cat "$T_TMP/status-all")"
# The word the docs use (igmpctl(1), igmpd.conf(5)) for a knob whose file is missing.
ctl status v1 | grep -qE '^mldv1_unsolicited_report_interval +unavailable +- +none$' ||
        fail "IPv6-less link: $(ctl status v1)"

info "igmpd --check and igmpctl status use the same words: KNOB KERNEL WANTED SOURCE, ms, auto, none, runtime"
rows() { grep -E '^ *(igmp|mld|force)[a-z0-9_]+ ' | awk '{ print $1, $2, $3, $4 }'; }
same_words() {
        in_ns "$NS" "$IGMPD" --config-root "$T_ROOT" --check 2> /dev/null | sed -n "/^$IDX: v0 /,/^[0-9]*: /p" | rows > "$T_TMP/check.rows"
        ctl status v0 | rows > "$T_TMP/status.rows"
        [ -s "$T_TMP/status.rows" ] && cmp -s "$T_TMP/check.rows" "$T_TMP/status.rows" ||
                fail "igmpd --check and igmpctl status disagree: $(diff "$T_TMP/check.rows" "$T_TMP/status.rows")"
}
same_words
grep -qx "force_igmp_version auto - none" "$T_TMP/status.rows" || fail "no 'auto - none' row: $(cat "$T_TMP/status.rows")"
expect_rc 0 ctl link v0 --v2-interval 2s
same_words
grep -qx "igmpv2_unsolicited_report_interval 2000ms 2000ms runtime" "$T_TMP/status.rows" || fail "runtime row: $(cat "$T_TMP/status.rows")"
# The JSON says the same source.
[ "$(ctl --json=short status v0 | jq -r '.[0].knobs.igmpv2_unsolicited_report_interval.source')" = runtime ] || fail "JSON source"
expect_rc 0 ctl link v0 --revert=v2-interval

info "link takes one link, not a pattern"
expect_rc 2 ctl link 'v*' --v3-interval 200
grep -qx "igmpctl: link takes one link, not a pattern ('v\*'); 'igmpctl status v\*' shows which links it matches." "$T_TMP/err" ||
        fail "link with a glob: $(cat "$T_TMP/err")"

info "status and reconfigure take globs over names and alternative names"
ctl status 'v*' > "$T_TMP/glob"
[ "$(grep -cE '^● ' "$T_TMP/glob")" = 2 ] && grep -qx "● $IDX: v0" "$T_TMP/glob" && grep -qE '^● [0-9]+: v1$' "$T_TMP/glob" ||
        fail "status 'v*': $(cat "$T_TMP/glob")"
[ "$(ctl status 'v[0]' v0 "$IDX" | grep -c '^● ')" = 1 ] || fail "a link named twice is shown twice"
if [ -n "$ALTNAME" ]; then
        ctl status 'uplink-*' | grep -qx "● $IDX: v0" || fail "status 'uplink-*' does not match the alternative name"
fi
[ "$(ctl --json=short status '?0' | jq -r '[.[].name] | join(" ")')" = v0 ] || fail "status '?0' --json"
expect_rc 7 ctl status 'nomatch*'
grep -qx "No link matches 'nomatch\*' (see igmpctl list)." "$T_TMP/err" || fail "glob without match: $(cat "$T_TMP/err")"
expect_rc 7 ctl status v0 'nomatch*'
[ ! -s "$T_TMP/out" ] || fail "status printed links before failing on a pattern: $(cat "$T_TMP/out")"

info "output fits 80 columns"
for cmd in "list" "status" "status v0" "kernel"; do
        # shellcheck disable=SC2086
        COLUMNS=80 ctl $cmd > "$T_TMP/w"
        # count characters, not bytes (mawk): the multi-byte glyphs become one ASCII character
        sed 's/…/./g; s/●/*/g' "$T_TMP/w" | awk '{ if (length($0) > 80) { print; bad = 1 } } END { exit bad }' ||
                fail "igmpctl $cmd is wider than 80 columns"
done
# A long path loses its middle: the file name and the start of its directory stay.
COLUMNS=80 ctl status v0 > "$T_TMP/w"
grep -qE "^$V3 +300ms +300ms +/tmp/[^ ]*…/10-site.conf$" "$T_TMP/w" || fail "long source not shortened in the middle: $(cat "$T_TMP/w")"
grep -qE "^ +Matched files: /tmp/igmpd-test-[^ ]*…/10-site.conf$" "$T_TMP/w" || fail "long file not shortened in the middle: $(cat "$T_TMP/w")"

info "outside UTF-8: ASCII for ●, … and →"
LC_ALL=C COLUMNS=80 ctl status v0 > "$T_TMP/ascii"
grep -qx "\* $IDX: v0" "$T_TMP/ascii" || fail "ASCII bullet: $(cat "$T_TMP/ascii")"
grep -qE "^ +Matched files: /tmp/[^ ]*\.\.\./10-site.conf$" "$T_TMP/ascii" || fail "ASCII ellipsis: $(cat "$T_TMP/ascii")"
! LC_ALL=C grep -q $'[\x80-\xff]' "$T_TMP/ascii" || fail "non-ASCII bytes in a C locale: $(cat "$T_TMP/ascii")"
LC_ALL=C ctl --help | LC_ALL=C grep -q $'[\x80-\xff]' && fail "non-ASCII bytes in --help in a C locale"

info "colours: on a terminal, or when SYSTEMD_COLORS says so; never with NO_COLOR or into a pipe"
ESC=$'\x1b'
ctl list | grep -q "$ESC" && fail "colours into a pipe"
SYSTEMD_COLORS=1 ctl list | grep -q "${ESC}\[0;1;32mconfigured${ESC}\[0m" || fail "SYSTEMD_COLORS=1: no green state"
SYSTEMD_COLORS=1 ctl status v0 | grep -q "^${ESC}\[0;1;32m●${ESC}\[0m $IDX: v0$" || fail "SYSTEMD_COLORS=1: no green bullet"
NO_COLOR=1 SYSTEMD_COLORS=0 ctl list | grep -q "$ESC" && fail "SYSTEMD_COLORS=0 still coloured"
# A terminal (script(1) gives the command one): colours unless NO_COLOR or TERM=dumb.
if command -v script > /dev/null; then
        # (into a file: under pipefail, "script … | grep -q" fails when grep stops reading early)
        tty_run() { TERM=${TERM_FOR_TTY:-xterm} script -qec "$*" /dev/null < /dev/null > "$T_TMP/tty.out"; }
        tty_run "'$IGMPCTL' --no-pager list"
        grep -q "$ESC\[0;1;32mconfigured" "$T_TMP/tty.out" || fail "no colours on a terminal: $(cat -v "$T_TMP/tty.out")"
        tty_run "NO_COLOR=1 '$IGMPCTL' --no-pager list"
        grep -q "$ESC\[" "$T_TMP/tty.out" && fail "NO_COLOR=1 on a terminal still coloured"
        TERM_FOR_TTY=dumb tty_run "'$IGMPCTL' --no-pager list"
        grep -q "$ESC\[" "$T_TMP/tty.out" && fail "TERM=dumb still coloured"
        grep -q "configured" "$T_TMP/tty.out" || fail "TERM=dumb: $(cat -v "$T_TMP/tty.out")"

        info "the pager: on a terminal only, SYSTEMD_PAGER before PAGER, LESS=FRSXMK, --no-pager"
        cat > "$T_TMP/pager" <<EOP
#!/bin/sh
echo "\$0 \$* LESS=\$LESS" >> "$T_TMP/pager.log"
cat > "$T_TMP/pager.out"
EOP
        chmod +x "$T_TMP/pager"
        tty_run "PAGER='$T_TMP/pager --arg' '$IGMPCTL' status v0"
        grep -qx "$T_TMP/pager --arg LESS=FRSXMK" "$T_TMP/pager.log" || fail "PAGER not run as expected: $(cat "$T_TMP/pager.log" 2>&1)"
        # The colours of the terminal go into the pager (less -R shows them).
        cmp -s "$T_TMP/pager.out" <(SYSTEMD_COLORS=1 ctl status v0) ||
                fail "the pager got other output than status prints: $(cat "$T_TMP/pager.out")"
        rm -f "$T_TMP/pager.log"
        tty_run "SYSTEMD_PAGER='$T_TMP/pager' PAGER=false SYSTEMD_LESS=FRX '$IGMPCTL' list"
        grep -qx "$T_TMP/pager  LESS=FRX" "$T_TMP/pager.log" || fail "SYSTEMD_PAGER/SYSTEMD_LESS: $(cat "$T_TMP/pager.log" 2>&1)"
        rm -f "$T_TMP/pager.log"
        tty_run "PAGER='$T_TMP/pager' '$IGMPCTL' --no-pager list; PAGER=cat '$IGMPCTL' list; PAGER= '$IGMPCTL' list"
        [ "$(grep -c 'links listed' "$T_TMP/tty.out")" = 3 ] || fail "--no-pager, PAGER=cat or PAGER= did not print directly"
        [ ! -e "$T_TMP/pager.log" ] || fail "pager run despite --no-pager: $(cat "$T_TMP/pager.log")"
        PAGER="$T_TMP/pager" ctl list > /dev/null
        [ ! -e "$T_TMP/pager.log" ] || fail "pager run into a pipe"
        # A pager that cannot be run: others are tried, and in the end the output is not lost.
        tty_run "PAGER=/nonexistent/pager PATH=/nonexistent '$IGMPCTL' list"
        grep -q 'links listed' "$T_TMP/tty.out" || fail "output lost when no pager can be run: $(cat "$T_TMP/tty.out")"

        info "--no-ask-password: polkit may ask only from a terminal, and not with it"
        # The ALLOW_INTERACTIVE_AUTHORIZATION header flag (4) of igmpctl's calls, seen on the wire.
        busctl --system --json=short monitor org.igmpd1 > "$T_TMP/flags.json" 2> "$T_TMP/flags.err" &
        MON=$!
        _T_PIDS+=($MON)
        wait_until "grep -qi monitoring '$T_TMP/flags.err'" || fail "busctl monitor did not start"
        tty_run "'$IGMPCTL' link v0 --v3-interval 201"
        ctl link v0 --v3-interval 202
        tty_run "'$IGMPCTL' --no-ask-password link v0 --v3-interval 203"
        expect_knob "$NS" ipv4 v0 $V3 203
        flags_of() { jq -r "select(.member == \"SetKnobs\" and .payload.data[0].$V3.data == $1) | .flags" "$T_TMP/flags.json"; }
        wait_until "[ -n \"\$(flags_of 203)\" ]" || fail "SetKnobs calls not seen: $(cat "$T_TMP/flags.json")"
        [ $(($(flags_of 201) & 4)) = 4 ] || fail "on a terminal: not interactive (flags $(flags_of 201))"
        [ $(($(flags_of 202) & 4)) = 0 ] || fail "without a terminal: interactive (flags $(flags_of 202))"
        [ $(($(flags_of 203) & 4)) = 0 ] || fail "--no-ask-password: interactive (flags $(flags_of 203))"
        kill "$MON"
        expect_rc 0 ctl link v0 --revert
        expect_knob "$NS" ipv4 v0 $V3 300
else
        info "script(1) is not installed: terminal behaviour not checked"
fi

info "status --json: the same shape as Describe()"
ctl --json=short status v0 > "$T_TMP/status.json"
jq_true "$T_TMP/status.json" 'length == 1'
jq_true "$T_TMP/status.json" ".[0].knobs.$V3 == {\"kernel\": 300, \"policy\": 300, \"source\": \"$T_CONF/10-site.conf\", \"drifted\": false}"
jq_true "$T_TMP/status.json" '.[0] | keys == ["alternative_names", "ignored_sources", "index", "kind", "knobs", "last_error", "mac_address", "matched_files", "name", "state", "type"]'
jq_true "$T_TMP/status.json" '.[0].type == "ether" and .[0].mac_address == "02:00:00:00:00:01"'
[ -z "$ALTNAME" ] || jq_true "$T_TMP/status.json" '.[0].alternative_names == ["uplink-0"]'
bctl --json=short call org.igmpd1 /org/igmpd1 org.igmpd1.Manager Describe | jq -r '.data[0]' > "$T_TMP/describe.json"
[ "$(jq -c '.[0]' "$T_TMP/status.json")" = "$(jq -c '.links[] | select(.name == "v0")' "$T_TMP/describe.json")" ] ||
        fail "status --json and Describe() disagree"
ctl --json=short status > "$T_TMP/status-all.json"
jq_true "$T_TMP/status-all.json" 'length == 3'

info "every JSON key igmpctl prints is documented in igmpctl(1), JSON OUTPUT"
ctl --json=short kernel > "$T_TMP/kernel-keys.json"
ctl --json=short audit > "$T_TMP/audit-keys.json"
awk '$0 == "# JSON OUTPUT" { on = 1; next } /^# / { on = 0 } on' "$SRCDIR/man/igmpctl.1.scd" > "$T_TMP/json-doc"
for f in list.json status-all.json kernel-keys.json audit-keys.json; do
        # Object keys, except the knob names (documented as such).
        jq -r '[paths | .[] | strings] | unique | .[]' "$T_TMP/$f"
done | sort -u | grep -vxE '[a-z0-9]+_unsolicited_report_interval|force_[a-z]+_version' > "$T_TMP/json-keys"
[ "$(wc -l < "$T_TMP/json-keys")" -ge 15 ] || fail "too few JSON keys found: $(cat "$T_TMP/json-keys")"
while read -r key; do
        grep -qF "*$key*" "$T_TMP/json-doc" || fail "JSON key '$key' is not documented in igmpctl(1), JSON OUTPUT"
done < "$T_TMP/json-keys"

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
expect_rc 0 ctl link v0 --v2-interval 1h     # hours: the maximum is 596h (2147483647 ms)
expect_knob "$NS" ipv4 v0 igmpv2_unsolicited_report_interval 3600000
expect_rc 2 ctl link v0 --v2-interval 597h
grep -q "out of range" "$T_TMP/err" || fail "597h: $(cat "$T_TMP/err")"
expect_rc 0 ctl link v0 --mld-v1-interval 5000 --persistent
expect_knob "$NS" ipv6 v0 mldv1_unsolicited_report_interval 5000
[ -f "$T_ROOT/etc/igmpd/runtime.d/v0.conf" ] || fail "--persistent wrote no file under the config root"
grep -qx 'V1UnsolicitedReportInterval=5000ms' "$T_ROOT/etc/igmpd/runtime.d/v0.conf" || fail "persistent file content"
ctl status v0 | grep -qE "^mldv1_unsolicited_report_interval +5000ms +5000ms +runtime:persistent$" ||
        fail "status after link --persistent: $(ctl status v0)"
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
in_ns "$NS" sh -c "echo 999 > /proc/sys/net/ipv4/conf/v0/$V3"
expect_rc 0 ctl reconfigure 'v*'
expect_knob "$NS" ipv4 v0 $V3 300
expect_rc 7 ctl reconfigure 'nomatch*'
grep -qx "No link matches 'nomatch\*' (see igmpctl list)." "$T_TMP/err" || fail "reconfigure glob: $(cat "$T_TMP/err")"
conf_put 20-all.conf <<'CONF'
[Match]
Name=v1

[IGMP]
V3UnsolicitedReportInterval=400
CONF
expect_rc 0 ctl reload
expect_knob "$NS" ipv4 v1 $V3 400
[ ! -s "$T_TMP/err" ] || fail "a clean reload printed: $(cat "$T_TMP/err")"
ctl status v0 | grep -q 'Problems' && fail "status shows problems without any: $(ctl status v0)"

info "reload with problems: applied, said, exit 10; status shows them until they are fixed"
printf '[Match]\nName=v1\n[IGMP]\nVersion=7\nV2UnsolicitedReportInterval=600\n' > "$T_CONF/30-typo.conf"
printf '[Mtach]\nName=v0\n[IGMP]\nVersion=2\n' > "$T_CONF/40-widen.conf"
expect_rc 10 ctl reload
expect_knob "$NS" ipv4 v1 igmpv2_unsolicited_report_interval 600     # the rest of the file applies
[ "$(head -n1 "$T_TMP/err")" = "igmpd reloaded with 2 problems; see igmpd --check." ] || fail "reload: $(cat "$T_TMP/err")"
grep -qx "  $T_CONF/30-typo.conf:4: Version=7 is out of range (auto, 1, 2 or 3), ignoring." "$T_TMP/err" ||
        fail "reload does not list the problem: $(cat "$T_TMP/err")"
grep -qx "  $T_CONF/40-widen.conf:1: Unknown section \[Mtach\], file skipped." "$T_TMP/err" ||
        fail "reload does not list the skipped file: $(cat "$T_TMP/err")"
COLUMNS=200 ctl status v0 > "$T_TMP/status-problems"
grep -qE '^ +Problems: 2 in the configuration; igmpd --check shows them all$' "$T_TMP/status-problems" ||
        fail "status has no problems line: $(cat "$T_TMP/status-problems")"
grep -qxF "                   $T_CONF/30-typo.conf:4: Version=7 is out of range (auto, 1, 2 or 3), ignoring." "$T_TMP/status-problems" ||
        fail "status does not show the first problem: $(cat "$T_TMP/status-problems")"
grep -qx "● $IDX: v0" "$T_TMP/status-problems" || fail "status after the problems line: $(cat "$T_TMP/status-problems")"
ctl --json=short status v0 | jq -e 'length == 1' > /dev/null || fail "status --json is not the array of links any more"
rm -f "$T_CONF/30-typo.conf" "$T_CONF/40-widen.conf"
expect_rc 0 ctl reload
ctl status v0 | grep -q 'Problems' && fail "status still shows problems after they were fixed: $(ctl status v0)"

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
# The kernel log gives no pid: "-", not 0.
grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} +kmsg +- +mcastd +/proc/sys/net/ipv4/conf/all/force_igmp_version +1$' "$T_TMP/out" ||
        fail "audit row of the kmsg event: $(cat "$T_TMP/out")"
# A partly translated path says so: it names no file.
grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} +kmsg +- +oldtool +/proc/sys/kernel/osrelease/3 \(partly translated\) +1$' "$T_TMP/out" ||
        fail "audit row of the partly translated event: $(cat "$T_TMP/out")"
# On the wire: the path with the mark (the signature is unchanged).
bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Audit ListEvents |
        grep -qF '"kmsg" 0 "oldtool" "" 3 1 2 3 "/proc/sys/kernel/osrelease/3 (partly translated)" 1' ||
        fail "ListEvents: $(bctl call org.igmpd1 /org/igmpd1 org.igmpd1.Audit ListEvents)"
ctl --json=short audit > "$T_TMP/audit.json"
jq_true "$T_TMP/audit.json" "length == $N_EVENTS"
jq_true "$T_TMP/audit.json" 'all(.[]; keys == ["comm", "exe", "name", "path", "path_partial", "pid", "realtime_usec", "repeats", "source"])'
jq_true "$T_TMP/audit.json" '.[] | select(.comm == "oldtool") | .path == "/proc/sys/kernel/osrelease/3" and .path_partial == true'
jq_true "$T_TMP/audit.json" '.[] | select(.comm == "mcastd") | .path == "/proc/sys/net/ipv4/conf/all/force_igmp_version" and .path_partial == false'
"$IGMPCTL" audit --follow > "$T_TMP/follow.out" 2> "$T_TMP/follow.err" &
FOLLOW=$!
wait_until "grep -q 'Following' '$T_TMP/follow.err'" || fail "audit --follow did not start: $(cat "$T_TMP/follow.err")"
kill -INT $FOLLOW
rc=0
wait $FOLLOW || rc=$?
[ $rc = 0 ] || fail "audit --follow exited $rc on Ctrl-C"

info "bash completion: verbs, options, values and link names"
(
        # (no pipefail: "comp … | grep -q" stops reading early)
        set +eu +o pipefail
        # shellcheck source=/dev/null
        . "$SRCDIR/data/bash-completion/igmpctl"
        # The completion calls igmpctl for link names: record how.
        igmpctl() { echo "$*" >> "$T_TMP/comp-calls"; "$IGMPCTL" "$@"; }
        # comp WORD…: the words as bash splits them (COMP_WORDBREAKS has '='), the cursor on the
        # last. _init_completion (the bash-completion package) is not loaded here.
        comp() {
                COMP_WORDS=("$@")
                COMP_CWORD=$(($# - 1))
                COMPREPLY=()
                _igmpctl
                printf '%s\n' "${COMPREPLY[@]}"
        }
        ! declare -F _init_completion > /dev/null || exit 99
        [ "$(comp igmpctl "" | sort | tr '\n' ' ')" = "audit kernel link list monitor nm reconfigure reload status " ] || exit 1
        comp igmpctl st | grep -qx status || exit 2
        comp igmpctl status "" | grep -qx v0 || exit 3
        comp igmpctl link v || exit 4
        [ "$(comp igmpctl link v | sort | tr '\n' ' ')" = "v0 v1 " ] || exit 5
        comp igmpctl link v0 --v3 | grep -qx -- --v3-interval || exit 6
        comp igmpctl link v0 --per | grep -qx -- --persistent || exit 7
        # after "link LINK" only its options can follow: offered without typing "--"
        [ "$(comp igmpctl link v0 "" | sort | tr '\n' ' ')" = "--igmp-version --mld-v1-interval --mld-v2-interval --mld-version --persistent --revert --revert= --runtime --v2-interval --v3-interval " ] || exit 8
        # --revert=KNOB[,KNOB]: the knobs' option names, also after a comma
        comp igmpctl link v0 --revert = v3 | grep -qx v3-interval || exit 8
        comp igmpctl link v0 --revert = v3-interval,mld-v | grep -qx -- v3-interval,mld-v1-interval || exit 8
        comp igmpctl link v0 --v3-interval 200 "" | grep -qx -- --persistent || exit 8
        comp igmpctl link v0 --igmp-version "" | grep -qx auto || exit 9
        comp igmpctl audit --f | grep -qx -- --follow || exit 10
        ! comp igmpctl list --f | grep -q -- --follow || exit 11
        comp igmpctl --json = | grep -qx pretty || exit 12
        comp igmpctl --json = p | grep -qx pretty || exit 13
        # "--json=pretty st<TAB>": bash splits it into --json = pretty st
        [ "$(comp igmpctl --json = pretty st)" = status ] || exit 14
        comp igmpctl --json = short status "" | grep -qx v0 || exit 15
        comp igmpctl --json pretty st | grep -qx status || exit 16
        comp igmpctl --no-p | grep -qx -- --no-pager || exit 17
        # -H: the remote host's links, never the local bus's
        rm -f "$T_TMP/comp-calls"
        [ -z "$(comp igmpctl -H nosuchhost.invalid status "")" ] || exit 18
        grep -q -- '^-H nosuchhost.invalid .*list$' "$T_TMP/comp-calls" || exit 19
        ! grep -qv -- '^-H nosuchhost.invalid ' "$T_TMP/comp-calls" || exit 20
        rm -f "$T_TMP/comp-calls"
        [ -z "$(comp igmpctl --host = nosuchhost.invalid link "")" ] || exit 21
        grep -q -- '^-H nosuchhost.invalid ' "$T_TMP/comp-calls" || exit 22
        # -M: the container's links, never the local bus's
        rm -f "$T_TMP/comp-calls"
        [ -z "$(comp igmpctl -M igmpd-no-such-container status "")" ] || exit 23
        grep -q -- '^-M igmpd-no-such-container .*list$' "$T_TMP/comp-calls" || exit 24
        ! grep -qv -- '^-M igmpd-no-such-container ' "$T_TMP/comp-calls" || exit 25
        comp igmpctl --mach | grep -qx -- --machine= || exit 26
) || fail "bash completion check $? failed"

info "bad usage exits 2"
expect_rc 2 ctl frobnicate
expect_rc 2 ctl link v0
grep -q 'nothing to do' "$T_TMP/err" || fail "link without options: $(cat "$T_TMP/err")"
expect_rc 2 ctl link v0 --v3-interval fast
grep -q "Invalid value for --v3-interval: 'fast'" "$T_TMP/err" || fail "bad value message: $(cat "$T_TMP/err")"
# A forgotten value is a forgotten value, not an unknown option.
expect_rc 2 ctl link v0 --v3-interval
grep -qx "igmpctl: option '--v3-interval' needs a value. See igmpctl --help." "$T_TMP/err" || fail "missing value: $(cat "$T_TMP/err")"
expect_rc 2 ctl link v0 --v3-interval --persistent
grep -q "option '--v3-interval' needs a value" "$T_TMP/err" || fail "value forgotten before an option: $(cat "$T_TMP/err")"
expect_rc 2 ctl status -H
grep -q "option '-H' needs a value" "$T_TMP/err" || fail "-H without host: $(cat "$T_TMP/err")"
expect_rc 2 ctl link v0 --v3-interval 0
expect_rc 2 ctl link v0 --igmp-version 4
expect_rc 2 ctl link v0 --revert --v3-interval 200
expect_rc 2 ctl link
expect_rc 2 ctl reconfigure
grep -qx 'igmpctl: reconfigure needs at least one LINK or pattern. See igmpctl --help.' "$T_TMP/err" ||
        fail "reconfigure without LINK: $(cat "$T_TMP/err")"
expect_rc 2 ctl list extra
expect_rc 2 ctl --json=xml list
expect_rc 2 ctl --follow list
expect_rc 2 ctl --no-such-option
expect_rc 0 ctl --help
expect_rc 0 ctl --version
grep -qE '^igmpctl [0-9]' "$T_TMP/out" || fail "--version: $(cat "$T_TMP/out")"

info "failures exit with a status of their own and say what to do (igmpctl(1), EXIT STATUS)"
expect_rc 7 ctl link nosuch0 --v3-interval 200
grep -qx 'No such link: nosuch0 (see igmpctl list)' "$T_TMP/err" || fail "no such link: $(cat "$T_TMP/err")"
expect_rc 7 ctl status 4242
grep -qx 'No such link: 4242 (see igmpctl list)' "$T_TMP/err" || fail "no such ifindex: $(cat "$T_TMP/err")"
# A name igmpd refuses: its InvalidArgument is no usage error of igmpctl's. (Its message quotes
# '..', so it stays out of the punctuation check below.)
rc=0
ctl link ../x --v3-interval 200 > /dev/null 2> "$T_TMP/refused.err" || rc=$?
[ "$rc" = 8 ] || fail "a name igmpd refuses: exit $rc, expected 8: $(cat "$T_TMP/refused.err")"
grep -q "is not a valid interface name" "$T_TMP/refused.err" || fail "refused name: $(cat "$T_TMP/refused.err")"
expect_rc 6 as_nobody "$IGMPCTL" link v0 --v3-interval 100
grep -q 'Permission denied: run as root or authorize via polkit' "$T_TMP/err" || fail "denied: $(cat "$T_TMP/err")"
expect_rc 6 as_nobody "$IGMPCTL" reload
expect_rc 0 as_nobody "$IGMPCTL" status v0
expect_knob "$NS" ipv4 v0 $V3 300

info "no igmpd on the bus, and no bus at all, are told apart (both exit 5)"
igmpd_stop
expect_rc 5 ctl list
grep -qx "Failed to list links: igmpd is not running: nothing owns org.igmpd1 on the system bus at $DBUS_SYSTEM_BUS_ADDRESS (from \$DBUS_SYSTEM_BUS_ADDRESS). Start it with systemctl start igmpd." "$T_TMP/err" ||
        fail "not running: $(cat "$T_TMP/err")"
expect_rc 5 env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T_TMP/no-such-socket" "$IGMPCTL" status
grep -qx "Cannot reach the system bus at unix:path=$T_TMP/no-such-socket (from \$DBUS_SYSTEM_BUS_ADDRESS): No such file or directory. Is D-Bus running?" "$T_TMP/err" ||
        fail "no bus: $(cat "$T_TMP/err")"
! grep -q 'igmpd is not running' "$T_TMP/err" || fail "an unreachable bus blamed on igmpd: $(cat "$T_TMP/err")"
dbus_stop
expect_rc 5 ctl list
grep -q "^Cannot reach the system bus at $DBUS_SYSTEM_BUS_ADDRESS" "$T_TMP/err" || fail "bus gone: $(cat "$T_TMP/err")"

info "-M CONTAINER: a container's bus through systemd-machined (none here: exit 5, and why)"
expect_rc 5 ctl -M igmpd-no-such-container list
grep -q "^Cannot reach the system bus of container igmpd-no-such-container: .* Is the container running and registered with systemd-machined (machinectl list), with D-Bus in it?$" "$T_TMP/err" ||
        fail "-M to no container: $(cat "$T_TMP/err")"
expect_rc 2 ctl -H root@example.invalid -M igmpd-no-such-container list
grep -qx "igmpctl: -H and -M cannot go together: one bus at a time." "$T_TMP/err" || fail "-H with -M: $(cat "$T_TMP/err")"
expect_rc 2 ctl list -M
grep -qx "igmpctl: option '-M' needs a value. See igmpctl --help." "$T_TMP/err" || fail "-M without a value: $(cat "$T_TMP/err")"
expect_rc 2 ctl -M '' list
grep -qx "igmpctl: option '-M' needs a container name, not an empty string." "$T_TMP/err" || fail "-M '': $(cat "$T_TMP/err")"
expect_rc 2 ctl --host= list
grep -qx "igmpctl: option '-H' needs a host name, not an empty string." "$T_TMP/err" || fail "--host=: $(cat "$T_TMP/err")"

info "no doubled punctuation in the messages seen above"
grep -hE '\.\.[^.]|\.\.$|[.,;:] *[.,;:]|…[.,;:]|\)\)' "$T_TMP/all-err" && fail "doubled punctuation (above)"

echo "PASS: $T_NAME"
