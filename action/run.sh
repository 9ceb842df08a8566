#!/usr/bin/env bash
# Runs the wellknown command the Action was asked for (action.yml), with its
# arguments, or each command's default ones.
#
# Environment:
#   COMMAND  build, verify, check or sync
#   ARGS     the command's arguments, split at spaces (no quoting); empty means
#            build: --strict --previous-live (a build that fails without the real
#            key, or when an entry of the feed deployed at base_url would change);
#            verify: public; check and sync: none
set -euo pipefail
case "${COMMAND:-}" in
  build) defaults="--strict --previous-live" ;;
  verify) defaults="public" ;;
  check | sync) defaults="" ;;
  *)
    echo "::error::the wellknown Action's command must be build, verify, check or sync (got \"${COMMAND:-}\")"
    exit 2
    ;;
esac
read -r -a args <<<"${ARGS:-$defaults}"
exec wellknown "$COMMAND" ${args[@]+"${args[@]}"}
