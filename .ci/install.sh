#!/usr/bin/env bash
# Builds CellHost in release mode and installs it (docs/install.md):
#
#   .ci/install.sh [--prefix DIR] [--destdir DIR] [--scratch-path DIR]
#   .ci/install.sh --uninstall [--prefix DIR] [--destdir DIR]
#
# PREFIX (default /usr/local) is where the files will live; DESTDIR (default
# none) stages them under DESTDIR/PREFIX for a package, with every path inside
# the files still referring to PREFIX. --scratch-path is the build directory
# (default .build-release). Uninstalling removes what the manifest lists.
#
# What goes where:
#
#   bin/cellhost                          RUNPATH $ORIGIN/../lib/cellhost/swift
#   lib/cellhost/plugins/lib*.so          the shipped plugins, RUNPATH $ORIGIN/../swift
#   lib/cellhost/swift/*.so               the Swift runtime the binary and the plugins
#                                         share (copied from the toolchain)
#   include/cellhost/*.h                  the plugin ABI headers
#   lib/pkgconfig/cellhost.pc             cflags, pluginsdir, abi_version
#   share/man/man1/cellhost.1             the manual
#   share/bash-completion/completions/cellhost, share/zsh/site-functions/_cellhost,
#   share/fish/vendor_completions.d/cellhost.fish
#   share/cellhost/bindings/rust/cellhost.rs   the Rust binding of the headers
#   share/doc/cellhost/                   README, docs, example plugins and chat, and
#                                         MANIFEST: every file and directory installed,
#                                         which --uninstall removes (and nothing else)
set -euo pipefail
umask 022

root=$(cd "$(dirname "$0")/.." && pwd)
prefix=/usr/local
destdir=""
scratch="$root/.build-release"
uninstall=0

die() { echo "install.sh: $*" >&2; exit 2; }
usage() { sed -n '2,/^# What goes where/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --destdir) [ $# -ge 2 ] || die "--destdir needs a directory"; destdir=$2; shift 2 ;;
    --destdir=*) destdir=${1#--destdir=}; shift ;;
    --scratch-path) [ $# -ge 2 ] || die "--scratch-path needs a directory"; scratch=$2; shift 2 ;;
    --scratch-path=*) scratch=${1#--scratch-path=}; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

# PREFIX is written into cellhost.pc and the manifest: absolute, no trailing slash.
case "$prefix" in /*) ;; *) die "--prefix must be an absolute path, not '$prefix'" ;; esac
while [ "${prefix%/}" != "$prefix" ] && [ "$prefix" != / ]; do prefix=${prefix%/}; done
[ "$prefix" = / ] && prefix=""
if [ -n "$destdir" ]; then
  case "$destdir" in /*) ;; *) destdir="$PWD/$destdir" ;; esac
  destdir=${destdir%/}
fi
target="$destdir$prefix"                   # where the files are written
manifest_rel=share/doc/cellhost/MANIFEST
manifest="$target/$manifest_rel"

# ---------------------------------------------------------------- uninstall
# Removes the files the manifest lists, then the directories it lists (those
# the install created) when they are empty, deepest first. A file someone
# added since (a plugin in lib/cellhost/plugins) is kept, and so is its
# directory; each kept directory is named.
remove_installed() {
  local list=$1 keep=${2:-} path
  while IFS= read -r path; do
    [ -n "$keep" ] && grep -qxF "f $path" "$keep" && continue
    rm -f -- "$target/$path"
  done < <(sed -n 's/^f //p' "$list")
}
remove_directories() {
  local list=$1 path
  while IFS= read -r path; do
    [ -d "$target/$path" ] || continue
    if ! rmdir -- "$target/$path" 2>/dev/null; then
      echo "install.sh: kept $prefix/$path: not empty ($(ls -A "$target/$path" | head -n 3 | tr '\n' ' '))" >&2
    fi
  done < <(sed -n 's/^d //p' "$list" | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2-)
}

if [ "$uninstall" = 1 ]; then
  [ -f "$manifest" ] || die "no CellHost installation in ${target:-/}: $manifest not found"
  copy=$(mktemp); trap 'rm -f "$copy"' EXIT
  cp "$manifest" "$copy"
  remove_installed "$copy"
  remove_directories "$copy"
  echo "uninstalled CellHost from ${prefix:-/}$([ -n "$destdir" ] && echo " (in $destdir)")"
  exit 0
fi

# ---------------------------------------------------------------- build
command -v patchelf >/dev/null || die "patchelf is needed to set the RUNPATHs (apt-get install patchelf)"
cd "$root"
# Incremental: a fresh build in the scratch path costs seconds.
swift build -c release --scratch-path "$scratch" || die "swift build -c release failed"
built="$scratch/release"
[ -x "$built/cellhost" ] || die "no cellhost in $built"
plugins=()
for file in "$built"/lib*.so; do plugins+=("$file"); done
[ ${#plugins[@]} -gt 0 ] || die "no plugins in $built"

# The Swift runtime: every library the binary and the plugins load from the
# toolchain's runtime directory (the one holding libswiftCore.so), found by
# ldd, which follows the whole dependency closure.
runtime_dir=$(ldd "$built/cellhost" | awk '$1 == "libswiftCore.so" { print $3 }' | xargs -r dirname)
[ -n "$runtime_dir" ] || die "cannot find the Swift runtime libswiftCore.so that $built/cellhost uses"
mapfile -t runtime < <(for file in "$built/cellhost" "${plugins[@]}"; do ldd "$file"; done \
  | awk -v dir="$runtime_dir/" '$2 == "=>" && index($3, dir) == 1 { print $3 }' | sort -u)

version_line=$("$built/cellhost" --version)                 # cellhost 0.1.0 (plugin ABI 2.0)
version=$(sed -E 's/^cellhost ([^ ]+) .*/\1/' <<<"$version_line")
abi=$(sed -E 's/.*plugin ABI ([0-9]+\.[0-9]+).*/\1/' <<<"$version_line")
header="$root/Sources/CellHostABI/include/cellhost/version.h"
abi_major=$(awk '$1 == "#define" && $2 == "CELLHOST_ABI_MAJOR" { print $3 }' "$header")
abi_minor=$(awk '$1 == "#define" && $2 == "CELLHOST_ABI_MINOR" { print $3 }' "$header")
[ "$abi" = "$abi_major.$abi_minor" ] || die "the binary's ABI $abi is not the headers' $abi_major.$abi_minor"
swift_version=$(swift --version 2>/dev/null | sed -nE 's/.*Swift version ([0-9][^ ]*).*/\1/p' | head -n 1)

# ---------------------------------------------------------------- install
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
installed="$stage/files"                   # "f PATH" per file, relative to PREFIX
created="$stage/dirs"                      # "d PATH" per directory the install made
: >"$installed"; : >"$created"
[ -f "$manifest" ] && grep '^d ' "$manifest" >>"$created" || true   # made by an earlier install
[ -n "$target" ] && mkdir -p "$target"

# make_dir REL: creates PREFIX/REL and its missing parents (0755), noting each.
make_dir() {
  local rel=$1 path="" part
  local IFS=/
  for part in $rel; do
    path=${path:+$path/}$part
    if [ ! -d "$target/$path" ]; then
      mkdir -m 0755 "$target/$path"
      echo "d $path" >>"$created"
    fi
  done
}

# put SOURCE REL MODE [RUNPATH]: copies SOURCE to PREFIX/REL (replacing it
# atomically, so a running cellhost keeps its old file), with RUNPATH set
# when given.
put() {
  local source=$1 rel=$2 mode=$3 runpath=${4:-}
  make_dir "$(dirname "$rel")"
  local temporary="$target/$rel.installing.$$"
  cp "$source" "$temporary"
  chmod "$mode" "$temporary"
  [ -n "$runpath" ] && patchelf --set-rpath "$runpath" "$temporary"
  mv -f "$temporary" "$target/$rel"
  echo "f $rel" >>"$installed"
}

# put_text TEXT REL: writes TEXT to PREFIX/REL (0644).
put_text() {
  printf '%s' "$1" >"$stage/text"
  put "$stage/text" "$2" 0644
}

# The binary and the plugins find the runtime beside them, wherever PREFIX
# is; the runtime libraries already say $ORIGIN for each other.
put "$built/cellhost" bin/cellhost 0755 '$ORIGIN/../lib/cellhost/swift'
for file in "${plugins[@]}"; do
  put "$file" "lib/cellhost/plugins/$(basename "$file")" 0644 '$ORIGIN/../swift'
done
for file in "${runtime[@]}"; do
  put "$file" "lib/cellhost/swift/$(basename "$file")" 0644 '$ORIGIN'
done

for file in "$root"/Sources/CellHostABI/include/cellhost/*.h; do
  put "$file" "include/cellhost/$(basename "$file")" 0644
done
put "$root/Sources/CellHostABI/bindings/rust/cellhost.rs" share/cellhost/bindings/rust/cellhost.rs 0644

put_text "prefix=$prefix
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include
datadir=\${prefix}/share
pluginsdir=\${libdir}/cellhost/plugins
swiftruntimedir=\${libdir}/cellhost/swift
rustbindingdir=\${datadir}/cellhost/bindings/rust
abi_version=$abi
abi_major=$abi_major
abi_minor=$abi_minor
swift_version=$swift_version

Name: cellhost
Description: CellHost message-cell plugin ABI $abi (C headers; plugins need no library)
Version: $version
Cflags: -I\${includedir}
" lib/pkgconfig/cellhost.pc

put "$root/docs/man/cellhost.1" share/man/man1/cellhost.1 0644
put "$root/completions/cellhost.bash" share/bash-completion/completions/cellhost 0644
put "$root/completions/_cellhost" share/zsh/site-functions/_cellhost 0644
put "$root/completions/cellhost.fish" share/fish/vendor_completions.d/cellhost.fish 0644

doc=share/doc/cellhost
put "$root/README.md" "$doc/README.md" 0644
while IFS= read -r file; do
  put "$root/$file" "$doc/$file" 0644
done < <(cd "$root" && find docs -type f ! -path 'docs/man/*' | sort)
for file in "$root"/Examples/plugins/hello.*; do
  put "$file" "$doc/examples/plugins/$(basename "$file")" 0644
done
put "$root/Examples/conversation.jsonl" "$doc/examples/conversation.jsonl" 0644
for file in "$root"/Examples/media/*; do
  put "$file" "$doc/examples/media/$(basename "$file")" 0644
done

# Files an earlier install put there that this one does not: removed.
if [ -f "$manifest" ]; then remove_installed "$manifest" "$installed"; fi

# The manifest: what --uninstall removes (itself last).
make_dir "$(dirname "$manifest_rel")"
{
  echo "# CellHost $version (plugin ABI $abi) installed in ${prefix:-/} by .ci/install.sh."
  echo "# 'f PATH': a file it installed; 'd PATH': a directory it created. Paths are"
  echo "# relative to the prefix. '.ci/install.sh --uninstall --prefix ${prefix:-/}' removes the"
  echo "# files, then the directories that are empty."
  sort -u "$created"
  sort -u "$installed"
  echo "f $manifest_rel"
} >"$stage/manifest"
mv -f "$stage/manifest" "$manifest"
chmod 0644 "$manifest"

# The installed binary must run with nothing from the build or the toolchain.
env -i PATH=/usr/bin:/bin "$target/bin/cellhost" --version >/dev/null \
  || die "the installed $target/bin/cellhost does not run"
echo "installed CellHost $version in ${prefix:-/}$([ -n "$destdir" ] && echo " (staged in $destdir)"): $(grep -c '^f ' "$manifest") files, $(du -sh "$target/lib/cellhost" | cut -f1) in lib/cellhost"
