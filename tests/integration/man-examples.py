#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs the examples of the man pages and compares their output with the page.

Called by test-man-examples.sh, which provides a private bus, a network namespace with the
example links and the environment below. A page marks what is checked with scdoc comments
(lines starting with "; ", invisible in the rendered page):

  ; example-copy: SRC DEST   before anything else: install SRC (relative to the source tree,
                             e.g. data/examples/10-site.conf) as the config file DEST
  ; example-file: DEST       the next ``` block is the content of the config file DEST
  ; example-unchecked: WHY   the next ``` block shows output that is not run here, and why (it is
                             listed as a note; use it only for what cannot run in a namespace)
  ; example-run              the next ``` block is run: each "$ CMD" or "# CMD" line is a
                             command (a trailing "\\" continues it), the lines up to the next
                             command are its expected output (stdout and stderr, as a
                             terminal shows them; a line "..." stands for any number of lines)

Each page starts with a fresh network namespace (lo 1, eth0 2, iptv0 3, eth1 4, stb1 5 with
MAC addresses 02:00:00:00:00:01 to 04 in that order; stb1 has an MTU of 1200, so no IPv6), a
fresh igmpd and empty configuration directories. Files are installed in page order; igmpd
starts at the first run block, with the files installed until then, and reloads only when
an example says so (igmpctl reload). Commands run in the namespace;
paths under /etc/igmpd, /run/igmpd, /usr/lib/igmpd and /usr/local/lib/igmpd are the test's
configuration root (igmpd runs with --config-root), which is taken out of the output again.
Times are shown as 2024-05-01 12:00:00. An example block that shows output but is not marked
fails the check: every example output must be produced by the program as it is now.

MAN_EXAMPLES_UPDATE=1 writes the actual output into the page instead (blocks without "...").
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

SRCDIR = os.environ["SRCDIR"]
T_ROOT = os.environ["T_ROOT"]
T_TMP = os.environ["T_TMP"]
NS = os.environ["NS"]
IGMPD = os.environ["IGMPD"]
IGMPCTL = os.environ["IGMPCTL"]
UPDATE = os.environ.get("MAN_EXAMPLES_UPDATE") == "1"
PAGES = ["igmpctl.1", "igmpd.8", "igmpd.conf.5"]
CONFIG_DIRS = ["/etc/igmpd", "/run/igmpd", "/usr/local/lib/igmpd", "/usr/lib/igmpd"]
TIME_RE = re.compile(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\b")
FIXED_TIME = "2024-05-01 12:00:00"

failures = []
checked = 0


class Block:
    def __init__(self, marker, arg, start, end, indent, lines):
        self.marker = marker  # "run", "file" or None
        self.arg = arg
        self.start = start  # index of the opening ``` line
        self.end = end  # index of the closing ``` line
        self.indent = indent
        self.lines = lines  # content, indentation removed, scdoc escapes undone


def unescape(s):
    return s.replace("\\\\", "\\")


def parse(text):
    """Code blocks and copy markers, in order."""
    out = []
    lines = text.split("\n")
    marker = arg = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^; example-(copy|file|run|unchecked)(?::\s*(.*))?$", line)
        if m:
            if m.group(1) == "copy":
                out.append((m.group(1), m.group(2).split(), i))
            else:
                marker, arg = m.group(1), (m.group(2) or "").strip()
            i += 1
            continue
        m = re.match(r"^(\s*)```\s*$", line)
        if m:
            indent = m.group(1)
            j = i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            content = [unescape(l[len(indent):] if l.startswith(indent) else l.lstrip()) for l in lines[i + 1:j]]
            for k in range(i + 1, j):
                # A heading inside a block: its closing ``` is missing or has text after it.
                if re.match(r"^#+ [A-Z][A-Z0-9 ()/-]*$", lines[k]):
                    raise SystemExit(f"FAIL: line {k + 1}: heading inside the code block opened at line {i + 1}; "
                                     "is its closing ``` alone on its line?")
            out.append(("block", Block(marker, arg, i, j, indent, content), i))
            marker = arg = None
            i = j + 1
            continue
        if line.strip() and not line.startswith(";"):
            marker = arg = None  # a marker belongs to the block right after it
        i += 1
    return out, lines


def is_command(line):
    return line.startswith("$ ") or line.startswith("# ")


def commands(block):
    """[(command, [expected lines], index of the command's first line)]"""
    out = []
    i = 0
    lines = block.lines
    while i < len(lines):
        if not is_command(lines[i]):
            raise ValueError(f"line {block.start + 2 + i}: expected a command ('$ ' or '# '), got {lines[i]!r}")
        first = i
        cmd = lines[i][2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd[:-1] + " " + lines[i].strip()
        i += 1
        exp = []
        while i < len(lines) and not is_command(lines[i]):
            exp.append(lines[i])
            i += 1
        out.append((cmd, exp, first))
    return out


def shows_output(block):
    """An unmarked block that looks like a command with its output."""
    seen_cmd = False
    for l in block.lines:
        if is_command(l) and re.match(r"^[$#] (igmpctl|igmpd)\b", l):
            seen_cmd = True
        elif seen_cmd and l.strip() and not is_command(l) and not l.startswith(" "):
            return True
    return False


def sandbox_paths(s):
    for d in CONFIG_DIRS:
        s = re.sub(r"(?<![\w/.])" + re.escape(d) + r"(?=/|\b)", T_ROOT + d, s)
    return s


def normalize(text):
    text = text.replace(T_ROOT, "")
    text = TIME_RE.sub(FIXED_TIME, text)
    return [l.rstrip() for l in text.rstrip("\n").split("\n")] if text.strip() else []


def matches(expected, actual):
    """expected may hold "..." lines: any number of lines."""
    exp = [l.rstrip() for l in expected]
    while exp and not exp[-1]:
        exp.pop()

    def m(i, j):
        if i == len(exp):
            return j == len(actual)
        if exp[i].strip() == "...":
            return any(m(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and exp[i] == actual[j] and m(i + 1, j + 1)

    return m(0, 0)


class Daemon:
    def __init__(self):
        self.proc = None

    def start(self):
        log = open(os.path.join(T_TMP, "igmpd.log"), "a")
        before = open(log.name).read().count("links, ready")
        env = dict(os.environ, SYSTEMD_LOG_TARGET="console", SYSTEMD_LOG_LEVEL="info")
        self.proc = subprocess.Popen(["ip", "netns", "exec", NS, IGMPD, "--config-root", T_ROOT,
                                      "--kmsg-path", os.path.join(T_TMP, "kmsg")],
                                     stdout=log, stderr=subprocess.STDOUT, env=env)
        for _ in range(600):
            if open(log.name).read().count("links, ready") > before:
                break
            if self.proc.poll() is not None:
                sys.exit(f"FAIL: igmpd exited at start: {open(log.name).read()[-2000:]}")
            time.sleep(0.05)
        else:
            sys.exit("FAIL: igmpd did not become ready")
        for _ in range(600):
            if subprocess.run([IGMPCTL, "list"], capture_output=True).returncode == 0:
                return
            time.sleep(0.05)
        sys.exit("FAIL: igmpd did not come onto the bus")

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
            self.proc = None


def ip(*args):
    subprocess.run(["ip", *args], check=True)


def make_namespace():
    """The links of the examples, always with the same indexes and MAC addresses."""
    subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
    ip("netns", "add", NS)
    ip("-n", NS, "link", "set", "lo", "up")
    ip("-n", NS, "link", "add", "iptv0", "type", "veth", "peer", "name", "eth0")
    ip("-n", NS, "link", "add", "stb1", "type", "veth", "peer", "name", "eth1")
    ip("-n", NS, "link", "set", "stb1", "mtu", "1200")
    for n, link in enumerate(["eth0", "iptv0", "eth1", "stb1"], 1):
        ip("-n", NS, "link", "set", link, "address", f"02:00:00:00:00:0{n}")
    got = subprocess.run(["ip", "-n", NS, "-o", "link"], capture_output=True, text=True).stdout
    names = [re.sub(r"@.*", "", l.split(": ")[1]) for l in got.splitlines()]
    indexes = [int(l.split(":")[0]) for l in got.splitlines()]
    if list(zip(indexes, names)) != [(1, "lo"), (2, "eth0"), (3, "iptv0"), (4, "eth1"), (5, "stb1")]:
        sys.exit(f"FAIL: unexpected link indexes: {got}")


def reset_config():
    for d in CONFIG_DIRS:
        shutil.rmtree(T_ROOT + d, ignore_errors=True)
    os.makedirs(T_ROOT + "/etc/igmpd/conf.d", exist_ok=True)


def install(dest, content):
    path = T_ROOT + dest
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(content)


def run(cmd):
    env = dict(os.environ)
    for v in ("COLUMNS", "SYSTEMD_COLORS", "NO_COLOR", "PAGER", "SYSTEMD_PAGER", "LANG", "LC_CTYPE"):
        env.pop(v, None)
    env["LC_ALL"] = "C.UTF-8"
    env["PATH"] = os.path.join(T_TMP, "bin") + ":" + env["PATH"]
    p = subprocess.run(["ip", "netns", "exec", NS, "bash", "-c", sandbox_paths(cmd)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120,
                       cwd=T_TMP)
    return normalize(p.stdout)


def check_page(page, daemon):
    global checked
    path = os.path.join(SRCDIR, "man", page + ".scd")
    text = open(path).read()
    items, lines = parse(text)
    make_namespace()
    reset_config()
    replacements = []
    for kind, item, where in items:
        if kind == "copy":
            src, dest = item
            install(dest, open(os.path.join(SRCDIR, src)).read())
            continue
        b = item
        if b.marker == "file":
            install(b.arg, "\n".join(b.lines) + "\n")
            continue
        if b.marker == "unchecked":
            if not b.arg:
                failures.append(f"{page}.scd:{b.start}: '; example-unchecked:' without a reason")
            print(f"note: {page}.scd:{b.start + 1}: example not run: {b.arg}")
            continue
        if b.marker != "run":
            if shows_output(b):
                failures.append(f"{page}.scd:{b.start + 1}: a block shows output of igmpctl/igmpd but is not "
                                f"checked: put '; example-run' before it (see {os.path.basename(__file__)})")
            continue
        if not daemon.proc:
            daemon.start()
        try:
            cmds = commands(b)
        except ValueError as e:
            failures.append(f"{page}.scd: {e}")
            continue
        for cmd, exp, first in cmds:
            act = run(cmd)
            checked += 1
            if matches(exp, act):
                print(f"ok:   {page}: {cmd}")
            else:
                failures.append(f"{page}.scd:{b.start + 2 + first}: '{cmd}' prints something else.\n"
                                f"--- the page\n" + "\n".join(exp) + "\n--- the program\n" + "\n".join(act))
            if UPDATE and not any(l.strip() == "..." for l in exp):
                replacements.append((b, first, len(exp), act))
    daemon.stop()
    if UPDATE and replacements:
        # From the end, so earlier line numbers stay valid.
        for b, first, n_exp, act in sorted(replacements, key=lambda r: (r[0].start, r[1]), reverse=True):
            # The command's own lines (with continuations) stay; its output is replaced.
            cmd_lines = 1
            while b.lines[first + cmd_lines - 1].endswith("\\"):
                cmd_lines += 1
            at = b.start + 1 + first + cmd_lines
            lines[at:at + n_exp] = [b.indent + l.replace("\\", "\\\\") if l else "" for l in act]
        with open(path, "w") as f:
            f.write("\n".join(lines))
        print(f"updated {path}")


def main():
    daemon = Daemon()
    for page in PAGES:
        if not os.path.exists(os.path.join(SRCDIR, "man", page + ".scd")):
            failures.append(f"man/{page}.scd is missing")
            continue
        try:
            check_page(page, daemon)
        finally:
            daemon.stop()
    for f in failures:
        print("FAIL: " + f)
    if failures:
        print(f"{len(failures)} problem(s); MAN_EXAMPLES_UPDATE=1 writes the program's output into the pages")
        return 1
    print(f"PASS: {checked} example command(s) produce what the pages show")
    return 0


if __name__ == "__main__":
    sys.exit(main())
