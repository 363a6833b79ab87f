#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# data/dbus/org.igmpd1.xml is what the daemon serves: the org.igmpd1.* interfaces introspected
# from /org/igmpd1 and from a link object match the file — every method, property and signal,
# with argument names, types, directions, property access and the const annotation.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbus-lib.sh"
command -v python3 > /dev/null || skip "python3 is not installed (needed to compare XML)"
XML=$SRCDIR/data/dbus/org.igmpd1.xml
[ -f "$XML" ] || fail "$XML is missing"
dbus_start

NS=$(ns_new intro)
veth_add "$NS" v0 v1
igmpd_start "$NS"
igmpd_wait_bus
P=$(link_path "$(ifindex_of "$NS" v0)")

for path in /org/igmpd1 "$P"; do
        busctl --system call org.igmpd1 "$path" org.freedesktop.DBus.Introspectable Introspect --json=short |
                python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0])'
done > "$T_TMP/live.xml.parts"

python3 - "$XML" "$T_TMP/live.xml.parts" <<'PY' || fail "the introspection file and the daemon differ (see above)"
import sys
import xml.etree.ElementTree as ET

def interfaces(root):
    out = {}
    for i in root.iter("interface"):
        name = i.get("name")
        if not name.startswith("org.igmpd1."):
            continue
        members = {}
        for m in i:
            if m.tag in ("method", "signal"):
                args = tuple((a.get("name"), a.get("type"), a.get("direction", "in" if m.tag == "method" else "out"))
                             for a in m.findall("arg"))
                members[(m.tag, m.get("name"))] = args
            elif m.tag == "property":
                ann = tuple(sorted((a.get("name"), a.get("value")) for a in m.findall("annotation")))
                members[("property", m.get("name"))] = (m.get("type"), m.get("access"), ann)
        out[name] = members
    return out

file_ifaces = interfaces(ET.parse(sys.argv[1]).getroot())
live_ifaces = {}
text = open(sys.argv[2]).read()
for doc in text.split("<!DOCTYPE")[1:]:
    doc = "<!DOCTYPE" + doc
    live_ifaces.update(interfaces(ET.fromstring(doc[doc.index("<node"):])))

ok = True
for name in sorted(set(file_ifaces) | set(live_ifaces)):
    f, l = file_ifaces.get(name), live_ifaces.get(name)
    if f is None or l is None:
        print(f"interface {name}: only in {'the daemon' if f is None else 'the file'}")
        ok = False
        continue
    for key in sorted(set(f) | set(l)):
        if f.get(key) != l.get(key):
            print(f"{name} {key[0]} {key[1]}: file {f.get(key)} != daemon {l.get(key)}")
            ok = False
for want in ("org.igmpd1.Manager", "org.igmpd1.Audit", "org.igmpd1.Link"):
    if want not in live_ifaces:
        print(f"the daemon does not serve {want}")
        ok = False
print("interfaces compared:", ", ".join(sorted(live_ifaces)))
sys.exit(0 if ok else 1)
PY

echo "PASS: $T_NAME"
