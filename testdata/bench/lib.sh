# Helpers shared by the benchmark scripts of issue 13 (source it; it is not a
# script of its own). It moves to the repository root, makes a work directory
# removed on exit, builds wellknown there (or uses $WELLKNOWN) and exports a
# benchmark signing key.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
runs=${RUNS:-5}
work=$(mktemp -d)
shm=/dev/shm/wellknown-bench-$$
trap 'stop_background; rm -rf "$work" "$shm"' EXIT
bin=${WELLKNOWN:-$work/wellknown}
[ -n "${WELLKNOWN:-}" ] || go build -o "$bin" .
export WELLKNOWN_SIGNING_KEY=QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI # a benchmark key, not a secret

# median reads numbers, one a line, and prints their median.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# spread reads numbers, one a line, and prints "min–max".
spread() { sort -n | awk 'NR==1 {lo=$1} {hi=$1} END {print lo "–" hi}'; }
# ms runs a command and prints its wall time in milliseconds.
ms() { local s; s=$(date +%s%N); "$@" >/dev/null; echo $(( ($(date +%s%N) - s) / 1000000 )); }
# ratio A B prints A/B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
# json_field FILE NAME prints the first number named NAME in a build --json output.
json_field() { grep -o "\"$2\": [0-9]*" "$1" | head -1 | grep -o '[0-9]*$'; }

# history_repo [TOOLS [COMMITS]] generates the synthetic history (go run
# ./internal/benchrepo; 200 tools and 10,000 commits by default, tool files
# of the profile PROFILE=light, about 0.7 KB, or PROFILE=heavy, 2-3 KB),
# moves into it and sets $tools, $commits and $profile.
history_repo() {
  tools=${1:-200}
  commits=${2:-10000}
  profile=${PROFILE:-light}
  go run ./internal/benchrepo -tools "$tools" -commits "$commits" -profile "$profile" "$work/repo"
  cd "$work/repo"
}

# floor prints nothing and costs what any reader of the history must pay:
# one git log of plain directory prefixes (site.toml and each tools/<server>/
# directory) piped into one git cat-file --batch of every blob it names, once.
floor() {
  local specs=(site.toml) dir
  for dir in tools/*/; do specs+=("$dir"); done
  git log -z --first-parent --raw --no-abbrev --no-renames --root --format=%H%x00%ct HEAD -- "${specs[@]}" |
    tr '\0' '\n' | awk '/^:[0-7]+ [0-7]+ / && $4 !~ /^0+$/ && !seen[$4]++ {print $4}' |
    git cat-file --batch >/dev/null
}

# tree_peak PID prints, once PID (a child of this shell) has exited, the
# most memory its descendants held at once, sampled every 20 ms, in MB:
# their anonymous and shared-memory pages summed, plus the file pages of
# the one that maps most, since the git processes map the same pack and
# a page of it is resident once. That is about what a container's memory
# limit counts of a build and its git processes. It reads /proc with
# shell builtins, forking no process; sampling takes about 7% of a core.
tree_peak() {
  local peak=0 sum file most p key value _ pids
  [ -p "$work/tick" ] || mkfifo "$work/tick"
  while :; do
    key=
    while read -r key value _; do [ "$key" != State: ] || break; done 2>/dev/null <"/proc/$1/status" || true
    [ "$key" = State: ] && [ "$value" != Z ] || break
    sum=0 most=0 pids=()
    tree_children "$1"
    for p in ${pids[@]+"${pids[@]}"}; do
      file=0
      while read -r key value _; do
        case $key in
        RssAnon: | RssShmem:) sum=$((sum + value)) ;;
        RssFile:) file=$value ;;
        esac
      done 2>/dev/null <"/proc/$p/status" || true
      [ "$file" -le "$most" ] || most=$file
    done
    [ $((sum + most)) -le "$peak" ] || peak=$((sum + most))
    read -r -t 0.02 _ <>"$work/tick" || true
  done
  echo $((peak / 1024))
}
# tree_children PID adds PID's descendants to the array pids.
tree_children() {
  local c t children
  for t in /proc/"$1"/task/*/children; do
    children=()
    read -r -a children 2>/dev/null <"$t" || true
    for c in ${children[@]+"${children[@]}"}; do
      pids+=("$c")
      tree_children "$c"
    done
  done
}
# background is the build or floor measured in the background, if one
# runs; stop_background stops it and its processes, which ignore the
# Ctrl-C that stops the script, as background jobs of a script do.
background=
stop_background() {
  [ -n "$background" ] || return 0
  local pids=("$background")
  tree_children "$background"
  kill "${pids[@]}" 2>/dev/null || true
  wait "$background" 2>/dev/null || true
}

machine() {
  echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(git --version), $(go version | cut -d' ' -f3)"
}
