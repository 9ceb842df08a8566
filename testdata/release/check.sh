#!/usr/bin/env bash
# Checks the release configuration (.goreleaser.yaml): goreleaser check, then
# a snapshot build of the six release binaries (linux, darwin, windows on
# amd64 and arm64) into a temporary directory; the one for this machine, if
# any, must print the version the build stamped. GoReleaser is installed,
# at the pinned version, into GOPATH/bin once (a large build: minutes).
# Usage: testdata/release/check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
pinned=v2.15.1
goreleaser="$(go env GOPATH)/bin/goreleaser"
if ! "$goreleaser" --version 2>/dev/null | grep -q "GitVersion: *v\?${pinned#v}$"; then
  echo "== installing goreleaser $pinned"
  go install "github.com/goreleaser/goreleaser/v2@$pinned"
fi

echo "== goreleaser check"
"$goreleaser" check

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The same configuration, building into the temporary directory.
{ cat .goreleaser.yaml; echo "dist: $work/dist"; } >"$work/goreleaser.yaml"
echo "== goreleaser build --snapshot"
"$goreleaser" build --snapshot --clean --config "$work/goreleaser.yaml"

missing=0
for target in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64; do
  exe=wellknown
  [[ $target != windows_* ]] || exe=wellknown.exe
  bins=("$work"/dist/wellknown_"$target"*/"$exe")
  if [ ! -f "${bins[0]}" ]; then
    echo "missing: the $target binary"
    missing=1
  fi
done
[ "$missing" = 0 ] || exit 1

here="$(go env GOOS)_$(go env GOARCH)"
for bin in "$work"/dist/wellknown_"$here"*/wellknown; do
  [ -x "$bin" ] || continue
  line=$("$bin" version)
  echo "$here: $line"
  # A snapshot's version; the commit and date are git's (or "none" where
  # goreleaser cannot read the git state, as in a clone without a remote).
  [[ $line =~ ^wellknown\ v[0-9]+\.[0-9]+\.[0-9]+-snapshot\+[0-9a-z]+\ \(commit\ [0-9a-z]+, ]] ||
    { echo "the snapshot binary does not print the stamped version and commit"; exit 1; }
done
echo "ok: 6 release binaries"
