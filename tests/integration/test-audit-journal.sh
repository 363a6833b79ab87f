#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The journal entry of a deprecated sysctl(2) call carries structured fields, and the catalog
# entry (journalctl -x) is built from them. igmpd runs with SYSTEMD_LOG_TARGET=journal in a
# private mount namespace whose /run/systemd/journal/socket is journal-sink.py (it writes each
# entry as JSON). Three kernel log records: one of igmpd's knobs on a link (the fix names the
# policy key and igmpctl link, not sysctl.d), a file igmpd does not manage (the fix names the
# file) and a name that translates only in part (flagged). Every @FIELD@ the installed catalog
# uses is in every entry, so journalctl -x never shows a bare field name; the catalog, with the
# installed paths filled in, passes journalctl --update-catalog.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
need_jq
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -f "${CATALOG:-}" ] || fail "CATALOG (the built data/catalog/igmpd.catalog) is not set"
dbus_start

NS=$(ns_new jrnl)
veth_add "$NS" v0 v1
IDX=$(ip -n "$NS" -o link show v0 | cut -d: -f1)
mkdir -p "$T_ROOT/etc/igmpd" "$T_TMP/journal"
printf '[Daemon]\nAuditSources=kmsg\nNetworkManager=no\n' > "$T_ROOT/etc/igmpd/igmpd.conf"
printf '%s\n' "4,1,1000,-;warning: process \`mcastd' used the deprecated sysctl system call with 3.5.16.$IDX.17." \
        "4,2,1001,-;warning: process \`fwdtool' used the deprecated sysctl system call with 3.5.16.-2.1." \
        "4,3,1002,-;warning: process \`oldtool' used the deprecated sysctl system call with 1.2.3." > "$T_TMP/kmsg"

ENTRIES=$T_TMP/entries.jsonl
: > "$ENTRIES"
python3 "$SRCDIR/tests/integration/journal-sink.py" "$T_TMP/journal/socket" "$ENTRIES" 2>> "$T_LOG" &
_T_PIDS+=($!)
wait_until "[ -S '$T_TMP/journal/socket' ]" || fail "journal-sink.py did not start: $(cat "$T_LOG")"

# /run is a fresh tmpfs in igmpd's mount namespace, so this works whether or not the machine runs
# journald; the private bus and the config root live elsewhere.
ip netns exec "$NS" unshare -m --propagation private sh -c '
        mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal &&
        mount --bind "$1" /run/systemd/journal &&
        exec env SYSTEMD_LOG_TARGET=journal SYSTEMD_LOG_LEVEL=info "$2" --config-root "$3" --kmsg-path "$4"' \
        sh "$T_TMP/journal" "$IGMPD" "$T_ROOT" "$T_TMP/kmsg" >> "$T_LOG" 2>&1 &
T_IGMPD_PID=$!
_T_PIDS+=("$T_IGMPD_PID")

MID=9198f75005114f39821d648609f38c7f
events() { jq -c "select(.MESSAGE_ID == \"$MID\")" "$ENTRIES"; }
wait_until "[ \$(events | wc -l) -ge 3 ]" ||
        fail "not 3 audit entries in the journal: $(cat "$ENTRIES") $(cat "$T_LOG")"
events > "$T_TMP/events.jsonl"
jq -s . "$T_TMP/events.jsonl" > "$T_TMP/events.json"
grep -q SINK_ERROR "$ENTRIES" && fail "journal-sink.py could not decode an entry: $(grep SINK_ERROR "$ENTRIES")"
info "entries: $(cat "$T_TMP/events.jsonl")"

info "one of igmpd's knobs on a link: the policy key and igmpctl link, not sysctl.d"
jq_true "$T_TMP/events.json" '.[] | select(.CALLER_COMM == "mcastd") |
        .PRIORITY == "4" and .CALLER == "'"'mcastd'"'" and (has("CALLER_PID") | not) and (has("CALLER_EXE") | not) and
        .SYSCTL_NAME == "3.5.16.'"$IDX"'.17." and .SYSCTL_PATH == "/proc/sys/net/ipv4/conf/v0/force_igmp_version" and
        (has("SYSCTL_PATH_PARTIAL") | not) and .AUDIT_SOURCE == "kmsg" and .REPEATS == "1" and
        (.SYSCTL_FIX | startswith("force_igmp_version is an igmpd knob: set [IGMP] Version= in a policy file in ")) and
        (.SYSCTL_FIX | contains("with [Match] Name=v0, or now with '"'igmpctl link v0 --igmp-version VALUE'"'")) and
        (.MESSAGE | startswith("Deprecated sysctl(2) call: process '"'mcastd'"'")) and
        (.MESSAGE | endswith(" Use igmpd'"'"'s policy ([IGMP] Version=) instead."))'

info "a file igmpd does not manage: the file to use"
jq_true "$T_TMP/events.json" '.[] | select(.CALLER_COMM == "fwdtool") |
        .SYSCTL_PATH == "/proc/sys/net/ipv4/conf/all/forwarding" and
        .SYSCTL_FIX == "Read or write the file /proc/sys/net/ipv4/conf/all/forwarding instead (sysctl(8) -w works too)." and
        (.MESSAGE | endswith(" Use /proc/sys instead."))'

info "a name past a leaf: flagged as partly translated"
jq_true "$T_TMP/events.json" '.[] | select(.CALLER_COMM == "oldtool") |
        .SYSCTL_PATH == "/proc/sys/kernel/osrelease/3" and .SYSCTL_PATH_PARTIAL == "1" and
        (.SYSCTL_FIX | startswith("The name does not name a file"))'

info "the catalog: every field it uses is in every entry; the installed paths are filled in"
FIELDS=$(awk "/^-- $MID/ { on = 1; next } /^-- / { on = 0 } on" "$CATALOG" | grep -o '@[A-Z_]*@' | tr -d @ | sort -u)
[ -n "$FIELDS" ] || fail "no @FIELD@ in the catalog entry $MID"
grep -qx SYSCTL_PATH <<< "$FIELDS" || fail "the catalog does not use @SYSCTL_PATH@"
for f in $FIELDS; do
        jq_true "$T_TMP/events.json" "all(.[]; has(\"$f\"))"
done
grep -q '\${' "$CATALOG" && fail "the built catalog still has a \${…}: $(grep -n '\${' "$CATALOG")"
grep -q 'data/audit/' "$CATALOG" && fail "the catalog points into the source tree: $(grep -n 'data/audit/' "$CATALOG")"
# What journalctl -x shows for the first entry (its substitution: @FIELD@ → the entry's value).
python3 - "$CATALOG" "$T_TMP/events.jsonl" > "$T_TMP/rendered" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read().split("-- 9198f75005114f39821d648609f38c7f\n", 1)[1].split("\n-- ", 1)[0]
entry = json.loads(open(sys.argv[2]).readline())
print(re.sub(r"@([A-Z0-9_]+)@", lambda m: entry.get(m.group(1), m.group(1)), text))
PY
info "journalctl -x would show: $(head -n 20 "$T_TMP/rendered")"
grep -q '^Subject: mcastd used the deprecated sysctl(2) system call$' "$T_TMP/rendered" ||
        fail "catalog subject: $(head -n 3 "$T_TMP/rendered")"
grep -q "^What to do: force_igmp_version is an igmpd knob" "$T_TMP/rendered" || fail "catalog fix: $(cat "$T_TMP/rendered")"

if command -v journalctl >/dev/null; then
        mkdir -p "$T_TMP/croot/usr/lib/systemd/catalog"
        cp "$CATALOG" "$T_TMP/croot/usr/lib/systemd/catalog/"
        journalctl --root="$T_TMP/croot" --update-catalog 2> "$T_TMP/catalog.err" ||
                fail "journalctl --update-catalog: $(cat "$T_TMP/catalog.err")"
        [ ! -s "$T_TMP/catalog.err" ] || fail "journalctl --update-catalog complained: $(cat "$T_TMP/catalog.err")"
        journalctl --root="$T_TMP/croot" --dump-catalog 2>&1 | grep -q "^Subject: @CALLER_COMM@ used the deprecated sysctl(2) system call$" ||
                fail "the catalog entry is not in journalctl's database: $(journalctl --root="$T_TMP/croot" --dump-catalog 2>&1 | head)"
else
        info "journalctl is not installed: the catalog's syntax is not checked"
fi

kill -TERM "$T_IGMPD_PID"
wait "$T_IGMPD_PID" 2>/dev/null || true
T_IGMPD_PID=""
echo "OK"
