#!/usr/bin/env bash
# Installs one version of wellknown into a directory: the release archive for
# this machine's system and processor, checked against the release's SHA-256
# checksums file; or, when the release has no such archive (or the version
# is "latest"), go install of that version. The GitHub Action (action.yml)
# and the generated deploy recipes run it.
#
# Environment:
#   WELLKNOWN_VERSION       v1.2.3 or v1.2.3-rc.1 (a release tag), or latest
#                                                                       (required)
#   WELLKNOWN_INSTALL_DIR   where the wellknown binary goes             (required)
#   WELLKNOWN_RELEASES_URL  where releases are downloaded from over https, one
#                           directory per tag (default: this repository's
#                           GitHub releases)
# With the argument --check-version it only checks WELLKNOWN_VERSION: the
# Action does so before the version names its cache directory.
#
# WELLKNOWN_INSTALL_DIR may be a cache from an earlier run. The release
# archive is kept there and used again only when its SHA-256 matches the
# release's checksums file, downloaded afresh each time; the binary is
# extracted from it each time. A binary built with go install is used again
# only when its SHA-256 matches the one recorded when it was built. On
# GitHub Actions the directory is added to PATH.
set -euo pipefail

module=github.com/wellknown-dev/wellknown
releases=${WELLKNOWN_RELEASES_URL:-https://github.com/wellknown-dev/wellknown/releases/download}

fail() { echo "wellknown install: error: $*" >&2; exit 1; }
say() { echo "wellknown install: $*" >&2; }

version=${WELLKNOWN_VERSION:?set WELLKNOWN_VERSION to a release tag such as v1.2.3, or latest}
# The version becomes part of paths and URLs, so it is a semantic version
# (with an optional pre-release) before it is used anywhere. It is printed
# quoted, since it may hold anything, a newline among them.
semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
if [ "$version" != latest ] && ! [[ $version =~ $semver ]]; then
  fail "version $(printf %q "$version") is not a release tag such as v1.2.3 or v1.2.3-rc.1, nor latest"
fi
[ "${1:-}" != --check-version ] || exit 0
dir=${WELLKNOWN_INSTALL_DIR:?set WELLKNOWN_INSTALL_DIR}

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

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | awk '{ print $1 }'
  else
    shasum -a 256 "$1" | awk '{ print $1 }'
  fi
}

# go_install builds the version with the Go toolchain (and its caches),
# unless the directory holds the binary an earlier go_install recorded.
go_install() {
  if [ -f "$dir/$exe" ] && [ -f "$dir/$exe.sha256" ] && [ "$(sha256 "$dir/$exe")" = "$(cat "$dir/$exe.sha256")" ]; then
    say "using the cached $dir/$exe, built with go install (SHA-256 checked)"
    return
  fi
  command -v go >/dev/null || fail "$1, and there is no go command to build it with (install Go, or use a released version)"
  say "$1; building it with go install $module@$version"
  rm -f "$dir/$exe.sha256"
  GOBIN=$dir go install "$module@$version"
  sha256 "$dir/$exe" >"$dir/$exe.sha256"
}

mkdir -p "$dir"
if [ "$version" = latest ]; then
  go_install "version latest is not pinned (pin a release, such as v1.2.3, in your workflow)"
  publish
  exit 0
fi

# The names .goreleaser.yaml gives: the version without its "v".
number=${version#v}
ext=tar.gz
[ "$os" != windows ] || ext=zip
archive=wellknown_${number}_${os}_${arch}.${ext}
sums=wellknown_${number}_checksums.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fetch downloads an https URL to a file and prints the HTTP status; curl's
# own errors (no connection, a redirect to another scheme) fail the script.
fetch() {
  curl --proto '=https' --proto-redir '=https' --silent --show-error --location --retry 3 \
    --output "$2" --write-out '%{http_code}' "$1"
}

status=$(fetch "$releases/$version/$sums" "$tmp/$sums")
case "$status" in
  200) want=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1 }' "$tmp/$sums") ;;
  404) want= ;;
  *) fail "downloading $releases/$version/$sums: HTTP $status" ;;
esac
if [ -z "$want" ]; then
  go_install "release $version has no $archive"
  publish
  exit 0
fi

# A copy of the cached archive is checked, and the binary extracted from
# that copy, so what was checked is what is installed.
if [ -f "$dir/$archive" ] && cp "$dir/$archive" "$tmp/$archive" && [ "$(sha256 "$tmp/$archive")" = "$want" ]; then
  say "using the cached $archive (SHA-256 checked)"
else
  status=$(fetch "$releases/$version/$archive" "$tmp/$archive")
  [ "$status" = 200 ] || fail "downloading $releases/$version/$archive: HTTP $status"
  got=$(sha256 "$tmp/$archive")
  [ "$got" = "$want" ] || fail "checksum mismatch for $archive: $sums says $want, the download is $got; not installed"
  say "downloaded $archive (SHA-256 checked)"
fi

rm -f "$dir/$exe"
if [ "$ext" = zip ]; then
  unzip -o -q "$tmp/$archive" "$exe" -d "$tmp/x"
else
  mkdir -p "$tmp/x" && tar -xzf "$tmp/$archive" -C "$tmp/x" "$exe"
fi
cp "$tmp/$archive" "$dir/$archive"
mv -f "$tmp/x/$exe" "$dir/$exe"
chmod +x "$dir/$exe"
say "installed $archive"
publish
