#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the Debian package igmpd_VERSION_ARCH.deb from a clean copy of the tree (git archive of
# a commit into a temporary directory: no build directory or stray file of the checkout gets
# in), with `dpkg-buildpackage -us -uc -b`, then runs lintian on the result.
#
#   scripts/deb.sh [--outdir DIR] [--rev REV | --worktree] [--next-version VERSION] [--arch ARCH] [--no-lintian]
#   scripts/deb.sh [--rev REV | --worktree] --tree-id
#
#   --outdir DIR       where the .deb, .changes, .buildinfo and lintian.txt go (default: build-deb/)
#   --rev REV          the commit to build (default: HEAD)
#   --worktree         the checkout as it is, committed or not (files .gitignore excludes left out)
#   --next-version V   then also a newer build of the same tree, version V (a changelog entry on
#                      top, rebuilt without a clean): for upgrade tests
#   --arch ARCH        cross-build for Debian architecture ARCH (arm64): dpkg-buildpackage -a ARCH
#                      -Pcross,nocheck; scripts/cross-build.sh ARCH installs what that needs
#   --no-lintian       skip lintian
#   --tree-id          print the git tree id that would be built (with --rev/--worktree) and exit
#
# Needs the build dependencies of debian/control (scripts/setup.sh installs them). Prints the
# path of each .deb built, last; the build log is OUTDIR/build.log, lintian's OUTDIR/lintian.txt.
# Exit 1 if the build fails or lintian reports an error.
set -euo pipefail

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
outdir=$SRCDIR/build-deb
rev=HEAD
worktree=""
next_version=""
lintian=yes
print_tree=""
arch=""

die() { echo "deb.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
        case "$1" in
        --outdir) [ $# -ge 2 ] || die "--outdir needs a directory"; outdir=$2; shift 2 ;;
        --rev) [ $# -ge 2 ] || die "--rev needs a commit"; rev=$2; shift 2 ;;
        --worktree) worktree=yes; shift ;;
        --next-version) [ $# -ge 2 ] || die "--next-version needs a Debian version, e.g. 0.1-1+1"; next_version=$2; shift 2 ;;
        --arch) [ $# -ge 2 ] || die "--arch needs a Debian architecture, e.g. arm64"; arch=$2; shift 2 ;;
        --no-lintian) lintian=""; shift ;;
        --tree-id) print_tree=yes; shift ;;
        -h|--help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see scripts/deb.sh --help)" ;;
        esac
done
for tool in git dpkg-buildpackage dh; do
        command -v $tool > /dev/null || die "$tool is missing: run scripts/setup.sh (or apt-get install git dpkg-dev debhelper)"
done
git -C "$SRCDIR" rev-parse --git-dir > /dev/null 2>&1 || die "$SRCDIR is not a git checkout: cannot make a clean copy"

tmp=$(mktemp -d /tmp/igmpd-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# What to build, as a git tree: the commit's, or with --worktree the checkout's own files as
# they are (through a private index: the checkout and its index are not touched).
if [ -n "$worktree" ]; then
        cp "$(git -C "$SRCDIR" rev-parse --path-format=absolute --git-path index)" "$tmp/index" 2> /dev/null || true
        GIT_INDEX_FILE=$tmp/index git -C "$SRCDIR" add -A .
        tree=$(GIT_INDEX_FILE=$tmp/index git -C "$SRCDIR" write-tree)
        what="the working tree of $(git -C "$SRCDIR" rev-parse --short HEAD)"
else
        tree=$(git -C "$SRCDIR" rev-parse --verify "$rev^{tree}") || die "no such commit: $rev"
        what=$(git -C "$SRCDIR" rev-parse --short "$rev")
fi
if [ -n "$print_tree" ]; then
        echo "$tree"
        exit 0
fi
mkdir "$tmp/igmpd"
git -C "$SRCDIR" archive --format=tar "$tree" | tar -x -C "$tmp/igmpd"
cd "$tmp/igmpd"

export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$(nproc)"
# A cross build runs no test (the unit tests run under qemu-user in scripts/cross-build.sh
# --test) and so needs no Criterion for the target, which could not be installed beside the
# native one anyway.
deb_arch=${arch:-$(dpkg --print-architecture)}
cross=()
if [ -n "$arch" ] && [ "$arch" != "$(dpkg --print-architecture)" ]; then
        cross=(-a "$arch" -Pcross,nocheck)
        DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS nocheck"
fi
mkdir -p "$outdir"

# build [dpkg-buildpackage options]: builds, copies igmpd_*.deb, its automatic
# igmpd-dbgsym_*.deb and the .changes and .buildinfo listing them to OUTDIR.
build() {
        local v
        v=$(dpkg-parsechangelog -S Version)
        echo "Building igmpd $v from $what in $tmp" >&2
        if ! dpkg-buildpackage -us -uc -b "${cross[@]}" "$@" > "$tmp/build.log" 2>&1; then
                cp "$tmp/build.log" "$outdir/build.log"
                grep -E "^dpkg-checkbuilddeps|Unmet build dependencies" "$tmp/build.log" >&2 &&
                        echo "deb.sh: install the build dependencies first: scripts/setup.sh${arch:+ (for $arch: scripts/cross-build.sh $arch)}" >&2
                tail -n 40 "$tmp/build.log" >&2
                die "dpkg-buildpackage failed (full log: $outdir/build.log)"
        fi
        cat "$tmp/build.log" >> "$outdir/build.log"
        cp "$tmp"/*_"$v"_"$deb_arch".deb "$tmp"/*_"$v"_"$deb_arch".changes "$tmp"/*_"$v"_"$deb_arch".buildinfo "$outdir/"
        changes=$(ls "$outdir"/igmpd_"$v"_"$deb_arch".changes)
        deb=$(ls "$outdir"/igmpd_"$v"_"$deb_arch".deb)
}

: > "$outdir/build.log"
build
first_deb=$deb
first_changes=$changes
if [ -n "$next_version" ]; then
        name=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' debian/changelog | head -n 1)
        { printf 'igmpd (%s) unstable; urgency=medium\n\n  * Rebuild of %s.\n\n -- %s  %s\n\n' \
                "$next_version" "$what" "$name" "$(date -R)"
          cat debian/changelog; } > debian/changelog.new
        mv debian/changelog.new debian/changelog
        build -nc
fi

rc=0
if [ -n "$lintian" ]; then
        if command -v lintian > /dev/null; then
                # On the .changes: checks the .deb and the .buildinfo. Tags and why some are kept:
                # debian/README.source. (The N: lines explaining each tag are kept in lintian.txt.)
                # lintian leaves Berkeley DB files (mldbm-elf-*) in $TMPDIR: keep them in our temp dir.
                TMPDIR="$tmp" lintian --fail-on error --info "$first_changes" > "$outdir/lintian.txt" 2>&1 || rc=$?
                grep -E '^[EWIP]:' "$outdir/lintian.txt" >&2 || true
                echo "lintian: $(grep -c '^E:' "$outdir/lintian.txt" || true) error(s), $(grep -c '^W:' "$outdir/lintian.txt" || true) warning(s)" >&2
        else
                echo "lintian is not installed: not checked (apt-get install lintian)" >&2
        fi
fi
echo "$first_deb"
[ -z "$next_version" ] || echo "$deb"
exit $rc
