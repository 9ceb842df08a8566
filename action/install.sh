#!/usr/bin/env bash
# Installs one version of wellknown into a directory: the release archive for
# this machine's system and processor, checked against the release's SHA-256
# checksums file; or, when the release has no such archive (or the version
# is "latest"), go install of that version. The GitHub Action (action.yml)
# and the generated deploy recipes run it.
#
# Environment:
#   WELLKNOWN_VERSION       v1.2.3 (a release tag), or latest          (required)
#   WELLKNOWN_INSTALL_DIR   where the wellknown binary goes             (required)
#   WELLKNOWN_RELEASES_URL  where releases are downloaded from, one directory
#                           per tag (default: this repository's GitHub releases)
# A wellknown already in WELLKNOWN_INSTALL_DIR that reports the version (any
# version, for latest) is kept: a cached install. On GitHub Actions the
# directory is added to PATH.
set -euo pipefail

module=github.com/wellknown-dev/wellknown
version=${WELLKNOWN_VERSION:?set WELLKNOWN_VERSION to a release tag such as v1.2.3, or latest}
dir=${WELLKNOWN_INSTALL_DIR:?set WELLKNOWN_INSTALL_DIR}
releases=${WELLKNOWN_RELEASES_URL:-https://github.com/wellknown-dev/wellknown/releases/download}

fail() { echo "wellknown install: error: $*" >&2; exit 1; }
say() { echo "wellknown install: $*" >&2; }

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
  *) fail "no release for system $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no release for processor $(uname -m)" ;;
esac
exe=wellknown
[ "$os" != windows ] || exe=wellknown.exe

publish() {
  if [ -n "${GITHUB_PATH:-}" ]; then echo "$dir" >>"$GITHUB_PATH"; fi
  say "$("$dir/$exe" version)"
}

# go_install builds the version with the Go toolchain (and its caches).
go_install() {
  command -v go >/dev/null || fail "$1, and there is no go command to build it with (install Go, or use a released version)"
  say "$1; building it with go install $module@$version"
  GOBIN=$dir go install "$module@$version"
}

mkdir -p "$dir"
installed=$( [ -x "$dir/$exe" ] && "$dir/$exe" version 2>/dev/null | awk '{ print $2 }' || true)
if [ -n "$installed" ] && { [ "$installed" = "$version" ] || [ "$version" = latest ]; }; then
  say "using the cached $dir/$exe"
  publish
  exit 0
fi
if [ "$version" = latest ]; then
  go_install "version latest is not pinned (pin a release, such as v1.2.3, in your workflow)"
  publish
  exit 0
fi
case "$version" in
  v[0-9]*) ;;
  *) fail "version $version is not a release tag such as v1.2.3" ;;
esac

# The names .goreleaser.yaml gives: the version without its "v".
number=${version#v}
ext=tar.gz
[ "$os" != windows ] || ext=zip
archive=wellknown_${number}_${os}_${arch}.${ext}
sums=wellknown_${number}_checksums.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fetch downloads a URL to a file and prints the HTTP status; curl's own
# errors (no connection) fail the script.
fetch() { curl --silent --show-error --location --retry 3 --output "$2" --write-out '%{http_code}' "$1"; }

status=$(fetch "$releases/$version/$archive" "$tmp/$archive")
case "$status" in
  200) ;;
  404)
    go_install "release $version has no $archive"
    publish
    exit 0
    ;;
  *) fail "downloading $releases/$version/$archive: HTTP $status" ;;
esac
status=$(fetch "$releases/$version/$sums" "$tmp/$sums")
[ "$status" = 200 ] || fail "downloading $releases/$version/$sums: HTTP $status (a release without a checksums file is not installed)"

want=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1 }' "$tmp/$sums")
[ -n "$want" ] || fail "$sums does not list $archive"
if command -v sha256sum >/dev/null; then
  got=$(sha256sum "$tmp/$archive" | awk '{ print $1 }')
else
  got=$(shasum -a 256 "$tmp/$archive" | awk '{ print $1 }')
fi
[ "$got" = "$want" ] || fail "checksum mismatch for $archive: $sums says $want, the download is $got; not installed"

if [ "$ext" = zip ]; then
  unzip -o -q "$tmp/$archive" "$exe" -d "$tmp/x"
else
  mkdir -p "$tmp/x" && tar -xzf "$tmp/$archive" -C "$tmp/x" "$exe"
fi
mv -f "$tmp/x/$exe" "$dir/$exe"
chmod +x "$dir/$exe"
say "installed $archive (SHA-256 checked)"
publish
