#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Namespaces=named under valgrind memcheck: namespaces followed at start and after, the CNI
# flow, a namespace deleted (its child Manager freed), a name bound anew, a reload, Namespaces=
# switched off and on by reloads, stop. Exit status 0 and no definite leak.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netns-lib.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed"
igmpd_linked_with libasan libubsan && skip "a sanitizer build checks memory itself"
VG_LOG=$T_TMP/valgrind.log
REAL_IGMPD=$IGMPD
IGMPD=$T_TMP/igmpd-under-valgrind
cat > "$IGMPD" <<WRAP
#!/bin/sh
exec valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite --track-fds=no --log-file="$VG_LOG" "$REAL_IGMPD" "\$@"
WRAP
chmod +x "$IGMPD"
V3=igmpv3_unsolicited_report_interval
export WAIT_SECS=60

HOST=$(zns_add host)
POD1=$(zns_add pod-a)
veth_add "$POD1" eth0 peer0
named_conf
pods_conf
igmpd_start "$HOST"
expect_knob "$POD1" ipv4 eth0 $V3 150
POD2=$(zns_add pod-b)
wait_until "grep -q 'Following network namespace $POD2' '$T_LOG'" || fail "$POD2 was not followed"
ip -n "$HOST" link add vcni0 type veth peer name vcni1
ip -n "$HOST" link set vcni0 netns "$POD2"
ip -n "$POD2" link set vcni0 name eth0
expect_knob "$POD2" ipv4 eth0 $V3 150
ip netns del "$POD2"
wait_until "grep -q 'Network namespace $POD2 is gone' '$T_LOG'" || fail "$POD2 was not forgotten"
ip netns del "$POD1" && ip netns add "$POD1"
veth_add "$POD1" eth0 peer0
expect_knob "$POD1" ipv4 eth0 $V3 150
sed -i 's/=150/=120/' "$T_CONF/20-pods.conf"
igmpd_reload
expect_knob "$POD1" ipv4 eth0 $V3 120
rm "$T_ROOT/etc/igmpd/igmpd.conf.d/50-named.conf"
igmpd_reload
wait_until "grep -q 'no longer following' '$T_LOG'" || fail "Namespaces=self on reload did not stop following"
named_conf
igmpd_reload
wait_until "[ \$(grep -c 'Following network namespace $POD1' '$T_LOG') -ge 3 ]" || fail "Namespaces=named on reload did not follow again"

kill -TERM "$T_IGMPD_PID"
rc=0
wait "$T_IGMPD_PID" || rc=$?
T_IGMPD_PID=""
info "igmpd under valgrind exited with $rc"
grep -E 'ERROR SUMMARY|definitely lost' "$VG_LOG" | sed 's/^/# /'
[ "$rc" -eq 0 ] || { sed -n '1,200p' "$VG_LOG" >&2; fail "exit status $rc (99: valgrind found errors)"; }
grep -q 'ERROR SUMMARY: 0 errors' "$VG_LOG" || { cat "$VG_LOG" >&2; fail "valgrind reported errors"; }
echo "PASS: $T_NAME"
