#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""audit-forge: sends a made-up audit SYSCALL record (a sysctl(2) call by pid FAKE_PID, comm
"forged") straight to the audit multicast listener of process PID, as any process with
CAP_NET_ADMIN can: a unicast to that socket's netlink port, which the kernel marks as coming
from this process's port (nl_pid != 0), not from the kernel (0).

    audit-forge.py PID FAKE_PID [COUNT]

Prints the port it sent to. Exit 1 if PID has no NETLINK_AUDIT socket joined to a group (in
this network namespace: /proc/net/netlink is per namespace).
"""
import os
import socket
import struct
import sys
import time

NETLINK_AUDIT = 9
AUDIT_SYSCALL = 1300


def socket_inodes(pid):
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def audit_listener_port(pid):
    inodes = socket_inodes(pid)
    with open("/proc/net/netlink") as f:
        next(f)
        for line in f:
            # sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
            fields = line.split()
            if int(fields[1]) == NETLINK_AUDIT and int(fields[3], 16) != 0 and int(fields[9]) in inodes:
                return int(fields[2])
    return None


def main():
    pid, fake_pid = int(sys.argv[1]), int(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    port = audit_listener_port(pid)
    if port is None:
        print(f"audit-forge: process {pid} has no audit multicast listener here", file=sys.stderr)
        return 1
    now = time.time()
    text = (f"audit({int(now)}.{int(now * 1000) % 1000:03d}:4242): arch=c000003e syscall=156 success=no "
            f"exit=-38 a0=7ffc0 a1=0 a2=0 a3=0 items=0 ppid=1 pid={fake_pid} auid=0 uid=0 gid=0 euid=0 "
            f"suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=1 comm=\"forged\" exe=\"/usr/bin/forged\" "
            f"key=\"igmpd-sysctl\"").encode()
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
    s.bind((0, 0))
    for seq in range(count):
        msg = struct.pack("=LHHLL", 16 + len(text), AUDIT_SYSCALL, 0, seq, 0) + text
        s.sendto(msg, (port, 0))
    print(port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
