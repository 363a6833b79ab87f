#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Ansible role of contrib/ansible/ applied for real to two booted Debian 12 containers over
# ssh (ansible-core from Debian 12 on this machine; openssh-server, python3 and python3-apt in the
# containers, from build-rootfs-pkg.sh). Both are reached only through veths whose host ends sit
# in a throwaway namespace, where ansible-playbook runs. The role installs the package from a
# path, pushes a policy, checks it with igmpd --check, reloads and asserts with igmpctl.
#   1. first run: the policy is in force on both hosts;
#   2. second run: changed=0 on both;
#   3. a broken policy variable: the play fails at the --check step on both hosts, and neither
#      reloads nor changes /etc/igmpd.
# Exit 77 (skip) when this machine cannot boot a container, build the root or the package, or
# has no ansible-playbook.
set -euo pipefail

T_NAME=ansible
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$SRCDIR/build}
HERE=$SRCDIR/tests/nspawn
BOOT_TIMEOUT=${IGMPD_NSPAWN_TIMEOUT:-300}

skip() { echo "SKIP: $T_NAME: $*"; exit 77; }
fail() {
        echo "FAIL: $T_NAME: $*" >&2
        [ -f "${T_TMP:-}/play.log" ] && { echo "---- last ansible-playbook output ----" >&2; tail -n 60 "$T_TMP/play.log" >&2; }
        exit 1
}
info() { echo "# $*"; }
. "$HERE/nspawn-lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (overlay mounts, network namespaces, systemd-nspawn)"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is not installed (package systemd-container)"
command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (package ansible-core)"

T_TMP=$(mktemp -d /tmp/igmpd-nspawn-ansible.XXXXXX)
NSPAWN_NETNS=()
NSPAWN_PIDS=()
NSPAWN_ROOTS=()
trap nspawn_cleanup EXIT
trap 'exit 130' INT TERM
start=$(date +%s)

rc=0
LOWER=$("$HERE/build-rootfs-pkg.sh") || rc=$?
[ $rc -eq 77 ] && skip "cannot build the Debian root (no debootstrap, nspawn or mirror)"
[ $rc -eq 0 ] || fail "building the Debian root failed"
nspawn_debs
nspawn_ssh_setup

# 1. Two containers without igmpd (the role installs it), each with a veth vt0 made at boot
# (a link for the policy to apply to).
HOSTS=(host1 host2)
declare -A ADDR=([host1]=192.168.214.2 [host2]=192.168.215.2)
for h in "${HOSTS[@]}"; do
        root=$T_TMP/$h/root
        mkdir -p "$T_TMP/$h"
        nspawn_overlay "$LOWER" "$root" "$T_TMP/$h"
        NSPAWN_ROOTS+=("$root")
        nspawn_ssh_root "$root" "${ADDR[$h]}"
        cat > "$root/etc/systemd/system/igmpd-test-vt0.service" <<'UNIT'
[Unit]
Description=A link for the policy

[Service]
Type=oneshot
ExecStart=/sbin/ip link add vt0 type veth peer name vt1

[Install]
WantedBy=multi-user.target
UNIT
        ln -s /etc/systemd/system/igmpd-test-vt0.service "$root/etc/systemd/system/multi-user.target.wants/"
done
nspawn_probe "$T_TMP/host1/root"
info "booting two containers ($(( $(date +%s) - start )) s so far)"
nspawn_boot_veth "$T_TMP/host1/root" "igmpd-ansible1-$$" c1 192.168.214.1
nspawn_boot_veth "$T_TMP/host2/root" "igmpd-ansible2-$$" c2 192.168.215.1
for h in "${HOSTS[@]}"; do
        nspawn_wait_ssh "${ADDR[$h]}" any
done
info "both up ($(( $(date +%s) - start )) s so far)"
on() { local h=$1; shift; nspawn_client ssh "root@${ADDR[$h]}" "$@"; }
knob() { on "$1" cat /proc/sys/net/ipv4/conf/vt0/igmpv3_unsolicited_report_interval; }
reloads() { on "$1" journalctl -b -u igmpd.service -o cat --no-pager | grep -c "Reloading configuration" || true; }

# 2. Ansible: its own configuration and state under T_TMP, our ssh configuration.
mkdir -p "$T_TMP/ansible"
cat > "$T_TMP/ansible/ansible.cfg" <<EOF
[defaults]
roles_path = $SRCDIR/contrib/ansible/roles
inventory = $T_TMP/ansible/hosts
gathering = explicit
nocows = true
retry_files_enabled = false
interpreter_python = /usr/bin/python3
forks = 2

[ssh_connection]
ssh_args = -F $T_TMP/ssh_config -o ControlMaster=auto -o ControlPersist=120s
control_path_dir = $T_TMP/ansible/cp
pipelining = true
EOF
{
        echo "[fleet]"
        for h in "${HOSTS[@]}"; do echo "$h ansible_host=${ADDR[$h]} ansible_user=root"; done
} > "$T_TMP/ansible/hosts"
cat > "$T_TMP/ansible/site.yml" <<'EOF'
- hosts: fleet
  roles:
    - igmpd
EOF
# play NAME VARS-FILE: runs the playbook, output in $T_TMP/play-NAME.log (and play.log); sets PRC.
play() {
        PRC=0
        nspawn_client env ANSIBLE_CONFIG="$T_TMP/ansible/ansible.cfg" ANSIBLE_HOME="$T_TMP/ansible/home" \
                ANSIBLE_LOCAL_TEMP="$T_TMP/ansible/tmp" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
                timeout 600 ansible-playbook "$T_TMP/ansible/site.yml" -e "@$2" > "$T_TMP/play-$1.log" 2>&1 || PRC=$?
        cp "$T_TMP/play-$1.log" "$T_TMP/play.log"
        grep -A3 '^PLAY RECAP' "$T_TMP/play-$1.log" | sed "s/^/# $1: /"
}
recap() { grep -E "^$1 +:" "$T_TMP/play.log"; }

cat > "$T_TMP/good.yml" <<EOF
igmpd_package_path: $DEB
igmpd_policies:
  50-fleet.conf:
    match: { Name: "vt*" }
    igmp: { V3UnsolicitedReportInterval: 250ms }
igmpd_expect:
  vt0: { igmpv3_unsolicited_report_interval: 250 }
EOF
sed 's/V3UnsolicitedReportInterval: 250ms/V3UnsolicitedReportInterval: fast/' "$T_TMP/good.yml" > "$T_TMP/broken.yml"

info "first run"
t=$(date +%s)
play first "$T_TMP/good.yml"
info "first run took $(( $(date +%s) - t )) s"
[ $PRC -eq 0 ] || fail "the first run failed (rc $PRC)"
for h in "${HOSTS[@]}"; do
        [[ "$(recap "$h")" == *" failed=0 "* ]] || fail "$h: $(recap "$h")"
        [ "$(on "$h" systemctl is-active igmpd.service)" = active ] || fail "$h: igmpd.service is not active"
        [ "$(knob "$h")" = 250 ] || fail "$h: vt0 is $(knob "$h"), expected 250"
done
grep -q '"msg": ".* links, none failed, 1 expected link(s) as wanted"' "$T_TMP/play.log" ||
        fail "the role's assertion did not report success"

info "second run: nothing to change"
t=$(date +%s)
play second "$T_TMP/good.yml"
info "second run took $(( $(date +%s) - t )) s"
[ $PRC -eq 0 ] || fail "the second run failed (rc $PRC)"
for h in "${HOSTS[@]}"; do
        [[ "$(recap "$h")" =~ \ changed=0\ .*\ failed=0\  ]] || fail "$h, second run: $(recap "$h")"
done
declare -A RELOADS
for h in "${HOSTS[@]}"; do
        RELOADS[$h]=$(reloads "$h")
        on "$h" cat /etc/igmpd/conf.d/50-fleet.conf > "$T_TMP/$h/policy-before"
done

info "third run: a broken policy variable"
play broken "$T_TMP/broken.yml"
[ $PRC -ne 0 ] || fail "the play with a broken policy succeeded"
for h in "${HOSTS[@]}"; do
        [[ "$(recap "$h")" == *" failed=1 "* ]] || fail "$h, broken run: $(recap "$h")"
        # The failing task is the --check one, with igmpd's FILE:LINE message.
        task=$(awk '/^TASK \[/ { task = $0 } /^fatal: \['"$h"'\]/ { print task }' "$T_TMP/play.log")
        [[ "$task" == "TASK [igmpd : Stop if igmpd --check found a problem]"* ]] ||
                fail "$h did not fail at the --check step but at: $task"
        msg=$(grep "^fatal: \[$h\]" "$T_TMP/play.log")
        [[ "$msg" == *"50-fleet.conf:7: Invalid V3UnsolicitedReportInterval= value 'fast'"* ]] ||
                fail "$h: no FILE:LINE message from igmpd --check in the play's output: $msg"
        [ "$(reloads "$h")" = "${RELOADS[$h]}" ] || fail "$h reloaded after the failed check"
        on "$h" cat /etc/igmpd/conf.d/50-fleet.conf | cmp -s - "$T_TMP/$h/policy-before" ||
                fail "$h: /etc/igmpd/conf.d/50-fleet.conf changed although the check failed"
        [ "$(knob "$h")" = 250 ] || fail "$h: vt0 is $(knob "$h") after the failed run, expected 250"
done
grep -m1 "^fatal:" "$T_TMP/play.log" | sed 's/^/# /'  # (the operator's view)

info "$(( $(date +%s) - start )) s in all"
echo "PASS: $T_NAME"
