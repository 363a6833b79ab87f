#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A stand-in for journald's native socket, for tests: binds SOCKET (AF_UNIX, SOCK_DGRAM),
decodes each datagram of the native protocol (KEY=value lines, or KEY, a 64-bit little-endian
length and the value for values holding newlines) and appends it to OUT as one JSON object per
line. Entries passed as a memfd (too big for a datagram) are decoded the same way.

    journal-sink.py SOCKET OUT
"""
import array
import json
import os
import socket
import struct
import sys


def decode(data):
    entry = {}
    i = 0
    while i < len(data):
        nl = data.find(b"\n", i)
        if nl < 0:
            raise ValueError("field without a newline")
        line = data[i:nl]
        if b"=" in line:
            key, value = line.split(b"=", 1)
            i = nl + 1
        else:
            key = line
            (size,) = struct.unpack_from("<Q", data, nl + 1)
            value = data[nl + 9:nl + 9 + size]
            i = nl + 9 + size + 1
        entry.setdefault(key.decode(), value.decode("utf-8", "backslashreplace"))
    return entry


def main():
    path, out = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    os.chmod(path, 0o666)
    with open(out, "a", encoding="utf-8") as f:
        while True:
            data, anc, _, _ = sock.recvmsg(1 << 20, socket.CMSG_SPACE(4 * 4))
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds = array.array("i")
                    fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
                    for fd in fds:
                        data = os.pread(fd, os.fstat(fd).st_size, 0)
                        os.close(fd)
            try:
                f.write(json.dumps(decode(data)) + "\n")
            except (ValueError, struct.error) as e:
                f.write(json.dumps({"SINK_ERROR": str(e)}) + "\n")
            f.flush()


if __name__ == "__main__":
    main()
