#!/usr/bin/env bash
# Runs the wellknown command the Action was asked for (action.yml), with its
# arguments, or each command's default ones, and records its exit status as
# the step output exit-code.
#
# Environment:
#   COMMAND  build, verify, check or sync
#   ARGS     the command's arguments, one per line: each line is one argument
#            as written (no splitting at spaces, no quoting, no expansion);
#            blank lines are skipped. Empty means build: --strict
#            --previous-live (a build that fails without the real key, or when
#            an entry of the feed deployed at base_url would change); verify:
#            public; check and sync: none
set -euo pipefail
case "${COMMAND:-}" in
  build) defaults=$'--strict\n--previous-live' ;;
  verify) defaults="public" ;;
  check | sync) defaults="" ;;
  *)
    echo "::error::the wellknown Action's command must be build, verify, check or sync (got $(printf %q "${COMMAND:-}"))"
    exit 2
    ;;
esac
args=()
while IFS= read -r line || [ -n "$line" ]; do
  line=${line%$'\r'}
  [ -z "${line//[[:space:]]/}" ] || args+=("$line")
done <<<"${ARGS:-$defaults}"
status=0
wellknown "$COMMAND" ${args[@]+"${args[@]}"} || status=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "exit-code=$status" >>"$GITHUB_OUTPUT"; fi
exit "$status"
